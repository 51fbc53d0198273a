"""A budget on xgrammar's compile, so that no single request holds an engine for long.

xgrammar precomputes a token mask for every position of a grammar, and a counted repeat of up to
128 is unrolled into its positions: repeats nested in a pattern multiply, and
``^([a-z]{1,100}){1,100}$`` takes about 175 s on the 2-core machine (vLLM's server compiles a new
tool set inside its engine step, so every other stream waits that long). Two guards keep a
compile within ``THINKGATE_COMPILE_BUDGET`` seconds:

* an estimate refuses at once a pattern that surely costs more than the budget: a counted
  repeat of a variable-length counted repeat, whose strings split many ways (the two bounds
  multiplied, times a per-position cost well below the measured one, so that it refuses only what
  could not compile in time on a machine several times faster);
* a grammar that may be costly (a counted repeat past ``RISKY_REPEAT``, or a tag past
  ``RISKY_TAG_BYTES``) compiles in a forked child under the deadline: past it the child is
  killed and the request refused by name. Every other grammar compiles in the process, as
  before: bringing a compiled grammar back from a child costs more than compiling such a one
  (the realistic four tools: 0.05 s to compile, 0.19 s to serialize, 0.06 s to read back).

Where ``os.fork`` is missing (Windows), only the estimate guards.
"""

from __future__ import annotations

import json
import logging
import os
import re
import select
import signal
import time
from typing import Any, Iterator, Optional

import xgrammar as xgr

from ..runtime.vocabulary import compile_threads

try:  # (Python 3.11's name; sre_parse before it)
    from re import _parser as _sre
    from re import _constants as _sre_c
except ImportError:  # pragma: no cover
    import sre_parse as _sre  # type: ignore[no-redef]
    import sre_constants as _sre_c  # type: ignore[no-redef]

log = logging.getLogger("thinkgate.constraint")

ENV = "THINKGATE_COMPILE_BUDGET"
DEFAULT_BUDGET = 5.0

# A counted repeat up to this is cheap whatever it nests in (formats' own: date-time's {1,9},
# ipv6's {1,7}); past it, or in a tag this large (a 10,000-value enum, 30 unrouted tools), the
# grammar compiles under the deadline.
RISKY_REPEAT = 9
RISKY_TAG_BYTES = 200_000

# Seconds per position of a counted repeat of a variable-length one, on a 128k vocabulary.
# Measured on the 2-core machine, DeepSeek's vocabulary, alone: ([a-z]{1,n}){1,n} for n = 10,
# 20, 30 in 0.85, 4.4, 17 s (8.5-19 ms a position); ([a-z]{1,3}){1,100} 5.7 ms,
# ([a-z]{2,20}){1,20} 6 ms, ([a-z]{1,100}){1,3} 3.3 ms. A quarter of the least is taken, so a
# machine four times faster is still not refused what it could compile (the deadline judges the
# rest; benchmarks/compile_budget.py prints the estimate beside the compile).
SECONDS_PER_POSITION = 0.0008
# xgrammar unrolls a counted repeat up to this bound; a longer one is a counter (cheap to compile).
UNROLLED = 128
REFERENCE_VOCAB = 128_000


def budget() -> Optional[float]:
    """The compile budget in seconds (None: no budget), from ``THINKGATE_COMPILE_BUDGET``."""
    value = os.environ.get(ENV)
    if value is None or not value.strip():
        return DEFAULT_BUDGET
    if value.strip().lower() in ("off", "none", "0"):
        return None
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not seconds > 0:
        raise ValueError(f"{ENV}={value!r}: give the compile budget in seconds (a positive number), or 'off'")
    return seconds


_REPEATS = tuple(op for op in (_sre_c.MAX_REPEAT, _sre_c.MIN_REPEAT, getattr(_sre_c, "POSSESSIVE_REPEAT", None)) if op is not None)


def _bound(lo: int, hi: int) -> int:
    return lo if hi == _sre_c.MAXREPEAT else hi


def _alone(items: Any) -> Optional[tuple]:
    """The one repeat a sequence is (groups around it aside), or None."""
    while len(items) == 1:
        op, av = items[0]
        if op in _REPEATS:
            return av
        if op != _sre_c.SUBPATTERN:
            return None
        items = av[-1]
    return None


def pattern_cost(pattern: str) -> tuple[int, int]:
    """A pattern's largest counted repeat, and the most positions a counted repeat of a
    variable-length counted repeat unrolls into (``([a-z]{1,100}){1,100}``: 10,000; its strings
    split many ways, which is what xgrammar's compile pays for; 0 where there is none)."""
    try:
        parsed = _sre.parse(pattern)
    except Exception:  # (not Python's syntax: xgrammar judges it, and the deadline guards it)
        return RISKY_REPEAT + 1, 0
    largest, nested = 0, 0
    stack = [parsed]
    while stack:
        for op, av in stack.pop():
            if op in _REPEATS:
                lo, hi, body = av
                bound = _bound(lo, hi)
                largest = max(largest, bound)
                inner = _alone(body)
                # (a repeat past UNROLLED is a counter in xgrammar, not positions)
                if inner is not None and bound <= UNROLLED and inner[0] < inner[1] and 1 < _bound(inner[0], inner[1]) <= UNROLLED:
                    nested = max(nested, bound * _bound(inner[0], inner[1]))
                stack.append(body)
            elif op == _sre_c.SUBPATTERN:
                stack.append(av[-1])
            elif op == _sre_c.BRANCH:
                stack.extend(av[1])
            elif op in (_sre_c.ASSERT, _sre_c.ASSERT_NOT):
                stack.append(av[1])
    return largest, nested


def _patterns(value: Any, path: str = "#") -> Iterator[tuple[str, str]]:
    """Every ``pattern`` of a schema (or a structural tag), with its place."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k == "pattern" and isinstance(v, str):
                yield path, v
            else:
                yield from _patterns(v, f"{path}/{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _patterns(v, f"{path}/{i}")


def check_schema(schema: Any, where: str, vocab_size: int, seconds: Optional[float] = None) -> None:
    """Refuse by name (``ValueError``) a schema whose patterns surely compile past the budget
    on a vocabulary of ``vocab_size`` tokens."""
    seconds = budget() if seconds is None else seconds
    if seconds is None:
        return
    for path, pattern in _patterns(schema):
        _, nested = pattern_cost(pattern)
        estimate = nested * SECONDS_PER_POSITION * vocab_size / REFERENCE_VOCAB
        if estimate > seconds:
            raise ValueError(
                f"{where}: 'pattern' {pattern!r} at {path} repeats a variable-length repeat "
                f"({nested:,} positions), which xgrammar would take {estimate:.2g} s or more to compile, past the compile "
                f"budget of {seconds:g} s ({ENV}); write it so that its strings split one way (([a-z]{1,10}){1,10} is [a-z]{1,100})"
            )


def check_spec(spec: Any, vocab_size: int = REFERENCE_VOCAB) -> None:
    """:func:`check_schema` for each schema of a ``GrammarSpec`` (its tools', its answer's)."""
    seconds = budget()
    if seconds is None:
        return
    for t in spec.tools:
        check_schema(t.schema.xgrammar_schema, t.schema.where or f"tool {t.name!r}", vocab_size, seconds)
    if spec.answer is not None:
        check_schema(spec.answer.xgrammar_schema, spec.answer.where or "response_format", vocab_size, seconds)


def risky(tag: Any, text: Optional[str] = None) -> bool:
    """Whether a structural tag may take long to compile (see the module's note)."""
    text = json.dumps(tag, ensure_ascii=False) if text is None else text
    if len(text) > RISKY_TAG_BYTES:
        return True
    if "pattern" not in text:
        return False
    tag = json.loads(text) if isinstance(tag, str) else tag
    return any(pattern_cost(p)[0] > RISKY_REPEAT for _, p in _patterns(tag))


class _NoChild(Exception):
    """The system refused a pipe or a child process (memory, process limits)."""


class CompileTimeout(ValueError):
    """A grammar whose compile ran past the budget (a request's error, as any refusal)."""


def deadline() -> Optional[float]:
    """When a compile begun now must end (``time.monotonic()``; None: no budget). One request's
    grammars share it (a text-reasoning format compiles three)."""
    seconds = budget()
    return None if seconds is None else time.monotonic() + seconds


def compile_tag(compiler: xgr.GrammarCompiler, info: xgr.TokenizerInfo, tag: Any, what: str, until: Optional[float] = None) -> xgr.CompiledGrammar:
    """``compiler.compile_structural_tag(tag)``, stopped at ``until`` (default: the budget from
    now) where it may be costly (``what``: the grammar as an error names it)."""
    until = deadline() if until is None else until
    text = tag if isinstance(tag, str) else None
    if until is None or not hasattr(os, "fork") or not risky(tag, text):
        return compiler.compile_structural_tag(tag)
    try:
        return _compile_in_child(info, tag if text is None else text, what, until, compile_threads())
    except _NoChild as e:  # (a process that cannot fork now still serves: the estimate guarded it)
        log.warning("thinkgate: %s; %s compiles in the process, without its deadline", e, what)
        return compiler.compile_structural_tag(tag)


def _compile_in_child(info: xgr.TokenizerInfo, tag: Any, what: str, until: float, threads: int) -> xgr.CompiledGrammar:
    """Compile in a forked child that sends back the serialized grammar; kill it at the
    deadline. (A fresh compiler there: the parent's may have been mid-compile in another
    thread when it forked, holding a lock no thread of the child would release.)"""
    try:
        read, write = os.pipe()
    except OSError as e:
        raise _NoChild(f"no pipe for a compile under the deadline ({e.strerror or e})") from None
    try:
        pid = os.fork()
    except OSError as e:
        os.close(read)
        os.close(write)
        raise _NoChild(f"no child process for a compile under the deadline ({e.strerror or e})") from None
    if pid == 0:  # the child: no Python-level locks, no logging, no return
        status = 1
        try:
            os.close(read)
            try:
                data = b"K" + xgr.GrammarCompiler(info, max_threads=threads, cache_enabled=False).compile_structural_tag(tag).serialize_json().encode()
            except Exception as e:  # (the parent raises it as the compile's own error)
                data = b"E" + (str(e) or type(e).__name__).encode(errors="replace")
            view = memoryview(data)
            while view:
                view = view[os.write(write, view[: 1 << 20]) :]
            status = 0
        finally:
            os._exit(status)
    os.close(write)
    chunks: list[bytes] = []
    try:
        while True:
            left = until - time.monotonic()
            if left <= 0 or not select.select([read], [], [], left)[0]:
                os.kill(pid, signal.SIGKILL)
                raise CompileTimeout(
                    f"{what}: xgrammar's compile ran past the compile budget of {budget():g} s and was stopped "
                    f"(a pattern's counted repeats, a large enum or many tools); simplify the schema, or raise {ENV}"
                )
            chunk = os.read(read, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read)
        os.waitpid(pid, 0)
    data = b"".join(chunks)
    if data[:1] == b"K":
        return xgr.CompiledGrammar.deserialize_json(data[1:].decode(), info)
    if data[:1] == b"E":
        raise RuntimeError(data[1:].decode(errors="replace"))
    raise RuntimeError("xgrammar's compile ended without a grammar (its process died)")
