"""gpt-oss (OpenAI's open-weight models): the harmony format, messages on channels.

The prompt ends with ``<|start|>assistant``; the model then writes messages, each a header and a
body::

    <|channel|>analysis<|message|>The user wants the weather.<|end|>
    <|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|call|>

Reasoning is the ``analysis`` channel; the answer is the ``final`` channel, ended by
``<|return|>``; a tool call is a ``commentary`` message addressed ``to=functions.NAME`` (the
recipient may also stand before ``<|channel|>``, and ``<|constrain|>json`` may be missing),
ended by ``<|call|>``. A ``commentary`` message without a recipient is a preamble the user
sees. ``<|return|>`` and ``<|call|>`` end the generation. Every marker is one special token of
the o200k_harmony vocabulary (``<|start|>`` 200006, ``<|end|>`` 200007, ``<|message|>`` 200008,
``<|channel|>`` 200005, ``<|constrain|>`` 200003, ``<|return|>`` 200002, ``<|call|>`` 200012).
"""

from .base import ChannelMessages, ChatFormat, ReasoningFormat, ToolCallFormat

START = "<|start|>"
END = "<|end|>"
MESSAGE = "<|message|>"
CHANNEL = "<|channel|>"
CONSTRAIN = "<|constrain|>"
RETURN = "<|return|>"
CALL = "<|call|>"
ASSISTANT = "assistant"
ANALYSIS = "analysis"
FINAL = "final"
COMMENTARY = "commentary"
RECIPIENT = "to="
FUNCTIONS = "functions."
JSON = "json"

HARMONY_MESSAGES = ChannelMessages(
    start=START,
    role=ASSISTANT,
    channel=CHANNEL,
    message=MESSAGE,
    end=END,
    constrain=CONSTRAIN,
    reasoning_channel=ANALYSIS,
    answer_channel=FINAL,
    tool_channel=COMMENTARY,
    recipient=RECIPIENT,
    function_prefix=FUNCTIONS,
    content_type=JSON,
)

# A call is a whole message: <|start|>assistant<|channel|>commentary to=functions.NAME
# <|constrain|>json<|message|>{ARGS}<|call|> (the form gpt-oss's chat template writes back).
HARMONY_TOOLS = ToolCallFormat(
    layout=HARMONY_MESSAGES,
    call=(START, CALL),
    sep=MESSAGE,
    header=ASSISTANT + CHANNEL + COMMENTARY + " " + RECIPIENT + FUNCTIONS + "{name} " + CONSTRAIN + JSON + "{sep}",
)

GPT_OSS = ChatFormat(
    name="gpt_oss",
    # The model opens the analysis channel itself after the prompt's <|start|>assistant.
    reasoning=ReasoningFormat(open=CHANNEL + ANALYSIS + MESSAGE, close=END, default_thinking="auto"),
    tools=HARMONY_TOOLS,
    eos=RETURN,
    stops=(CALL,),
    aliases=("harmony", "gpt-oss", "openai", "openai_gptoss", "gptoss"),
    description="gpt-oss harmony: analysis / final / commentary channels, calls to=functions.NAME ending in <|call|>",
)

FORMATS = (GPT_OSS,)
