"""Where vLLM leaves thinkgate's logits processor out — the V1 runner with speculative decoding
(vLLM refuses ``--logits-processors`` there and silently drops the entry-point plugin), or an
operator's choice of vLLM's own structured outputs — thinkgate's parser plugins notice it from
the engine's configuration and hand vLLM's structured outputs thinkgate's structural tag, thinking
included, so that a request thinkgate accepted is never unconstrained.

The detection runs on vLLM's own config classes (``EngineArgs(...).create_engine_config()``); the
last test serves the demo model for real with n-gram drafting."""

from __future__ import annotations

import gc
import json
import os
import re
import weakref

import jsonschema
import openai
import pytest
import xgrammar as xgr
from vllm.config import StructuredOutputsConfig
from vllm.engine.arg_utils import EngineArgs
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
from vllm.reasoning.abs_reasoning_parsers import ReasoningParserManager
from vllm.tool_parsers.abstract_tool_parser import ToolParserManager

import thinkgate.integrations.vllm_parsers  # noqa: F401  (registers the plugins)
from thinkgate.formats import get_format
from thinkgate.formats.templates import chat_template
from thinkgate.integrations import vllm_paths
from thinkgate.integrations.vllm import ThinkgateLogitsProcessor
from thinkgate.requests import OPTION_KEY, RequestOptions

from schemas import GET_WEATHER, SET_ALARM

NGRAM = {"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 3, "prompt_lookup_min": 1}
TOOLS = [GET_WEATHER, SET_ALARM]
SCHEMAS = {t["function"]["name"]: t["function"]["parameters"] for t in TOOLS}
R1 = get_format("deepseek_r1")


def _config(model, **kw):
    kw.setdefault("reasoning_parser", "thinkgate_deepseek_r1")
    return EngineArgs(model=model, max_model_len=2048, enforce_eager=True, **kw).create_engine_config()


@pytest.fixture
def engine(tiny_model, monkeypatch):
    """Build the engine configs a test asks for (vLLM's real classes), and make sure they are gone
    afterwards: this process's other vLLM tests find engines the way the parsers do. The engines
    of other tests in this process (the offline ``llm``) are kept out of the parsers' sight."""
    from vllm.config import VllmConfig

    made = []
    everything = vllm_paths._all_objects
    monkeypatch.setattr(vllm_paths, "_all_objects", lambda: [o for o in everything() if type(o) is not VllmConfig or any(o is r() for r in made)])

    def make(**kw):
        cfg = _config(tiny_model, **kw)
        made.append(weakref.ref(cfg))
        vllm_paths.forget_engines()
        return cfg

    yield make
    vllm_paths.forget_engines()
    frozen = gc.get_freeze_count() > 0  # (an in-process engine of another test froze the heap, and the parsers' look froze these with it)
    gc.unfreeze()
    gc.collect()
    if frozen:
        gc.freeze()
    assert all(r() is None for r in made), "an engine config outlived its test"


@pytest.fixture
def tokenizer_r1(tiny_model):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(tiny_model)


def _request(**kw):
    kw.setdefault("messages", [{"role": "user", "content": "Weather in Oslo?"}])
    return ChatCompletionRequest(model="m", **kw)


def _adjust(tokenizer, request, cfg=None):
    """As vLLM's renderer adjusts a request: the reasoning parser, then the tool parser, built
    with what the serving layer gives them."""
    reasoning = ReasoningParserManager.get_reasoning_parser("thinkgate_deepseek_r1")(
        tokenizer, model_config=getattr(cfg, "model_config", None), chat_template_kwargs=request.chat_template_kwargs or {}
    )
    tool = ToolParserManager.get_tool_parser("thinkgate_deepseek_r1")(tokenizer, request.tools)
    return tool.adjust_request(reasoning.adjust_request(request))


# ------------------------------------------------------------------ which path, from vLLM's config


def test_speculative_decoding_under_the_v1_runner_takes_vllms_structured_outputs(engine):
    cfg = engine(speculative_config=NGRAM)
    assert cfg.speculative_config is not None and not cfg.use_v2_model_runner  # the CPU build's runner
    path = vllm_paths.path_for(cfg)
    assert path.name == vllm_paths.STRUCTURED_OUTPUTS
    assert "speculative decoding (ngram) under the V1 model runner" in path.reason
    assert path.refusal is None and path.thinking_budget  # xgrammar ("auto"); a reasoning parser set


def test_plain_decoding_and_model_runner_v2_keep_the_processor(engine, monkeypatch):
    plain = engine()
    assert vllm_paths.path_for(plain).name == vllm_paths.PROCESSOR
    drafted = engine(speculative_config=NGRAM)
    import vllm.envs

    cached = vllm.envs._is_envs_cache_enabled()  # (an engine started in this process caches vLLM's settings)
    vllm.envs.disable_envs_cache()
    try:
        # Model Runner V2 (vLLM's default on GPU) builds custom processors under drafting too
        monkeypatch.setenv("VLLM_USE_V2_MODEL_RUNNER", "1")
        path = vllm_paths.path_for(drafted)
        assert path.name == vllm_paths.PROCESSOR and "Model Runner V2 with speculative decoding (ngram)" in path.reason
        monkeypatch.delenv("VLLM_USE_V2_MODEL_RUNNER")
        assert vllm_paths.path_for(drafted).name == vllm_paths.STRUCTURED_OUTPUTS
    finally:
        if cached:
            vllm.envs.enable_envs_cache()


def test_the_operator_may_choose_vllms_structured_outputs_and_nothing_else(engine, monkeypatch):
    cfg = engine()
    monkeypatch.setenv(vllm_paths.PATH_ENV, "structured_outputs")
    assert vllm_paths.path_for(cfg) == vllm_paths.Path(vllm_paths.STRUCTURED_OUTPUTS, "THINKGATE_VLLM_PATH=structured_outputs", None, True)
    monkeypatch.setenv(vllm_paths.PATH_ENV, "processor")  # would leave requests unconstrained where it does not run
    with pytest.raises(ValueError, match="THINKGATE_VLLM_PATH must be one of auto, structured_outputs, not 'processor'"):
        vllm_paths.path_for(cfg)


def test_an_unregistered_processor_and_a_backend_without_structural_tags(engine, monkeypatch):
    import importlib.metadata

    cfg = engine()
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda **kw: [])
    path = vllm_paths.path_for(cfg)
    assert path.name == vllm_paths.STRUCTURED_OUTPUTS and "not registered" in path.reason
    cfg.model_config.logits_processors = ["thinkgate.integrations.vllm:ThinkgateLogitsProcessor"]
    assert vllm_paths.path_for(cfg).name == vllm_paths.PROCESSOR
    monkeypatch.undo()
    guided = engine(speculative_config=NGRAM, structured_outputs_config=StructuredOutputsConfig(backend="guidance"))
    assert "structured-output backend is 'guidance'" in vllm_paths.path_for(guided).refusal


def test_the_parsers_find_the_engine_of_their_process(engine, tokenizer_r1):
    """What a server has: one engine config, found without being handed to the parsers; the
    reasoning parser's ModelConfig picks its engine where a process has several."""
    assert vllm_paths.request_path() is None  # no engine: the parsers on their own, as before
    cfg = engine(speculative_config=NGRAM)
    assert vllm_paths.request_path().name == vllm_paths.STRUCTURED_OUTPUTS
    plain = engine()
    assert [p.name for p in sorted(vllm_paths.engine_paths(), key=lambda p: p.name)] == ["processor", "structured_outputs"]
    assert vllm_paths.request_path(plain.model_config).name == vllm_paths.PROCESSOR
    assert vllm_paths.request_path().name == vllm_paths.STRUCTURED_OUTPUTS  # disagreeing engines: the one that holds either way
    del cfg, plain


def test_an_engine_is_found_in_a_frozen_heap(engine):
    """vLLM's API server calls gc.freeze() once it has started: its engine config is then in no
    list gc.get_objects() gives."""
    cfg = engine(speculative_config=NGRAM)
    gc.freeze()
    try:
        assert not any(o is cfg for o in gc.get_objects())
        assert vllm_paths.request_path().name == vllm_paths.STRUCTURED_OUTPUTS
        assert gc.get_freeze_count() > 0  # left frozen, as it was
    finally:
        gc.unfreeze()
    del cfg


# ------------------------------------------------------------------ the request, adjusted


def test_adjust_request_hands_vllm_the_tag_where_the_processor_does_not_run(engine, tokenizer_r1):
    cfg = engine(speculative_config=NGRAM)
    req = _adjust(tokenizer_r1, _request(tools=TOOLS, tool_choice="required", vllm_xargs={"thinkgate_thinking_budget": 8, "thinkgate_strict": 2}), cfg)
    assert OPTION_KEY not in req.vllm_xargs  # nothing for a processor: none runs, or it would hold the request twice
    assert req.vllm_xargs == {"thinkgate_strict": 2, "thinkgate_unsupported": "error"}  # how the parser reads calls
    assert req.thinking_token_budget == 8  # vLLM's own thinking budget
    assert req._grammar_from_parser and req.resolve_reasoning_ended(None, []) is True  # held from the first token
    assert req.response_format is None and req.skip_special_tokens is False
    tag = json.loads(req.structured_outputs.structural_tag)
    params = req.to_sampling_params(100, {})
    from vllm.v1.structured_output.backend_xgrammar import validate_xgrammar_grammar

    validate_xgrammar_grammar(params)  # vLLM's own admission check of a structural tag
    assert tag["format"]["type"] == "token_dispatch"  # R1's prompt opens thinking: free up to </think>

    plain = engine()
    del cfg
    req = _adjust(tokenizer_r1, _request(tools=TOOLS, tool_choice="required"), plain)
    assert req.structured_outputs is None and RequestOptions(**json.loads(req.vllm_xargs[OPTION_KEY])).tool_choice == "required"


def test_what_the_structured_output_path_cannot_hold_is_refused_by_name(engine, tokenizer_r1):
    cfg = engine(speculative_config=NGRAM)

    def refused(match, **kw):
        kw.setdefault("tools", TOOLS)
        with pytest.raises(ValueError, match=match):
            _adjust(tokenizer_r1, _request(**kw), cfg)

    refused(r"thinkgate_thinking_budget \(8\) and thinking_token_budget \(4\) disagree", vllm_xargs={"thinkgate_thinking_budget": 8}, thinking_token_budget=4)
    refused("continue_final_message", continue_final_message=True, add_generation_prompt=False, messages=[{"role": "user", "content": "x"}, {"role": "assistant", "content": "y"}])
    refused("structured_outputs together with tools", structured_outputs={"json": {"type": "object"}})
    tag = {"type": "structural_tag", "format": {"type": "const_string", "value": "x"}}
    refused("response_format of type 'structural_tag' together with tools", response_format={"type": "structural_tag", "format": tag["format"]})
    # strict level 1 holds arguments to any object, in which xgrammar lets a key repeat
    refused(r'strict level 1: any JSON object.*pass vllm_xargs \{"thinkgate_unsupported": "relax"\}', vllm_xargs={"thinkgate_strict": 1})
    refused("keyword 'not'", tools=[{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"a": {"not": {}}}}}}])
    # the request's own budget alone is vLLM's, untouched
    assert _adjust(tokenizer_r1, _request(tools=TOOLS, thinking_token_budget=4), cfg).thinking_token_budget == 4
    del cfg
    no_reasoning = engine(speculative_config=NGRAM, reasoning_parser="")
    with pytest.raises(ValueError, match="needs --reasoning-parser"):
        _adjust(tokenizer_r1, _request(tools=TOOLS, vllm_xargs={"thinkgate_thinking_budget": 8}), no_reasoning)
    del no_reasoning
    guided = engine(speculative_config=NGRAM, structured_outputs_config=StructuredOutputsConfig(backend="guidance"))
    with pytest.raises(ValueError, match="backend is 'guidance'"):
        _adjust(tokenizer_r1, _request(tools=TOOLS), guided)


def test_a_request_with_processor_options_is_refused_where_no_processor_runs(engine):
    from vllm import SamplingParams

    params = SamplingParams(extra_args={OPTION_KEY: {"format": "deepseek_r1", "tools": TOOLS, "tool_choice": "required"}})
    cfg = engine(speculative_config=NGRAM)
    with pytest.raises(ValueError, match=r"logits processor does not run in this engine \(speculative decoding \(ngram\)"):
        ThinkgateLogitsProcessor.validate_params(params)
    del cfg
    plain = engine()
    ThinkgateLogitsProcessor.validate_params(params)
    del plain


def test_a_responses_api_request_is_held_from_its_first_token_by_vllms_own_gate(engine, tokenizer_r1):
    """Issue 34, point 0: vLLM's Responses serving gives the engine no reasoning_ended (a chat
    completion's _grammar_from_parser), but builds the engine's reasoning parser from the
    request's chat-template keywords: thinkgate marks them, and vLLM's structured-output manager
    (its real gate, built from this engine's config) then holds the tag from the first token."""
    from types import SimpleNamespace

    from vllm.entrypoints.openai.responses.protocol import ResponsesRequest
    from vllm.v1.structured_output import StructuredOutputManager
    from vllm.v1.structured_output.request import StructuredOutputRequest

    cfg = engine(speculative_config=NGRAM)
    flat = [{"type": "function", **t["function"]} for t in TOOLS]
    reasoning = ReasoningParserManager.get_reasoning_parser("thinkgate_deepseek_r1")(tokenizer_r1, model_config=cfg.model_config, chat_template_kwargs={})
    tool = ToolParserManager.get_tool_parser("thinkgate_deepseek_r1")(tokenizer_r1, None)
    req = tool.adjust_request(reasoning.adjust_request(ResponsesRequest(model="m", input="Weather?", tools=flat, tool_choice="required")))
    assert json.loads(req.structured_outputs.structural_tag)["format"]["type"] == "token_dispatch"  # the thinking, then the calls
    assert req.chat_template_kwargs == {vllm_paths.GRAMMAR_HOLDS_REASONING: True}
    prompt = tokenizer_r1.encode("<｜User｜>Weather?<｜Assistant｜>" + R1.reasoning.open, add_special_tokens=False)
    manager = StructuredOutputManager(cfg)

    def bounds(kwargs):
        held = StructuredOutputRequest(params=req.structured_outputs, reasoning_parser_kwargs={"chat_template_kwargs": kwargs})
        return manager._get_constraint_bounds(SimpleNamespace(structured_output_request=held, prompt_token_ids=prompt, all_token_ids=list(prompt)), [])

    assert bounds(req.chat_template_kwargs) == (0, 0)  # constrained from the first token
    assert bounds({}) != (0, 0)  # unmarked: vLLM would wait for the reasoning to end
    # the server's own parser (built with the ModelConfig) still reads the prompt's reasoning
    frontend = ReasoningParserManager.get_reasoning_parser("thinkgate_deepseek_r1")(tokenizer_r1, model_config=cfg.model_config, chat_template_kwargs=req.chat_template_kwargs)
    assert not frontend.is_reasoning_end(prompt)
    with pytest.raises(ValueError, match="which vLLM's Responses API does not take"):
        tool.adjust_request(ResponsesRequest(model="m", input="x", tools=flat, vllm_xargs={"thinkgate_thinking_budget": 8}))
    del cfg, manager


# ------------------------------------------------------------------ the tag, thinking included


def _compiled(tokenizer, tag):
    """As vLLM's xgrammar backend compiles it: xgrammar's TokenizerInfo of the tokenizer."""
    info = xgr.TokenizerInfo.from_huggingface(tokenizer, vocab_size=len(tokenizer), stop_token_ids=[1])
    return xgr.GrammarCompiler(info, max_threads=1, cache_enabled=False).compile_structural_tag(json.dumps(tag))


def _takes(grammar, tokenizer, text, end=True):
    m = xgr.GrammarMatcher(grammar)
    if not all(m.accept_token(i) for i in tokenizer.encode(text, add_special_tokens=False)):
        return False
    return not end or m.is_terminated() or m.accept_token(1)


@pytest.mark.parametrize("stage", [True, "auto", False])
def test_the_tag_holds_the_thinking_as_the_prompt_starts_it(tokenizer_r1, stage):
    from thinkgate.constraint import build_structural_tag

    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string", "maxLength": 6}}, "required": ["city"]}}}]
    base = build_structural_tag(R1, tools, "required", tokenizer=tokenizer_r1)
    g = _compiled(tokenizer_r1, vllm_paths.structured_outputs_tag(base, R1, stage, tokenizer_r1))
    r = R1.reasoning
    call = R1.tools.section_text([("get_weather", '{"city": "Oslo"}')])
    thought = "Let me check." + r.close + call
    assert _takes(g, tokenizer_r1, thought) is (stage is True)
    assert _takes(g, tokenizer_r1, r.open + thought) is (stage == "auto")
    assert _takes(g, tokenizer_r1, call) is (stage != True)  # noqa: E712
    assert not _takes(g, tokenizer_r1, r.close + R1.tools.section_text([("get_weather", '{"city": "Stockholm"}')]))  # the bound holds
    # a tool-call token while thinking: thinking closes first
    assert not _takes(g, tokenizer_r1, ("" if stage is True else r.open) + "Hm." + call, end=False)


def test_the_thinking_stage_comes_from_the_template_and_its_keywords(tokenizer_r1):
    v31 = get_format("deepseek_v3_1")
    assert vllm_paths.prompt_stage(tokenizer_r1, R1) is True  # the demo's own template opens <think>
    assert vllm_paths.prompt_stage(tokenizer_r1, R1, None, {"thinking": False}) is False
    assert vllm_paths.prompt_stage(tokenizer_r1, v31, chat_template(v31), {"thinking": True}) is True
    assert vllm_paths.prompt_stage(tokenizer_r1, v31, chat_template(v31), {"thinking": False}) is False
    v3 = get_format("deepseek_v3")  # the template leaves thinking to the model
    assert vllm_paths.prompt_stage(tokenizer_r1, v3, chat_template(v3)) == "auto"


def test_a_format_of_channel_messages_is_refused_by_name(tokenizer_r1):
    with pytest.raises(ValueError, match="format 'gpt_oss' writes its reasoning as channel messages"):
        vllm_paths.structured_outputs_tag({"type": "structural_tag", "format": {"type": "const_string", "value": "x"}}, get_format("gpt_oss"), "auto", tokenizer_r1)


# ------------------------------------------------------------------ a real server, drafting n-grams


@pytest.fixture(scope="module")
def spec_server(tiny_model, tmp_path_factory):
    """vLLM's OpenAI server (the CPU build's V1 runner) with n-gram speculative decoding and
    thinkgate's parser plugins; the processor is installed as an entry point, which vLLM leaves
    out here (``--logits-processors`` it would refuse at start-up)."""
    from conftest import _free_port, server_command, serving

    template = tmp_path_factory.mktemp("spec-tpl") / "template.jinja"
    template.write_text(chat_template(R1))
    port = _free_port()
    cmd = server_command(tiny_model, port, str(template))
    at = cmd.index("--logits-processors")
    del cmd[at : at + 2]
    cmd += ["--speculative-config", json.dumps(NGRAM)]
    log_path = tmp_path_factory.mktemp("spec-log") / "server.log"
    env = dict(os.environ, VLLM_CPU_KVCACHE_SPACE="1", VLLM_LOGGING_LEVEL="DEBUG")
    env.pop(vllm_paths.PATH_ENV, None)
    with serving(cmd, env, log_path) as srv:
        yield srv


def _ask(client, messages, tool_choice, stream, seed, temperature, thinking=True):
    kwargs = dict(
        model=client.models.list().data[0].id, messages=messages, tools=TOOLS, tool_choice=tool_choice, temperature=temperature, seed=seed,
        # one call: this path keeps no room for a call within max_tokens, and a random model
        # writes calls back to back until it runs out
        parallel_tool_calls=False, max_tokens=400 if tool_choice != "auto" else 100,
        extra_body={"vllm_xargs": {"thinkgate_thinking_budget": 8}, "chat_template_kwargs": {"thinking": thinking}},
    )
    if not stream:
        r = client.chat.completions.create(**kwargs)
        m = r.choices[0].message
        return {
            "reasoning": getattr(m, "reasoning", None) or getattr(m, "reasoning_content", None),
            "content": m.content or None,
            "tool_calls": [(c.function.name, c.function.arguments) for c in m.tool_calls or []],
            "finish_reason": r.choices[0].finish_reason,
        }
    reasoning, content, calls, finish = [], [], {}, None
    for chunk in client.chat.completions.create(stream=True, **kwargs):
        if not chunk.choices:
            continue
        d = chunk.choices[0].delta
        reasoning.append(getattr(d, "reasoning", None) or getattr(d, "reasoning_content", None) or "")
        content.append(d.content or "")
        for tc in d.tool_calls or []:
            slot = calls.setdefault(tc.index, ["", ""])
            slot[0] += (tc.function.name or "") if tc.function else ""
            slot[1] += (tc.function.arguments or "") if tc.function else ""
        finish = chunk.choices[0].finish_reason or finish
    return {"reasoning": "".join(reasoning) or None, "content": "".join(content) or None, "tool_calls": [tuple(calls[i]) for i in sorted(calls)], "finish_reason": finish}


CHOICES = {"required": "required", "named": {"type": "function", "function": {"name": "set_alarm"}}, "auto": "auto"}
PROMPTS = ["Weather in Oslo for 3 days, and an alarm at 07:30?", "Is it raining in 東京?"]


def test_a_speculative_server_constrains_every_request_through_vllms_structured_outputs(spec_server):
    client = openai.OpenAI(base_url=spec_server.base_url + "/v1", api_key="none", max_retries=0, timeout=600)
    counts = {"requests": 0, "calls": 0, "invalid": 0}
    by = {}
    for name, choice in CHOICES.items():
        for k, prompt in enumerate(PROMPTS):
            messages = [{"role": "user", "content": prompt}]
            # greedy: streamed and whole agree; sampled: another walk through the grammar
            for temperature, seed in ((0, 0), (1, k + 1)):
                answers = [_ask(client, messages, choice, stream, seed, temperature) for stream in (False, True)]
                if temperature == 0:
                    assert answers[0] == answers[1], (name, prompt)
                for a in answers:
                    counts["requests"] += 1
                    by.setdefault((name, a["finish_reason"]), 0)
                    by[(name, a["finish_reason"])] += 1
                    assert a["reasoning"], (name, a)  # thinking stayed free, up to vLLM's budget
                    for fn, args in a["tool_calls"]:
                        counts["calls"] += 1
                        try:
                            jsonschema.validate(json.loads(args), SCHEMAS[fn], format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
                        except (ValueError, jsonschema.ValidationError):
                            counts["invalid"] += 1
                    if name != "auto":
                        assert a["tool_calls"], (name, a)  # the 10 of 10 free-text answers
                    if name == "named":
                        assert [fn for fn, _ in a["tool_calls"]] == ["set_alarm"] and a["finish_reason"] == "stop"
                    if name == "required":
                        assert a["finish_reason"] == "tool_calls"
    # thinking turned off (the prompt closes it): the grammar starts at the answer
    off = [_ask(client, [{"role": "user", "content": PROMPTS[0]}], "required", stream, 0, 0, thinking=False) for stream in (False, True)]
    assert off[0] == off[1] and not off[0]["reasoning"] and off[0]["finish_reason"] == "tool_calls"
    for a in off:
        counts["requests"] += 1
        for fn, args in a["tool_calls"]:
            counts["calls"] += 1
            jsonschema.validate(json.loads(args), SCHEMAS[fn], format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    log = spec_server.log()
    path_lines = [line for line in log.splitlines() if "thinkgate:" in line and "path" in line]
    # vLLM's own count of drafted and accepted tokens: the drafts went through the grammar
    drafted = sum(int(m) for m in re.findall(r"Drafted: (\d+) tokens", log))
    accepted = sum(int(m) for m in re.findall(r"Accepted: (\d+) tokens", log))
    print(f"\nspeculative server (ngram, V1 runner): {counts['requests']} requests, {counts['calls']} calls, {counts['invalid']} invalid; by choice and finish: {by}; drafts: {accepted} of {drafted} tokens accepted")
    print("\n".join(path_lines[:2]))
    print(f"... {sum('takes the structured_outputs path' in line for line in path_lines)} request lines name the structured_outputs path")
    assert counts["invalid"] == 0 and counts["calls"] >= counts["requests"] * 2 // 3 and drafted > 0
    assert any("take the structured_outputs path: speculative decoding (ngram) under the V1 model runner" in line for line in path_lines)
    assert sum("takes the structured_outputs path" in line for line in path_lines) == counts["requests"]
    assert "Custom logits processors are not supported" not in log and spec_server.alive()


@pytest.mark.parametrize("choice", [None, "set_alarm"])
def test_a_speculative_server_holds_the_responses_api_too(spec_server, choice):
    """Issue 34, point 0, on the structured-output path: the Responses API's flat tools, held by
    vLLM's structured outputs with thinkgate's tag, streamed as returned."""
    import httpx

    from test_server import _responses_api

    tools = [t["function"] for t in TOOLS]
    with httpx.Client(base_url=spec_server.base_url, timeout=600) as http:
        model = http.get("/v1/models").json()["data"][0]["id"]
        whole, streamed = (_responses_api(http, model, tools, choice, stream) for stream in (False, True))
    assert whole == streamed and len(whole[1]) == 1, whole
    name, args = whole[1][0]
    assert choice is None or name == choice
    jsonschema.validate(args, SCHEMAS[name], format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    assert spec_server.alive()
