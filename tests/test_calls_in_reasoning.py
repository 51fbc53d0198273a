"""Reasoning and tools together (issue 17): a call written while thinking is a call, a thinking
budget never cuts into one, and a required call fits within max_tokens.

The walks draw every token uniformly among those allowed (seeded random logits, masked); while
thinking they draw ordinary tokens only, so that a walk never closes its thinking by itself, and
the tool markup's opening token is forced at a chosen position. ``benchmarks/calls_in_reasoning.py``
runs the same walks by the hundred and reports the counts.
"""

from __future__ import annotations

import json
import zlib

import jsonschema
import pytest
import torch

from format_matrix import formats_under_test
from helpers import RandomLogits
from schemas import REALISTIC, weather_and_now
from thinkgate import parse
from thinkgate.constraint import BatchMasker, Phase, ReasonerGrammar, compile_tool_grammar
from thinkgate.constraint.runtime.call_room import shortest_answer
from thinkgate.constraint.runtime.vocabulary import vocabulary_for
from thinkgate.formats import get_format, names

# Every format whose tool markup opens with a token that can stand inside its reasoning.
TRIGGERED = [n for n in formats_under_test() if get_format(n).reasoning_trigger]
CHOICES = {
    "auto": "auto",
    "required": "required",
    "named": {"type": "function", "function": {"name": "book_flight"}},
}
SCHEMAS = {t["function"]["name"]: t["function"]["parameters"] for t in REALISTIC}


def walk(tokenizer, grammar, *, trigger_at=None, budget=None, max_tokens=None, seed=0, steps=700):
    """One output of a thinking model under ``grammar``: ``(ids, reasoner)``. Thinking tokens
    are ordinary ones; at ``trigger_at`` (a thinking step) the tool markup's opening token."""
    vocab = vocabulary_for(tokenizer)
    control = torch.tensor(sorted(vocab.control_ids))
    rg = ReasonerGrammar(grammar, thinking=True, thinking_budget=budget, max_tokens=max_tokens)
    masker = BatchMasker(vocab.size, 1)
    random_logits = RandomLogits(seed)
    ids: list[int] = []
    while len(ids) < (max_tokens or steps) and not rg.is_terminated():
        logits = random_logits(1, vocab.size)
        free = rg.phase == Phase.THINKING and not rg.forcing_close
        if free:
            logits[0, control] = float("-inf")
        masker([rg], logits)
        tid = int(logits.argmax())
        if free and trigger_at is not None and len(ids) == trigger_at:
            tid = grammar.reasoning_trigger
        assert torch.isfinite(logits[0, tid]) or tid == grammar.reasoning_trigger, "sampled a masked token"
        assert rg.accept_token(tid), rg.error
        ids.append(tid)
    return ids, rg


def read(tokenizer, fmt, ids, tools=REALISTIC):
    """The parsed message of a finished walk (its end-of-sequence token left out)."""
    body = ids[:-1]
    text = tokenizer.decode(body, skip_special_tokens=False, clean_up_tokenization_spaces=False)
    return parse(text, format=fmt, thinking=True, token_ids=body, tokenizer=tokenizer, tools=tools)


def problems(message, choice):
    out = [f"invalid call: {c.error}" for c in message.invalid_tool_calls]
    for call in message.tool_calls:
        out += [f"{call.name}: {e.message}" for e in jsonschema.Draft202012Validator(SCHEMAS[call.name]).iter_errors(json.loads(call.arguments))]
    if not message.tool_calls:
        out.append("no call")
    if choice == "named" and any(c.name != "book_flight" for c in message.tool_calls):
        out.append("a call to another tool than the named one")
    if message.content is not None:
        out.append(f"text after the calls: {message.content!r}")
    return out


# DeepSeek R1 under two choices, each other format under one, in turn (the default run's
# budget; benchmarks/calls_in_reasoning.py walks every format under every choice)
MID_THINKING = [("deepseek_r1", c) for c in ("required", "named")] + [(f, list(CHOICES)[i % 3]) for i, f in enumerate(TRIGGERED) if f != "deepseek_r1"]


@pytest.mark.parametrize(("fmt", "choice"), MID_THINKING)
def test_the_tool_markup_token_written_while_thinking_opens_constrained_calls(tokenizer_for, fmt, choice):
    tokenizer = tokenizer_for(fmt)
    grammar = compile_tool_grammar(tokenizer, fmt, REALISTIC, CHOICES[choice])
    close = grammar.think_close
    # (where a section marker closes the calls, a walk writes another call or the end with even
    # odds after each: twice the steps, as test_constraint_sampling's walks get)
    steps = 700 * (2 if grammar.format.tools.section_end else 1)
    for k, at in enumerate((0, 23)):
        ids, rg = walk(tokenizer, grammar, trigger_at=at, seed=zlib.crc32(f"{fmt}-{choice}-{k}".encode()), steps=steps)
        assert rg.is_terminated(), (fmt, choice, at, rg.phase, rg.error)
        assert ids[at] == grammar.reasoning_trigger and close not in ids[at:]
        m = read(tokenizer, fmt, ids)
        assert problems(m, choice) == [], (fmt, choice, at, m)
        # the thinking before the marker is the reasoning, and nothing is reasoning after it
        thought = tokenizer.decode(ids[:at], skip_special_tokens=False, clean_up_tokenization_spaces=False)
        assert (m.reasoning_content or "") == thought


@pytest.mark.parametrize("fmt", TRIGGERED)
def test_tool_markup_spelled_in_ordinary_tokens_while_thinking_is_reasoning(tokenizer_for, fmt):
    tokenizer = tokenizer_for(fmt)
    f = get_format(fmt)
    grammar = compile_tool_grammar(tokenizer, fmt, REALISTIC, "required")
    trigger = f.tools.trigger
    # the marker's text cut after its first character: ordinary tokens that spell it
    spelled = tokenizer.encode(trigger[0], add_special_tokens=False) + tokenizer.encode(trigger[1:], add_special_tokens=False)
    assert grammar.reasoning_trigger not in spelled
    think = tokenizer.encode("I could write ", add_special_tokens=False) + spelled + tokenizer.encode(" here.", add_special_tokens=False)
    rg = ReasonerGrammar(grammar, thinking=True)
    assert rg.accept_tokens(think) and rg.phase == Phase.THINKING and not rg.needs_bitmask
    answer = tokenizer.encode(f.tools.section_text([("get_time", "{}")]), add_special_tokens=False)
    ids = think + [grammar.think_close] + answer
    text = tokenizer.decode(ids, skip_special_tokens=False, clean_up_tokenization_spaces=False)
    m = parse(text, format=fmt, thinking=True, token_ids=ids, tokenizer=tokenizer)
    assert trigger in m.reasoning_content and m.reasoning_content.endswith(" here.")
    assert [c.name for c in m.tool_calls] == ["get_time"]
    # with the marker's own token in its place the reasoning ends there
    real = tokenizer.encode("I could write ", add_special_tokens=False) + answer
    text = tokenizer.decode(real, skip_special_tokens=False, clean_up_tokenization_spaces=False)
    m = parse(text, format=fmt, thinking=True, token_ids=real, tokenizer=tokenizer)
    assert m.reasoning_content == "I could write " and [c.name for c in m.tool_calls] == ["get_time"]


def test_the_option_turns_calls_while_thinking_off(tokenizer):
    from dataclasses import replace

    off = replace(get_format("deepseek_r1"), calls_in_reasoning=False)
    assert off.reasoning_trigger == ""
    grammar = compile_tool_grammar(tokenizer, off, REALISTIC, "auto")
    assert grammar.reasoning_trigger is None
    rg = ReasonerGrammar(grammar, thinking=True)
    section = tokenizer.convert_tokens_to_ids(off.tools.section_begin)
    assert rg.accept_token(section) and rg.phase == Phase.THINKING
    # tool_choice none: the marker is reasoning too (no call may be written)
    assert compile_tool_grammar(tokenizer, "deepseek_r1", REALISTIC, "none").reasoning_trigger is None


def test_rollback_across_the_switch_restores_the_thinking(tokenizer):
    grammar = compile_tool_grammar(tokenizer, "deepseek_r1", REALISTIC, "required", )
    rg = ReasonerGrammar(grammar, thinking=True, thinking_budget=4)
    think = tokenizer.encode("Let me", add_special_tokens=False)
    assert rg.accept_tokens(think + [grammar.reasoning_trigger])
    assert rg.phase == Phase.CONSTRAINED and not rg.forcing_close
    rg.rollback(1)
    assert rg.phase == Phase.THINKING and rg.thinking_tokens == len(think)
    # the budget holds again: the thinking is closed when it is spent
    assert rg.accept_tokens(tokenizer.encode(" see now", add_special_tokens=False)[: 4 - len(think)])
    assert rg.forcing_close


@pytest.mark.parametrize("fmt", TRIGGERED)
def test_a_thinking_budget_never_cuts_into_a_call_begun_inside_it(tokenizer_for, fmt):
    """The call opens one to three tokens before the budget is spent and runs past it: the
    budget's forced close never lands inside it."""
    tokenizer = tokenizer_for(fmt)
    # one call (a random walk of parallel calls may run past the walk's steps, call after call)
    grammar = compile_tool_grammar(tokenizer, fmt, REALISTIC, "auto", parallel_tool_calls=False)
    for budget, before in ((8, 1), (8, 3), (256, 2)):
        at = budget - before
        ids, rg = walk(tokenizer, grammar, trigger_at=at, budget=budget, seed=zlib.crc32(f"{fmt}-{budget}-{before}".encode()))
        assert rg.is_terminated() and grammar.think_close not in ids, (fmt, budget, before, rg.error)
        assert problems(read(tokenizer, fmt, ids), "auto") == []


# A required call within max_tokens: formats whose thinking ends in the answer's grammar (not
# harmony's, whose close is followed by another message's header) at a close token (reasoning
# whose markers are text, Kimi-K3's, is held by the grammar: the reasoner makes no room there).
ROOMY = [n for n in formats_under_test() if get_format(n).reasoning.present and get_format(n).tools.messages is None and not get_format(n).text_reasoning]


# (each format under one of the two choices, in turn: the default run's budget)
@pytest.mark.parametrize(("fmt", "choice"), [(f, ("required", "named")[i % 2]) for i, f in enumerate(ROOMY)])
def test_a_model_that_never_closes_its_thinking_still_calls_within_max_tokens(tokenizer_for, fmt, choice):
    tokenizer = tokenizer_for(fmt)
    grammar = compile_tool_grammar(tokenizer, fmt, REALISTIC, CHOICES[choice])
    room = shortest_answer(grammar)
    assert room is not None and room[-1] in grammar.stop_ids
    for extra in (1, 37):
        limit = len(room) + extra
        ids, rg = walk(tokenizer, grammar, max_tokens=limit, seed=extra)
        assert rg.is_terminated() and len(ids) == limit and rg.answered_in_room, (fmt, choice, limit, rg.error)
        assert ids[-len(room) - 1 :] == [grammar.think_close, *room]
        assert problems(read(tokenizer, fmt, ids), choice) == []
    # a limit that holds no call at all: nothing is forced (the output is cut, "length")
    ids, rg = walk(tokenizer, grammar, max_tokens=len(room), seed=1)
    assert rg.phase == Phase.THINKING and not rg.answered_in_room and len(ids) == len(room)


def test_the_shortest_answer_is_the_fewest_tokens_of_the_simplest_calls(tokenizer):
    tools = weather_and_now(8)
    grammar = compile_tool_grammar(tokenizer, "deepseek_v3_1", tools, "required")
    room = shortest_answer(grammar)
    fmt = grammar.format
    # "now" takes no arguments: its call is the shortest; get_weather's needs a city ("")
    assert tokenizer.decode(list(room), skip_special_tokens=False) == fmt.tools.section_text([("now", "{}")]) + fmt.eos
    named = compile_tool_grammar(tokenizer, "deepseek_v3_1", tools, {"type": "function", "function": {"name": "get_weather"}})
    assert tokenizer.decode(list(shortest_answer(named)), skip_special_tokens=False) == fmt.tools.section_text([("get_weather", '{"city": ""}')]) + fmt.eos
    # no room is kept where a call is not required
    assert shortest_answer(compile_tool_grammar(tokenizer, "deepseek_v3_1", REALISTIC, "auto")) is None
    auto = ReasonerGrammar(compile_tool_grammar(tokenizer, "deepseek_v3_1", REALISTIC, "auto"), thinking=True, max_tokens=10)
    assert auto.accept_tokens(tokenizer.encode("thinking on and on and on and on", add_special_tokens=False)) and auto.phase == Phase.THINKING
    with pytest.raises(ValueError, match="max_tokens"):
        ReasonerGrammar(grammar, thinking=True, max_tokens=0)


def test_the_parsers_read_calls_while_thinking_exactly_where_the_grammar_does(tokenizer):
    """The integrations that build their parser from a request (offline vLLM, vLLM's reasoning
    parser) ask ``calls_may_come``; the grammar says it by its ``reasoning_trigger``: they agree
    for every tool_choice, ``allowed_tools`` naming none among them."""
    from thinkgate.requests import calls_may_come

    none_allowed = {"type": "allowed_tools", "allowed_tools": {"mode": "auto", "tools": []}}
    for tools, choice in ((REALISTIC, "auto"), (REALISTIC, "required"), (REALISTIC, CHOICES["named"]), (REALISTIC, "none"), (REALISTIC, none_allowed), (None, None)):
        grammar = compile_tool_grammar(tokenizer, "deepseek_r1", tools, choice)
        assert calls_may_come(tools, choice) == (grammar.reasoning_trigger is not None), choice
