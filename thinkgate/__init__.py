"""thinkgate: tool calls from reasoning LLMs, correct by construction and fast to parse."""

from .formats import ChatFormat, get_format
from .parsing import (
    AGUIRenderer,
    Message,
    StreamParser,
    ToolCall,
    parse,
    thinking_from_prompt,
)

__version__ = "0.1.0"

__all__ = [
    "AGUIRenderer",
    "ChatFormat",
    "Message",
    "StreamParser",
    "ToolCall",
    "get_format",
    "parse",
    "thinking_from_prompt",
]
