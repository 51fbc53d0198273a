"""The xgrammar structural tag for the phase after thinking, derived from a format value.

Here: the request's tools and tool_choice, checked, and the spec every engine builds from; the
tag itself is written by the grammar module of the format's layout (``marked_calls``,
``json_calls``, ``channel_messages``). Token markers the tokenizer has are matched by id; combined
with the vocabulary in which control tokens match no text (see ``vocabulary.py``), the model can
neither spell a marker with ordinary tokens nor put one inside the arguments. Without a
tokenizer, markers are matched as text (and can then be spelled; pass the tokenizer).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Optional

from ...formats import ChatFormat, Thinking, get_format, is_text
from ...formats.strict import DEFAULT_STRICT, check_strict, function_strict, tool_level
from . import channel_messages, json_calls, marked_calls, pythonic_calls
from .json_answer import answer_tag, holds_answer, prepare_answer
from ..schemas.schema import PreparedSchema, prepare
from ..schemas.schema_exact import exact_schema, exact_strings
from ..schemas.schema_nodes import Node
from .tag_elements import NAME_FORBIDDEN, Markers, TagRequest, any_text, any_tokens, const, either, reasoning, seq, structural_tag
from ...formats.tokens import own_text

DEFAULT_MAX_WHITESPACE = 8
# One grammar module per layout, named as the layout is (see thinkgate.formats.LAYOUTS).
_LAYOUTS = {m.__name__.rsplit(".", 1)[1]: m for m in (marked_calls, json_calls, channel_messages, pythonic_calls)}


@dataclass
class ToolSpec:
    name: str
    schema: PreparedSchema  # at level 1, any JSON object (the tool's own schema is not held)
    level: int = DEFAULT_STRICT


@dataclass
class GrammarSpec:
    """Everything the phase after thinking is built from: the tag, and what the guard needs."""

    format: ChatFormat
    choice: str  # "none", "auto", "required" or "named"
    tools: list[ToolSpec]
    parallel_tool_calls: bool
    tag: dict  # the structural tag, as xgrammar reads it (see tag_elements)
    marker_ids: dict[str, int] = field(default_factory=dict)
    # The schema the answer is held to (response_format), where the choice leaves an answer;
    # None: the answer is free (or there is none).
    answer: Optional[PreparedSchema] = None
    # Strict level 0 under "auto": the answer after thinking is free (the tag admits any
    # token), so no mask is due once thinking is over and no guard follows calls.
    free_answer: bool = False
    # A routed grammar (many tools, see ``routed``): ``tag`` holds every tool's arguments to any
    # JSON object, and this holds each tool's own tag, from its call's begin marker on (None for
    # a tool held only to an object anyway); a call's row is the two masks ANDed.
    calls: Optional[list[Optional[dict]]] = None
    # The longest run of whitespace the guard lets JSON have (None: the grammar bounds it, or
    # nothing does); see ``build_spec``'s guard_whitespace.
    whitespace_bound: Optional[int] = None
    _headers: Optional[dict] = field(default=None, repr=False, compare=False)

    # What the run-time guard follows, as the layout's grammar module says it.

    @property
    def call_trigger(self) -> str:
        """The marker after which the guard reads a call's header ("" where calls have none)."""
        return _LAYOUTS[self.format.tools.layout.name].call_trigger(self.format.tools)

    @property
    def between_calls(self) -> Optional[bytes]:
        """Where calls are found by their ``{`` (no marker begins a call): the bytes that may
        stand between them; else None."""
        return _LAYOUTS[self.format.tools.layout.name].between_calls(self.format.tools)

    def with_reasoning(self, thinking: Thinking) -> dict:
        """The tag with the reasoning ahead of it, for a format whose reasoning markers are text
        (no token ends the reasoning for the reasoner to watch: the grammar holds it, free text
        up to the close). ``thinking`` True: the output starts inside it; ``"auto"``: the
        output may open it first."""
        r = self.format.reasoning
        answer = self.tag["format"]
        # the answer's open marker follows the reasoning's close (Kimi-K3's response element;
        # an output that does not think starts inside it, opened by the prompt)
        opened = [const(self.format.answer[0])] if self.format.answer[0] else []
        if thinking is True:
            return structural_tag(seq([reasoning(None, r.close), *opened, answer]))
        return structural_tag(either([seq([reasoning(r.open, r.close), *opened, answer]), answer]))

    def header_nodes(self) -> dict[str, Node]:
        """Each tool's header after :attr:`call_trigger` (a regular expression, for headers that
        number the call), with the schema node of what follows it. Built once per spec: the
        guard's masks are cached by the nodes themselves, so every request of a grammar must
        share them (a call object's node made anew per request missed the cache at every step)."""
        if self._headers is None:
            self._headers = _LAYOUTS[self.format.tools.layout.name].header_nodes(self.format, self.tools)
        return dict(self._headers)

    def routed_headers(self) -> list[str]:
        """A routed grammar whose arguments are parameters (no JSON for the guard to follow):
        each tool's header as a pattern, which the guard matches to say which tool a call names."""
        layout = _LAYOUTS[self.format.tools.layout.name]
        return layout.routed_headers(self.format.tools, self.tools) if self.calls is not None and hasattr(layout, "routed_headers") else []

    @property
    def answer_header(self) -> Optional[str]:
        """Where the JSON answer has a header of its own (harmony's final channel): that header
        after :attr:`call_trigger`, as :meth:`header_nodes` has them; None: the answer is the
        text after thinking, found by its ``{``."""
        return _LAYOUTS[self.format.tools.layout.name].answer_header(self.format)


@dataclass
class ToolDecl:
    """An OpenAI tool, its name checked, its schema not yet prepared."""

    name: str
    parameters: Any
    strict: Optional[bool] = None  # OpenAI's function.strict (None: absent)


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
        if not isinstance(name, str) or not name or len(name) > 256 or NAME_FORBIDDEN.search(name):
            raise ValueError(
                f"tools[{i}] has an invalid name {name!r} (1-256 characters, no whitespace, "
                "quotes, braces, '<' or '`')"
            )
        if name in seen:
            raise ValueError(f"tools[{i}]: the tool name {name!r} is given twice")
        seen.add(name)
        out.append(ToolDecl(name, fn.get("parameters"), function_strict(fn, f"tools[{i}] ({name!r})")))
    return out


def normalize_tools(tools: Optional[list[Any]], unsupported: str = "error") -> list[ToolSpec]:
    """OpenAI tools, checked: each a function with a usable name and a schema thinkgate can
    enforce. Errors name the tool and the problem."""
    return [prepare_tool(d, unsupported) for d in tool_declarations(tools)]


def prepare_tool(decl: ToolDecl, unsupported: str = "error", ask_xgrammar: bool = True, level: int = DEFAULT_STRICT) -> ToolSpec:
    """A tool as the grammar holds it: below level 2 its arguments are any JSON object, and
    its own schema is neither prepared nor refused (a keyword thinkgate cannot enforce does not
    fail a tool whose schema is not enforced)."""
    parameters = decl.parameters if level >= 2 else {"type": "object"}
    try:
        text = json.dumps(parameters, ensure_ascii=False)
    except (TypeError, ValueError):  # no JSON: prepare says what is wrong with it
        return ToolSpec(decl.name, prepare(parameters, f"tool {decl.name!r}", unsupported, ask_xgrammar), level)
    return ToolSpec(decl.name, _prepared(text, decl.name, unsupported, ask_xgrammar), level)


@lru_cache(maxsize=4096)
def _prepared(parameters: str, name: str, unsupported: str, ask_xgrammar: bool) -> PreparedSchema:
    """A tool's schema prepared once per process (its text as given: the order of its
    properties is the order the grammar writes them in); agent-size tool sets repeat their tools
    from request to request, and checking a schema is most of a large set's cost. A prepared
    schema is read, never changed."""
    return prepare(json.loads(parameters), f"tool {name!r}", unsupported, ask_xgrammar)


def tool_levels(declared: list[ToolDecl], choice: str, strict: int) -> Optional[dict[str, int]]:
    """Each tool's level in the grammar, or None where the answer is free: level 0 under
    "auto" with no tool asking for more. A grammar cannot leave one tool's markup free while it
    holds another's, so once any tool is held (or a call is required) every tool is held at
    least to level 1."""
    levels = {d.name: tool_level(d.strict, strict) for d in declared}
    if choice == "auto" and not any(levels.values()):
        return None
    return {name: max(level, 1) for name, level in levels.items()}


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
    response_format: Any = None,
    strict: int = DEFAULT_STRICT,
    route_from: Optional[int] = None,
    guard_whitespace: bool = False,
    standalone: bool = False,
) -> GrammarSpec:
    """``route_from``: from this many tools held to their schemas on, a format whose calls name
    their tool before the arguments, in a header or as the call object's first key (and whose
    begin marker is a token), gets a routed grammar (see ``routed``); None: never.

    ``guard_whitespace``: JSON's whitespace runs are bounded by thinkgate's run-time guard,
    which follows every JSON the tag holds, not by the tag (whose JSON then lets whitespace run
    free: xgrammar fills such a grammar's masks about three times faster). A tag for an engine's
    own structured output, which has no guard, keeps the bound in the grammar.

    ``standalone``: the tag is all there is (an engine's own structured output: no guard
    follows it), so it holds what the guard would: string lengths, valid Unicode, unrepeated
    keys, the whitespace bound (see :mod:`.schema_exact`), or refuses by name what xgrammar
    cannot hold (``unsupported="relax"``: dropped with a warning). Otherwise the schemas'
    lengths are left to the guard, which holds them at a fraction of xgrammar's compile cost."""
    if standalone and guard_whitespace:
        raise ValueError("a standalone tag has no guard to bound its whitespace: guard_whitespace must be False")
    if standalone and max_whitespace == 0:
        raise ValueError(
            "max_whitespace 0 cannot be written into an exported structural tag (xgrammar bounds a whitespace run at "
            "1 or more); pass 1 or more, or None for no bound"
        )
    fmt = get_format(format)
    t = fmt.tools
    strict = check_strict(strict)
    # Only the tools the choice leaves are prepared: under "none" no schema is compiled, so a
    # keyword thinkgate cannot enforce does not fail a request that calls no tool.
    choice, declared = resolve_tool_choice(tool_choice, tool_declarations(tools))
    # The answer's schema is checked whatever the choice (a bad response_format is an error
    # under "required" too); it holds only where the choice leaves an answer. A JSON answer is
    # held at every strict level (the level is the calls'): level 0 is then held as 1.
    answer = prepare_answer(response_format, unsupported, ask_xgrammar)
    if answer is not None and not holds_answer(choice):
        answer = None
    levels = tool_levels(declared, choice, strict if answer is None else max(strict, 1))
    marks = Markers(dict(marker_ids or {}))
    if levels is None:
        # Any token, control tokens too: the answer is the model's own, and the parser reads it.
        free = any_tokens([]) if control_ids is not None else any_text([])
        return GrammarSpec(fmt, choice, [], parallel_tool_calls, structural_tag(free), marks.ids, free_answer=True)
    chosen = [prepare_tool(d, unsupported, ask_xgrammar, levels[d.name]) for d in declared]
    if standalone:
        chosen = [_standalone(s, t, unsupported) for s in chosen]
        if answer is not None:
            answer = replace(answer, xgrammar_schema=exact_schema(answer.bounded_schema, answer.where, unsupported))
    # Token markers by id where the tokenizer has them all; text markers are always text, and
    # free text then keeps them out as text (any tokens could spell them).
    by_id = control_ids is not None and all(m in marks.ids for m in t.markers if not is_text(m))
    request = TagRequest(fmt, choice, chosen, parallel_tool_calls, marks, control_ids if by_id else None, max_whitespace, guard_whitespace)
    layout = _LAYOUTS[t.layout.name]
    calls = None
    if route_from is not None and answer is None and by_id and _routable(fmt, layout, marks) and sum(s.level >= 2 for s in chosen) >= route_from:
        # (a tool held only to an object is the router's alone, whose "any object" is its own;
        # parameters have no such thing in the router, whose arguments are any text)
        calls = [structural_tag(layout.routed_call(request, s)) if s.level >= 2 or t.xml is not None else None for s in chosen]
        if t.call_object_layout or t.xml is not None:
            # one call object for every tool (its name any of theirs); parameters: any text
            request = replace(request, router_arguments=_any_object().xgrammar_schema)
        else:
            request = replace(request, tools=[ToolSpec(s.name, _any_object(), 1) if s.level >= 2 else s for s in chosen])
    tag = layout.layout_tag(request) if answer is None else answer_tag(request, layout, answer)
    if fmt.turn_end:  # what ends the turn after the answer and calls (Kimi-K3's message close)
        tag = seq([tag, const(fmt.turn_end)])
    if standalone:
        tag = exact_strings(tag)
    bound = max_whitespace if guard_whitespace else None
    return GrammarSpec(fmt, choice, chosen, parallel_tool_calls, structural_tag(tag), marks.ids, answer, calls=calls, whitespace_bound=bound)


def _standalone(spec: ToolSpec, t: Any, unsupported: str) -> ToolSpec:
    """A tool whose schema the tag alone must hold (see :mod:`.schema_exact`). JSON arguments get
    xgrammar a schema with the lengths as patterns (the one the guarded tag has leaves them out);
    parameters keep theirs, which xgrammar's XML styles hold on a bare value, and an object
    literal's grammar is thinkgate's own (its strings are the bounded text it writes)."""
    s = spec.schema
    # below level 2 the schema held is not the tool's own: the refusal says which it is
    where = s.where if spec.level >= 2 else f"{s.where} (strict level {spec.level}: any JSON object)"
    if t.literal is not None or t.python is not None:
        return spec
    if t.xml is not None:
        return replace(spec, schema=replace(s, bounded_schema=exact_schema(s.bounded_schema, where, unsupported, json=False)))
    return replace(spec, schema=replace(s, xgrammar_schema=exact_schema(s.bounded_schema, where, unsupported)))


def _routable(fmt: ChatFormat, layout: Any, marks: Markers) -> bool:
    """Whether the guard can tell which tool a call names and where its call began: a header
    or a call object naming it after a begin marker that is one token, or a call object found
    by its "{" (bare, or in an array after a section marker that is one token); reasoning that
    is no text (the grammar would hold it, and the guard reads only part of it)."""
    t = fmt.tools
    trigger = layout.call_trigger(t) if hasattr(layout, "routable") else ""
    return hasattr(layout, "routable") and layout.routable(t) and (not trigger or not is_text(trigger) and trigger in marks.ids) and not fmt.text_reasoning


_ANY_OBJECT: list[PreparedSchema] = []


def _any_object() -> PreparedSchema:
    """The arguments of any tool in a router: any JSON object (a level-1 tool's own)."""
    if not _ANY_OBJECT:
        _ANY_OBJECT.append(prepare({"type": "object"}, "any object", ask_xgrammar=False))
    return _ANY_OBJECT[0]


def build_structural_tag(
    format: str | ChatFormat,
    tools: Optional[list[Any]],
    tool_choice: Any = "auto",
    parallel_tool_calls: bool = True,
    *,
    tokenizer: Any = None,
    max_whitespace: Optional[int] = DEFAULT_MAX_WHITESPACE,
    unsupported: str = "error",
    response_format: Any = None,
    strict: int = DEFAULT_STRICT,
) -> dict:
    """The xgrammar structural tag for the output after thinking, as the JSON data
    ``xgrammar.Grammar.from_structural_tag`` (or vLLM's ``structural_tag`` option, as text) reads.

    tool_choice: ``"none"`` (no tool markup), ``"auto"`` (free text, then at most one tool
    section once its first marker is produced), ``"required"`` (one or more calls and nothing
    else but leading whitespace), a named function (exactly one call of it), or
    ``{"type": "allowed_tools", "allowed_tools": {"mode": ..., "tools": [...]}}``.
    ``parallel_tool_calls=False`` allows exactly one call. ``response_format`` (OpenAI's
    ``json_schema`` or ``json_object``) holds the answer to JSON (see
    :mod:`~thinkgate.constraint.grammar.json_answer`). With ``tokenizer``, markers are
    single tokens and control tokens cannot appear in text; arguments follow each tool's schema
    with at most ``max_whitespace`` whitespace characters in a row.

    ``strict`` (see :mod:`thinkgate.formats.strict`): 2 holds the arguments to each tool's
    schema, 1 only to a JSON object (markup and tool names still held), 0 under ``"auto"``
    admits any answer (under ``"required"`` or a named tool a call is still required, so level
    0 is held as 1 there). A tool's ``function.strict`` ``true``/``false`` sets its own level.

    Without a tokenizer nothing of xgrammar (or torch) is imported: the schemas are checked by
    thinkgate's rules, and xgrammar's own verdict on them comes when the tag is compiled.
    """
    ids = control = None
    if tokenizer is not None:
        from ..runtime.vocabulary import vocabulary_for

        fmt = get_format(format)
        vocab = vocabulary_for(tokenizer, text=own_text(fmt))
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
        response_format=response_format,
        strict=strict,
        standalone=True,
    ).tag
