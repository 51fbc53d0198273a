"""MeetKai functionary v3.1 (on Llama 3.1): each call ``<function=NAME>`` then its JSON arguments
then ``</function>``.

::

    Let me look.<function=get_weather>{"city": "Paris"}</function><function=now>{}</function>

The answer's text first, then the calls back to back, each its arguments as the request's JSON
verbatim; ``<|eom_id|>`` ends a turn with calls, ``<|eot_id|>`` one without. The tags are text
(Llama 3.1's tokenizer has no token for them). functionary does not think. (Its template writes
a call to a ``python`` tool as ``<|python_tag|>`` and raw code instead: no call format here
reads that.)

Facts from the model's chat template (llama.cpp ``models/templates/meetkai-functionary-medium-v3.1.jinja``:
``'<function=' + name + '>' + arguments + '</function>'``, then ``<|eom_id|>``) and llama.cpp's
``common/chat.cpp`` and ``tests/test-chat.cpp``.

functionary v3.2 (``>>>NAME\\n{…}``, ``>>>all\\n`` before text) is not here: its generation
prompt ends in ``>>>``, so the output starts inside the markup of its first message (a recipient,
``all`` for the answer's text, or the first call's name with no marker before it), which no
thinkgate layout reads yet.
"""

from .base import NO_REASONING, ChatFormat, MarkedCalls, Text, ToolCallFormat

FUNCTION_BEGIN = Text("<function=")
FUNCTION_END = Text("</function>")
EOT = "<|eot_id|>"
EOM = "<|eom_id|>"

FUNCTIONARY_V3_1_TOOLS = ToolCallFormat(
    layout=MarkedCalls(),
    call=(FUNCTION_BEGIN, FUNCTION_END),
    header="{name}>",
)

FUNCTIONARY_V3_1 = ChatFormat(
    name="functionary_v3_1",
    reasoning=NO_REASONING,
    tools=FUNCTIONARY_V3_1_TOOLS,
    eos=EOT,
    stops=(EOM,),
    aliases=("functionary_v3.1", "functionary-v3.1", "functionary_v3_1_llama_3_1", "functionary_llama_3_1"),
    description="MeetKai functionary v3.1: <function=NAME>{JSON}</function> calls as text, no reasoning",
)

FORMATS = (FUNCTIONARY_V3_1,)
