"""Generation on a tiny random-weight model with the real DeepSeek tokenizer, under every
tool_choice: every call validates."""

import json

import jsonschema
import pytest
import torch
from transformers import LogitsProcessorList

from schemas import GET_WEATHER, SET_ALARM
from thinkgate.demo import build_tiny_model, load
from thinkgate.formats.templates import apply_chat_template, chat_template
from thinkgate.integrations.transformers import RowSpec, ToolCallLogitsProcessor, generate_chat
from thinkgate.requests import ChatRequest

TOOLS = [GET_WEATHER, SET_ALARM]
SCHEMAS = {t["function"]["name"]: t["function"]["parameters"] for t in TOOLS}
CHECKER = jsonschema.Draft202012Validator.FORMAT_CHECKER


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = build_tiny_model(tmp_path_factory.mktemp("model") / "tiny")
    return load(path)


def _valid_calls(message):
    for call in message.get("tool_calls") or []:
        fn = call["function"]
        jsonschema.validate(json.loads(fn["arguments"]), SCHEMAS[fn["name"]], format_checker=CHECKER)
    return len(message.get("tool_calls") or [])


@pytest.mark.parametrize("sampling", [{"temperature": 0}, {"temperature": 1.0, "top_p": 0.95}])
def test_every_tool_choice_in_one_left_padded_batch(tiny, sampling):
    model, tok = tiny
    choices = ["required", {"type": "function", "function": {"name": "set_alarm"}}, "auto", "none"]
    requests = [
        ChatRequest(
            messages=[{"role": "user", "content": "hi" * (k + 1)}],  # different prompt lengths
            tools=TOOLS,
            tool_choice=choice,
            thinking=(k % 2 == 0),
            thinking_budget=6,
            max_tokens=300 if k < 2 else 24,  # free text runs to its limit
            parallel_tool_calls=False,
            seed=11,
            **sampling,
        )
        for k, choice in enumerate(choices)
    ]
    results = generate_chat(model, tok, requests, format="deepseek_r1", batch_size=4)
    required, named, auto, none = (r["choices"][0] for r in results)
    assert _valid_calls(required["message"]) == 1 and required["finish_reason"] == "tool_calls"
    assert _valid_calls(named["message"]) == 1 and named["message"]["tool_calls"][0]["function"]["name"] == "set_alarm"
    assert named["finish_reason"] == "stop"  # a forced function, as OpenAI and vLLM's server say (issue 16, point 6)
    _valid_calls(auto["message"])
    assert not none["message"].get("tool_calls")
    for r in results:
        assert r["object"] == "chat.completion" and r["usage"]["completion_tokens"] > 0
    # thinking on: reasoning present (the budget forced </think>); off: none
    assert required["message"].get("reasoning_content") and not named["message"].get("reasoning_content")


def test_v3_1_and_rows_that_finish_early(tiny):
    model, tok = tiny
    requests = [
        ChatRequest(messages=[{"role": "user", "content": "alarm"}], tools=TOOLS, tool_choice={"type": "function", "function": {"name": "set_alarm"}}, thinking=False, max_tokens=300, seed=3, temperature=0),
        ChatRequest(messages=[{"role": "user", "content": "weather, thinking long"}], tools=TOOLS, tool_choice="required", thinking=True, thinking_budget=40, max_tokens=300, seed=3, temperature=0, parallel_tool_calls=False),
        ChatRequest(messages=[{"role": "user", "content": "cut short"}], tools=TOOLS, tool_choice="required", thinking=True, max_tokens=5, seed=3, temperature=0),
    ]
    # (the tiny model carries R1's template: V3.1's own is given)
    a, b, c = (r["choices"][0] for r in generate_chat(model, tok, requests, format="deepseek_v3_1", chat_template=chat_template("deepseek_v3_1")))
    assert _valid_calls(a["message"]) == 1 and _valid_calls(b["message"]) == 1
    assert c["finish_reason"] == "length" and not c["message"].get("tool_calls")


def test_a_required_call_fits_within_max_tokens_when_the_thinking_never_closes(tiny):
    """No thinking budget: the random model thinks on; a call is still written, in the last
    tokens max_tokens leaves (issue 17, point 3)."""
    model, tok = tiny
    requests = [
        ChatRequest(messages=[{"role": "user", "content": "weather"}], tools=TOOLS, tool_choice=choice, thinking=True, max_tokens=64, seed=5, temperature=1.0)
        for choice in ("required", {"type": "function", "function": {"name": "get_weather"}})
    ]
    for r, choice in zip(generate_chat(model, tok, requests, format="deepseek_r1"), ("tool_calls", "stop")):
        c = r["choices"][0]
        assert _valid_calls(c["message"]) == 1 and c["finish_reason"] == choice, c
        assert c["message"]["reasoning_content"] and r["usage"]["completion_tokens"] == 64


def test_processor_directly_with_generate(tiny):
    model, tok = tiny
    prompt = apply_chat_template(tok, [{"role": "user", "content": "weather?"}], "deepseek_r1", TOOLS, thinking=False)
    proc = ToolCallLogitsProcessor(tok, [RowSpec("deepseek_r1", TOOLS, "required", thinking=None)], [len(prompt)])
    torch.manual_seed(0)
    out = model.generate(torch.tensor([prompt]), logits_processor=LogitsProcessorList([proc]), max_new_tokens=300, do_sample=True, eos_token_id=1, pad_token_id=1)
    [(message, n)] = proc.results(out)
    assert message.finish_reason == "tool_calls" and n > 0
    assert proc.requests[0].thinking is False  # read from the prompt, which ends in </think>
    with pytest.raises(ValueError, match="beam search"):
        proc(torch.zeros((2, 3), dtype=torch.long), torch.zeros((2, 10)))


def test_a_fault_ends_its_row_with_an_error_and_the_batch_goes_on(tiny, monkeypatch):
    """A fault inside one row's guard (before: IndexError out of generate for the whole batch)
    ends that row with finish_reason "error" and a message; the other rows finish as usual."""
    from thinkgate.constraint.runtime.guard import ArgumentsGuard

    model, tok = tiny

    def explode(self, row, multi=True):
        raise IndexError("room 129 is past the table")

    monkeypatch.setattr(ArgumentsGuard, "restrict", explode)
    requests = [
        ChatRequest(messages=[{"role": "user", "content": "alarm"}], tools=TOOLS, tool_choice="required", thinking=False, max_tokens=60, seed=3, temperature=0),
        ChatRequest(messages=[{"role": "user", "content": "chat"}], tools=TOOLS, tool_choice="none", thinking=False, max_tokens=12, seed=3, temperature=0),
    ]
    broken, plain = (r["choices"][0] for r in generate_chat(model, tok, requests, format="deepseek_r1"))
    assert broken["finish_reason"] == "error" and "IndexError: room 129 is past the table" in broken["error"]["message"]
    assert not broken["message"].get("tool_calls")
    assert plain["finish_reason"] == "length" and plain["message"]["content"]


def test_max_tokens_is_length_under_every_tool_choice(tiny):
    """An answer cut off by max_tokens is "length", not "stop" (the processor forces the end at
    the limit)."""
    model, tok = tiny
    requests = [
        ChatRequest(messages=[{"role": "user", "content": "hi"}], tools=TOOLS, tool_choice=choice, thinking=thinking, max_tokens=5, seed=1, temperature=0)
        for choice in ("none", "auto", "required", {"type": "function", "function": {"name": "set_alarm"}}) for thinking in (False, True)
    ]
    for r in generate_chat(model, tok, requests, format="deepseek_r1"):
        assert r["choices"][0]["finish_reason"] == "length" and r["usage"]["completion_tokens"] == 5


def test_the_tiny_model_carries_its_chat_template_and_is_detected(tmp_path):
    # Issue 16, point 5: `thinkgate generate --model DIR`, vLLM's server and `thinkgate detect`
    # take the demo model as it is; a model an earlier thinkgate built gets its template added.
    from thinkgate.cli import main

    path = build_tiny_model(tmp_path / "tiny")
    assert load(path)[1].chat_template == chat_template("deepseek_r1")
    assert main(["detect", str(path)]) == 0
    (path / "chat_template.jinja").unlink()
    config = json.loads((path / "tokenizer_config.json").read_text())
    config.pop("chat_template", None)
    (path / "tokenizer_config.json").write_text(json.dumps(config))
    assert build_tiny_model(path) == path and load(path)[1].chat_template == chat_template("deepseek_r1")


FORECAST = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "minLength": 1, "maxLength": 12},
        "days": {"type": "integer", "minimum": 1, "maximum": 14},
        "unit": {"enum": ["C", "F"]},
    },
    "required": ["city", "days", "unit"],
    "additionalProperties": False,
}


@pytest.mark.parametrize("sampling", [{"temperature": 1.0, "seed": 5}])
def test_response_format_holds_the_answer_after_free_thinking(tiny, sampling):
    model, tok = tiny
    fmt = {"type": "json_schema", "json_schema": {"name": "forecast", "schema": FORECAST}}
    base = dict(messages=[{"role": "user", "content": "forecast?"}], response_format=fmt, max_tokens=300, **sampling)
    requests = [
        ChatRequest(thinking=True, thinking_budget=6, **base),
        ChatRequest(tools=TOOLS, tool_choice="auto", thinking=False, **base),  # the answer or calls
        ChatRequest(thinking=True, thinking_budget=6, **{**base, "response_format": {"type": "json_object"}, "max_tokens": 60}),
    ]
    answer, either, obj = (r["choices"][0] for r in generate_chat(model, tok, requests, format="deepseek_r1"))
    assert answer["message"]["reasoning_content"] and answer["finish_reason"] == "stop"
    jsonschema.validate(json.loads(answer["message"]["content"]), FORECAST)
    if not _valid_calls(either["message"]):
        jsonschema.validate(json.loads(either["message"]["content"]), FORECAST)
    # a free object may run to the limit; what there is starts as an object
    assert obj["message"]["content"].lstrip().startswith("{")
    if obj["finish_reason"] == "stop":
        assert isinstance(json.loads(obj["message"]["content"]), dict)


def test_strict_levels_per_request_and_by_default(tiny):
    """Below level 2 a tool's schema is not held, so one thinkgate cannot enforce is no error;
    a request's own ``strict`` wins over generate_chat's default. Level 0 under auto leaves
    every logit of the answer as it was. (That a level-1 call stands though its arguments
    break the schema is shown by the random walks: a random model writes a free key forever.)"""
    model, tok = tiny
    odd = [{"type": "function", "function": {"name": "count", "parameters": {"type": "object", "properties": {"n": {"type": "integer", "multipleOf": 3}}}}}]
    base = dict(messages=[{"role": "user", "content": "count"}], tools=odd, tool_choice="required", thinking=False, max_tokens=12, seed=5, temperature=0)
    [r] = generate_chat(model, tok, [ChatRequest(**base)], format="deepseek_r1", strict=1)
    assert r["choices"][0]["finish_reason"] in ("length", "tool_calls")
    with pytest.raises(ValueError, match="'multipleOf'"):
        generate_chat(model, tok, [ChatRequest(**base, strict=2)], format="deepseek_r1", strict=1)
    with pytest.raises(ValueError, match="'multipleOf'"):
        generate_chat(model, tok, [ChatRequest(**base)], format="deepseek_r1")
    # level 0, auto: the processor hands the answer's logits back untouched
    prompt = apply_chat_template(tok, [{"role": "user", "content": "weather?"}], "deepseek_r1", TOOLS, thinking=False)
    proc = ToolCallLogitsProcessor(tok, [RowSpec("deepseek_r1", TOOLS, "auto", strict=0)], [len(prompt)])
    ids = torch.tensor([prompt])
    for step in range(5):
        scores = torch.randn(1, proc.vocab_size)
        assert torch.equal(proc(ids, scores.clone()), scores)
        ids = torch.cat([ids, scores.argmax(dim=-1, keepdim=True)], dim=1)
    held = ToolCallLogitsProcessor(tok, [RowSpec("deepseek_r1", TOOLS, "auto")], [len(prompt)])
    scores = torch.randn(1, held.vocab_size)
    assert not torch.equal(held(torch.tensor([prompt]), scores.clone()), scores)  # control tokens masked at level 2


def test_each_completion_is_handed_over_as_its_row_ends(tiny):
    """on_result gives a row's completion when the row ends, while the batch goes on (a row cut
    at a stop string too, the forced end counted), and it is the one generate_chat returns."""
    model, tok = tiny
    hello = [{"role": "user", "content": "hi"}]
    base = dict(messages=hello, tools=TOOLS, thinking=False, temperature=0)
    [free] = generate_chat(model, tok, [ChatRequest(**base, tool_choice="none", max_tokens=12)], format="deepseek_r1")
    stop = free["choices"][0]["message"]["content"][4:7]
    requests = [
        ChatRequest(**base, tool_choice="none", max_tokens=30),
        ChatRequest(**base, tool_choice="none", max_tokens=3),
        ChatRequest(**base, tool_choice="none", max_tokens=12, stop=[stop]),
        ChatRequest(**base, tool_choice="required", max_tokens=60),
    ]
    handed, steps = [], []
    results = generate_chat(model, tok, requests, format="deepseek_r1", batch_size=4, on_result=lambda i, c: handed.append((i, c)), on_progress=steps.append)
    assert {i for i, _ in handed[:2]} == {1, 2}  # the short rows first, while the batch went on
    assert sorted(i for i, _ in handed) == [0, 1, 2, 3]
    for i, c in handed:
        assert c is results[i]
    cut = results[2]["choices"][0]
    assert cut["finish_reason"] == "stop" and cut["message"]["content"] == free["choices"][0]["message"]["content"][:4]
    [alone] = generate_chat(model, tok, [requests[2]], format="deepseek_r1")  # (its drafts, and their counts, its own)
    assert alone["usage"] == results[2]["usage"] and alone["choices"][0]["message"] == cut["message"]


def test_a_relaxed_keyword_does_not_refuse_the_calls_its_grammar_wrote(tiny):
    """Under unsupported="relax" the grammar holds 'multipleOf' no more; the parser checks the
    calls against what it held, so a call with n not a multiple of 7 is returned, with
    finish_reason tool_calls (before, its markup went to content under tool_calls)."""
    model, tok = tiny
    tools = [{"type": "function", "function": {"name": "count", "parameters": {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 99, "multipleOf": 7}}, "required": ["n"], "additionalProperties": False}}}]
    requests = [ChatRequest(messages=[{"role": "user", "content": "count"}], tools=tools, tool_choice="required", thinking=False, max_tokens=200, seed=s, temperature=1.0) for s in range(6)]
    values = []
    for r in generate_chat(model, tok, requests, format="deepseek_r1", unsupported="relax"):
        choice = r["choices"][0]
        if choice["finish_reason"] == "length":  # (a random model's call cut at max_tokens: issue 34, point 4)
            continue
        assert choice["finish_reason"] == "tool_calls" and not choice["message"].get("content"), choice
        values += [json.loads(call["function"]["arguments"])["n"] for call in choice["message"]["tool_calls"]]
    assert any(v % 7 for v in values)  # the dropped keyword was not held, and nothing refused such a call
