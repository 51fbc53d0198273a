"""ReasonerGrammar phases, budget, rollback and errors; the batch masker."""

import gc
from types import SimpleNamespace

import numpy as np
import pytest
import torch
import xgrammar as xgr

from schemas import GET_WEATHER, REALISTIC
from thinkgate.constraint import BatchMasker, Phase, ReasonerGrammar, apply_bitmask, compile_tool_grammar
from thinkgate.formats import DEEPSEEK_R1

V = 129280
R1 = DEEPSEEK_R1


def _ids(tok, text):
    return tok.encode(text, add_special_tokens=False)


def _grammar(tok, choice="required", fmt="deepseek_r1", tools=(GET_WEATHER,)):
    return compile_tool_grammar(tok, fmt, list(tools), choice)


def _allowed(rg):
    bm = xgr.allocate_token_bitmask(1, V)
    if not rg.needs_bitmask:
        return None
    rg.fill_bitmask(bm, 0)
    bits = np.unpackbits(bm[0].numpy().view(np.uint8), bitorder="little")[:V]
    return set(np.flatnonzero(bits).tolist())


def test_start_phase_from_prompt_ids(tokenizer):
    g = _grammar(tokenizer)
    user = _ids(tokenizer, "<｜User｜>hi<｜Assistant｜>")
    opn, close = _ids(tokenizer, R1.reasoning.open), _ids(tokenizer, R1.reasoning.close)
    assert ReasonerGrammar(g, prompt_token_ids=user + opn + _ids(tokenizer, "\n")).phase == Phase.THINKING
    assert ReasonerGrammar(g, prompt_token_ids=user + close).phase == Phase.CONSTRAINED
    v31 = _grammar(tokenizer, fmt="deepseek_v3_1")
    assert ReasonerGrammar(v31, prompt_token_ids=user).phase == Phase.OPENING
    assert ReasonerGrammar(g).phase == Phase.THINKING  # R1's default: forced open
    with pytest.raises(ValueError, match="thinking"):
        ReasonerGrammar(g, thinking="maybe")
    with pytest.raises(ValueError, match="thinking_budget"):
        ReasonerGrammar(g, thinking=True, thinking_budget=-1)


def test_thinking_is_free_until_close_then_constrained(tokenizer):
    g = _grammar(tokenizer)
    rg = ReasonerGrammar(g, thinking=True)
    # any token but the tool markup's opening one (see test_calls_in_reasoning), markers too
    for t in _ids(tokenizer, "Anything goes here, even ") + _ids(tokenizer, R1.tools.call_begin + R1.tools.section_end):
        assert not rg.needs_bitmask and rg.accept_token(t)
    assert rg.thinking_tokens > 0 and rg.blocks_eos  # required: the output may not end while thinking
    assert rg.accept_token(tokenizer.convert_tokens_to_ids(R1.reasoning.close))
    assert rg.phase == Phase.CONSTRAINED and rg.needs_bitmask
    allowed = _allowed(rg)
    assert tokenizer.convert_tokens_to_ids(R1.tools.section_begin) in allowed
    assert 1 not in allowed  # no EOS before a call


def test_auto_choice_leaves_eos_alone_while_thinking(tokenizer):
    rg = ReasonerGrammar(_grammar(tokenizer, "auto"), thinking=True)
    assert not rg.blocks_eos and not rg.needs_bitmask
    assert rg.accept_token(1)  # thinking, then the end: allowed under auto


def test_opening_may_think_or_answer(tokenizer):
    g = _grammar(tokenizer, "auto", fmt="deepseek_v3_1")
    rg = ReasonerGrammar(g, thinking="auto")
    opn = tokenizer.convert_tokens_to_ids(R1.reasoning.open)
    assert opn in _allowed(rg)
    assert rg.accept_token(opn) and rg.phase == Phase.THINKING
    rg = ReasonerGrammar(g, thinking="auto")
    assert rg.accept_tokens(_ids(tokenizer, "Hello")) and rg.phase == Phase.CONSTRAINED
    assert opn not in _allowed(rg)


def test_thinking_budget_forces_the_close(tokenizer):
    rg = ReasonerGrammar(_grammar(tokenizer), thinking=True, thinking_budget=3)
    for t in _ids(tokenizer, "one two three four")[:3]:
        assert rg.accept_token(t)
    assert rg.forcing_close and rg.needs_bitmask
    close = tokenizer.convert_tokens_to_ids(R1.reasoning.close)
    assert _allowed(rg) == {close}
    bad = ReasonerGrammar(_grammar(tokenizer), thinking=True, thinking_budget=0)
    assert not bad.accept_token(_ids(tokenizer, "x")[0])
    assert bad.phase == Phase.ERROR and "thinking budget" in bad.error


def test_rejected_token_is_an_error_state_not_an_exception(tokenizer):
    rg = ReasonerGrammar(_grammar(tokenizer), thinking=False)
    assert not rg.accept_token(_ids(tokenizer, "Hello")[0])
    assert rg.phase == Phase.ERROR and "not allowed" in rg.error
    assert _allowed(rg) == set(rg.grammar.stop_ids) and 1 in rg.grammar.stop_ids  # only the end of sequence from here
    assert not rg.accept_token(5)
    rg.rollback(2)
    assert rg.phase == Phase.CONSTRAINED and rg.error is None


def test_eos_only_where_the_grammar_may_end(tokenizer):
    t = R1.tools
    rg = ReasonerGrammar(_grammar(tokenizer), thinking=False)
    body = _ids(tokenizer, t.section_text([("get_weather", '{"city": "Oslo", "days": 2}')]))
    for tid in body[:-1]:
        assert 1 not in _allowed(rg)
        assert rg.accept_token(tid)
    assert rg.accept_token(body[-1])
    # (the end markers of every registered format the tokenizer has, as it sets no EOS of its own)
    assert _allowed(rg) == set(rg.grammar.stop_ids) and 1 in rg.grammar.stop_ids
    assert rg.accept_token(1) and rg.is_terminated()
    assert not rg.accept_token(1) and "after the output ended" in rg.error


def test_what_a_request_keeps_for_rollback_the_garbage_collector_stops_following(tokenizer):
    """A request keeps an entry per token for rollback. The entries hold numbers, bytes and
    strings only (the guard's stacks and schema nodes by index, kept once where they change), so
    the collector untracks them: a full collection does not walk every token of every request a
    process is serving."""
    g = compile_tool_grammar(tokenizer, "deepseek_r1", REALISTIC, "required")
    rg = ReasonerGrammar(g, thinking=True)
    args = '{"origin": "ZRH", "destination": "NRT", "depart_at": "2025-03-01T10:00:00Z", "passengers": [{"name": "Ana", "age": 31}]}'
    text = "Booking it.</think>" + g.format.tools.section_text([("book_flight", args)] * 3)
    ids = tokenizer.encode(text, add_special_tokens=False)
    assert rg.accept_tokens(ids) and rg.phase == Phase.CONSTRAINED
    gc.collect()
    kept = rg._entries + rg._guard._history
    assert len(kept) > len(ids) and not [e for e in kept if gc.is_tracked(e)]
    assert len(rg._guard._stacks) < len(rg._guard._history) / 2  # a stack kept where it changed
    cut = len(ids) // 2  # inside the second call: what the entries hold restores the request there
    rg.rollback(len(ids) - cut)
    fresh = ReasonerGrammar(g, thinking=True)
    assert fresh.accept_tokens(ids[:cut])
    assert rg._guard.cursor.state() == fresh._guard.cursor.state() and rg.phase == fresh.phase


def test_rollback_restores_phase_matcher_and_guard(tokenizer):
    t = R1.tools
    g = _grammar(tokenizer, tools=REALISTIC)
    close = tokenizer.convert_tokens_to_ids(R1.reasoning.close)
    thought = _ids(tokenizer, "thinking hard")
    call = _ids(tokenizer, "\n" + t.section_begin + t.call_begin + "function" + t.sep + 'book_flight\n```json\n{"origin": "ZR')
    rg = ReasonerGrammar(g, thinking=True, thinking_budget=50)
    seq = thought + [close] + call
    # after every prefix, rolling back to any earlier point gives the same state as a fresh run
    for cut in range(len(seq) + 1):
        for back in (1, 3, len(seq)):
            rg = ReasonerGrammar(g, thinking=True, thinking_budget=50)
            assert rg.accept_tokens(seq[:cut])
            k = min(back, cut)
            rg.rollback(k)
            fresh = ReasonerGrammar(g, thinking=True, thinking_budget=50)
            assert fresh.accept_tokens(seq[: cut - k])
            assert (rg.phase, rg.thinking_tokens) == (fresh.phase, fresh.thinking_tokens)
            assert _allowed(rg) == _allowed(fresh)
            if rg._guard is not None and fresh._guard is not None:
                assert rg._guard.cursor.state() == fresh._guard.cursor.state()
    with pytest.raises(ValueError):
        ReasonerGrammar(g, thinking=True).rollback(1)


def test_batch_masker_fills_only_constrained_rows_and_leaves_thinking_rows_untouched(tokenizer):
    g = _grammar(tokenizer, "auto")
    thinking = ReasonerGrammar(g, thinking=True)
    answering = ReasonerGrammar(g, thinking=False)
    masker = BatchMasker(V, 3)
    logits = torch.randn(3, V)
    before = logits.clone()
    masker([thinking, None, answering], logits)
    assert masker.last_rows == [2]
    assert torch.equal(logits[0], before[0]) and torch.equal(logits[1], before[1])
    assert torch.isinf(logits[2]).sum() > 0
    # a step with no constrained request touches no tensor
    logits = torch.randn(2, V)
    version = logits._version
    masker([thinking, None], logits)
    assert logits._version == version and masker.last_rows == []


def test_batch_masker_clears_eos_of_thinking_rows_under_required(tokenizer):
    rg = ReasonerGrammar(_grammar(tokenizer, "required"), thinking=True)
    logits = torch.zeros(1, V)
    BatchMasker(V)([rg], logits)
    stops = sorted(rg.grammar.stop_ids)
    assert (logits[0, stops] == float("-inf")).all() and torch.isinf(logits[0]).sum() == len(stops)


def test_padded_vocabulary_ids_stay_masked(tokenizer):
    rg = ReasonerGrammar(_grammar(tokenizer, "none"), thinking=False)
    logits = torch.zeros(1, V + 64)
    BatchMasker(V)([rg], logits)
    assert torch.isinf(logits[0, V:]).all()


@pytest.mark.parametrize("allowed_share", [0.0005, 0.3, 0.999])
def test_cpu_apply_matches_xgrammar_kernel(allowed_share):
    rng = np.random.default_rng(1)
    bits = np.zeros(((V + 31) // 32) * 32, dtype=bool)
    bits[:V] = rng.random(V) < allowed_share
    bitmask = torch.from_numpy(np.packbits(bits, bitorder="little").view(np.int32).copy()).reshape(1, -1)
    for dtype in (torch.float32, torch.bfloat16):
        logits = torch.randn(2, V).to(dtype)
        ours, ref = logits.clone(), logits.clone()
        apply_bitmask(ours, bitmask.expand(2, -1).contiguous(), [1], V)
        xgr.apply_token_bitmask_inplace(ref, bitmask.expand(2, -1).contiguous(), indices=[1])
        assert torch.equal(ours, ref)


def test_a_fault_inside_one_request_ends_that_request_alone(tokenizer, monkeypatch):
    """Whatever raises inside a request's matcher or guard (a bug, a bad token id) puts that
    request in ERROR — only end-of-sequence from then on — and the batch goes on."""
    from thinkgate.constraint.runtime.reasoner import FailedRequest

    g = compile_tool_grammar(tokenizer, "deepseek_v3_1", [GET_WEATHER], "required")
    broken, healthy = ReasonerGrammar(g, thinking=False), ReasonerGrammar(g, thinking=False)

    def explode(*a, **k):
        raise IndexError("a fault")

    monkeypatch.setattr(broken._matcher, "fill_next_token_bitmask", explode)
    failed = FailedRequest(g.stop_ids, "the grammar did not compile")
    logits = torch.zeros(3, V)
    masker = BatchMasker(V, 3)
    # the two tool-phase rows are filled in one call of xgrammar's; where that call fails, row by row
    monkeypatch.setattr(masker, "_batch", SimpleNamespace(batch_fill_next_token_bitmask=explode))
    masker([broken, healthy, failed], logits)
    assert broken.phase == Phase.ERROR and "IndexError: a fault" in broken.error
    for row in (0, 2):
        assert torch.isfinite(logits[row]).nonzero().flatten().tolist() == list(g.stop_ids)
    assert torch.isfinite(logits[1]).sum() > 1  # the healthy row has its own mask
    monkeypatch.setattr(healthy._matcher, "accept_token", explode)
    assert healthy.accept_token(5) is False and healthy.phase == Phase.ERROR and "IndexError" in healthy.error
    assert failed.accept_token(g.stop_ids[0]) and not failed.accept_token(5)
