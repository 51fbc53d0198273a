"""BatchSteps: a batch stepped at once (the thinking rows counted in arrays, the tool-phase rows
filled by one call of xgrammar's) masks exactly as its requests stepped one by one do."""

import numpy as np
import pytest
import torch

from helpers import RandomLogits
from schemas import REALISTIC
from thinkgate.constraint import BatchMasker, BatchSteps, Phase, ReasonerGrammar, compile_tool_grammar
from thinkgate.constraint.runtime.batch import DeviceBitmask, apply_bitmask
from thinkgate.constraint.runtime.reasoner import FailedRequest

# (thinking, tool_choice, thinking_budget, max_tokens) per row; None: a row without a constraint
ROWS = [
    (True, "auto", None, None),
    (True, "required", 5, None),
    ("auto", "auto", None, None),
    (False, "required", None, None),
    (True, "required", None, 40),
    None,
    (True, "auto", 0, None),
    (True, "required", 9, None),
    "failed",
    (False, "auto", None, None),
]


def _requests(grammars):
    out = []
    for spec in ROWS:
        if spec is None:
            out.append(None)
        elif spec == "failed":
            out.append(FailedRequest(grammars["auto"].stop_ids, "the grammar did not compile"))
        else:
            thinking, choice, budget, max_tokens = spec
            out.append(ReasonerGrammar(grammars[choice], thinking=thinking, thinking_budget=budget, max_tokens=max_tokens))
    return out


def _masked(logits):
    return torch.isinf(logits)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_batch_stepped_at_once_masks_as_its_rows_stepped_one_by_one(tokenizer, seed):
    grammars = {c: compile_tool_grammar(tokenizer, "deepseek_r1", REALISTIC, c) for c in ("auto", "required")}
    g = grammars["auto"]
    V = g.vocab.size
    close, eos = g.think_close, g.stop_ids[0]
    reference, stepped = _requests(grammars), _requests(grammars)
    masker = BatchMasker(V, len(ROWS))
    steps = BatchSteps(stepped, V)
    live = [r is not None for r in reference]
    random_logits = RandomLogits(seed)
    rng = np.random.default_rng(seed)
    seen_phases = set()
    for step in range(70):
        if not any(live):
            break
        logits = random_logits(len(ROWS), V)
        theirs = logits.clone()
        masker([r if live[i] else None for i, r in enumerate(reference)], logits)
        steps.mask(theirs)
        for i in range(len(ROWS)):
            if live[i]:
                assert torch.equal(_masked(logits[i]), _masked(theirs[i])), f"row {i} at step {step}"
        picked = logits.argmax(dim=-1).tolist()
        for i, r in enumerate(reference):
            if not live[i]:
                continue
            # now and then the tokens that matter while thinking: </think> and the end
            draw = rng.random()
            for special, p in ((close, 0.08), (eos, 0.04)):
                if draw < p and torch.isfinite(logits[i, special]):
                    picked[i] = special
                    break
                draw -= p
            r.accept_token(picked[i])
            if isinstance(r, ReasonerGrammar):
                seen_phases.add(r.phase)
        steps.accept(picked)
        for i, r in enumerate(reference):
            if live[i] and (picked[i] == eos or r.is_terminated()):
                live[i] = False
                steps.finish(i)
    steps.sync()
    for a, b in zip(reference, stepped):
        if isinstance(a, ReasonerGrammar):
            assert (a.phase, a.position, a.thinking_tokens, a.error) == (b.phase, b.position, b.thinking_tokens, b.error)
    assert {Phase.THINKING, Phase.CONSTRAINED} <= seen_phases


def test_thinking_rows_are_counted_without_being_stepped(tokenizer):
    """While every row thinks, a step hands no request a token: the batch counts them, and a
    request reads its count after sync (a budget is met where it falls)."""
    g = compile_tool_grammar(tokenizer, "deepseek_r1", REALISTIC, "auto")
    rows = [ReasonerGrammar(g, thinking=True), ReasonerGrammar(g, thinking=True, thinking_budget=4)]
    steps = BatchSteps(rows, g.vocab.size)
    plain = tokenizer.encode(" so", add_special_tokens=False)[0]
    for k in range(3):
        assert steps.accept([plain, plain]).tolist() == []
    assert rows[0].position == 0  # counted in the batch, not yet in the request
    assert steps.accept([plain, plain]).tolist() == [1]  # the budget's last token: row 1 stepped
    assert rows[1].forcing_close and rows[1].position == 4
    logits = torch.zeros(2, g.vocab.size)
    steps.mask(logits)
    assert torch.isfinite(logits[1]).nonzero().flatten().tolist() == [g.think_close]
    assert torch.isfinite(logits[0]).all()
    steps.sync()
    assert rows[0].position == 4 and rows[0].thinking_tokens == 4


def test_device_path_applies_packed_rows_as_the_host_path(tokenizer):
    """The accelerator's path (only the masked rows copied, scattered on the device, applied by
    xgrammar's kernel) run on the CPU, against the CPU path, with a padded vocabulary."""
    g = compile_tool_grammar(tokenizer, "deepseek_r1", REALISTIC, "required")
    V = g.vocab.size
    rows = [ReasonerGrammar(g, thinking=False) for _ in range(3)]
    # each row at its own place in a call, so that a row given another's mask shows
    call = tokenizer.encode(g.format.tools.section_text([("get_weather", '{"city": "Paris"}')]), add_special_tokens=False)
    assert rows[2].accept_tokens(call[:4])
    bitmask = BatchMasker(V, 3)._rows(3)
    for i, r in enumerate(rows):
        r.fill_bitmask(bitmask, i)
    assert not torch.equal(bitmask[0], bitmask[2])
    logits = torch.randn(4, V + 64)
    theirs = logits.clone()
    apply_bitmask(logits, bitmask, [0, 2], V)
    device = DeviceBitmask(torch.device("cpu"), pin=False)
    device.apply(theirs, bitmask, [0, 2], V)
    assert torch.equal(logits, theirs)
    assert torch.isinf(theirs[0]).any() and not torch.isinf(theirs[1]).any()
    again = logits.clone()
    device.apply(again, bitmask, [2], V)  # the other buffer, a different row set
    assert torch.equal(again, logits)


# a free map (its keys are the model's: the guard keeps them from repeating) of short strings
TAG_ITEMS = {
    "type": "function",
    "function": {
        "name": "tag_items",
        "parameters": {
            "type": "object",
            "properties": {"tags": {"type": "object", "additionalProperties": {"type": "string", "maxLength": 6}}},
            "required": ["tags"],
        },
    },
}


def test_rows_filled_together_mask_as_each_filled_alone(tokenizer):
    """The tool phase's rows are filled by one call of xgrammar's and finished by the batch (the
    guards' masks, the look at tokens of several quotes, the dead-end check): the same bits as
    each row filled on its own, at every token of calls that pass bounded strings near their
    end, escapes, a surrogate pair, a duplicate key in the making and a whitespace run that
    reaches its bound."""
    g = compile_tool_grammar(tokenizer, "deepseek_r1", REALISTIC + [TAG_ITEMS], "required")
    assert g.calls is None  # (a routed grammar's rows are filled one by one)
    calls = [
        ("book_flight", '{"origin": "ZRH", "destination": "NRT", "depart_at": "2025-03-01T10:00:00Z", "passengers": [{"name": "Ana M\\u00fcller Kowalski", "age": 31}], "notes": "window seat, aisle if none"}'),
        ("tag_items", '{"tags": {"ab": "x\\"y",  "ab_c": "\\ud83d\\ude00", "a":        "zz"}}'),
        ("get_weather", '{"city": "東京", "days": 3}'),
    ]
    ids = tokenizer.encode(g.format.tools.section_text(calls), add_special_tokens=False)
    rows = []
    for k in range(len(ids)):
        r = ReasonerGrammar(g, thinking=False)
        assert r.accept_tokens(ids[:k]), r.error
        rows.append(r)
    V = g.vocab.size
    masker = BatchMasker(V, len(rows))
    plain = [i for i, r in enumerate(rows) if r.plain]
    assert len(plain) == len(rows)
    masker.fill(rows, [], plain, len(rows))
    together = masker._rows(len(rows))[: len(rows)].clone()
    alone = BatchMasker(V, len(rows))._rows(len(rows))
    for i, r in enumerate(rows):
        r.fill_bitmask(alone, i)
    assert all(r.error is None for r in rows)
    for i in range(len(rows)):
        assert torch.equal(together[i], alone[i]), f"row {i}: after {tokenizer.decode(ids[:i])!r}"

    def allows(row: int, token: int) -> bool:
        return bool(int(together[row, token >> 5]) >> (token & 31) & 1)

    # the key "ab" written again (the start of "ab_c"): a token that closes it would repeat a key
    at = next(k for k in range(len(ids)) if tokenizer.decode(ids[:k]).endswith('"x\\"y",  "ab'))
    closers = g.masks.close_prefix[b""]
    assert not any(allows(at, t) for t in closers) and any(allows(at + 1, t) for t in closers)
    # seven spaces, one short of the bound (eight): one more space may follow, but not two
    at = next(k for k in range(len(ids)) if tokenizer.decode(ids[:k]).endswith('"a":' + " " * 7))
    one, two = tokenizer.convert_tokens_to_ids(["Ġ", "ĠĠ"])
    assert allows(at, one) and not allows(at, two) and allows(at - 1, two)
