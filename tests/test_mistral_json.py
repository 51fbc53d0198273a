"""Mistral before tokenizer v11 (7B v0.3, Nemo, Small 2409-2501): one ``[TOOL_CALLS]``, then a
JSON array of ``{"name", "arguments"}`` objects."""

import json
import zlib

import jsonschema
import pytest

from helpers import assert_guard_stops_one_past, detokenize_stream, every_split_agrees, group, inspect_example, normalise, seq_ids, stream_events, walk
from schemas import weather_and_now
from test_constraint_sampling import check, sample_batch
from thinkgate import StreamParser, parse
from thinkgate.constraint import compile_tool_grammar
from thinkgate.formats import MISTRAL_JSON, get_format

T = MISTRAL_JSON.tools
WEATHER = '{"city": "Paris", "note": "[TOOL_CALLS] and ] or }, { in a string"}'
TOOLS = weather_and_now(3)


def test_the_names_serving_engines_use():
    assert get_format("mistral_nemo") is MISTRAL_JSON and get_format("mistral_v3") is MISTRAL_JSON
    assert T.section_text([("now", "{}"), ("now", '{"a": 1}')]) == '[TOOL_CALLS][{"name": "now", "arguments": {}}, {"name": "now", "arguments": {"a": 1}}]'


@pytest.mark.parametrize("space", ["", " ", "\n "])
@pytest.mark.parametrize("after", ["", "</s>", " All done."])
def test_the_array_holds_the_calls_and_text_around_it_is_content(after, space):
    # (Nemo's tekken tokenizer writes "[TOOL_CALLS][", 7B v0.3's sentencepiece one "[TOOL_CALLS] [")
    text = "Checking. " + T.section_text([("get_weather", WEATHER), ("now", "{}")]).replace("[{", space + "[{", 1) + after
    m = every_split_agrees(text, format="mistral_json")
    assert [(c.name, c.arguments) for c in m.tool_calls] == [("get_weather", WEATHER), ("now", "{}")]
    assert (m.reasoning_content, m.finish_reason) == (None, "tool_calls")
    assert m.content == "Checking. " + (after if after != "</s>" else "")  # as written


def test_arguments_stream_as_written_and_the_ids_are_nine_letters_and_digits():
    text = T.section_text([("get_weather", WEATHER), ("now", "{}")])
    parser = StreamParser("mistral_json", tools=weather_and_now(8))  # (a city of 3 would break the schema)
    deltas = [d for i in range(0, len(text), 4) for d in parser.feed(text[i : i + 4])] + parser.finish()
    calls = [tc for d in deltas for tc in d.get("tool_calls", [])]
    joined = {}
    for tc in calls:
        joined[tc["index"]] = joined.get(tc["index"], "") + tc["function"].get("arguments", "")
    assert joined == {0: WEATHER, 1: "{}"}
    ids = [c.id for c in parser.message.tool_calls]
    assert all(len(i) == 9 and i.isalnum() for i in ids) and len(set(ids)) == 2


def test_the_id_an_item_carries_is_the_call_id_and_other_keys_are_read_past():
    # Issue 15, point 2: the v3/v7 templates write each call's id after its arguments
    # ({"name": …, "arguments": …, "id": "a1B2c3D4e"}), and models write it back so. An id the
    # template would refuse (not nine letters and digits) gets a fresh one.
    text = '[TOOL_CALLS] [{"name": "now", "arguments": {}, "id": "a1B2c3D4e"},{"id": "x", "name": "get_weather", "arguments": {"city": "Rom"}, "v": 1}]'
    m = every_split_agrees(text, format="mistral_json")
    assert [(c.name, c.arguments) for c in m.tool_calls] == [("now", "{}"), ("get_weather", '{"city": "Rom"}')]
    assert [c.id for c in m.tool_calls] == ["a1B2c3D4e", "call_1"]  # (the test helper numbers fresh ids)
    # the call streams once its object has closed, its first delta carrying that id
    p = StreamParser("mistral_json")
    deltas = [d for ch in (text[:60], text[60:]) for d in p.feed(ch)] + p.finish()
    assert deltas[0]["tool_calls"][0]["id"] == "a1B2c3D4e" and deltas[0]["tool_calls"][0]["function"]["arguments"] == "{}"
    # an id the model repeats is not the second call's too
    twice = T.section_begin + T.array[0] + T.call_object("now", "{}", "a1B2c3D4e") + ", " + T.call_object("now", "{}", "a1B2c3D4e") + T.array[1]
    ids = [c.id for c in every_split_agrees(twice, format="mistral_json").tool_calls]
    assert ids == ["a1B2c3D4e", "call_1"]


def test_a_broken_item_runs_to_the_end_and_the_items_before_it_stand():
    bad = '{"name": "now", "arguments": {"a": oops}}, ' + T.call_object("now", "{}") + "]"
    text = T.section_begin + T.array[0] + T.call_object("get_weather", WEATHER) + ", " + bad
    m = every_split_agrees(text, format="mistral_json")
    assert [c.name for c in m.tool_calls] == ["get_weather"]
    assert m.invalid_tool_calls[0].text == bad and "not valid JSON" in m.invalid_tool_calls[0].error
    assert m.content is None  # its text is in one place


def test_an_unknown_tool_in_the_array_is_invalid_and_the_others_stand():
    text = T.section_text([("launch", '{"go": true}'), ("now", "{}")])
    m = every_split_agrees(text, format="mistral_json", tools=TOOLS)
    assert [c.name for c in m.tool_calls] == ["now"]
    assert m.invalid_tool_calls[0].error == "unknown tool 'launch'"
    strict = parse(text, format="mistral_json", tools=TOOLS, on_invalid_call="error")
    assert strict.finish_reason == "error" and strict.tool_calls == []


@pytest.mark.parametrize(
    "text, content",
    [
        # a block that holds no call is the text it was, its marker included
        ("[TOOL_CALLS]get_weather[ARGS]{}", "[TOOL_CALLS]get_weather[ARGS]{}"),  # the other Mistral layout
        ('[TOOL_CALLS] [{"name": "now", "arguments": {}} {"name": "now"}]', ' {"name": "now"}]'),
        ("[TOOL_CALLS] [] then text", "[TOOL_CALLS] [] then text"),
        ('[TOOL_CALLS][TOOL_CALLS] [{"name": "now", "arguments": {}}]', "[TOOL_CALLS]"),
    ],
)
def test_what_is_not_an_array_of_calls_is_text(text, content):
    m = every_split_agrees(text, format="mistral_json")
    assert m.content == content
    assert len(m.tool_calls) == (1 if '"arguments"' in text else 0)


def test_token_id_deltas_on_the_real_tokenizer_give_the_text_result(mistral_json_tokenizer):
    tok = mistral_json_tokenizer
    args = [json.dumps({"city": "São Paulo", "units": {"temp": "°C", "n": [1, 2.5, None]}}, ensure_ascii=False), '{"note": "中文 😀 ], {"}', "{}"]
    text = "Sure, calling tools.\n" + T.section_text([("get_weather", args[0]), ("run", args[1]), ("now", args[2])]) + "</s>"
    ids = tok.encode(text, add_special_tokens=False)
    per_token = detokenize_stream(tok, ids)
    assert "".join(t for t, _ in per_token) == text
    expected = parse(text, format="mistral_json", call_id=seq_ids)
    assert [c.arguments for c in expected.tool_calls] == args and expected.content == "Sure, calling tools.\n"
    ref = None
    for deltas in (per_token, group(per_token, 4), group(per_token, 7), [(text, ids)]):
        events, parser = stream_events(deltas, format="mistral_json", tokenizer=tok)
        assert parser.message == expected
        ref = ref or normalise(events)
        assert normalise(events) == ref


def test_with_token_ids_the_marker_spelled_in_ordinary_tokens_is_text(mistral_json_tokenizer):
    tok = mistral_json_tokenizer
    spelled = tok.encode("[", add_special_tokens=False) + tok.encode("TOOL_CALLS]", add_special_tokens=False)
    assert tok.convert_tokens_to_ids(T.section_begin) not in spelled
    ids = tok.encode("Write ", add_special_tokens=False) + spelled + tok.encode('[{"name": "now", "arguments": {}}]', add_special_tokens=False)
    _, parser = stream_events(detokenize_stream(tok, ids), format="mistral_json", tokenizer=tok)
    assert parser.message.tool_calls == [] and parser.message.content == 'Write [TOOL_CALLS][{"name": "now", "arguments": {}}]'


def test_a_call_cut_off_is_not_complete_and_the_one_before_it_stands():
    text = T.section_text([("now", "{}"), ("get_weather", WEATHER)])[:-9]
    m = every_split_agrees(text, format="mistral_json", finish_reason="length")
    assert [c.name for c in m.tool_calls] == ["now"] and m.finish_reason == "length"
    assert m.invalid_tool_calls[0].cut_off




@pytest.mark.parametrize("choice", ["required", "auto"])
def test_the_grammar_takes_the_array_then_the_end(mistral_json_tokenizer, choice):
    tok = mistral_json_tokenizer
    grammar = compile_tool_grammar(tok, "mistral_json", TOOLS, choice)
    text = T.section_text([("get_weather", '{"city": "Rom", "note": "a ] b"}'), ("now", "{}")])
    for spelled in (text, text.replace("[{", " [{", 1)):  # the tokenizer's space before "[" or none
        g, ok = walk(grammar, tok, spelled)
        assert ok and g.accept_token(grammar.stop_ids[0]) and g.is_terminated()
    # after the array only the end: a second array is refused
    g, ok = walk(grammar, tok, T.section_text([("now", "{}")]))
    assert ok and not g.accept_token(tok.convert_tokens_to_ids(T.section_begin))
    # the marker must open the array
    assert not walk(grammar, tok, T.section_begin + '{"name": "now", "arguments": {}}')[1]


def test_auto_allows_text_first_and_single_call_refuses_a_second(mistral_json_tokenizer):
    tok = mistral_json_tokenizer
    grammar = compile_tool_grammar(tok, "mistral_json", TOOLS, "auto")
    g, ok = walk(grammar, tok, "Let me check. " + T.section_text([("now", "{}")]))
    assert ok and g.accept_token(grammar.stop_ids[0])
    single = compile_tool_grammar(tok, "mistral_json", TOOLS, "required", parallel_tool_calls=False)
    one = T.section_begin + T.array[0] + T.call_object("now", "{}")
    assert not walk(single, tok, one + ", ")[1]
    g, ok = walk(single, tok, one + T.array[1])
    assert ok and g.accept_token(single.stop_ids[0])




@pytest.mark.parametrize("before", ["", T.call_object("now", "{}") + ", "])
def test_the_guard_bounds_strings_of_every_item(mistral_json_tokenizer, before):
    # maxLength 3 is the guard's: after the section marker it finds each item by its "{"
    tok = mistral_json_tokenizer
    grammar = compile_tool_grammar(tok, "mistral_json", TOOLS, "auto")
    g, ok = walk(grammar, tok, "Hi " + T.section_begin + T.array[0] + before + '{"name": "get_weather", "arguments": {"city": "Ro')
    assert ok
    assert_guard_stops_one_past(g, tok, grammar.vocab.size)


def test_random_sampling_gives_valid_arrays_of_several_calls(mistral_json_tokenizer):
    tok = mistral_json_tokenizer
    samples = sample_batch(tok, "mistral_json", "required", "off", n=12, seed=zlib.crc32(b"mistral-array"))
    verdicts = check(tok, "mistral_json", "required", "off", samples)
    assert set(verdicts) <= {"valid", "unterminated"} and verdicts["valid"] >= 10, verdicts
    counts = [len(parse(tok.decode(ids[:-1]), format="mistral_json").tool_calls) for ids, g in samples if g.is_terminated()]
    assert max(counts) >= 2  # the separator and the guard's second item are exercised


def test_inspect_shows_an_array_the_grammar_accepts(tmp_path, capsys, mistral_json_tokenizer):
    _, shown = inspect_example(tmp_path, capsys, "mistral_json", TOOLS)
    assert shown.startswith(T.section_begin + T.array[0])
    calls = json.loads(shown[len(T.section_begin) :])
    assert calls[0]["name"] == "get_weather"
    jsonschema.validate(calls[0]["arguments"], TOOLS[0]["function"]["parameters"])
    grammar = compile_tool_grammar(mistral_json_tokenizer, "mistral_json", TOOLS, "required")
    g, ok = walk(grammar, mistral_json_tokenizer, shown)
    assert ok and g.accept_token(grammar.stop_ids[0])
