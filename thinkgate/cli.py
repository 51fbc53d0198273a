"""The ``thinkgate`` command: ``demo`` and ``generate``."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Optional

from pydantic import ValidationError


def _read_requests(lines, errors: list[str]) -> list:
    from .requests import ChatRequest

    out = []
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if not isinstance(data, dict):
                raise ValueError(f"a request is a JSON object, not {type(data).__name__}")
            out.append((n, ChatRequest(**data)))
        except (ValueError, ValidationError, TypeError) as e:
            detail = "; ".join(f"{'.'.join(map(str, err['loc']))}: {err['msg']}" for err in e.errors()) if isinstance(e, ValidationError) else str(e)
            errors.append(f"line {n}: {detail}")
    return out


def cmd_generate(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    errors: list[str] = []
    with (sys.stdin if args.input == "-" else open(args.input, encoding="utf-8")) as f:
        requests = _read_requests(f, errors)
    for e in errors:
        print(f"error: {e} (skipped)", file=sys.stderr)
    if args.engine == "vllm":
        from .integrations.vllm_offline import generate_chat as vllm_generate
        from .integrations.vllm_offline import make_llm

        llm = make_llm(args.model, max_model_len=args.max_model_len)

        def generate(_model, _tokenizer, part, **kw):
            kw.pop("batch_size", None)
            return vllm_generate(llm, part, **kw)

        model = tokenizer = None
    else:
        from .demo import deepseek_tokenizer, load
        from .integrations.transformers import generate_chat as generate

        model, tokenizer = load(args.model)
        if args.tokenizer == "deepseek":
            tokenizer = deepseek_tokenizer()
    out = sys.stdout if args.output == "-" else open(args.output, "w", encoding="utf-8")
    written = 0
    try:
        with tqdm(total=len(requests), desc="generate", unit="req", file=sys.stderr, disable=args.quiet) as bar:
            # one request at a time into the batcher keeps a line's failure to itself
            batch = [r for _, r in requests]
            lines = [n for n, _ in requests]
            for start in range(0, len(batch), args.batch_size):
                part = batch[start : start + args.batch_size]
                try:
                    results = generate(model, tokenizer, part, format=args.format, batch_size=args.batch_size, model_name=args.model)
                except ValueError:
                    # find the line at fault and go on without it
                    results = []
                    for n, r in zip(lines[start : start + args.batch_size], part):
                        try:
                            results += generate(model, tokenizer, [r], format=args.format, model_name=args.model)
                        except ValueError as err:
                            errors.append(f"line {n}: {err}")
                            print(f"error: line {n}: {err} (skipped)", file=sys.stderr)
                for res in results:
                    out.write(json.dumps(res, ensure_ascii=False) + "\n")
                    written += 1
                bar.update(len(part))
    finally:
        if out is not sys.stdout:
            out.close()
    if errors:
        print(f"{written} responses written; {len(errors)} line(s) failed:", file=sys.stderr)
        for e in errors:
            print(f"  {e}", file=sys.stderr)
        return 1
    print(f"{written} responses written", file=sys.stderr)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run

    return 1 if run(seed=args.seed) else 0


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="thinkgate", description="Tool calls from reasoning LLMs, correct by construction.")
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser("demo", help="a random-weight model on CPU, and every call still valid")
    demo.add_argument("--seed", type=int, default=0)
    demo.set_defaults(func=cmd_demo)

    gen = sub.add_parser("generate", help="generate for JSONL requests in OpenAI chat shape")
    gen.add_argument("--model", required=True, help="a local Hugging Face model directory")
    gen.add_argument("--input", default="-", help="JSONL requests (default: stdin)")
    gen.add_argument("--output", default="-", help="JSONL chat.completion responses (default: stdout)")
    gen.add_argument("--format", default="deepseek_r1", help="the model's output format (default: deepseek_r1)")
    gen.add_argument("--engine", choices=["transformers", "vllm"], default="transformers")
    gen.add_argument("--batch-size", type=int, default=8)
    gen.add_argument("--tokenizer", choices=["model", "deepseek"], default="model", help="the model directory's tokenizer, or the deepseek-tokenizer package's")
    gen.add_argument("--max-model-len", type=int, default=4096, help="vLLM's context length (--engine vllm)")
    gen.add_argument("--quiet", action="store_true", help="no progress bar")
    gen.set_defaults(func=cmd_generate)

    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
