"""The xgrammar structural tag for the phase after thinking, derived from a format value.

Markers that are single tokens of the tokenizer are matched by id (``TokenFormat``); combined
with the vocabulary in which control tokens match no text (see ``vocabulary.py``), the model can
neither spell a marker with ordinary tokens nor put one inside the arguments. Without a
tokenizer, markers are matched as text (and can then be spelled; pass the tokenizer).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Optional

from xgrammar.structural_tag import (
    AnyTextFormat,
    AnyTokensFormat,
    ConstStringFormat,
    Format,
    JSONSchemaFormat,
    OrFormat,
    RegexFormat,
    SequenceFormat,
    StarFormat,
    StructuralTag,
    TokenFormat,
)
from xgrammar.structural_tag import TokenDispatchFormat, TriggeredTagsFormat, TagFormat

from ..formats import ChatFormat, get_format
from .schema import PreparedSchema, prepare
from .schema_nodes import Node

DEFAULT_MAX_WHITESPACE = 8
# R1 habitually writes "\n\n" between </think> and the tool block.
LEADING_WHITESPACE = r"[ \t\r\n]{0,4}"
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
    tag: StructuralTag
    marker_ids: dict[str, int] = field(default_factory=dict)

    def header_nodes(self) -> dict[bytes, Node]:
        """Each tool's exact header text (bytes), with its argument bounds."""
        return {self.format.tools.header_text(t.name).encode(): t.schema.nodes for t in self.tools}


def normalize_tools(tools: Optional[list[Any]], unsupported: str = "error") -> list[ToolSpec]:
    """OpenAI tools, checked: each a function with a usable name and a schema thinkgate can
    enforce. Errors name the tool and the problem."""
    out: list[ToolSpec] = []
    seen: set[str] = set()
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
        out.append(ToolSpec(name, prepare(fn.get("parameters"), f"tool {name!r}", unsupported)))
    return out


def resolve_tool_choice(tool_choice: Any, tools: list[ToolSpec]) -> tuple[str, list[ToolSpec]]:
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
            name = (tool_choice.get("function") or {}).get("name")
            if name not in names:
                raise ValueError(f"tool_choice names the function {name!r}, which is not among the tools ({', '.join(names) or 'none'})")
            return "named", [names[name]]
        if kind == "allowed_tools":
            spec = tool_choice.get("allowed_tools") or {}
            mode = spec.get("mode", "auto")
            if mode not in ("auto", "required"):
                raise ValueError(f"allowed_tools mode must be 'auto' or 'required', not {mode!r}")
            chosen = []
            for ref in spec.get("tools") or ():
                name = (ref.get("function") or {}).get("name") if isinstance(ref, dict) else None
                if name not in names:
                    raise ValueError(f"allowed_tools names the function {name!r}, which is not among the tools")
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

    def element(self, marker: str) -> Format:
        tid = self.ids.get(marker)
        return TokenFormat(token=tid) if tid is not None else ConstStringFormat(value=marker)

    def text(self, template: str, name: Optional[str], sep: str) -> list[Format]:
        """A header or footer template as elements, adjacent text merged."""
        out: list[Format] = []
        for part in re.split(r"(\{sep\}|\{name\})", template):
            if part == "{sep}":
                out.append(self.element(sep))
                continue
            if part == "{name}":
                part = name or ""
            if not part:
                continue
            if out and isinstance(out[-1], ConstStringFormat):
                out[-1] = ConstStringFormat(value=out[-1].value + part)
            else:
                out.append(ConstStringFormat(value=part))
        return out


def _seq(elements: list[Format]) -> Format:
    return elements[0] if len(elements) == 1 else SequenceFormat(elements=elements)


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
) -> GrammarSpec:
    fmt = get_format(format)
    t = fmt.tools
    specs = normalize_tools(tools, unsupported)
    choice, chosen = resolve_tool_choice(tool_choice, specs)
    marks = _Markers(dict(marker_ids or {}))
    by_id = control_ids is not None and all(m in marks.ids for m in t.markers)

    head_template, _, tail_template = t.header.partition("{name}")
    prefix = marks.text(head_template, None, t.sep)

    def body(spec: ToolSpec) -> Format:
        return _seq(
            marks.text("{name}" + tail_template, spec.name, t.sep)
            + [JSONSchemaFormat(json_schema=spec.schema.xgrammar_schema, max_whitespace_cnt=max_whitespace)]
            + marks.text(t.footer, None, t.sep)
        )

    def calls() -> Format:
        """One call, or calls joined by the separator; the section's markers are the caller's."""
        bodies = [body(s) for s in chosen]
        call = _seq(
            [
                marks.element(t.call_begin),
                *prefix,
                bodies[0] if len(bodies) == 1 else OrFormat(elements=bodies),
                marks.element(t.call_end),
            ]
        )
        if not parallel_tool_calls or choice == "named":
            return call
        again = _seq([ConstStringFormat(value=t.separator), call]) if t.separator else call
        return SequenceFormat(elements=[call, StarFormat(content=again)])

    text_excludes = [m for m in fmt.markers if m != fmt.eos]
    if choice == "none":
        if by_id:
            tag = AnyTokensFormat(exclude_tokens=sorted(control_ids))
        else:
            tag = AnyTextFormat(excludes=text_excludes)
    elif choice == "auto":
        if by_id:
            begin = marks.ids[t.section_begin]
            tag = TokenDispatchFormat(
                rules=[(begin, _seq([calls(), marks.element(t.section_end)]))],
                loop=False,
                exclude_tokens=sorted(i for i in control_ids if i != begin),
            )
        else:
            tag = TriggeredTagsFormat(
                triggers=[t.section_begin],
                tags=[TagFormat(begin=t.section_begin, content=calls(), end=t.section_end)],
                excludes=[m for m in text_excludes if m != t.section_begin],
                stop_after_first=True,
            )
    else:
        tag = _seq(
            [
                RegexFormat(pattern=LEADING_WHITESPACE),
                marks.element(t.section_begin),
                calls(),
                marks.element(t.section_end),
            ]
        )
    return GrammarSpec(fmt, choice, chosen, parallel_tool_calls, StructuralTag(format=tag), marks.ids)


def build_structural_tag(
    format: str | ChatFormat,
    tools: Optional[list[Any]],
    tool_choice: Any = "auto",
    parallel_tool_calls: bool = True,
    *,
    tokenizer: Any = None,
    max_whitespace: Optional[int] = DEFAULT_MAX_WHITESPACE,
    unsupported: str = "error",
) -> StructuralTag:
    """The xgrammar ``StructuralTag`` for the output after thinking.

    tool_choice: ``"none"`` (no tool markup), ``"auto"`` (free text, then at most one tool
    section once its first marker is produced), ``"required"`` (one or more calls and nothing
    else but leading whitespace), a named function (exactly one call of it), or
    ``{"type": "allowed_tools", "allowed_tools": {"mode": ..., "tools": [...]}}``.
    ``parallel_tool_calls=False`` allows exactly one call. With ``tokenizer``, markers are
    single tokens and control tokens cannot appear in text; arguments follow each tool's schema
    with at most ``max_whitespace`` whitespace characters in a row.
    """
    from .vocabulary import vocabulary_for

    ids = control = None
    if tokenizer is not None:
        vocab = vocabulary_for(tokenizer)
        fmt = get_format(format)
        ids = {m: vocab.token_id(m) for m in fmt.markers if vocab.token_id(m) is not None}
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
    ).tag
