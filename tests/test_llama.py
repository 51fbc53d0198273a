"""Llama 3.x JSON: no markers around calls. An answer that starts with a JSON call object is the
calls (joined by ``; ``); any other answer is text, ``{`` and all."""

import json
import zlib

import jsonschema
import pytest

from helpers import assert_guard_stops_one_past, every_split_agrees, inspect_example, walk
from schemas import weather_and_now
from test_constraint_sampling import check, sample_batch
from thinkgate import StreamParser, parse, thinking_from_prompt
from thinkgate.constraint import ReasonerGrammar, compile_tool_grammar
from thinkgate.formats import LLAMA3_JSON, get_format
from thinkgate.formats.llama import EOM, EOT, PYTHON_TAG

T = LLAMA3_JSON.tools
WEATHER = '{"city": "Paris", "note": "a }; {\\"name\\": x <|eot_id|>"}'
TOOLS = weather_and_now(3)


def test_the_names_serving_engines_use():
    for name in ("llama3_json", "llama3", "llama", "llama3.1", "llama3.2", "llama3.3"):
        assert get_format(name) is LLAMA3_JSON


@pytest.mark.parametrize("before", ["", "  \n", PYTHON_TAG, " " + PYTHON_TAG + " "])
@pytest.mark.parametrize("end", ["", EOT, EOM])
def test_an_answer_that_starts_with_a_call_object_is_the_calls(before, end):
    text = before + T.section_text([("get_weather", WEATHER), ("now", "{}")]) + end
    m = every_split_agrees(text, format="llama3_json")
    assert [(c.name, c.arguments) for c in m.tool_calls] == [("get_weather", WEATHER), ("now", "{}")]
    assert (m.content, m.reasoning_content, m.finish_reason) == (None, None, "tool_calls")


def test_an_answer_that_starts_with_text_is_text_braces_and_all():
    text = 'Send {"name": "now", "parameters": {}} to call it.' + EOT
    m = every_split_agrees(text, format="llama3_json")
    assert m.tool_calls == [] and m.content == 'Send {"name": "now", "parameters": {}} to call it.'


def test_text_after_the_calls_is_content_and_ends_the_calls():
    text = T.call_text("now", "{}") + ' Done; {"name": "now", "parameters": {}}'
    m = every_split_agrees(text, format="llama3_json")
    assert [c.name for c in m.tool_calls] == ["now"]
    assert m.content == ' Done; {"name": "now", "parameters": {}}'


def test_a_broken_call_runs_to_the_end_and_the_calls_before_it_stand():
    # No end marker bounds a broken call: the rest of the answer is its text.
    text = T.call_text("now", "{}") + "; " + '{"name": "get_weather", "parameters": {"city": Paris}}; ' + T.call_text("now", "{}")
    m = every_split_agrees(text, format="llama3_json")
    assert [c.name for c in m.tool_calls] == ["now"]
    assert "not valid JSON" in m.invalid_tool_calls[0].error and not m.invalid_tool_calls[0].cut_off
    assert m.invalid_tool_calls[0].text == text[text.index('{"name": "get_weather"') :]
    assert m.content is None and m.finish_reason == "tool_calls"


def test_an_unknown_tool_and_a_cut_off_call():
    m = every_split_agrees(T.call_text("launch", "{}"), format="llama3_json", tools=TOOLS)
    assert m.tool_calls == [] and m.invalid_tool_calls[0].error == "unknown tool 'launch'"
    m = every_split_agrees(T.call_text("now", "{}")[:-2], format="llama3_json")
    assert m.tool_calls == [] and m.invalid_tool_calls[0].cut_off and m.finish_reason == "length"


def test_with_token_ids_a_spelled_out_python_tag_is_text(llama_tokenizer):
    call = T.call_text("now", "{}")
    real = llama_tokenizer.encode(PYTHON_TAG + call, add_special_tokens=False)
    assert real[0] == llama_tokenizer.convert_tokens_to_ids(PYTHON_TAG)
    m = parse(PYTHON_TAG + call, format="llama3_json", token_ids=real, tokenizer=llama_tokenizer)
    assert [c.name for c in m.tool_calls] == ["now"]
    spelled = [i for piece in ("<|", "python_tag|>", call) for i in llama_tokenizer.encode(piece, add_special_tokens=False)]
    text = llama_tokenizer.decode(spelled)
    m = parse(text, format="llama3_json", token_ids=spelled, tokenizer=llama_tokenizer)
    assert m.tool_calls == [] and m.content == text


def test_a_model_that_does_not_think(llama_tokenizer):
    with pytest.raises(ValueError, match="does not think"):
        StreamParser("llama3_json", thinking=True)
    # "auto" means the model may open reasoning; Llama has no marker to open it with
    assert parse("Hi.", format="llama3_json", thinking="auto").content == "Hi."
    prompt = llama_tokenizer.encode("<|start_header_id|>assistant<|end_header_id|>\n\n", add_special_tokens=False)
    assert thinking_from_prompt(prompt, llama_tokenizer, "llama3_json") is False
    grammar = compile_tool_grammar(llama_tokenizer, "llama3_json", TOOLS, "required")
    with pytest.raises(ValueError, match="does not think"):
        ReasonerGrammar(grammar, thinking=True)
    assert ReasonerGrammar(grammar, thinking="auto").thinking is False




@pytest.mark.parametrize("choice", ["required", "auto"])
def test_the_grammar_takes_calls_joined_by_the_separator_then_the_end(llama_tokenizer, choice):
    grammar = compile_tool_grammar(llama_tokenizer, "llama3_json", TOOLS, choice)
    g, ok = walk(grammar, llama_tokenizer, T.section_text([("get_weather", '{"city": "Rom", "note": "a } b"}'), ("now", "{}")]))
    assert ok and g.accept_token(grammar.stop_ids[0]) and g.is_terminated()
    # python_tag is a control token: never generated under the grammar
    g = ReasonerGrammar(grammar, thinking=False)
    assert not g.accept_token(llama_tokenizer.convert_tokens_to_ids(PYTHON_TAG))


def test_under_auto_the_first_character_decides(llama_tokenizer):
    grammar = compile_tool_grammar(llama_tokenizer, "llama3_json", TOOLS, "auto")
    g, ok = walk(grammar, llama_tokenizer, 'It is sunny {"name": "now"} and warm.')
    assert ok and not g.accept_token(llama_tokenizer.convert_tokens_to_ids(PYTHON_TAG))
    g, ok = walk(grammar, llama_tokenizer, 'It is sunny {"name": "now"} and warm.')
    assert ok and g.accept_token(grammar.stop_ids[0])
    g, ok = walk(grammar, llama_tokenizer, '{"name": "launch"')  # a brace first: a call, of a known tool
    assert not ok
    g, ok = walk(grammar, llama_tokenizer, "")
    assert g.accept_token(grammar.stop_ids[0])  # an empty answer


def test_required_refuses_text_and_single_call_refuses_a_second(llama_tokenizer):
    grammar = compile_tool_grammar(llama_tokenizer, "llama3_json", TOOLS, "required")
    assert not walk(grammar, llama_tokenizer, "Sure")[1]
    single = compile_tool_grammar(llama_tokenizer, "llama3_json", TOOLS, "required", parallel_tool_calls=False)
    g, ok = walk(single, llama_tokenizer, T.call_text("now", "{}"))
    assert ok and not g.accept_tokens(llama_tokenizer.encode("; ", add_special_tokens=False))




@pytest.mark.parametrize("before", ["", T.call_text("now", "{}") + "; "])
def test_the_guard_bounds_strings_in_calls_that_have_no_markers(llama_tokenizer, before):
    # maxLength 3 is the guard's (xgrammar gets plain strings): it finds a call by its "{", the
    # first one at the answer's start and the next after the separator
    grammar = compile_tool_grammar(llama_tokenizer, "llama3_json", TOOLS, "required")
    g, ok = walk(grammar, llama_tokenizer, before + '{"name": "get_weather", "parameters": {"city": "Ro')
    assert ok
    assert_guard_stops_one_past(g, llama_tokenizer, grammar.vocab.size)


def test_random_sampling_gives_valid_calls_several_of_them_in_turn(llama_tokenizer):
    samples = sample_batch(llama_tokenizer, "llama3_json", "required", "off", n=12, seed=zlib.crc32(b"llama-parallel"))
    verdicts = check(llama_tokenizer, "llama3_json", "required", "off", samples)
    assert set(verdicts) <= {"valid", "unterminated"} and verdicts["valid"] >= 10, verdicts
    counts = []
    for ids, g in samples:
        if g.is_terminated():
            text = llama_tokenizer.decode(ids[:-1])
            counts.append(len(parse(text, format="llama3_json").tool_calls))
    assert max(counts) >= 2  # the separator and the guard's second call are exercised


def test_inspect_shows_a_call_object_the_grammar_accepts(tmp_path, capsys, llama_tokenizer):
    out, shown = inspect_example(tmp_path, capsys, "llama3", TOOLS)
    assert "# the grammar accepts it, token by token: yes" in out  # (the DeepSeek vocabulary, by default)
    call = json.loads(shown.split("; ")[0])
    assert call["name"] == "get_weather"
    jsonschema.validate(call["parameters"], TOOLS[0]["function"]["parameters"])
    grammar = compile_tool_grammar(llama_tokenizer, "llama3_json", TOOLS, "required")
    g, ok = walk(grammar, llama_tokenizer, shown)
    assert ok and g.accept_token(grammar.stop_ids[0])


def test_arguments_written_under_the_key_other_formats_use_are_read():
    # vLLM tests/tool_parsers/test_llama3_json_tool_parser.py (with_arguments_key) and SGLang's
    # Llama detector read {"name", "arguments"} as a call, as thinkgate now does; the grammar
    # writes only "parameters", and the arguments given twice make the call invalid
    text = '{"name": "now", "arguments": {"tz": "UTC"}}; ' + T.call_text("now", "{}")
    m = every_split_agrees(text, format="llama3_json")
    assert [(c.name, c.arguments) for c in m.tool_calls] == [("now", '{"tz": "UTC"}'), ("now", "{}")] and m.content is None
    twice = every_split_agrees('{"name": "now", "parameters": {}, "arguments": {}}', format="llama3_json")
    assert twice.tool_calls == [] and "holds its arguments twice" in twice.invalid_tool_calls[0].error
