"""Events as OpenAI ``chat.completion.chunk`` deltas."""

from __future__ import annotations

import time
import uuid
from typing import Any, Optional

from .events import BuiltinToolCall, ContentDelta, Event, ReasoningDelta, ToolCallArgumentsDelta, ToolCallInvalid, ToolCallStart
from .message import REASONING_FIELDS, InvalidToolCall, builtin_to_openai


def render_deltas(events: list[Event], reasoning_field: str = "reasoning_content") -> list[dict]:
    """One delta dict per run of events of one kind: reasoning text, answer text, or one call's
    start and argument text (a call's first delta carries its ``id``, ``type`` and ``name``).
    A call that could not be read comes as an ``invalid_tool_calls`` entry (an extension, as in
    the message), naming the ``index`` its start was streamed under, if it was.

    >>> render_deltas([ReasoningDelta("a"), ReasoningDelta("b"), ContentDelta("c")])
    [{'reasoning_content': 'ab'}, {'content': 'c'}]
    """
    if reasoning_field not in REASONING_FIELDS:
        raise ValueError(f"reasoning_field must be one of {REASONING_FIELDS}")
    out: list[dict] = []
    last_kind: Any = None
    last_index = -1
    for ev in events:
        kind = type(ev)
        if kind is ReasoningDelta or kind is ContentDelta:
            if kind is last_kind:
                for key in out[-1]:
                    out[-1][key] += ev.text
            elif kind is ReasoningDelta:
                delta = {}
                for name in ("reasoning_content", "reasoning"):
                    if reasoning_field in (name, "both"):
                        delta[name] = ev.text
                out.append(delta)
            else:
                out.append({"content": ev.text})
        elif kind is ToolCallStart:
            out.append(
                {
                    "tool_calls": [
                        {
                            "index": ev.index,
                            "id": ev.id,
                            "type": "function",
                            "function": {"name": ev.name, "arguments": ""},
                        }
                    ]
                }
            )
            last_index = ev.index
        elif kind is BuiltinToolCall:
            out.append({"builtin_tool_calls": [builtin_to_openai(ev)]})
        elif kind is ToolCallInvalid:
            if not ev.reported:
                continue
            out.append({"invalid_tool_calls": [InvalidToolCall(ev.text, ev.error, ev.name, ev.cut_off, ev.index).to_openai()]})
        elif kind is ToolCallArgumentsDelta:
            if last_kind in (ToolCallStart, ToolCallArgumentsDelta) and last_index == ev.index:
                out[-1]["tool_calls"][0]["function"]["arguments"] += ev.text
            else:
                out.append({"tool_calls": [{"index": ev.index, "function": {"arguments": ev.text}}]})
            last_index = ev.index
        else:
            continue
        last_kind = kind
    return out


def chunk(
    delta: dict,
    *,
    finish_reason: Optional[str] = None,
    model: str = "thinkgate",
    id: Optional[str] = None,
    created: Optional[int] = None,
    error: Optional[dict] = None,
) -> dict:
    """A whole ``chat.completion.chunk`` around one delta (for servers and tests)."""
    choice: dict[str, Any] = {"index": 0, "delta": delta, "finish_reason": finish_reason}
    if error is not None:
        choice["error"] = error
    return {
        "id": id or f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion.chunk",
        "created": created if created is not None else int(time.time()),
        "model": model,
        "choices": [choice],
    }


def accumulate(deltas: list[dict]) -> dict:
    """Fold streamed deltas into a message dict the way an OpenAI client does; a client that
    reads the ``invalid_tool_calls`` extension drops the calls it names, as this one does."""
    msg: dict[str, Any] = {"role": "assistant", "content": None}
    calls: dict[int, dict] = {}
    for d in deltas:
        for key in ("content", "reasoning_content", "reasoning"):
            if d.get(key):
                msg[key] = (msg.get(key) or "") + d[key]
        for key in ("builtin_tool_calls", "invalid_tool_calls"):
            if d.get(key):
                msg[key] = msg.get(key, []) + d[key]
        for tc in d.get("tool_calls", ()):
            slot = calls.setdefault(
                tc["index"], {"id": None, "type": "function", "function": {"name": "", "arguments": ""}}
            )
            if tc.get("id"):
                slot["id"] = tc["id"]
            fn = tc.get("function", {})
            slot["function"]["name"] += fn.get("name") or ""
            slot["function"]["arguments"] += fn.get("arguments") or ""
    void = {c["index"] for c in msg.get("invalid_tool_calls", ())}
    if set(calls) - void:
        msg["tool_calls"] = [calls[i] for i in sorted(calls) if i not in void]
    return msg
