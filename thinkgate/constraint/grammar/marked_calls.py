"""The grammar of calls delimited by markers (the ``MarkedCalls`` layout): the section, each
call's begin marker, its header naming the tool, the arguments in the format's style (a JSON
object, a call object, parameters), its footer and end marker; calls joined by the separator."""

from __future__ import annotations

from typing import Any

from ...formats import is_text
from ...formats.base import template_parts
from .arguments import call_object_headers, call_object_schema, parameters_grammar, parameters_schema, router_call_object_schema
from .json_answer import answer_at_start
from .literal_arguments import literal_arguments_element
from .tag_elements import (
    LEADING_WHITESPACE,
    Element,
    TagRequest,
    const,
    either,
    NAME_FORBIDDEN,
    json_schema,
    regex,
    seq,
    star,
    optional,
    text_then_markup,
    text_without,
    token,
    token_dispatch,
)


def layout_tag(req: TagRequest) -> Element:
    fmt, t, marks, choice, chosen = req.format, req.format.tools, req.marks, req.choice, req.tools
    json_object = t.call_object_layout  # the name inside the call object
    header, footer = template_parts(t.header), template_parts(t.footer)
    # The part of the header before the tool's name is written once for all tools.
    at_name = next((i for i, (kind, _) in enumerate(header) if kind == "name"), 0)
    prefix = [] if json_object else marks.text(header[:at_name], None, t.sep)

    def body(spec: Any) -> Element:
        if json_object:  # the name is a constant inside the call object
            return seq(marks.text(header, None, t.sep) + [_arguments(req, spec)] + marks.text(footer, None, t.sep))
        return seq(
            marks.text(header[at_name:], spec.name, t.sep)
            + [_arguments(req, spec)]
            + marks.text(footer, None, t.sep)
        )

    def call_rest() -> list[Element]:
        """A call after its begin marker."""
        if json_object and req.router_arguments is not None:  # a router: one object, any tool's name
            router = router_call_object_schema(t, [s.name for s in chosen], req.router_arguments)
            bodies = [seq(marks.text(header, None, t.sep) + [json_schema(router, req.json_whitespace)] + marks.text(footer, None, t.sep))]
        elif t.xml is not None and req.router_arguments is not None:
            # a router of parameters: any tool's header, then any text up to the footer (the
            # tool's own grammar holds the parameters)
            names = either([seq(marks.text(header[at_name:], s.name, t.sep)) for s in chosen])
            bodies = [seq([names, regex(ANY_PARAMETERS), *marks.text(footer, None, t.sep)])]
        else:
            bodies = [body(s) for s in chosen]
        end = [marks.element(t.call_end)] if t.call_end else []  # Mistral: a call ends with its JSON
        return [*prefix, either(bodies), *end]

    def call() -> Element:
        """A call, from its begin marker (a call in an array has none) on."""
        return seq([*([marks.element(t.call_begin)] if t.call_begin else []), *call_rest()])

    def more(first: Element) -> Element:
        """``first``, then (if parallel calls are allowed) further calls after the separator."""
        if not req.parallel or choice == "named":
            return first
        again = seq([const(t.separator), call()]) if t.separator else call()
        return seq([first, star(again)])

    def around(calls: Element) -> list[Element]:
        """The calls inside the section markers (a layout without them has none)."""
        return [x for x in (t.section_begin and marks.element(t.section_begin), calls, t.section_end and marks.element(t.section_end)) if x]

    calls = more(call())
    trigger = t.trigger
    if choice == "none":
        return seq([req.free_text(), *req.answer_close()])
    if choice == "auto":
        # After the trigger (the section marker, or a call's own begin where there is no
        # section) the rest of the tool calls, then nothing but the end.
        rest = seq([calls, *([marks.element(t.section_end)] if t.section_end else [])]) if t.section_begin else more(seq(call_rest()))
        if req.control_ids is not None and not is_text(trigger):
            begin = marks.ids[trigger]
            if t.headless_begin:
                # A call written without its begin marker is read by its header's opening text
                # (Qwen3-Coder's "<function="): the answer's text keeps that out, and every piece
                # of it at its end, or the parser would read a call the grammar never held.
                # (Text matches no control token: their bytes are no text.)
                return seq([text_without([t.headless_begin]), optional(seq([token(begin), rest]))])
            return token_dispatch([(begin, rest)], sorted(i for i in req.control_ids if i != begin))
        content = calls if t.section_begin else seq(call_rest()[:-1] if t.call_end else call_rest())
        return text_then_markup(trigger, content, t.markup_end, req.text_markers(), fmt.answer[1])
    return seq([regex(LEADING_WHITESPACE), *req.answer_close(), *around(calls)])


def _arguments(req: TagRequest, spec: Any) -> Element:
    """A tool's arguments in the format's style (a call object: the whole object)."""
    fmt, t = req.format, req.format.tools
    if t.call_object_layout:
        return json_schema(call_object_schema(t, spec), req.json_whitespace)
    if t.xml is not None:
        if spec.schema.unbounded_in_parameters:
            raise ValueError(spec.schema.unbounded_in_parameters)
        return parameters_grammar(parameters_schema(spec, t.xml, fmt.name), t.xml, req.max_whitespace)
    if t.literal is not None:
        quote = req.marks.element(t.literal.quote)
        return literal_arguments_element(spec.schema.bounded_schema, t.literal, quote, f"tool {spec.name!r}", fmt.name)
    return json_schema(spec.schema.xgrammar_schema, req.json_whitespace)


# A routed grammar (many tools; see ``routed``): the calls with each tool's arguments any JSON
# object (parameters: any text up to the footer), and each tool's own grammar from its call's
# begin marker on.

# Any text (no control token: their bytes are no text); the footer after it ends the call.
ANY_PARAMETERS = r"[\s\S]*"


def routable(t: Any) -> bool:
    """Whether a call names its tool before its arguments, after a begin marker (what the guard
    follows to tell which tool's grammar applies from there): in a header, or as the call
    object's first key. A header before parameters must end its name with a character no name
    has (Qwen3-Coder's ``>\n``), or the guard could not tell ``get`` from ``get_weather``."""
    if not t.call_begin or t.literal is not None or t.name_as_key or t.index_key:
        return False
    if t.xml is None:
        return True
    after = t.header_text("\0").split("\0", 1)[1]
    return bool(NAME_FORBIDDEN.search(after)) and t.header.count("{name}") == 1


def routed_call(req: TagRequest, spec: Any) -> Element:
    """One call to ``spec``'s tool after its begin marker, as the full grammar holds it: its
    header, its arguments (or its call object), its footer and end marker."""
    t = req.format.tools
    header = req.marks.text(template_parts(t.header), None if t.call_object_layout else spec.name, t.sep)
    footer = req.marks.text(template_parts(t.footer), None, t.sep)
    end = [req.marks.element(t.call_end)] if t.call_end else []
    return seq([*header, _arguments(req, spec), *footer, *end])


def routed_headers(t: Any, tools: list) -> list[str]:
    """Parameters: each tool's header, as a pattern the guard matches (it follows no JSON there,
    so no :func:`header_nodes`); empty for other styles."""
    return [t.header_pattern(s.name) for s in tools] if t.xml is not None else []


# What the run-time guard follows: a call's header after its begin marker, then its JSON.


def call_trigger(t: Any) -> str:
    return t.call_begin


def between_calls(t: Any) -> None:
    return None


def header_nodes(fmt: Any, tools: list) -> dict:
    t = fmt.tools
    if t.xml is not None or t.literal is not None:
        return {}  # parameters, a literal: no JSON the guard could follow; the grammar has the bounds
    if t.call_object_layout:
        return call_object_headers(t, tools)
    return {t.header_pattern(s.name): s.schema.nodes for s in tools}


# Where the answer held to JSON stands (response_format): the text after thinking; the guard
# finds it by its "{" there.


def answer_element(req: TagRequest, json: Element) -> Element:
    return seq([answer_at_start(json), *req.answer_close()])


def answer_header(fmt: Any) -> None:
    return None
