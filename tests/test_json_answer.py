"""Structured answers after thinking (``response_format``): thinking stays free, the answer is
one JSON object valid against the schema, or under ``auto`` with tools the calls instead.

The sampling tests walk the grammar at random with real tokenizers (as
``test_constraint_sampling`` does for calls) and check every walk's content with jsonschema."""

from __future__ import annotations

import json
import zlib

import jsonschema
import pytest
import torch

from helpers import RandomLogits, allowed, every_split_agrees, walk
from schemas import REALISTIC
from test_constraint_sampling import thinking_tokens
from test_text_markers import TEXT_THINKER
from thinkgate import parse
from thinkgate.constraint import BatchMasker, Phase, ReasonerGrammar, build_structural_tag, compile_tool_grammar
from thinkgate.constraint.grammar.json_answer import answer_schema
from thinkgate.formats import get_format, is_text
from thinkgate.requests import answer_reading

# Every string bounded (a random walk closes an unbounded one only by chance); a nested array,
# an enum, an integer range, optional and required keys, no other keys.
FORECAST = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "minLength": 2, "maxLength": 12},
        "days": {"type": "integer", "minimum": 1, "maximum": 14},
        "unit": {"enum": ["C", "F"]},
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 5}, "maxItems": 3},
    },
    "required": ["city", "days", "unit"],
    "additionalProperties": False,
}
JSON_SCHEMA = {"type": "json_schema", "json_schema": {"name": "forecast", "schema": FORECAST, "strict": True}}
JSON_OBJECT = {"type": "json_object"}
VALIDATOR = jsonschema.Draft202012Validator(FORECAST)
TOOL_VALIDATOR = {t["function"]["name"]: jsonschema.Draft202012Validator(t["function"]["parameters"]) for t in REALISTIC}
MAX_TOKENS = 500
CLOSE_AFTER = 30  # constrained steps after which a walk prefers the tokens that close JSON
CLOSERS = ('"}', '"', "}", "]", "0")  # a quote first: inside a string, "}" is text


def _closers(tokenizer):
    ids = []
    for text in CLOSERS:
        enc = tokenizer.encode(text, add_special_tokens=False)
        if len(enc) == 1:
            ids.append(enc[0])
    return ids


def _trigger(grammar, tokenizer):
    """The tokens that open the calls (a walk steered into them under ``auto``)."""
    t = grammar.format.tools
    if t.messages is not None:
        return tokenizer.encode(t.messages.channel + t.messages.tool_channel, add_special_tokens=False)
    if is_text(t.trigger):
        return tokenizer.encode(t.trigger, add_special_tokens=False)
    return [grammar.vocab.token_id(t.trigger)]


def sample_answers(tokenizer, fmt, tools, choice, response_format, thinking, n, seed):
    """``n`` random walks under the grammar (argmax of seeded random logits after the mask: a
    uniformly random allowed token). Under ``auto`` every other walk is steered into the calls;
    after ``CLOSE_AFTER`` constrained tokens a walk takes the end or a closing token where
    allowed, so that free JSON ends. Thinking (``True``: a budget of 3) is checked to be free."""
    grammar = compile_tool_grammar(tokenizer, fmt, tools, choice, response_format=response_format)
    size = grammar.vocab.size
    trigger = _trigger(grammar, tokenizer) if choice == "auto" else []
    prefer = [*grammar.stop_ids, *_closers(tokenizer)]
    random_logits = RandomLogits(seed)
    grammars = [ReasonerGrammar(grammar, thinking=thinking, thinking_budget=3) for _ in range(n)]
    ids = [[] for _ in range(n)]
    skip = thinking_tokens(grammar) if thinking else 0
    live = list(range(n))
    masker = BatchMasker(size, n)
    for _ in range(MAX_TOKENS):
        if not live:
            break
        for i in live:
            g = grammars[i]
            if g.phase == Phase.THINKING and not g.forcing_close:
                # free thinking: no mask, but the end may not come before the answer
                assert not g.needs_bitmask and g.blocks_eos
        logits = random_logits(n, size)
        masker([grammars[i] if i in live else None for i in range(n)], logits)
        picked = logits.argmax(dim=-1).tolist()
        for i in list(live):
            g, tid = grammars[i], picked[i]
            step = len(ids[i]) - skip
            if i % 2 and 0 <= step < len(trigger) and torch.isfinite(logits[i, trigger[step]]):
                tid = trigger[step]
            elif step >= CLOSE_AFTER:
                tid = next((t for t in prefer if torch.isfinite(logits[i, t])), tid)
            assert torch.isfinite(logits[i, tid]), "sampled a masked token"
            assert g.accept_token(tid), g.error
            ids[i].append(tid)
            if g.is_terminated():
                live.remove(i)
    return grammar, list(zip(ids, grammars))


def verdicts(tokenizer, fmt, tools, choice, response_format, thinking, samples):
    """Per walk: 'answer' (valid JSON content), 'calls' (valid calls), 'unterminated', or what
    is wrong."""
    out = []
    validator = VALIDATOR if response_format is JSON_SCHEMA else None
    for ids, g in samples:
        if not g.is_terminated():
            out.append("unterminated")
            continue
        body = ids[:-1]
        text = tokenizer.decode(body, skip_special_tokens=False, clean_up_tokenization_spaces=False)
        options = answer_reading(fmt, tools, choice, response_format)
        m = parse(text, format=fmt, thinking=thinking, token_ids=body, tokenizer=tokenizer, tools=tools, **options)
        if m.invalid_tool_calls:
            out.append(f"invalid call: {m.invalid_tool_calls[0].error}")
        elif m.tool_calls:
            problems = [e.message for c in m.tool_calls for e in TOOL_VALIDATOR[c.name].iter_errors(json.loads(c.arguments))]
            if choice == "none":
                problems.append("a call under tool_choice none")
            if (m.content or "").strip():
                problems.append(f"content beside the calls: {m.content!r}")
            out.append(problems[0] if problems else "calls")
        else:
            try:
                value = json.loads(m.content or "")
            except ValueError as e:
                out.append(f"content is no JSON ({e}): {m.content!r}")
                continue
            problems = [] if isinstance(value, dict) else [f"not an object: {value!r}"]
            if validator is not None:
                problems += [e.message for e in validator.iter_errors(value)]
            if m.content.strip() != m.content.lstrip():
                problems.append("text after the JSON")
            out.append(problems[0] if problems else "answer")
    return out


# (format, thinking): DeepSeek R1 and Qwen3 (token markers), gpt-oss (harmony: the answer in the
# final channel), a format whose reasoning markers are text (the grammar holds the reasoning),
# MiniMax-M2 (tool markers as text), Mistral's JSON array and Llama 3.x (no reasoning).
CASES = [
    ("deepseek_r1", True),
    ("qwen3", True),
    ("gpt_oss", True),
    (TEXT_THINKER, True),
    ("minimax_m2", True),
    ("mistral_json", False),
]


def _tokenizer(tokenizer_for, llama_tokenizer, fmt):
    return llama_tokenizer if fmt is TEXT_THINKER else tokenizer_for(fmt)


def _name(fmt):
    return fmt if isinstance(fmt, str) else fmt.name


SAMPLES = 6


@pytest.mark.parametrize(("fmt", "thinking"), CASES + [("llama3_json", False)], ids=lambda v: _name(v) if not isinstance(v, bool) else str(v))
def test_sampled_answers_are_json_valid_against_the_schema(tokenizer_for, llama_tokenizer, fmt, thinking):
    tokenizer = _tokenizer(tokenizer_for, llama_tokenizer, fmt)
    seed = zlib.crc32(f"{_name(fmt)}-answer".encode())
    _, samples = sample_answers(tokenizer, fmt, None, "none", JSON_SCHEMA, thinking, SAMPLES, seed)
    got = verdicts(tokenizer, fmt, None, "none", JSON_SCHEMA, thinking, samples)
    assert set(got) <= {"answer", "unterminated"}, got
    assert got.count("answer") >= SAMPLES - 1, got


@pytest.mark.parametrize(("fmt", "thinking"), CASES, ids=lambda v: _name(v) if not isinstance(v, bool) else str(v))
def test_under_auto_the_answer_is_json_or_calls(tokenizer_for, llama_tokenizer, fmt, thinking):
    tokenizer = _tokenizer(tokenizer_for, llama_tokenizer, fmt)
    seed = zlib.crc32(f"{_name(fmt)}-auto".encode())
    _, samples = sample_answers(tokenizer, fmt, REALISTIC, "auto", JSON_SCHEMA, thinking, SAMPLES, seed)
    got = verdicts(tokenizer, fmt, REALISTIC, "auto", JSON_SCHEMA, thinking, samples)
    assert set(got) <= {"answer", "calls", "unterminated"}, got
    assert "calls" in got and "answer" in got, got  # the steered walks call, the others answer
    assert got.count("unterminated") <= 1, got


@pytest.mark.parametrize("fmt", ["deepseek_r1", "gpt_oss"])
def test_json_object_answers_are_objects(tokenizer_for, fmt):
    tokenizer = tokenizer_for(fmt)
    _, samples = sample_answers(tokenizer, fmt, None, "none", JSON_OBJECT, True, SAMPLES, zlib.crc32(f"{fmt}-object".encode()))
    got = verdicts(tokenizer, fmt, None, "none", JSON_OBJECT, True, samples)
    assert set(got) <= {"answer", "unterminated"}, got
    assert got.count("answer") >= SAMPLES - 1, got


def test_under_required_the_response_format_leaves_only_calls(tokenizer):
    _, samples = sample_answers(tokenizer, "deepseek_r1", REALISTIC, "required", JSON_SCHEMA, True, 6, 11)
    got = verdicts(tokenizer, "deepseek_r1", REALISTIC, "required", JSON_SCHEMA, True, samples)
    assert set(got) <= {"calls", "unterminated"} and got.count("calls") >= 5, got
    # the tag is required's own: the response_format adds nothing
    assert build_structural_tag("deepseek_r1", REALISTIC, "required", response_format=JSON_SCHEMA) == build_structural_tag("deepseek_r1", REALISTIC, "required")


# ---------------------------------------------------------------- what the grammar refuses


def test_an_output_may_not_end_inside_its_thinking(tokenizer):
    grammar = compile_tool_grammar(tokenizer, "deepseek_r1", None, "none", response_format=JSON_SCHEMA)
    eos = grammar.stop_ids[0]
    g = ReasonerGrammar(grammar, thinking=True)
    assert g.blocks_eos and not g.accept_token(eos)
    assert "response_format requires an answer" in g.error
    # without response_format the same request may end while thinking
    free = ReasonerGrammar(compile_tool_grammar(tokenizer, "deepseek_r1", None, "none"), thinking=True)
    assert not free.blocks_eos and free.accept_token(eos)


def test_the_answer_is_json_and_nothing_else(tokenizer):
    grammar = compile_tool_grammar(tokenizer, "deepseek_r1", None, "none", response_format=JSON_SCHEMA)
    eos = grammar.stop_ids[0]
    good = '\n\n{"city": "Oslo", "days": 3, "unit": "C"}'
    g, ok = walk(grammar, tokenizer, good)
    assert ok and g.accept_token(eos) and g.is_terminated()
    for bad in ("Sure! " + good.strip(), '{"city": "Oslo", "days": 30, "unit": "C"}', '{"city": "Oslo", "days": 3}', good + " ok"):
        g, ok = walk(grammar, tokenizer, bad)
        assert not (ok and g.accept_token(eos)), bad
    # a missing answer is no answer
    g, _ = walk(grammar, tokenizer, "")
    assert not g.accept_token(eos)


def test_string_bounds_in_the_answer_are_held_by_the_guard(tokenizer):
    grammar = compile_tool_grammar(tokenizer, "deepseek_r1", None, "none", response_format=JSON_SCHEMA)
    size = grammar.vocab.size
    quote = tokenizer.encode('"', add_special_tokens=False)[0]
    g, ok = walk(grammar, tokenizer, '{"city": "O')
    assert ok and not allowed(g, quote, size)  # minLength 2
    g, ok = walk(grammar, tokenizer, '{"city": "Abcdefghijk')  # 11 of at most 12 characters
    assert ok and allowed(g, quote, size)
    [x] = tokenizer.encode("x", add_special_tokens=False)
    assert allowed(g, x, size) and g.accept_token(x)
    assert not allowed(g, x, size) and allowed(g, quote, size)


def test_the_answer_and_the_calls_under_auto_each_hold(tokenizer):
    grammar = compile_tool_grammar(tokenizer, "deepseek_r1", REALISTIC, "auto", response_format=JSON_SCHEMA)
    eos = grammar.stop_ids[0]
    call = get_format("deepseek_r1").tools.section_text([("get_weather", '{"city": "Oslo", "days": 2}')])
    for text in ('{"city": "Oslo", "days": 3, "unit": "F"}', "\n\n" + call):
        g, ok = walk(grammar, tokenizer, text)
        assert ok and g.accept_token(eos), (text, g.error)
    # free text is no longer an answer under auto
    g, ok = walk(grammar, tokenizer, "It is sunny.")
    assert not ok


def test_llama_bare_calls_refuse_a_json_answer_under_auto():
    with pytest.raises(ValueError, match="cannot be told from a call under tool_choice 'auto'"):
        build_structural_tag("llama3_json", REALISTIC, "auto", response_format=JSON_SCHEMA)
    build_structural_tag("llama3_json", REALISTIC, "none", response_format=JSON_SCHEMA)  # the answer alone
    build_structural_tag("llama3_json", REALISTIC, "required", response_format=JSON_SCHEMA)  # calls alone


def test_the_cache_tells_response_formats_apart(tokenizer):
    a = compile_tool_grammar(tokenizer, "deepseek_r1", None, "none", response_format=JSON_SCHEMA)
    reordered = {"json_schema": {"schema": FORECAST, "strict": True, "name": "forecast"}, "type": "json_schema"}
    assert compile_tool_grammar(tokenizer, "deepseek_r1", None, "none", response_format=reordered) is a
    assert compile_tool_grammar(tokenizer, "deepseek_r1", None, "none", response_format=JSON_OBJECT) is not a
    plain = compile_tool_grammar(tokenizer, "deepseek_r1", None, "none")
    assert plain is not a and plain.spec.answer is None
    assert compile_tool_grammar(tokenizer, "deepseek_r1", None, "none", response_format={"type": "text"}).spec.answer is None


# ---------------------------------------------------------------- shapes


@pytest.mark.parametrize(
    ("response_format", "message"),
    [
        ("json", "response_format must be an object"),
        ({"type": "xml"}, "response_format.type must be one of"),
        ({"type": "json_schema"}, "response_format.json_schema must be an object"),
        ({"type": "json_schema", "json_schema": {"schema": FORECAST}}, "response_format.json_schema.name"),
        ({"type": "json_schema", "json_schema": {"name": "x"}}, "response_format.json_schema.schema must be a JSON schema object"),
        ({"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "array"}}}, "must describe an object"),
        ({"type": "json_schema", "json_schema": {"name": "x", "schema": FORECAST, "strict": "yes"}}, "strict must be true or false"),
        ({"type": "json_schema", "json_schema": {"name": "x", "schema": FORECAST, "schemas": {}}}, "unknown field"),
        ({"type": "json_object", "schema": FORECAST}, "unknown field"),
    ],
)
def test_bad_shapes_name_the_field(response_format, message):
    with pytest.raises(ValueError, match=message):
        answer_schema(response_format)


def test_a_schema_is_checked_as_a_tools_parameters_are():
    bad = {"type": "json_schema", "json_schema": {"name": "f", "schema": {"type": "object", "properties": {"n": {"type": "integer", "multipleOf": 3}}}}}
    with pytest.raises(ValueError, match=r"response_format 'f'.*multipleOf"):
        build_structural_tag("deepseek_r1", None, "none", response_format=bad)
    # ...under "required" too: a bad response_format is never ignored
    with pytest.raises(ValueError, match="multipleOf"):
        build_structural_tag("deepseek_r1", REALISTIC, "required", response_format=bad)
    build_structural_tag("deepseek_r1", None, "none", response_format=bad, unsupported="relax")


# ---------------------------------------------------------------- reading the answer


def test_a_json_answer_stays_content_where_a_leading_brace_reads_as_calls(llama_tokenizer):
    answer = '{"city": "Oslo", "days": 3, "unit": "C"}'
    assert parse(answer, "llama3_json").content is None  # read as a (broken) call
    options = answer_reading("llama3_json", None, None, JSON_SCHEMA)
    assert options == {"reasoning_only": True}
    m = every_split_agrees(" " + answer, format="llama3_json", **options)  # streamed in any pieces alike
    assert m.content == " " + answer and not m.tool_calls and not m.invalid_tool_calls
    # tools under required: the answer is the calls, read as usual
    assert answer_reading("llama3_json", REALISTIC, "required", JSON_SCHEMA) == {}
    # formats whose calls have markers read the JSON as content as they are
    assert answer_reading("deepseek_r1", None, "none", JSON_SCHEMA) == {}
    m = parse("hm</think>\n\n" + answer, "deepseek_r1", thinking=True)
    assert (m.reasoning_content, m.content) == ("hm", "\n\n" + answer)
