"""The format examples of design.md and every rule for unconstrained output (design.md §4)."""

import json
import logging
from dataclasses import replace

import pytest

from helpers import every_split_agrees, seq_ids, stream_deltas, stream_events
from thinkgate import parse
from thinkgate.formats import DEEPSEEK_R1, DEEPSEEK_V3_1, get_format
from thinkgate.parsing import ToolCallInvalid, accumulate

R1 = DEEPSEEK_R1
V31 = DEEPSEEK_V3_1
T = R1.tools
T31 = V31.tools
CLOSE = R1.reasoning.close
OPEN = R1.reasoning.open
WEATHER = '{"city": "Paris", "days": 3}'
TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}},
    {"type": "function", "function": {"name": "now", "parameters": {"type": "object"}}},
]


def test_r1_forced_open_reasoning_then_two_calls():
    text = "The user wants weather.\n" + CLOSE + "\n\n" + T.section_text([("get_weather", WEATHER), ("now", "{}")])
    m = every_split_agrees(text, format="deepseek_r1")
    assert m.reasoning_content == "The user wants weather.\n"
    assert m.content is None
    assert [(c.name, c.arguments) for c in m.tool_calls] == [("get_weather", WEATHER), ("now", "{}")]
    assert [c.id for c in m.tool_calls] == ["call_0", "call_1"]
    assert m.finish_reason == "tool_calls"
    out = m.to_openai()
    assert out["tool_calls"][0] == {
        "id": "call_0",
        "type": "function",
        "function": {"name": "get_weather", "arguments": WEATHER},
    }
    assert out["reasoning_content"] == "The user wants weather.\n"


def test_v3_1_back_to_back_calls_thinking_off():
    text = "Checking." + T31.section_text([("get_weather", WEATHER), ("now", "{}")])
    m = every_split_agrees(text, format="deepseek_v3_1", thinking=False)
    assert m.reasoning_content is None
    assert m.content == "Checking."
    assert [(c.name, c.arguments) for c in m.tool_calls] == [("get_weather", WEATHER), ("now", "{}")]


def test_v3_1_thinking_on():
    text = "hmm" + CLOSE + T31.section_text([("now", "{}")])
    m = every_split_agrees(text, format="deepseekv31", thinking=True)
    assert m.reasoning_content == "hmm"
    assert m.tool_calls[0].name == "now"


def test_v3_0324_thinks_only_if_it_opens_think():
    m = every_split_agrees("  " + OPEN + "plan" + CLOSE + "answer", format="deepseek_v3")
    assert (m.reasoning_content, m.content) == ("plan", "answer")
    m = every_split_agrees("no thinking " + CLOSE + " here", format="deepseek_v3")
    assert m.reasoning_content is None
    assert m.content == "no thinking " + CLOSE + " here"


def test_r1_output_that_opens_think_again_is_not_doubled():
    m = every_split_agrees(OPEN + "\nthought" + CLOSE + "answer", format="deepseek_r1")
    assert (m.reasoning_content, m.content) == ("\nthought", "answer")


def test_no_close_marker_means_all_reasoning():
    m = every_split_agrees("still thinking about " + T.call_begin[:5], format="deepseek_r1")
    assert m.reasoning_content == "still thinking about " + T.call_begin[:5]
    assert m.content is None and m.tool_calls == []
    assert m.finish_reason == "stop"
    assert parse("thinking", finish_reason="length").finish_reason == "length"


def test_whitespace_between_think_and_tool_block_is_dropped():
    m = every_split_agrees("r" + CLOSE + "\n\n  \n" + T.section_text([("now", "{}")]))
    assert m.content is None
    assert m.tool_calls[0].name == "now"


def test_text_between_think_and_tool_block_is_content_and_calls_still_parsed():
    text = "r" + CLOSE + "\n\nI'll check the weather.\n\n" + T.section_text([("get_weather", WEATHER)])
    m = every_split_agrees(text)
    # the text as written, whitespace and all: only a stretch of nothing but whitespace between
    # markup is framing
    assert m.content == "\n\nI'll check the weather.\n\n"
    assert m.tool_calls[0].arguments == WEATHER
    strict = every_split_agrees(text, calls_after_content=False)
    assert strict.tool_calls == []
    assert strict.content.startswith("\n\nI'll check the weather.\n\n" + T.section_begin)
    assert strict.content.endswith(T.section_end)


def test_text_before_a_call_in_the_same_delta_is_kept():
    text = "r" + CLOSE + "Sure: " + T.section_text([("now", "{}")])
    events, parser = stream_events(["r" + CLOSE, text[len("r" + CLOSE) :]])
    assert parser.message.content == "Sure: "
    assert parser.message.tool_calls[0].name == "now"


def test_invalid_json_call_is_reported_with_its_text_and_valid_calls_beside_it_survive():
    bad = T.call_text("get_weather", '{"city": Paris}')
    text = "r" + CLOSE + T.section_begin + T.call_text("now", "{}") + "\n" + bad + "\n" + T.call_text("get_weather", WEATHER) + T.section_end
    m = every_split_agrees(text)
    assert [(c.name, c.arguments) for c in m.tool_calls] == [("now", "{}"), ("get_weather", WEATHER)]
    # its text lands in one place: the invalid calls (policy "report"), or the content ("content")
    assert m.content is None and [c.text for c in m.invalid_tool_calls] == [bad]
    assert "not valid JSON" in m.invalid_tool_calls[0].error and m.invalid_tool_calls[0].index == 1
    m = every_split_agrees(text, on_invalid_call="content")
    assert m.content == bad and m.invalid_tool_calls == []
    assert m.finish_reason == "tool_calls"


def test_drop_policy_logs_and_drops(caplog):
    bad = T.call_text("get_weather", "{oops")
    text = "r" + CLOSE + T.section_begin + bad + T.call_text("now", "{}") + T.section_end
    with caplog.at_level(logging.WARNING, logger="thinkgate.parsing"):
        m = parse(text, on_invalid_call="drop")
    assert m.content is None
    assert [c.name for c in m.tool_calls] == ["now"]
    assert "dropped an invalid tool call" in caplog.text


def test_strict_policy_ends_the_stream_with_an_error():
    bad = T.call_text("get_weather", '{"city": Paris}')
    text = "r" + CLOSE + T.section_begin + T.call_text("now", "{}") + bad + T.call_text("now", "{}") + T.section_end
    deltas, parser = stream_deltas(list(text), on_invalid_call="error")
    assert parser.finish_reason == "error"
    assert parser.error["type"] == "invalid_tool_call"
    assert "not valid JSON" in parser.error["message"]
    assert parser.error["tool_name"] == "get_weather"
    m = parse(text, on_invalid_call="error", call_id=seq_ids)
    assert m == parser.message
    assert [c.name for c in m.tool_calls] == ["now"]
    choice = m.to_openai_choice()
    assert choice["finish_reason"] == "error" and choice["error"] == parser.error


@pytest.mark.parametrize("format", ["deepseek_r1", "qwen3", "mistral", "mistral_json", "gpt_oss", "minimax_m2"])
def test_strict_policy_stops_at_a_call_to_an_unknown_tool(format):
    # The call is well formed to its end, so it is refused only when it closes: the stream must
    # stop there all the same, every call after it unread.
    from thinkgate.formats import get_format

    tools = get_format(format).tools
    calls = [("now", "{}"), ("launch_rocket", '{"go": true}'), ("now", "{}")]
    if tools.messages is not None:
        text = "".join(tools.call_text(n, a, i) for i, (n, a) in enumerate(calls))
    else:
        text = tools.section_text(calls)
    m = every_split_agrees(text, format=format, thinking=False, tools=TOOLS, on_invalid_call="error")
    assert m.finish_reason == "error"
    assert m.error["message"] == "unknown tool 'launch_rocket'"
    assert [c.name for c in m.tool_calls] == ["now"]


def test_unknown_tool_is_invalid_only_when_tools_are_given():
    text = "r" + CLOSE + T.section_text([("launch_rocket", '{"go": true}'), ("now", "{}")])
    m = every_split_agrees(text, tools=TOOLS)
    assert [c.name for c in m.tool_calls] == ["now"]
    assert m.invalid_tool_calls[0].error == "unknown tool 'launch_rocket'"
    assert m.invalid_tool_calls[0].text == T.call_text("launch_rocket", '{"go": true}') and m.content is None
    assert [c.name for c in parse(text).tool_calls] == ["launch_rocket", "now"]


def test_tool_markup_written_while_thinking_ends_the_reasoning_unless_turned_off():
    block = T.section_text([("get_weather", WEATHER)])
    text = "I will call " + block + " then done" + CLOSE + "ok"
    # the section's token ends the reasoning: the call is read; the text after it is reasoning
    # again where the reasoning's close follows (the model went on thinking), the answer after it
    m = every_split_agrees(text)
    assert m.reasoning_content == "I will call  then done"
    assert [(c.name, c.arguments) for c in m.tool_calls] == [("get_weather", WEATHER)]
    assert m.content == "ok"
    m = every_split_agrees("I will call " + block + " then done")
    assert (m.reasoning_content, m.content) == ("I will call ", " then done")
    # turned off per request, or per format: the block is reasoning text
    for kw in ({"recover_calls_in_reasoning": False}, {"format": replace(get_format("deepseek_r1"), calls_in_reasoning=False)}):
        off = every_split_agrees(text, **kw)
        assert off.reasoning_content == "I will call " + block + " then done"
        assert off.tool_calls == [] and off.content == "ok"


def test_cut_off_mid_call_gives_length_and_no_complete_call():
    full = "r" + CLOSE + T.section_text([("now", "{}"), ("get_weather", WEATHER)])
    cut = full[: full.index('"Paris"') + 3]
    m = every_split_agrees(cut)
    assert m.finish_reason == "length"
    assert [c.name for c in m.tool_calls] == ["now"]
    assert m.invalid_tool_calls[0].cut_off
    assert "ended inside a tool call" in m.invalid_tool_calls[0].error
    assert m.invalid_tool_calls[0].text.endswith('{"city": "Pa') and m.content is None
    # the engine's own finish reason wins when given
    assert parse(cut, finish_reason="length").finish_reason == "length"
    # cut inside the header
    m = parse(full[: full.index("get_weather") + 3])
    assert m.finish_reason == "length" and len(m.tool_calls) == 1


def test_marker_text_backticks_and_braces_inside_strings_do_not_end_a_call():
    args = json.dumps({"code": "x = {'a': 1}\n```\n" + T.call_end + T.section_end + "}"})
    text = "r" + CLOSE + T.section_text([("run", args), ("now", "{}")])
    m = every_split_agrees(text)
    assert [(c.name, c.arguments) for c in m.tool_calls] == [("run", args), ("now", "{}")]
    args31 = json.dumps({"s": T31.call_end + '"}'})
    m = every_split_agrees("r" + CLOSE + T31.section_text([("run", args31)]), format="deepseek_v3_1", thinking=True)
    assert m.tool_calls[0].arguments == args31


def test_unterminated_string_does_not_swallow_the_next_call():
    broken = T.call_begin + T.header_text("get_weather") + '{"city": "Par' + T.call_end
    text = "r" + CLOSE + T.section_begin + broken + "\n" + T.call_text("now", '{"tz": "UTC"}') + T.section_end
    m = every_split_agrees(text)
    assert [(c.name, c.arguments) for c in m.tool_calls] == [("now", '{"tz": "UTC"}')]
    assert [c.text for c in m.invalid_tool_calls] == [broken]
    # and when the broken string runs to the end of the output
    m = every_split_agrees("r" + CLOSE + T.section_begin + broken + " tail")
    assert m.tool_calls == []
    assert [c.text for c in m.invalid_tool_calls] == [broken] and m.content == " tail"


def test_arguments_stream_as_written_and_join_to_the_final_text():
    args = '{ "a" : [1, 2.5e-3, true, null, {"b": "\\u00e9\\n"}],\n  "c": -0 }'
    text = "r" + CLOSE + T.section_text([("f", args)])
    events, _ = stream_events(list(text))
    deltas = [e.text for e in events if type(e).__name__ == "ToolCallArgumentsDelta"]
    assert len(deltas) > 10
    assert "".join(deltas) == args


def test_calls_get_unique_ids_and_openai_indices():
    text = "r" + CLOSE + T.section_text([("now", "{}")] * 5)
    m = parse(text)
    ids = [c.id for c in m.tool_calls]
    assert len(set(ids)) == 5 and all(i.startswith("call_") and len(i) == 29 for i in ids)
    deltas, _ = stream_deltas([text])
    starts = [tc for d in deltas for tc in d.get("tool_calls", ()) if "id" in tc]
    assert [tc["index"] for tc in starts] == [0, 1, 2, 3, 4]


def test_streamed_deltas_accumulate_to_the_non_streamed_message():
    text = "Think " * 5 + CLOSE + "Answer first. " + T.section_text([("get_weather", WEATHER), ("now", "{}")])
    whole = parse(text, call_id=seq_ids).to_openai()
    for size in (1, 2, 5, 40):
        deltas, _ = stream_deltas([text[i : i + size] for i in range(0, len(text), size)])
        assert accumulate(deltas) == whole


def test_call_without_section_marker_and_missing_section_end():
    text = "r" + CLOSE + T.call_text("now", "{}")
    m = every_split_agrees(text)
    assert [c.name for c in m.tool_calls] == ["now"]
    assert m.finish_reason == "tool_calls"


def test_tolerated_header_and_footer_variants():
    variants = [
        T.call_begin + "function" + T.sep + "now ```json {}```" + T.call_end,
        T.call_begin + "function" + T.sep + "now\n```json\n{}" + T.call_end,  # footer left out
        T.call_begin + "function" + T.sep + "now\n\n```json\n\n{} \n ``` \n" + T.call_end,
    ]
    for v in variants:
        m = every_split_agrees("r" + CLOSE + T.section_begin + v + T.section_end)
        assert [(c.name, c.arguments) for c in m.tool_calls] == [("now", "{}")], v
        assert m.content is None


def test_header_that_does_not_match_is_an_invalid_call():
    bad = T.call_begin + "procedure" + T.sep + "now\n```json\n{}\n```" + T.call_end
    m = every_split_agrees("r" + CLOSE + T.section_begin + bad + T.call_text("now", "{}") + T.section_end)
    assert [c.name for c in m.tool_calls] == ["now"]
    assert m.invalid_tool_calls[0].text == bad and m.content is None
    assert "expected 'function'" in m.invalid_tool_calls[0].error
    empty = T.call_begin + "function" + T.sep + "\n```json\n{}\n```" + T.call_end
    m = parse("r" + CLOSE + empty)
    assert m.invalid_tool_calls[0].error == "the call header names no tool"


def test_stray_text_in_a_section_and_after_it_is_content():
    text = "r" + CLOSE + T.section_begin + T.call_text("now", "{}") + " oops " + T.call_text("now", "{}") + T.section_end + "\n\nDone."
    m = every_split_agrees(text)
    assert len(m.tool_calls) == 2
    assert m.content == " oops \n\nDone."


def test_text_after_a_complete_call_that_is_not_its_footer():
    text = "r" + CLOSE + T.section_begin + T.call_begin + T.header_text("now") + "{} trailing" + T.call_end + T.section_end
    m = every_split_agrees(text)
    assert [c.arguments for c in m.tool_calls] == ["{}"]
    assert m.content == " trailing"


def test_end_of_sentence_text_is_dropped():
    m = every_split_agrees("r" + CLOSE + "answer" + R1.eos)
    assert m.content == "answer"


def test_arguments_must_be_an_object():
    m = parse("r" + CLOSE + T.section_text([("now", "[1, 2]")]))
    assert m.tool_calls == []
    assert "must be a JSON object" in m.invalid_tool_calls[0].error


def test_marker_inside_arguments_outside_a_string_breaks_the_call():
    text = "r" + CLOSE + T.section_begin + T.call_begin + T.header_text("f") + '{"a": 1' + T.call_end + T.call_text("now", "{}") + T.section_end
    m = every_split_agrees(text)
    assert [c.name for c in m.tool_calls] == ["now"]
    assert "not valid JSON" in m.invalid_tool_calls[0].error or "before its arguments" in m.invalid_tool_calls[0].error


def test_next_call_begin_cuts_an_open_call():
    text = "r" + CLOSE + T.section_begin + T.call_begin + T.header_text("f") + '{"a": 1, ' + T.call_text("now", "{}") + T.section_end
    m = every_split_agrees(text)
    assert [c.name for c in m.tool_calls] == ["now"]
    assert m.invalid_tool_calls[0].text.startswith(T.call_begin)


def test_bad_options_are_rejected_by_name():
    with pytest.raises(ValueError, match="on_invalid_call"):
        parse("x", on_invalid_call="explode")
    with pytest.raises(ValueError, match="thinking"):
        parse("x", thinking="maybe")
    with pytest.raises(ValueError, match="reasoning_field"):
        parse("x", reasoning_field="thoughts")
    with pytest.raises(ValueError, match=r"tools\[0\]"):
        parse("x", tools=[{"type": "function"}])
    with pytest.raises(ValueError, match="no tokenizer"):
        parse("x", token_ids=[1, 2])


def test_feed_after_finish_is_an_error():
    from thinkgate import StreamParser

    p = StreamParser()
    p.finish()
    with pytest.raises(RuntimeError):
        p.feed("x")
    with pytest.raises(RuntimeError):
        p.finish()


def test_reasoning_field_option():
    m = parse("thought" + CLOSE + "answer")
    assert m.to_openai(reasoning_field="reasoning")["reasoning"] == "thought"
    assert "reasoning_content" not in m.to_openai(reasoning_field="reasoning")
    both = m.to_openai(reasoning_field="both")
    assert both["reasoning"] == both["reasoning_content"] == "thought"
    deltas, _ = stream_deltas(["thought", CLOSE + "answer"], reasoning_field="reasoning")
    assert deltas[0] == {"reasoning": "thought"}


def test_extensions_carry_the_streamed_chunks():
    text = "a" + CLOSE + T.section_text([("now", '{"x": 1}')])
    p_events, parser = stream_events(list(text))
    ext = parser.message.to_openai(extensions=True)["extensions"]
    assert ext["reasoning_chunks"] == ["a"]
    kinds = [c["type"] for c in ext["tool_call_chunks"]]
    assert kinds[0] == "start" and kinds[-1] == "end" and kinds.count("arguments") == len('{"x": 1}')
    assert "".join(c["delta"] for c in ext["tool_call_chunks"] if c["type"] == "arguments") == '{"x": 1}'


def test_invalid_event_is_emitted_for_started_calls():
    text = "r" + CLOSE + T.section_begin + T.call_begin + T.header_text("f") + '{"a": tru' + T.call_end
    events, _ = stream_events([text])
    inv = [e for e in events if isinstance(e, ToolCallInvalid)]
    assert inv[0].index == 0 and inv[0].name == "f" and not inv[0].cut_off


def test_output_ending_right_after_the_arguments_keeps_the_call():
    text = "r" + CLOSE + T.section_begin + T.call_begin + T.header_text("now") + "{}"
    m = every_split_agrees(text)
    assert [c.arguments for c in m.tool_calls] == ["{}"]
    assert m.finish_reason == "tool_calls"
    unknown = "r" + CLOSE + T.section_begin + T.call_begin + T.header_text("nope") + "{}\n``"
    m = every_split_agrees(unknown, tools=TOOLS)
    assert m.tool_calls == [] and m.invalid_tool_calls[0].text == T.call_begin + T.header_text("nope") + "{}\n``"


def test_v3_1_call_end_left_out_before_the_next_call():
    t = T31
    text = t.section_begin + t.call_begin + "now" + t.sep + "{}" + t.call_begin + "now" + t.sep + '{"a": 1}' + t.section_end
    m = every_split_agrees(text, format="deepseek_v3_1", thinking=False)
    assert [c.arguments for c in m.tool_calls] == ["{}", '{"a": 1}']


def test_overlong_tool_name_is_invalid():
    text = "r" + CLOSE + T.section_text([("x" * 300, "{}"), ("now", "{}")])
    m = every_split_agrees(text)
    assert [c.name for c in m.tool_calls] == ["now"]
    assert "longer than" in m.invalid_tool_calls[0].error


def test_reasoning_only_hands_the_answer_over_verbatim():
    answer = "\n\nSure: " + T.section_text([("now", "{}")]) + "\n"
    m = every_split_agrees("thinking" + CLOSE + answer, reasoning_only=True)
    assert (m.reasoning_content, m.content, m.tool_calls) == ("thinking", answer, [])


def test_a_broken_call_rolls_back_to_marker_text_met_in_its_string():
    """Found by the property tests: an unterminated key whose string swallows the next calls is
    rolled back to the first marker inside it, even when the JSON breaks only at a real marker."""
    t = T31
    broken = t.call_begin + "A" + t.sep + '{"'
    text = CLOSE + t.section_begin + broken + t.call_end + t.call_begin + "A" + t.sep + "{}" + t.call_end + broken + t.call_end + t.section_end
    m = every_split_agrees(text, format="deepseek_v3_1", thinking=True)
    assert [(c.name, c.arguments) for c in m.tool_calls] == [("A", "{}")]
    assert len(m.invalid_tool_calls) == 2


STRING_DAYS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "string"}, "on": {"type": "string", "format": "date"}},
    "required": ["city"], "additionalProperties": False}}}]


@pytest.mark.parametrize("format", ["deepseek_r1", "qwen3", "mistral_json", "llama3_json", "gpt_oss", "qwen3_coder"])
def test_with_tools_given_a_call_whose_arguments_break_its_schema_is_invalid(format):
    # The rule is the same whoever wrote the output: thinkgate's grammar or not.
    from thinkgate.formats import get_format

    tools = get_format(format).tools

    def output(arguments):
        calls = [("get_weather", arguments)]
        return "".join(tools.call_text(n, a) for n, a in calls) if tools.messages is not None else tools.section_text(calls)

    # (parameters written as text are typed by the schema: a 3 is the string "3" there)
    bad = output('{"city": "Paris", "days": 3}' if tools.xml is None else '{"days": "3"}')
    m = every_split_agrees(bad, format=format, thinking=False, tools=STRING_DAYS)
    assert m.tool_calls == [] and m.finish_reason == "stop"
    if tools.xml is None:
        assert m.invalid_tool_calls[0].error == "arguments do not match the schema of 'get_weather': 3 is not of type 'string' (at ['days'])"
    # (parameters: a key the schema refuses ends no value, so the reader names it first)
    extra = "the parameter 'x' is not one the tool takes" if tools.xml is not None else "Additional properties"
    for arguments, problem in [('{"days": "3"}', "'city' is a required property"), ('{"city": "Paris", "on": "tomorrow"}', "is not a 'date'"), ('{"city": "Paris", "x": "1"}', extra)]:
        m = every_split_agrees(output(arguments), format=format, thinking=False, tools=STRING_DAYS)
        assert m.tool_calls == [] and problem in m.invalid_tool_calls[0].error, (arguments, m.invalid_tool_calls)
    good = output('{"city": "Paris", "days": "3", "on": "2026-11-24"}')
    assert [c.name for c in every_split_agrees(good, format=format, thinking=False, tools=STRING_DAYS).tool_calls] == ["get_weather"]
    unchecked = parse(bad, format=format, thinking=False, tools=STRING_DAYS, validate_arguments=False)
    assert [c.name for c in unchecked.tool_calls] == ["get_weather"]


def test_a_call_that_breaks_its_schema_was_streamed_then_ends_invalid():
    text = "r" + CLOSE + T.section_text([("get_weather", '{"city": "Paris", "days": 3}'), ("get_weather", '{"city": "Oslo"}')])
    events, parser = stream_events(list(text), tools=STRING_DAYS)
    kinds = [type(e).__name__ for e in events if type(e).__name__.startswith("ToolCall")]
    assert kinds[0] == "ToolCallStart" and "ToolCallInvalid" in kinds and kinds[-1] == "ToolCallEnd"
    m = parser.message
    assert [c.arguments for c in m.tool_calls] == ['{"city": "Oslo"}'] and m.finish_reason == "tool_calls"


@pytest.mark.parametrize("text, reasoning", [
    ("<think><think>plan</think>ok", "plan"),
    ("<think>\n<think>\nplan</think>ok", "\nplan"),
    ("<think>\nplan <think> more</think>ok", "\nplan <think> more"),  # inside the reasoning: its text
    ("<think>\n\n</think>ok", "\n\n"),
])
def test_the_open_marker_repeated_at_the_start_is_markup(text, reasoning):
    m = every_split_agrees(text, format="deepseek_v3_1", thinking="auto")
    assert (m.reasoning_content, m.content) == (reasoning, "ok")


@pytest.mark.parametrize("text, content, calls", [
    # cut off before any call: the block is the text it was, its marker included
    ("Let me look that up." + T.section_begin + "get_weather", "Let me look that up." + T.section_begin + "get_weather", []),
    ("Hm." + T.section_begin + " nothing " + T.section_end + " ok", "Hm." + T.section_begin + " nothing " + T.section_end + " ok", []),
    ("Hm." + T.section_begin + R1.eos, "Hm." + T.section_begin, []),
    # a block that holds a call is markup; text in it beside the call is the answer's
    ("Hm. " + T.section_begin + " x " + T.call_text("now", "{}") + T.section_end, "Hm.  x ", ["now"]),
])
def test_a_tool_block_with_no_call_keeps_its_text(text, content, calls):
    m = every_split_agrees("r" + CLOSE + text)
    assert m.content == content and [c.name for c in m.tool_calls] == calls


def test_finish_reason_is_never_tool_calls_without_a_valid_call():
    # an engine that saw tool markup says "tool_calls"; the call was broken
    text = "r" + CLOSE + T.section_text([("get_weather", '{"city": Paris}')])
    assert parse(text, finish_reason="tool_calls").finish_reason == "stop"
    assert parse("r" + CLOSE + T.section_text([("now", "{}")]), finish_reason="tool_calls").finish_reason == "tool_calls"


def test_a_number_past_a_doubles_range_is_read_as_the_grammar_wrote_it(tokenizer):
    """The vLLM soak (tests/on_vllm/test_soak.py) met a random model writing ``6399E454``: JSON,
    and the grammar's, but Python reads it as infinity. It is read exactly (a whole number), so the
    call the grammar held is returned, valid; ``NaN`` (no JSON) still makes a call invalid."""
    from decimal import Decimal

    from thinkgate.constraint import ReasonerGrammar, compile_tool_grammar

    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}}}]
    for number, valid in (("6399E454", True), ("-1e999", True), ("1.5e308", True), ("2e+803339463880726349599033", True), ("NaN", False)):
        text = V31.tools.section_text([("f", f'{{"x": {number}}}')])
        held = ReasonerGrammar(compile_tool_grammar(tokenizer, "deepseek_v3_1", tools, "required"), thinking=False)
        assert held.accept_tokens(tokenizer.encode(text, add_special_tokens=False)) is valid
        message = parse(text, "deepseek_v3_1", thinking=False, tools=tools)
        assert [c.arguments for c in message.tool_calls] == ([f'{{"x": {number}}}'] if valid else [])
        assert len(message.invalid_tool_calls) == (0 if valid else 1)
    assert parse(V31.tools.section_text([("f", '{"x": 6399E454}')]), "deepseek_v3_1", thinking=False, tools=tools).tool_calls[0].parsed_arguments() == {"x": Decimal("6399E454")}
