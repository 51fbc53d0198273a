"""Seed-OSS, GLM-4.7/5, Nemotron Nano v2, Qwen3.5/Nemotron 3, Granite 4, EXAONE 4: each family's
call text as its chat template writes it, read whole, streamed and by token ids."""

import json

import pytest

from helpers import detokenize_stream, every_split_agrees, group, stream_events
from thinkgate import parse
from thinkgate.formats import EXAONE4, GLM47, GRANITE4, NEMOTRON_V2, QWEN3_5, SEED_OSS, get_format
from thinkgate.formats.seed import BUDGET_REFLECT
from thinkgate.parsing import thinking_from_prompt

# As Seed-OSS's template writes a turn's calls: each in its own block after a newline, values
# with no padding, a string bare.
SEED_CALLS = (
    "\n<seed:tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n<parameter=days>3</parameter>\n</function>\n</seed:tool_call>"
    "\n<seed:tool_call>\n<function=note>\n<parameter=text>a < b\n  and more </parameter>\n</function>\n</seed:tool_call>"
)
# GLM-4.7: nothing between the tags, a call with no arguments closes right after its name.
GLM47_CALLS = "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value><arg_key>days</arg_key><arg_value>3</arg_value></tool_call><tool_call>now</tool_call>"
# The tools those calls name: the schema types days (a parameter's text is a number only where a
# schema says so; untyped, it is the text, as vLLM and SGLang read it).
TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}},
    {"type": "function", "function": {"name": "note", "parameters": {"type": "object", "properties": {"text": {"type": "string"}}}}},
    {"type": "function", "function": {"name": "now", "parameters": {"type": "object", "properties": {}}}},
]
NEMOTRON_CALLS = '<TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}, {"name": "now", "arguments": {}}]</TOOLCALL>'


def _calls(m):
    return [(c.name, json.loads(c.arguments)) for c in m.tool_calls]


def test_seed_oss_calls_as_its_template_writes_them():
    m = every_split_agrees("I will look.</seed:think>" + SEED_CALLS, format="seed_oss", thinking=True, tools=TOOLS)
    assert _calls(m) == [("get_weather", {"city": "Paris", "days": 3}), ("note", {"text": "a < b\n  and more "})]
    assert (m.reasoning_content, m.content, m.finish_reason) == ("I will look.", None, "tool_calls")
    assert SEED_OSS.tools.section_text([("get_weather", '{"city": "Paris", "days": 3}'), ("note", '{"text": "a < b\\n  and more "}')]) == SEED_CALLS.lstrip("\n")


def test_glm47_calls_without_newlines_and_without_arguments():
    m = every_split_agrees("plan</think>" + GLM47_CALLS, format="glm47", thinking=True, tools=TOOLS)
    assert _calls(m) == [("get_weather", {"city": "Paris", "days": 3}), ("now", {})]
    assert GLM47.tools.section_text([("get_weather", '{"city": "Paris", "days": 3}'), ("now", "{}")]) == GLM47_CALLS


def test_glm45_still_reads_glm47_calls_and_the_reverse():
    # the two differ only in the newlines the template writes; each reader takes the other's
    glm45 = get_format("glm45").tools.section_text([("get_weather", '{"city": "Paris", "days": 3}')])
    assert _calls(parse(glm45, format="glm47", thinking=False, tools=TOOLS)) == [("get_weather", {"city": "Paris", "days": 3})]
    assert _calls(parse(GLM47_CALLS, format="glm45", thinking=False, tools=TOOLS))[0] == ("get_weather", {"city": "Paris", "days": 3})


def test_nemotron_v2_array_ends_with_its_end_marker():
    m = every_split_agrees("Let me check.\n\n" + NEMOTRON_CALLS + " Done.", format="nemotron_v2", thinking=False)
    assert _calls(m) == [("get_weather", {"city": "Paris", "days": 3}), ("now", {})]
    assert m.content == "Let me check.\n\n Done."
    # an array not closed by the marker: the calls stand, the text after the bracket is content
    m = parse('<TOOLCALL>[{"name": "now", "arguments": {}}] later', format="nemotron_v2", thinking=False)
    assert (_calls(m), m.content) == ([("now", {})], " later")


def test_nemotron_v2_empty_array_is_text():
    m = parse("<TOOLCALL>[]</TOOLCALL>", format="nemotron_v2", thinking=False)
    assert (m.tool_calls, m.content) == ([], "<TOOLCALL>[]</TOOLCALL>")


@pytest.mark.parametrize(("name", "text"), [("seed_oss", SEED_CALLS), ("glm47", GLM47_CALLS), ("nemotron_v2", NEMOTRON_CALLS)])
def test_read_by_token_ids_as_by_text(tokenizer_for, name, text):
    fmt = get_format(name)
    tok = tokenizer_for(name)
    output = "Thinking it over." + fmt.reasoning.close + text + fmt.eos
    ids = tok.encode(output, add_special_tokens=False)
    by_text = parse(output, format=name, thinking=True)
    for size in (1, 4):
        events, parser = stream_events(group(detokenize_stream(tok, ids), size), format=name, thinking=True, tokenizer=tok)
        assert _calls(parser.message) == _calls(by_text) and len(by_text.tool_calls) >= 1
        assert parser.message.reasoning_content == "Thinking it over."


@pytest.mark.parametrize("name", ["glm47", "qwen3_5", "seed_oss", "nemotron_v2"])
def test_calls_opened_while_thinking_are_calls(tokenizer_for, name):
    # GLM-5, Qwen3.5 and others open the tool markup before closing their reasoning
    fmt = get_format(name)
    tok = tokenizer_for(name)
    call = fmt.tools.section_text([("now", "{}")])
    output = "I need the time." + call + fmt.eos
    ids = tok.encode(output, add_special_tokens=False)
    m = parse(output, format=name, thinking=True, token_ids=ids, tokenizer=tok)
    assert (m.reasoning_content, _calls(m), m.finish_reason) == ("I need the time.", [("now", {})], "tool_calls")
    # the marker spelled in text by ordinary tokens stays reasoning
    prose = "I could write " + fmt.tools.trigger + " here."
    spelled = [i for ch in prose for i in tok.encode(ch, add_special_tokens=False)]
    m = parse(prose, format=name, thinking=True, token_ids=spelled, tokenizer=tok)
    assert (m.reasoning_content, m.tool_calls) == (prose, [])


def test_seed_oss_zero_budget_prompt_starts_inside_reasoning(tokenizer_for):
    tok = tokenizer_for("seed_oss")
    tok.add_special_tokens({"additional_special_tokens": [BUDGET_REFLECT]})
    prompt = tok.encode("<seed:bos>assistant\n<seed:think>" + BUDGET_REFLECT, add_special_tokens=False)
    assert thinking_from_prompt(prompt, tok, "seed_oss") is True
    assert thinking_from_prompt(tok.encode("<seed:bos>assistant\n", add_special_tokens=False), tok, "seed_oss") == "auto"
    m = parse("Budget 0: answer directly.</seed:cot_budget_reflect>\n</seed:think>Hi.", format="seed_oss", thinking=True)
    assert (m.reasoning_content, m.content) == ("Budget 0: answer directly.</seed:cot_budget_reflect>\n", "Hi.")


@pytest.mark.parametrize(
    ("fmt", "prompt_end", "expected"),
    [
        (NEMOTRON_V2, "<SPECIAL_11>Assistant\n<think>\n\n", True),
        (NEMOTRON_V2, "<SPECIAL_11>Assistant\n<think></think>", False),
        (QWEN3_5, "<|im_start|>assistant\n<think>\n", True),
        (QWEN3_5, "<|im_start|>assistant\n<think>\n\n</think>\n\n", False),
        (GLM47, "<|assistant|><think>", True),
        (GLM47, "<|assistant|></think>", False),
        (EXAONE4, "[|assistant|]", "auto"),
        (EXAONE4, "[|assistant|]<think>\n", True),
    ],
)
def test_the_prompt_tells_where_the_output_starts(tokenizer_for, fmt, prompt_end, expected):
    tok = tokenizer_for(fmt.name)
    assert thinking_from_prompt(tok.encode(prompt_end, add_special_tokens=False), tok, fmt) is expected


@pytest.mark.parametrize("fmt", [GRANITE4, EXAONE4])
def test_hermes_calls_with_the_familys_own_end_of_turn(tokenizer_for, fmt):
    text = '<tool_call>\n{"name": "now", "arguments": {}}\n</tool_call>' + fmt.eos
    tok = tokenizer_for(fmt.name)
    m = parse(text, format=fmt.name, thinking=False, token_ids=tok.encode(text, add_special_tokens=False), tokenizer=tok)
    assert (_calls(m), m.content, m.finish_reason) == ([("now", {})], None, "tool_calls")
