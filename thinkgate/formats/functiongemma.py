"""Google FunctionGemma (functiongemma-270m-it): Gemma 4's call syntax on Gemma 3's turns, strings
between ``<escape>`` tokens.

``<start_function_call>call:get_weather{city:<escape>Paris<escape>,days:3}<end_function_call>``:
the keys bare, a string between two ``<escape>`` tokens (the text between them is the string, with
no escapes), numbers, ``true``/``false``, nested objects and arrays as in JSON, the keys sorted and
no whitespace (the chat template's ``format_argument`` macro, which Gemma 4's template took over
with ``<|"|>`` for ``<escape>``); calls back to back, after any answer text. After its calls the
model writes ``<start_function_response>`` and waits for the results (the template writes each
result as ``<start_function_response>response:…<end_function_response>``). FunctionGemma does not
think. Turns are ``<start_of_turn>ROLE\\n…<end_of_turn>``; ``<start_function_call>``,
``<end_function_call>``, ``<escape>`` and ``<start_function_response>`` are special tokens of its
tokenizer (vLLM's ``functiongemma`` parser asks that special tokens be kept in the output).
"""

from .base import NO_REASONING, ChatFormat, LiteralArguments, MarkedCalls, ToolCallFormat

FUNCTION_CALL_BEGIN = "<start_function_call>"
FUNCTION_CALL_END = "<end_function_call>"
ESCAPE = "<escape>"
FUNCTION_RESPONSE = "<start_function_response>"
END_OF_TURN = "<end_of_turn>"
EOS = "<eos>"  # the tokenizer's end of sequence, which generation also stops at

FUNCTIONGEMMA = ChatFormat(
    name="functiongemma",
    reasoning=NO_REASONING,
    tools=ToolCallFormat(
        layout=MarkedCalls(),
        call=(FUNCTION_CALL_BEGIN, FUNCTION_CALL_END),
        header="call:{name}",
        arguments=LiteralArguments(quote=ESCAPE, sort_keys=True),
    ),
    eos=END_OF_TURN,
    stops=(FUNCTION_RESPONSE, EOS),
    aliases=("function_gemma", "function-gemma", "functiongemma-270m", "functiongemma_270m"),
    description="FunctionGemma: <start_function_call>call:NAME{key:<escape>text<escape>,n:42}<end_function_call>, no reasoning",
)

FORMATS = (FUNCTIONGEMMA,)
