"""A format whose tool markers are text needs nothing of the tokenizer but its end of sequence:
Hermes-style calls written with text tags, read and constrained with the Llama 3 tokenizer,
which has none of them as tokens."""

import dataclasses
import json
import zlib

import pytest

from helpers import allowed, detokenize_stream, group, stream_events, walk
from test_constraint_sampling import check, sample_batch
from thinkgate import parse
from thinkgate.formats import NO_REASONING, CallObject, ChatFormat, MarkedCalls, ReasoningFormat, Text, ToolCallFormat

# Qwen3's layout with its tags as text, not registered: nothing in thinkgate knows it.
TEXT_HERMES = ChatFormat(
    name="text_hermes",
    reasoning=NO_REASONING,
    tools=ToolCallFormat(
        layout=MarkedCalls(),
        arguments=CallObject(),
        call=(Text("<tool_call>"), Text("</tool_call>")),
        header="\n",
        footer="\n",
        separator="\n",
    ),
    eos="<|eot_id|>",
)


def test_the_llama_tokenizer_has_none_of_its_tool_markers(llama_tokenizer):
    for marker in TEXT_HERMES.tools.markers:
        assert len(llama_tokenizer.encode(marker, add_special_tokens=False)) > 1, marker


def test_calls_are_read_by_token_ids_however_the_deltas_cut_the_markers(llama_tokenizer):
    calls = [("get_weather", json.dumps({"city": "Paris"})), ("now", "{}")]
    text = "Let me check.\n" + TEXT_HERMES.tools.section_text(calls)
    ids = llama_tokenizer.encode(text, add_special_tokens=False)
    per_token = detokenize_stream(llama_tokenizer, ids)
    expected = parse(text, format=TEXT_HERMES)
    assert [(c.name, c.arguments) for c in expected.tool_calls] == calls and expected.content == "Let me check.\n"
    for size in (1, 2, 3, 5):
        _, parser = stream_events(group(per_token, size), format=TEXT_HERMES, tokenizer=llama_tokenizer)
        assert [(c.name, c.arguments) for c in parser.message.tool_calls] == calls, size
        assert parser.message.content == "Let me check.\n"


@pytest.mark.parametrize("choice", ["required", "auto", "none"])
def test_random_sampling_under_its_grammar_gives_valid_calls(llama_tokenizer, choice):
    samples = sample_batch(llama_tokenizer, TEXT_HERMES, choice, "off", n=12, seed=zlib.crc32(choice.encode()))
    verdicts = check(llama_tokenizer, TEXT_HERMES, choice, "off", samples)
    assert set(verdicts) <= {"valid", "unterminated"}, verdicts
    assert verdicts["valid"] >= 11, verdicts


def test_reasoning_markers_are_both_tokens_or_both_text_and_end_markers_are_tokens():
    with pytest.raises(ValueError, match="both tokens or both text"):
        ChatFormat(name="x", reasoning=ReasoningFormat(open=Text("<think>"), close="</think>"), tools=TEXT_HERMES.tools, eos="<|eot_id|>")
    with pytest.raises(ValueError, match="end-of-sequence markers are tokens"):
        ChatFormat(name="x", reasoning=NO_REASONING, tools=TEXT_HERMES.tools, eos=Text("<|eot_id|>"))


def test_tool_markers_are_all_tokens_or_all_text():
    with pytest.raises(ValueError, match="all tokens or all text"):
        ToolCallFormat(layout=MarkedCalls(), call=(Text("<tool_call>"), "</tool_call>"))


# Qwen3's tags as text, with the Qwen tokenizer, which has them as added tokens (Qwen3's own
# format matches them by id): a format of one's own keeps its text markers text.
TEXT_QWEN = dataclasses.replace(TEXT_HERMES, name="text_qwen", eos="<|im_end|>")
WEATHER_TOOL = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]


def test_a_format_of_ones_own_writes_its_text_markers_with_the_tokenizers_own_token(qwen_tokenizer):
    from thinkgate.constraint import ReasonerGrammar, compile_tool_grammar
    from thinkgate.constraint.runtime.vocabulary import vocabulary_for

    tok = qwen_tokenizer
    tag = tok.convert_tokens_to_ids("<tool_call>")
    assert tag in vocabulary_for(tok).control_ids  # a control token where the registry has it as one
    grammar = compile_tool_grammar(tok, TEXT_QWEN, WEATHER_TOOL, "required")
    assert tag not in grammar.vocab.control_ids
    assert allowed(ReasonerGrammar(grammar, thinking=False), tag, grammar.vocab.size)
    # The call as the Qwen tokenizer writes it (the tags as its single tokens) is accepted whole,
    # and read back by the parser from the token ids.
    text = TEXT_QWEN.tools.section_text([("get_weather", '{"city": "Paris"}')])
    ids = tok.encode(text, add_special_tokens=False)
    assert tag in ids
    g, ok = walk(grammar, tok, text)
    assert ok and g.accept_token(tok.convert_tokens_to_ids("<|im_end|>"))
    m = parse(text, format=TEXT_QWEN, token_ids=ids, tokenizer=tok)
    assert [(c.name, c.arguments) for c in m.tool_calls] == [("get_weather", '{"city": "Paris"}')]


# The same, thinking in <think>…</think> written as text: every marker but the end is text, and
# the Llama 3 tokenizer has none of them.
TEXT_THINKER = dataclasses.replace(
    TEXT_HERMES, name="text_thinker", reasoning=ReasoningFormat(open=Text("<think>"), close=Text("</think>"), default_thinking="auto")
)


@pytest.mark.parametrize("thinking", [True, "auto"])
def test_text_reasoning_is_read_by_token_ids_however_the_deltas_cut_it(llama_tokenizer, thinking):
    calls = [("get_weather", json.dumps({"city": "Paris"}))]
    opened = "<think>" if thinking == "auto" else ""
    text = opened + "The user wants </thin weather.\n</think>\n\nLet me check.\n" + TEXT_THINKER.tools.section_text(calls)
    ids = llama_tokenizer.encode(text, add_special_tokens=False)
    per_token = detokenize_stream(llama_tokenizer, ids)
    for size in (1, 2, 3, 5):
        _, parser = stream_events(group(per_token, size), format=TEXT_THINKER, thinking=thinking, tokenizer=llama_tokenizer)
        m = parser.message
        assert m.reasoning_content == "The user wants </thin weather.\n", size
        assert m.content == "\n\nLet me check.\n" and [(c.name, c.arguments) for c in m.tool_calls] == calls, size


def test_the_prompt_says_whether_text_reasoning_is_open(llama_tokenizer):
    from thinkgate import thinking_from_prompt

    def ids(text):
        return llama_tokenizer.encode(text, add_special_tokens=False)

    assert thinking_from_prompt(ids("<|start_header_id|>assistant<|end_header_id|>\n\n<think>\n"), llama_tokenizer, TEXT_THINKER) is True
    assert thinking_from_prompt(ids("assistant\n<think>\n\n</think>\n\n"), llama_tokenizer, TEXT_THINKER) is False
    assert thinking_from_prompt(ids("assistant\n"), llama_tokenizer, TEXT_THINKER) == "auto"


@pytest.mark.parametrize("choice", ["required", "auto"])
def test_random_sampling_thinks_in_text_then_gives_valid_calls(llama_tokenizer, choice):
    # thinking True with a budget of 3: three free tokens, then the close forced, token by token
    samples = sample_batch(llama_tokenizer, TEXT_THINKER, choice, "budget", n=12, seed=zlib.crc32(choice.encode()))
    verdicts = check(llama_tokenizer, TEXT_THINKER, choice, "budget", samples)
    assert set(verdicts) <= {"valid", "unterminated"}, verdicts
    assert verdicts["valid"] >= 11, verdicts
    close = llama_tokenizer.encode("</think>", add_special_tokens=False)
    for ids, g in samples:
        assert ids[3 : 3 + len(close)] == close  # the budget spent, the close is forced
        assert g.thinking_tokens == 0


def test_an_output_may_open_text_reasoning_or_answer_at_once(llama_tokenizer):
    from thinkgate.constraint import ReasonerGrammar, compile_tool_grammar

    grammar = compile_tool_grammar(llama_tokenizer, TEXT_THINKER, WEATHER_TOOL, "required")
    eot = llama_tokenizer.convert_tokens_to_ids("<|eot_id|>")
    call = TEXT_THINKER.tools.section_text([("get_weather", '{"city": "Paris"}')])
    for text in ("<think>Paris, then.</think>\n" + call, call):
        g = ReasonerGrammar(grammar, thinking="auto")
        assert g.accept_tokens(llama_tokenizer.encode(text, add_special_tokens=False)), (text, g.error)
        assert g.accept_token(eot) and g.is_terminated()
    # Reasoning that is never closed cannot end the output, whatever the tool_choice.
    g = ReasonerGrammar(grammar, thinking=True)
    assert g.accept_tokens(llama_tokenizer.encode("Still thinking", add_special_tokens=False))
    assert not allowed(g, eot, grammar.vocab.size)
    # Tool markup inside the reasoning is reasoning: the guard starts reading after the close,
    # and a rollback across the close puts the reasoning back.
    g = ReasonerGrammar(grammar, thinking=True)
    before = llama_tokenizer.encode('Maybe <tool_call>\n{"name": "x"} no.</think>\n', add_special_tokens=False)
    assert g.accept_tokens(before), g.error
    assert g.thinking_tokens == 0
    g.rollback(3)
    assert g.thinking_tokens > 0
    assert g.accept_tokens(before[-3:]) and g.accept_tokens(llama_tokenizer.encode(call, add_special_tokens=False)), g.error
    assert g.accept_token(eot) and g.is_terminated()


def test_an_engine_finds_the_end_of_text_reasoning_in_token_ids(llama_tokenizer):
    # what vLLM's reasoning parser asks of the ids (is_reasoning_end, extract_content_ids)
    from thinkgate.formats.tokens import TextReasoningIds

    boundary = TextReasoningIds(TEXT_THINKER, llama_tokenizer)
    reasoning = llama_tokenizer.encode("<think>Paris </thin", add_special_tokens=False)
    answer = llama_tokenizer.encode("k>\n\nSunny.", add_special_tokens=False)
    assert not boundary.ended(reasoning) and boundary.content_from(reasoning) == 0
    ids = reasoning + answer
    assert boundary.ended(ids)
    start = boundary.content_from(ids)
    assert llama_tokenizer.decode(ids[:start]).rstrip() == "<think>Paris </think>"  # the close spans two deltas' tokens
    assert llama_tokenizer.decode(ids[start:]).strip() == "Sunny."
    # a new turn's open marker after an earlier close: reasoning again
    assert not boundary.ended(ids + llama_tokenizer.encode(" <think>", add_special_tokens=False))


@pytest.mark.parametrize("fmt", ["minimax_m2", "text_hermes"])
@pytest.mark.parametrize("choice", ["auto", "none"])
def test_answer_text_holds_no_piece_of_text_markup(llama_tokenizer, tokenizer, fmt, choice):
    """Issue 17, point 5: where the tool markup is text, the answer's free text can neither hold
    a marker nor end in the first characters of one (which the parser would hold back, then give
    back as content): the output may not end there; elsewhere such characters are plain text."""
    from thinkgate.constraint import compile_tool_grammar
    from thinkgate.formats import get_format

    f = TEXT_HERMES if fmt == "text_hermes" else get_format(fmt)
    tok = llama_tokenizer if fmt == "text_hermes" else tokenizer
    grammar = compile_tool_grammar(tok, f, [{"type": "function", "function": {"name": "now", "parameters": {"type": "object", "properties": {}}}}], choice)
    eos = grammar.stop_ids[0]
    trigger = f.tools.trigger
    for cut in (1, 3, len(trigger) - 1):
        g, ok = walk(grammar, tok, "Hello " + trigger[:cut])
        assert ok and not allowed(g, eos, grammar.vocab.size), (trigger[:cut], "the output could end in a piece of markup")
    for text in ("a < b", "Hello " + trigger[:3] + " and more", "<b>bold</b>"):
        g, ok = walk(grammar, tok, text)
        assert ok and allowed(g, eos, grammar.vocab.size), text
    for marker in f.text_markers:
        g, ok = walk(grammar, tok, "x " + marker + "x")
        assert not ok or choice == "auto" and marker == trigger, marker


@pytest.mark.parametrize("choice", ["auto", "none"])
def test_sampled_answers_leak_no_markup(tokenizer, choice):
    """Random walks under MiniMax-M2's grammar that reach for the trigger's characters and for
    the end: no content holds a tool marker or ends in a piece of one."""
    import numpy as np
    import torch

    from thinkgate.constraint import BatchMasker, ReasonerGrammar, compile_tool_grammar
    from thinkgate.formats import get_format

    f = get_format("minimax_m2")
    tools = [{"type": "function", "function": {"name": "now", "parameters": {"type": "object", "properties": {}}}}]
    grammar = compile_tool_grammar(tokenizer, f, tools, choice)
    eos = grammar.stop_ids[0]
    # the tokens that spell the markers' pieces: the walk favours them, then the end
    pieces = sorted({t for m in f.text_markers for k in range(1, len(m)) for t in tokenizer.encode(m[:k], add_special_tokens=False)})
    rng = np.random.default_rng(zlib.crc32(choice.encode()))
    leaks = ended = 0
    for n in range(40):
        rg = ReasonerGrammar(grammar, thinking=False)
        masker = BatchMasker(grammar.vocab.size, 1)
        ids = []
        while not rg.is_terminated() and len(ids) < 60:
            logits = torch.from_numpy(rng.standard_normal((1, grammar.vocab.size)).astype(np.float32))
            logits[0, pieces] += 4.0
            logits[0, eos] += 5.0 if len(ids) >= 3 else -1e9
            masker([rg], logits)
            tid = int(logits.argmax())
            assert rg.accept_token(tid), rg.error
            ids.append(tid)
        body = ids[:-1] if ids and ids[-1] == eos else ids
        m = parse(tokenizer.decode(body, skip_special_tokens=False), format=f, thinking=False, tools=tools, token_ids=body, tokenizer=tokenizer)
        content = m.content or ""
        if not rg.is_terminated():  # cut off by the walk's length: not an answer
            continue
        ended += 1
        leaks += any(mk in content for mk in f.text_markers) or any(content.endswith(mk[:k]) for mk in f.text_markers for k in range(1, len(mk)))
    assert leaks == 0 and ended >= 30
