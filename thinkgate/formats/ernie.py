"""Baidu ERNIE 4.5 (the thinking models, ERNIE-4.5-21B-A3B-Thinking): Hermes' JSON call objects
in ``<tool_call>`` tags after the reasoning.

::

    I need the weather in Beijing.
    </think>

    <tool_call>
    {"name": "get_current_temperature", "arguments": {"location": "Beijing"}}
    </tool_call>

One JSON call object (``name``, ``arguments``) between ``<tool_call>\\n`` and ``\\n</tool_call>``
per call, the calls one a line (vLLM's ``ernie45`` tool parser and its tests). The model thinks
first: its output starts inside the reasoning and closes it with ``</think>`` (it seldom writes
the opening ``<think>``: vLLM's ``ernie45`` reasoning parser reads a ``</think>`` with no
``<think>`` before it); after it come the calls, or the answer, which the model may wrap in
``<response>…</response>`` (kept as the answer's text here: thinkgate reads no framing around
an answer written in tokens). ``<think>``, ``</think>``, ``<tool_call>``, ``</tool_call>``,
``<response>`` and ``</response>`` are special tokens of the model's tokenizer (vLLM looks each up
as one id). ERNIE 4.5's templates write ``User: …\\n`` and ``Assistant: …`` turns, an assistant
turn ended by ``</s>`` or (ERNIE 4.5's base templates, transformers' ``Ernie4_5Tokenizer``) by
``<|end_of_sentence|>``; both end the output.
"""

from .base import ChatFormat, ReasoningFormat
from .qwen import HERMES

THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
EOS = "</s>"
END_OF_SENTENCE = "<|end_of_sentence|>"

ERNIE45 = ChatFormat(
    name="ernie4_5",
    # the template opens the reasoning: an output starts inside it
    reasoning=ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking=True),
    tools=HERMES,
    eos=EOS,
    stops=(END_OF_SENTENCE,),
    aliases=("ernie45", "ernie", "ernie4.5", "ernie-4.5", "ernie45_moe", "ernie4_5_moe", "ernie-4.5-thinking"),
    description='ERNIE 4.5 Thinking: <tool_call>{"name", "arguments"}</tool_call> after </think>, reasoning open from the start',
)

FORMATS = (ERNIE45,)
