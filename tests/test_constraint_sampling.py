"""Guaranteed validity (design.md invariant 1): seeded random-logit sampling under the grammar,
with the real DeepSeek tokenizer, parses into calls whose arguments validate.

Default run: 3 samples per format under two of the four tool_choices in turn (one that must
call, one that may not), thinking in half of them (the whole suite keeps within ten minutes). ``python -m pytest -m slow -s
tests/test_constraint_sampling.py`` runs 2,000 per format × tool_choice and prints the table
(``THINKGATE_SAMPLES`` changes the count)."""

from __future__ import annotations

import json
import zlib
import os
from collections import Counter

import jsonschema
import numpy as np
import pytest
import torch
import xgrammar as xgr

from format_matrix import formats_under_test
from helpers import RandomLogits
from schemas import REALISTIC
from thinkgate import parse
from thinkgate.constraint import BatchMasker, ReasonerGrammar, compile_tool_grammar
from thinkgate.constraint.runtime.vocabulary import vocabulary_for
from thinkgate.formats import get_format, is_text, names

# One registered format of each kind (tests/format_matrix.py: a format added to the registry is
# sampled here, in the default run or CI's run of the rest, without further ado).
FORMATS = formats_under_test()
CHOICES = {
    "required": "required",
    "named": {"type": "function", "function": {"name": "book_flight"}},
    "auto": "auto",
    "none": "none",
}
THINKING = {"off": False, "budget": True}


def thinking_modes(fmt):
    """The thinking settings a format has: a model without reasoning markers never thinks."""
    return [t for t in THINKING if THINKING[t] is False or get_format(fmt).reasoning.present]


# The default run: every format under two tool_choices, one that must call (required, named)
# and one that may not (auto, none), the pairs alternating from format to format, so every
# choice is walked for half the formats; a thinking format thinks under required and auto. The
# long runs (-m slow) take every format under every choice, in every mode.
_PAIRS = (("required", "auto"), ("named", "none"))
FORMAT_CHOICE_THINKING = [
    (f, c, thinking_modes(f)[(list(CHOICES).index(c) + 1) % len(thinking_modes(f))]) for k, f in enumerate(FORMATS) for c in _PAIRS[k % 2]
]
SCHEMAS = {t["function"]["name"]: t["function"]["parameters"] for t in REALISTIC}
VALIDATOR = {n: jsonschema.Draft202012Validator(s, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER) for n, s in SCHEMAS.items()}
MAX_TOKENS = 600
SAMPLES = 3  # walks per case in the default run
# A walk writes a few calls: a format whose markup for one call takes more tokens than this (PLaMo
# 3's tags are three tokens each) walks proportionally longer, so that its walks end as often.
MARKUP_TOKENS = 30


def walk_budget(tokenizer, tools):
    """The steps a walk may take: MAX_TOKENS, more where one call's markup is long, and twice
    that where a section marker closes the calls (after each call the walk writes another or the
    section's end with even odds: two calls on average, where an end of sequence among the
    choices would stop it after one)."""
    markup = len(tokenizer.encode(tools.section_text([("f", "{}")]), add_special_tokens=False)) if tools.messages is None else 0
    return max(MAX_TOKENS, MAX_TOKENS * markup // MARKUP_TOKENS) * (2 if tools.section_end and tools.xml else 1)


def sample_batch(tokenizer, fmt, choice, thinking, n, seed, batch=25, via_logits=True, strict=2, close_after=None):
    """Sample ``n`` outputs under the grammar, ``batch`` rows at a time: every token is the
    argmax of seeded random logits after masking, i.e. uniformly random among the allowed ones
    (a random-weight model, as weak as it gets). In ``auto`` the tool section is opened after a
    few tokens of text, and in ``none`` the output is ended after a few. ``close_after``: that
    many steps into the answer, the walk turns to closing tokens (quotes, brackets, markers,
    the end) wherever the grammar allows one, so that free arguments end: still only tokens
    the grammar allows."""
    grammar = compile_tool_grammar(tokenizer, fmt, REALISTIC, CHOICES[choice], strict=strict)
    vocab = vocabulary_for(tokenizer)
    t = grammar.format.tools
    msgs = t.messages
    # auto: the walk is steered into the tool markup once (harmony: into a commentary message,
    # from its header's first token on: the answer's header starts with the same marker)
    if msgs is not None:
        trigger, delay = tokenizer.encode(msgs.channel + msgs.tool_channel, add_special_tokens=False), 0
    elif t.bare:  # no marker: an answer that starts with "{" is the calls
        trigger, delay = [vocab.token_id("{")], 0
    elif not t.trigger:  # Python calls with no marker: an answer that starts with "[" is the calls
        trigger, delay = [vocab.token_id(t.array[0])], 0
    elif is_text(t.trigger):  # a text marker: the tokens that spell it (after the answer's close)
        trigger, delay = tokenizer.encode(grammar.format.answer[1] + t.trigger, add_special_tokens=False), 3
    else:
        # (at once where a text answer has markers of its own: the answer opens with them or
        # with the tool markup, Cohere's <|START_RESPONSE|> or <|START_ACTION|>)
        trigger, delay = [vocab.token_id(t.trigger)], 0 if grammar.format.response[0] else 3
    eos = grammar.stop_ids[0]
    # none: the answer is ended after a few tokens, with what closes it where the format writes that
    # (or the text answer's close: Cohere's <|END_RESPONSE|>)
    f = grammar.format
    ending = tokenizer.encode(f.answer[1] + f.response[1] + f.turn_end, add_special_tokens=False) if f.turn_end or f.response[1] else []
    closers = torch.tensor(sorted({*vocab.control_ids, *grammar.stop_ids, *(i for i, b in enumerate(vocab.token_bytes) if b and not b.strip(b'"}])\''))}))
    # parameters written as text close with text: the walk spells it on, token by token
    closings = [tokenizer.encode(str(x), add_special_tokens=False) for x in (t.xml.value_close, t.footer, t.call_end, t.section_end) if x] if t.xml else []
    random_logits = RandomLogits(seed)
    rng = np.random.default_rng(seed)
    out = []
    for start in range(0, n, batch):
        rows = min(batch, n - start)
        grammars = [ReasonerGrammar(grammar, thinking=THINKING[thinking], thinking_budget=3) for _ in range(rows)]
        masker = BatchMasker(vocab.size, rows)
        ids = [[] for _ in range(rows)]
        live = list(range(rows))
        steered = [0] * rows  # how much of the trigger each row has been steered through
        for step in range(walk_budget(tokenizer, t)):
            if not live:
                break
            if via_logits:
                logits = random_logits(rows, vocab.size)
                masker([grammars[i] if i in live else None for i in range(rows)], logits)
                # the largest of i.i.d. random logits: a uniformly random token among those allowed
                picked = logits.argmax(dim=-1).tolist()
            else:  # the same draw straight from each bitmask row (the long runs)
                logits = _AllowedView(grammars, live, vocab.size, rng)
                picked = logits.picked
            for i in list(live):
                g = grammars[i]
                tid = picked[i]
                constrained_steps = len(ids[i]) - (thinking_tokens(grammar) if THINKING[thinking] else 0)
                forced = constrained_steps - delay
                # forced once, from its first token on (which a half-written character may hold
                # back a step): later calls are the walk's own
                if choice == "auto" and forced >= 0 and steered[i] < len(trigger) and torch.isfinite(logits[i, trigger[steered[i]]]):
                    tid = trigger[steered[i]]
                    steered[i] += 1
                if choice == "none" and constrained_steps >= 12:
                    tid = _closing_token(ids[i], [ending + [eos]], torch.tensor([eos]), lambda t: bool(torch.isfinite(logits[i, t]))) or tid
                if close_after is not None and forced >= close_after:
                    tid = _closing_token(ids[i], closings, closers, lambda t: bool(torch.isfinite(logits[i, t]))) or tid
                assert torch.isfinite(logits[i, tid]), "sampled a masked token"
                assert g.accept_token(tid), g.error
                ids[i].append(tid)
                if g.is_terminated():
                    live.remove(i)
        out += [(ids[i], grammars[i]) for i in range(rows)]
    return out


def _closing_token(ids, closings, closers, allowed):
    """The allowed token that goes furthest to closing: the next of a closing text the output
    has begun (the longest begun first), else one of ``closers``; None if none is allowed."""
    best = None
    for seq in closings:
        for k in range(len(seq) - 1, -1, -1):
            if (k == 0 or ids[-k:] == seq[:k]) and allowed(seq[k]):
                if best is None or k > best[0]:
                    best = (k, seq[k])
                break
    if best is not None:
        return best[1]
    open_ = [int(c) for c in closers if allowed(int(c))]
    return open_[len(ids) % len(open_)] if open_ else None


def thinking_tokens(grammar):
    """The tokens a thinking output spends before its constrained part: a budget of 3, the close
    marker (one token, or the tokens that spell a text marker), and what the grammar forces
    after it (harmony's <|start|>assistant)."""
    return 3 + len(grammar.close_ids) + len(grammar.close_tail)


class _AllowedView:
    """Draws a uniformly random allowed token per live row from the grammars' bitmask rows and
    answers ``isfinite(view[i, token])`` the way masked logits would."""

    def __init__(self, grammars, live, vocab_size, rng):
        self._allowed = {}
        self.picked = [0] * len(grammars)
        bitmask = xgr.allocate_token_bitmask(1, vocab_size)
        for i in live:
            g = grammars[i]
            if g.needs_bitmask and g.fill_bitmask(bitmask, 0):
                bits = np.unpackbits(bitmask[0].numpy().view(np.uint8), bitorder="little")[:vocab_size]
                allowed = np.flatnonzero(bits)
            else:
                allowed = np.arange(vocab_size)
                if g.blocks_eos:
                    allowed = np.setdiff1d(allowed, g.grammar.stop_ids)
            self._allowed[i] = allowed
            self.picked[i] = int(rng.choice(allowed))

    def __getitem__(self, index):
        i, token = index
        return torch.tensor(0.0 if np.isin(token, self._allowed[i]) else float("-inf"))


def check(tokenizer, fmt, choice, thinking, samples, strict=2):
    """Per-sample verdicts: 'valid', 'unterminated', or an error message. Below strict level 2
    a call's arguments need only be a JSON object; 'off schema' counts the calls among them
    that break their tool's schema (valid calls all the same)."""
    verdicts = Counter()
    control = vocabulary_for(tokenizer).control_ids
    # the answer's own framing tokens (Cohere's <|START_RESPONSE|>) are no tool markup
    framing = {vocabulary_for(tokenizer).token_id(m) for m in get_format(fmt).framing if not is_text(m)}
    msgs = samples[0][1].grammar.format.tools.messages if samples else None
    message_id = vocabulary_for(tokenizer).token_id(msgs.message) if msgs is not None else None
    for ids, g in samples:
        if not g.is_terminated():
            verdicts["unterminated"] += 1
            continue
        body = ids[:-1]  # the end-of-sequence token
        text = tokenizer.decode(body, skip_special_tokens=False, clean_up_tokenization_spaces=False)
        m = parse(text, format=fmt, thinking=THINKING[thinking], token_ids=body, tokenizer=tokenizer, tools=REALISTIC, on_invalid_call="content", strict=strict)
        problems = [f"invalid call: {c.error}" for c in m.invalid_tool_calls]
        for call in m.tool_calls:
            args = json.loads(call.arguments)
            errors = [f"{call.name}: {e.message}" for e in VALIDATOR[call.name].iter_errors(args)]
            if strict == 2:
                problems += errors
            else:
                verdicts["off schema"] += bool(errors)
                if not isinstance(args, dict) or call.name not in SCHEMAS:
                    problems.append(f"not a call of a registered tool with a JSON object: {call.name} {call.arguments}")
            encoded = call.arguments.encode("utf-8", "strict")  # no lone surrogates
            json.loads(encoded)
        if choice in ("required", "named") and not m.tool_calls:
            problems.append("no call under a tool_choice that requires one")
        if choice == "named" and any(c.name != "book_flight" for c in m.tool_calls):
            problems.append("a call to another tool than the named one")
        answer = body[thinking_tokens(g.grammar) if THINKING[thinking] else 0 :]
        if msgs is not None and message_id in answer:  # harmony: the answer's own header is markup
            answer = answer[answer.index(message_id) + 1 :]
        if choice == "none" and (m.tool_calls or any(t in control and t not in framing for t in answer)):
            problems.append("tool markup or control tokens under tool_choice none")
        if choice == "auto" and not m.tool_calls:
            problems.append("the opened tool section holds no call")
        verdicts["valid" if not problems else problems[0]] += 1
    return verdicts


@pytest.mark.parametrize(("fmt", "choice", "thinking"), FORMAT_CHOICE_THINKING)
def test_sampled_outputs_are_valid_calls(tokenizer_for, fmt, choice, thinking):
    tokenizer = tokenizer_for(fmt)
    # Every format and tool_choice, a few walks each (the default run's budget); `-m slow`
    # walks two thousand per format and choice, in every thinking mode.
    samples = sample_batch(tokenizer, fmt, choice, thinking, n=SAMPLES, seed=zlib.crc32(f"{fmt}-{choice}-{thinking}".encode()))
    verdicts = check(tokenizer, fmt, choice, thinking, samples)
    assert set(verdicts) <= {"valid", "unterminated"}, verdicts
    assert verdicts["valid"] >= SAMPLES - 1, verdicts  # a random walk may still be writing at MAX_TOKENS


@pytest.mark.slow
@pytest.mark.parametrize("choice", list(CHOICES))
@pytest.mark.parametrize("fmt", FORMATS)
def test_two_thousand_samples(tokenizer_for, fmt, choice):
    tokenizer = tokenizer_for(fmt)
    n = int(os.environ.get("THINKGATE_SAMPLES", "2000"))
    verdicts = Counter()
    modes = thinking_modes(fmt)
    for thinking in modes:
        samples = sample_batch(tokenizer, fmt, choice, thinking, n=n // len(modes), seed=7, batch=50, via_logits=False)
        verdicts += check(tokenizer, fmt, choice, thinking, samples)
    print(f"\n{fmt:<15}{choice:<10}{dict(verdicts)}")
    assert set(verdicts) <= {"valid", "unterminated"}, verdicts


# every other format, auto and required in turn (the default run's budget; every format and
# choice under -m slow)
LEVEL_ONE = [(f, ("auto", "required")[i % 4 // 2]) for i, f in enumerate(FORMATS) if i % 2 == 0]


@pytest.mark.parametrize(("fmt", "choice"), LEVEL_ONE)
def test_level_one_samples_are_calls(tokenizer_for, fmt, choice, thinking="off"):
    """Strict level 1: the markup and the tool names are held, the arguments are any JSON
    object (parameters: any readable ones). Every walk that ends is a call of a registered tool
    with an object for arguments, and the parser at level 1 returns it as a call, though its
    arguments break the tool's schema (which shows the schema was not held)."""
    tokenizer = tokenizer_for(fmt)
    # a free object is a long walk (keys and values of any length): more of them are still
    # writing at MAX_TOKENS than under a schema
    samples = sample_batch(tokenizer, fmt, choice, thinking, n=SAMPLES, seed=zlib.crc32(f"{fmt}-{choice}-{thinking}-strict1".encode()), strict=1, close_after=40)
    verdicts = check(tokenizer, fmt, choice, thinking, samples, strict=1)
    assert set(verdicts) <= {"valid", "unterminated", "off schema"}, verdicts
    assert verdicts["valid"] >= SAMPLES - 1, verdicts
    assert verdicts["off schema"] >= 1, verdicts
