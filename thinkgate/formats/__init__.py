"""Declarative descriptions of model output formats: the single source of truth for markers.

Each family's formats are one module here (``FORMATS``, its values); :data:`FAMILIES` names the
modules whose formats thinkgate ships."""

from importlib import import_module

from . import deepseek, gemma, glm, harmony, kimi, lfm, llama, minimax, mistral, nemotron, olmo, qwen, seed
from .base import (
    LAYOUTS,
    NO_REASONING,
    CallObject,
    ChannelMessages,
    ChatFormat,
    HeaderPiece,
    JsonArguments,
    JsonCalls,
    LiteralArguments,
    MarkedCalls,
    PythonArguments,
    PythonicCalls,
    ReasoningFormat,
    Text,
    Thinking,
    ToolCallFormat,
    XmlArguments,
    is_text,
    spellings,
)
from .deepseek import DEEPSEEK_R1, DEEPSEEK_V3, DEEPSEEK_V3_1, DEEPSEEK_V3_2, DEEPSEEK_V4
from .gemma import GEMMA4
from .glm import GLM45, GLM47
from .harmony import GPT_OSS
from .kimi import KIMI_K2, KIMI_K3
from .lfm import LFM2
from .llama import LLAMA3_JSON, LLAMA4_PYTHONIC
from .minimax import MINIMAX_M2
from .mistral import MISTRAL, MISTRAL_JSON
from .nemotron import NEMOTRON_V2
from .olmo import OLMO3
from .qwen import EXAONE4, GRANITE4, QWEN3, QWEN3_5, QWEN3_CODER
from .seed import SEED_OSS
from .registry import aliases, get_format, names, register, ship

FAMILIES: tuple[str, ...] = (
    *("deepseek", "qwen", "glm", "kimi", "mistral", "harmony", "llama", "minimax", "seed", "nemotron", "gemma", "lfm", "olmo"),
    # JSON calls in the family's own tags
    *("apertus", "apriel", "cohere", "granite", "phi", "firefunction", "hunyuan", "jamba", "xlam", "internlm"),
    *("ernie", "smollm", "mimo", "dots", "poolside", "functiongemma"),
    # XML and parameters
    *("minicpm", "gigachat", "step", "ling", "longcat", "plamo", "trinity", "inkling", "muse", "functionary"),
)

for _family in FAMILIES:
    for _fmt in import_module(f"{__name__}.{_family}").FORMATS:
        ship(_fmt)

__all__ = [
    "CallObject",
    "JsonArguments",
    "JsonCalls",
    "LiteralArguments",
    "LAYOUTS",
    "MarkedCalls",
    "ChannelMessages",
    "ChatFormat",
    "DEEPSEEK_R1",
    "DEEPSEEK_V3",
    "DEEPSEEK_V3_1",
    "DEEPSEEK_V3_2",
    "DEEPSEEK_V4",
    "EXAONE4",
    "GEMMA4",
    "GLM45",
    "GLM47",
    "GRANITE4",
    "GPT_OSS",
    "KIMI_K2",
    "KIMI_K3",
    "LFM2",
    "LLAMA3_JSON",
    "LLAMA4_PYTHONIC",
    "MINIMAX_M2",
    "MISTRAL",
    "MISTRAL_JSON",
    "NEMOTRON_V2",
    "NO_REASONING",
    "OLMO3",
    "PythonArguments",
    "PythonicCalls",
    "QWEN3",
    "QWEN3_5",
    "QWEN3_CODER",
    "SEED_OSS",
    "HeaderPiece",
    "ReasoningFormat",
    "Text",
    "Thinking",
    "ToolCallFormat",
    "XmlArguments",
    "aliases",
    "get_format",
    "is_text",
    "spellings",
    "names",
    "register",
]
