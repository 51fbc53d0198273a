"""Shared by the tests: chunkings, an incremental detokenizer, event normalisation, tool
schemas, a served MCP endpoint."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import time
from typing import Any

import numpy as np
import torch

from thinkgate import parse
from thinkgate.parsing import (
    ContentDelta,
    ReasoningDelta,
    StreamParser,
    ToolCallArgumentsDelta,
)


def seq_ids(i: int) -> str:
    return f"call_{i}"


def cuts(text: str, points: list[int]) -> list[str]:
    """``text`` cut at the given points (any order, duplicates and out-of-range allowed)."""
    pts = sorted({p for p in points if 0 < p < len(text)})
    out, last = [], 0
    for p in pts:
        out.append(text[last:p])
        last = p
    out.append(text[last:])
    return out


def stream_events(chunks, **kwargs):
    """Feed ``chunks`` (texts, or (text, ids) pairs) and return (events, parser)."""
    kwargs.setdefault("call_id", seq_ids)
    finish_reason = kwargs.pop("finish_reason", None)
    parser = StreamParser(**kwargs)
    events = []
    for c in chunks:
        if isinstance(c, tuple):
            events += parser.feed_events(*c)
        else:
            events += parser.feed_events(c)
    events += parser.finish_events(finish_reason)
    return events, parser


def stream_deltas(chunks, **kwargs):
    kwargs.setdefault("call_id", seq_ids)
    finish_reason = kwargs.pop("finish_reason", None)
    parser = StreamParser(**kwargs)
    deltas = []
    for c in chunks:
        deltas += parser.feed(*c) if isinstance(c, tuple) else parser.feed(c)
    deltas += parser.finish(finish_reason)
    return deltas, parser


def normalise(events):
    """Events with consecutive text deltas of one kind (and one call) merged: the form in which
    two chunkings of one output must agree."""
    out = []
    for ev in events:
        if out and type(ev) is type(out[-1]):
            if isinstance(ev, (ReasoningDelta, ContentDelta)):
                out[-1] = type(ev)(out[-1].text + ev.text)
                continue
            if isinstance(ev, ToolCallArgumentsDelta) and ev.index == out[-1].index:
                out[-1] = ToolCallArgumentsDelta(ev.index, out[-1].text + ev.text)
                continue
        out.append(ev)
    return out


def detokenize_stream(tokenizer, ids):
    """(delta_text, delta_ids) per token, the way serving engines detokenize: text that ends in
    an incomplete UTF-8 character waits for the next token."""
    deltas = []
    sent = ""
    pending: list[int] = []
    for k, tid in enumerate(ids):
        pending.append(tid)
        text = tokenizer.decode(ids[: k + 1], skip_special_tokens=False, clean_up_tokenization_spaces=False)
        if text.endswith("\ufffd"):
            continue
        deltas.append((text[len(sent):], pending))
        sent, pending = text, []
    if pending:
        text = tokenizer.decode(ids, skip_special_tokens=False, clean_up_tokenization_spaces=False)
        deltas.append((text[len(sent):], pending))
    return deltas


def group(deltas, size):
    """Merge per-token deltas into deltas of ``size`` tokens."""
    out = []
    for i in range(0, len(deltas), size):
        part = deltas[i : i + size]
        out.append(("".join(t for t, _ in part), [x for _, ids in part for x in ids]))
    return out


def every_split_agrees(text, **kw):
    """Parse whole, char by char and in 3-char pieces: the same events and message each time."""
    kw.setdefault("call_id", seq_ids)
    whole = parse(text, **kw)
    ref = None
    for chunks in ([text], list(text), [text[i : i + 3] for i in range(0, len(text), 3)]):
        events, parser = stream_events(chunks, **kw)
        assert parser.message == whole
        if ref is None:
            ref = normalise(events)
        assert normalise(events) == ref
    return whole


def walk(grammar, tokenizer, text):
    """A fresh ReasonerGrammar (not thinking) fed ``text``'s tokens: ``(grammar, all accepted)``."""
    from thinkgate.constraint import ReasonerGrammar

    g = ReasonerGrammar(grammar, thinking=False)
    return g, g.accept_tokens(tokenizer.encode(text, add_special_tokens=False))


def allowed(g, token_id, vocab_size):
    """Whether ``g``'s next bitmask (the guard's bounds applied) allows ``token_id``."""
    import xgrammar as xgr

    bitmask = xgr.allocate_token_bitmask(1, vocab_size)
    g.fill_bitmask(bitmask, 0)
    return bool((int(bitmask[0, token_id >> 5]) >> (token_id & 31)) & 1)


def inspect_example(tmp_path, capsys, format_name, tools):
    """``thinkgate inspect --format F --tools FILE``: its whole output and the example output it
    shows."""
    import json

    from thinkgate.cli import main

    path = tmp_path / "tools.json"
    path.write_text(json.dumps(tools))
    assert main(["inspect", "--format", format_name, "--tools", str(path)]) == 0
    out = capsys.readouterr().out
    return out, out.split("# an example of a valid output (after the reasoning)\n")[1].split("\n")[0]


def assert_guard_stops_one_past(g, tokenizer, vocab_size):
    """``g`` stands two characters into a string of at most three: one more letter is allowed,
    then only the closing quote."""
    [m], [quote] = tokenizer.encode("m", add_special_tokens=False), tokenizer.encode('"', add_special_tokens=False)
    assert allowed(g, m, vocab_size) and allowed(g, quote, vocab_size)
    assert g.accept_token(m)
    assert not allowed(g, m, vocab_size) and allowed(g, quote, vocab_size)


class RandomLogits:
    """Seeded i.i.d. random logits, a row per request, for sampling under the grammar: the
    argmax of a masked row is a uniformly random token among those it allows (a random-weight
    model, as weak as it gets). Uniform float32 from numpy, which draws a 129k-token row in
    about half the time of ``torch.randn``."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, rows: int, size: int) -> torch.Tensor:
        return torch.from_numpy(self.rng.random((rows, size), dtype=np.float32))


def grammar_state(g) -> tuple:
    """What a :class:`ReasonerGrammar` is, as far as the next step goes (its mask apart): the
    state one-token stepping and draft rounds must agree on."""
    # (a guard made by a draft of </think> and rolled back to nothing is no guard yet)
    guard = g._guard.cursor.state() if g._guard is not None and g._guard._history else None
    return (g.phase, g.position, g.thinking_tokens, g.error, g.needs_bitmask, g.free, g.plain, g.blocks_eos, g.forcing_close, g.is_terminated(), guard)


def fn(name: str, required: list | None = None, /, **props: Any) -> dict:
    """A function tool whose parameters are an object of ``props`` (``required`` among them)."""
    params: dict = {"type": "object", "properties": props}
    if required:
        params["required"] = required
    return {"type": "function", "function": {"name": name, "parameters": params}}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serving_http(argv: list, env: dict, port: int):
    """A server process started from ``argv``, once it accepts connections on ``port`` (the test
    fails with its stderr if it exits or takes 30 s); terminated afterwards."""
    import pytest

    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"the MCP server did not start: {proc.stderr.read().decode()[-2000:]}")
            time.sleep(0.1)
    try:
        yield proc
    finally:
        proc.terminate()
        proc.wait(10)
