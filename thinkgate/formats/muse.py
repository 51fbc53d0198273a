"""Muse Glimmer / Muse Spark (ATEM calls in recipient channels): no format yet (issue 38).

The model writes messages addressed to a recipient, the generation prompt holding the first
one's ``<|start|>assistant``; reasoning goes ``to=self``, the answer ``to=user``, a call to the
tool's own name, its body ATEM XML::

     to=self<|message|>…<|eom|><|start|>assistant to=get_weather.get_weather<|message|><atem:function_calls>
    <atem:invoke name="get_weather.get_weather">
    <atem:parameter name="city">Paris</atem:parameter>
    </atem:invoke>
    </atem:function_calls><|eom|><|start|>assistant to=user<|message|>It is sunny.<|eot|>

(vLLM ``tool_parsers/muse_tool_parser.py``, SGLang ``function_call/muse_glimmer_detector.py``
and ``muse_glimmer_format.py``, llama.cpp ``common/chat-parsers/muse-glimmer``). The channel a
body belongs to is said by a recipient in each message's header, and a tool's name is written
twice (in the recipient and the invoke, doubled as ``NAME.NAME`` for a bare tool name). The
channel-messages layout thinkgate has is harmony's (a ``<|channel|>`` word, JSON bodies only), and
marked calls have no header naming the channel, so no layout reads it; it needs the channel
layout generalised to recipient-only headers and XML bodies.
"""

FORMATS: tuple = ()
