"""Agent-size tool sets: compile time and per-step mask cost with 10, 100 and 400 tools.

The tools are the distinct functions of the Berkeley Function Calling Leaderboard (PyPI
``bfcl-eval``: its single-turn data sets, converted with its own ``convert_to_tool`` to OpenAI
tools, first occurrence of each name kept). Format DeepSeek V3.1 (others with ``--format``:
``qwen3`` with Qwen's tokenizer), the format's tokenizer where a package ships it (else
DeepSeek's), tool_choice "auto". For each size, the full grammar (``route_from=None``)
against the routed one (thinkgate's default above ``ROUTE_FROM`` tools):

* cold: a fresh grammar cache (a first request for this tool set in a fresh server);
* cached: the same tool set again;
* first token: cold compile + the request's matcher + its first row (what the first token of
  a request that does not think waits for);
* first call: the extra wait of the first step inside a call's arguments whose tool was never
  compiled (the routed grammar compiles that tool there; the full grammar has it);
* fill p50 / p99: ``ReasonerGrammar.fill_bitmask`` per step (xgrammar's fill, the guard, the
  tool's matcher where routed) over realistic calls (each tool's example arguments), every
  tool's call walked twice and the second walk timed.

    pip install bfcl-eval   # or: pip install --no-deps bfcl-eval tenacity tree-sitter==0.21.3 tree-sitter-java==0.21.0 tree-sitter-javascript==0.21.4
    python benchmarks/many_tools.py [--sizes 10 100 400] [--format qwen3] [--out benchmarks/results/many_tools.json]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import sys
import time

import numpy as np
import xgrammar as xgr

from thinkgate.constraint.grammar.compiled import GrammarCache
from thinkgate.constraint.schemas.examples import example_value
from thinkgate.constraint.runtime.reasoner import ReasonerGrammar
from thinkgate.constraint.runtime.routed import ROUTE_FROM
from thinkgate.constraint.grammar.structural_tag import _prepared
from thinkgate.constraint.runtime.vocabulary import vocabulary_for
from thinkgate.formats import get_format
from thinkgate.tokenizers import FORMAT_FAMILY, family_tokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
# BFCL's single-turn data sets whose functions are typed for Python (Java and JavaScript use
# other type names); multi-turn functions are classes' methods, not tools of a request.
CATEGORIES = (
    "simple_python", "multiple", "parallel", "parallel_multiple", "live_simple", "live_multiple",
    "live_parallel", "live_parallel_multiple", "irrelevance", "live_irrelevance", "live_relevance",
)


def bfcl_tools() -> list[dict]:
    try:
        import bfcl_eval
        from bfcl_eval.constants.enums import ModelStyle
        from bfcl_eval.constants.type_mappings import GORILLA_TO_OPENAPI
        from bfcl_eval.model_handler.utils import convert_to_tool
    except ImportError as e:
        sys.exit(
            f"benchmarks/many_tools.py needs the BFCL functions from bfcl-eval ({e}): pip install -e '.[bench]' "
            "(or, without its heavy dependencies: pip install --no-deps bfcl-eval tenacity tree-sitter==0.21.3 "
            "tree-sitter-java==0.21.0 tree-sitter-javascript==0.21.4)"
        )
    data = os.path.join(os.path.dirname(bfcl_eval.__file__), "data")
    functions = []
    for category in CATEGORIES:
        with open(os.path.join(data, f"BFCL_v4_{category}.json"), encoding="utf-8") as f:
            for line in f:
                functions += json.loads(line).get("function") or []
    tools, seen = [], set()
    for tool in convert_to_tool(functions, GORILLA_TO_OPENAPI, ModelStyle.OPENAI_COMPLETIONS):
        name = tool["function"]["name"]  # names differ by a "." BFCL turns into "_"
        if name not in seen:
            seen.add(name)
            tools.append(tool)
    return tools


def call_ids(tok, fmt, tool) -> list[int]:
    fn = tool["function"]
    arguments = json.dumps(example_value(fn["parameters"]), ensure_ascii=False)
    return tok.encode(fmt.tools.section_text([(fn["name"], arguments)]), add_special_tokens=False)


def walk(grammar, ids, bitmask, times=None) -> bool:
    """One output through a request's constraint, each step's fill timed into ``times``;
    False where the grammar refuses the example (arguments in an order it does not write)."""
    g = ReasonerGrammar(grammar, thinking=False)
    for i in ids:
        t0 = time.perf_counter()
        g.fill_bitmask(bitmask, 0)
        dt = time.perf_counter() - t0
        if not (int(bitmask[0, i >> 5]) >> (i & 31)) & 1 or not g.accept_token(i):
            return False
        if times is not None:
            times.append(dt)
    return True


def measure(vocab, tok, fmt, tools, route_from, calls_timed) -> dict:
    bitmask = xgr.allocate_token_bitmask(1, vocab.size)
    cache = GrammarCache(vocab)
    _prepared.cache_clear()  # cold: no schema of the set checked before, as in a fresh server
    t0 = time.perf_counter()
    grammar = cache.get(fmt, tools, "auto", route_from=route_from)
    cold = time.perf_counter() - t0
    g = ReasonerGrammar(grammar, thinking=False)
    g.fill_bitmask(bitmask, 0)
    first_token = time.perf_counter() - t0
    t0 = time.perf_counter()
    cache.get(fmt, tools, "auto", route_from=route_from)
    cached = time.perf_counter() - t0
    # the first call of a tool: the step at the arguments' start, against the same step again
    picked = [t for t in tools[:: max(1, len(tools) // calls_timed)]][:calls_timed]
    first_call, fills, walked = [], [], 0
    for tool in picked:
        ids = call_ids(tok, fmt, tool)
        cold_steps: list[float] = []
        if not walk(grammar, ids, bitmask, cold_steps):
            continue
        warm_steps: list[float] = []
        walk(grammar, ids, bitmask, warm_steps)
        walked += 1
        first_call.append(max(c - w for c, w in zip(cold_steps, warm_steps)))
        fills += warm_steps
    fills_us = np.array(fills) * 1e6
    return {
        "routed": grammar.calls is not None,
        "cold_s": round(cold, 3),
        "cached_ms": round(cached * 1e3, 3),
        "first_token_s": round(first_token, 3),
        "first_call_ms_max": round(max(first_call) * 1e3, 1) if first_call else None,
        "first_call_ms_median": round(float(np.median(first_call)) * 1e3, 1) if first_call else None,
        "fill_us_p50": round(float(np.percentile(fills_us, 50)), 1),
        "fill_us_p99": round(float(np.percentile(fills_us, 99)), 1),
        "steps_timed": len(fills),
        "calls_walked": walked,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 400])
    ap.add_argument("--format", default="deepseek_v3_1")
    ap.add_argument("--calls", type=int, default=20, help="tools whose calls are walked per size")
    ap.add_argument("--full-up-to", type=int, default=400, help="the largest size the full grammar is compiled for")
    ap.add_argument("--out", help="default: benchmarks/results/many_tools.json (DeepSeek V3.1), else many_tools_FORMAT.json")
    args = ap.parse_args()
    logging.disable(logging.WARNING)  # BFCL schemas with never-written optional properties
    fmt = get_format(args.format)
    # the format's own tokenizer where a package ships it (qwen3: Qwen's), else DeepSeek's
    tok = family_tokenizer(FORMAT_FAMILY.get(fmt.name, "deepseek"))
    vocab = vocabulary_for(tok)
    vocab.tables  # built once per tokenizer, at a server's start
    if args.out is None:
        args.out = os.path.join(HERE, "results", "many_tools.json" if fmt.name == "deepseek_v3_1" else f"many_tools_{fmt.name}.json")
    tools = bfcl_tools()
    # xgrammar and thinkgate warmed on a small set, so that the first size pays no imports
    GrammarCache(vocab).get(fmt, tools[:2], "auto")
    load = os.getloadavg()
    rows = []
    print(f"{len(tools)} distinct BFCL functions; format {fmt.name}; routed from {ROUTE_FROM} tools; load average {load[0]:.2f} on {os.cpu_count()} CPUs")
    header = f"{'tools':>5} {'grammar':>7} {'cold s':>7} {'cached ms':>9} {'1st token s':>11} {'1st call ms (max)':>17} {'fill p50 µs':>11} {'fill p99 µs':>11}"
    print(header)
    for n in args.sizes:
        for mode, route_from in (("full", None), ("routed", 1)):
            if mode == "full" and n > args.full_up_to:
                continue
            r = measure(vocab, tok, fmt, tools[:n], route_from, args.calls)
            r.update(tools=n, grammar=mode)
            rows.append(r)
            print(f"{n:>5} {mode:>7} {r['cold_s']:>7.3f} {r['cached_ms']:>9.3f} {r['first_token_s']:>11.3f} {r['first_call_ms_max'] or 0:>17.1f} {r['fill_us_p50']:>11.1f} {r['fill_us_p99']:>11.1f}", flush=True)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(
            {
                "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs",
                "load_average_at_start": [round(x, 2) for x in load],
                "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
                "xgrammar": getattr(xgr, "__version__", None) or _version("xgrammar"),
                "format": fmt.name,
                "tokenizer": FORMAT_FAMILY.get(fmt.name, "deepseek"),
                "route_from_default": ROUTE_FROM,
                "rows": rows,
            },
            f,
            indent=1,
        )
    print(f"wrote {args.out}")


def _version(dist: str) -> str:
    from importlib.metadata import version

    return version(dist)


if __name__ == "__main__":
    main()
