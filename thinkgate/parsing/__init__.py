"""Streaming reasoning and tool-call parsing: one incremental state machine per layout family."""

from .events import (
    BuiltinToolCall,
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
from .json_scanner import JsonScanner
from .message import InvalidToolCall, Message, ToolCall
from .openai import accumulate, chunk, render_deltas
from .stream import StreamParser, parse, tool_names
from .stages import Stage
from ..formats.tokens import marker_token_ids, single_token_id, thinking_from_prompt


def __getattr__(name: str):
    # AG-UI's event models take a tenth of a second to import: only what renders them pays.
    if name == "AGUIRenderer":
        from .agui import AGUIRenderer

        return AGUIRenderer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "AGUIRenderer",
    "BuiltinToolCall",
    "ContentDelta",
    "Event",
    "Finished",
    "InvalidToolCall",
    "JsonScanner",
    "Message",
    "ReasoningDelta",
    "ReasoningEnd",
    "ReasoningStart",
    "Stage",
    "StreamParser",
    "ToolCall",
    "ToolCallArgumentsDelta",
    "ToolCallEnd",
    "ToolCallInvalid",
    "ToolCallStart",
    "accumulate",
    "chunk",
    "marker_token_ids",
    "parse",
    "render_deltas",
    "single_token_id",
    "thinking_from_prompt",
    "tool_names",
]
