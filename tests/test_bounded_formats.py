"""Issue 34, point 9: ``format: email`` or ``uri`` beside ``maxLength`` (an ordinary schema) is
served: the format's pattern is written within the length, so xgrammar holds both exactly and a
string begun can always be finished within the length."""

import json
import re

import jsonschema
import numpy as np
import pytest

from schema_fuzz import Walker
from thinkgate.constraint import compile_tool_grammar
from thinkgate.constraint.schemas.schema_patterns import FORMATS, bounded_format, pattern_width
from thinkgate.constraint.runtime.vocabulary import vocabulary_for


@pytest.mark.parametrize("fmt", ["email", "uri"])
def test_the_format_within_a_length_matches_the_format_and_the_length(fmt):
    """For every length from the shortest, every string the written pattern matches is the
    format's and within the length (its longest string is), and the shortest is the format's."""
    original = FORMATS[fmt]
    for hi in [*range(1, 40), 50, 64, 100, 128, 254, 320, 2048]:
        written = bounded_format(fmt, 0, hi)
        if written is None:
            assert pattern_width(original)[0] > hi
            continue
        shortest, longest = pattern_width(written)
        assert longest <= hi and shortest == pattern_width(original)[0], (hi, written)


@pytest.mark.parametrize("fmt, hi", [("email", 40), ("email", 254), ("uri", 30), ("uri", 200)])
def test_calls_with_a_bounded_format_validate(tokenizer, fmt, hi):
    """Random walks under the grammar: every value matches the format's own pattern, passes
    jsonschema's format check and keeps the length."""
    schema = {"type": "object", "properties": {"v": {"type": "string", "format": fmt, "maxLength": hi}}, "required": ["v"]}
    tools = [{"type": "function", "function": {"name": "f", "parameters": schema}}]
    grammar = compile_tool_grammar(tokenizer, "deepseek_v3_1", tools, "required", parallel_tool_calls=False)
    walker = Walker(tokenizer, vocabulary_for(tokenizer))
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    rng = np.random.default_rng(hi)
    done = 0
    for _ in range(12):
        ids, g = walker.walk(grammar, rng, max_tokens=600)
        assert g.error is None
        if not g.is_terminated():
            continue
        m = walker.arguments("deepseek_v3_1", ids, tools)
        assert len(m.tool_calls) == 1, m
        args = json.loads(m.tool_calls[0].arguments)
        assert not list(validator.iter_errors(args)), args
        assert re.fullmatch(FORMATS[fmt], args["v"]) and len(args["v"]) <= hi, args
        done += 1
    assert done >= 3
