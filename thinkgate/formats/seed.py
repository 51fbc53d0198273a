"""ByteDance Seed-OSS: Qwen3-Coder-style parameters inside ``<seed:tool_call>``, one block per call.

::

    <seed:tool_call>
    <function=get_weather>
    <parameter=city>Paris</parameter>
    <parameter=days>3</parameter>
    </function>
    </seed:tool_call>

A value stands between its tags with no padding newline (a string as its bare text, any other
value as JSON); each call is its own block, the blocks separated by a newline. Seed-OSS thinks in
``<seed:think>…</seed:think>``, opened by the model itself; with a thinking budget of 0 its
template opens it in the prompt followed by ``<seed:cot_budget_reflect>``, and with another
budget the model reflects on the budget inside its reasoning. Turns are ``<seed:bos>ROLE\\n…<seed:eos>``.
"""

from .base import ChatFormat, MarkedCalls, ReasoningFormat, ToolCallFormat, XmlArguments

TOOL_CALL_BEGIN = "<seed:tool_call>"
TOOL_CALL_END = "</seed:tool_call>"
THINK_OPEN = "<seed:think>"
THINK_CLOSE = "</seed:think>"
BUDGET_REFLECT = "<seed:cot_budget_reflect>"
EOS = "<seed:eos>"

SEED_TOOLS = ToolCallFormat(
    layout=MarkedCalls(),
    arguments=XmlArguments(style="qwen_xml", key_open="<parameter=", key_close=">", value_close="</parameter>"),
    call=(TOOL_CALL_BEGIN, TOOL_CALL_END),
    header="\n<function={name}>\n",
    footer="</function>\n",
    separator="\n",
)

SEED_OSS = ChatFormat(
    name="seed_oss",
    reasoning=ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking="auto", prompt_after_open=(BUDGET_REFLECT,)),
    tools=SEED_TOOLS,
    eos=EOS,
    aliases=("seed", "seed-oss", "seed_oss_36b"),
    description="ByteDance Seed-OSS: <seed:tool_call><function=NAME><parameter=K>V</parameter></function></seed:tool_call>, <seed:think> reasoning",
)

FORMATS = (SEED_OSS,)
