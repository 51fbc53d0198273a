"""InternLM 2 / 2.5 and Intern-S1: each call one JSON object after ``<|action_start|><|plugin|>``.

``Let me check.<|action_start|><|plugin|>\\n{"name": "get_weather", "parameters": {"city": "Paris"}}<|action_end|>``,
one such block per call (several in a turn, with text between them or not). The call object
names the tool and holds its arguments under ``"parameters"``, as InternLM's own tooling
(lmdeploy, Lagent) and the models write them; ``"arguments"`` is read too (vLLM's
``examples/tool_chat_template_internlm2_tool.jinja`` writes it, vLLM's and SGLang's parsers read
both). ``<|action_start|>``, ``<|plugin|>`` and ``<|action_end|>`` are special tokens of both
tokenizers; decoded with spaces between special tokens the opening reads
``<|action_start|> <|plugin|>`` (SGLang's ``interns1`` detector, vLLM's ``intern-s1`` test),
and Intern-S1 writes a newline before ``<|action_end|>`` (vLLM's ``intern-s1`` tests): both
read. Turns are ChatML's, ended by ``<|im_end|>``; tool results come back in an
``environment name=<|plugin|>`` turn.

InternLM 2 does not think. Intern-S1 thinks in ``<think>…</think>``, opened by the model itself
(thinking is on by default; the template's ``enable_thinking=False`` turns it off).
"""

from .base import NO_REASONING, CallObject, ChatFormat, MarkedCalls, ReasoningFormat, ToolCallFormat

ACTION_START = "<|action_start|>"
PLUGIN = "<|plugin|>"
ACTION_END = "<|action_end|>"
THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
IM_END = "<|im_end|>"

INTERNLM_TOOLS = ToolCallFormat(
    layout=MarkedCalls(),
    arguments=CallObject(name_key="name", arguments_key="parameters", read_also=("arguments",)),
    call=(ACTION_START, ACTION_END),
    sep=PLUGIN,
    header="{sep}\n",
)

INTERNLM2 = ChatFormat(
    name="internlm2",
    reasoning=NO_REASONING,
    tools=INTERNLM_TOOLS,
    eos=IM_END,
    aliases=("internlm", "internlm2_5", "internlm2.5", "internlm-2"),
    description='InternLM 2 / 2.5: <|action_start|><|plugin|>{"name", "parameters"}<|action_end|> per call, no reasoning',
)

INTERN_S1 = ChatFormat(
    name="intern_s1",
    reasoning=ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking="auto", toggle="enable_thinking"),
    tools=INTERNLM_TOOLS,
    eos=IM_END,
    aliases=("intern-s1", "interns1", "intern_s1_mini", "intern-s1-mini"),
    description='Intern-S1: the same <|action_start|><|plugin|>{"name", "parameters"}<|action_end|> calls, <think> reasoning opened by the model',
)

FORMATS = (INTERNLM2, INTERN_S1)
