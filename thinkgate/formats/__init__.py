"""Declarative descriptions of model output formats: the single source of truth for markers."""

from . import deepseek, glm, harmony, kimi, llama, minimax, mistral, qwen
from .base import (
    LAYOUTS,
    NO_REASONING,
    CallObject,
    ChannelMessages,
    ChatFormat,
    HeaderPiece,
    JsonArguments,
    JsonCalls,
    MarkedCalls,
    ReasoningFormat,
    Text,
    Thinking,
    ToolCallFormat,
    XmlArguments,
    is_text,
)
from .deepseek import DEEPSEEK_R1, DEEPSEEK_V3, DEEPSEEK_V3_1
from .glm import GLM45
from .harmony import GPT_OSS
from .kimi import KIMI_K2, KIMI_K3
from .llama import LLAMA3_JSON
from .minimax import MINIMAX_M2
from .mistral import MISTRAL, MISTRAL_JSON
from .qwen import QWEN3, QWEN3_CODER
from .registry import aliases, get_format, names, register

for _fmt in (*deepseek.FORMATS, *qwen.FORMATS, *glm.FORMATS, *kimi.FORMATS, *mistral.FORMATS, *harmony.FORMATS, *llama.FORMATS, *minimax.FORMATS):
    register(_fmt)

__all__ = [
    "CallObject",
    "JsonArguments",
    "JsonCalls",
    "LAYOUTS",
    "MarkedCalls",
    "ChannelMessages",
    "ChatFormat",
    "DEEPSEEK_R1",
    "DEEPSEEK_V3",
    "DEEPSEEK_V3_1",
    "GLM45",
    "GPT_OSS",
    "KIMI_K2",
    "KIMI_K3",
    "LLAMA3_JSON",
    "MINIMAX_M2",
    "MISTRAL",
    "MISTRAL_JSON",
    "NO_REASONING",
    "QWEN3",
    "QWEN3_CODER",
    "HeaderPiece",
    "ReasoningFormat",
    "Text",
    "Thinking",
    "ToolCallFormat",
    "XmlArguments",
    "aliases",
    "get_format",
    "is_text",
    "names",
    "register",
]
