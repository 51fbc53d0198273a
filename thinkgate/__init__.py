"""thinkgate: tool calls from reasoning LLMs, correct by construction and fast to parse."""

from .formats import ChatFormat, get_format
from .parsing import (
    Message,
    StreamParser,
    ToolCall,
    parse,
    thinking_from_prompt,
)

__version__ = "0.1.0"


def __getattr__(name: str):
    # Imported on first use: AG-UI's event models and template detection are not needed to parse.
    if name == "AGUIRenderer":
        from .parsing.agui import AGUIRenderer

        return AGUIRenderer
    if name == "detect":
        from .detection import detect

        return detect
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "AGUIRenderer",
    "ChatFormat",
    "Message",
    "StreamParser",
    "ToolCall",
    "detect",
    "get_format",
    "parse",
    "thinking_from_prompt",
]
