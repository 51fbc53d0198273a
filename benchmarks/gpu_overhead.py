"""The bitmask's apply on a GPU: thinkgate's path against xgrammar's kernel fed a mask already on
the device, B = 1–256, float32 and bfloat16 logits; and a whole batch's step with the logits on
the GPU (thinking and tool phase). Runs where CUDA is available; elsewhere it says so, writes a
JSON that says so, and exits 0.

thinkgate's path: the masked rows' words packed into pinned host memory, copied without blocking,
scattered to their rows of a device-resident bitmask, applied by xgrammar's kernel
(``thinkgate.constraint.runtime.batch.DeviceBitmask``). The contrast is the pageable copy of the whole
bitmask that an apply would do without it.

    python benchmarks/gpu_overhead.py [--out benchmarks/results/gpu_overhead.json] [--iters 200]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
sys.path.insert(0, HERE)

BATCHES = (1, 4, 16, 64, 128, 256)


def _version(package: str) -> str:
    from importlib.metadata import version

    return version(package)


def _timed(fn, iters: int) -> float:
    """ms per call, wall clock, the device drained before and after."""
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(iters):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / iters * 1e3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(HERE, "results", "gpu_overhead.json"))
    ap.add_argument("--iters", type=int, default=200)
    args = ap.parse_args()
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    if not torch.cuda.is_available():
        print("CUDA is not available here: gpu_overhead skipped (run it on a machine with a GPU)")
        with open(args.out, "w") as f:
            json.dump({"skipped": "CUDA not available"}, f, indent=2)
        return

    import xgrammar as xgr
    from schemas import REALISTIC
    from step_overhead import _realistic_call, load_tokenizer, print_table

    from thinkgate.constraint import BatchSteps, ReasonerGrammar, compile_tool_grammar
    from thinkgate.constraint.runtime.batch import apply_bitmask

    tok = load_tokenizer()
    grammar = compile_tool_grammar(tok, "deepseek_r1", REALISTIC, "required")
    V = grammar.vocab.size
    call = _realistic_call(tok)
    device = torch.device("cuda")
    results = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "xgrammar": _version("xgrammar"), "vocab": V, "apply": [], "steps": []}

    for dtype in (torch.float32, torch.bfloat16):
        for B in BATCHES:
            # real masks: B requests a few tokens into a call
            steps = BatchSteps([ReasonerGrammar(grammar, thinking=False) for _ in range(B)], V)
            for t in call[:12]:
                steps.accept(np.full(B, t, dtype=np.int64))
            host_logits = torch.zeros(B, V, dtype=torch.float32)
            rows = steps.fill(host_logits)
            bitmask = steps.masker._bitmask[:B].clone()
            logits = torch.randn(B, V, dtype=dtype, device=device)
            resident = bitmask.to(device)

            def kernel():
                xgr.apply_token_bitmask_inplace(logits, resident)

            def ours():
                steps.masker.apply(logits, rows)

            def pageable():
                xgr.apply_token_bitmask_inplace(logits, bitmask.to(device, non_blocking=True))

            k, o, p = _timed(kernel, args.iters), _timed(ours, args.iters), _timed(pageable, args.iters)
            # the same -inf positions as on the CPU
            check = torch.randn(B, V, dtype=torch.float32)
            on_gpu = check.to(device)
            steps.masker.apply(on_gpu, rows)
            apply_bitmask(check, steps.masker._bitmask, rows, V)
            same = bool(torch.equal(torch.isinf(on_gpu.cpu()), torch.isinf(check)))
            results["apply"].append({"dtype": str(dtype).split(".")[-1], "batch": B, "xgrammar_resident_ms": k, "thinkgate_ms": o, "pageable_ms": p, "ratio": o / k, "same_as_cpu": same})

    thought = tok.encode("Let me think about the weather in Paris and whether to call a tool. " * 20, add_special_tokens=False)[:200]
    for B in BATCHES:
        row = {"batch": B}
        for phase, thinking, ids in (("thinking", True, thought), ("tool", False, call)):
            steps = BatchSteps([ReasonerGrammar(grammar, thinking=thinking) for _ in range(B)], V)
            logits = torch.randn(B, V, device=device)
            tokens = [np.full(B, t, dtype=np.int64) for t in ids]
            steps.mask(logits)
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for t in tokens[:-1]:
                steps.accept(t)
                steps.mask(logits)
            torch.cuda.synchronize()
            row[f"{phase}_ms"] = (time.perf_counter() - t0) / (len(tokens) - 1) * 1e3
        results["steps"].append(row)

    print(f"{results['device']}, torch {results['torch']}, xgrammar {results['xgrammar']}")
    print_table("apply, ms per call", results["apply"],
                [("dtype", "dtype", ""), ("B", "batch", "d"), ("xgrammar (mask on GPU)", "xgrammar_resident_ms", ".4f"), ("thinkgate", "thinkgate_ms", ".4f"),
                 ("×", "ratio", ".2f"), ("pageable copy", "pageable_ms", ".4f"), ("same", "same_as_cpu", "")])
    print_table("a whole batch's step with the logits on the GPU (BatchSteps: accept + fill + apply), ms", results["steps"],
                [("B", "batch", "d"), ("thinking", "thinking_ms", ".4f"), ("tool phase", "tool_ms", ".3f")])
    with open(args.out, "w") as f:
        json.dump(results, f, indent=2)
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
