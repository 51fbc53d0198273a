"""vLLM's OpenAI server for real, with thinkgate's parser plugins and logits processor, driven by
the openai client: calls validate, and the streamed message equals the non-streamed one."""

import json
import os
import socket
import subprocess
import sys
import time

import jsonschema
import pytest

from schemas import GET_WEATHER, SET_ALARM
from thinkgate.formats.templates import chat_template

TOOLS = [GET_WEATHER, SET_ALARM]
SCHEMAS = {t["function"]["name"]: t["function"]["parameters"] for t in TOOLS}
FORMAT = "deepseek_r1"


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_command(model, port, template_path):
    plugins = "thinkgate.integrations.vllm_parsers"  # a module name works as a plugin path
    return [
        sys.executable, "-m", "vllm.entrypoints.openai.api_server",
        "--model", model, "--host", "127.0.0.1", "--port", str(port),
        "--max-model-len", "2048", "--enforce-eager", "--seed", "0",
        "--chat-template", template_path,
        "--tool-parser-plugin", plugins, "--tool-call-parser", f"thinkgate_{FORMAT}", "--enable-auto-tool-choice",
        "--reasoning-parser-plugin", plugins, "--reasoning-parser", f"thinkgate_{FORMAT}",
        "--logits-processors", "thinkgate.integrations.vllm:ThinkgateLogitsProcessor",
    ]


@pytest.fixture(scope="module")
def client(tiny_model, tmp_path_factory):
    import openai
    import urllib.request

    template = tmp_path_factory.mktemp("tpl") / "template.jinja"
    template.write_text(chat_template(FORMAT))
    port = _free_port()
    log = open(tmp_path_factory.mktemp("log") / "server.log", "w")
    proc = subprocess.Popen(server_command(tiny_model, port, str(template)), stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ, VLLM_CPU_KVCACHE_SPACE="1"))
    try:
        deadline = time.time() + 300
        while time.time() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"the server exited: see {log.name}")
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2)
                break
            except OSError:
                time.sleep(2)
        else:
            raise RuntimeError("the server did not come up in 300 s")
        yield openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="none")
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def _ask(client, tool_choice, stream, thinking=True):
    kwargs = dict(
        model=client.models.list().data[0].id,
        messages=[{"role": "user", "content": "Weather in Oslo, and an alarm?"}],
        tools=TOOLS,
        tool_choice=tool_choice,
        parallel_tool_calls=False,
        temperature=0,
        max_tokens=400 if tool_choice != "auto" else 60,
        extra_body={"chat_template_kwargs": {"thinking": thinking}, "vllm_xargs": {"thinkgate_thinking_budget": 8}},
    )
    if not stream:
        r = client.chat.completions.create(**kwargs)
        m = r.choices[0].message
        return {
            "content": m.content or None,
            "reasoning": getattr(m, "reasoning", None) or getattr(m, "reasoning_content", None),
            "tool_calls": [(c.function.name, c.function.arguments) for c in (m.tool_calls or [])],
            "finish_reason": r.choices[0].finish_reason,
        }
    content, reasoning, calls, finish = [], [], {}, None
    for chunk in client.chat.completions.create(stream=True, **kwargs):
        if not chunk.choices:
            continue
        d = chunk.choices[0].delta
        content.append(d.content or "")
        reasoning.append(getattr(d, "reasoning", None) or getattr(d, "reasoning_content", None) or "")
        for tc in d.tool_calls or []:
            slot = calls.setdefault(tc.index, ["", ""])
            slot[0] += (tc.function.name or "") if tc.function else ""
            slot[1] += (tc.function.arguments or "") if tc.function else ""
        finish = chunk.choices[0].finish_reason or finish
    return {
        "content": "".join(content) or None,
        "reasoning": "".join(reasoning) or None,
        "tool_calls": [tuple(calls[i]) for i in sorted(calls)],
        "finish_reason": finish,
    }


@pytest.mark.parametrize("tool_choice", ["required", {"type": "function", "function": {"name": "set_alarm"}}, "auto"])
def test_server_streams_what_it_returns_and_calls_validate(client, tool_choice):
    whole = _ask(client, tool_choice, stream=False)
    streamed = _ask(client, tool_choice, stream=True)
    assert streamed == whole
    for name, args in whole["tool_calls"]:
        jsonschema.validate(json.loads(args), SCHEMAS[name], format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    if tool_choice == "required":
        assert len(whole["tool_calls"]) == 1 and whole["finish_reason"] == "tool_calls"
    if isinstance(tool_choice, dict):  # a forced function ends with "stop", as OpenAI's own
        assert len(whole["tool_calls"]) == 1 and whole["finish_reason"] == "stop"
    if isinstance(tool_choice, dict):
        assert whole["tool_calls"][0][0] == "set_alarm"
    assert whole["reasoning"]  # thinking on: random reasoning, then the grammar


def test_server_thinking_off_and_bad_request(client):
    whole = _ask(client, "required", stream=False, thinking=False)
    assert whole["tool_calls"] and not whole["reasoning"]
    assert _ask(client, "required", stream=True, thinking=False) == whole
    import openai

    with pytest.raises(openai.BadRequestError, match="keyword 'not'"):
        client.chat.completions.create(
            model=client.models.list().data[0].id,
            messages=[{"role": "user", "content": "x"}],
            tools=[{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"a": {"not": {}}}}}}],
            tool_choice="required",
        )
