"""Draft rounds (speculative decoding) against one-token stepping (design.md invariant 6).

A batch of requests follows random draft rounds: each round every row is shown a few drafted
tokens, one at a time, as an engine verifying them shows them; a random number of them is
accepted (those of the reference walk), the rest are rolled back, and the token the model
itself wrote follows. Rejected drafts are of every kind: tokens the grammar forbids, tokens it
allows but that leave the walk, ``</think>`` and the end of the output where they do not
belong. Rounds cross the end of thinking, a budget's forced close, a call's end and the output's
end. At every position a row reaches through tokens of its reference walk, its mask equals the
one-token mask there; after every round, its state equals the one-token state.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import grammar_state as state
from schemas import GET_WEATHER, SET_ALARM
from thinkgate.constraint import BatchSteps, ReasonerGrammar, compile_tool_grammar

TOOLS = [GET_WEATHER, SET_ALARM]
# (format, tool_choice, thinking, thinking budget, max_tokens) per row of the batch
ROWS = {
    "deepseek_r1": [("required", True, 6, None), ("auto", True, None, None), ("required", True, None, 40)],
    "deepseek_v3_1": [("auto", "auto", None, None), ({"type": "function", "function": {"name": "set_alarm"}}, False, None, None)],
    "gpt_oss": [("required", True, 5, None), ("auto", True, None, None)],
    "qwen3_coder": [("required", False, None, None), ("auto", False, None, None)],
    "kimi_k3": [("required", True, 4, None), ("auto", True, None, None)],
}
WALK = 70  # tokens of a reference walk at most
_GRAMMARS: dict = {}


def _grammar(tok, name, choice):
    key = (id(tok), name, repr(choice))
    if key not in _GRAMMARS:
        _GRAMMARS[key] = compile_tool_grammar(tok, name, TOOLS, choice)
    return _GRAMMARS[key]


def _request(tok, name, spec):
    choice, thinking, budget, max_tokens = spec
    return ReasonerGrammar(_grammar(tok, name, choice), thinking=thinking, thinking_budget=budget, max_tokens=max_tokens)


def allowed_rows(steps: BatchSteps, vocab: int) -> np.ndarray:
    """Each row's mask as the logits show it: True where a token may follow."""
    logits = torch.zeros(len(steps.grammars), vocab)
    steps.mask(logits)
    return torch.isfinite(logits).numpy()


def reference_walk(tok, name, spec, rng) -> tuple[list[int], list[np.ndarray], list[tuple]]:
    """A walk stepped one token at a time: its tokens, the mask before each and the state after
    each (masks[k] and states[k] are those after k tokens). Tokens are drawn among those the
    mask allows; the end comes where it is allowed, one time in four."""
    g = _request(tok, name, spec)
    steps = BatchSteps([g], g.grammar.vocab.size)
    stops = set(g.grammar.stop_ids)
    tokens, masks, states = [], [], [state(g)]
    for _ in range(WALK):
        allowed = allowed_rows(steps, g.grammar.vocab.size)[0]
        masks.append(np.packbits(allowed))
        ids = np.flatnonzero(allowed)
        ends = [t for t in ids[: len(stops) + 8].tolist() if t in stops] if len(ids) > 8 else [t for t in ids.tolist() if t in stops]
        t = int(rng.choice(ends)) if ends and (rng.random() < 0.25 or len(ids) == len(ends)) else int(rng.choice(ids))
        tokens.append(t)
        steps.accept([t])
        steps.sync()
        states.append(state(g))
        if g.is_terminated():
            break
    masks.append(np.packbits(allowed_rows(steps, g.grammar.vocab.size)[0]))
    return tokens, masks, states


def wrong_draft(g, ref_token, allowed, rng) -> int:
    """A draft the round rejects: forbidden here, another allowed token, or a token that ends
    something (``</think>``, the output's end, the tool markup's opening)."""
    kind = rng.integers(3)
    if kind == 0:
        pool = [t for t in (g.grammar.think_close, *g.grammar.stop_ids, g.grammar.reasoning_trigger) if t is not None and t != ref_token]
        if pool:
            return int(rng.choice(pool))
    ids = np.flatnonzero(np.unpackbits(allowed)[: g.grammar.vocab.size] == (1 if kind == 1 else 0))
    ids = ids[ids != ref_token]
    return int(rng.choice(ids)) if len(ids) else (ref_token + 1) % g.grammar.vocab.size


@pytest.mark.parametrize("name", list(ROWS))
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_every_draft_round_masks_and_steps_as_one_token_at_a_time(name, seed, tokenizer_for):
    tok = tokenizer_for(name)
    rng = np.random.default_rng(seed)
    specs = ROWS[name]
    refs = [reference_walk(tok, name, spec, rng) for spec in specs]
    rows = [_request(tok, name, spec) for spec in specs]
    vocab = rows[0].grammar.vocab.size
    steps = BatchSteps(rows, vocab)
    at = [0] * len(rows)  # committed tokens per row
    live = [True] * len(rows)
    rounds = rolled = 0
    while any(live):
        k = int(rng.integers(1, 6))
        accepted = []
        drafts = []
        for i, (tokens, masks, _) in enumerate(refs):
            # accept a random prefix of the walk's next tokens, then drafts that leave it
            left = len(tokens) - at[i] - 1  # (the last of the walk is the round's own token)
            m = int(rng.integers(0, min(k, max(left, 0)) + 1))
            row = tokens[at[i] : at[i] + m]
            for j in range(m, k):
                p = at[i] + j
                ref = tokens[p] if p < len(tokens) else -1
                row.append(wrong_draft(rows[i], ref, masks[min(p, len(masks) - 1)], rng) if j == m or rng.random() < 0.5 or ref < 0 else ref)
            accepted.append(m)
            drafts.append(row)
        # verify: the mask at each drafted position, the drafts fed one column at a time
        on_walk = [live[i] for i in range(len(rows))]
        for j in range(k + 1):
            allowed = allowed_rows(steps, vocab)
            for i, (tokens, masks, _) in enumerate(refs):
                if on_walk[i] and at[i] + j < len(masks):
                    assert np.array_equal(np.packbits(allowed[i]), masks[at[i] + j]), f"row {i}: mask at {at[i] + j} (round {rounds}, draft {j})"
            if j < k:
                column = [drafts[i][j] if live[i] else 0 for i in range(len(rows))]
                steps.accept(column)
                for i, (tokens, _, _) in enumerate(refs):
                    on_walk[i] = on_walk[i] and at[i] + j < len(tokens) and drafts[i][j] == tokens[at[i] + j]
        # the rejected drafts rolled back, then the model's own token
        for i in range(len(rows)):
            if live[i]:
                back = k - accepted[i]
                steps.rollback(i, back)
                rolled += back
                at[i] += accepted[i]
        column = [refs[i][0][at[i]] if live[i] else 0 for i in range(len(rows))]
        steps.accept(column)
        steps.sync()
        for i, (tokens, _, states) in enumerate(refs):
            if live[i]:
                at[i] += 1
                assert state(rows[i]) == states[at[i]], f"row {i}: state after {at[i]} tokens (round {rounds})"
                if at[i] == len(tokens):
                    live[i] = False
                    steps.finish(i)
        rounds += 1
    assert rolled > 0
