"""What the grammar decides next (issue 37, point 1): tokens forced alone by the mask, and drafts
of the text the grammar fixes in the tokenizer's own encoding. A draft is only a proposal, but it
must be one the grammar takes: every token of it is accepted in turn from the state it was made
in, on the calls a model writes (the realistic tools' natural calls) and wherever a weak model
wanders (uniformly random tokens under the mask)."""

import numpy as np
import pytest

from helpers import RandomLogits
from schemas import REALISTIC
from test_tool_room import NATURAL_CALLS, natural_call
from thinkgate.constraint import BatchMasker, ReasonerGrammar, compile_tool_grammar
from thinkgate.constraint.runtime.forced import ForcedDrafts, forced_text, only_token
from thinkgate.constraint.runtime.vocabulary import vocabulary_for

FORMATS = ["deepseek_v3_1", "deepseek_v3_2", "qwen3", "qwen3_coder", "llama3_json"]


def _takes(g, ids) -> bool:
    """Whether ``g`` accepts ``ids`` in turn from its state (left as it was)."""
    k = 0
    for t in ids:
        if not g.accept_token(t):
            break
        k += 1
    g.rollback(k)
    return k == len(ids)


def _mask(masker, g, size):
    logits = RandomLogits(0)(1, size)
    masker([g], logits)
    return logits


def test_only_token_reads_a_row_with_one_bit():
    words = np.zeros(4, dtype=np.int32)
    assert only_token(words) is None
    words[2] = np.uint32(1 << 31).view(np.int32)
    assert only_token(words) == 2 * 32 + 31
    words[0] = 1
    assert only_token(words) is None
    words[0] = 0
    words[2] |= 4
    assert only_token(words) is None


@pytest.mark.parametrize("fmt", FORMATS)
def test_drafts_on_natural_calls_are_the_grammars_and_the_models(fmt, tokenizer_for):
    tokenizer = tokenizer_for(fmt)
    grammar = compile_tool_grammar(tokenizer, fmt, REALISTIC, "required")
    vocab = vocabulary_for(tokenizer)
    masker = BatchMasker(vocab.size, 1)
    drafts = ForcedDrafts.for_tokenizer(tokenizer)
    matched = forced = separators = 0
    for name, arguments in NATURAL_CALLS:
        ref = natural_call(tokenizer, grammar, fmt, name, arguments)
        g = ReasonerGrammar(grammar, thinking=False)
        for i, t in enumerate(ref):
            after = tokenizer.decode(ref[i - 1 : i])
            held, whole = drafts.draft(g, after=after), drafts.draft(g, hold_back=False, after=after)
            assert whole[: len(held)] == held and len(whole) - len(held) <= 1
            assert _takes(g, whole), (name, i, tokenizer.decode(list(whole)))
            if whole:  # what the grammar fixes, then as the template writes JSON
                assert tokenizer.decode(list(whole)).startswith(forced_text(g))
            k = 0
            while k < len(held) and i + k < len(ref) and held[k] == ref[i + k]:
                k += 1
            matched += k
            separators += any(tokenizer.decode([x]).strip() == '":' for x in held[:k])
            row = np.isfinite(_mask(masker, g, vocab.size)[0].numpy())
            if row.sum() == 1:
                forced += 1
                assert int(np.flatnonzero(row)[0]) == t
            assert g.accept_token(t), g.error
        assert g.is_terminated()
        assert drafts.draft(g) == ()
    # (the replay's numbers are benchmarks/forced_drafts.py's; here that both kinds occur, and
    # that going on as the template writes JSON drafts the separators: '":' after a key)
    assert matched > 0 and forced > 0
    assert separators > 0 or fmt == "qwen3_coder" or fmt == "deepseek_v3_2"


@pytest.mark.parametrize("fmt", ["deepseek_v3_1", "qwen3_coder"])
def test_every_draft_is_taken_wherever_a_weak_model_wanders(fmt, tokenizer_for):
    tokenizer = tokenizer_for(fmt)
    grammar = compile_tool_grammar(tokenizer, fmt, REALISTIC, "required")
    vocab = vocabulary_for(tokenizer)
    drafts = ForcedDrafts.for_tokenizer(tokenizer)
    logits_of = RandomLogits(37)
    proposed = 0
    for _ in range(3):
        g = ReasonerGrammar(grammar, thinking=False)
        masker = BatchMasker(vocab.size, 1)
        steps = 0
        after = ""
        while not g.is_terminated() and steps < 400:
            for hold_back in (True, False):
                d = drafts.draft(g, hold_back, after)
                proposed += len(d)
                assert _takes(g, d), tokenizer.decode(list(d))
            logits = logits_of(1, vocab.size)
            masker([g], logits)
            t = int(logits.argmax())
            assert g.accept_token(t), g.error
            after = tokenizer.decode([t])
            steps += 1
    assert proposed > 0


def test_no_draft_while_thinking(tokenizer):
    grammar = compile_tool_grammar(tokenizer, "deepseek_v3_1", REALISTIC, "required")
    g = ReasonerGrammar(grammar, thinking=True)
    assert forced_text(g) == "" and ForcedDrafts.for_tokenizer(tokenizer).draft(g) == ()
