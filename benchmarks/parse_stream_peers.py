"""Streaming parse cost of thinkgate beside SGLang's and vLLM's parsers, on the same stream.

For each format (MiniMax-M2 and Gemma 4 by default; DeepSeek V3.2 / V4, Qwen3.5 and Kimi K3 too;
and the pythonic layout's Llama 4, LFM2 and OLMo 3, whose calls the outputs write as Python
keyword arguments, see :data:`PYTHONIC`),
the outputs of ``parse_stream.make_output`` (shapes "reasoning", "half_arguments",
"long_argument"; 20k characters by default) are cut into 4-character deltas and read, delta by
delta, by three parsers:

* thinkgate: ``StreamParser(fmt, thinking=fmt.reasoning.present, tools=tools)``, ``feed(text)``
  per delta, ``finish()``; text only.
* SGLang (0.5.23, ``.venv-sglang``): what its chat server builds per choice with
  ``--reasoning-parser R --tool-call-parser T`` and ``separate_reasoning``:
  ``sglang.srt.parser.reasoning_parser.ReasoningParser(R, stream_reasoning=True,
  force_reasoning=True, tool_call_parser_active=True)`` and
  ``sglang.srt.function_call.function_call_parser.FunctionCallParser(tools, T)``. Per delta, as
  ``OpenAIServingChat._generate_stream_content`` does: ``parse_stream_chunk`` of the reasoning
  parser, its normal text into the function-call parser's ``parse_stream_chunk`` (called on every
  delta, empty or not, as the server does); on the last delta both ``parse_stream_end`` and the
  server's ``_check_for_unstreamed_tool_args`` (the rest of the last call's arguments). Text only
  (SGLang's parsers take no ids). No SSE chunk is built.
  A format SGLang has no parser for (OLMo 3) has no SGLang column ("n/a").
* vLLM (0.33.0, wheel unpacked at /tmp/vllm033, run by ``.venv-vllm``): the serving layer's
  objects, as in ``peer_vectors_vllm.py``: ``ParserManager.get_parser(T, R,
  enable_auto_tools=True)`` built as ``OpenAIServingChat._make_parser`` builds it (request tools,
  ``chat_template_kwargs={"enable_thinking": True, "thinking": True}``), driven by
  ``ChatStreamProcessor.step(delta_text, delta_token_ids, finish_reason, prompt_ids)``, with
  ``finish_reason="stop"`` on the last delta and the prompt's ids ending in the format's
  reasoning opener. vLLM's parsers need token ids: each delta carries the ids of the tokens
  that end in it (see below).

The stream. One list of deltas per (format, shape, length), made once by the driver and read by
every parser (all three see the same texts): 4-character cuts, except that a cut falling inside
an added/special token of the format's tokenizer (a marker such as ``</think>``,
``<minimax:tool_call>``, ``<|"|>``) moves to that token's end, since an engine never cuts a
special token (and vLLM's parsers find a marker's text in the delta that carries its id). Each
delta carries the ids of the tokens ending in it; only vLLM is given them. Tokenizers are those of
``peer_vectors_vllm.hf_tokenizer`` (the DeepSeek tokenizer for the DeepSeek formats, the Qwen3.5
vocabulary for qwen3_5, the DeepSeek tokenizer with the model's markers added for minimax_m2,
gemma4 and kimi_k3; with the pythonic formats' markers, :data:`PYTHONIC`, for those).

Tools. The calls the output holds give the request's tools: ``get_weather`` (city: string, days:
integer), ``tool_0..3`` (field_i: {"type": "object"} each) and ``write_file`` (content: string).
Every parser's calls are checked after timing: the count and names must match (else the case is
marked FAIL and its time means nothing), and whether the arguments equal the written ones
(parsed as JSON) is reported.

Timing. Only the parsing loop (parser objects built and deltas prepared beforehand), the
parser's outputs appended to a list, best of ``--repeat`` rounds (rounds over all cases) after
one uncounted warm-up round, garbage collection off while timing, as ``parse_stream.py`` does. Each peer runs in its own
interpreter: the driver writes the cases to a temporary JSON file and starts one worker
subprocess per peer (``--worker PEER --cases FILE``, in that peer's venv), which times every case
and prints its timings as JSON; the driver prints the table and writes the JSON file. A stream
that takes longer than ``--case-timeout`` seconds (60) is stopped and not run again: the table says
``> 60 s`` (SGLang 0.5.23's pythonic detector matches a finished list of calls with a regular
expression that backtracks exponentially: on a list of four calls of three keyword arguments or
more, as the half-arguments shape's, it does not return; of two, 0.1 s).

Setup: thinkgate installed in the interpreter running the driver; SGLang in ``.venv-sglang``
(see docs/sglang.md); vLLM 0.33.0 unpacked at /tmp/vllm033 with ``.venv-vllm`` (see the
docstring of ``peer_vectors_vllm.py``)::

    python benchmarks/parse_stream_peers.py [--formats minimax_m2,gemma4] [--lengths 20000]
        [--shapes reasoning,half_arguments,long_argument] [--repeat 5] [--peers thinkgate,sglang,vllm]
        [--out benchmarks/results/parse_stream_peers.json]
    python benchmarks/parse_stream_peers.py --formats all          # the six formats
    python benchmarks/parse_stream_peers.py --formats pythonic     # llama4_pythonic, lfm2, olmo3
    python benchmarks/parse_stream_peers.py --profile minimax_m2    # cProfile of thinkgate's loop

``--profile FMT`` runs thinkgate alone under cProfile on each shape (20k by default), after one
unprofiled stream (imports and caches warm, as in the timed rounds), and prints the top functions
by tottime and by cumtime.
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [HERE, ROOT]

SHAPES = ("reasoning", "half_arguments", "long_argument")
ALL_FORMATS = ("minimax_m2", "gemma4", "deepseek_v3_2", "deepseek_v4", "qwen3_5", "kimi_k3")
DELTA_CHARS = 4


# The pythonic layout (issue 38), which peer_vectors_vllm's tables (the families of its vectors)
# lack. Per format: the vLLM parsers (tool, reasoning or None): Llama 4's llama4_pythonic (no
# reasoning), LFM2 / LFM2.5's lfm2 with <think> read by the qwen3 reasoning parser (as vLLM's
# LFM2.5 recipe serves it), OLMo 3's olmo3 tool parser with <think> read by the qwen3 reasoning
# parser (vLLM's olmo3 reasoning parser finds the reasoning's end in the ids of OLMo's own pieces
# of "</think>", "</" "think" ">", which no stand-in tokenizer gives: DeepSeek's has </think> as
# one token, and without it writes "</" "think" "><"). The stand-in tokenizer: the DeepSeek
# tokenizer with the model's special tokens added (``markers``, as peer_vectors_vllm's stand-ins
# are). ``opener``: the text the prompt ends with when the model thinks.
# ``calls_only``: the answer is the calls, no text before them (Llama 4's answer is text or a list
# of calls, and vLLM's llama4_pythonic and pythonic parsers read calls only where the answer starts
# with "[" or <|python_start|>): the half-arguments and long-argument outputs start at the list,
# and the reasoning shape (text, then a short call) is not run.
PYTHONIC: dict[str, dict] = {
    "llama4_pythonic": {"vllm": ("llama4_pythonic", None), "markers": ("<|python_start|>", "<|python_end|>", "<|eot|>", "<|eom|>"),
                        "opener": "", "calls_only": True},
    "lfm2": {"vllm": ("lfm2", "qwen3"), "markers": ("<|tool_call_start|>", "<|tool_call_end|>", "<|im_end|>"), "opener": "<think>"},
    "olmo3": {"vllm": ("olmo3", "qwen3"), "markers": ("<|im_end|>",), "opener": "<think>"},
}
FORMAT_SETS = {"all": ALL_FORMATS, "pythonic": tuple(PYTHONIC)}

# format -> (SGLang --tool-call-parser, SGLang --reasoning-parser or None): the names SGLang 0.5.23
# registers for the model (FunctionCallParser.ToolCallParserEnum, ReasoningParser.DetectorMap);
# Llama 4's calls by the pythonic detector, no reasoning; OLMo 3 has none
SGLANG_PARSERS: dict[str, tuple[str, str | None]] = {
    "minimax_m2": ("minimax-m2", "minimax"),
    "gemma4": ("gemma4", "gemma4"),
    "deepseek_v3_2": ("deepseekv32", "deepseek-v3"),
    "deepseek_v4": ("deepseekv4", "deepseek-v4"),
    "qwen3_5": ("qwen3_coder", "qwen3"),
    "kimi_k3": ("kimi_k3", "kimi_k3"),
    "llama4_pythonic": ("pythonic", None),
    "lfm2": ("lfm2", "qwen3"),
}


class NoParser(Exception):
    """The peer has no parser for the format."""


def hf_tokenizer(fmt: str):
    """``peer_vectors_vllm.hf_tokenizer``, and the stand-ins of the pythonic formats."""
    from peer_vectors_vllm import STAND_IN_MARKERS, _deepseek
    from peer_vectors_vllm import hf_tokenizer as own

    if fmt not in PYTHONIC or fmt in STAND_IN_MARKERS:
        return own(fmt)
    tok = _deepseek()
    tok.add_special_tokens({"additional_special_tokens": list(PYTHONIC[fmt]["markers"])})
    return tok


def reasoning_opener(fmt: str) -> str:
    from peer_vectors_vllm import REASONING_OPENER

    return REASONING_OPENER[fmt][0] if fmt in REASONING_OPENER else PYTHONIC[fmt]["opener"]


def vllm_parsers(fmt: str) -> tuple[str, str | None]:
    from peer_vectors_vllm import PARSERS

    return PARSERS[fmt] if fmt in PARSERS else PYTHONIC[fmt]["vllm"]


VLLM_PYTHON = os.path.join(ROOT, ".venv-vllm", "bin", "python")
VLLM_PATH = "/tmp/vllm033"
SGLANG_PYTHON = os.path.join(ROOT, ".venv-sglang", "bin", "python")


# --------------------------------------------------------------------------------------------
# the cases (driver side)
# --------------------------------------------------------------------------------------------
def expected_calls(shape: str, n: int, seed: int = 0) -> list[tuple[str, str]]:
    """The calls ``parse_stream.make_output(shape, n, fmt, seed)`` writes (same random draws)."""
    from parse_stream import output_calls

    return output_calls(shape, n, random.Random(seed))


_JSON_TYPES = {str: "string", bool: "boolean", int: "integer", float: "number", dict: "object", list: "array"}


def tools_for(calls: list[tuple[str, str]]) -> list[dict]:
    """OpenAI tools for the calls: each argument typed by its value (objects left open)."""
    tools, seen = [], set()
    for name, arguments in calls:
        if name in seen:
            continue
        seen.add(name)
        args = json.loads(arguments)
        props = {k: {"type": _JSON_TYPES[type(v)]} for k, v in args.items()}
        tools.append({"type": "function", "function": {"name": name, "description": f"the {name} tool",
                                                       "parameters": {"type": "object", "properties": props, "required": list(props)}}})
    return tools


def make_deltas(tokenizer: Any, text: str, size: int = DELTA_CHARS) -> list[tuple[str, list[int]]]:
    """``text`` in deltas of ``size`` characters, no added/special token cut (see the module
    docstring), each with the ids of the tokens that end in it."""
    enc = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    ids, spans = enc["input_ids"], enc["offset_mapping"]
    atomic = set(tokenizer.get_added_vocab().values())
    ends, end = [], 0
    inside: dict[int, int] = {}
    for tid, (start, stop) in zip(ids, spans):
        end = max(end, stop)
        ends.append(end)
        if tid in atomic:
            for k in range(start + 1, stop):
                inside[k] = stop
    out, pos, t = [], 0, 0
    while pos < len(text):
        cut = min(pos + size, len(text))
        cut = inside.get(cut, cut)
        delta_ids = []
        while t < len(ids) and ends[t] <= cut:
            delta_ids.append(ids[t])
            t += 1
        out.append((text[pos:cut], delta_ids))
        pos = cut
    assert "".join(d for d, _ in out) == text and t == len(ids)
    return out


def build_cases(formats: list[str], shapes: list[str], lengths: list[int]) -> list[dict]:
    from parse_stream import make_output

    from thinkgate.formats import get_format

    cases = []
    for f in formats:
        fmt = get_format(f)
        tok = hf_tokenizer(f)
        calls_only = PYTHONIC.get(f, {}).get("calls_only")
        for shape in shapes:
            if calls_only and shape == "reasoning":
                continue
            for n in lengths:
                text = make_output(shape, n, fmt)
                calls = expected_calls(shape, n)
                if calls_only:
                    text = fmt.tools.section_text(calls)
                close = fmt.reasoning.close or "\n"
                assert text.endswith(fmt.tools.section_text(calls)), "expected_calls no longer mirrors make_output"
                assert close in text or calls_only
                cases.append({
                    "format": f, "shape": shape, "nominal_chars": n, "chars": len(text),
                    "thinking": bool(fmt.reasoning.present),
                    "tools": tools_for(calls),
                    "calls": [[name, json.loads(a)] for name, a in calls],
                    "deltas": make_deltas(tok, text),
                    "prompt_ids": tok.encode(reasoning_opener(f), add_special_tokens=False),
                })
    return cases


# --------------------------------------------------------------------------------------------
# the peers (worker side): PEER(case) -> (run, read). run() builds fresh parser objects and
# returns (loop, state): loop() is the timed part, feeding every delta and appending the parser's
# outputs to state; read(state) -> (calls [(name, arguments text)], reasoning chars, content
# chars, invalid calls or None)
# --------------------------------------------------------------------------------------------
def thinkgate_peer(case: dict):
    from thinkgate import StreamParser
    from thinkgate.formats import get_format

    fmt = get_format(case["format"])
    texts = [t for t, _ in case["deltas"]]

    def run():
        parser = StreamParser(fmt, thinking=case["thinking"], tools=case["tools"])
        feed = parser.feed
        out = []
        append = out.append

        def loop():
            for text in texts:
                append(feed(text))
            append(parser.finish())

        return loop, (parser, out)

    def read(state):
        parser, _ = state
        m = parser.message
        calls = [(c.name, c.arguments) for c in m.tool_calls]
        reasoning = getattr(m, "reasoning_content", None) or ""
        return calls, len(reasoning), len(m.content or ""), len(getattr(m, "invalid_tool_calls", None) or [])

    return run, read


def sglang_peer(case: dict):
    from sglang.srt.entrypoints.openai.protocol import Tool
    from sglang.srt.function_call.function_call_parser import FunctionCallParser
    from sglang.srt.parser.reasoning_parser import ReasoningParser

    if case["format"] not in SGLANG_PARSERS:
        raise NoParser(f"SGLang has no parser for {case['format']}")
    tool_name, reasoning_name = SGLANG_PARSERS[case["format"]]
    tools = [Tool(**t) for t in case["tools"]]
    texts = [t for t, _ in case["deltas"]]

    def unstreamed(fcp) -> list:
        """The server's ``_check_for_unstreamed_tool_args``: the last call's arguments not yet sent."""
        d = fcp.detector
        prev, sent = getattr(d, "prev_tool_call_arr", None), getattr(d, "streamed_args_for_tool", None)
        if not prev or not sent:
            return []
        i = len(prev) - 1
        if i >= len(sent):
            return []
        expected = prev[i].get("arguments", {})
        expected = expected if isinstance(expected, str) else json.dumps(expected, ensure_ascii=False)
        rest = expected[len(sent[i]):] if expected.startswith(sent[i]) else ""
        return [(i, None, rest)] if rest else []

    def no_reasoning(text: str) -> tuple[None, str]:
        return None, text

    def run():
        # a format that does not think: no reasoning parser (the server runs none), the text as is
        rp = ReasoningParser(reasoning_name, stream_reasoning=True, force_reasoning=case["thinking"], tool_call_parser_active=True) if reasoning_name else None
        fcp = FunctionCallParser(tools, tool_name)
        rp_chunk, fcp_chunk = (rp.parse_stream_chunk if rp else no_reasoning), fcp.parse_stream_chunk
        out = []
        append = out.append
        body, last = texts[:-1], texts[-1]

        def loop():
            for text in body:
                reasoning, normal = rp_chunk(text)
                append((reasoning, fcp_chunk(normal or "")))
            reasoning, normal = rp_chunk(last)
            end_reasoning, end_normal = rp.parse_stream_end() if rp else (None, None)
            reasoning = (reasoning or "") + (end_reasoning or "")
            normal = (normal or "") + (end_normal or "")
            normal, calls = fcp_chunk(normal)
            end_text, end_calls = fcp.parse_stream_end()
            append((reasoning, ((normal or "") + end_text, list(calls) + end_calls)))
            append((None, ("", unstreamed(fcp))))

        return loop, out

    def read(out):
        calls: dict[int, list] = {}
        reasoning = content = 0
        for r, (normal, items) in out:
            reasoning += len(r or "")
            content += len(normal or "")
            for item in items:
                idx, name, params = (item if isinstance(item, tuple) else (item.tool_index, item.name, item.parameters))
                slot = calls.setdefault(idx, [None, ""])
                if name and slot[0] is None:
                    slot[0] = name
                slot[1] += params or ""
        return [tuple(calls[k]) for k in sorted(calls)], reasoning, content, None

    return run, read


def vllm_peer(case: dict):
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.entrypoints.openai.chat_completion.stream_processor import ChatStreamProcessor
    from vllm.parser.parser_manager import ParserManager

    f = case["format"]
    tool_name, reasoning_name = vllm_parsers(f)
    kwargs = {"enable_thinking": True, "thinking": True} if case["thinking"] else {"enable_thinking": False, "thinking": False}
    tokenizer = vllm_tokenizer(f)
    # the driver's token ids must be this tokenizer's (same vocabulary, same added markers)
    text = "".join(t for t, _ in case["deltas"])
    assert hf_tokenizer(f).encode(text, add_special_tokens=False) == [i for _, ids in case["deltas"] for i in ids]
    cls = ParserManager.get_parser(tool_parser_name=tool_name, reasoning_parser_name=reasoning_name,
                                   enable_auto_tools=True, tokenizer=tokenizer)
    request = ChatCompletionRequest(model="bench", messages=[{"role": "user", "content": "hi"}], stream=True,
                                    tools=case["tools"], tool_choice="auto", chat_template_kwargs=kwargs)
    request.skip_special_tokens = False
    deltas = [(t, ids) for t, ids in case["deltas"]]
    reasons = [None] * (len(deltas) - 1) + ["stop"]
    prompt = case["prompt_ids"]

    def run():
        parser = cls(tokenizer, request.tools, chat_template_kwargs=kwargs)
        processor = ChatStreamProcessor(request, parser, enable_auto_tools=True, parser_cls=cls)
        assert processor.keep_tool_calls
        step = processor.step
        out = []
        append = out.append

        def loop():
            for (text, ids), reason in zip(deltas, reasons):
                append(step(text, ids, reason, prompt).delta)

        return loop, out

    def read(out):
        calls: dict[int, list] = {}
        reasoning = content = 0
        for delta in out:
            if delta is None:
                continue
            content += len(delta.content or "")
            reasoning += len(delta.reasoning or "")
            for tc in delta.tool_calls or []:
                slot = calls.setdefault(tc.index, [None, ""])
                if tc.function is not None:
                    if tc.function.name and slot[0] is None:
                        slot[0] = tc.function.name
                    slot[1] += tc.function.arguments or ""
        return [tuple(calls[k]) for k in sorted(calls)], reasoning, content, None

    return run, read


@functools.cache
def vllm_tokenizer(fmt: str) -> Any:
    """The tokenizer vLLM's parsers are given: :func:`hf_tokenizer`'s, wrapped as vLLM wraps a
    Hugging Face one (``peer_vectors_vllm.tokenizer_for``)."""
    from vllm.tokenizers.hf import get_cached_tokenizer

    return get_cached_tokenizer(hf_tokenizer(fmt))


PEERS = {"thinkgate": thinkgate_peer, "sglang": sglang_peer, "vllm": vllm_peer}


def check(case: dict, calls: list[tuple[str, str]]) -> tuple[bool, bool, str]:
    """(names and count right, arguments equal, what differs)."""
    want = case["calls"]
    names = [n for n, _ in calls]
    if names != [n for n, _ in want]:
        return False, False, f"calls {names} != {[n for n, _ in want]}"
    for (name, arguments), (_, args) in zip(calls, want):
        try:
            got = json.loads(arguments)
        except (TypeError, ValueError) as e:
            return True, False, f"{name}: arguments not JSON ({e}): {str(arguments)[:80]!r}"
        if got != args:
            keys = sorted(set(got) ^ set(args)) if isinstance(got, dict) else []
            diff = next((k for k in args if isinstance(got, dict) and got.get(k) != args[k]), None)
            return True, False, f"{name}: arguments differ (keys {keys[:3]}, first differing {diff!r})"
    return True, True, ""


class CaseTimeout(Exception):
    """A stream took longer than the case's time limit."""


def _alarm(signum, frame):
    raise CaseTimeout


def worker(peer: str, cases_path: str, repeat: int, case_timeout: int) -> None:
    import logging
    import signal
    import warnings

    warnings.filterwarnings("ignore")
    logging.disable(logging.ERROR)
    with open(cases_path) as f:
        cases = json.load(f)
    version = None
    if peer == "sglang":
        import sglang

        version = sglang.__version__
    elif peer == "vllm":
        import vllm

        version = vllm.__version__
        assert version.startswith("0.33"), f"vLLM {version}: set PYTHONPATH={VLLM_PATH}"
    else:
        import thinkgate

        version = getattr(thinkgate, "__version__", "editable")
    prepared, results = [], []
    for case in cases:
        try:
            prepared.append(PEERS[peer](case))
            results.append({"best_s": float("inf"), "error": None})
        except NoParser as e:
            prepared.append(None)
            results.append({"best_s": None, "error": None, "no_parser": str(e)})
        except Exception as e:  # noqa: BLE001 - a peer that cannot be built for a case is reported
            prepared.append(None)
            results.append({"best_s": None, "error": f"setup {type(e).__name__}: {str(e)[:200]}"})
    states: list[Any] = [None] * len(cases)
    signal.signal(signal.SIGALRM, _alarm)
    for round_ in range(repeat + 1):  # round 0 warms up (imports, caches) and is not counted
        for i, p in enumerate(prepared):
            if p is None or results[i]["error"] or results[i].get("no_parser") or results[i].get("timeout_s"):
                continue
            run, _read = p
            try:
                loop, state = run()
                gc.collect()
                gc.disable()
                signal.alarm(case_timeout)
                t0 = time.perf_counter()
                try:
                    loop()
                finally:
                    elapsed = time.perf_counter() - t0
                    signal.alarm(0)
                gc.enable()
            except CaseTimeout:  # (SGLang's pythonic detector: its regex backtracks without end on a list of calls)
                gc.enable()
                results[i] = {"best_s": None, "error": None, "timeout_s": case_timeout}
                continue
            except Exception as e:  # noqa: BLE001 - a parser that raises fails the case
                gc.enable()
                results[i] = {"best_s": None, "error": f"{type(e).__name__}: {str(e)[:200]}"}
                continue
            if round_:
                results[i]["best_s"] = min(results[i]["best_s"], elapsed)
            states[i] = state
    for case, p, r, state in zip(cases, prepared, results, states):
        r.update({"format": case["format"], "shape": case["shape"], "nominal_chars": case["nominal_chars"], "deltas": len(case["deltas"])})
        if state is None:
            continue
        calls, reasoning, content, invalid = p[1](state)
        names_ok, args_ok, why = check(case, calls)
        r.update({"calls": len(calls), "calls_expected": len(case["calls"]), "names_ok": names_ok, "args_equal": args_ok,
                  "mismatch": why, "reasoning_chars": reasoning, "content_chars": content, "invalid_calls": invalid})
    json.dump({"peer": peer, "version": version, "rows": results}, sys.stdout)


# --------------------------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------------------------
def run_worker(peer: str, cases_path: str, repeat: int, case_timeout: int) -> dict:
    cmd = [__file__, "--worker", peer, "--cases", cases_path, "--repeat", str(repeat), "--case-timeout", str(case_timeout)]
    env = dict(os.environ, TOKENIZERS_PARALLELISM="false", VLLM_LOGGING_LEVEL="ERROR")
    if peer == "sglang":
        python = SGLANG_PYTHON
    elif peer == "vllm":
        python = VLLM_PYTHON
        env["PYTHONPATH"] = os.pathsep.join(p for p in (VLLM_PATH, env.get("PYTHONPATH")) if p)
    else:
        python = sys.executable
    proc = subprocess.run([python, *cmd], capture_output=True, text=True, env=env, cwd=ROOT)
    if proc.returncode != 0:
        raise RuntimeError(f"{peer} worker failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def cell(r: dict | None) -> str:
    if r is None:
        return "-"
    if r.get("no_parser"):
        return "n/a"
    if r.get("timeout_s"):
        return f"> {r['timeout_s']} s"
    if r.get("best_s") is None:
        return "ERROR"
    ms = f"{r['best_s'] * 1e3:.1f}"
    if not r.get("names_ok"):
        return ms + " FAIL"
    return ms if r.get("args_equal") else ms + " (args≠)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--formats", default="minimax_m2,gemma4", help="comma-separated; 'all' (the six), 'pythonic' (the three)")
    ap.add_argument("--shapes", default=",".join(SHAPES))
    ap.add_argument("--lengths", default="20000", help="comma-separated nominal characters")
    ap.add_argument("--peers", default="thinkgate,sglang,vllm")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", default=os.path.join(HERE, "results", "parse_stream_peers.json"))
    ap.add_argument("--profile", default=None, metavar="FORMAT", help="cProfile thinkgate's loop on FORMAT instead")
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--case-timeout", type=int, default=60, help="seconds a stream may take (a parser past it: '> N s', no time)")
    ap.add_argument("--worker", choices=sorted(PEERS), help=argparse.SUPPRESS)
    ap.add_argument("--cases", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker, args.cases, args.repeat, args.case_timeout)
        return
    formats = [f for name in args.formats.split(",") for f in FORMAT_SETS.get(name, (name,))]
    shapes, lengths = args.shapes.split(","), [int(n) for n in args.lengths.split(",")]
    if args.profile:
        profile(args.profile, shapes, lengths, args.top)
        return
    peers = args.peers.split(",")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    cases = build_cases(formats, shapes, lengths)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(cases, f)
        cases_path = f.name
    results, versions = {}, {}
    try:
        for peer in peers:
            t0 = time.time()
            res = run_worker(peer, cases_path, args.repeat, args.case_timeout)
            versions[peer] = res["version"]
            for r in res["rows"]:
                results[(peer, r["format"], r["shape"], r["nominal_chars"])] = r
            print(f"[{peer} {res['version']}: {time.time() - t0:.0f}s]", file=sys.stderr)
    finally:
        os.unlink(cases_path)

    rows = []
    for c in cases:
        key = (c["format"], c["shape"], c["nominal_chars"])
        per = {p: results.get((p, *key)) for p in peers}
        tg = per.get("thinkgate")
        peer_ms = [per[p]["best_s"] * 1e3 for p in peers if p != "thinkgate" and per[p] and per[p].get("best_s") and per[p].get("names_ok")]
        fastest = min(peer_ms) if peer_ms else None
        ratio = fastest / (tg["best_s"] * 1e3) if fastest and tg and tg.get("best_s") else None
        rows.append({"format": c["format"], "shape": c["shape"], "nominal_chars": c["nominal_chars"], "chars": c["chars"],
                     "deltas": len(c["deltas"]), "peers": per, "fastest_peer_ms": fastest, "speedup_vs_fastest_peer": ratio})

    head = f"{'format':<17}{'shape':<16}{'chars':>7}{'deltas':>7}" + "".join(f"{p + ' ms':>16}" for p in peers) + f"{'× vs faster peer':>18}"
    print(head)
    for r in rows:
        ratio = f"{r['speedup_vs_fastest_peer']:.2f}" if r["speedup_vs_fastest_peer"] else "-"
        print(f"{r['format']:<17}{r['shape']:<16}{r['chars']:>7}{r['deltas']:>7}" + "".join(f"{cell(r['peers'][p]):>16}" for p in peers) + f"{ratio:>18}")
    print("\n× = faster peer's ms / thinkgate's ms (> 1: thinkgate faster). FAIL: wrong calls (time meaningless); "
          "(args≠): calls found, arguments differ from those written; ERROR: the parser raised; "
          "> N s: the stream was stopped after N seconds; n/a: the peer has no parser for the format.")
    for r in rows:
        for p, x in r["peers"].items():
            if x and (x.get("error") or x.get("mismatch") or x.get("timeout_s")):
                why = x.get("error") or x.get("mismatch") or f"not done after {x['timeout_s']} s (stopped)"
                print(f"  {p} {r['format']}/{r['shape']}/{r['nominal_chars']}: {why}")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump({"benchmark": "parse_stream_peers", "date": time.strftime("%Y-%m-%d"), "delta_chars": DELTA_CHARS, "repeat": args.repeat, "versions": versions,
                   "sglang_parsers": {f: SGLANG_PARSERS.get(f) for f in formats},
                   "vllm_parsers": {f: vllm_parsers(f) for f in formats}, "rows": rows}, f, indent=1)
    print(f"wrote {args.out}")


def profile(fmt_name: str, shapes: list[str], lengths: list[int], top: int) -> None:
    """cProfile of thinkgate's loop alone: top functions by tottime and by cumtime."""
    import cProfile
    import pstats

    for case in build_cases([fmt_name], shapes, lengths):
        run, read = thinkgate_peer(case)
        run()[0]()  # a first stream unprofiled: imports and module-level caches warm, as in the timed rounds
        loop, state = run()
        prof = cProfile.Profile()
        gc.disable()
        prof.enable()
        loop()
        prof.disable()
        gc.enable()
        calls, *_ = read(state)
        assert check(case, calls)[0], "thinkgate read the wrong calls"
        stats = pstats.Stats(prof)
        print(f"\n=== thinkgate {fmt_name} {case['shape']} {case['chars']} chars, {len(case['deltas'])} deltas "
              f"(total {stats.total_tt * 1e3:.1f} ms under the profiler)")
        for key in ("tottime", "cumtime"):
            print(f"--- top {top} by {key}")
            print(f"{'ncalls':>9}{'tottime ms':>12}{'cumtime ms':>12}  function")
            entries = sorted(stats.stats.items(), key=lambda kv: kv[1][2 if key == "tottime" else 3], reverse=True)
            for (file, line, func), (cc, nc, tt, ct, _) in entries[:top]:
                where = file.split("site-packages/")[-1].replace(ROOT + "/", "") if file != "~" else "builtin"
                print(f"{nc:>9}{tt * 1e3:>12.2f}{ct * 1e3:>12.2f}  {where}:{line}:{func}")


if __name__ == "__main__":
    main()
