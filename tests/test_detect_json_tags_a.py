"""detect() on the real chat templates of this group's families (Apertus, Apriel, Cohere Command,
Granite, Phi-4-mini), each named as its format (or a derived one that reads the template's own
rendering) with the two-call round trip exact: the template's rendering of two calls is what the
format writes (``section_text``) and what its parser reads back.

The templates under tests/data/templates/ are llama.cpp's ``models/templates/`` files as the copy
of llama.cpp in acproject/seq2seq_llama.cpp @6626e786 carries them (line ends made LF), but for
Phi-4-mini's, written from ggml-org/llama.cpp @6d7822c1:

* ``Apertus-8B-Instruct.jinja`` (sha256 dea688e9…);
* ``CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja`` (sha256 cc60b553…);
* ``unsloth-Apriel-1.5.jinja`` (sha256 fae87682…; ggml-org/llama.cpp @0374c5b6 writes a call's
  arguments with ``|string`` where this copy has ``|tojson``);
* ``Apriel-1.6-15b-Thinker-fixed.jinja`` (sha256 2f5ce4b3…);
* ``ibm-granite-granite-3.3-2B-Instruct.jinja`` (sha256 3c71df5f…), which writes no calls;
* ``llama-cpp-microsoft-Phi-4-mini-instruct.jinja`` (sha256 66919f8d…), llama.cpp's own template
  for Phi-4-mini, which asks for ``<|tool_call|>{…}<|/tool_call|>`` rather than the model's
  ``functools[…]``.

Granite 20B FunctionCalling's template is vLLM's ``examples/tool_chat_template_granite_20b_fc.jinja``
(@1a7f9e3b), shortened below to its roles and calls.
"""

import json
import pathlib

import pytest
from transformers.utils.chat_template_utils import render_jinja_template

from thinkgate import detect, parse
from thinkgate.formats import Text, get_format

TEMPLATES = pathlib.Path(__file__).parent / "data" / "templates"
S, I = {"type": "string"}, {"type": "integer"}
TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "description": "weather", "parameters": {"type": "object", "properties": {"city": S, "days": I}}}},
    {"type": "function", "function": {"name": "now", "description": "time", "parameters": {"type": "object", "properties": {}}}},
]
CALLS = [("get_weather", {"city": "Oslo", "days": 3}), ("now", {})]


def template(name: str) -> str:
    return (TEMPLATES / f"{name}.jinja").read_text(encoding="utf-8")


def render(source: str, system: bool = True, **assistant) -> str:
    """The template's rendering of a user turn and an assistant turn holding the two calls."""
    calls = [{"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": a}} for i, (n, a) in enumerate(CALLS)]
    messages = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "", "tool_calls": calls, **assistant}]
    if system:
        messages.insert(0, {"role": "system", "content": "s"})
    return render_jinja_template(conversations=[messages], tools=TOOLS, chat_template=source, bos_token="", eos_token="")[0][0]


def written(fmt) -> str:
    return fmt.tools.section_text([(n, json.dumps(a)) for n, a in CALLS])


def read_back(fmt, turn: str, thinking=None):
    message = parse(turn, format=fmt, thinking=thinking, tools=TOOLS)
    assert [(c.name, json.loads(c.arguments)) for c in message.tool_calls] == CALLS
    assert message.content is None and message.invalid_tool_calls == []
    return message


def test_apertus_is_detected_from_its_template_with_the_two_call_round_trip():
    source = template("Apertus-8B-Instruct")
    fmt = detect(source)
    assert fmt.name == "apertus" and fmt == get_format("apertus")
    # the turn after the generation prompt's <|assistant_start|>: {"NAME": ARGS} objects
    turn = render(source).rsplit("<|assistant_start|>", 1)[1]
    assert turn == written(fmt) == '<|tools_prefix|>[{"get_weather": {"city": "Oslo", "days": 3}}, {"now": {}}]<|tools_suffix|>'
    read_back(fmt, turn)


def test_cohere_command_r7b_is_detected_from_its_template_with_the_two_call_round_trip():
    source = template("CohereForAI-c4ai-command-r7b-12-2024-tool_use")
    fmt = detect(source)
    assert fmt.name == "cohere_command" and fmt == get_format("cohere_command")
    # the assistant turn (the template appends the generation prompt to every conversation)
    turn = render(source, reasoning_content="plan").split("<|CHATBOT_TOKEN|>")[-2].removesuffix("<|START_OF_TURN_TOKEN|>")
    assert turn == "<|START_THINKING|>plan<|END_THINKING|>" + written(fmt) + fmt.eos
    message = read_back(fmt, turn)
    assert message.reasoning_content == "plan"
    # a turn without calls is its content between the response markers, dropped as framing
    answer = render_jinja_template(conversations=[[{"role": "user", "content": "q"}, {"role": "assistant", "content": "Hi."}]], chat_template=source, bos_token="")[0][0]
    answer = answer.split("<|CHATBOT_TOKEN|>")[-2].removesuffix("<|START_OF_TURN_TOKEN|>")
    assert answer == "<|START_RESPONSE|>Hi.<|END_RESPONSE|>" + fmt.eos
    assert parse(answer, format=fmt).content == "Hi."


def test_apriel_1_6_is_detected_with_its_reasoning_forced_open_and_the_two_call_round_trip():
    source = template("Apriel-1.6-15b-Thinker-fixed")
    fmt = detect(source)
    assert fmt.name == "apriel" and fmt == get_format("apriel")
    prompt = render_jinja_template(conversations=[[{"role": "user", "content": "q"}]], chat_template=source, add_generation_prompt=True, bos_token="")[0][0]
    assert prompt.endswith("<|begin_assistant|>\nHere are my reasoning steps:\n")
    # the last assistant turn: its reasoning, the close, then the calls after a newline
    turn = render(source, reasoning_content="R").rsplit("<|begin_assistant|>\n", 1)[1]
    assert turn == "R\n[BEGIN FINAL RESPONSE]\n\n" + written(fmt)
    message = read_back(fmt, turn)
    assert message.reasoning_content == "R\n"  # (verbatim: the newline before the close is the reasoning's)


def test_apriel_1_5s_template_gets_the_apriel_layout_with_the_reasoning_the_model_opens():
    source = template("unsloth-Apriel-1.5")
    fmt = detect(source)
    # the generation prompt ends in <|assistant|>\n: the model writes the opening phrase itself
    assert fmt.name == "apriel:detected" and fmt.tools == get_format("apriel").tools
    assert (fmt.reasoning.open, fmt.reasoning.close, fmt.reasoning.default_thinking) == (get_format("apriel").reasoning.open, get_format("apriel").reasoning.close, "auto")
    turn = render(source).rsplit("<|assistant|>\n", 1)[1]
    assert turn == "\n" + written(fmt) + "\n" + fmt.eos + "\n"
    read_back(fmt, turn)


def test_phi4_minis_llama_cpp_template_gets_a_layout_of_its_own_tags():
    # llama.cpp's template asks for <|tool_call|>{"name", "arguments"}<|/tool_call|> per call (not
    # the model's functools[…], which phi4_mini reads): a derived format with those tags
    source = template("llama-cpp-microsoft-Phi-4-mini-instruct")
    fmt = detect(source)
    assert fmt.name.endswith(":detected") and fmt.tools.call == (Text("<|tool_call|>"), Text("<|/tool_call|>")) and fmt.eos == "<|end|>"
    turn = render(source).rsplit("<|assistant|>", 1)[1]
    assert turn == "".join(f'<|tool_call|>{{"name": "{n}", "arguments": {json.dumps(a)}}}<|/tool_call|>' for n, a in CALLS) + fmt.eos
    read_back(fmt, turn)


def test_granite_3_3s_template_renders_no_tool_calls_and_detect_says_so():
    source = template("ibm-granite-granite-3.3-2B-Instruct")
    with pytest.raises(ValueError, match="renders no tool calls"):
        detect(source)
    # its system prompt names the markup granite3 reads, and its thinking keyword is granite3's toggle
    prompt = render_jinja_template(conversations=[[{"role": "user", "content": "q"}]], tools=TOOLS, chat_template=source, add_generation_prompt=True)[0][0]
    assert "respond only with <|tool_call|> followed by a JSON list of tools used" in prompt
    thinking = render_jinja_template(conversations=[[{"role": "user", "content": "q"}]], chat_template=source, add_generation_prompt=True, thinking=True)[0][0]
    assert "Write your thoughts between <think></think>" in thinking
    fmt = get_format("granite3")
    assert (fmt.reasoning.open, fmt.reasoning.close, fmt.reasoning.toggle) == ("<think>", "</think>", "thinking")


# vLLM's examples/tool_chat_template_granite_20b_fc.jinja (@1a7f9e3b), shortened to the system
# line, the roles and the calls: each call '<function_call> ' + {name, arguments} | tojson, then
# <|endoftext|>. Its loop runs over every message, the system one too, which it refuses: detect's
# probe conversations (each with a system message) all fail, so the round trip is rendered here
# without one.
GRANITE_20B_FC = (
    "{{- bos_token }}\n{{ 'SYSTEM: ' + 'You are a helpful assistant with access to the following function calls.' }}\n"
    "{% for message in messages %}\n"
    "    {% if message['role'] == 'user' %}\n        {{- '\\nUSER: ' + message['content'] }}\n"
    "    {% elif message['role'] == 'assistant' and message.tool_calls is defined %}\n        {{- '\\nASSISTANT:'  }}\n"
    "        {% for tc in message.tool_calls %}\n"
    "            {{- '<function_call> ' + {'name': tc.function.name, 'arguments': tc.function.arguments}|tojson  }}\n"
    "        {% endfor %}\n        {{- '<|endoftext|>'  }}\n"
    "    {% elif message['role'] == 'assistant' %}\n        {{- '\\nASSISTANT: ' + message['content'] + ' <|endoftext|>'  }}\n"
    "    {% elif message['role'] == 'tool' %}\n        {{- '<function_response> ' + message['content'] }}\n"
    "    {%- else %}\n        {{- raise_exception(\"Unexpected combination of role and message content\") }}\n"
    "    {% endif %}\n"
    "    {% if loop.last and add_generation_prompt %}\n        {{- '\\nASSISTANT: ' }}\n    {% endif %}\n"
    "{% endfor %}\n"
)


def test_granite_20b_fcs_template_writes_what_granite_20b_fc_reads():
    with pytest.raises(ValueError, match="fails on every conversation"):
        detect(GRANITE_20B_FC)
    fmt = get_format("granite_20b_fc")
    turn = render(GRANITE_20B_FC, system=False).rsplit("\nASSISTANT:", 1)[1]
    assert turn == "\n" + written(fmt) + "\n" + fmt.eos + "\n"
    read_back(fmt, turn)


# Each format's calls as its template spells them (section_text, the spelling the round trips
# above found) are what its grammar admits under "required", token by token with the format's
# test tokenizer, and what its parser reads back; Cohere's text answer is what "none" admits.
@pytest.mark.parametrize("name", ["apertus", "apriel", "cohere_command", "granite3", "granite_20b_fc", "phi4_mini"])
def test_the_templates_spelling_is_what_the_grammar_admits_and_the_parser_reads(name, tokenizer_for):
    from helpers import walk

    from thinkgate.constraint import compile_tool_grammar

    fmt = get_format(name)
    tok = tokenizer_for(name)
    grammar = compile_tool_grammar(tok, fmt, TOOLS, "required")
    g, ok = walk(grammar, tok, written(fmt) + fmt.eos)
    assert ok and g.is_terminated(), written(fmt)
    read_back(fmt, written(fmt), thinking=False)
    if fmt.response[0]:
        answer = fmt.response[0] + "It is sunny." + fmt.response[1]
        g, ok = walk(compile_tool_grammar(tok, fmt, TOOLS, "none"), tok, answer + fmt.eos)
        assert ok and g.is_terminated()
        assert parse(answer, format=fmt, thinking=False).content == "It is sunny."
