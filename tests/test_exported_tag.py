"""The exported structural tag (``build_structural_tag``: what an engine's own structured output
gets, with no thinkgate guard behind it) is exact on its own: string lengths, valid Unicode and
the whitespace bound held by xgrammar itself, and what xgrammar cannot hold refused by name.

Compiled here as an engine compiles it: xgrammar's ``TokenizerInfo`` of the real tokenizer, no
thinkgate vocabulary, no guard. Bounds are small: xgrammar compiles a bounded string in about
11 ms a character of bound."""

from __future__ import annotations

import json
import logging

import jsonschema
import numpy as np
import pytest
import xgrammar as xgr

from thinkgate import parse
from thinkgate.constraint import build_structural_tag, compile_tool_grammar
from thinkgate.constraint.schemas.schema_exact import LENGTH_LIMIT
from thinkgate.constraint.runtime.vocabulary import vocabulary_for
from thinkgate.formats import get_format

CITY = {"type": "string", "maxLength": 5}
LONG_CITY = "Paris is the capital of France and a big city"  # 45 characters


def tool(parameters, name="get_weather"):
    return {"type": "function", "function": {"name": name, "parameters": parameters}}


def weather(city=CITY, **more):
    return tool({"type": "object", "properties": {"city": city, **more}, "required": ["city"], "additionalProperties": False})


_INFO: dict[int, xgr.TokenizerInfo] = {}


def compiled(tokenizer, tag):
    """The tag as an engine's xgrammar backend compiles it (one TokenizerInfo per tokenizer)."""
    if id(tokenizer) not in _INFO:
        _INFO[id(tokenizer)] = xgr.TokenizerInfo.from_huggingface(tokenizer, stop_token_ids=list(vocabulary_for(tokenizer).stop_token_ids))
    return xgr.GrammarCompiler(_INFO[id(tokenizer)], max_threads=1, cache_enabled=False).compile_structural_tag(json.dumps(tag))


def accepts(grammar, tokenizer, *parts):
    """Whether the grammar takes ``parts`` one after another: text through the tokenizer, bytes
    one byte token at a time (so that bytes no text encodes, a surrogate's, can be offered)."""
    m = xgr.GrammarMatcher(grammar)
    for part in parts:
        ids = _byte_ids(tokenizer, part) if isinstance(part, bytes) else tokenizer.encode(part, add_special_tokens=False)
        if not all(m.accept_token(i) for i in ids):
            return False
    return True


def _byte_ids(tokenizer, data):
    table = getattr(tokenizer, "_thinkgate_byte_ids", None)
    if table is None:
        table = {b: i for i, b in enumerate(vocabulary_for(tokenizer).token_bytes) if len(b) == 1}
        tokenizer._thinkgate_byte_ids = table
    return [table[bytes([b])] for b in data]


def call(fmt, arguments):
    """R1's (or ``fmt``'s) call section around ``arguments``: the text before and after them."""
    before, after = get_format(fmt).tools.section_text([("get_weather", "\0")]).split("\0")
    return before, arguments, after


@pytest.fixture(scope="module")
def bounded(tokenizer):
    """One compile for the bounded-string cases: a city of at most 5, a code of 2 to 3, names of
    at most 3 in an array of objects, a note held only to a minimum of 2."""
    t = weather(
        code={"type": "string", "minLength": 2, "maxLength": 3},
        people={"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 3}}, "required": ["name"], "additionalProperties": False}},
        note={"type": "string", "minLength": 2},
    )
    return compiled(tokenizer, build_structural_tag("deepseek_r1", [t], "required", tokenizer=tokenizer))


@pytest.mark.parametrize(
    ("arguments", "ok"),
    [
        ('{"city": "Paris"}', True),
        ('{"city": "Pari\u00e9"}', True),  # five characters, one of them two bytes
        ('{"city": "Zürich"}', False),
        ('{"city": "' + LONG_CITY + '"}', False),
        ('{"city": "Rome", "code": "ab"}', True),
        ('{"city": "Rome", "code": "abc"}', True),
        ('{"city": "Rome", "code": "a"}', False),
        ('{"city": "Rome", "code": "abcd"}', False),
        ('{"city": "Rome", "people": [{"name": "Ann"}, {"name": "Bo"}]}', True),
        ('{"city": "Rome", "people": [{"name": "Ann"}, {"name": "Bobby"}]}', False),
        ('{"city": "Rome", "note": "hi"}', True),
        ('{"city": "Rome", "note": "h"}', False),
    ],
)
def test_the_exported_tag_holds_string_lengths(tokenizer, bounded, arguments, ok):
    assert accepts(bounded, tokenizer, *call("deepseek_r1", arguments)) is ok


@pytest.mark.parametrize(
    "value",
    [
        b"\x01ab",  # a raw control character (xgrammar's own maxLength admits one: invalid JSON)
        b"\t",
        b"\xed\xa0\x80",  # a surrogate's UTF-8 bytes: one character to xgrammar, three U+FFFD decoded
    ],
)
def test_a_bounded_string_admits_no_control_character_nor_surrogate(tokenizer, bounded, value):
    before, _, after = call("deepseek_r1", "")
    assert accepts(bounded, tokenizer, before, b'{"city": "ab"}', after)
    assert not accepts(bounded, tokenizer, before, b'{"city": "' + value + b'"}', after)


def test_the_guarded_grammar_still_leaves_lengths_to_the_guard(tokenizer):
    # thinkgate's own processor: xgrammar gets a plain string (cheap to compile), the guard the bound
    spec = compile_tool_grammar(tokenizer, "deepseek_r1", [weather(CITY)], "required").spec
    text = json.dumps(spec.tag)
    assert "maxLength" not in text and "{0,5}" not in text


def test_bounded_values_of_parameters_hold_in_the_exported_tag(qwen_tokenizer):
    # Qwen3-Coder writes each argument as a parameter, its string a bare text value
    tag = build_structural_tag("qwen3_coder", [weather()], "required", tokenizer=qwen_tokenizer)
    grammar = compiled(qwen_tokenizer, tag)
    before, after = get_format("qwen3_coder").tools.section_text([("get_weather", json.dumps({"city": "@@"}))]).split("@@")
    assert accepts(grammar, qwen_tokenizer, before, "Paris", after)
    assert not accepts(grammar, qwen_tokenizer, before, "Paris!", after)
    assert not accepts(grammar, qwen_tokenizer, before, LONG_CITY, after)
    assert accepts(grammar, qwen_tokenizer, before, b"\xc3\xa9t\xc3\xa9", after)
    assert not accepts(grammar, qwen_tokenizer, before, b"\xed\xa0\x80", after)  # a surrogate's bytes


@pytest.fixture(scope="module")
def free(tokenizer):
    """A free string (no bound, no pattern), compiled once."""
    t = tool({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"], "additionalProperties": False}, "get_weather")
    return compiled(tokenizer, build_structural_tag("deepseek_r1", [t], "required", tokenizer=tokenizer))


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        (b"Z\xc3\xbcrich \\n \\\" \\u00e9", True),
        (b"\\ud83d\\ude00", True),  # a surrogate pair escape: one character
        (b"\xf0\x9f\x98\x80", True),
        (b"\\ud800", False),  # a lone high surrogate
        (b"\\ud83dx", False),
        (b"\\ude00", False),  # a lone low surrogate
        (b"\\ude00\\ud83d", False),  # the halves in the wrong order
        (b"\xed\xa0\x80", False),
        (b"\x01", False),
    ],
)
def test_a_free_string_in_the_exported_tag_is_valid_unicode(tokenizer, free, value, ok):
    before, _, after = call("deepseek_r1", "")
    assert accepts(free, tokenizer, before, b'{"text": "' + value + b'"}', after) is ok


def test_the_exported_tag_bounds_whitespace_runs(tokenizer):
    t = tool({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"], "additionalProperties": False})
    grammar = compiled(tokenizer, build_structural_tag("deepseek_r1", [t], "required", tokenizer=tokenizer, max_whitespace=2))
    for at in ('{%s"n": 1}', '{"n":%s1}', '{"n": 1%s}'):
        assert accepts(grammar, tokenizer, *call("deepseek_r1", at % "\n "))
        assert not accepts(grammar, tokenizer, *call("deepseek_r1", at % "\n  "))


def _refusal(tokenizer, parameters, **kw):
    with pytest.raises(ValueError) as e:
        build_structural_tag("deepseek_r1", [tool(parameters, "f")], "required", tokenizer=tokenizer, **kw)
    return str(e.value)


@pytest.mark.parametrize(
    ("parameters", "place", "what"),
    [
        ({"type": "object", "properties": {"meta": {"type": "object", "additionalProperties": {"type": "integer"}}}}, "#/properties/meta", "'additionalProperties'"),
        ({"type": "object", "patternProperties": {"^x_": {"type": "integer"}}}, "at # ", "'patternProperties'"),
        ({"type": "object", "properties": {"meta": {"type": "object"}}}, "#/properties/meta", "declares no properties"),
        ({"type": "object", "properties": {"value": {}}}, "#/properties/value", "any type"),
        ({"type": "object", "properties": {"body": {"type": "string", "maxLength": LENGTH_LIMIT + 1}}}, "#/properties/body", f"'maxLength' {LENGTH_LIMIT + 1}"),
        ({"type": "object", "properties": {"body": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 5000}}}, "#/properties/body", "'maxLength' 5000 beside a 'pattern'"),
        ({"type": "object", "properties": {"han": {"type": "string", "pattern": "^[\u4e00-\uffff]+$"}}}, "#/properties/han", "surrogate"),
    ],
)
def test_what_the_exported_tag_cannot_hold_is_refused_by_name(tokenizer, parameters, place, what):
    message = _refusal(tokenizer, parameters)
    assert message.startswith("tool 'f': ")
    assert place in message and what in message
    assert "exported structural tag" in message and "unsupported='relax'" in message


def test_strict_level_one_is_refused_by_name(tokenizer):
    # level 1 holds the arguments to any JSON object: keys that could repeat
    message = _refusal(tokenizer, {"type": "object", "properties": {"a": {"type": "integer"}}}, strict=1)
    assert message.startswith("tool 'f' (strict level 1: any JSON object): ") and "at # " in message


def test_a_whitespace_bound_of_zero_is_refused_by_name(tokenizer):
    assert "max_whitespace 0" in _refusal(tokenizer, {"type": "object"}, max_whitespace=0)


def test_relaxed_the_exported_tag_drops_what_it_cannot_hold_with_a_warning(tokenizer, caplog):
    parameters = {"type": "object", "properties": {"meta": {"type": "object", "additionalProperties": {"type": "integer"}}, "body": {"type": "string", "maxLength": 5000}}}
    with caplog.at_level(logging.WARNING, logger="thinkgate.constraint"):
        tag = build_structural_tag("deepseek_r1", [tool(parameters, "f")], "required", tokenizer=tokenizer, unsupported="relax")
    assert "#/properties/meta" in caplog.text and "#/properties/body" in caplog.text and "unsupported='relax'" in caplog.text
    assert "5000" not in json.dumps(tag)


# Random walks under exported tags, no guard: every call valid against its schema, UTF-8 clean.
# The tools' strings are bounded or patterned but one, whose walk the closing steer ends.
WALK_TOOLS = [
    weather({"type": "string", "minLength": 1, "maxLength": 6}, days={"type": "integer", "minimum": 1, "maximum": 14}),
    tool({"type": "object", "properties": {"time": {"type": "string", "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]$"}, "label": {"anyOf": [{"type": "string", "maxLength": 4}, {"type": "null"}]}, "tags": {"type": "array", "items": {"type": "string", "maxLength": 3}, "maxItems": 2}}, "required": ["time"], "additionalProperties": False}, "set_alarm"),
    tool({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"], "additionalProperties": False}, "note"),
]
VALIDATORS = {t["function"]["name"]: jsonschema.Draft202012Validator(t["function"]["parameters"]) for t in WALK_TOOLS}


def walk(grammar, tokenizer, rng, closers, steps=300, close_after=40):
    """Random allowed tokens until the grammar ends (after ``close_after`` steps, closing tokens
    where one is allowed): the ids, or None if it never ended."""
    size = len(_INFO[id(tokenizer)].decoded_vocab)
    m = xgr.GrammarMatcher(grammar)
    bitmask = xgr.allocate_token_bitmask(1, size)
    ids = []
    for step in range(steps):
        m.fill_next_token_bitmask(bitmask)
        allowed = np.flatnonzero(np.unpackbits(bitmask[0].numpy().view(np.uint8), bitorder="little")[:size])
        if step >= close_after:
            closing = np.intersect1d(allowed, closers)
            allowed = closing if len(closing) else allowed
        tid = int(rng.choice(allowed))
        assert m.accept_token(tid)
        if m.is_terminated():
            return ids
        ids.append(tid)
    return None


@pytest.mark.parametrize("fmt", ["deepseek_r1", "deepseek_v3_1", "qwen3"])
def test_random_walks_under_the_exported_tag_are_valid_calls(tokenizer_for, fmt):
    tokenizer = tokenizer_for(fmt)
    grammar = compiled(tokenizer, build_structural_tag(fmt, WALK_TOOLS, "required", tokenizer=tokenizer))
    vocab = _INFO[id(tokenizer)].decoded_vocab
    markers = [vocabulary_for(tokenizer).token_id(m) for m in get_format(fmt).tools.markers]
    closers = np.array([i for i, b in enumerate(vocab) if b and not b.strip(b'"}]')] + [i for i in markers if i is not None] + list(vocabulary_for(tokenizer).stop_token_ids))
    rng = np.random.default_rng(7)
    calls = 0
    for _ in range(4):
        ids = walk(grammar, tokenizer, rng, closers)
        assert ids is not None, "a walk that the closing steer did not end"
        text = tokenizer.decode(ids, skip_special_tokens=False, clean_up_tokenization_spaces=False)
        message = parse(text, format=fmt, thinking=False, tools=WALK_TOOLS, on_invalid_call="content")
        assert message.tool_calls and not message.invalid_tool_calls, text
        for c in message.tool_calls:
            c.arguments.encode("utf-8", "strict")
            assert not list(VALIDATORS[c.name].iter_errors(json.loads(c.arguments))), c.arguments
            calls += 1
    assert calls >= 4


def _inspect(tmp_path, capsys, tools, *options):
    from thinkgate.cli import main

    path = tmp_path / "tools.json"
    path.write_text(json.dumps(tools))
    status = main(["inspect", "--format", "deepseek_r1", "--tools", str(path), *options])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_inspect_prints_the_exact_tag(tmp_path, capsys):
    status, out, _ = _inspect(tmp_path, capsys, [weather()])
    assert status == 0 and "# the grammar accepts it, token by token: yes" in out
    tag = json.loads(out.split("\n# an example")[0].split("\n", 1)[1])
    assert "{0,5}" in json.dumps(tag) and "maxLength" not in json.dumps(tag)


def test_inspect_names_what_the_tag_cannot_hold(tmp_path, capsys, caplog):
    meta = tool({"type": "object", "properties": {"meta": {"type": "object", "additionalProperties": {"type": "integer"}}}}, "f")
    status, out, err = _inspect(tmp_path, capsys, [meta])
    assert status == 2 and not out  # a user's mistake, as every subcommand says one
    [line] = [x for x in err.splitlines() if x.startswith("thinkgate inspect: error: ")]
    assert line.startswith("thinkgate inspect: error: tool 'f': keys that 'additionalProperties' admits at #/properties/meta") and line.endswith("pass --unsupported relax to let a key repeat")
    with caplog.at_level(logging.WARNING, logger="thinkgate.constraint"):
        status, out, _ = _inspect(tmp_path, capsys, [meta], "--unsupported", "relax")
    assert status == 0 and "#/properties/meta" in caplog.text
