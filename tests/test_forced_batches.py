"""Forced drafts through thinkgate's own decoding loop (issue 37, point 2), which serves a request
alone and batches: it verifies every row's drafts in one pass of the batch, rows keeping what each
accepted (holes in the cache). Greedy output is plain batched greedy output, token for token up to
each row's end, for every registered format, in a batch holding every tool_choice (required, auto,
none, named) with thinking on and off and prompts of different lengths; it takes no more passes,
fewer where every row writes a call; sampled output holds to the grammar and is drawn from plain
sampling's distribution; the cache's holes are squeezed out without changing a token."""

from __future__ import annotations

import json

import jsonschema
import pytest
import torch
from format_matrix import formats_under_test, layout_kind
from test_assisted import SCHEMAS, TOOLS, _said, tiny_model
from transformers import LogitsProcessorList

from thinkgate.formats import get_format, names
from thinkgate.integrations import forced_batch_decoding as batch_loop
from thinkgate.integrations.forced_batch_decoding import forced_batch_decoding, serves
from thinkgate.integrations.transformers import RowSpec, ToolCallLogitsProcessor, _pad_left, generate_chat
from thinkgate.requests import ChatRequest

NAMED = {"type": "function", "function": {"name": "wake_at"}}
MAX_NEW = 64  # (a call fits, and every format's batch runs in the default budget)
PROMPTS = ["Wake me at seven on Monday, and set the mode to eco.", "Set the mode.", "Wake me at six on Tuesday and Wednesday, please, then boost.", "Hi."]


CHOICES = ["required", "auto", "none", NAMED]


def rows_for(fmt, every=False):
    """A batch's rows: every tool_choice, each thinking and not where the format thinks (a
    budget, so that the close is forced) or, unless ``every``, half of them each way; one row
    with a shorter token limit."""
    thinks = fmt.reasoning.present
    specs = [(c, t) for c in CHOICES for t in ((False, True) if thinks else (False,))] if every else [(c, thinks and k % 2 == 0) for k, c in enumerate(CHOICES)]
    return [
        RowSpec(fmt, TOOLS, choice, False, thinking=thinking if thinks else False, thinking_budget=10 if thinking else None, max_new_tokens=MAX_NEW if k != 1 else MAX_NEW // 2)
        for k, (choice, thinking) in enumerate(specs)
    ]


def generate(model, tok, fmt, prompts, rows, loop=None, **options):
    """``(each row's output ids up to its end, messages, processor, forward passes)``."""
    proc = ToolCallLogitsProcessor(tok, rows, [len(p) for p in prompts], vocab_size=model.config.vocab_size)
    if loop is not None:
        options["custom_generate"] = loop(proc, tok)
    eos = tok.convert_tokens_to_ids(fmt.eos)
    ids, mask = _pad_left(prompts, eos)
    passes = [0]
    hook = model.register_forward_hook(lambda *_: passes.__setitem__(0, passes[0] + 1))
    try:
        with torch.no_grad():
            out = model.generate(ids, attention_mask=mask, logits_processor=LogitsProcessorList([proc]), max_new_tokens=MAX_NEW, eos_token_id=eos, pad_token_id=eos, **{"do_sample": False, **options})
    finally:
        hook.remove()
    results = proc.results(out)
    outputs = []
    for row in out[:, ids.shape[1] :].tolist():
        end = next((k for k, t in enumerate(row) if t in proc.stop_ids), None)
        outputs.append(row if end is None else row[: end + 1])
    return outputs, [m for m, _ in results], proc, passes[0]


@pytest.mark.parametrize("name", formats_under_test(layout_kind))
def test_greedy_batches_with_forced_drafts_are_plain_greedy_batches(name, tokenizer_for):
    """Every format, one batch holding every tool_choice with thinking on and off."""
    fmt = get_format(name)
    tok = tokenizer_for(name)
    model = tiny_model(tok, 0)
    rows = rows_for(fmt, every=True)
    prompts = [tok.encode(PROMPTS[k % len(PROMPTS)], add_special_tokens=False) for k in range(len(rows))]
    plain, messages, _, plain_passes = generate(model, tok, fmt, prompts, rows)
    ids, drafted, proc, passes = generate(model, tok, fmt, prompts, rows_for(fmt, every=True), forced_batch_decoding)
    for k, (a, b) in enumerate(zip(ids, plain)):
        assert a == b, f"{name} row {k}: left plain greedy's output at token {next(t for t, (x, y) in enumerate(zip(a + [None], b + [None])) if x != y)}"
    assert [_said(m) for m in drafted] == [_said(m) for m in messages]
    # a batch takes as many passes as its slowest row: fewer wherever that row drafted too
    assert passes <= plain_passes and proc.accepted_prediction_tokens > 0, (passes, plain_passes)
    for message in drafted:
        for call in message.tool_calls:
            jsonschema.validate(json.loads(call.arguments), SCHEMAS[call.name])


@pytest.mark.parametrize("name", ["deepseek_v3_1", "qwen3_coder", "gpt_oss"])
def test_sampled_batches_with_forced_drafts_hold_to_the_grammar(name, tokenizer_for):
    fmt = get_format(name)
    tok = tokenizer_for(name)
    model = tiny_model(tok, 0)
    prompts = [tok.encode(p, add_special_tokens=False) for p in PROMPTS]
    for seed in range(2):
        torch.manual_seed(seed)
        _, messages, proc, _ = generate(model, tok, fmt, prompts, rows_for(fmt), forced_batch_decoding, do_sample=True, temperature=1.5, top_k=50, top_p=0.95)
        assert proc.accepted_prediction_tokens > 0
        for m in messages:
            assert not m.error and m.finish_reason in ("tool_calls", "stop", "length"), m.error
            for call in m.tool_calls:
                jsonschema.validate(json.loads(call.arguments), SCHEMAS[call.name])


def test_the_caches_holes_are_squeezed_out_without_changing_a_token(tokenizer, monkeypatch):
    """Squeezing after every round (the holes moved out each time) gives the same tokens."""
    fmt = get_format("deepseek_v3_1")
    model = tiny_model(tokenizer, 0)
    prompts = [tokenizer.encode(p, add_special_tokens=False) for p in PROMPTS]
    ids, _, _, _ = generate(model, tokenizer, fmt, prompts, rows_for(fmt), forced_batch_decoding)
    squeezed = []
    original = batch_loop._Loop._squeeze

    def always(self):
        before = self.mask.shape[1]
        length, longest = before, int(self.count.max())
        if length > longest:
            order = torch.argsort(self.mask, dim=1, stable=True)[:, -longest:]
            cache = self.kwargs.get("cache", self.kwargs.get("past_key_values"))
            for layer in cache.layers:
                layer.keys = batch_loop._columns(layer.keys, order)
                layer.values = batch_loop._columns(layer.values, order)
            self.mask = self.mask.gather(1, order)
            squeezed.append(before - self.mask.shape[1])

    monkeypatch.setattr(batch_loop._Loop, "_squeeze", always)
    again, _, _, _ = generate(model, tokenizer, fmt, prompts, rows_for(fmt), forced_batch_decoding)
    monkeypatch.setattr(batch_loop._Loop, "_squeeze", original)
    assert squeezed and sum(squeezed) > 0
    assert again == ids


def test_a_processor_that_reads_the_tokens_sends_the_batch_to_transformers_own_loop(tokenizer, caplog):
    fmt = get_format("deepseek_v3_1")
    model = tiny_model(tokenizer, 0)
    prompts = [tokenizer.encode(p, add_special_tokens=False) for p in PROMPTS]
    plain, _, _, _ = generate(model, tokenizer, fmt, prompts, rows_for(fmt), repetition_penalty=1.3)
    with caplog.at_level("WARNING", logger="thinkgate.integrations"):
        ids, _, proc, _ = generate(model, tokenizer, fmt, prompts, rows_for(fmt), forced_batch_decoding, repetition_penalty=1.3)
    assert "RepetitionPenaltyLogitsProcessor" in caplog.text
    assert ids == plain and proc.accepted_prediction_tokens == 0


def test_generate_chat_drafts_batches(tokenizer):
    model = tiny_model(tokenizer, 0)
    assert serves(model)
    requests = [ChatRequest(messages=[{"role": "user", "content": p}], tools=TOOLS, tool_choice="required", max_tokens=64, temperature=0) for p in PROMPTS[:3]]
    passes = [0]
    hook = model.register_forward_hook(lambda *_: passes.__setitem__(0, passes[0] + 1))
    try:
        on = generate_chat(model, tokenizer, requests, format="deepseek_v3_1", batch_size=3)
        on_passes = passes[0]
        off = generate_chat(model, tokenizer, requests, format="deepseek_v3_1", batch_size=3, forced_drafts=False)
        off_passes = passes[0] - on_passes
    finally:
        hook.remove()
    assert on_passes < off_passes  # every row writes a call: every row drafts
    strip = lambda c: ([(t["function"]["name"], t["function"]["arguments"]) for t in c["choices"][0]["message"].get("tool_calls") or []], c["usage"]["completion_tokens"])  # noqa: E731
    assert [strip(c) for c in on] == [strip(c) for c in off]
    assert all(c["usage"]["completion_tokens_details"]["accepted_prediction_tokens"] > 0 for c in on)
    assert all("accepted_prediction_tokens" not in c["usage"]["completion_tokens_details"] for c in off)


def test_every_sampled_token_is_drawn_from_the_distribution_plain_sampling_draws_it_from(tokenizer, monkeypatch):
    """Sampling under drafts: at every position a row keeps, the loop picked its token from the
    masked, tempered distribution that plain sampling reads after the same tokens (recomputed
    here one token at a time, without a cache, by a processor of its own); a kept draft is such
    a pick equal to the draft, a rejected one is replaced by that pick; a draft kept with no pick
    (its mask allowed it alone) has probability one there."""
    from transformers.generation.logits_process import TemperatureLogitsWarper, TopKLogitsWarper

    fmt = get_format("deepseek_v3_1")
    model = tiny_model(tokenizer, 0)
    prompts = [tokenizer.encode(p, add_special_tokens=False) for p in PROMPTS]
    seen: dict[tuple[int, tuple[int, ...]], torch.Tensor] = {}
    pick = batch_loop._Loop._pick

    def recording(self, scores, order, rows):
        for i in order:
            seen[(i, tuple(rows[i]))] = torch.softmax(scores[i], dim=-1)
        return pick(self, scores, order, rows)

    monkeypatch.setattr(batch_loop._Loop, "_pick", recording)
    torch.manual_seed(3)
    rows = rows_for(fmt)
    outputs, _, proc, _ = generate(model, tokenizer, fmt, prompts, rows, forced_batch_decoding, do_sample=True, temperature=1.3, top_k=50)
    assert proc.accepted_prediction_tokens > 0 and proc.rejected_prediction_tokens > 0
    reference = ToolCallLogitsProcessor(tokenizer, rows_for(fmt), [len(p) for p in prompts], vocab_size=model.config.vocab_size)
    ids, mask = _pad_left(prompts, tokenizer.convert_tokens_to_ids(fmt.eos))
    warpers = [TemperatureLogitsWarper(1.3), TopKLogitsWarper(50)]
    checked = certain = 0
    with torch.no_grad():
        for k in range(max(map(len, outputs))):
            seq = torch.cat([ids, torch.tensor([o[:k] + [0] * (k - len(o[:k])) for o in outputs], dtype=torch.long).reshape(len(prompts), k)], dim=1)
            full = torch.cat([mask, torch.ones(len(prompts), k, dtype=torch.long)], dim=1)
            logits = model(input_ids=seq, attention_mask=full, position_ids=(full.cumsum(-1) - 1).clamp(min=0)).logits[:, -1].float()
            scores = reference(seq, logits)
            for warp in warpers:
                scores = warp(None, scores)
            expected = torch.softmax(scores, dim=-1)
            for i, o in enumerate(outputs):
                if k < len(o):
                    got = seen.get((i, tuple(o[:k])))
                    if got is None:  # a draft its mask allowed alone, kept with no pick: certain
                        assert expected[i, o[k]] > 1 - 1e-6, (i, k)
                        certain += 1
                    else:
                        assert torch.allclose(got, expected[i], atol=1e-5), (i, k)
                    checked += 1
    assert checked == sum(map(len, outputs)) and certain


def test_a_spent_thinking_budget_drafts_its_close_and_what_the_grammar_fixes_after_it(tokenizer):
    """While thinking nothing is drafted; once the budget is spent, the forced ``</think>`` is
    (the grammar leaves whitespace open after it), and after the section's marker the call's
    marker the grammar fixes (tool_choice required)."""
    import xgrammar as xgr

    from thinkgate.constraint.runtime.forced import ForcedDrafts
    from thinkgate.integrations.forced_drafting import propose

    fmt = get_format("deepseek_v3_1")
    prompt = tokenizer.encode("Wake me at seven.", add_special_tokens=False)
    row = RowSpec(fmt, TOOLS, "required", False, thinking=True, thinking_budget=3, max_new_tokens=MAX_NEW)
    proc = ToolCallLogitsProcessor(tokenizer, [row], [len(prompt)], vocab_size=len(tokenizer))
    proc.start(torch.tensor([prompt]))
    drafts, bits = ForcedDrafts.for_tokenizer(tokenizer), xgr.allocate_token_bitmask(1, len(tokenizer))
    thought = tokenizer.encode(" Let me", add_special_tokens=False)[:2]
    assert propose(proc, 0, thought, drafts, bits, 16) == []
    spent = thought + tokenizer.encode(" think", add_special_tokens=False)[:1]
    close, begin, call = tokenizer.convert_tokens_to_ids(["</think>", "<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>"])
    assert propose(proc, 0, spent, drafts, bits, 16) == [close]
    assert propose(proc, 0, [*spent, close, begin], drafts, bits, 16)[:1] == [call]
