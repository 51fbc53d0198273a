"""Strict levels (issue 17, point 4): 2 holds the arguments to each tool's schema, 1 only the
markup, the tool names and a JSON object, 0 under "auto" leaves the answer alone; a tool's own
``function.strict`` sets its level; the parser agrees with the grammar on every level. The
random walks at level 1 are in ``test_constraint_sampling.py``."""

from __future__ import annotations

import json

import pytest
import torch

from helpers import RandomLogits, allowed, walk
from schemas import REALISTIC
from thinkgate import parse
from thinkgate.constraint import BatchMasker, ReasonerGrammar, compile_tool_grammar
from thinkgate.constraint.grammar.structural_tag import build_spec
from thinkgate.constraint.runtime.vocabulary import vocabulary_for
from thinkgate.formats import get_format
from thinkgate.formats.strict import check_strict
from thinkgate.requests import ChatRequest, RequestOptions, check_options, default_strict, request_options

CITY = {"type": "object", "properties": {"city": {"type": "string", "maxLength": 3}}, "required": ["city"]}


def tools(strict=None, parameters=CITY, name="get_weather"):
    fn = {"name": name, "parameters": parameters}
    if strict is not None:
        fn["strict"] = strict
    return [{"type": "function", "function": fn}]


# ------------------------------------------------------------------ the option, checked


@pytest.mark.parametrize("bad", [3, -1, "yes", "", True, 1.5, None])
def test_a_bad_level_is_an_error_naming_it(bad):
    with pytest.raises(ValueError, match=r"strict must be 0 \(parse only\), 1 \(markup and tool names\) or 2 \(full schemas\), not " + repr(bad).replace("(", r"\(").replace(".", r"\.")):
        check_strict(bad)
    if bad is not None:  # an absent option is the default
        with pytest.raises(ValueError, match="thinkgate option 'strict' must be 0"):
            request_options({"thinkgate": {"format": "deepseek_r1", "strict": bad}})
        with pytest.raises(ValueError, match="strict must be 0"):
            ChatRequest(messages=[{"role": "user", "content": "hi"}], strict=bad)


def test_levels_as_given_and_as_digits():
    assert [check_strict(v) for v in (0, 1, 2, "0", " 1 ", "2")] == [0, 1, 2, 0, 1, 2]
    assert request_options({"thinkgate": {"format": "deepseek_r1", "strict": "1"}}).strict == 1
    assert request_options({"thinkgate": json.dumps({"format": "deepseek_r1"})}).strict == 2
    assert ChatRequest(messages=[{"role": "user", "content": "hi"}]).strict is None  # the caller's default


@pytest.mark.parametrize("bad", ["yes", "true", 1, [True]])
def test_a_tool_strict_that_is_no_boolean_is_an_error_naming_the_tool(bad):
    with pytest.raises(ValueError, match=r"tools\[0\] \('get_weather'\): function.strict must be true or false, not " + repr(bad).replace("[", r"\[").replace("]", r"\]")):
        check_options(RequestOptions(format="deepseek_r1", tools=tools(bad), tool_choice="auto"))
    with pytest.raises(ValueError, match="function.strict must be true or false"):
        parse("x", "deepseek_r1", tools=tools(bad))


def test_the_server_default_comes_from_the_environment(monkeypatch):
    monkeypatch.delenv("THINKGATE_STRICT", raising=False)
    assert default_strict() == 2
    monkeypatch.setenv("THINKGATE_STRICT", "1")
    assert default_strict() == 1
    monkeypatch.setenv("THINKGATE_STRICT", "strict")
    with pytest.raises(ValueError, match="the environment variable THINKGATE_STRICT must be 0"):
        default_strict()


# ------------------------------------------------------------------ the grammar


def levels(spec):
    return {t.name: t.level for t in spec.tools}


def test_each_tool_gets_its_level():
    two = tools(None, name="a") + tools(False, name="b") + tools(True, name="c")
    assert levels(build_spec("deepseek_r1", two, "auto")) == {"a": 2, "b": 1, "c": 2}
    assert levels(build_spec("deepseek_r1", two, "auto", strict=1)) == {"a": 1, "b": 1, "c": 2}
    # level 0 with a tool that asks for its schema: the answer is held; a grammar cannot leave
    # one tool's markup free and hold another's, so the rest are held at level 1
    spec = build_spec("deepseek_r1", two, "auto", strict=0)
    assert not spec.free_answer and levels(spec) == {"a": 1, "b": 1, "c": 2}
    # a call is required: level 0 is level 1
    assert levels(build_spec("deepseek_r1", two[:2], "required", strict=0)) == {"a": 1, "b": 1}
    assert levels(build_spec("deepseek_r1", two[:2], {"type": "function", "function": {"name": "b"}}, strict=0)) == {"b": 1}


def test_level_zero_under_auto_admits_any_answer():
    # strict false asks for less than the schema, never for more than level 0
    for ts in (tools(), tools(False)):
        spec = build_spec("deepseek_r1", ts, "auto", strict=0)
        assert spec.free_answer and spec.tools == []
        assert spec.tag == {"type": "structural_tag", "format": {"type": "any_text", "excludes": []}}
    assert build_spec("deepseek_r1", tools(), "auto", strict=0, control_ids=[1, 2]).tag["format"] == {"type": "any_tokens", "exclude_tokens": []}


def test_below_level_two_a_schema_is_neither_prepared_nor_refused():
    unenforceable = {"type": "object", "properties": {"n": {"type": "integer", "multipleOf": 3}}}
    with pytest.raises(ValueError, match="'multipleOf'"):
        build_spec("deepseek_r1", tools(parameters=unenforceable), "required")
    for spec in (build_spec("deepseek_r1", tools(parameters=unenforceable), "required", strict=1), build_spec("deepseek_r1", tools(False, unenforceable), "required")):
        assert spec.tools[0].schema.xgrammar_schema == {"type": "object"}
    check_options(RequestOptions(format="deepseek_r1", tools=tools(parameters=unenforceable), strict=0))


def test_the_cache_keeps_levels_apart_and_the_guard_follows_a_free_object(tokenizer):
    """At level 2 the guard ends a three-character city; at level 1 the same call writes on,
    and a call the schema would refuse is one the grammar takes."""
    vocab = vocabulary_for(tokenizer)
    fmt = get_format("deepseek_r1")
    strict, free = (compile_tool_grammar(tokenizer, fmt, tools(), "required", strict=s) for s in (2, 1))
    assert strict is not free and strict is compile_tool_grammar(tokenizer, fmt, tools(), "required")
    assert compile_tool_grammar(tokenizer, fmt, tools(False), "required") is not strict
    full = fmt.tools.section_text([("get_weather", '{"city": "Copenhagen"}')])
    opened = full[: full.index("Cop") + 2]
    [m] = tokenizer.encode("m", add_special_tokens=False)
    for grammar, stops in ((strict, True), (free, False)):
        g, ok = walk(grammar, tokenizer, opened)
        assert ok and g.accept_token(m)
        assert allowed(g, m, vocab.size) is not stops
    assert walk(free, tokenizer, fmt.tools.section_text([("get_weather", '{"town": [1, {"x": null}]}')]))[1]
    assert not walk(strict, tokenizer, fmt.tools.section_text([("get_weather", '{"town": "Oslo"}')]))[1]
    # the name is still one of the tools'
    assert not walk(free, tokenizer, fmt.tools.section_text([("get_forecast", '{}')]))[1]


# ------------------------------------------------------------------ level 0 at run time


@pytest.mark.parametrize("fmt", ["deepseek_r1", "qwen3", "gpt_oss", "llama3_json"])
def test_level_zero_leaves_the_logits_alone_after_thinking(tokenizer_for, fmt):
    """Under auto at level 0, every step after thinking leaves the logits as they were (control
    tokens and all), and the budget still forces the end of thinking."""
    tokenizer = tokenizer_for(fmt)
    grammar = compile_tool_grammar(tokenizer, fmt, REALISTIC, "auto", strict=0)
    vocab = vocabulary_for(tokenizer)
    thinks = grammar.format.reasoning.present
    g = ReasonerGrammar(grammar, thinking=thinks, thinking_budget=2 if thinks else None)
    masker = BatchMasker(vocab.size, 1)
    random_logits = RandomLogits(0)
    forced = untouched = 0
    for step in range(60):
        logits = random_logits(1, vocab.size)
        before = logits.clone()
        masker([g], logits)
        if g.forcing_close or grammar.close_tail and g.phase.name == "CLOSING":
            assert torch.isfinite(logits[0]).sum() == 1  # the budget's </think> (and harmony's <|start|>assistant)
            forced += 1
        elif g.phase.name in ("THINKING", "CONSTRAINED", "OPENING"):
            assert torch.equal(logits, before), g.phase
            untouched += g.phase.name != "THINKING"
        token = int(logits.argmax())
        assert g.accept_token(token), g.error
        if g.is_terminated():
            break
    assert untouched >= 10 and forced == (len(grammar.close_ids) + len(grammar.close_tail) if thinks else 0)
    # a control token (a tool marker) is anyone's after thinking: the model's, unmasked
    control = sorted(vocab.control_ids - set(grammar.stop_ids))[0]
    g = ReasonerGrammar(grammar, thinking=False)
    assert not g.needs_bitmask and g.accept_token(control) and not g.needs_bitmask


def test_level_zero_ends_at_the_end_of_sequence_and_rolls_back(tokenizer):
    grammar = compile_tool_grammar(tokenizer, "deepseek_r1", REALISTIC, "auto", strict=0)
    g = ReasonerGrammar(grammar, thinking=True)
    close = grammar.think_close
    ids = [*tokenizer.encode("hm", add_special_tokens=False), close, *tokenizer.encode("Hello", add_special_tokens=False)]
    assert g.accept_tokens(ids) and g.phase.name == "CONSTRAINED" and not g.needs_bitmask
    g.rollback(len(ids) - 1)
    assert g.phase.name == "THINKING"
    assert g.accept_tokens(ids[1:] + [grammar.stop_ids[0]]) and g.is_terminated()


# ------------------------------------------------------------------ the parser agrees


OFF_SCHEMA = '{"city": "Copenhagen", "days": 3}'  # a city too long, and a key the schema closes out


@pytest.mark.parametrize(
    ("strict", "tool_strict", "valid"),
    [(2, None, False), (1, None, True), (0, None, True), (2, False, True), (1, True, False), (0, True, False)],
)
def test_the_parser_holds_a_call_to_its_schema_only_at_level_two(strict, tool_strict, valid):
    closed = {**CITY, "additionalProperties": False}
    text = "</think>" + get_format("deepseek_r1").tools.section_text([("get_weather", OFF_SCHEMA)])
    m = parse(text, "deepseek_r1", tools=tools(tool_strict, closed), strict=strict)
    assert [c.arguments for c in m.tool_calls] == ([OFF_SCHEMA] if valid else [])
    assert len(m.invalid_tool_calls) == (0 if valid else 1)
    # below level 2 the arguments are still a JSON object, and the name a tool's
    not_object = "</think>" + get_format("deepseek_r1").tools.section_text([("get_weather", "[1]"), ("get_forecast", "{}")])
    m = parse(not_object, "deepseek_r1", tools=tools(tool_strict, closed), strict=strict)
    assert m.tool_calls == [] and len(m.invalid_tool_calls) == 2


@pytest.mark.parametrize("fmt", ["qwen3_coder", "glm45", "minimax_m2"])
def test_parameters_below_level_two_are_typed_but_not_checked(fmt):
    schema = {"type": "object", "properties": {"city": {"type": "string", "maxLength": 3}, "days": {"type": "integer"}}, "required": ["city", "days"]}
    text = get_format(fmt).tools.section_text([("get_weather", json.dumps({"city": "Copenhagen", "extra": 42}))])
    assert parse(text, fmt, thinking=False, tools=tools(None, schema)).tool_calls == []
    [call] = parse(text, fmt, thinking=False, tools=tools(None, schema), strict=1).tool_calls
    # (a key the schema does not list: nothing types it, its value is the text written)
    assert json.loads(call.arguments) == {"city": "Copenhagen", "extra": "42"}
    # the city declared a string stays the text written, digits and all
    digits = get_format(fmt).tools.section_text([("get_weather", json.dumps({"city": "101"}))])
    [call] = parse(digits, fmt, thinking=False, tools=tools(False, schema)).tool_calls
    assert json.loads(call.arguments) == {"city": "101"}
