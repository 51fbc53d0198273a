"""Salesforce xLAM-2 (Llama-xLAM-2-8b-fc-r and -70b on Llama 3.1, xLAM-2-1b/3b/32b-fc-r on
Qwen2.5): the answer *is* the calls, one bare JSON array of call objects.

``[{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "now", "arguments": {}}]<|eot_id|>``

No marker opens the calls: an answer that starts with ``[`` and a call object is calls, any other
answer text (vLLM's ``xlam`` parser reads an output that starts with ``[`` so). Both of vLLM's
templates (``examples/tool_chat_template_xlam_llama.jinja``, ``…_xlam_qwen.jinja``) write an
assistant turn's calls as ``[`` + the objects joined by ``, `` + ``]`` in place of its text; the
system prompt asks for "calls in a single JSON array". The Llama models end a turn with
``<|eot_id|>``, the Qwen ones with ``<|im_end|>``. They do not think.

vLLM's parser also looks for the array in a ```` ```json ```` block, after ``[TOOL_CALLS]``, in
``<tool_call>`` tags and after a ``</think>``; no xLAM template writes those, and here they are
the answer's text as written.
"""

from .base import NO_REASONING, CallObject, ChatFormat, JsonCalls, ToolCallFormat

EOT = "<|eot_id|>"
IM_END = "<|im_end|>"

XLAM_TOOLS = ToolCallFormat(
    layout=JsonCalls(array=("[", "]")),
    arguments=CallObject(),
    separator=", ",
)

XLAM = ChatFormat(
    name="xlam",
    reasoning=NO_REASONING,
    tools=XLAM_TOOLS,
    eos=EOT,
    aliases=("xlam2", "xlam_llama", "llama_xlam", "xlam-2"),
    description='Salesforce xLAM-2 on Llama 3.1: the answer is a JSON array [{"name", "arguments"}, …], no reasoning',
)

XLAM_QWEN = ChatFormat(
    name="xlam_qwen",
    reasoning=NO_REASONING,
    tools=XLAM_TOOLS,
    eos=IM_END,
    aliases=("xlam2_qwen", "qwen_xlam", "xlam-qwen"),
    description='Salesforce xLAM-2 on Qwen2.5: the answer is a JSON array [{"name", "arguments"}, …], ChatML turns, no reasoning',
)

FORMATS = (XLAM, XLAM_QWEN)
