"""The grammar of calls written as Python calls (the ``PythonicCalls`` layout): a list of
``NAME(KEY=VALUE, …)`` (or one call a line), bare as the whole answer (Llama 4) or between the
section's markers (LFM2, OLMo 3). The arguments are thinkgate's own grammar of the tool's schema
(:mod:`.python_arguments`); no run-time guard follows them (it reads JSON), so the grammar holds
every bound itself."""

from __future__ import annotations

from typing import Any

from ...formats import is_text
from .json_answer import answer_at_start
from .python_arguments import python_arguments_element
from .tag_elements import LEADING_WHITESPACE, Element, TagRequest, const, either, regex, seq, star, text_then_markup, token_dispatch


def layout_tag(req: TagRequest) -> Element:
    t, marks, choice = req.format.tools, req.marks, req.choice
    if choice == "none":
        return req.free_text() if t.section_begin else req.any_answer()
    call = either([_call(req, s) for s in req.tools])
    calls = call if not req.parallel or choice == "named" else seq([call, star(seq([const(t.separator), call]))])
    listed = seq([const(t.array[0]), calls, const(t.array[1])]) if any(t.array) else calls
    if not t.section_begin:
        return _bare(req, listed)
    trigger, end = t.section_begin, t.section_end
    if choice == "auto":
        if req.control_ids is not None and not is_text(trigger):
            begin = marks.ids[trigger]
            return token_dispatch([(begin, seq([listed, marks.element(end)]))], sorted(i for i in req.control_ids if i != begin))
        return text_then_markup(trigger, listed, end, req.text_markers())
    return seq([regex(LEADING_WHITESPACE), marks.element(trigger), listed, marks.element(end)])


def _call(req: TagRequest, spec: Any) -> Element:
    """One call of ``spec``'s tool: its name, then its keyword arguments."""
    fmt = req.format
    return seq([const(spec.name), python_arguments_element(spec.schema.bounded_schema, fmt.tools.python, f"tool {spec.name!r}", fmt.name)])


def _bare(req: TagRequest, listed: Element) -> Element:
    """Bare calls (Llama 4): no marker announces them, so the answer's first character decides."""
    return req.calls_or_text(listed, req.format.tools.array[0])


def routable(t: Any) -> bool:
    """No marker begins a call, so the guard cannot route on one: the grammar is one."""
    return False


# What the run-time guard follows: nothing (the arguments are no JSON).


def call_trigger(t: Any) -> str:
    return ""


def between_calls(t: Any) -> None:
    return None


def header_nodes(fmt: Any, tools: list) -> dict:
    return {}


# Where the answer held to JSON stands (response_format): the text after thinking; the guard
# finds it by its "{" there.


def answer_element(req: TagRequest, json: Element) -> Element:
    return answer_at_start(json)


def answer_header(fmt: Any) -> None:
    return None
