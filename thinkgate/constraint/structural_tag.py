"""The xgrammar structural tag for the phase after thinking, derived from a format value.

Markers that are single tokens of the tokenizer are matched by id (``TokenFormat``); combined
with the vocabulary in which control tokens match no text (see ``vocabulary.py``), the model can
neither spell a marker with ordinary tokens nor put one inside the arguments. Without a
tokenizer, markers are matched as text (and can then be spelled; pass the tokenizer).
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Any, Optional

from ..formats import ChatFormat, get_format, is_text
from ..formats.base import TemplatePart, template_parts
from .harmony_tag import harmony_tag, header_after_role
from .schema import PreparedSchema, prepare
from .schema_nodes import Node, call_object_node
from .tag_elements import (
    Element,
    any_text,
    any_tokens,
    const,
    either,
    is_const,
    json_schema,
    regex,
    seq,
    star,
    structural_tag,
    token,
    token_dispatch,
    triggered_tags,
)

DEFAULT_MAX_WHITESPACE = 8
# R1 habitually writes "\n\n" between </think> and the tool block.
LEADING_WHITESPACE = r"[ \t\r\n]{0,4}"
# A call's number in its header (Kimi-K2 counts calls across the conversation).
CALL_INDEX = r"(0|[1-9][0-9]{0,3})"
_NAME_FORBIDDEN = re.compile(r"[\s<`{}\"]")


@dataclass
class ToolSpec:
    name: str
    schema: PreparedSchema


@dataclass
class GrammarSpec:
    """Everything the phase after thinking is built from: the tag, and what the guard needs."""

    format: ChatFormat
    choice: str  # "none", "auto", "required" or "named"
    tools: list[ToolSpec]
    parallel_tool_calls: bool
    tag: dict  # the structural tag, as xgrammar reads it (see tag_elements)
    marker_ids: dict[str, int] = field(default_factory=dict)

    @property
    def call_trigger(self) -> str:
        """The marker after which the guard reads a call's header: the call's begin marker, or
        for harmony the channel marker (the grammar starts after ``<|start|>assistant``)."""
        t = self.format.tools
        if t.layout == "harmony":
            return t.messages.channel
        return t.section_begin if t.layout == "json_array" else t.call_begin  # bare_json: none

    @property
    def between_calls(self) -> Optional[bytes]:
        """Where calls are found by their ``{`` (no marker begins a call): the bytes that may
        stand between them (whitespace, the separator, the array's bracket); else None."""
        t = self.format.tools
        if t.layout not in ("bare_json", "json_array"):
            return None
        return (" \t\r\n" + t.separator + t.array[0]).encode()

    def header_nodes(self) -> dict[str, Node]:
        """Each tool's header after :attr:`call_trigger` (a regular expression, for headers that
        number the call), with its argument bounds; in the json_object layout the one header,
        with the node of the whole call object."""
        t = self.format.tools
        if t.layout == "harmony":
            skip = len(t.messages.channel)
            return {re.escape(header_after_role(self.format, s.name)[skip:]): s.schema.nodes for s in self.tools}
        if t.xml is not None:
            return {}  # parameters are no JSON the guard could follow; xgrammar has the bounds
        if t.call_object_layout:
            obj = call_object_node(t.name_key, t.arguments_key, {s.name: s.schema.nodes for s in self.tools})
            return {re.escape(t.header): obj}
        return {t.header_pattern(s.name): s.schema.nodes for s in self.tools}


@dataclass
class ToolDecl:
    """An OpenAI tool, its name checked, its schema not yet prepared."""

    name: str
    parameters: Any


def tool_declarations(tools: Optional[list[Any]]) -> list[ToolDecl]:
    """OpenAI tools, each a function with a usable name. Errors name the tool and the problem."""
    out: list[ToolDecl] = []
    seen: set[str] = set()
    if tools is not None and not isinstance(tools, list):
        raise ValueError(f"tools must be a list of function tools, not {type(tools).__name__}")
    for i, tool in enumerate(tools or ()):
        if not isinstance(tool, dict) or tool.get("type", "function") != "function":
            raise ValueError(f"tools[{i}] is not a function tool: {tool!r}")
        fn = tool.get("function")
        if not isinstance(fn, dict):
            raise ValueError(f"tools[{i}] has no 'function' object")
        name = fn.get("name")
        if not isinstance(name, str) or not name or len(name) > 256 or _NAME_FORBIDDEN.search(name):
            raise ValueError(
                f"tools[{i}] has an invalid name {name!r} (1-256 characters, no whitespace, "
                "quotes, braces, '<' or '`')"
            )
        if name in seen:
            raise ValueError(f"tools[{i}]: the tool name {name!r} is given twice")
        seen.add(name)
        out.append(ToolDecl(name, fn.get("parameters")))
    return out


def normalize_tools(tools: Optional[list[Any]], unsupported: str = "error") -> list[ToolSpec]:
    """OpenAI tools, checked: each a function with a usable name and a schema thinkgate can
    enforce. Errors name the tool and the problem."""
    return [prepare_tool(d, unsupported) for d in tool_declarations(tools)]


def prepare_tool(decl: ToolDecl, unsupported: str = "error", ask_xgrammar: bool = True) -> ToolSpec:
    return ToolSpec(decl.name, prepare(decl.parameters, f"tool {decl.name!r}", unsupported, ask_xgrammar))


def resolve_tool_choice(tool_choice: Any, tools: list) -> tuple[str, list]:
    """``(kind, tools)`` for an OpenAI ``tool_choice``: kind is none / auto / required / named."""
    names = {t.name: t for t in tools}
    if tool_choice is None or tool_choice == "auto":
        return ("auto" if tools else "none"), tools
    if tool_choice == "none":
        return "none", []
    if tool_choice == "required":
        if not tools:
            raise ValueError("tool_choice 'required' needs at least one tool, and no tools were given")
        return "required", tools
    if isinstance(tool_choice, dict):
        kind = tool_choice.get("type")
        if kind == "function":
            fn = tool_choice.get("function")
            name = fn.get("name") if isinstance(fn, dict) else None
            if name not in names:
                raise ValueError(f"tool_choice names the function {name!r}, which is not among the tools ({', '.join(names) or 'none'})")
            return "named", [names[name]]
        if kind == "allowed_tools":
            spec = tool_choice.get("allowed_tools")
            if not isinstance(spec, dict):
                raise ValueError(f"tool_choice of type 'allowed_tools' needs an 'allowed_tools' object, not {spec!r}")
            mode = spec.get("mode", "auto")
            if mode not in ("auto", "required"):
                raise ValueError(f"allowed_tools mode must be 'auto' or 'required', not {mode!r}")
            chosen = []
            for ref in spec.get("tools") or ():
                fn = ref.get("function") if isinstance(ref, dict) else None
                name = fn.get("name") if isinstance(fn, dict) else None
                if name not in names:
                    raise ValueError(f"allowed_tools names the function {name!r}, which is not among the tools")
                if names[name] not in chosen:
                    chosen.append(names[name])
            if mode == "required" and not chosen:
                raise ValueError("allowed_tools with mode 'required' lists no tools")
            return (mode if chosen else "none"), chosen
    raise ValueError(
        f"unknown tool_choice {tool_choice!r}: use 'none', 'auto', 'required', "
        "{'type': 'function', 'function': {'name': ...}} or {'type': 'allowed_tools', ...}"
    )


class _Markers:
    """Markers as grammar elements: by token id when the tokenizer has them as single tokens."""

    def __init__(self, ids: dict[str, int]):
        self.ids = ids

    def element(self, marker: str) -> Element:
        tid = None if is_text(marker) else self.ids.get(marker)
        return token(tid) if tid is not None else const(marker)

    def text(self, parts: list[TemplatePart], name: Optional[str], sep: str) -> list[Element]:
        """Parts of a header or footer template as elements, adjacent text merged; an id the
        model may write is left out (a grammar never has one written)."""
        out: list[Element] = []
        for kind, text in parts:
            if kind == "sep":
                out.append(self.element(sep))
                continue
            if kind == "index":
                out.append(regex(CALL_INDEX))
                continue
            if kind == "id":
                continue
            if kind == "name":
                text = name or ""
            if not text:
                continue
            if out and is_const(out[-1]):
                out[-1] = const(out[-1]["value"] + text)
            else:
                out.append(const(text))
        return out


def parameters_schema(spec: ToolSpec, xml: Any, format_name: str) -> Any:
    """A tool's schema for arguments written as parameters: every key the grammar can write must
    be a name the parser reads. Declared names are checked; free keys get identifier names."""
    schema = spec.schema.bounded_schema
    if not isinstance(schema, dict):
        return schema
    where = f"tool {spec.name!r}"
    unreadable = [k for k in schema.get("properties", {}) if not xml.readable_name(k)]
    if unreadable:
        raise ValueError(
            f"{where}: the property name {unreadable[0]!r} at #/properties/{unreadable[0]} cannot be a parameter's "
            f"name in format {format_name!r} (a name matches {xml.name_pattern}, at most {xml.name_length} characters)"
        )
    free = schema.get("additionalProperties", False) is not False
    if schema.get("patternProperties") or (free and "propertyNames" in schema):
        keyword = "patternProperties" if schema.get("patternProperties") else "propertyNames"
        raise ValueError(f"{where}: {keyword!r} at # cannot be enforced on parameter names in format {format_name!r}; declare the parameters in 'properties'")
    if free:
        schema = {**schema, "propertyNames": {"pattern": xml.free_name_pattern}}
    return schema


def call_object_schema(t: Any, spec: ToolSpec) -> dict:
    """json_object layout: the schema of the whole call object, the name a constant and the
    arguments the tool's schema (its ``$defs`` lifted to the new root, its references moved)."""
    arguments = copy.deepcopy(spec.schema.xgrammar_schema)
    defs = {k: arguments.pop(k) for k in ("$defs", "definitions") if isinstance(arguments, dict) and k in arguments}
    here = f"#/properties/{t.arguments_key}"
    _move_refs(arguments, here)
    for group in defs.values():
        _move_refs(group, here)
    return {
        "type": "object",
        "properties": {t.name_key: {"const": spec.name}, t.arguments_key: arguments},
        "required": [t.name_key, t.arguments_key],
        "additionalProperties": False,
        **defs,
    }


def _move_refs(node: Any, here: str) -> None:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#") and not ref.startswith(("#/$defs", "#/definitions")):
            node["$ref"] = here + ref[1:]
        for v in node.values():
            _move_refs(v, here)
    elif isinstance(node, list):
        for v in node:
            _move_refs(v, here)


def build_spec(
    format: str | ChatFormat,
    tools: Optional[list[Any]],
    tool_choice: Any = "auto",
    parallel_tool_calls: bool = True,
    *,
    marker_ids: Optional[dict[str, int]] = None,
    control_ids: Optional[list[int]] = None,
    max_whitespace: Optional[int] = DEFAULT_MAX_WHITESPACE,
    unsupported: str = "error",
    ask_xgrammar: bool = True,
) -> GrammarSpec:
    fmt = get_format(format)
    t = fmt.tools
    # Only the tools the choice leaves are prepared: under "none" no schema is compiled, so a
    # keyword thinkgate cannot enforce does not fail a request that calls no tool.
    choice, declared = resolve_tool_choice(tool_choice, tool_declarations(tools))
    chosen = [prepare_tool(d, unsupported, ask_xgrammar) for d in declared]
    marks = _Markers(dict(marker_ids or {}))
    # Token markers by id where the tokenizer has them all; text markers are always text, and
    # free text then keeps them out as text (any tokens could spell them).
    by_id = control_ids is not None and all(m in marks.ids for m in t.markers if not is_text(m))
    text_markup = bool(fmt.text_markers)

    if t.layout == "harmony":
        tag = harmony_tag(fmt, choice, chosen, marks.element, control_ids if by_id else None, max_whitespace)
        return GrammarSpec(fmt, choice, chosen, parallel_tool_calls, structural_tag(tag), marks.ids)

    if t.layout == "bare_json":
        tag = bare_json_tag(t, choice, chosen, parallel_tool_calls, control_ids if by_id else None, fmt.markers, max_whitespace)
        return GrammarSpec(fmt, choice, chosen, parallel_tool_calls, structural_tag(tag), marks.ids)

    json_object = t.call_object_layout  # json_object or json_array: the name inside the object
    header, footer = template_parts(t.header), template_parts(t.footer)
    # The part of the header before the tool's name is written once for all tools.
    at_name = next((i for i, (kind, _) in enumerate(header) if kind == "name"), 0)
    prefix = [] if json_object else marks.text(header[:at_name], None, t.sep)

    def body(spec: ToolSpec) -> Element:
        if json_object:  # the name is a constant inside the call object
            arguments = [json_schema(call_object_schema(t, spec), max_whitespace)]
            return seq(marks.text(header, None, t.sep) + arguments + marks.text(footer, None, t.sep))
        if t.xml is not None:
            if spec.schema.unbounded_in_parameters:
                raise ValueError(spec.schema.unbounded_in_parameters)
            arguments = json_schema(parameters_schema(spec, t.xml, fmt.name), max_whitespace, style=t.xml.style)
        else:
            arguments = json_schema(spec.schema.xgrammar_schema, max_whitespace)
        return seq(
            marks.text(header[at_name:], spec.name, t.sep)
            + [arguments]
            + marks.text(footer, None, t.sep)
        )

    def call_rest() -> list[Element]:
        """A call after its begin marker."""
        bodies = [body(s) for s in chosen]
        end = [marks.element(t.call_end)] if t.call_end else []  # Mistral: a call ends with its JSON
        return [*prefix, either(bodies), *end]

    def call() -> Element:
        """A call, from its begin marker (a call in an array has none) on."""
        return seq([*([marks.element(t.call_begin)] if t.call_begin else []), *call_rest()])

    def more(first: Element) -> Element:
        """``first``, then (if parallel calls are allowed) further calls after the separator."""
        if not parallel_tool_calls or choice == "named":
            return first
        again = seq([const(t.separator), call()]) if t.separator else call()
        return seq([first, star(again)])

    def around(calls: Element) -> list[Element]:
        """The calls inside the section markers (a layout without them has none)."""
        return [x for x in (t.section_begin and marks.element(t.section_begin), calls, t.section_end and marks.element(t.section_end)) if x]

    calls = more(call())
    opened = None
    if t.array != ("", ""):  # the calls as one JSON array (after a space where the tokenizer puts one)
        opened = seq([regex(" ?" + re.escape(t.array[0])), calls])
        calls = seq([opened, const(t.array[1])])
    trigger = t.trigger
    text_excludes = [m for m in fmt.markers if m != fmt.eos]
    if choice == "none":
        if by_id and not text_markup:
            tag = any_tokens(sorted(control_ids))
        else:
            tag = any_text(text_excludes)
    elif choice == "auto":
        # After the trigger (the section marker, or a call's own begin where there is no
        # section) the rest of the tool calls, then nothing but the end.
        rest = seq([calls, *([marks.element(t.section_end)] if t.section_end else [])]) if t.section_begin else more(seq(call_rest()))
        if by_id and not is_text(trigger):
            begin = marks.ids[trigger]
            tag = token_dispatch([(begin, rest)], sorted(i for i in control_ids if i != begin))
        else:
            end = t.markup_end
            content = calls if t.section_begin else seq(call_rest()[:-1] if t.call_end else call_rest())
            if opened is not None:  # the array's bracket closes the tag (its calls are unbounded)
                content, end = opened, t.array[1] + t.section_end
            tag = triggered_tags(trigger, content, end, [m for m in text_excludes if m != trigger])
    else:
        tag = seq([regex(LEADING_WHITESPACE), *around(calls)])
    return GrammarSpec(fmt, choice, chosen, parallel_tool_calls, structural_tag(tag), marks.ids)


def bare_json_tag(t: Any, choice: str, chosen: list[ToolSpec], parallel: bool, control_ids: Optional[list[int]], markers: tuple[str, ...], max_whitespace: Optional[int]) -> Element:
    """bare_json layout (Llama 3.x): no marker announces a call, so the answer's first character
    decides, as the parser reads it: ``{`` begins the calls (call objects joined by the
    separator), anything else makes the answer free text."""
    if control_ids is not None:
        free = any_tokens(sorted(control_ids))
    else:
        free = any_text(list(markers))
    if choice == "none":
        return free
    call = either([json_schema(call_object_schema(t, s), max_whitespace) for s in chosen])
    if parallel and choice != "named":
        call = seq([call, star(seq([const(t.separator), call]))])
    calls = seq([regex(LEADING_WHITESPACE), call])
    if choice != "auto":
        return calls
    # Free text after its first character: matched as text (xgrammar's any-tokens element only
    # starts at a token boundary, and that character may be the start of a token); control
    # tokens stay out, their poisoned bytes being no text.
    text = seq([regex(LEADING_WHITESPACE + r"[^{ \t\r\n]"), any_text(list(markers))])
    return either([calls, text, regex(LEADING_WHITESPACE)])


def build_structural_tag(
    format: str | ChatFormat,
    tools: Optional[list[Any]],
    tool_choice: Any = "auto",
    parallel_tool_calls: bool = True,
    *,
    tokenizer: Any = None,
    max_whitespace: Optional[int] = DEFAULT_MAX_WHITESPACE,
    unsupported: str = "error",
) -> dict:
    """The xgrammar structural tag for the output after thinking, as the JSON data
    ``xgrammar.Grammar.from_structural_tag`` (or vLLM's ``structural_tag`` option, as text) reads.

    tool_choice: ``"none"`` (no tool markup), ``"auto"`` (free text, then at most one tool
    section once its first marker is produced), ``"required"`` (one or more calls and nothing
    else but leading whitespace), a named function (exactly one call of it), or
    ``{"type": "allowed_tools", "allowed_tools": {"mode": ..., "tools": [...]}}``.
    ``parallel_tool_calls=False`` allows exactly one call. With ``tokenizer``, markers are
    single tokens and control tokens cannot appear in text; arguments follow each tool's schema
    with at most ``max_whitespace`` whitespace characters in a row.

    Without a tokenizer nothing of xgrammar (or torch) is imported: the schemas are checked by
    thinkgate's rules, and xgrammar's own verdict on them comes when the tag is compiled.
    """
    ids = control = None
    if tokenizer is not None:
        from .vocabulary import vocabulary_for

        vocab = vocabulary_for(tokenizer)
        fmt = get_format(format)
        ids = {m: vocab.token_id(m) for m in fmt.token_markers if vocab.token_id(m) is not None}
        control = sorted(vocab.control_ids)
    return build_spec(
        format,
        tools,
        tool_choice,
        parallel_tool_calls,
        marker_ids=ids,
        control_ids=control,
        max_whitespace=max_whitespace,
        unsupported=unsupported,
        ask_xgrammar=tokenizer is not None,
    ).tag
