"""The agent loop over real MCP servers (tests/mcp_servers.py, written with the SDK's server
class), in-process, over stdio and over Streamable HTTP on 127.0.0.1, driven by the demo's tiny
random-weight model: its calls are random, but valid, so every call a server runs passes the
server's own validation of its typed, bounded parameters."""

import asyncio
import json
import os
import sys
from pathlib import Path

import jsonschema
import pytest
import torch
from mcp import StdioServerParameters

import mcp_servers
from helpers import free_port, serving_http
from thinkgate.agent.tools import Toolset
from thinkgate.agent import Agent, OpenAIEngine, ServerError, Step, ToolSchemaError, TransformersEngine, run_agent
from thinkgate.cli import main
from thinkgate.demo import build_tiny_model, load
from thinkgate.formats.templates import apply_chat_template
from thinkgate.requests import ChatRequest

SCRIPT = Path(__file__).resolve().parent / "mcp_servers.py"
# One call per turn, a short thinking: a turn of the tiny model takes a second or two.
TURN = dict(tool_choice="required", parallel_tool_calls=False, thinking=True, thinking_budget=4, max_tokens=100, seed=0)
OPS = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b}


@pytest.fixture(scope="module")
def model_path(tmp_path_factory):
    return build_tiny_model(tmp_path_factory.mktemp("model") / "tiny")


@pytest.fixture(scope="module")
def engine(model_path):
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a model this small runs faster on one thread than on two busy ones
    yield TransformersEngine(*load(model_path), "deepseek_r1")
    torch.set_num_threads(threads)


def stdio(which, log=None):
    env = {**os.environ, **({"MCP_TEST_LOG": str(log)} if log else {})}
    return StdioServerParameters(command=sys.executable, args=[str(SCRIPT), which], env=env)


def logged(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines()] if Path(path).exists() else []


def valid_calls(result, toolset):
    """Every call of every turn, checked against the schema offered for it; (record, arguments)."""
    schemas = {t["function"]["name"]: t["function"]["parameters"] for t in toolset.tools}
    out = []
    for step in result.steps:
        assert [c["id"] for c in step.message.get("tool_calls", [])] == [c.id for c in step.calls]
        for call in step.calls:
            arguments = json.loads(call.arguments)
            jsonschema.validate(arguments, schemas[call.name])
            out.append((call, arguments))
    return out


def answers_each_call(messages):
    """Each tool message answers a call of the assistant turn before it, in the calls' order."""
    pending = []
    for m in messages:
        if m["role"] == "assistant":
            assert not pending, "a turn began before every call of the last one was answered"
            pending = [c["id"] for c in m.get("tool_calls", [])]
        elif m["role"] == "tool":
            assert m["tool_call_id"] == pending.pop(0)
    return not pending


def test_in_process_servers_run_each_valid_call_and_the_results_reach_the_next_prompt(engine):
    seen = []
    servers = [mcp_servers.calculator(seen=seen), mcp_servers.kv_store(seen=seen)]

    async def go():
        async with Agent(engine, servers) as agent:
            return agent.toolset, await agent.run("Add 2 and 3, then store it.", max_steps=2, **TURN)

    toolset, result = asyncio.run(go())
    assert [t["function"]["name"] for t in toolset.tools] == ["calculate", "put", "count"]
    assert result.stop_reason == "max_steps" and len(result.steps) == 2 and result.answer is None
    calls = valid_calls(result, toolset)
    assert len(calls) == 2 and not any(c.is_error for c, _ in calls)
    # the servers ran exactly the calls the model made, with its arguments
    assert seen == [(c.tool, a) for c, a in calls]
    for call, arguments in calls:
        if call.tool == "calculate":
            assert int(call.content) == OPS[arguments["op"]](arguments["a"], arguments["b"])
    assert [m["role"] for m in result.messages] == ["user", "assistant", "tool", "assistant", "tool"]
    assert answers_each_call(result.messages)
    # the first turn's call and result are in the second turn's prompt, as the template writes them
    first = result.steps[0].calls[0]
    prompt = engine.tokenizer.decode(apply_chat_template(engine.tokenizer, result.messages[:3], "deepseek_r1", toolset.tools, True))
    assert first.arguments in prompt and "<｜tool▁output▁begin｜>" + first.content + "<｜tool▁output▁end｜>" in prompt


def test_a_stdio_server_runs_the_calls(engine, tmp_path):
    log = tmp_path / "calls.jsonl"
    result = asyncio.run(run_agent(engine, [stdio("calc", log)], "What is 6 times 7?", max_steps=1, **TURN))
    [(call, arguments)] = [(c, json.loads(c.arguments)) for s in result.steps for c in s.calls]
    assert logged(log) == [{"server": "calc", "tool": "calculate", "arguments": arguments}]
    assert not call.is_error and int(call.content) == OPS[arguments["op"]](arguments["a"], arguments["b"])
    assert call.server == "calc" and result.messages[-1] == {"role": "tool", "tool_call_id": call.id, "content": call.content}


@pytest.fixture
def http_server(tmp_path):
    port = free_port()
    log = tmp_path / "http_calls.jsonl"
    env = {**os.environ, "MCP_TEST_LOG": str(log)}
    with serving_http([sys.executable, str(SCRIPT), "kv", "--http", str(port)], env, port):
        yield f"http://127.0.0.1:{port}/mcp", log


def test_a_streamable_http_server_runs_the_calls(engine, http_server):
    url, log = http_server
    result = asyncio.run(run_agent(engine, [url], "Remember my name.", max_steps=1, **TURN))
    [call] = result.steps[0].calls
    arguments = json.loads(call.arguments)
    assert logged(log) == [{"server": "kv", "tool": call.tool, "arguments": arguments}]
    assert not call.is_error and call.content == ("stored 1 keys" if call.tool == "put" else "0")
    assert answers_each_call(result.messages) and result.messages[-1]["content"] == call.content


def test_tool_names_two_servers_share_are_told_apart_and_routed(engine):
    seen_calc, seen_abacus = [], []
    servers = [mcp_servers.calculator("calc", seen_calc), mcp_servers.calculator("abacus", seen_abacus), mcp_servers.kv_store()]

    async def go():
        async with Agent(engine, servers) as agent:
            names = list(agent.toolset.routes)
            choice = {"type": "function", "function": {"name": "abacus_calculate"}}
            return names, await agent.run("Compute something.", max_steps=1, **{**TURN, "tool_choice": choice})

    names, result = asyncio.run(go())
    assert names == ["calc_calculate", "abacus_calculate", "put", "count"]
    [call] = result.steps[0].calls
    assert (call.name, call.server, call.tool) == ("abacus_calculate", "abacus", "calculate")
    assert seen_calc == [] and seen_abacus == [("calculate", json.loads(call.arguments))]

    async def twins():  # two copies of one server: numbered labels
        async with Agent(engine, [mcp_servers.calculator("calc"), mcp_servers.calculator("calc")]) as agent:
            return {n: (r.label, r.tool) for n, r in agent.toolset.routes.items()}

    assert asyncio.run(twins()) == {"calc_calculate": ("calc", "calculate"), "calc2_calculate": ("calc2", "calculate")}


def test_a_failing_tool_goes_back_to_the_model_and_the_loop_goes_on(engine):
    result = asyncio.run(run_agent(engine, [mcp_servers.failing()], "Fetch page 3.", max_steps=2, **TURN))
    assert result.stop_reason == "max_steps" and len(result.steps) == 2
    for step in result.steps:
        [call] = step.calls
        page = json.loads(call.arguments)["page"]
        assert call.is_error and call.content == f"Error executing tool fetch: network unreachable while fetching page {page}"
    tools = [m for m in result.messages if m["role"] == "tool"]
    assert [m["content"] for m in tools] == [s.calls[0].content for s in result.steps]


def test_a_server_that_dies_mid_loop_is_a_clear_error_with_the_transcript(engine, tmp_path):
    log = tmp_path / "calls.jsonl"
    with pytest.raises(ServerError) as caught, open(os.devnull, "w") as sink:
        asyncio.run(run_agent(engine, [stdio("dying", log)], "Add things.", max_steps=3, errlog=sink, **TURN))
    error = caught.value
    assert error.server == "dying" and "stopped answering during turn 2" in str(error)
    # turn 1 and its result, then turn 2's call, which got no result
    assert [m["role"] for m in error.transcript] == ["user", "assistant", "tool", "assistant"]
    assert len(logged(log)) == 2 and json.loads(error.transcript[-1]["tool_calls"][0]["function"]["arguments"]) == logged(log)[1]["arguments"]


def _turn(calls):
    """An assistant turn with these (name, arguments) calls, as the loop keeps one."""
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}} for i, (n, a) in enumerate(calls)],
    }


async def _run_turn(server, message):
    async with Agent(TransformersEngine(None, None, "deepseek_r1"), [server]) as agent:
        step, messages = Step(1, message, "tool_calls"), [message]
        await agent._run_calls(step, messages)
        return step, messages


def test_a_turns_calls_run_concurrently():
    # Each call waits for the other: run one after the other, the first would wait in vain.
    step, messages = asyncio.run(_run_turn(mcp_servers.meeting(), _turn([("meet", {"who": "ann"}), ("meet", {"who": "bob"})])))
    assert [c.content for c in step.calls] == ["met", "met"]
    assert [m.get("tool_call_id") for m in messages[1:]] == ["call_0", "call_1"]


def test_an_error_the_server_answers_a_call_with_is_the_calls_result():
    step, messages = asyncio.run(_run_turn(mcp_servers.refusing(), _turn([("lookup", {"word": "tea"})])))
    [call] = step.calls
    assert call.is_error and call.content == "error: MCPError: no dictionary for 'tea'"
    assert messages[-1] == {"role": "tool", "tool_call_id": "call_0", "content": call.content}
    # a name never offered (an endpoint's parser may read one): an error result too
    step, messages = asyncio.run(_run_turn(mcp_servers.refusing(), _turn([("define", {"word": "tea"})])))
    assert step.calls[0].is_error and messages[-1]["content"] == "error: LookupError: no tool named 'define' is offered (lookup)"


def test_a_schema_the_grammar_cannot_enforce_is_refused_up_front_or_relaxed():
    engine = TransformersEngine(None, None, "deepseek_r1")  # never asked to generate

    async def connect(**options):
        async with Agent(engine, [mcp_servers.unenforceable()], **options) as agent:
            return agent.toolset

    with pytest.raises(ToolSchemaError) as caught:
        asyncio.run(connect())
    assert "MCP server 'odd', tool 'pick'" in str(caught.value) and "multipleOf" in str(caught.value)
    assert [t["function"]["name"] for t in asyncio.run(connect(unsupported="relax")).tools] == ["pick"]


def test_a_server_that_cannot_be_reached_is_named():
    engine = TransformersEngine(None, None, "deepseek_r1")
    port = free_port()
    # a process that exits before it answers, and a port nobody listens on
    for server, label in [([sys.executable, str(SCRIPT), "nosuchserver"], "mcp_servers"), (f"http://127.0.0.1:{port}/mcp", f"127_0_0_1_{port}")]:
        with pytest.raises(ServerError) as caught, open(os.devnull, "w") as sink:
            asyncio.run(run_agent(engine, [server], "x", errlog=sink))
        assert caught.value.server == label and str(caught.value).startswith(f"MCP server {label!r} could not be reached: ")


def test_the_openai_engine_sends_thinkgates_options_as_vllm_reads_them():
    engine = OpenAIEngine("http://127.0.0.1:1/v1", "tiny", "deepseek_v3_1")
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    request = ChatRequest(messages=[{"role": "user", "content": "x"}], tools=tools, tool_choice="required", thinking=True, thinking_budget=16, strict=1, max_tokens=50)
    body = engine.body(request, "relax")
    assert body["vllm_xargs"] == {"thinkgate_thinking_budget": 16, "thinkgate_unsupported": "relax", "thinkgate_strict": 1}
    assert body["chat_template_kwargs"] == {"thinking": True} and body["tool_choice"] == "required"
    assert body["tools"] == tools and body["model"] == "tiny" and body["max_tokens"] == 50


def test_the_command_line_prints_each_turn_and_writes_the_transcript(model_path, tmp_path, capsys):
    out = tmp_path / "transcript.json"
    calc = f"{sys.executable} {SCRIPT} calc"
    args = ["agent", "--model", str(model_path), "--mcp", calc, "--tool-choice", "required", "--thinking", "on", "--thinking-budget", "4", "--max-tokens", "100", "--seed", "0"]
    assert main([*args, "--max-steps", "1", "--json", str(out), "What is 2 + 2?"]) == 0
    printed = capsys.readouterr().out
    assert "tools: calculate (calc)" in printed and "[turn 1]" in printed and "reasoning (" in printed
    assert "no answer: the step limit (1 turns) was reached" in printed
    messages = json.loads(out.read_text())
    # (the sampled turn may call once or several times: a tool message answers each call, in order)
    calls = messages[1]["tool_calls"]
    assert [m["role"] for m in messages] == ["user", "assistant"] + ["tool"] * len(calls) and calls and messages[0]["content"] == "What is 2 + 2?"
    for call, result in zip(calls, messages[2:]):
        assert f"call calculate({json.dumps(json.loads(call['function']['arguments']))})" in printed
        assert f"    -> {result['content']}" in printed and result["tool_call_id"] == call["id"]
    # a schema the grammar cannot enforce: refused before the model loads, one line, status 2
    assert main(["agent", "--model", str(model_path), "--mcp", f"{sys.executable} {SCRIPT} odd", "x"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("thinkgate agent: error: MCP server 'odd', tool 'pick'") and "multipleOf" in err and "Traceback" not in err
    assert "or pass --unsupported relax to drop it" in err  # (as the command line takes it)


class RecordedOutputs:
    """Kimi-K2 outputs as a model wrote them, read by thinkgate's parser turn after turn (the
    tiny model speaks DeepSeek's markup only); the requests it was given are kept."""

    def __init__(self, outputs):
        from thinkgate.formats import get_format

        self.format = get_format("kimi_k2")
        self.outputs = list(outputs)
        self.requests = []

    def complete(self, request, unsupported="error"):
        from thinkgate.parsing import StreamParser

        self.requests.append(request)
        parser = StreamParser(self.format, thinking="auto", tools=request.tools)
        parser.feed(self.outputs.pop(0))
        parser.finish()
        return parser.message.to_openai_choice()


def test_call_ids_round_trip_as_the_template_writes_them():
    from test_detect import KIMI_K2_LIKE
    import jinja2

    calls = (
        '<|tool_calls_section_begin|><|tool_call_begin|>functions.calculate:0<|tool_call_argument_begin|>{"op": "add", "a": 2, "b": 3}<|tool_call_end|>'
        '<|tool_call_begin|>functions.calculate:1<|tool_call_argument_begin|>{"op": "mul", "a": 4, "b": 5}<|tool_call_end|><|tool_calls_section_end|>'
    )
    engine = RecordedOutputs(["<think>Two sums.</think>" + calls, "<think>Done.</think>5 and 20."])
    seen = []
    result = asyncio.run(run_agent(engine, [mcp_servers.calculator(seen=seen)], "Add 2 and 3; multiply 4 by 5."))
    assert result.stop_reason == "answer" and result.answer == "5 and 20."
    # (a turn's calls run concurrently: the order they reach the server is the scheduler's)
    assert sorted(seen, key=lambda call: call[1]["op"]) == [("calculate", {"op": "add", "a": 2, "b": 3}), ("calculate", {"op": "mul", "a": 4, "b": 5})]
    # the second turn's prompt: the calls exactly as the model wrote them, each result under its id
    prompt = jinja2.Environment().from_string(KIMI_K2_LIKE).render(messages=engine.requests[1].messages, add_generation_prompt=True)
    assert calls in prompt
    # (the test template writes a backslash and an n between the id and the result)
    assert "## Return of functions.calculate:0\\n5<|im_end|>" in prompt and "## Return of functions.calculate:1\\n20<|im_end|>" in prompt


@pytest.mark.slow
def test_the_openai_engine_over_http(engine):
    """OpenAIEngine against a real HTTP endpoint on 127.0.0.1 that answers as vLLM's server with
    thinkgate's plugins answers: the options read from vllm_xargs and chat_template_kwargs, the
    turn generated by thinkgate (here its transformers engine: vLLM is not installed in this
    environment), the reasoning sent back under vLLM's newer name, "reasoning"."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from thinkgate.integrations.transformers import generate_chat

    bodies = []

    class ChatCompletions(BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            bodies.append(body)
            xargs, kwargs = body.get("vllm_xargs", {}), body.get("chat_template_kwargs", {})
            request = ChatRequest(
                **{k: body[k] for k in ("messages", "tools", "tool_choice", "parallel_tool_calls", "max_tokens", "temperature", "top_p", "seed", "model")},
                thinking=kwargs.get("thinking"),
                thinking_budget=xargs.get("thinkgate_thinking_budget"),
                strict=xargs.get("thinkgate_strict"),
            )
            [completion] = generate_chat(engine.model, engine.tokenizer, [request], format="deepseek_r1", unsupported=xargs.get("thinkgate_unsupported", "error"))
            message = completion["choices"][0]["message"]
            message["reasoning"] = message.pop("reasoning_content", None)
            data = json.dumps(completion).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), ChatCompletions)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        remote = OpenAIEngine(f"http://127.0.0.1:{server.server_address[1]}/v1", "tiny", "deepseek_r1")
        seen = []
        result = asyncio.run(run_agent(remote, [mcp_servers.calculator(seen=seen)], "What is 3 + 4?", max_steps=2, **TURN))
    finally:
        server.shutdown()
    assert len(bodies) == 2 and bodies[0]["vllm_xargs"] == {"thinkgate_thinking_budget": 4, "thinkgate_strict": 2}
    assert bodies[0]["chat_template_kwargs"] == {"thinking": True, "enable_thinking": True}  # (R1's template names no keyword)
    assert bodies[1]["messages"] == result.messages[:3]
    calls = valid_calls(result, Toolset(bodies[0]["tools"], {}))
    assert seen == [(c.tool, a) for c, a in calls] and len(calls) == 2
    assert all(s.message.get("reasoning_content") for s in result.steps)
