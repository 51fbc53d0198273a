"""The elements of an xgrammar structural tag, as the plain JSON data xgrammar reads.

A tag is data: built here without importing xgrammar (whose import brings torch), so that
:func:`~thinkgate.constraint.build_structural_tag` serves a client or a server front end that
only passes the tag on; xgrammar reads the same dicts where a grammar is compiled.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Optional

from ...formats import ChatFormat, is_text
from ...formats.base import TemplatePart
from .free_text import text_without

Element = dict[str, Any]

# What a tool's name may not hold (so that the text after a name in a header can end it).
NAME_FORBIDDEN = re.compile(r"[\s<`{}\"]")
# R1 habitually writes "\n\n" between </think> and the tool block.
LEADING_WHITESPACE = r"[ \t\r\n]{0,4}"
# A call's number in its header (Kimi-K2 counts calls across the conversation).
CALL_INDEX = r"(0|[1-9][0-9]{0,3})"


def const(value: str) -> Element:
    return {"type": "const_string", "value": value}


def regex(pattern: str) -> Element:
    return {"type": "regex", "pattern": pattern}


def token(token_id: int) -> Element:
    return {"type": "token", "token": token_id}


def json_schema(schema: Any, max_whitespace: Optional[int], style: str = "json") -> Element:
    return {"type": "json_schema", "json_schema": schema, "style": style, "max_whitespace_cnt": max_whitespace}


def seq(elements: list[Element]) -> Element:
    """The elements one after another (one element stands for itself)."""
    return elements[0] if len(elements) == 1 else {"type": "sequence", "elements": list(elements)}


def either(elements: list[Element]) -> Element:
    """One of the elements (one element stands for itself)."""
    return elements[0] if len(elements) == 1 else {"type": "or", "elements": list(elements)}


def optional(content: Element) -> Element:
    return {"type": "optional", "content": content}


def star(content: Element) -> Element:
    return {"type": "star", "content": content}


def any_text(excludes: list[str]) -> Element:
    return {"type": "any_text", "excludes": list(excludes)}


def any_tokens(exclude_tokens: list[int]) -> Element:
    return {"type": "any_tokens", "exclude_tokens": list(exclude_tokens)}


def token_dispatch(rules: list[tuple[int, Element]], exclude_tokens: list[int]) -> Element:
    """Free tokens until one of the rules' tokens, then that rule's element (once)."""
    return {"type": "token_dispatch", "rules": [[t, e] for t, e in rules], "loop": False, "exclude_tokens": list(exclude_tokens)}


def text_then_markup(trigger: str, content: Element, end: str, markers: list[str], text_end: str = "") -> Element:
    """Free text, then (or not) ``trigger``, ``content`` and ``end`` once: the tool markup of an
    answer where it is text. The free text holds none of ``markers`` (the trigger among them) and
    ends in no piece of one (see :mod:`.free_text`), where xgrammar's triggered tags would let the
    output end in the trigger's first characters. ``text_end``: what closes the text, markup
    or not (Kimi-K3's response element)."""
    # (the text once, the markup optional after it: the text is the costly part to compile)
    closed = [const(text_end)] if text_end else []
    return seq([text_without(markers), *closed, optional(seq([const(trigger), content, const(end)]))])


def reasoning(open_text: Optional[str], close_text: str) -> Element:
    """Reasoning written as text: ``open_text`` (None: already open), any text, ``close_text``."""
    return {"type": "tag", "begin": open_text or "", "content": {"type": "any_text"}, "end": close_text}


def is_const(element: Element) -> bool:
    return element.get("type") == "const_string"


def structural_tag(element: Element) -> dict[str, Any]:
    """The whole tag, as ``xgrammar.Grammar.from_structural_tag`` and vLLM's ``structural_tag``
    option read it."""
    return {"type": "structural_tag", "format": element}


class Markers:
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


@dataclass
class TagRequest:
    """What a layout's grammar module builds its tag from: the format, the choice and the
    prepared tools it leaves, the markers as elements, the control tokens (None where markers
    are matched as text) and the whitespace bound of JSON."""

    format: ChatFormat
    choice: str  # "none", "auto", "required" or "named"
    tools: list  # ToolSpec: name and prepared schema
    parallel: bool
    marks: Markers
    control_ids: Optional[list[int]]
    max_whitespace: Optional[int]
    # The run-time guard bounds the whitespace runs of JSON (see ``guard``): its JSON elements
    # then let whitespace run free, which xgrammar fills several times faster than a bounded
    # run (a bounded run's tokens are checked one by one at every value's start).
    whitespace_guarded: bool = False
    # A routed grammar's router (see ``routed``) in a call-object style: every tool's call
    # object as one, its name any of the tools' and its arguments this schema (any object); in
    # a parameters style (where it is only set): any tool's header, then any text.
    router_arguments: Any = None

    @property
    def json_whitespace(self) -> Optional[int]:
        """The whitespace bound written into JSON elements (None: none)."""
        return None if self.whitespace_guarded else self.max_whitespace

    def free_text(self) -> Element:
        """Text with no tool markup: by token (control tokens excluded) where every marker is
        a token the tokenizer has, else as text keeping every marker (and every piece of one at
        its end) out but the end."""
        fmt = self.format
        if self.control_ids is not None and not fmt.text_markers:
            return any_tokens(sorted(self.control_ids))
        return text_without(self.text_markers())

    def any_answer(self) -> Element:
        """Any answer (where no marker announces the calls, tool markup is no more than text):
        by token, control tokens excluded, where a tokenizer gives the ids, else any text but
        the markers."""
        if self.control_ids is not None:
            return any_tokens(sorted(self.control_ids))
        return any_text(list(self.format.markers))

    def calls_or_text(self, calls: Element, opening: str) -> Element:
        """Under ``auto``, calls with no marker before them (Llama 3's ``{``, Llama 4's and xLAM's
        ``[``): the answer's first character decides, as the parser reads it, ``opening``
        beginning the calls and anything else making the answer free text; else the calls."""
        at_start = seq([regex(LEADING_WHITESPACE), calls])
        if self.choice != "auto":
            return at_start
        # Free text after its first character: matched as text (xgrammar's any-tokens element
        # only starts at a token boundary, and that character may be the start of a token);
        # control tokens stay out, their poisoned bytes being no text.
        first = "[^" + re.escape(opening[:1]) + r" \t\r\n]"
        text = seq([regex(LEADING_WHITESPACE + first), any_text(list(self.format.markers))])
        return either([at_start, text, regex(LEADING_WHITESPACE)])

    def answer_close(self) -> list[Element]:
        """What closes the answer's text before the tool markup (Kimi-K3's ``response``
        element), as elements: none where the format has no markers around its answer."""
        close = self.format.answer[1]
        return [const(close)] if close else []

    def text_markers(self) -> list[str]:
        """The markers free text must keep out as text: those written as text, and (where no
        tokenizer gives the markers' tokens, so that they are matched as text) all but the end."""
        fmt = self.format
        return [m for m in fmt.markers if m != fmt.eos and (is_text(m) or self.control_ids is None)]
