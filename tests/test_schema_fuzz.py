"""Schema fuzzing: every schema shape either compiles to a grammar no wider than the schema or is
refused up front with a ``ValueError`` naming the keyword and its place — never another
exception. Random walks under each compiled grammar (the DeepSeek tokenizer, the run-time guard
on) parse into one call whose arguments jsonschema accepts, formats checked.

The default run fuzzes a fast subset; ``python -m pytest -m slow -s tests/test_schema_fuzz.py``
runs 10,000 schemas (``THINKGATE_FUZZ_SCHEMAS`` changes the count) and prints the counts."""

from __future__ import annotations

import json
import os
from collections import Counter

import jsonschema
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schema_fuzz import Walker, refusal_is_named, tool, tool_schemas
from thinkgate.constraint import compile_tool_grammar
from thinkgate.constraint.runtime.vocabulary import vocabulary_for

CHECKER = jsonschema.Draft202012Validator.FORMAT_CHECKER
STATS: Counter = Counter()


# JSON arguments after a header (DeepSeek V3.1, the DeepSeek tokenizer) and inside a call
# object whose name picks the schema (Qwen3, the Qwen tokenizer; the guard follows the object).
LAYOUTS = {"deepseek_v3_1": "tokenizer", "qwen3": "qwen_tokenizer"}
if os.environ.get("THINKGATE_FUZZ_XML"):  # parameters (xgrammar's XML styles): compiles take longer
    LAYOUTS.update(qwen3_coder="qwen_tokenizer", glm45="glm_tokenizer")


@pytest.fixture(scope="module", params=list(LAYOUTS))
def walker(request):
    tokenizer = request.getfixturevalue(LAYOUTS[request.param])
    w = Walker(tokenizer, vocabulary_for(tokenizer))
    w.format = request.param
    return w


@pytest.fixture(scope="module", autouse=True)
def report():
    yield
    if STATS:
        print("\nschema fuzz:", ", ".join(f"{k} {v}" for k, v in sorted(STATS.items())))


def check(walker, parameters, seed, walks=2):
    """Compile or refuse by name; then every walk that ends is one valid call."""
    tokenizer = walker.tokenizer
    tools = tool(parameters)
    STATS["schemas"] += 1
    try:
        grammar = compile_tool_grammar(tokenizer, walker.format, tools, "required", parallel_tool_calls=False)
    except ValueError as e:
        assert refusal_is_named(str(e)), str(e)
        STATS["refused"] += 1
        return
    STATS["compiled"] += 1
    validator = jsonschema.Draft202012Validator(parameters if isinstance(parameters, dict) else {}, format_checker=CHECKER)
    rng = np.random.default_rng(seed)
    for _ in range(walks):
        ids, g = walker.walk(grammar, rng)
        assert g.error is None, (parameters, g.error)  # grammar and guard never leave a dead end
        if not g.is_terminated():
            STATS["walks unterminated"] += 1
            continue
        m = walker.arguments(walker.format, ids, tools)
        assert len(m.tool_calls) == 1 and not m.invalid_tool_calls, (parameters, m)
        args = json.loads(m.tool_calls[0].arguments)
        assert isinstance(args, dict)
        errors = [e.message for e in validator.iter_errors(args)]
        assert not errors, (parameters, args, errors)
        STATS["walks valid"] += 1


_FUZZ = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])


@settings(max_examples=int(os.environ.get("THINKGATE_EXAMPLES", 40)), **_FUZZ)
@given(parameters=tool_schemas(), seed=st.integers(0, 2**32 - 1))
def test_every_schema_compiles_exactly_or_is_refused_by_name(walker, parameters, seed):
    check(walker, parameters, seed)


@pytest.mark.slow
@settings(max_examples=int(os.environ.get("THINKGATE_FUZZ_SCHEMAS", 10_000)), **_FUZZ)
@given(parameters=tool_schemas(), seed=st.integers(0, 2**32 - 1))
def test_ten_thousand_schemas(walker, parameters, seed):
    check(walker, parameters, seed)
