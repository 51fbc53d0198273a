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
    assert [(c.name, c.arguments) for c in expected.tool_calls] == calls and expected.content == "Let me check."
    for size in (1, 2, 3, 5):
        _, parser = stream_events(group(per_token, size), format=TEXT_HERMES, tokenizer=llama_tokenizer)
        assert [(c.name, c.arguments) for c in parser.message.tool_calls] == calls, size
        assert parser.message.content == "Let me check."


@pytest.mark.parametrize("choice", ["required", "auto", "none"])
def test_random_sampling_under_its_grammar_gives_valid_calls(llama_tokenizer, choice):
    samples = sample_batch(llama_tokenizer, TEXT_HERMES, choice, "off", n=12, seed=zlib.crc32(choice.encode()))
    verdicts = check(llama_tokenizer, TEXT_HERMES, choice, "off", samples)
    assert set(verdicts) <= {"valid", "unterminated"}, verdicts
    assert verdicts["valid"] >= 11, verdicts


def test_reasoning_markers_must_be_tokens():
    with pytest.raises(ValueError, match="reasoning and end-of-sequence markers are tokens"):
        ChatFormat(name="x", reasoning=ReasoningFormat(open=Text("<think>"), close="</think>"), tools=TEXT_HERMES.tools, eos="<|eot_id|>")


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
    from thinkgate.constraint.vocabulary import vocabulary_for

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
