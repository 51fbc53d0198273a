"""Qwen3-Coder and GLM-4.5/4.6: calls whose arguments are written as parameters, a string as
its bare text. The parser types each value by the tool's schema; the grammar is xgrammar's XML
style for the format, the schema's bounds included."""

import json
import re
import zlib

import jsonschema
import pytest
import xgrammar as xgr
from xgrammar.testing import _is_grammar_accept_string as _accepts

from helpers import every_split_agrees
from test_constraint_sampling import check, sample_batch
from thinkgate import StreamParser, parse
from thinkgate.constraint import ReasonerGrammar, compile_tool_grammar
from thinkgate.constraint.runtime.vocabulary import vocabulary_for
from thinkgate.formats import GLM45, MINIMAX_M2, QWEN3_CODER, get_format

WEATHER_SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "maxLength": 8},
        "zip": {"type": "string"},
        "days": {"type": "integer"},
        "hourly": {"type": "boolean"},
        "units": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "at": {"type": "array", "items": {"type": "number"}},
    },
    "required": ["city"],
}
TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": WEATHER_SCHEMA}},
    {"type": "function", "function": {"name": "now", "parameters": {"type": "object", "properties": {}}}},
]
XML_FORMATS = [QWEN3_CODER, GLM45, MINIMAX_M2]


def test_the_names_serving_engines_use():
    assert get_format("qwen3_coder") is QWEN3_CODER and get_format("qwen3coder") is QWEN3_CODER
    for name in ("glm45", "glm4_moe", "glm", "glm4.6"):
        assert get_format(name) is GLM45


def test_the_documented_layouts():
    call = [("get_weather", '{"city": "Paris", "days": 3}')]
    assert QWEN3_CODER.tools.section_text(call) == (
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
        "<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>"
    )
    assert GLM45.tools.section_text(call) == (
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n"
        "<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>"
    )
    # as MiniMax-M2's template writes it (its tool markup is text, not special tokens)
    assert MINIMAX_M2.tools.section_text(call) == (
        '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n'
        '<parameter name="days">3</parameter>\n</invoke>\n</minimax:tool_call>'
    )


@pytest.mark.parametrize("fmt", XML_FORMATS, ids=lambda f: f.name)
def test_values_are_typed_by_the_schema(fmt):
    # "75001" and "true" are strings where the schema says string, JSON where it says otherwise
    args = {"city": "true", "zip": "75001", "days": 3, "hourly": False, "units": None, "at": [1.5, 2]}
    text = "Checking.\n" + fmt.tools.section_text([("get_weather", json.dumps(args)), ("now", "{}")]) + fmt.eos
    m = every_split_agrees(text, format=fmt, tools=TOOLS, thinking=False)
    assert m.content == "Checking.\n" and [c.name for c in m.tool_calls] == ["get_weather", "now"]
    assert json.loads(m.tool_calls[0].arguments) == args and m.tool_calls[1].arguments == "{}"
    # without the tools nothing types a value: each is the text written, as vLLM and SGLang keep it
    m = every_split_agrees(text, format=fmt, thinking=False)
    assert json.loads(m.tool_calls[0].arguments) == {**args, "days": "3", "hourly": "false", "units": "null", "at": "[1.5, 2]"}


@pytest.mark.parametrize("fmt", XML_FORMATS, ids=lambda f: f.name)
def test_a_value_no_schema_types_is_its_text(fmt):
    # a key the schema does not list, and a property whose schema names no type: the text written
    # (vLLM's parsers coerce only where the schema names a type); a typed property stays JSON
    tool = {"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {"any": {"description": "anything"}, "n": {"type": "integer"}}, "additionalProperties": True}}}
    args = '{"any": 10, "n": 10, "extra": true}'
    text = fmt.tools.section_text([("f", args)]) + fmt.eos
    m = every_split_agrees(text, format=fmt, tools=[tool], thinking=False)
    assert json.loads(m.tool_calls[0].arguments) == {"any": "10", "n": 10, "extra": "true"}


@pytest.mark.parametrize("fmt", XML_FORMATS, ids=lambda f: f.name)
def test_arguments_stream_a_parameter_at_a_time(fmt):
    text = fmt.tools.section_text([("get_weather", '{"city": "Lyon", "days": 2}')])
    parser = StreamParser(fmt, tools=TOOLS, thinking=False)
    deltas = [d for piece in text for d in parser.feed(piece)]
    args = [tc["function"]["arguments"] for d in deltas for tc in d.get("tool_calls", []) if tc["function"].get("arguments")]
    # a value is known to have ended when what can follow a parameter does: the next one's tag,
    # or the end of the call (so the last parameter comes out with the object's close)
    assert args == ['{"city": "Lyon"', ', "days": 2}']


@pytest.mark.parametrize("fmt", XML_FORMATS, ids=lambda f: f.name)
def test_a_value_with_markup_text_and_newlines_is_kept_whole(fmt):
    value = "a <b> c\n</d>\n e"
    text = fmt.tools.section_text([("get_weather", json.dumps({"city": "Oslo", "zip": value}))])
    m = every_split_agrees(text, format=fmt, tools=TOOLS, thinking=False)
    assert json.loads(m.tool_calls[0].arguments) == {"city": "Oslo", "zip": value}


@pytest.mark.parametrize("fmt", XML_FORMATS, ids=lambda f: f.name)
@pytest.mark.parametrize(
    ("body", "error"),
    [
        ("{key_open}city{key_close}{mid}x{value_close}\n{key_open}city{key_close}{mid}y{value_close}\n", "given twice"),
        ("{key_open}ci ty{key_close}{mid}x{value_close}\n", "invalid parameter name"),
        ("{key_open}city{key_close}{mid}x", "has no closing tag"),
    ],
)
def test_unreadable_parameters_make_the_call_invalid_and_spare_the_next(fmt, body, error):
    xml = fmt.tools.xml
    mid = xml.between + xml.value_open + xml.padding
    bad = fmt.tools.call_begin + fmt.tools.header_text("get_weather") + body.format(key_open=xml.key_open, key_close=xml.key_close, mid=mid, value_close=xml.value_close) + fmt.tools.footer + fmt.tools.call_end
    text = bad + "\n" + fmt.tools.call_text("now", "{}")
    m = every_split_agrees(text, format=fmt, tools=TOOLS, thinking=False)
    assert [c.name for c in m.tool_calls] == ["now"]
    assert error in m.invalid_tool_calls[0].error and m.invalid_tool_calls[0].text == bad and m.content is None


@pytest.mark.parametrize("fmt", XML_FORMATS, ids=lambda f: f.name)
def test_a_call_cut_off_mid_parameter(fmt):
    text = fmt.tools.section_text([("get_weather", '{"city": "Paris"}')])
    cut = text[: text.index("Paris") + 3]
    m = every_split_agrees(cut, format=fmt, tools=TOOLS, thinking=False)
    assert m.tool_calls == [] and m.invalid_tool_calls[0].cut_off and m.finish_reason == "length"
    # the section's marker is markup, as in every format; the call's text is the invalid call's
    assert m.invalid_tool_calls[0].text == cut[len(fmt.tools.section_begin) :] and m.content is None


def test_qwen3_coder_does_not_think_and_glm_opens_its_reasoning():
    with pytest.raises(ValueError, match="does not think"):
        StreamParser("qwen3_coder", thinking=True)
    text = "<think>Which city?</think>\n" + GLM45.tools.call_text("now", "{}") + "<|observation|>"
    m = every_split_agrees(text, format="glm45", thinking="auto")
    assert (m.reasoning_content, m.content, [c.name for c in m.tool_calls]) == ("Which city?", None, ["now"])


def _walk(grammar, tokenizer, text, thinking=False):
    g = ReasonerGrammar(grammar, thinking=thinking)
    return g, g.accept_tokens(tokenizer.encode(text, add_special_tokens=False))


@pytest.mark.parametrize("fmt", XML_FORMATS, ids=lambda f: f.name)
def test_the_grammar_takes_the_template_layout_and_the_schema_bounds(tokenizer_for, fmt):
    tok = tokenizer_for(fmt.name)
    grammar = compile_tool_grammar(tok, fmt, TOOLS, "required")
    good = fmt.tools.section_text([("get_weather", '{"city": "Nice", "at": [1, 2.5]}'), ("now", "{}")])
    g, ok = _walk(grammar, tok, good)
    assert ok and g.accept_token(grammar.stop_ids[0]) and g.is_terminated()
    # maxLength 8 on a bare-text string, a number where an integer belongs, a key not in the schema
    for bad in ('{"city": "Montpellier"}', '{"city": "Nice", "days": 2.5}', '{"city": "Nice", "wind": 1}'):
        assert not _walk(grammar, tok, fmt.tools.call_text("get_weather", bad))[1], bad


def test_glm_parameter_tags_are_special_tokens_the_grammar_lets_through(glm_tokenizer):
    # GLM's tokenizer has <arg_key> and the rest as special tokens: they keep their text, so the
    # grammar (which writes them as text) takes the single token the model would generate
    tags = GLM45.tools.xml.markers
    ids = glm_tokenizer.convert_tokens_to_ids(list(tags))
    assert all(i in glm_tokenizer.added_tokens_decoder for i in ids)
    assert not set(ids) & vocabulary_for(glm_tokenizer).control_ids
    grammar = compile_tool_grammar(glm_tokenizer, GLM45, TOOLS, "required")
    g = ReasonerGrammar(grammar, thinking=False)
    prefix = glm_tokenizer.encode(GLM45.tools.call_begin + "get_weather\n", add_special_tokens=False)
    assert g.accept_tokens(prefix) and g.accept_token(ids[0])


@pytest.mark.parametrize("fmt", XML_FORMATS, ids=lambda f: f.name)
def test_random_sampling_gives_valid_calls_several_of_them_in_turn(tokenizer_for, fmt):
    tok = tokenizer_for(fmt.name)
    samples = sample_batch(tok, fmt.name, "required", "off", n=12, seed=zlib.crc32(fmt.name.encode()))
    verdicts = check(tok, fmt.name, "required", "off", samples)
    assert set(verdicts) <= {"valid", "unterminated"} and verdicts["valid"] >= 10, verdicts
    counts = [len(parse(tok.decode(ids[:-1]), format=fmt, thinking=False).tool_calls) for ids, g in samples if g.is_terminated()]
    assert max(counts) >= 2


@pytest.mark.parametrize("fmt", XML_FORMATS, ids=lambda f: f.name)
def test_inspect_shows_parameters_the_grammar_accepts(tokenizer_for, tmp_path, capsys, fmt):
    from thinkgate.cli import main

    tok = tokenizer_for(fmt.name)
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(TOOLS))
    assert main(["inspect", "--format", fmt.name, "--tools", str(path), "--tool-choice", "required"]) == 0
    out = capsys.readouterr().out
    shown = out.split("# an example of a valid output (after the reasoning)\n")[1].split("\n\n# the grammar")[0]
    shown = shown.split(fmt.reasoning.close)[-1].lstrip() if fmt.reasoning.present else shown
    m = parse(shown, format=fmt, tools=TOOLS, thinking=False)
    assert [c.name for c in m.tool_calls] == ["get_weather", "now"]  # one call of each tool
    jsonschema.validate(json.loads(m.tool_calls[0].arguments), WEATHER_SCHEMA)
    grammar = compile_tool_grammar(tok, fmt, TOOLS, "required")
    g, ok = _walk(grammar, tok, shown)
    assert ok and g.accept_token(grammar.stop_ids[0])


def test_bare_text_values_never_hold_a_surrogate(qwen_tokenizer):
    # xgrammar counts the UTF-8 bytes of a surrogate (ED A0..BF ..) as a character of a bare
    # string; decoded they are three U+FFFD. The guard keeps them out between a call's markers.
    grammar = compile_tool_grammar(qwen_tokenizer, QWEN3_CODER, TOOLS, "required")
    vocab = vocabulary_for(qwen_tokenizer)
    ed, a0, b80 = (vocab.token_bytes.index(b) for b in (b"\xed", b"\xa0", b"\x80"))
    g, ok = _walk(grammar, qwen_tokenizer, QWEN3_CODER.tools.call_begin + "\n<function=get_weather>\n<parameter=city>\nx")
    size = grammar.vocab.size
    assert ok and _allowed(g, ed, size)
    assert g.accept_token(ed)
    # ED 80..9F begins U+D000-U+D7FF; ED A0..BF a surrogate
    assert _allowed(g, b80, size) and not _allowed(g, a0, size)


def _allowed(g, token_id, vocab_size):
    import xgrammar as xgr

    bitmask = xgr.allocate_token_bitmask(1, vocab_size)
    g.fill_bitmask(bitmask, 0)
    return bool((int(bitmask[0, token_id >> 5]) >> (token_id & 31)) & 1)


def test_every_key_the_grammar_writes_is_a_name_the_parser_reads():
    """A parameter's name is text between markers: a declared name the parser would refuse
    (a space, a quote, '=') is refused up front, and free keys get identifier names (xgrammar
    otherwise wrote any characters, or names past the parser's 256)."""
    from thinkgate.constraint.grammar.structural_tag import build_spec

    spaced = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"two words": {"type": "string"}}}}}]
    build_spec("deepseek_v3_1", spaced, "required")  # JSON keys may be anything
    for fmt in XML_FORMATS:
        with pytest.raises(ValueError, match=re.escape("the property name 'two words' at #/properties/two words cannot be a parameter's name")):
            build_spec(fmt, spaced, "required")
        # a bare object too: xgrammar reads {"type": "object"} as any keys, of any length
        for parameters in ({"type": "object", "additionalProperties": {"type": "boolean"}}, {"type": "object", "description": "anything"}):
            free = [{"type": "function", "function": {"name": "f", "parameters": parameters}}]
            grammar = xgr.Grammar.from_structural_tag(json.dumps(build_spec(fmt, free, "required").tag))
            for key, readable in (("on_off", True), ("on-off", False), ("k" * 256, True), ("k" * 257, False)):
                text = fmt.tools.section_text([("f", json.dumps({key: True}))])
                assert _accepts(grammar, text) is readable, (parameters, key)
        pattern = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "patternProperties": {"^x": {"type": "integer"}}}}}]
        with pytest.raises(ValueError, match="'patternProperties' at # cannot be enforced on parameter names"):
            build_spec(fmt, pattern, "required")


def test_a_string_length_in_a_parameter_format_is_said_once_to_be_costly(caplog):
    """xgrammar holds a parameter's string length itself (the guard follows no parameter
    values), at a cost of up to tens of ms a row per step: the operator is told, once per tool
    and format, and JSON formats (whose guard holds lengths) say nothing."""
    from thinkgate.constraint.grammar.structural_tag import build_spec

    tools = [{"type": "function", "function": {"name": "note_once", "parameters": {"type": "object", "properties": {"title": {"type": "string", "maxLength": 30}}}}}]
    with caplog.at_level("WARNING", logger="thinkgate.constraint"):
        build_spec("deepseek_v3_1", tools, "required")
        assert not caplog.records
        build_spec(QWEN3_CODER, tools, "required")
        build_spec(QWEN3_CODER, tools, "auto")
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 1 and said[0].startswith("tool 'note_once': the string length bound at #/properties/title is held by xgrammar's grammar in format 'qwen3_coder'"), said


TYPED = [{"type": "function", "function": {"name": "set", "parameters": {"type": "object", "properties": {
    "n": {"type": "integer"}, "x": {"type": "number"}, "on": {"type": "boolean"}, "off": {"type": "boolean"},
    "none": {"type": "null"}, "maybe": {"anyOf": [{"type": "boolean"}, {"type": "null"}]}, "s": {"type": "string"},
}}}}]


@pytest.mark.parametrize("fmt", XML_FORMATS, ids=lambda f: f.name)
def test_quoted_numbers_and_python_literals_are_read_as_the_schema_says(fmt):
    # Qwen3-Coder's chat template writes Python's True/False/None for booleans and null, and
    # models write them back (a peer's case: vLLM tests/tool_parsers/test_qwen3coder_tool_parser.py);
    # GLM models quote numbers now and then (SGLang test/srt/test_function_call_parser.py, GLM45)
    x = fmt.tools.xml
    params = {"n": '"42"', "x": "2.5", "on": "True", "off": "false", "none": "None", "maybe": "None", "s": "True"}
    body = "".join(x.key_open + k + x.key_close + x.between + x.value_open + x.padding + v + x.padding + x.value_close + "\n" for k, v in params.items())
    call = fmt.tools.call_begin + fmt.tools.header_text("set") + body + fmt.tools.footer + fmt.tools.call_end
    m = every_split_agrees(fmt.tools.section_around(call), format=fmt, thinking=False, tools=TYPED)
    assert json.loads(m.tool_calls[0].arguments) == {"n": 42, "x": 2.5, "on": True, "off": False, "none": None, "maybe": None, "s": "True"}


@pytest.mark.parametrize("fmt", XML_FORMATS, ids=lambda f: f.name)
def test_a_parameter_without_its_closing_tag_makes_the_call_invalid(fmt):
    # Without the rule the next parameter lands inside this one's value: a call that looks
    # valid with a required parameter missing (vLLM tests/tool_parsers/test_qwen3coder_tool_parser.py)
    x = fmt.tools.xml
    first = x.key_open + "city" + x.key_close + x.between + x.value_open + x.padding + "Paris" + x.padding  # no closing tag
    second = x.key_open + "days" + x.key_close + x.between + x.value_open + x.padding + "3" + x.padding + x.value_close + "\n"
    call = fmt.tools.call_begin + fmt.tools.header_text("get_weather") + first + second + fmt.tools.footer + fmt.tools.call_end
    m = every_split_agrees(fmt.tools.section_around(call), format=fmt, thinking=False)
    assert m.tool_calls == [] and "no closing tag" in m.invalid_tool_calls[0].error


HEADLESS = [
    # (what the model wrote, content, calls) — Qwen3-Coder leaving out <tool_call> (vLLM
    # tests/tool_parsers/test_qwen3coder_tool_parser.py, calls without the tool_call tags)
    ("Sure.\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>", "Sure.\n", ["get_weather"]),
    ("<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>", None, ["get_weather"]),
    ("<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n</function>\n<function=now>\n</function>", None, ["get_weather", "now"]),
    ("Use <function=launch> here.", "Use <function=launch> here.", []),  # no tool of the request's: text
    ("Use <function=get_weather here.", "Use <function=get_weather here.", []),
]


@pytest.mark.parametrize("text, content, calls", HEADLESS)
def test_a_qwen3_coder_call_without_its_tool_call_tag_is_read_when_it_names_a_tool(qwen_tokenizer, text, content, calls):
    m = every_split_agrees(text, format=QWEN3_CODER, thinking=False, tools=TOOLS)
    assert (m.content, [c.name for c in m.tool_calls], m.invalid_tool_calls) == (content, calls, [])
    by_ids = parse(text, format=QWEN3_CODER, thinking=False, tools=TOOLS, token_ids=qwen_tokenizer.encode(text, add_special_tokens=False), tokenizer=qwen_tokenizer)
    assert (by_ids.content, [c.name for c in by_ids.tool_calls]) == (content, calls)
    # with no tools given, such text stays text
    assert parse(text, format=QWEN3_CODER, thinking=False).tool_calls == []


SPACED = [{"type": "function", "function": {"name": "put", "parameters": {"type": "object", "properties": {
    "code": {"type": "string"}, "short": {"type": "string", "maxLength": 4}, "pick": {"enum": ["ab", "cd"]}, "n": {"type": "integer"},
}}}}]


@pytest.mark.parametrize("fmt", XML_FORMATS, ids=lambda f: f.name)
def test_a_value_keeps_its_own_whitespace_and_loses_only_the_template_padding(fmt):
    # Issue 15, point 1: "    indented code    " is a real value; Qwen3-Coder's template writes one
    # newline after the opening tag and one before the closing tag (vLLM's
    # tests/tool_parsers/test_qwen3coder_tool_parser.py reads values the same way), GLM's and
    # MiniMax's templates write none.
    x = fmt.tools.xml
    values = {"code": "    indented code    ", "short": "\n a\n"}
    text = fmt.tools.section_text([("put", json.dumps(values))])
    assert x.padding + "    indented code    " + x.padding + x.value_close in text
    m = every_split_agrees(text, format=fmt, tools=SPACED, thinking=False)
    assert json.loads(m.tool_calls[0].arguments) == values
    # only one padding is framing: a value written with two keeps the second
    doubled = text.replace(x.padding + "    indented", x.padding * 2 + "    indented") if x.padding else text
    if x.padding:
        code = json.loads(parse(doubled, fmt, tools=SPACED, thinking=False).tool_calls[0].arguments)["code"]
        assert code == x.padding + "    indented code    "


@pytest.mark.parametrize("fmt", XML_FORMATS, ids=lambda f: f.name)
def test_the_grammar_lets_no_whitespace_around_a_value_but_the_padding(fmt):
    # xgrammar's XML styles allow any whitespace around an enum's or a bounded string's value;
    # the parser keeps it, so the grammar must not write it, or "\n  ab  \n" passes the grammar
    # and fails the schema.
    from thinkgate.constraint.grammar.structural_tag import build_spec

    grammar = xgr.Grammar.from_structural_tag(json.dumps(build_spec(fmt, SPACED, "required").tag))
    x = fmt.tools.xml

    def call(key, written):
        """A call whose one parameter is written as given, the rest as the template writes it."""
        return fmt.tools.section_text([("put", json.dumps({key: "@"}))]).replace(x.padding + "@" + x.padding, written)

    p = x.padding
    for key, written, ok in [
        ("pick", p + "ab" + p, True), ("pick", "ab", True), ("pick", p + "  ab  " + p, False), ("pick", " ab", False),
        ("short", p + "abcd" + p, True), ("short", p + "  abcd" + p, False),
        ("code", p + "  any  text  " + p, True), ("n", p + "42" + p, True), ("n", " 42 ", False),
    ]:
        assert _accepts(grammar, call(key, written)) is ok, (key, written)
        if ok:
            m = parse(call(key, written), fmt, tools=SPACED, thinking=False)
            value = json.loads(m.tool_calls[0].arguments)[key]
            assert value == (42 if key == "n" else written.removeprefix(p).removesuffix(p) if p else written)


HEADLESS_TOOLS = [{"type": "function", "function": {"name": "get_current_weather", "parameters": {"type": "object", "properties": {
    "location": {"type": "string"}, "unit": {"type": "string"}, "days": {"type": "integer"}}}}}]


def test_a_headless_call_ends_with_its_footer_and_what_follows_is_the_answer():
    # Qwen3-Coder's call with neither <tool_call> nor </tool_call>: its </function> footer ends it
    # (before, the footer and the text after it came back as content beside the call)
    call = "<function=get_current_weather>\n<parameter=location>\nParis\n</parameter>\n</function>"
    for tail, content in (("\nDone.", "Text prefix\n\nDone."), ("\n</tool_call>\nDone.", "Text prefix\n\n\nDone."), ("", "Text prefix\n\n")):
        m = every_split_agrees("Text prefix\n\n" + call + tail, format="qwen3_coder", tools=HEADLESS_TOOLS)
        assert [(c.name, c.arguments) for c in m.tool_calls] == [("get_current_weather", '{"location": "Paris"}')], tail
        assert m.content == content and m.invalid_tool_calls == [] and m.finish_reason == "tool_calls"


def test_a_parameter_without_its_closing_tag_is_a_malformed_call_not_a_cut_off_one():
    # SGLang test/registered/function_call/test_qwen3_coder_detector/test_cases.py,
    # "implicit_parameter_close": SGLang reads the next <parameter= as closing the last one; here
    # (issue 15, point 7) such a call is invalid, and, its footer written, malformed rather than
    # cut off by the end of the output
    body = "<function=get_current_weather>\n<parameter=location>Paris\n<parameter=unit>celsius\n<parameter=days>3\n</function>"
    for text in ("Text prefix\n\n" + body, "Text prefix\n\n<tool_call>\n" + body + "\n</tool_call>"):
        m = every_split_agrees(text, format="qwen3_coder", tools=HEADLESS_TOOLS)
        assert m.tool_calls == [] and m.content == "Text prefix\n\n" and m.finish_reason == "stop"
        [invalid] = m.invalid_tool_calls
        assert invalid.error == "the parameter 'location' has no closing tag" and not invalid.cut_off
    # written up to the middle of a value, it is the output's end that cut it
    m = every_split_agrees("Text prefix\n\n" + body[: body.index("Paris") + 3], format="qwen3_coder", tools=HEADLESS_TOOLS)
    assert m.invalid_tool_calls[0].cut_off and m.finish_reason == "length"


def test_under_auto_the_answer_cannot_write_a_call_without_its_marker(qwen_tokenizer):
    """Qwen3-Coder's parser reads ``<function=NAME>…`` written without ``<tool_call>`` as a call
    when NAME is a tool (issue 17, point 5): under ``auto`` the answer's text keeps that opening
    out, and every piece of it at the end, so no call reaches the parser that the grammar did not
    hold; text, the marker token and the calls after it stay open."""
    from helpers import allowed, walk
    from thinkgate.constraint import compile_tool_grammar
    from thinkgate.formats import get_format

    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
    grammar = compile_tool_grammar(qwen_tokenizer, "qwen3_coder", tools, "auto")
    eos, size = grammar.stop_ids[0], grammar.vocab.size
    begin = qwen_tokenizer.convert_tokens_to_ids(get_format("qwen3_coder").tools.call_begin)
    _, ok = walk(grammar, qwen_tokenizer, "Sure.\n<function=get_weather>\n")
    assert not ok
    for text in ("Sure. <func", "Sure. <function"):
        g, ok = walk(grammar, qwen_tokenizer, text)
        assert ok and not allowed(g, eos, size), text
    g, ok = walk(grammar, qwen_tokenizer, "Use <b>bold</b> and a < b.")
    assert ok and allowed(g, eos, size) and allowed(g, begin, size)
    assert not allowed(g, qwen_tokenizer.convert_tokens_to_ids("<|im_start|>"), size)  # no control token as text
    call = get_format("qwen3_coder").tools.section_text([("get_weather", '{"city": "Paris"}')])
    g, ok = walk(grammar, qwen_tokenizer, "Checking.\n" + call)
    assert ok and allowed(g, eos, size)
