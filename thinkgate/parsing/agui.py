"""Events as AG-UI protocol events (``ag-ui-protocol``)."""

from __future__ import annotations

import uuid
from typing import Optional

from ag_ui.core import (
    BaseEvent,
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)

from .events import (
    ContentDelta,
    Event,
    Finished,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningStart,
    ToolCallArgumentsDelta,
    ToolCallEnd,
    ToolCallInvalid,
    ToolCallStart,
)


class AGUIRenderer:
    """Turns one output's events into AG-UI events: REASONING_START … REASONING_END,
    TEXT_MESSAGE_START/CONTENT/END, TOOL_CALL_START/ARGS/END.

    A call that turns out invalid after its start was sent is closed with TOOL_CALL_END whose
    ``metadata`` says ``{"invalid": true, "error": ...}``, so every started call is closed.
    """

    def __init__(self, message_id: Optional[str] = None) -> None:
        self.message_id = message_id or f"msg_{uuid.uuid4().hex[:24]}"
        self._reasoning_n = 0
        self._reasoning_id = ""
        self._text_open = False
        self._ids: dict[int, str] = {}

    def render(self, events: list[Event]) -> list[BaseEvent]:
        out: list[BaseEvent] = []
        for ev in events:
            kind = type(ev)
            if kind is ReasoningStart:
                self._reasoning_n += 1
                self._reasoning_id = f"{self.message_id}-reasoning-{self._reasoning_n}"
                out.append(ReasoningStartEvent(message_id=self._reasoning_id))
                out.append(ReasoningMessageStartEvent(message_id=self._reasoning_id, role="reasoning"))
            elif kind is ReasoningDelta:
                out.append(ReasoningMessageContentEvent(message_id=self._reasoning_id, delta=ev.text))
            elif kind is ReasoningEnd:
                out.append(ReasoningMessageEndEvent(message_id=self._reasoning_id))
                out.append(ReasoningEndEvent(message_id=self._reasoning_id))
            elif kind is ContentDelta:
                if not self._text_open:
                    self._text_open = True
                    out.append(TextMessageStartEvent(message_id=self.message_id, role="assistant"))
                out.append(TextMessageContentEvent(message_id=self.message_id, delta=ev.text))
            elif kind is ToolCallStart:
                self._ids[ev.index] = ev.id
                out.append(
                    ToolCallStartEvent(
                        tool_call_id=ev.id, tool_call_name=ev.name, parent_message_id=self.message_id
                    )
                )
            elif kind is ToolCallArgumentsDelta:
                out.append(ToolCallArgsEvent(tool_call_id=self._ids[ev.index], delta=ev.text))
            elif kind is ToolCallEnd:
                out.append(ToolCallEndEvent(tool_call_id=self._ids.pop(ev.index)))
            elif kind is ToolCallInvalid:
                if ev.index is not None and ev.index in self._ids:
                    out.append(
                        ToolCallEndEvent(
                            tool_call_id=self._ids.pop(ev.index),
                            metadata={"invalid": True, "error": ev.error},
                        )
                    )
            elif kind is Finished:
                if self._text_open:
                    self._text_open = False
                    out.append(TextMessageEndEvent(message_id=self.message_id))
        return out
