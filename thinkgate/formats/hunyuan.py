"""Tencent Hunyuan: Hunyuan-A13B's JSON array, and Hy3's and Hy4's key/value tags.

**Hunyuan-A13B** (``hunyuan_a13b``): one JSON array of call objects between ``<tool_calls>`` and
``</tool_calls>``, the objects joined by ``, ``, after any answer text::

    <tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "now", "arguments": {}}]</tool_calls><|eos|>

as vLLM's ``examples/tool_chat_template_hunyuan_a13b.jinja`` writes an assistant turn (the
arguments ``tojson``'d where they are no string). A13B's markup is text: its tokenizer spells
``<think>\\n`` in three tokens (vLLM's ``hunyuan_a13b`` reasoning parser matches the ids
``[14023, 771, 397]``), and vLLM's tool parser looks for ``<tool_calls>`` in the text. It thinks
in ``<think>…</think>``, opened by the model itself; ``enable_thinking=False`` closes an empty
``<think>\\n\\n</think>\\n`` in the prompt. The model writes its answer between ``<answer>`` and
``</answer>`` after thinking (``\\n</think>\\n<answer>\\n…\\n</answer>``, the same parser's
sequences): thinkgate has no framing for an answer whose close follows the calls, so those tags
stay in the content as the model wrote them (vLLM's tool parser keeps the text before
``<tool_calls>`` too). Its template asks for plain answers to start with ``助手：``, which is the
answer's text here (vLLM's tool parser drops it).

**Hy3** (``hy_v3``: tencent/Hy3; ``hy_v3_preview``: tencent/Hy3-preview): the calls between
``<tool_calls>`` and ``</tool_calls>``, each ``<tool_call>NAME<tool_sep>`` then one
``<arg_key>K</arg_key>`` / ``<arg_value>V</arg_value>`` pair per argument, a string as its bare
text, any other value as JSON, every tag on a line of its own::

    <tool_calls>
    <tool_call>get_weather<tool_sep>
    <arg_key>city</arg_key>
    <arg_value>Paris</arg_value>
    </tool_call>
    </tool_calls><｜hy_eos｜>

Every tag is one special token. Hy3-preview's are as above; the released Hy3 writes each with
the checkpoint's ``:opensource`` suffix (``<tool_calls:opensource>``, ``<think:opensource>``,
``<｜hy_eos:opensource｜>``), which vLLM's ``hy_v3`` and SGLang's ``hunyuan`` parsers take from
the tokenizer (third-party renderers of tencent/Hy3's chat_template.jinja spell it so). The
newlines the template writes inside ``<tool_calls>``, before the first call and after the last,
are read; the grammar writes the calls right after ``<tool_calls>`` and the section's end right
after the last call's (a layout has no slot for text there). Hy3 thinks in
``<think>…</think>`` as ``reasoning_effort`` says: ``no_think`` (the template's default) closes
an empty ``<think></think>`` in the prompt, ``low`` and ``high`` open ``<think>`` there.

**Hy4** (``hy_v4``: tencent/Hy4-preview): Hy3's tags without ``<tool_sep>`` and with no
whitespace between any of them, each with the ``:opensource`` suffix (vLLM's ``hy_v4``
structural tag; the tokenizer vLLM's tests mirror)::

    <tool_calls:opensource><tool_call:opensource>get_weather<arg_key:opensource>city</arg_key:opensource><arg_value:opensource>Paris</arg_value:opensource></tool_call:opensource></tool_calls:opensource>

Turns are ``<｜hy_start:opensource｜>ROLE<｜hy_middle:opensource｜>…<｜hy_end:opensource｜>``.
Hy4 thinks in ``<think:opensource>…</think:opensource>``, which its generation prompt opens
unless ``reasoning_effort`` is ``no_think`` (vLLM's and SGLang's default is ``high``). A checkpoint
whose tags carry another suffix (vLLM's parsers read any) is a format of its own: detect it
from its template.
"""

from .base import CallObject, ChatFormat, JsonCalls, MarkedCalls, ReasoningFormat, Text, ToolCallFormat, XmlArguments

# --- Hunyuan-A13B: text markers ---------------------------------------------------------------
A13B_TOOL_CALLS_BEGIN = Text("<tool_calls>")
A13B_TOOL_CALLS_END = Text("</tool_calls>")
A13B_THINK_OPEN = Text("<think>")
A13B_THINK_CLOSE = Text("</think>")
A13B_EOS = "<|eos|>"

HUNYUAN_A13B = ChatFormat(
    name="hunyuan_a13b",
    reasoning=ReasoningFormat(open=A13B_THINK_OPEN, close=A13B_THINK_CLOSE, default_thinking="auto", toggle="enable_thinking"),
    tools=ToolCallFormat(
        layout=JsonCalls(array=("[", "]")),
        arguments=CallObject(),
        section=(A13B_TOOL_CALLS_BEGIN, A13B_TOOL_CALLS_END),
        separator=", ",
    ),
    eos=A13B_EOS,
    aliases=("hunyuan-a13b", "hunyuan_a13b_instruct", "a13b"),
    description='Tencent Hunyuan-A13B: <tool_calls>[{"name", "arguments"}, …]</tool_calls> as text, <think> reasoning as text',
)


# --- Hy3 and Hy4: one special token per tag, a checkpoint's suffix on each ------------------
def _tag(name: str, suffix: str) -> str:
    return f"<{name}{suffix}>"


def _close(name: str, suffix: str) -> str:
    return f"</{name}{suffix}>"


def _hy_tools(suffix: str, sep: bool) -> ToolCallFormat:
    """Hy3's layout (``sep``: a ``<tool_sep>`` after the name, a newline after every tag) or
    Hy4's (no separator, no whitespace), its tags spelled with ``suffix``."""
    arguments = XmlArguments(
        style="glm_xml",  # GLM's <arg_key>/<arg_value> pairs; the tags respelled with the suffix
        key_open=_tag("arg_key", suffix),
        key_close=_close("arg_key", suffix),
        value_open=_tag("arg_value", suffix),
        value_close=_close("arg_value", suffix),
        between="\n" if sep else "",
        after="\n" if sep else "",
    )
    return ToolCallFormat(
        layout=MarkedCalls(),
        arguments=arguments,
        section=(_tag("tool_calls", suffix), _close("tool_calls", suffix)),
        call=(_tag("tool_call", suffix), _close("tool_call", suffix)),
        sep=_tag("tool_sep", suffix) if sep else "",
        header="{name}{sep}\n" if sep else "{name}",
        separator="\n" if sep else "",
    )


def _hy_reasoning(suffix: str, default_thinking: object) -> ReasoningFormat:
    return ReasoningFormat(open=_tag("think", suffix), close=_close("think", suffix), default_thinking=default_thinking)  # type: ignore[arg-type]


OPENSOURCE = ":opensource"  # the released checkpoints' suffix

HY_V3 = ChatFormat(
    name="hy_v3",
    reasoning=_hy_reasoning(OPENSOURCE, "auto"),
    tools=_hy_tools(OPENSOURCE, sep=True),
    eos="<｜hy_eos:opensource｜>",
    aliases=("hy3", "hy-3", "hunyuan", "hunyuan3", "hy_v3_opensource"),
    description="Tencent Hy3: <tool_calls:opensource><tool_call:opensource>NAME<tool_sep:opensource><arg_key:…>K</arg_key:…><arg_value:…>V</arg_value:…></tool_call:…>, <think:opensource> reasoning",
)

HY_V3_PREVIEW = ChatFormat(
    name="hy_v3_preview",
    reasoning=_hy_reasoning("", "auto"),
    tools=_hy_tools("", sep=True),
    eos="<｜hy_eos｜>",
    aliases=("hy3_preview", "hy3-preview", "hy_v3-preview"),
    description="Tencent Hy3-preview: <tool_calls><tool_call>NAME<tool_sep><arg_key>K</arg_key><arg_value>V</arg_value></tool_call></tool_calls>, <think> reasoning",
)

HY_V4 = ChatFormat(
    name="hy_v4",
    reasoning=_hy_reasoning(OPENSOURCE, True),
    tools=_hy_tools(OPENSOURCE, sep=False),
    eos="<｜hy_end:opensource｜>",
    aliases=("hy4", "hy-4", "hy4_preview", "hy4-preview", "hunyuan4"),
    description="Tencent Hy4: <tool_calls:opensource><tool_call:opensource>NAME<arg_key:…>K</arg_key:…><arg_value:…>V</arg_value:…></tool_call:…> with no whitespace, <think:opensource> opened by the template",
)

FORMATS = (HUNYUAN_A13B, HY_V3, HY_V3_PREVIEW, HY_V4)
