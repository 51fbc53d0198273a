"""vLLM for real, offline: LLM.generate with thinkgate's processor on the tiny random model."""

import json

import jsonschema
import pytest

from schemas import GET_WEATHER, SET_ALARM
from thinkgate.integrations.vllm_offline import generate_chat
from thinkgate.requests import ChatRequest

TOOLS = [GET_WEATHER, SET_ALARM]
SCHEMAS = {t["function"]["name"]: t["function"]["parameters"] for t in TOOLS}


def _validate(message):
    for call in message.get("tool_calls") or []:
        fn = call["function"]
        jsonschema.validate(json.loads(fn["arguments"]), SCHEMAS[fn["name"]], format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    return len(message.get("tool_calls") or [])


@pytest.mark.parametrize("fmt", ["deepseek_r1", "deepseek_v3_1"])
def test_offline_generation_gives_valid_calls(llm, fmt):
    named = {"type": "function", "function": {"name": "set_alarm"}}
    requests = []
    for thinking in (True, False):
        for choice, max_tokens in (("required", 400), (named, 400), ("auto", 40), ("none", 24)):
            requests.append(ChatRequest(messages=[{"role": "user", "content": "help"}], tools=TOOLS, tool_choice=choice, thinking=thinking, thinking_budget=8, max_tokens=max_tokens, parallel_tool_calls=False, seed=len(requests)))
    results = generate_chat(llm, requests, format=fmt)
    for request, result in zip(requests, results):
        choice = result["choices"][0]
        msg = choice["message"]
        n = _validate(msg)
        if request.tool_choice in ("required",) or isinstance(request.tool_choice, dict):
            # a forced function ends with "stop", as OpenAI and vLLM's server say
            assert n >= 1 and choice["finish_reason"] == ("stop" if isinstance(request.tool_choice, dict) else "tool_calls"), (request.tool_choice, msg)
        if isinstance(request.tool_choice, dict):
            assert msg["tool_calls"][0]["function"]["name"] == "set_alarm"
        if request.tool_choice == "none":
            assert n == 0
        assert bool(msg.get("reasoning_content")) == bool(request.thinking)


def test_requests_that_do_not_opt_in_are_untouched(llm):
    from vllm import SamplingParams

    prompt = {"prompt_token_ids": [0, 5, 6, 7]}
    plain = llm.generate([prompt], SamplingParams(max_tokens=8, temperature=0), use_tqdm=False)[0].outputs[0].token_ids
    again = llm.generate([prompt], SamplingParams(max_tokens=8, temperature=0), use_tqdm=False)[0].outputs[0].token_ids
    assert list(plain) == list(again) and len(plain) == 8


def test_command_line_with_the_vllm_engine(tiny_model, tmp_path):
    import os
    import pathlib
    import subprocess
    import sys

    root = pathlib.Path(__file__).resolve().parents[2]
    out = tmp_path / "out.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "thinkgate", "generate", "--engine", "vllm", "--model", tiny_model, "--input", str(root / "examples" / "requests.jsonl"), "--output", str(out), "--max-model-len", "2048", "--quiet"],
        capture_output=True, text=True, timeout=900, env=dict(os.environ, VLLM_ENABLE_V1_MULTIPROCESSING="0"),
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    # OpenAI's Batch output, one line per input line
    results = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["custom_id"] for r in results] == ["weather-1", "alarm-1", "chat-1"]
    bodies = [r["response"]["body"] for r in results]
    assert [b["id"] for b in bodies] == ["weather-1", "alarm-1", "chat-1"]
    assert bodies[0]["choices"][0]["finish_reason"] == "tool_calls"
    assert _validate(bodies[0]["choices"][0]["message"]) == 1


def test_stop_strings_cut_the_output_as_the_transformers_engine_does(llm, tiny_model):
    from thinkgate.demo import load
    from thinkgate.integrations.transformers import generate_chat as transformers_generate

    base = dict(messages=[{"role": "user", "content": "Say hello."}], thinking=False, tool_choice="none", max_tokens=12, temperature=0)
    [free] = generate_chat(llm, [ChatRequest(**base)])
    text = free["choices"][0]["message"]["content"]
    stop = text[6:10]
    [cut] = generate_chat(llm, [ChatRequest(**base, stop=[stop])])
    assert cut["choices"][0]["message"]["content"] == text[: text.index(stop)]
    assert cut["choices"][0]["finish_reason"] == "stop"
    # the same request, cut the same way by the other engine (same model, greedy)
    model, tokenizer = load(tiny_model)
    [same] = transformers_generate(model, tokenizer, [ChatRequest(**base, stop=[stop])])
    assert same["choices"][0]["message"] == cut["choices"][0]["message"]


def test_admission_compiles_the_grammar_the_engine_step_reads(llm):
    """In-process (the offline LLM here), admission compiles each request's grammar with the
    engine processor's own tokenizer: the engine step finds it and compiles nothing."""
    from thinkgate.constraint import grammar_cache
    from thinkgate.integrations.vllm import _in_process_engine

    engine = _in_process_engine()
    assert engine is not None
    cache = grammar_cache(engine.tokenizer, engine.vocab_size)
    fresh = [{"type": "function", "function": {"name": "admitted_once", "parameters": {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 9}}, "required": ["n"]}}}]
    misses, hits = cache.misses, cache.hits
    [result] = generate_chat(llm, [ChatRequest(messages=[{"role": "user", "content": "n?"}], tools=fresh, tool_choice="required", thinking=False, max_tokens=40, seed=0)], format="deepseek_v3_1")
    assert result["choices"][0]["finish_reason"] == "tool_calls"
    assert cache.misses == misses + 1 and cache.hits > hits  # compiled once, at admission


def test_a_request_the_grammar_ended_says_error(llm, monkeypatch):
    """A fault inside the engine's processor ends that request (finish_reason "error" with the
    reason, read again from its tokens), and the other requests of the batch finish as usual."""
    from thinkgate.constraint.runtime.guard import ArgumentsGuard

    def explode(self, row, multi=True):
        raise IndexError("a fault in the guard")

    monkeypatch.setattr(ArgumentsGuard, "restrict", explode)
    requests = [
        ChatRequest(messages=[{"role": "user", "content": "weather"}], tools=TOOLS, tool_choice="required", thinking=False, max_tokens=60, seed=0),
        ChatRequest(messages=[{"role": "user", "content": "chat"}], tools=TOOLS, tool_choice="none", thinking=False, max_tokens=8, seed=0),
    ]
    broken, plain = (r["choices"][0] for r in generate_chat(llm, requests, format="deepseek_v3_1"))
    assert broken["finish_reason"] == "error" and broken["error"]["type"] == "constraint_error"
    assert plain["finish_reason"] == "length"


def test_max_tokens_is_length_under_every_tool_choice(llm):
    """Issue 16, point 1: an answer cut off by max_tokens is "length" in this engine as in the
    transformers one (tests/test_transformers.py), under every tool_choice, thinking on and off."""
    requests = [
        ChatRequest(messages=[{"role": "user", "content": "hi"}], tools=TOOLS, tool_choice=choice, thinking=thinking, max_tokens=5, seed=1, temperature=0)
        for choice in ("none", "auto", "required", {"type": "function", "function": {"name": "set_alarm"}}) for thinking in (False, True)
    ]
    for request, r in zip(requests, generate_chat(llm, requests, format="deepseek_r1")):
        assert r["choices"][0]["finish_reason"] == "length" and r["usage"]["completion_tokens"] == 5, request.tool_choice


def test_a_required_call_fits_within_max_tokens_when_the_thinking_never_closes(llm):
    """Issue 17, point 3, in vLLM's engine: no thinking budget, and the random model thinks on;
    the processor keeps room within the request's max_tokens for the shortest call and writes it."""
    requests = [
        ChatRequest(messages=[{"role": "user", "content": "weather"}], tools=TOOLS, tool_choice=choice, thinking=True, max_tokens=64, seed=7, temperature=1.0)
        for choice in ("required", {"type": "function", "function": {"name": "get_weather"}})
    ]
    for r, finish in zip(generate_chat(llm, requests, format="deepseek_r1"), ("tool_calls", "stop")):
        choice = r["choices"][0]
        assert _validate(choice["message"]) == 1 and choice["finish_reason"] == finish, choice
        assert choice["message"]["reasoning_content"] and r["usage"]["completion_tokens"] == 64
