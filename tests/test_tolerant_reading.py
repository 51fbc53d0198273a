"""Read tolerant, write exact (issue 35): text markers read with any whitespace between them,
and the slips real models make, read as the calls they are. Every case is read whole, one
character at a time and in 3-character pieces (``every_split_agrees``).

Origins, where a case comes from a peer: vLLM's tool-parser tests and issues (repository
vllm-project/vllm), SGLang's (sgl-project/sglang), llama.cpp's tests/test-chat.cpp
(ggml-org/llama.cpp)."""

import json

import pytest

from helpers import every_split_agrees
from thinkgate.formats import DEEPSEEK_V3_2, DEEPSEEK_V4, KIMI_K3, MINIMAX_M2, NO_REASONING, CallObject, ChatFormat, MarkedCalls, Text, ToolCallFormat, get_format

DSML = "｜DSML｜"
WEATHER = {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": WEATHER}}]


def _calls(m):
    return [(c.name, json.loads(c.arguments)) for c in m.tool_calls]


def _tight(text):
    """``text`` with no whitespace between its markup (its values hold none at their edges)."""
    return "".join(line.strip() for line in text.splitlines())


def _call(fmt, args):
    return fmt.tools.call_text("get_weather", json.dumps(args))


# ------------------------------------------------------------------ point 1: whitespace between text markers


@pytest.mark.parametrize("fmt", [DEEPSEEK_V3_2, DEEPSEEK_V4, MINIMAX_M2], ids=lambda f: f.name)
def test_markup_written_back_to_back_reads_as_the_template_s(fmt):
    # vLLM and SGLang read DSML and MiniMax-M2 blocks with no newline after the block's opening
    # or before </…invoke> (issue 35's count: 64 vectors across their tests)
    block = fmt.tools.section_text([("get_weather", json.dumps({"city": "Paris", "days": 3})), ("get_weather", json.dumps({"city": "Oslo"}))])
    tight = _tight(block)
    assert "\n" in block and "\n" not in tight  # the grammar writes the template's newlines
    m = every_split_agrees("Let me check.\n\n" + tight, format=fmt, thinking=False, tools=TOOLS)
    assert _calls(m) == [("get_weather", {"city": "Paris", "days": 3}), ("get_weather", {"city": "Oslo"})]
    assert m.content == "Let me check.\n\n" and m.invalid_tool_calls == []


@pytest.mark.parametrize("fmt", [DEEPSEEK_V3_2, MINIMAX_M2], ids=lambda f: f.name)
def test_more_whitespace_between_markers_than_the_template_writes(fmt):
    block = fmt.tools.section_text([("get_weather", json.dumps({"city": "Paris"}))])
    loose = block.replace("\n", "\n \t\n  ")
    m = every_split_agrees(loose, format=fmt, thinking=False, tools=TOOLS)
    assert _calls(m) == [("get_weather", {"city": "Paris"})] and m.content is None


def test_whitespace_inside_a_value_stays_the_value_s():
    begin, end = DEEPSEEK_V3_2.tools.section
    value = "  two\n lines \n"
    text = begin.strip() + DEEPSEEK_V3_2.tools.call_begin + 'get_weather">' + DEEPSEEK_V3_2.tools.xml.key_tag("city", value) + value + DEEPSEEK_V3_2.tools.xml.value_close + DEEPSEEK_V3_2.tools.call_end.strip() + end
    m = every_split_agrees(text, format=DEEPSEEK_V3_2, thinking=False, tools=TOOLS)
    assert _calls(m) == [("get_weather", {"city": value})]


def test_a_marker_s_text_cut_short_or_in_prose_is_text():
    begin = DEEPSEEK_V3_2.tools.section_begin.strip()
    for text in ("See " + begin[:-1] + " here.", "The tag " + begin[:-3]):
        m = every_split_agrees(text, format=DEEPSEEK_V3_2, thinking=False, tools=TOOLS)
        assert m.content == text and m.tool_calls == [] and m.invalid_tool_calls == []


# A format nothing in thinkgate knows, its markers text with the template's newlines: it reads
# them back to back with no rule of its own (the tolerance is the layout's).
NEW_FAMILY = ChatFormat(
    name="new_family",
    reasoning=NO_REASONING,
    tools=ToolCallFormat(
        layout=MarkedCalls(),
        arguments=CallObject(),
        section=(Text("<calls>\n"), Text("</calls>")),
        call=(Text("<call>\n"), Text("\n</call>\n")),
    ),
    eos="<|eot_id|>",
)


def test_a_new_family_reads_its_text_markers_tolerantly_for_free():
    block = NEW_FAMILY.tools.section_text([("get_weather", json.dumps({"city": "Paris"})), ("get_weather", "{}")])
    assert block.startswith("<calls>\n<call>\n{")
    for text in (block, _tight(block), block.replace("\n", "\n\n ")):
        m = every_split_agrees("Hi. " + text, format=NEW_FAMILY, tools=TOOLS)
        assert _calls(m) == [("get_weather", {"city": "Paris"}), ("get_weather", {})], text
        assert m.content == "Hi. " and m.invalid_tool_calls == []


# ------------------------------------------------------------------ point 2: slips real models make


@pytest.mark.parametrize("opening", [f"<{DSML}toolcalls>\n", f"<{DSML}tool>", f"<{DSML}toolcalls>", f"<{DSML}toolcalls>\n\n<{DSML}tool_calls>\n"])
def test_deepseek_v4_flash_s_misspelled_wrapper(opening):
    # vLLM #51914, fixed by #56141 ("Tolerate misspelled DSML tool_calls wrapper"); vLLM's V4
    # parser test test_corrupted_start_wrapper_still_recovers_invoke; llama.cpp's DSML variants;
    # SGLang's test_damaged_wrappers_do_not_become_assistant_preamble (the misspelling, then the
    # real wrapper: the second is a stray marker of the block, never answer text)
    text = "Sure.\n\n" + opening + _call(DEEPSEEK_V4, {"city": "Seoul"}) + DEEPSEEK_V4.tools.section_end
    m = every_split_agrees(text, format=DEEPSEEK_V4, thinking=False, tools=TOOLS)
    assert _calls(m) == [("get_weather", {"city": "Seoul"})]
    assert m.content == "Sure.\n\n" and m.invalid_tool_calls == []


def test_deepseek_v3_2_s_invoke_without_its_wrapper():
    # vLLM #48931: at long context V3.2 drops <｜DSML｜function_calls> and writes the invoke alone
    text = "Let me check.\n\n" + _tight(_call(DEEPSEEK_V3_2, {"city": "Seoul", "days": 2}))
    m = every_split_agrees(text, format=DEEPSEEK_V3_2, thinking=False, tools=TOOLS)
    assert _calls(m) == [("get_weather", {"city": "Seoul", "days": 2})]
    assert m.content == "Let me check.\n\n"


@pytest.mark.parametrize("fmt", [DEEPSEEK_V3_2, DEEPSEEK_V4, MINIMAX_M2], ids=lambda f: f.name)
def test_an_invoke_written_self_closing_is_a_call_without_arguments(fmt):
    # SGLang's test_deepseekv32_strict_dsml.py test_zero_argument_forms[self-closing] and
    # test_deepseekv4_detector.py test_self_closing_and_long_form_mix: <…invoke name="submit"/>
    t = fmt.tools
    tools = [*TOOLS, {"type": "function", "function": {"name": "submit", "parameters": {"type": "object", "properties": {}}}}]
    weather = t.call_text("get_weather", json.dumps({"city": "SF"}))
    text = "Done.\n" + t.section_begin + weather + str(t.call_begin) + 'submit"/>\n' + t.section_end
    m = every_split_agrees(text, format=fmt, thinking=False, tools=tools)
    assert _calls(m) == [("get_weather", {"city": "SF"}), ("submit", {})]
    assert m.content == "Done.\n" and m.invalid_tool_calls == []


@pytest.mark.parametrize("fmt", [DEEPSEEK_V3_2, DEEPSEEK_V4, MINIMAX_M2, get_format("qwen3_coder")], ids=lambda f: f.name)
@pytest.mark.parametrize("body", ["\nenable it please\n", '\n<param key="city">SF</param>\n', '["SF"]'])
def test_an_invoke_whose_body_is_no_parameters_is_invalid_with_its_text(fmt, body):
    # SGLang's test_deepseekv32_strict_dsml.py TestMalformedBodiesAreDropped (prose, a parameter
    # tag misspelled, a JSON array): no call with {} is made up, and no text moves to the content
    t = fmt.tools
    call = t.call_text("get_weather", json.dumps({"city": "SF"}))
    header = str(t.call_begin) + t.header.format(name="get_weather", sep=t.sep)
    broken = header + body + t.footer + str(t.call_end)
    assert broken.startswith(str(t.call_begin)) and call.startswith(header)
    m = every_split_agrees("Sure.\n\n" + t.section_begin + broken + t.section_end, format=fmt, thinking=False, tools=TOOLS)
    assert m.tool_calls == [] and m.content == "Sure.\n\n"
    assert [c.text for c in m.invalid_tool_calls] == [broken]


def test_kimi_k3_markers_with_spaces_beside_their_special_tokens():
    # vLLM's Kimi-K3 parser reads whitespace beside <|open|>, <|close|> and <|sep|> in its tags
    block = KIMI_K3.tools.section_text([("get_weather", "{}")])
    for token in KIMI_K3.text_tokens:
        block = block.replace(token, " " + token + " ")
    m = every_split_agrees("Looking." + KIMI_K3.answer[1] + block, format=KIMI_K3, thinking=False, tools=TOOLS)
    assert _calls(m) == [("get_weather", {})] and m.content == "Looking." and m.invalid_tool_calls == []



@pytest.mark.parametrize("tools", [None, TOOLS], ids=["no tools", "tools"])
def test_gemma4_s_call_without_its_marker_right_after_the_thought_channel(tools):
    # vLLM's tests/tool_parsers/test_gemma4_regex_and_bare_calls.py (test_bare_call_after_thought_channel,
    # test_engine_tool_parser_bare_call_extraction): call:NAME{…} just after <channel|>
    fmt = get_format("gemma4")
    q = fmt.tools.literal.quote
    call = "call:get_weather{city:" + q + "Paris" + q + "}"
    m = every_split_agrees("<|channel>thought\nI should look.<channel|>" + call, format=fmt, thinking=None, tools=tools)
    assert _calls(m) == [("get_weather", {"city": "Paris"})] and m.reasoning_content == "I should look." and m.content is None
    # anywhere else it is prose: after answer text, or at the start of an output that did not reason
    for text in ("<|channel>thought\nHm.<channel|>Sure: " + call, "Sure.\n" + call):
        m = every_split_agrees(text, format=fmt, thinking=None, tools=tools)
        assert m.tool_calls == [] and m.content.endswith(call)
    if tools:  # a name the request's tools do not have: prose too
        other = call.replace("get_weather", "get_time")
        m = every_split_agrees("<|channel>thought\nHm.<channel|>" + other, format=fmt, thinking=None, tools=tools)
        assert m.tool_calls == [] and m.content == other


def test_gemma4_s_call_without_call_before_its_name():
    # vLLM's Gemma 4 parser reads ``call:NAME{…}`` and ``:NAME{…}``-style slips (gemma4_utils'
    # fallback); issue 35 counts ``<|tool_call>:NAME{…}`` among Gemma 4's failures; and
    # ``:call:NAME{…}`` (vLLM's test_colon_prefixed_tool_call)
    t = get_format("gemma4").tools
    call = t.call_text("get_weather", json.dumps({"city": "Paris"}))
    name_at = call.index("get_weather")
    for header in (":", "", ":call:"):
        text = "Sure." + t.call_begin + header + call[name_at:]
        m = every_split_agrees(text, format="gemma4", thinking=False, tools=TOOLS)
        assert _calls(m) == [("get_weather", {"city": "Paris"})] and m.content == "Sure.", header


# ------------------------------------------------------------------ point 3: reasoning boundaries

GEMMA4 = get_format("gemma4")
BLOCK = DEEPSEEK_V3_2.tools.section_text([("get_weather", json.dumps({"city": "Seoul"}))])


@pytest.mark.parametrize("fmt", [DEEPSEEK_V3_2, DEEPSEEK_V4], ids=lambda f: f.name)
def test_a_dsml_block_opened_while_thinking_ends_the_reasoning(fmt):
    # vLLM (tests/reasoning, its DeepSeek V3.2/V4 reasoning parsers) and llama.cpp
    # (tests/test-chat.cpp, DeepSeek-V3.2 template) agree: V3.2 and V4 call tools while thinking
    block = fmt.tools.section_text([("get_weather", json.dumps({"city": "Seoul"}))])
    m = every_split_agrees("I need the weather.\n\n" + block, format=fmt, thinking=True, tools=TOOLS)
    assert m.reasoning_content == "I need the weather.\n\n" and _calls(m) == [("get_weather", {"city": "Seoul"})]
    assert m.content is None
    # the thinking goes on after the calls until it closes; the answer follows
    m = every_split_agrees("I need it." + _tight(block) + "Now wait." + DEEPSEEK_V3_2.reasoning.close + "Done.", format=fmt, thinking=True, tools=TOOLS)
    assert (m.reasoning_content, m.content) == ("I need it.Now wait.", "Done.") and _calls(m) == [("get_weather", {"city": "Seoul"})]


@pytest.mark.parametrize(
    "quoted",
    [
        "The tag is `" + DEEPSEEK_V3_2.tools.section_begin.strip() + "` then.",
        "Like this:\n```xml\n" + BLOCK + "\n```\nok.",
        "Like `this " + BLOCK + "` ok.",
    ],
)
def test_dsml_quoted_in_the_reasoning_is_reasoning_text(quoted):
    # SGLang reads DSML quoted in a code fence or backticks as text
    close = DEEPSEEK_V3_2.reasoning.close
    m = every_split_agrees(quoted + close + "Answer.", format=DEEPSEEK_V3_2, thinking=True, tools=TOOLS)
    assert (m.reasoning_content, m.content, m.tool_calls, m.invalid_tool_calls) == (quoted, "Answer.", [], [])


def test_a_dsml_opening_in_the_reasoning_that_opens_no_call_stays_reasoning():
    close = DEEPSEEK_V3_2.reasoning.close
    text = "The tag " + DEEPSEEK_V3_2.tools.section_begin.strip() + " opens it."
    m = every_split_agrees(text + close + "Answer.", format=DEEPSEEK_V3_2, thinking=True, tools=TOOLS)
    assert (m.reasoning_content, m.content, m.tool_calls) == (text, "Answer.", [])


def test_gemma4_s_thought_channel_after_answer_text_is_reasoning():
    # issue 35 (vLLM's and SGLang's Gemma 4 reasoning tests): the channel between answer texts
    o, c = GEMMA4.reasoning.open, GEMMA4.reasoning.close
    text = "Hello. " + o + GEMMA4.reasoning.label + "Let me think." + c + "Bye."
    m = every_split_agrees(text, format=GEMMA4, thinking="auto", tools=TOOLS)
    assert (m.reasoning_content, m.content) == ("Let me think.", "Hello. Bye.")


def test_gemma4_s_label_with_no_newline_leaves_no_thought():
    o, c = GEMMA4.reasoning.open, GEMMA4.reasoning.close
    m = every_split_agrees(o + GEMMA4.reasoning.label.strip() + c + "Hi.", format=GEMMA4, thinking="auto")
    assert (m.reasoning_content, m.content) == (None, "Hi.")
    m = every_split_agrees(o + "thou" + c + "Hi.", format=GEMMA4, thinking="auto")  # no label: text
    assert (m.reasoning_content, m.content) == ("thou", "Hi.")


# ------------------------------------------------------------------ point 6: streams that take back what they said

END_FORMATS = [DEEPSEEK_V3_2, DEEPSEEK_V4, MINIMAX_M2, KIMI_K3, GEMMA4]


@pytest.mark.parametrize("fmt", END_FORMATS, ids=lambda f: f.name)
@pytest.mark.parametrize("kept", [-1, 3])
def test_a_call_announced_stands_when_the_output_ends_inside_its_end_marker(fmt, kept):
    # the call's id and name went out in deltas; its arguments are complete: it is not taken back
    t = fmt.tools
    call = t.call_text("get_weather", json.dumps({"city": "Paris"}))
    end = t.call_end.rstrip()
    text = t.section_begin + call[: -len(t.call_end)] + end[:kept]
    m = every_split_agrees(text, format=fmt, thinking=False, tools=TOOLS)
    assert _calls(m) == [("get_weather", {"city": "Paris"})] and m.invalid_tool_calls == [] and m.content is None


@pytest.mark.parametrize("fmt", END_FORMATS, ids=lambda f: f.name)
def test_a_call_whose_arguments_were_cut_is_still_cut_off(fmt):
    t = fmt.tools
    call = t.call_text("get_weather", json.dumps({"city": "Paris"}))
    m = every_split_agrees(t.section_begin + call[: -len(t.call_end) - 8], format=fmt, thinking=False, tools=TOOLS)
    assert m.tool_calls == [] and [c.cut_off for c in m.invalid_tool_calls] == [True] and m.finish_reason == "length"


@pytest.mark.parametrize("fmt", [DEEPSEEK_V3_2, MINIMAX_M2, get_format("deepseek_v3_1")], ids=lambda f: f.name)
def test_a_tool_block_opened_at_the_very_end_is_no_answer_text(fmt):
    opening = fmt.tools.trigger
    m = every_split_agrees("Let me check." + opening, format=fmt, thinking=False, tools=TOOLS)
    assert m.content == "Let me check." and m.tool_calls == [] and m.finish_reason == "length"
    assert [(c.text, c.cut_off) for c in m.invalid_tool_calls] == [(opening, True)]
    # followed by prose, it was no tool block: text, as written
    m = every_split_agrees("Let me check." + opening + " is the tag.", format=fmt, thinking=False, tools=TOOLS)
    assert m.content == "Let me check." + opening + " is the tag." and m.invalid_tool_calls == []
