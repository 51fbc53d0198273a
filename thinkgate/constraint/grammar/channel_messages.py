"""The grammar of messages on channels (gpt-oss harmony: the ``ChannelMessages`` layout), from
the point where a message header begins.

The grammar starts right after ``<|start|>assistant`` (the prompt's, or the one
:class:`~thinkgate.constraint.ReasonerGrammar` forces after an analysis message ends), and admits
one message that ends the generation: the final answer (free text, then ``<|return|>``) or one
call (``<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>`` and arguments
valid against the tool's schema, then ``<|call|>``; both are stop tokens, so the grammar ends
where they may come). A call ends gpt-oss's generation, so one generation holds at most one call
whatever ``parallel_tool_calls`` says. The analysis channel is not in the grammar: the
ReasonerGrammar leaves it free.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Optional

from ...formats import ChatFormat
from .tag_elements import Element, TagRequest, any_text, any_tokens, const, either, json_schema, seq


def header_after_role(fmt: ChatFormat, name: str) -> str:
    """A call's header as the grammar writes it: after ``<|start|>assistant``."""
    msgs = fmt.tools.messages
    return fmt.tools.header_text(name)[len(msgs.role) :]


def pieces(text: str, markers: tuple[str, ...], element: Callable[[str], Element]) -> list[Element]:
    """``text`` as grammar elements: each marker by ``element`` (a token where it is one), the
    text between as constant strings."""
    pattern = "(" + "|".join(re.escape(m) for m in sorted(markers, key=len, reverse=True)) + ")"
    return [element(p) if p in markers else const(p) for p in re.split(pattern, text) if p]


def harmony_tag(
    fmt: ChatFormat,
    choice: str,
    tools: list,
    element: Callable[[str], Element],
    control_ids: Optional[list[int]],
    max_whitespace: Optional[int],
) -> Element:
    msgs = fmt.tools.messages
    markers = tuple(m for m in fmt.markers if m != fmt.reasoning.open)

    free = any_tokens(sorted(control_ids)) if control_ids is not None else any_text(list(markers))
    final = seq(pieces(msgs.header(msgs.answer_channel), markers, element) + [free])
    calls = [
        seq(
            pieces(header_after_role(fmt, spec.name), markers, element)
            + [json_schema(spec.schema.xgrammar_schema, max_whitespace)]
        )
        for spec in tools
    ]
    if choice == "none":
        options = [final]
    elif choice == "auto":
        options = [final, *calls]
    else:
        options = calls
    return either(options)


def layout_tag(req: TagRequest) -> Element:
    return harmony_tag(req.format, req.choice, req.tools, req.marks.element, req.control_ids, req.json_whitespace)


# What the run-time guard follows: a call's header after the channel marker (the grammar starts
# after <|start|>assistant), then its JSON.


def call_trigger(t: Any) -> str:
    return t.messages.channel


def between_calls(t: Any) -> None:
    return None


def header_nodes(fmt: ChatFormat, tools: list) -> dict:
    skip = len(fmt.tools.messages.channel)
    return {re.escape(header_after_role(fmt, s.name)[skip:]): s.schema.nodes for s in tools}


# Where the answer held to JSON stands (response_format): the final channel's message, found by
# the guard by its header after the channel marker.


def answer_element(req: TagRequest, json: Element) -> Element:
    fmt = req.format
    msgs = fmt.tools.messages
    markers = tuple(m for m in fmt.markers if m != fmt.reasoning.open)
    return seq(pieces(msgs.header(msgs.answer_channel), markers, req.marks.element) + [json])


def answer_header(fmt: ChatFormat) -> str:
    msgs = fmt.tools.messages
    return re.escape(msgs.header(msgs.answer_channel)[len(msgs.channel) :])
