"""The compile budget (issue 34, 0b): what each guard costs and what it judges.

For each schema (one tool, DeepSeek V3.1, tool_choice "required", DeepSeek's 129k vocabulary):
its largest counted repeat and nested positions, the estimate's floor, whether the tag is
risky (compiled in a child under the deadline), xgrammar's compile in this process (skipped
where the floor passes ``--cap`` seconds), and ``compile_tool_grammar`` under the default budget
(what a request meets: compiled, refused by the estimate, or stopped at the deadline).

    python benchmarks/compile_budget.py [--out benchmarks/results/compile_budget.json] [--cap 30]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))

from schemas import REALISTIC  # noqa: E402

from thinkgate.constraint.grammar import compile_budget as cb  # noqa: E402
from thinkgate.constraint.grammar.compiled import grammar_cache  # noqa: E402
from thinkgate.constraint.grammar.structural_tag import build_spec  # noqa: E402
from thinkgate.formats import get_format  # noqa: E402
from thinkgate.tokenizers import family_tokenizer  # noqa: E402


def tool(schema, name="f"):
    return {"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": {"s": schema}, "required": ["s"]}}}


def pattern(p):
    return [tool({"type": "string", "pattern": p})]


CASES = {
    "realistic four tools": REALISTIC,
    "date-time": [tool({"type": "string", "format": "date-time"})],
    "ipv6": [tool({"type": "string", "format": "ipv6"})],
    "maxLength 5000": [tool({"type": "string", "maxLength": 5000})],
    "enum 10,000": [tool({"type": "string", "enum": [f"v{i}" for i in range(10_000)]})],
    "[a-z]{1,100}": pattern("^[a-z]{1,100}$"),
    "[a-z]{1,1000}": pattern("^[a-z]{1,1000}$"),
    "20 x [a-z]{1,64}": [tool({"type": "string", "pattern": "^[a-z]{1,64}$"}, f"t{i}") for i in range(20)],
    "([a-z]{1,10}){1,10}": pattern("^([a-z]{1,10}){1,10}$"),
    "([a-z]{1,20}){1,20}": pattern("^([a-z]{1,20}){1,20}$"),
    "([a-z]{1,30}){1,30}": pattern("^([a-z]{1,30}){1,30}$"),
    "([a-z]{3}){1,200}": pattern("^([a-z]{3}){1,200}$"),
    "(([0-9]{1,8}x){1,8}y){1,8}": pattern("^(([0-9]{1,8}x){1,8}y){1,8}$"),
    "([a-z]{1,100}){1,100}": pattern("^([a-z]{1,100}){1,100}$"),
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="benchmarks/results/compile_budget.json")
    ap.add_argument("--cap", type=float, default=30.0, help="skip the unguarded compile where the floor passes this")
    args = ap.parse_args()
    tok = family_tokenizer("deepseek")
    cache = grammar_cache(tok)
    vocab = cache.vocab
    fmt = get_format("deepseek_v3_1")
    rows = []
    print(f"budget {cb.budget()} s, vocabulary {vocab.size}, compile threads {cb.compile_threads()}")
    print(f"{'schema':30} {'repeat':>6} {'nested':>7} {'floor s':>8} {'risky':>5} {'compile s':>9} {'request s':>9}  outcome")
    for name, tools in CASES.items():
        spec = build_spec(fmt, tools, "required", True)
        largest = max([cb.pattern_cost(p)[0] for t in spec.tools for _, p in cb._patterns(t.schema.xgrammar_schema)] or [0])
        nested = max([cb.pattern_cost(p)[1] for t in spec.tools for _, p in cb._patterns(t.schema.xgrammar_schema)] or [0])
        floor = nested * cb.SECONDS_PER_POSITION * vocab.size / cb.REFERENCE_VOCAB
        risky = cb.risky(spec.tag)
        plain = None
        if floor <= args.cap:
            start = time.perf_counter()
            vocab.compiler.compile_structural_tag(spec.tag)
            plain = time.perf_counter() - start
        start = time.perf_counter()
        try:
            cache.get(fmt, tools, "required", True)
            outcome = "compiled"
        except cb.CompileTimeout:
            outcome = "stopped at the deadline"
        except ValueError as e:
            outcome = "refused by the estimate" if "repeats a variable-length repeat" in str(e) else f"refused: {e}"
        request = time.perf_counter() - start
        rows.append({"schema": name, "largest_repeat": largest, "nested_positions": nested, "floor_s": floor, "risky": risky, "compile_s": plain, "request_s": request, "outcome": outcome})
        shown = "-" if plain is None else f"{plain:.3f}"
        print(f"{name:30} {largest:>6} {nested:>7} {floor:>8.2f} {str(risky):>5} {shown:>9} {request:>9.3f}  {outcome}", flush=True)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump({"budget_s": cb.budget(), "vocab_size": vocab.size, "threads": cb.compile_threads(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
