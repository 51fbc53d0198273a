"""Gemma 4 (Google): calls in a syntax of their own, strings between a delimiter token.

``<|tool_call>call:get_weather{city:<|"|>Paris<|"|>,days:3}<tool_call|>``: keys bare, a string
between two ``<|"|>`` tokens (no escapes: the text between them is the string), numbers,
``true``/``false``, nested objects and arrays as in JSON; the chat template writes the keys
sorted and no whitespace, and calls back to back. Gemma 4 thinks on a channel,
``<|channel>thought\\n…<channel|>``, which it opens itself when its template's
``enable_thinking`` is on; with it off (the template's default) the prompt ends with an empty
``<|channel>thought\\n<channel|>``. A turn ends with ``<turn|>`` (or the tokenizer's ``<eos>``); after its calls the model writes
``<|tool_response>`` and waits for the results.
"""

from .base import ChatFormat, LiteralArguments, MarkedCalls, ReasoningFormat, ToolCallFormat

TOOL_CALL_BEGIN = "<|tool_call>"
TOOL_CALL_END = "<tool_call|>"
STRING_QUOTE = '<|"|>'
CHANNEL_OPEN = "<|channel>"
CHANNEL_CLOSE = "<channel|>"
THOUGHT = "thought\n"
TURN_END = "<turn|>"
TOOL_RESPONSE = "<|tool_response>"
EOS = "<eos>"  # the tokenizer's end of sequence, which generation also stops at

GEMMA4_TOOLS = ToolCallFormat(
    # models leave out "call" (``<|tool_call>:NAME{…}``), or all of ``call:``; vLLM reads both;
    # and the call's marker, right after ``<channel|>`` (vLLM's bare-call fallback reads it there)
    layout=MarkedCalls(optional_name_prefix=True, headless_after_reasoning=True),
    call=(TOOL_CALL_BEGIN, TOOL_CALL_END),
    header="call:{name}",
    # Python's None as the template renders it (``{{ argument }}``) is read as null too
    # the template writes the keys sorted (dictsort)
    arguments=LiteralArguments(quote=STRING_QUOTE, null_also=("None",), sort_keys=True),
)

GEMMA4 = ChatFormat(
    name="gemma4",
    reasoning=ReasoningFormat(open=CHANNEL_OPEN, close=CHANNEL_CLOSE, default_thinking="auto", toggle="enable_thinking", label=THOUGHT, reopens=True),
    tools=GEMMA4_TOOLS,
    eos=TURN_END,
    stops=(TOOL_RESPONSE, EOS),
    aliases=("gemma", "gemma_4", "gemma-4"),
    description='Gemma 4: <|tool_call>call:NAME{key:<|"|>text<|"|>,n:42}<tool_call|>, <|channel>thought…<channel|> reasoning',
)

FORMATS = (GEMMA4,)
