"""gpt-oss harmony: messages on channels, read from the documented examples and their variants.

The outputs here are written out as the harmony documentation and vLLM's / xgrammar's readers
show them (the model's output after the prompt's ``<|start|>assistant``), so they also check the
format's constants against the documents.
"""

import json

import pytest

from helpers import RandomLogits, cuts, detokenize_stream, normalise, seq_ids, stream_events
from thinkgate import parse, thinking_from_prompt
from thinkgate.formats import GPT_OSS, get_format
from thinkgate.parsing import ReasoningEnd, ReasoningStart, ToolCallInvalid, ToolCallStart

WEATHER = '{"location":"Tokyo"}'
ANALYSIS = "<|channel|>analysis<|message|>User asks: \"What is the weather in Tokyo?\" We need to use get_weather tool.<|end|>"
CALL = "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>" + WEATHER + "<|call|>"
FINAL = "<|start|>assistant<|channel|>final<|message|>It is sunny, 20 °C.<|return|>"
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"location": {"type": "string"}}}}}]


def read(text, **kw):
    kw.setdefault("call_id", seq_ids)
    return parse(text, format="gpt_oss", **kw)


def every_chunking_agrees(text, **kw):
    """The message of ``text`` read whole, and the same for a cut at every position."""
    whole_events, whole = stream_events([text], format="gpt_oss", **kw)
    for p in range(1, len(text)):
        events, parser = stream_events(cuts(text, [p]), format="gpt_oss", **kw)
        assert normalise(events) == normalise(whole_events), p
        assert parser.message == whole.message, p
    return whole.message


def test_the_format_is_registered_under_the_engines_names():
    for name in ("gpt_oss", "gpt-oss", "openai", "openai_gptoss", "harmony"):
        assert get_format(name) is GPT_OSS
    assert GPT_OSS.tools.call_text("get_weather", WEATHER) == CALL


def test_documented_tool_call():
    m = every_chunking_agrees(ANALYSIS + CALL)
    assert m.reasoning_content.startswith("User asks")
    assert [(c.name, c.arguments) for c in m.tool_calls] == [("get_weather", WEATHER)]
    assert (m.content, m.finish_reason) == (None, "tool_calls")


def test_documented_final_answer():
    m = every_chunking_agrees("<|channel|>analysis<|message|>Simple.<|end|>" + FINAL)
    assert (m.reasoning_content, m.content, m.tool_calls, m.finish_reason) == ("Simple.", "It is sunny, 20 °C.", [], "stop")


def test_recipient_before_the_channel_and_without_constrain():
    for header in (
        "<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>",
        "<|start|>assistant to=functions.get_weather<|channel|>commentary <|constrain|>json<|message|>",
        "<|start|>assistant<|channel|>commentary to=functions.get_weather<|message|>",
        "<|start|>assistant<|channel|>analysis to=functions.get_weather code<|message|>",
    ):
        m = every_chunking_agrees(ANALYSIS + header + WEATHER + "<|call|>")
        assert [(c.name, c.arguments) for c in m.tool_calls] == [("get_weather", WEATHER)], header


def test_a_commentary_message_without_recipient_is_a_preamble_the_user_sees():
    preamble = "<|start|>assistant<|channel|>commentary<|message|>Checking the weather for you.<|end|>"
    m = every_chunking_agrees(ANALYSIS + preamble + CALL)
    assert m.content == "Checking the weather for you."
    assert [c.name for c in m.tool_calls] == ["get_weather"]


def test_several_analysis_messages_are_one_reasoning_a_line_apart():
    text = "<|channel|>analysis<|message|>First.<|end|><|start|>assistant<|channel|>analysis<|message|>Second.<|end|>" + FINAL
    events, parser = stream_events([text], format="gpt_oss")
    assert parser.message.reasoning_content == "First.\nSecond."
    assert [type(e) for e in events].count(ReasoningStart) == 1
    assert [type(e) for e in events].count(ReasoningEnd) == 1


def test_several_calls_in_one_output():
    second = CALL.replace("get_weather", "get_time").replace(WEATHER, '{"tz": "JST"}')
    m = every_chunking_agrees(ANALYSIS + CALL + second)
    assert [(c.id, c.name, c.arguments) for c in m.tool_calls] == [
        ("call_0", "get_weather", WEATHER),
        ("call_1", "get_time", '{"tz": "JST"}'),
    ]


def test_marker_text_inside_a_string_is_string_content():
    args = json.dumps({"note": "ends with <|call|> and <|start|>assistant"})
    m = every_chunking_agrees(ANALYSIS + CALL.replace(WEATHER, args))
    assert [c.arguments for c in m.tool_calls] == [args]


def test_a_broken_call_spares_the_others_and_is_reported_with_its_text():
    broken = CALL.replace(WEATHER, '{"location": "Tok')
    m = every_chunking_agrees(ANALYSIS + broken + CALL)
    assert [c.arguments for c in m.tool_calls] == [WEATHER]
    [invalid] = m.invalid_tool_calls
    assert invalid.name == "get_weather" and "not valid JSON" in invalid.error
    assert invalid.text == broken and m.content is None


def test_a_message_to_a_built_in_tool_is_no_invalid_call_under_any_policy():
    browse = '<|start|>assistant<|channel|>analysis to=browser.search code<|message|>{"query": "x"}<|call|>'
    for policy in ("content", "drop", "error"):
        m = read(ANALYSIS + browse, on_invalid_call=policy)
        assert (m.tool_calls, m.invalid_tool_calls, m.content, m.error) == ([], [], None, None)
        assert [c.recipient for c in m.builtin_tool_calls] == ["browser.search"]


def test_an_unknown_tool_is_invalid_when_tools_are_given():
    m = read(ANALYSIS + CALL.replace("get_weather", "launch"), tools=TOOLS)
    assert m.tool_calls == [] and "unknown tool 'launch'" in m.invalid_tool_calls[0].error


def test_output_cut_off_inside_a_call():
    events, parser = stream_events([ANALYSIS + CALL[:-12]], format="gpt_oss")
    assert parser.message.finish_reason == "length"
    assert parser.message.tool_calls == []
    assert isinstance(next(e for e in events if isinstance(e, ToolCallInvalid)), ToolCallInvalid)


def test_output_without_harmony_markup_is_answer_text():
    assert read("Just text, no channels.").content == "Just text, no channels."
    assert read("Just text" + "<|return|>").content == "Just text"
    # a header whose channel is not one of harmony's is no header: its text is kept
    m = read("<|channel|>mystery<|message|>body<|end|>")
    assert m.content == "<|channel|>mystery<|message|>body"


def test_thinking_stage_from_the_prompt(harmony_tokenizer):
    tok = harmony_tokenizer
    prompt = tok.encode("<|start|>user<|message|>Hi<|end|><|start|>assistant", add_special_tokens=False)
    assert thinking_from_prompt(prompt, tok, "gpt_oss") == "auto"
    opened = prompt + tok.encode("<|channel|>analysis<|message|>", add_special_tokens=False)
    assert thinking_from_prompt(opened, tok, "gpt_oss") is True
    m = read("still thinking<|end|>" + FINAL, thinking=True)
    assert (m.reasoning_content, m.content) == ("still thinking", "It is sunny, 20 °C.")
    m = read("The answer.<|return|>", thinking=False)
    assert (m.reasoning_content, m.content) == (None, "The answer.")


def test_token_ids_every_token_chunking(harmony_tokenizer):
    tok = harmony_tokenizer
    text = ANALYSIS + "<|start|>assistant<|channel|>commentary<|message|>One moment.<|end|>" + CALL
    ids = tok.encode(text, add_special_tokens=False)
    per_token = detokenize_stream(tok, ids)
    expected = read(text)
    for deltas in (per_token, [(text, ids)]):
        events, parser = stream_events(deltas, format="gpt_oss", tokenizer=tok)
        assert parser.message == expected
        assert [e.name for e in events if isinstance(e, ToolCallStart)] == ["get_weather"]


def test_markers_spelled_with_ordinary_tokens_are_text(harmony_tokenizer):
    tok = harmony_tokenizer
    # "<|call|>" written as text inside the answer, in ordinary tokens
    spelled = tok.encode("<|", add_special_tokens=False) + tok.encode("call|>", add_special_tokens=False)
    answer = tok.encode("<|channel|>final<|message|>Use ", add_special_tokens=False) + spelled
    answer += tok.encode(" to stop.<|return|>", add_special_tokens=False)
    deltas = detokenize_stream(tok, answer)
    _, parser = stream_events(deltas, format="gpt_oss", tokenizer=tok)
    assert parser.message.content == "Use <|call|> to stop."


@pytest.mark.parametrize("policy", ["content", "drop", "error"])
def test_stray_markup_never_raises(policy):
    text = "<|end|><|message|><|start|><|start|>assistant<|channel|><|constrain|>json<|message|>x<|call|><|return|>"
    every_chunking_agrees(text, on_invalid_call=policy)


# ---------------------------------------------------------------------- the grammar

def _allowed(g, vocab_size):
    import numpy as np
    import xgrammar as xgr

    bitmask = xgr.allocate_token_bitmask(1, vocab_size)
    if not g.fill_bitmask(bitmask, 0):
        return None  # every token
    bits = np.unpackbits(bitmask[0].numpy().view(np.uint8), bitorder="little")[:vocab_size]
    return set(np.flatnonzero(bits).tolist())


def _ids(tok, text):
    return tok.encode(text, add_special_tokens=False)


def test_reasoner_opens_closes_and_reopens_the_analysis_channel(harmony_tokenizer):
    from thinkgate.constraint import ReasonerGrammar, compile_tool_grammar
    from thinkgate.constraint.runtime.reasoner import Phase

    tok = harmony_tokenizer
    grammar = compile_tool_grammar(tok, "gpt_oss", TOOLS, "required")
    prompt = _ids(tok, "<|start|>user<|message|>Weather?<|end|><|start|>assistant")
    g = ReasonerGrammar(grammar, prompt_token_ids=prompt)
    assert g.phase == Phase.OPENING
    channel, analysis, message = _ids(tok, "<|channel|>analysis<|message|>")
    allowed = _allowed(g, len(tok))
    assert channel in allowed and message not in allowed
    assert g.accept_token(channel) and g.phase == Phase.OPENING
    allowed = _allowed(g, len(tok))  # the open marker's next token, or the grammar's
    assert analysis in allowed and _ids(tok, "comment")[0] in allowed and message not in allowed
    assert g.accept_token(analysis) and g.accept_token(message) and g.phase == Phase.THINKING
    assert g.accept_tokens(_ids(tok, "Let me think.")) and not g.needs_bitmask
    end, start, assistant = _ids(tok, "<|end|><|start|>assistant")
    assert g.accept_token(end) and g.phase == Phase.CLOSING
    assert _allowed(g, len(tok)) == {start}
    assert g.accept_token(start) and _allowed(g, len(tok)) == {assistant}
    assert g.accept_token(assistant) and g.phase == Phase.OPENING  # a second analysis message may come
    assert g.accept_tokens([channel, analysis, message]) and g.phase == Phase.THINKING
    g.rollback(2)
    assert g.phase == Phase.OPENING and _allowed(g, len(tok)) >= {analysis}
    g.rollback(5)  # back inside the first analysis message
    assert g.phase == Phase.THINKING
    call = _ids(tok, "<|end|><|start|>assistant" + CALL[len("<|start|>assistant") : -len("<|call|>")])
    assert g.accept_tokens(call), g.error
    assert g.accept_token(tok.convert_tokens_to_ids("<|call|>")) and g.is_terminated()
    text = tok.decode(call, skip_special_tokens=False)
    m = parse("Let me think." + text, format="gpt_oss", thinking=True)
    assert [(c.name, c.arguments) for c in m.tool_calls] == [("get_weather", WEATHER)]


def test_reasoner_rejects_what_the_grammar_forbids(harmony_tokenizer):
    from thinkgate.constraint import ReasonerGrammar, compile_tool_grammar
    from thinkgate.constraint.runtime.reasoner import Phase

    tok = harmony_tokenizer
    g = ReasonerGrammar(compile_tool_grammar(tok, "gpt_oss", TOOLS, "required"), thinking=True)
    assert g.accept_token(_ids(tok, "<|end|>")[0])
    assert not g.accept_token(_ids(tok, "Hello")[0]) and g.phase == Phase.ERROR  # <|start|> must follow
    g = ReasonerGrammar(compile_tool_grammar(tok, "gpt_oss", TOOLS, "required"), thinking="auto")
    # the final channel is no option when a call is required
    assert g.accept_token(_ids(tok, "<|channel|>")[0])
    assert not g.accept_token(_ids(tok, "final")[0]) and "not allowed" in g.error


def test_thinking_budget_spent_no_second_analysis_message(harmony_tokenizer):
    from thinkgate.constraint import ReasonerGrammar, compile_tool_grammar
    from thinkgate.constraint.runtime.reasoner import Phase

    tok = harmony_tokenizer
    g = ReasonerGrammar(compile_tool_grammar(tok, "gpt_oss", TOOLS, "auto"), thinking=True, thinking_budget=2)
    a, b = _ids(tok, " alpha beta")[:2]
    assert g.accept_tokens([a, b]) and g.forcing_close
    assert _allowed(g, len(tok)) == set(_ids(tok, "<|end|>"))
    assert g.accept_tokens(_ids(tok, "<|end|><|start|>assistant")) and g.phase == Phase.CONSTRAINED
    channel, analysis = _ids(tok, "<|channel|>analysis")
    assert g.accept_token(channel) and analysis not in _allowed(g, len(tok))


def test_random_walks_with_thinking_auto_are_valid(harmony_tokenizer):
    """Seeded random walks from the prompt's <|start|>assistant, every other one steered into
    the analysis channel (budget 4): each ends in a call valid against the schema."""
    import jsonschema
    import torch

    from thinkgate.constraint import BatchMasker, ReasonerGrammar, compile_tool_grammar
    from thinkgate.constraint.runtime.vocabulary import vocabulary_for

    tok = harmony_tokenizer
    schema = {"type": "object", "properties": {"location": {"type": "string", "maxLength": 6}, "days": {"type": "integer", "minimum": 1, "maximum": 5}}, "required": ["location", "days"], "additionalProperties": False}
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": schema}}]
    grammar = compile_tool_grammar(tok, "gpt_oss", tools, "required")
    vocab = vocabulary_for(tok)
    random_logits = RandomLogits(3)
    open_ids = _ids(tok, "<|channel|>analysis<|message|>")
    for walk in range(12):
        g = ReasonerGrammar(grammar, thinking="auto", thinking_budget=4)
        masker = BatchMasker(vocab.size, 1)
        ids = []
        while not g.is_terminated() and len(ids) < 300:
            logits = random_logits(1, vocab.size)
            masker([g], logits)
            tid = int(logits.argmax())
            if walk % 2 and len(ids) < len(open_ids):
                tid = open_ids[len(ids)]
                assert torch.isfinite(logits[0, tid])
            assert g.accept_token(tid), g.error
            ids.append(tid)
        assert g.is_terminated()
        m = parse(tok.decode(ids[:-1], skip_special_tokens=False), format="gpt_oss", tools=tools, token_ids=ids[:-1], tokenizer=tok)
        [call] = m.tool_calls
        jsonschema.validate(json.loads(call.arguments), schema)
        assert m.invalid_tool_calls == [] and (m.reasoning_content is not None) == (ids[:3] == open_ids)


def test_reasoning_only_hands_the_rest_over_as_written():
    """What vLLM's reasoning parser plugin does: reasoning split off, the rest verbatim for the
    tool parser, which reads it from a header on."""
    preamble = "<|start|>assistant<|channel|>commentary<|message|>One moment.<|end|>"
    text = "<|channel|>analysis<|message|>A<|end|><|start|>assistant<|channel|>analysis<|message|>B<|end|>" + preamble + CALL
    m = every_chunking_agrees(text, reasoning_only=True)
    assert (m.reasoning_content, m.content) == ("A\nB", preamble + CALL)
    answer = read(m.content, thinking=False)
    assert answer.content == "One moment." and [c.name for c in answer.tool_calls] == ["get_weather"]


def test_where_reasoning_ends_in_token_ids(harmony_tokenizer):
    from thinkgate.formats.tokens import AnalysisIds

    tok = harmony_tokenizer
    ids = AnalysisIds("gpt_oss", tok)
    prompt = _ids(tok, "<|start|>user<|message|>Hi<|end|><|start|>assistant")
    assert not ids.ended(prompt)  # the user's <|end|> closes no reasoning
    thinking = _ids(tok, "<|channel|>analysis<|message|>Hmm")
    assert not ids.ended(prompt + thinking)
    closed = thinking + _ids(tok, "<|end|>")
    assert ids.ended(prompt + closed)
    answer = _ids(tok, "<|start|>assistant<|channel|>final<|message|>Hi")
    assert ids.content_from(closed + answer) == len(closed)
    assert ids.ended(_ids(tok, "<|channel|>final<|message|>Hi")) and ids.content_from(answer) == 0
    with pytest.raises(ValueError, match="channel messages"):
        AnalysisIds("deepseek_r1", tok)


def test_messages_to_built_in_tools_are_reported_beside_the_calls_not_as_content():
    # gpt-oss browses and runs code through its own tools (to=browser.search, to=python): no
    # function of the request's, and their markup is no answer text (peers' cases: vLLM
    # tests/entrypoints/openai/test_serving_harmony / test_harmony_utils, built-in tool messages)
    from helpers import every_split_agrees, stream_deltas
    from thinkgate.parsing import BuiltinToolCall, accumulate

    text = (
        "Let me search.<|end|>"
        "<|start|>assistant<|channel|>analysis to=browser.search code<|message|>{\"query\": \"weather\"}<|call|>"
    )
    m = every_split_agrees(text, format="gpt_oss", thinking=True)
    assert (m.reasoning_content, m.content, m.tool_calls, m.invalid_tool_calls) == ("Let me search.", None, [], [])
    assert m.builtin_tool_calls == [BuiltinToolCall("browser.search", '{"query": "weather"}')]
    assert m.to_openai()["builtin_tool_calls"] == [{"recipient": "browser.search", "arguments": '{"query": "weather"}'}]
    deltas, _ = stream_deltas(list(text), format="gpt_oss", thinking=True)
    assert accumulate(deltas)["builtin_tool_calls"] == m.to_openai()["builtin_tool_calls"]

    code = "<|start|>assistant to=python<|channel|>analysis code<|message|>print(1)"
    m = every_split_agrees(code, format="gpt_oss", thinking=False)
    assert m.builtin_tool_calls == [BuiltinToolCall("python", "print(1)", cut_off=True)]
    assert (m.content, m.finish_reason) == (None, "length")


def test_a_commentary_message_to_the_assistant_is_a_message():
    from helpers import every_split_agrees

    m = every_split_agrees("<|channel|>commentary to=assistant<|message|>Checking.<|end|>", format="gpt_oss", thinking=False)
    assert (m.content, m.invalid_tool_calls, m.builtin_tool_calls) == ("Checking.", [], [])


@pytest.mark.parametrize(
    ("text", "reasoning", "content"),
    [
        # llama.cpp tests/test-chat.cpp (the gpt-oss template's cases): a stray "commentary
        # to=assistant" header before the analysis channel; vLLM's HarmonyParser made it a call
        # named "assistant<|channel|>analysis" (vLLM issue #58825)
        (
            "<|channel|>commentary to=assistant<|channel|>analysis<|message|>I'm\nthinking<|end|>"
            "<|start|>assistant<|channel|>final<|message|>Hello, world!\nWhat's up?",
            "I'm\nthinking",
            "Hello, world!\nWhat's up?",
        ),
        # the same slip before the final channel
        ("<|start|>assistant<|channel|>commentary to=assistant<|channel|>final<|message|>secret", None, "secret"),
    ],
)
def test_a_stray_header_addressed_to_the_assistant_gives_way_to_the_channel_after_it(text, reasoning, content):
    m = every_chunking_agrees(text, thinking="auto")
    assert (m.reasoning_content, m.content, m.tool_calls, m.invalid_tool_calls) == (reasoning, content, [], [])


def test_a_header_naming_two_channels_after_a_call_recipient_is_no_header():
    # a recipient that is a function is a call's header: a second channel after it is not read
    text = "<|channel|>commentary to=functions.get_weather<|channel|>analysis<|message|>x"
    m = every_chunking_agrees(text, thinking="auto", tools=TOOLS)
    assert m.tool_calls == [] and (m.content or "") + "".join(c.text for c in m.invalid_tool_calls) == text
