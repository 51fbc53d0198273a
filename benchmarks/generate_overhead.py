"""Tokens per second of Hugging Face generation on the tiny random-weight model, with and
without thinkgate, in the thinking phase and in the tool phase, batch 1 and 16; the ratios are
measured in one run. Prints a table, writes JSON.

    python benchmarks/generate_overhead.py [--tokens 128] [--out benchmarks/results/generate_overhead.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import torch
from transformers import LogitsProcessorList

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

from thinkgate.demo import DEMO_TOOLS, build_tiny_model, load  # noqa: E402
from thinkgate.formats.templates import apply_chat_template  # noqa: E402
from thinkgate.integrations.transformers import RowSpec, ToolCallLogitsProcessor  # noqa: E402


def run(model, tok, batch: int, tokens: int, phase: str, constrained: bool, repeat: int) -> float:
    """Best tokens per second (batch rows × steps over wall time) of ``repeat`` runs."""
    thinking = phase == "thinking"
    prompt = apply_chat_template(tok, [{"role": "user", "content": "What's the weather in Paris?"}], "deepseek_r1", DEMO_TOOLS, thinking=thinking)
    input_ids = torch.tensor([prompt] * batch)
    best = 0.0
    for r in range(repeat):
        processors = LogitsProcessorList()
        kwargs = {}
        if constrained:
            rows = [RowSpec("deepseek_r1", DEMO_TOOLS, "required", thinking=None) for _ in range(batch)]
            processors.append(ToolCallLogitsProcessor(tok, rows, [len(prompt)] * batch))
        if thinking:
            kwargs["min_new_tokens"] = tokens  # the same length with and without thinkgate
        torch.manual_seed(r)
        t0 = time.perf_counter()
        with torch.no_grad():
            out = model.generate(input_ids, attention_mask=torch.ones_like(input_ids), logits_processor=processors, max_new_tokens=tokens, do_sample=True, eos_token_id=1, pad_token_id=1, **kwargs)
        elapsed = time.perf_counter() - t0
        # every row's position per step: rows that ended early still cost their step
        generated = batch * (out.shape[1] - len(prompt))
        best = max(best, generated / elapsed)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokens", type=int, default=128)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(HERE, "results", "generate_overhead.json"))
    args = ap.parse_args()
    model, tok = load(build_tiny_model())
    rows = []
    for phase in ("thinking", "tool"):
        for batch in (1, 16):
            base = run(model, tok, batch, args.tokens, phase, False, args.repeat)
            ours = run(model, tok, batch, args.tokens, phase, True, args.repeat)
            rows.append({"phase": phase, "batch": batch, "plain_tokens_per_s": base, "thinkgate_tokens_per_s": ours, "ratio": ours / base})
    print(f"{'phase':<10}{'batch':>6}{'plain tok/s':>14}{'thinkgate tok/s':>17}{'ratio':>8}")
    for r in rows:
        print(f"{r['phase']:<10}{r['batch']:>6}{r['plain_tokens_per_s']:>14.0f}{r['thinkgate_tokens_per_s']:>17.0f}{r['ratio']:>8.2f}")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump({"benchmark": "generate_overhead", "tokens": args.tokens, "rows": rows}, f, indent=2)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
