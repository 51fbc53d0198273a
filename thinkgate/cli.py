"""The ``thinkgate`` command: ``demo`` and ``generate``."""

from __future__ import annotations

import argparse
import json
import os
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


def cmd_formats(args: argparse.Namespace) -> int:
    from .formats import aliases, get_format, names

    by_format: dict[str, list[str]] = {}
    for alias, name in aliases().items():
        if alias != name:
            by_format.setdefault(name, []).append(alias)
    for name in names():
        fmt = get_format(name)
        layout = f"{fmt.tools.layout.name}/{type(fmt.tools.arguments).__name__}"
        print(f"{name:<16} layout={layout:<31} thinking={str(fmt.reasoning.default_thinking):<5} aliases={', '.join(sorted(by_format.get(name, []))) or '-'}")
        if fmt.description:
            print(f"{'':<16} {fmt.description}")
    return 0


def cmd_inspect(args: argparse.Namespace) -> int:
    import jsonschema

    from .constraint import build_structural_tag
    from .formats import get_format
    from .constraint.examples import example_value

    fmt = get_format(args.format)
    with open(args.tools, encoding="utf-8") as f:
        tools = json.load(f)
    choice = json.loads(args.tool_choice) if args.tool_choice.startswith("{") else args.tool_choice
    tokenizer = None
    if args.tokenizer == "deepseek":
        from .demo import deepseek_tokenizer

        tokenizer = deepseek_tokenizer()
    elif args.tokenizer:
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(args.tokenizer)
    try:
        tag = build_structural_tag(fmt, tools, choice, not args.single_call, tokenizer=tokenizer)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print("# structural tag (the grammar after thinking)")
    print(json.dumps(tag, ensure_ascii=False, indent=2))
    calls = []
    for tool in tools[:1] if args.single_call else tools:
        fn = tool["function"]
        value = example_value(fn.get("parameters") or {"type": "object"})
        jsonschema.validate(value, fn.get("parameters") or {"type": "object"})
        calls.append((fn["name"], json.dumps(value, ensure_ascii=False)))
    msgs = fmt.tools.messages
    if msgs is not None:
        # harmony: one call ends a generation; the grammar starts after <|start|>assistant and
        # ends where the stop token <|call|> comes
        role = msgs.start + msgs.role
        example = fmt.tools.call_text(*calls[0])[len(role) : -len(fmt.tools.call_end)]
        shown = fmt.reasoning.close + role + example + fmt.tools.call_end
    else:
        example = fmt.tools.section_text(calls)
        shown = (fmt.reasoning.close + "\n\n" if fmt.reasoning.present else "") + example
    print("\n# an example of a valid output (after the reasoning)")
    print(shown)
    if tokenizer is not None:
        import xgrammar as xgr

        from .constraint.vocabulary import vocabulary_for

        matcher = xgr.GrammarMatcher(vocabulary_for(tokenizer).compiler.compile_structural_tag(tag))
        ids = tokenizer.encode(example, add_special_tokens=False)
        accepted = all(matcher.accept_token(t) for t in ids) and matcher.accept_token(vocabulary_for(tokenizer).stop_token_ids[0])
        print(f"\n# the grammar accepts it, token by token: {'yes' if accepted else 'NO'}")
        if not accepted:
            return 1
    return 0


def _template_source(path: str) -> object:
    """A chat template from a Jinja file, a ``tokenizer_config.json`` (its ``chat_template``), or
    a model directory holding either (no tokenizer is loaded, nothing is downloaded)."""
    if os.path.isdir(path):
        for name in ("chat_template.jinja", "tokenizer_config.json"):
            if os.path.exists(os.path.join(path, name)):
                return _template_source(os.path.join(path, name))
        raise ValueError(f"{path} holds neither chat_template.jinja nor tokenizer_config.json")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if path.endswith(".json"):
        config = json.loads(text)
        template = config.get("chat_template")
        if isinstance(template, list):  # named templates, as tokenizer_config.json stores them
            template = {t["name"]: t["template"] for t in template}
        if not template:
            raise ValueError(f"{path} has no chat_template")
        return template if isinstance(template, str) else argparse.Namespace(chat_template=template)
    return text


def cmd_detect(args: argparse.Namespace) -> int:
    from .detection import detect

    try:
        fmt = detect(_template_source(args.template))
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    r = fmt.reasoning
    print(f"format: {fmt.name}")
    print(f"reasoning: {r.open} ... {r.close}, output starts {'inside reasoning' if r.default_thinking is True else 'in the answer' + (' unless the model opens ' + r.open if r.default_thinking == 'auto' else '')}")
    print(f"tool call: {fmt.tools.call_text('NAME', '{ARGUMENTS}')}")
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

    fmts = sub.add_parser("formats", help="list the output formats thinkgate knows")
    fmts.set_defaults(func=cmd_formats)

    insp = sub.add_parser("inspect", help="print the structural tag for tools, and a valid output")
    insp.add_argument("--format", required=True)
    insp.add_argument("--tools", required=True, help="a JSON file with a list of OpenAI tools")
    insp.add_argument("--tool-choice", default="required", help="none, auto, required, or a JSON object")
    insp.add_argument("--single-call", action="store_true", help="parallel_tool_calls=False")
    insp.add_argument("--tokenizer", default="deepseek", help="'deepseek' (the packaged one), a path, or '' for text markers")
    insp.set_defaults(func=cmd_inspect)

    det = sub.add_parser("detect", help="infer the output format from a chat template")
    det.add_argument("template", help="a Jinja file, a tokenizer_config.json, or a model directory")
    det.set_defaults(func=cmd_detect)

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
