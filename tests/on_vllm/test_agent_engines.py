"""The agent loop driven by vLLM: the offline ``LLM`` (VllmEngine) and vLLM's OpenAI server with
thinkgate's plugins (OpenAIEngine), each over an in-process MCP server from tests/mcp_servers.py.
The tiny random-weight model's calls are random but valid: every call the server runs passes the
server's own validation of its typed, bounded parameters."""

import asyncio
import json

import jsonschema

import mcp_servers
from conftest import SERVER_FORMAT
from thinkgate.agent import Agent, OpenAIEngine, VllmEngine

TURN = dict(tool_choice="required", parallel_tool_calls=False, thinking=True, thinking_budget=4, max_tokens=100, seed=0)


def _run(engine, seen):
    async def go():
        async with Agent(engine, [mcp_servers.calculator(seen=seen)]) as agent:
            return agent.toolset, await agent.run("What is 6 times 7?", max_steps=2, **TURN)

    return asyncio.run(go())


def _check(toolset, result, seen):
    schemas = {t["function"]["name"]: t["function"]["parameters"] for t in toolset.tools}
    calls = [(c, json.loads(c.arguments)) for s in result.steps for c in s.calls]
    assert result.stop_reason == "max_steps" and len(calls) == 2
    for call, arguments in calls:
        jsonschema.validate(arguments, schemas[call.name])
        assert not call.is_error
    assert seen == [(c.tool, a) for c, a in calls]  # the server ran exactly the model's calls
    assert [m["role"] for m in result.messages] == ["user", "assistant", "tool", "assistant", "tool"]
    assert [m["tool_call_id"] for m in result.messages if m["role"] == "tool"] == [c.id for c, _ in calls]


def test_the_offline_engine_drives_the_loop(llm):
    seen = []
    toolset, result = _run(VllmEngine(llm, SERVER_FORMAT), seen)
    _check(toolset, result, seen)


def test_the_server_with_thinkgates_plugins_drives_the_loop(server, client):
    seen = []
    engine = OpenAIEngine(server.base_url + "/v1", client.models.list().data[0].id, SERVER_FORMAT)
    toolset, result = _run(engine, seen)
    _check(toolset, result, seen)
