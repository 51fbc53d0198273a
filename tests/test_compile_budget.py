"""Issue 34, point 0b: no single request's grammar holds an engine past the compile budget.

``^([a-z]{1,100}){1,100}$`` took 175 s to compile on the 2-core machine (DeepSeek V3.1,
"required"); it is refused by its estimate before anything compiles, and whatever the estimate
lets through that may be costly compiles in a child stopped at the deadline."""

import json
import os
import random
import time

import numpy as np
import pytest
import xgrammar as xgr

from schemas import GET_WEATHER
from thinkgate.constraint.grammar import compile_budget
from thinkgate.constraint.grammar.compile_budget import CompileTimeout, budget, compile_tag, pattern_cost, risky
from thinkgate.constraint.grammar.compiled import compile_tool_grammar
from thinkgate.constraint.runtime.vocabulary import vocabulary_for
from thinkgate.requests import RequestOptions, check_options

PATHOLOGICAL = "^([a-z]{1,100}){1,100}$"


def _tool(schema, name="f"):
    return {"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": {"s": schema}, "required": ["s"]}}}


def _pattern(p, name="f"):
    return _tool({"type": "string", "pattern": p}, name)


@pytest.fixture
def seconds(monkeypatch):
    def set_budget(value):
        monkeypatch.setenv("THINKGATE_COMPILE_BUDGET", str(value))

    return set_budget


def test_the_175_second_pattern_is_refused_by_name_before_anything_compiles(tokenizer, seconds, monkeypatch):
    seconds(5)
    vocabulary_for(tokenizer)  # (the vocabulary's own build is not the request's)

    def no_fork():
        raise AssertionError("a grammar the estimate refuses must not be compiled")

    monkeypatch.setattr(os, "fork", no_fork)
    with pytest.raises(ValueError) as e:
        compile_tool_grammar(tokenizer, "deepseek_v3_1", [_pattern(PATHOLOGICAL)], "required")
    message = str(e.value)
    assert message.startswith("tool 'f': 'pattern' '^([a-z]{1,100}){1,100}$' at #/properties/s repeats a variable-length repeat (10,000 positions)")
    assert "past the compile budget of 5 s (THINKGATE_COMPILE_BUDGET)" in message
    # at admission too, without a tokenizer (vLLM's server answers 400 before its engine sees it)
    with pytest.raises(ValueError, match="repeats a variable-length repeat"):
        check_options(RequestOptions(format="deepseek_v3_1", tools=[_pattern(PATHOLOGICAL)], tool_choice="required"))
    # a budget raised far enough lets the estimate pass (the deadline then judges the compile)
    seconds(1000)
    check_options(RequestOptions(format="deepseek_v3_1", tools=[_pattern(PATHOLOGICAL)], tool_choice="required"))


def test_a_compile_past_the_budget_is_stopped_and_refused(tokenizer, seconds):
    """([a-z]{1,20}){1,20} passes the estimate (400 positions, 0.34 s at its floor) and takes
    about 2.4 s: it is stopped at the deadline, and the grammar's name and the budget are said."""
    seconds(1)
    start = time.monotonic()
    with pytest.raises(CompileTimeout) as e:
        compile_tool_grammar(tokenizer, "deepseek_v3_1", [_pattern("^([a-z]{1,20}){1,20}$")], "required")
    took = time.monotonic() - start
    assert str(e.value).startswith("the grammar of format 'deepseek_v3_1' for the tools 'f' (tool_choice 'required'): xgrammar's compile ran past the compile budget of 1 s and was stopped")
    assert took < 2, took  # stopped, not waited for
    with pytest.raises(ChildProcessError):  # and the child is gone, not left running
        os.waitpid(-1, os.WNOHANG)


def test_a_grammar_compiled_under_the_deadline_masks_as_the_one_compiled_here(tokenizer):
    vocab = vocabulary_for(tokenizer)
    grammar = compile_tool_grammar(tokenizer, "deepseek_v3_1", [_pattern("^[a-z]{1,40}-[0-9]{2,12}$")], "required")
    tag = grammar.spec.tag
    assert risky(tag)
    here = vocab.compiler.compile_structural_tag(tag)
    there = compile_tag(vocab.compiler, vocab.info, tag, "test")  # (risky: through a child)
    text = '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{"s": "abc'
    ids = tokenizer.encode(text, add_special_tokens=False)
    masks = []
    for compiled in (here, there):
        m = xgr.GrammarMatcher(compiled)
        bitmask = xgr.allocate_token_bitmask(1, vocab.size)
        rows = []
        for i in ids:
            m.fill_next_token_bitmask(bitmask)
            rows.append(bitmask.numpy().copy())
            assert m.accept_token(i)
        m.fill_next_token_bitmask(bitmask)
        masks.append(np.concatenate(rows + [bitmask.numpy()]))
    assert (masks[0] == masks[1]).all()


def test_the_budget_is_read_from_the_environment(seconds):
    seconds(2.5)
    assert budget() == 2.5
    for off in ("off", "none", "0"):
        seconds(off)
        assert budget() is None
    for bad in ("soon", "-3"):
        seconds(bad)
        with pytest.raises(ValueError, match=f"THINKGATE_COMPILE_BUDGET='{bad}': give the compile budget in seconds"):
            budget()


def test_what_is_cheap_compiles_in_the_process(tokenizer):
    """Formats' own patterns (date-time's {1,9}) and ordinary tools are not risky: they compile
    here, as before, with no child's transfer to pay."""
    assert pattern_cost("^[0-9]{4}-[0-9]{2}(\\.[0-9]{1,9})?$") == (9, 0)
    assert pattern_cost(PATHOLOGICAL) == (100, 10_000)
    assert pattern_cost("^((ab|c){1,5}x){1,4}$") == (5, 0)  # (its strings split one way)
    assert pattern_cost("^([a-z]{3}){1,100}$") == (100, 0) and pattern_cost("^(([a-z]{1,9})){1,200}$") == (200, 0)
    grammar = compile_tool_grammar(tokenizer, "deepseek_v3_1", [GET_WEATHER, _tool({"type": "string", "format": "date-time"}, "when")], "required")
    assert not risky(grammar.spec.tag)


def test_a_routed_tool_set_refuses_a_costly_tool_when_compiled_not_when_called(tokenizer, seconds):
    seconds(1)
    tools = [_tool({"type": "integer", "minimum": i}, f"t{i}") for i in range(40)] + [_pattern("^([a-z]{1,20}){1,20}$", "slow")]
    with pytest.raises(CompileTimeout, match="the grammar of tool 'slow'"):
        compile_tool_grammar(tokenizer, "deepseek_v3_1", tools, "auto")


def _fuzz_case(rng: random.Random):
    kind = rng.choice(["nested", "triple", "branch", "single", "enum", "many"])
    if kind == "nested":
        return [_pattern(f"^([a-z]{{{rng.randint(0, 3)},{rng.randint(5, 120)}}}){{1,{rng.randint(5, 120)}}}$")]
    if kind == "triple":
        return [_pattern(f"^(([0-9]{{1,{rng.randint(2, 30)}}}x){{1,{rng.randint(2, 30)}}}y){{1,{rng.randint(2, 30)}}}$")]
    if kind == "branch":
        return [_pattern(f"^((ab|[c-f]{{1,{rng.randint(2, 40)}}}|g){{1,{rng.randint(2, 60)}}}-){{0,{rng.randint(2, 40)}}}$")]
    if kind == "single":
        return [_pattern(f"^[a-z0-9]{{{rng.randint(0, 10)},{rng.randint(10, 3000)}}}$")]
    if kind == "enum":
        return [_tool({"type": "string", "enum": [f"value-{i}-{rng.random():.6f}" for i in range(rng.randint(1000, 20000))]})]
    return [_pattern(f"^[a-z]{{1,{rng.randint(10, 127)}}}$", f"t{i}") for i in range(rng.randint(2, 31))]


def _fuzz(tokenizer, cases, seed, limit):
    rng = random.Random(seed)
    vocabulary_for(tokenizer)
    for n in range(cases):
        tools = _fuzz_case(rng)
        start = time.monotonic()
        try:
            compile_tool_grammar(tokenizer, "deepseek_v3_1", tools, "required")
        except ValueError as e:
            assert "compile budget" in str(e), e
        took = time.monotonic() - start
        # the compile stops at the budget; preparing the schemas before it (a 20,000-value
        # enum's) and reading a grammar back after it are not the compile's
        assert took < limit, (n, json.dumps(tools)[:300], took)


def test_no_pathological_schema_compiles_past_the_budget(tokenizer, seconds):
    seconds(1)
    _fuzz(tokenizer, 10, seed=34, limit=6)


@pytest.mark.slow
def test_no_pathological_schema_compiles_past_the_budget_deep(tokenizer, seconds):
    seconds(1)
    _fuzz(tokenizer, 120, seed=3400, limit=6)


def test_a_process_that_cannot_fork_compiles_in_place(tokenizer, seconds, monkeypatch, caplog):
    """fork refused (memory, a process limit): the grammar still compiles, in the process, and
    the log says it had no deadline."""
    seconds(5)
    vocab = vocabulary_for(tokenizer)
    tag = compile_tool_grammar(tokenizer, "deepseek_v3_1", [_pattern("^[a-z]{1,30}-[0-9]{1,12}$")], "required").spec.tag
    assert risky(tag)

    def refused():
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", refused)
    with caplog.at_level("WARNING", logger="thinkgate.constraint"):
        compiled = compile_tag(vocab.compiler, vocab.info, tag, "the test's grammar")
    assert isinstance(compiled, xgr.CompiledGrammar)
    assert "no child process for a compile under the deadline (Resource temporarily unavailable); the test's grammar compiles in the process" in caplog.text
