"""The typed events a stream parser emits; every renderer (OpenAI, AG-UI, the message) reads these.

For one output, the events are the same whatever the chunking, except that a text delta may be
cut into several: joined, the deltas of each kind are identical.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union


@dataclass(frozen=True, slots=True)
class ReasoningStart:
    """The model started thinking."""


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    text: str


@dataclass(frozen=True, slots=True)
class ReasoningEnd:
    """Thinking ended (the closing marker, a tool block recovered from it, or the output's end)."""


@dataclass(frozen=True, slots=True)
class ContentDelta:
    text: str


@dataclass(frozen=True, slots=True)
class ToolCallStart:
    """A call's header was read: its tool is known (and, when tools were given, one of them)."""

    index: int
    id: str
    name: str


@dataclass(frozen=True, slots=True)
class ToolCallArgumentsDelta:
    """Raw argument text as the model wrote it; the deltas of a call join to its final arguments."""

    index: int
    text: str


@dataclass(frozen=True, slots=True)
class ToolCallEnd:
    """The call is complete; ``arguments`` is valid JSON (an object)."""

    index: int
    id: str
    name: str
    arguments: str


@dataclass(frozen=True, slots=True)
class ToolCallInvalid:
    """A call that could not be read. ``index`` is set if its start was already emitted.

    ``text`` is the call's raw text, markers included; ``cut_off`` says the output ended inside
    it (the ``length`` case) rather than the call being malformed. ``reported``: the message
    lists it in ``invalid_tool_calls`` (policy ``"report"``, the default, and ``"error"``);
    otherwise its text went back to the content (``"content"``) or was dropped (``"drop"``).
    """

    index: Optional[int]
    name: Optional[str]
    text: str
    error: str
    cut_off: bool = False
    reported: bool = True


@dataclass(frozen=True, slots=True)
class BuiltinToolCall:
    """A message to one of the model's own built-in tools (gpt-oss: ``browser.search``,
    ``python``, ``container.exec``): no function call of the request's, reported beside them,
    its body as written. ``cut_off``: the output ended inside it."""

    recipient: str
    arguments: str
    cut_off: bool = False


@dataclass(frozen=True, slots=True)
class Finished:
    """The output ended. ``error`` is set in strict mode when a call could not be parsed."""

    finish_reason: str
    error: Optional[dict] = None


Event = Union[
    ReasoningStart,
    ReasoningDelta,
    ReasoningEnd,
    ContentDelta,
    ToolCallStart,
    ToolCallArgumentsDelta,
    ToolCallEnd,
    ToolCallInvalid,
    Finished,
]
