"""DeepSeek R1, V3-0324 and V3.1: the markers and layouts, as a table.

Every DeepSeek marker is a single special token of the DeepSeek tokenizer; ``｜`` (U+FF5C) and
``▁`` (U+2581) are part of the marker text.
"""

from .base import ChatFormat, ChatMarkers, MarkedCalls, ReasoningFormat, ToolCallFormat

TOOL_CALLS_BEGIN = "<｜tool▁calls▁begin｜>"
TOOL_CALLS_END = "<｜tool▁calls▁end｜>"
TOOL_CALL_BEGIN = "<｜tool▁call▁begin｜>"
TOOL_CALL_END = "<｜tool▁call▁end｜>"
TOOL_SEP = "<｜tool▁sep｜>"
THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
END_OF_SENTENCE = "<｜end▁of▁sentence｜>"
BEGIN_OF_SENTENCE = "<｜begin▁of▁sentence｜>"
USER = "<｜User｜>"
ASSISTANT = "<｜Assistant｜>"
TOOL_OUTPUTS_BEGIN = "<｜tool▁outputs▁begin｜>"
TOOL_OUTPUTS_END = "<｜tool▁outputs▁end｜>"
TOOL_OUTPUT_BEGIN = "<｜tool▁output▁begin｜>"
TOOL_OUTPUT_END = "<｜tool▁output▁end｜>"

_CONVERSATION = dict(
    bos=BEGIN_OF_SENTENCE,
    user=USER,
    assistant=ASSISTANT,
    tool_outputs=(TOOL_OUTPUTS_BEGIN, TOOL_OUTPUTS_END),
    tool_output=(TOOL_OUTPUT_BEGIN, TOOL_OUTPUT_END),
)

# R1 and V3-0324: ``function<｜tool▁sep｜>NAME`` then the arguments in a ```json code block;
# calls separated by a newline.
CODEBLOCK = ToolCallFormat(
    layout=MarkedCalls(),
    section=(TOOL_CALLS_BEGIN, TOOL_CALLS_END),
    call=(TOOL_CALL_BEGIN, TOOL_CALL_END),
    sep=TOOL_SEP,
    header="function{sep}{name}\n```json\n",
    footer="\n```",
    separator="\n",
)

# V3.1: ``NAME<｜tool▁sep｜>`` then bare JSON arguments; calls back to back.
SEP_JSON = ToolCallFormat(
    layout=MarkedCalls(),
    section=(TOOL_CALLS_BEGIN, TOOL_CALLS_END),
    call=(TOOL_CALL_BEGIN, TOOL_CALL_END),
    sep=TOOL_SEP,
    header="{name}{sep}",
    footer="",
    separator="",
)

DEEPSEEK_R1 = ChatFormat(
    name="deepseek_r1",
    # R1's chat template ends the prompt with "<think>\n": the output starts inside reasoning.
    reasoning=ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking=True),
    tools=CODEBLOCK,
    eos=END_OF_SENTENCE,
    aliases=("deepseek-r1", "deepseekr1"),
    description="DeepSeek-R1 / R1-0528: forced-open <think>, tool calls in ```json code blocks",
    chat=ChatMarkers(**_CONVERSATION, tool_output_separator="\n", think_prompt_suffix="\n"),
)

DEEPSEEK_V3 = ChatFormat(
    name="deepseek_v3",
    # V3-0324 does not think unless it opens <think> itself.
    reasoning=ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking="auto"),
    tools=CODEBLOCK,
    eos=END_OF_SENTENCE,
    aliases=("deepseekv3", "deepseek-v3", "deepseek_v3_0324"),
    description="DeepSeek-V3-0324: same tool layout as R1, thinking only if the model opens it",
    chat=ChatMarkers(**_CONVERSATION, tool_output_separator="\n"),
)

DEEPSEEK_V3_1 = ChatFormat(
    name="deepseek_v3_1",
    # The prompt ends in "<think>" (thinking on) or "</think>" (off); read it from the prompt ids.
    reasoning=ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking="auto", toggle="thinking"),
    tools=SEP_JSON,
    eos=END_OF_SENTENCE,
    aliases=("deepseekv31", "deepseek_v31", "deepseek-v3.1", "deepseek_v3.1"),
    description="DeepSeek-V3.1: per-request thinking toggle, NAME<｜tool▁sep｜>{JSON} calls",
    chat=ChatMarkers(**_CONVERSATION),
)

FORMATS = (DEEPSEEK_R1, DEEPSEEK_V3, DEEPSEEK_V3_1)
