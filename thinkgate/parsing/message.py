"""The parsed assistant message, built from events; the non-streaming result."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Optional

from .events import (
    BuiltinToolCall,
    ContentDelta,
    Event,
    Finished,
    ReasoningDelta,
    ToolCallArgumentsDelta,
    ToolCallEnd,
    ToolCallInvalid,
    ToolCallStart,
)

REASONING_FIELDS = ("reasoning_content", "reasoning", "both")


@dataclass
class ToolCall:
    """One complete call. ``arguments`` is the JSON text exactly as the model wrote it."""

    id: str
    name: str
    arguments: str
    type: str = "function"

    def parsed_arguments(self) -> Any:
        """The arguments as Python values (a number past a double's range exactly, not as
        infinity: see ``loads_json``)."""
        from ..formats.base import loads_json

        return loads_json(self.arguments)

    def to_openai(self) -> dict:
        return {
            "id": self.id,
            "type": self.type,
            "function": {"name": self.name, "arguments": self.arguments},
        }


@dataclass
class InvalidToolCall:
    """A call that could not be read: its raw text (markers included) and why. ``index`` is the
    index its start was streamed under (None: it never was: an unknown tool, a broken header)."""

    text: str
    error: str
    name: Optional[str] = None
    cut_off: bool = False
    index: Optional[int] = None

    def to_openai(self) -> dict:
        out: dict[str, Any] = {"index": self.index, "name": self.name, "text": self.text, "error": self.error}
        if self.cut_off:
            out["cut_off"] = True
        return out


@dataclass
class Message:
    """An assistant message: reasoning, answer text and complete tool calls.

    ``tool_calls`` holds only complete calls whose arguments are a valid JSON object; a call that
    could not be read is in ``invalid_tool_calls`` (by the default policy; ``"content"`` puts its
    text in ``content`` instead).
    """

    reasoning_content: Optional[str] = None
    content: Optional[str] = None
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: Optional[str] = None
    invalid_tool_calls: list[InvalidToolCall] = field(default_factory=list)
    error: Optional[dict] = None
    events: list[Event] = field(default_factory=list, repr=False, compare=False)
    # messages to the model's built-in tools (gpt-oss's browser, python): not function calls
    builtin_tool_calls: list[BuiltinToolCall] = field(default_factory=list)

    def to_openai(
        self, reasoning_field: str = "reasoning_content", extensions: bool = False
    ) -> dict:
        """The OpenAI ``chat.completion`` message. ``reasoning_field`` is ``"reasoning_content"``,
        ``"reasoning"`` (the field some clients read) or ``"both"``. With ``extensions``, an
        ``extensions`` object carries the reasoning and tool-call chunks as they were streamed."""
        if reasoning_field not in REASONING_FIELDS:
            raise ValueError(f"reasoning_field must be one of {REASONING_FIELDS}")
        out: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.reasoning_content is not None:
            for name in ("reasoning_content", "reasoning"):
                if reasoning_field in (name, "both"):
                    out[name] = self.reasoning_content
        if self.tool_calls:
            out["tool_calls"] = [c.to_openai() for c in self.tool_calls]
        if self.builtin_tool_calls:  # an extension field: OpenAI's message has none for them
            out["builtin_tool_calls"] = [builtin_to_openai(c) for c in self.builtin_tool_calls]
        if self.invalid_tool_calls:  # likewise: the text of calls that could not be read
            out["invalid_tool_calls"] = [c.to_openai() for c in self.invalid_tool_calls]
        if extensions:
            out["extensions"] = _extensions(self.events)
        return out

    def to_openai_choice(self, index: int = 0, **kwargs: Any) -> dict:
        """The ``choices[i]`` entry: the message, ``finish_reason`` and, in strict mode, ``error``."""
        choice = {"index": index, "message": self.to_openai(**kwargs), "finish_reason": self.finish_reason}
        if self.error is not None:
            choice["error"] = self.error
        return choice


class MessageBuilder:
    """Folds events into a :class:`Message`; streaming and non-streaming both end here."""

    def __init__(self) -> None:
        self.message = Message()
        self._reasoning: list[str] = []
        self._content: list[str] = []
        self._open: dict[int, ToolCall] = {}

    def add(self, events: list[Event]) -> None:
        msg = self.message
        msg.events.extend(events)
        for ev in events:
            kind = type(ev)
            if kind is ReasoningDelta:
                self._reasoning.append(ev.text)
            elif kind is ContentDelta:
                self._content.append(ev.text)
            elif kind is ToolCallArgumentsDelta:
                pass  # the final arguments arrive whole with ToolCallEnd
            elif kind is ToolCallStart:
                self._open[ev.index] = ToolCall(ev.id, ev.name, "")
            elif kind is ToolCallEnd:
                call = self._open.pop(ev.index)
                call.arguments = ev.arguments
                msg.tool_calls.append(call)
            elif kind is ToolCallInvalid:
                if ev.index is not None:
                    self._open.pop(ev.index, None)
                if ev.reported:
                    msg.invalid_tool_calls.append(InvalidToolCall(ev.text, ev.error, ev.name, ev.cut_off, ev.index))
            elif kind is BuiltinToolCall:
                msg.builtin_tool_calls.append(ev)
            elif kind is Finished:
                msg.finish_reason = ev.finish_reason
                msg.error = ev.error

    def build(self) -> Message:
        """The message so far (joins the text once per call, not once per event)."""
        msg = self.message
        msg.reasoning_content = "".join(self._reasoning) or None
        msg.content = "".join(self._content) or None
        return msg


def builtin_to_openai(call: BuiltinToolCall) -> dict:
    out = {"recipient": call.recipient, "arguments": call.arguments}
    if call.cut_off:
        out["cut_off"] = True
    return out


def _extensions(events: list[Event]) -> dict:
    reasoning: list[str] = []
    calls: list[dict] = []
    for ev in events:
        kind = type(ev)
        if kind is ReasoningDelta:
            reasoning.append(ev.text)
        elif kind is ToolCallStart:
            calls.append({"type": "start", "index": ev.index, "id": ev.id, "name": ev.name})
        elif kind is ToolCallArgumentsDelta:
            calls.append({"type": "arguments", "index": ev.index, "delta": ev.text})
        elif kind is ToolCallEnd:
            calls.append({"type": "end", "index": ev.index, "id": ev.id})
        elif kind is ToolCallInvalid:
            calls.append({"type": "invalid", "index": ev.index, "error": ev.error})
    return {"reasoning_chunks": reasoning, "tool_call_chunks": calls}
