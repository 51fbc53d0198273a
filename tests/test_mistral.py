"""Mistral: ``[TOOL_CALLS]NAME[ARGS]{…}`` per call, and no end marker — a call ends where its
JSON object closes."""

import pytest

from helpers import every_split_agrees
from schemas import weather_and_now
from thinkgate.constraint import ReasonerGrammar, compile_tool_grammar
from thinkgate.formats import MISTRAL

T = MISTRAL.tools
WEATHER = '{"city": "Paris", "note": "[TOOL_CALLS] and } in a string"}'
TOOLS = weather_and_now(12)


def test_calls_end_with_their_json_and_text_after_them_is_content():
    text = "[THINK]plan[/THINK]Checking." + T.section_text([("get_weather", WEATHER), ("now", "{}")]) + " Done."
    m = every_split_agrees(text, format="mistral", thinking="auto")
    assert [(c.name, c.arguments) for c in m.tool_calls] == [("get_weather", WEATHER), ("now", "{}")]
    assert (m.reasoning_content, m.content, m.finish_reason) == ("plan", "Checking. Done.", "tool_calls")


def test_a_broken_call_spares_the_next_one():
    text = T.call_text("get_weather", '{"city": Paris}') + T.call_text("now", "{}")
    m = every_split_agrees(text, format="mistral", thinking=False)
    assert [c.name for c in m.tool_calls] == ["now"]
    assert "not valid JSON" in m.invalid_tool_calls[0].error


def test_a_call_cut_off_is_not_complete():
    m = every_split_agrees(T.call_text("get_weather", WEATHER)[:-3], format="mistral", thinking=False, finish_reason="length")
    assert m.tool_calls == [] and m.finish_reason == "length"


@pytest.mark.parametrize("choice", ["required", "auto"])
def test_the_grammar_takes_back_to_back_calls_then_the_end(mistral_tokenizer, choice):
    grammar = compile_tool_grammar(mistral_tokenizer, "mistral", TOOLS, choice)
    # (marker text inside a string would be encoded as the marker token, which the grammar refuses)
    args = '{"city": "Paris", "note": "a } b"}'
    ids = mistral_tokenizer.encode(T.section_text([("get_weather", args), ("now", "{}")]), add_special_tokens=False)
    g = ReasonerGrammar(grammar, thinking=False)
    assert g.accept_tokens(ids)
    assert g.accept_token(grammar.stop_ids[0]) and g.is_terminated()
    # the [TOOL_CALLS] token cannot stand inside the arguments' string
    g = ReasonerGrammar(grammar, thinking=False)
    start = mistral_tokenizer.encode(T.call_begin + "get_weather" + T.sep + '{"city": "', add_special_tokens=False)
    assert g.accept_tokens(start)
    assert not g.accept_token(mistral_tokenizer.convert_tokens_to_ids(T.call_begin))


def test_a_call_id_the_model_writes_becomes_the_call_id():
    text = "[TOOL_CALLS]get_weather[CALL_ID]a1B2c3D4e[ARGS]" + WEATHER + T.call_text("now", "{}")
    m = every_split_agrees(text, format="mistral", thinking=False)
    assert [(c.id, c.name, c.arguments) for c in m.tool_calls] == [("a1B2c3D4e", "get_weather", WEATHER), ("call_1", "now", "{}")]
    # an id marker with no id, or a misspelt one, makes the call invalid
    for bad in ("[TOOL_CALLS]get_weather[CALL_ID][ARGS]{}", "[TOOL_CALLS]get_weather[CALL_IX]a[ARGS]{}"):
        m = every_split_agrees("Hi" + bad + T.call_text("now", "{}"), format="mistral", thinking=False)
        assert [c.name for c in m.tool_calls] == ["now"] and m.content == "Hi" and m.invalid_tool_calls[0].text == bad


def test_call_id_read_from_token_ids(mistral_tokenizer):
    from helpers import detokenize_stream, stream_events

    text = "[TOOL_CALLS]now[CALL_ID]abc123XYZ[ARGS]{}"
    ids = mistral_tokenizer.encode(text, add_special_tokens=False)
    assert mistral_tokenizer.convert_tokens_to_ids("[CALL_ID]") in ids
    _, parser = stream_events(detokenize_stream(mistral_tokenizer, ids), format="mistral", thinking=False, tokenizer=mistral_tokenizer)
    assert [(c.id, c.name) for c in parser.message.tool_calls] == [("abc123XYZ", "now")]


def test_the_grammar_never_has_the_model_write_a_call_id(mistral_tokenizer):
    grammar = compile_tool_grammar(mistral_tokenizer, "mistral", TOOLS, "required")
    g = ReasonerGrammar(grammar, thinking=False)
    assert g.accept_tokens(mistral_tokenizer.encode(T.call_begin + "now", add_special_tokens=False))
    assert not g.accept_token(mistral_tokenizer.convert_tokens_to_ids("[CALL_ID]"))


def test_ids_thinkgate_makes_are_nine_letters_and_digits_as_the_templates_require():
    from thinkgate import parse

    m = parse(T.call_text("now", "{}") * 3, format="mistral", thinking=False)
    ids = [c.id for c in m.tool_calls]
    assert len(set(ids)) == 3 and all(len(i) == 9 and i.isalnum() for i in ids)
    # a call_id function given still wins
    assert parse(T.call_text("now", "{}"), format="mistral", thinking=False, call_id=lambda i: f"x{i}").tool_calls[0].id == "x0"
