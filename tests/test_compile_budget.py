"""The compile budget: what xgrammar's compile of a schema or tool set would cost is estimated
before anything compiles, and past the budget the request is refused by name (tool, place,
keyword, advice) on every path that compiles: thinkgate's processor, the exported structural
tag, the admission check and a routed tool set. Tests assert what the estimate accepts and
refuses, never a time: ``benchmarks/compile_budget.py`` measures estimate against compile."""

from __future__ import annotations

import json
import os
import random
import time

import jsonschema
import numpy as np
import pytest

from schema_fuzz import Walker
from thinkgate.constraint import build_structural_tag, compile_tool_grammar
from thinkgate.constraint.compile_budget import (
    BUDGET_ENV,
    DEFAULT_BUDGET,
    CompileBudgetError,
    compile_budget,
    pattern_seconds,
    schema_seconds,
)
from thinkgate.constraint.schema import prepare
from thinkgate.constraint.schema_patterns import FORMATS, bounded_format, pattern_width
from thinkgate.constraint.vocabulary import vocabulary_for

MONSTER = "^([a-z]{1,100}){1,100}$"  # 175 s of xgrammar compile on the 2-core machine


def tools(pattern_schema, name="f", n=1):
    return [
        {"type": "function", "function": {"name": f"{name}{i}" if n > 1 else name, "parameters": {"type": "object", "properties": {"a": pattern_schema}, "required": ["a"]}}}
        for i in range(n)
    ]


def test_the_175_second_pattern_is_refused_by_name_fast(tokenizer):
    t = tools({"type": "string", "pattern": MONSTER})
    paths = {
        "processor": lambda: compile_tool_grammar(tokenizer, "deepseek_v3_1", t, "required"),
        "exported tag": lambda: build_structural_tag("deepseek_v3_1", t, "required"),
        "exported tag with tokenizer": lambda: build_structural_tag("deepseek_v3_1", t, "required", tokenizer=tokenizer),
        "routed set": lambda: compile_tool_grammar(tokenizer, "deepseek_v3_1", tools({"type": "string", "pattern": MONSTER}, n=40) , "required"),
    }
    for what, call in paths.items():
        start = time.perf_counter()
        with pytest.raises(ValueError) as e:
            call()
        assert time.perf_counter() - start < 5, what  # (xgrammar would take minutes: never reached)
        message = str(e.value)
        assert "tool 'f" in message and "#/properties/a" in message and "'pattern'" in message and BUDGET_ENV in message, (what, message)


def test_admission_refuses_it_too():
    from thinkgate.requests import RequestOptions, check_options

    with pytest.raises(ValueError, match=r"tool 'f'.*'pattern'.*#/properties/a"):
        check_options(RequestOptions(format="deepseek_v3_1", tools=tools({"type": "string", "pattern": MONSTER + " "[:0]}), tool_choice="required"))


def test_the_budget_is_configurable(monkeypatch):
    assert compile_budget() == DEFAULT_BUDGET
    monkeypatch.setenv(BUDGET_ENV, "inf")
    assert compile_budget() == float("inf")
    prepare({"type": "object", "properties": {"a": {"type": "string", "pattern": "^([a-y]{1,100}){1,100}$"}}}, "tool 'g'", ask_xgrammar=False)
    monkeypatch.setenv(BUDGET_ENV, "0.01")
    with pytest.raises(CompileBudgetError, match="budget is 10 ms"):
        prepare({"type": "object", "properties": {"a": {"type": "string", "pattern": "^[a-x]{1,100}$"}}}, "tool 'g'", ask_xgrammar=False)
    monkeypatch.setenv(BUDGET_ENV, "soon")
    with pytest.raises(ValueError, match=BUDGET_ENV):
        compile_budget()


@pytest.mark.parametrize(
    "schema, keyword",
    [
        ({"type": "string", "pattern": "^[a-z]{1,30000}$"}, "'pattern'"),  # a counter: its bound squared
        ({"type": "string", "pattern": "^(([a-z]{1,8}){1,8}){1,8}$"}, "'pattern'"),
        ({"type": "string", "enum": [f"value-{i:08d}" for i in range(400_000)]}, "'enum'"),
        ({"type": "object", "properties": {f"p{i}": {"type": "integer"} for i in range(3000)}}, "'properties'"),
        ({"type": "object", "patternProperties": {MONSTER: {"type": "integer"}}}, "'patternProperties'"),
    ],
)
def test_what_expands_past_the_budget_is_refused_by_name(schema, keyword):
    with pytest.raises(CompileBudgetError) as e:
        prepare({"type": "object", "properties": {"a": schema}, "required": ["a"]}, "tool 't'", ask_xgrammar=False)
    assert "tool 't'" in str(e.value) and keyword in str(e.value) and "#/properties/a" in str(e.value)


def test_a_tool_set_is_costed_together(tokenizer):
    # each tool well within the budget alone; together past it in a full grammar
    each = {"type": "string", "pattern": "^([a-z]{1,8}){1,8}$"}
    alone = schema_seconds({"type": "string", "pattern": "^([a-z]{1,8}){1,8}$"})
    n = int(DEFAULT_BUDGET / alone) + 2
    assert n < 32  # (below the routing threshold: one full grammar)
    t = [{"type": "function", "function": {"name": f"f{i}", "parameters": {"type": "object", "properties": {"a": {**each, "pattern": f"^([a-z]{{1,8}}){{1,8}}{'x' * i}$"}}}}} for i in range(n)]
    with pytest.raises(CompileBudgetError, match=rf"the {n} schemas of this request would take"):
        compile_tool_grammar(tokenizer, "deepseek_v3_1", t, "required")


@pytest.mark.parametrize("fmt", ["email", "uri"])
def test_format_with_max_length_is_bounded_exactly(fmt):
    """The format's pattern within the length: every string it matches matches the format and
    the length (so a string begun can be finished within it), for every length from the shortest."""
    original = FORMATS[fmt]
    for hi in [*range(1, 40), 50, 64, 100, 128, 254, 320, 2048]:
        written = bounded_format(fmt, 0, hi)
        if written is None:
            assert pattern_width(original)[0] > hi
            continue
        shortest, longest = pattern_width(written)
        assert longest <= hi and shortest == pattern_width(original)[0]
        assert written.count("{") < 20 and pattern_seconds(written) < 60  # (costed by measurement: OWN_PATTERNS)


@pytest.mark.parametrize("fmt, hi", [("email", 40), ("email", 254), ("uri", 30), ("uri", 200)])
def test_format_with_max_length_walks_validate(tokenizer, fmt, hi):
    """Random walks under the grammar of a format with maxLength: every value matches the
    format's own pattern, passes jsonschema's format check and keeps the length."""
    schema = {"type": "object", "properties": {"v": {"type": "string", "format": fmt, "maxLength": hi}}, "required": ["v"]}
    t = [{"type": "function", "function": {"name": "f", "parameters": schema}}]
    grammar = compile_tool_grammar(tokenizer, "deepseek_v3_1", t, "required", parallel_tool_calls=False)
    walker = Walker(tokenizer, vocabulary_for(tokenizer))
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    rng = np.random.default_rng(hi)
    done = 0
    for _ in range(12):
        ids, g = walker.walk(grammar, rng, max_tokens=600)
        assert g.error is None
        if not g.is_terminated():
            continue
        m = walker.arguments("deepseek_v3_1", ids, t)
        assert len(m.tool_calls) == 1, m
        args = json.loads(m.tool_calls[0].arguments)
        assert not list(validator.iter_errors(args)), args
        import re

        assert re.fullmatch(FORMATS[fmt], args["v"]) and len(args["v"]) <= hi, args
        done += 1
    assert done >= 3


# ------------------------------------------------------------------ the fuzz


def pathological(rng: random.Random) -> dict:
    """A schema of the kinds that expand: nested bounded repeats, counters, alternations, large
    enums, many optional properties, or several of them at once."""
    kind = rng.randrange(6)
    if kind == 0:
        depth = rng.randint(1, 3)
        p = rng.choice(["[a-z]", "[0-9]", "[A-Za-z0-9 ]", ".", "(ab|cd)", "[a-z][.]"])
        for _ in range(depth):
            lo = rng.choice([0, 1, 2])
            p = f"({p}){{{lo},{rng.choice([2, 5, 10, 20, 50, 100, 128, 129, 300])}}}"
        return {"type": "string", "pattern": f"^{p}$"}
    if kind == 1:
        return {"type": "string", "pattern": f"^[a-z]{{{rng.choice([0, 1, 100])},{rng.choice([500, 2000, 6000, 20000, 100000])}}}$"}
    if kind == 2:
        n = rng.choice([10, 1000, 10_000, 100_000, 300_000])
        return {"type": "string", "enum": [f"v{i:0{rng.randint(1, 12)}d}" for i in range(n)]}
    if kind == 3:
        n = rng.choice([10, 300, 1000, 2500, 4000])
        return {"type": "object", "properties": {f"p{i}": {"type": "integer"} for i in range(n)}}
    if kind == 4:
        words = [f"w{i}" for i in range(rng.choice([3, 30, 300]))]
        return {"type": "string", "pattern": "^(" + "|".join(words) + f"){{1,{rng.choice([2, 20, 200])}}}$"}
    return {"anyOf": [pathological(rng) for _ in range(rng.randint(2, 3))]}


def _check_pathological(tokenizer, seed: int, stats: dict) -> None:
    rng = random.Random(seed)
    n = rng.choice([1, 1, 1, 3, 40])
    t = [{"type": "function", "function": {"name": f"f{i}", "parameters": {"type": "object", "properties": {"a": pathological(rng)}, "required": ["a"]}}} for i in range(n)]
    start = time.perf_counter()
    try:
        grammar = compile_tool_grammar(tokenizer, "deepseek_v3_1", t, "required")
    except CompileBudgetError as e:
        assert "tool 'f" in str(e) or "schemas of this request" in str(e), str(e)
        assert "#/" in str(e) or "schemas of this request" in str(e)
        stats["refused"] = stats.get("refused", 0) + 1
        return
    except ValueError as e:  # refused for another reason (a pattern xgrammar cannot take): by name
        assert "#" in str(e), str(e)
        stats["other"] = stats.get("other", 0) + 1
        return
    stats["compiled"] = stats.get("compiled", 0) + 1
    stats.setdefault("times", []).append((time.perf_counter() - start, json.dumps(t)[:120]))
    assert grammar.compiled is not None


def test_pathological_schemas_compile_or_are_refused_by_name(tokenizer):
    stats: dict = {}
    for seed in range(int(os.environ.get("THINKGATE_BUDGET_FUZZ", 24))):
        _check_pathological(tokenizer, seed, stats)
    assert stats.get("refused") and stats.get("compiled"), stats


@pytest.mark.slow
def test_thousands_of_pathological_schemas(tokenizer):
    stats: dict = {}
    for seed in range(int(os.environ.get("THINKGATE_BUDGET_FUZZ", 2000))):
        _check_pathological(tokenizer, 10_000 + seed, stats)
    times = sorted(stats.get("times", []), reverse=True)
    print("\ncompile budget fuzz:", {k: v for k, v in stats.items() if k != "times"}, "slowest compiles:", times[:5])
