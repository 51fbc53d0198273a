"""The grammar of calls as JSON call objects with no markers of their own (the ``JsonCalls``
layout): bare, the whole answer (Llama 3.x), or one JSON array after the section marker
(Mistral before tokenizer v11)."""

from __future__ import annotations

from typing import Any

from ...formats import is_text
from .arguments import call_object_headers, call_object_schema, router_call_object_schema
from .json_answer import answer_at_start
from .tag_elements import (
    LEADING_WHITESPACE,
    Element,
    TagRequest,
    any_text,
    const,
    either,
    json_schema,
    regex,
    seq,
    star,
    text_then_markup,
    token_dispatch,
)


def layout_tag(req: TagRequest) -> Element:
    if req.format.tools.bare:
        return _bare(req)
    return _array(req)


def _array(req: TagRequest) -> Element:
    """The section marker, then one JSON array of call objects joined by the separator (after a
    space where the tokenizer puts one), then the section's end marker where it has one; under
    ``auto`` the marker is the trigger and the array's closing bracket (or the end marker) ends
    the calls."""
    t, marks = req.format.tools, req.marks
    call = _call(req)
    items = call if not req.parallel or req.choice == "named" else seq([call, star(seq([const(t.separator), call]))])
    calls = items
    # (the bracket as a constant: an array opened with its items' indent, Jamba's "[\n    ", is
    # no regular expression xgrammar reads without warnings)
    opened = seq([regex(" ?"), const(t.array[0]), calls])
    # the array closes the calls, or the section's end marker after it (Nemotron's </TOOLCALL>)
    close = seq([const(t.array[1]), marks.element(t.section_end)]) if t.section_end else const(t.array[1])
    calls = seq([opened, close])
    trigger = t.section_begin
    if not trigger:
        return _bare_array(req, seq([const(t.array[0]), items, close]))
    if req.format.response[0]:
        return _response_or_calls(req, calls)
    if req.choice == "none":
        return req.free_text()
    if req.choice == "auto":
        if req.control_ids is not None and not is_text(trigger):
            begin = marks.ids[trigger]
            return token_dispatch([(begin, calls)], sorted(i for i in req.control_ids if i != begin))
        return text_then_markup(trigger, opened, t.array[1] + t.section_end, req.text_markers())
    return seq([regex(LEADING_WHITESPACE), marks.element(trigger), calls])


def _bare_array(req: TagRequest, calls: Element) -> Element:
    """A JSON array of calls with no marker before it (xLAM): the answer's start decides
    (``none``: any answer, as bare calls' grammar has it)."""
    return req.any_answer() if req.choice == "none" else req.calls_or_text(calls, req.format.tools.array[0])


def _response_or_calls(req: TagRequest, calls: Element) -> Element:
    """A text answer between the format's response markers, or the calls after the section's
    marker (Cohere: ``<|START_RESPONSE|>…<|END_RESPONSE|>`` or ``<|START_ACTION|>[…]<|END_ACTION|>``):
    under ``none`` the text, under ``auto`` either, else the calls."""
    fmt, marks = req.format, req.marks
    text = seq([marks.element(fmt.response[0]), req.any_answer(), marks.element(fmt.response[1])])
    markup = seq([marks.element(fmt.tools.section_begin), calls])
    choices = {"none": [text], "auto": [text, markup]}.get(req.choice, [markup])
    return seq([regex(LEADING_WHITESPACE), either(choices)])


def _call(req: TagRequest) -> Element:
    """One call object of any of the tools (a router's: one object, its name any tool's)."""
    t = req.format.tools
    if req.router_arguments is not None:
        return json_schema(router_call_object_schema(t, [s.name for s in req.tools], req.router_arguments), req.json_whitespace)
    return either([json_schema(call_object_schema(t, s), req.json_whitespace) for s in req.tools])


def _bare(req: TagRequest) -> Element:
    """Bare calls (Llama 3.x): no marker announces a call, so the answer's first character
    decides, as the parser reads it: ``{`` begins the calls (call objects joined by the
    separator), anything else makes the answer free text."""
    t = req.format.tools
    if req.choice == "none":
        return req.any_answer()
    call = _call(req)
    if req.parallel and req.choice != "named":
        call = seq([call, star(seq([const(t.separator), call]))])
    return req.calls_or_text(call, "{")


# A routed grammar (many tools; see ``routed``): the router's call object names any tool and
# holds any object; each tool's grammar is its call object, then any text (the router's AND the
# tool's row: the router judges what follows the object).


def routable(t: Any) -> bool:
    # (the router reads the name as a call object's value: not as its key, nor after a key
    # that numbers the call)
    return not (t.name_as_key or t.index_key)


def routed_call(req: TagRequest, spec: Any) -> Element:
    return seq([json_schema(call_object_schema(req.format.tools, spec), req.json_whitespace), any_text([])])


# What the run-time guard follows: call objects found by their "{" (the first at the answer's
# start, or after the section marker), the separator, whitespace and the bracket between them.


def call_trigger(t: Any) -> str:
    return t.section_begin if any(t.array) else ""


def between_calls(t: Any) -> bytes:
    return (" \t\r\n" + t.separator + t.array[0]).encode()


def header_nodes(fmt: Any, tools: list) -> dict:
    t = fmt.tools
    return call_object_headers(t, tools)


# Where the answer held to JSON stands (response_format): the text after thinking; the guard
# finds it by its "{" there.


def answer_element(req: TagRequest, json: Element) -> Element:
    return answer_at_start(json)


def answer_header(fmt: Any) -> None:
    return None
