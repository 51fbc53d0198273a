"""``thinkgate agent`` as a user runs it, in a process of its own: Ctrl-C keeps the transcript
(issue 34, point 3); MCP servers started as Claude Desktop and Cursor start them (point 11)."""

import json
import os
import pathlib
import signal
import subprocess
import sys

import pytest

from helpers import free_port, serving_http
from thinkgate.demo import build_tiny_model

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tests" / "mcp_servers.py"
# one call per turn, a short thinking: a turn of the tiny model takes a second or two
TURN = ["--tool-choice", "required", "--thinking", "on", "--thinking-budget", "4", "--max-tokens", "100", "--seed", "0"]
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": "1"}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a model this small runs faster on one thread than on two busy ones
    yield build_tiny_model(tmp_path_factory.mktemp("model") / "tiny")
    torch.set_num_threads(threads)


def test_ctrl_c_keeps_the_transcript_so_far(tiny, tmp_path):
    transcript = tmp_path / "transcript.json"
    argv = [sys.executable, "-m", "thinkgate", "agent", "--model", str(tiny), "--mcp", f"{sys.executable} {SCRIPT} calc", *TURN, "--max-steps", "50", "--json", str(transcript), "What is 2 + 2?"]
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    printed = []
    for text in child.stdout:  # the turns as they are printed, up to turn 2's call's result
        printed.append(text)
        if text.startswith("    -> ") and any(p.startswith("[turn 2]") for p in printed):
            break
    else:
        pytest.fail(f"the agent ended before its second turn: {child.communicate()}")
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=60)
    assert child.returncode == 130, err
    messages = json.loads(transcript.read_text())
    assert err.splitlines()[-2:] == ["thinkgate agent: interrupted", f"the transcript so far ({len(messages)} messages) is in {transcript}"]
    # the question, then every turn that ran: its calls, each answered by a tool message
    assert messages[0] == {"role": "user", "content": "What is 2 + 2?"} and len(messages) >= 5
    assert [m["role"] for m in messages[1:5]] == ["assistant", "tool", "assistant", "tool"]
    for turn, result in ((messages[1], messages[2]), (messages[3], messages[4])):
        assert result["tool_call_id"] == turn["tool_calls"][0]["id"]
        assert f"    -> {result['content']}\n" in printed


# --- issue 34, point 11: MCP servers started as Claude Desktop, Cursor and the SDK's examples start them

# (imported before any test captures stderr: the SDK binds a stdio server's stderr at import)
import mcp.client.stdio  # noqa: E402,F401

from thinkgate.cli import main  # noqa: E402

ONE_TURN = [*TURN, "--max-steps", "1", "--quiet"]


def logged(path):
    return [json.loads(x) for x in pathlib.Path(path).read_text().splitlines()] if pathlib.Path(path).exists() else []


def test_a_stdio_server_sees_the_environment_it_is_given_and_no_more(tiny, tmp_path, monkeypatch, capsys):
    calc = f"{sys.executable} {SCRIPT} calc"
    leaked, given = tmp_path / "leaked.jsonl", tmp_path / "given.jsonl"
    monkeypatch.setenv("MCP_TEST_LOG", str(leaked))  # this process's: not the server's
    assert main(["agent", "--model", str(tiny), "--mcp", calc, *ONE_TURN, "What is 2 + 2?"]) == 0
    assert not leaked.exists()
    assert capsys.readouterr().err == ""  # (--quiet: no loading bar either, issue 34 point 13)
    assert main(["agent", "--model", str(tiny), "--mcp", calc, "--env", f"MCP_TEST_LOG={given}", *ONE_TURN, "What is 2 + 2?"]) == 0
    [call] = logged(given)
    assert call["server"] == "calc" and call["tool"] == "calculate"
    assert main(["agent", "--model", str(tiny), "--mcp", calc, "--env", "MCP_TEST_LOG", "q"]) == 2
    assert capsys.readouterr().err.endswith("thinkgate agent: error: --env 'MCP_TEST_LOG' is not KEY=VALUE\n")


@pytest.fixture
def keyed_server(tmp_path):
    """A key-value server on 127.0.0.1 that wants ``Authorization: Bearer s3cret``."""
    port = free_port()
    log = tmp_path / "http_calls.jsonl"
    env = {**os.environ, "MCP_TEST_LOG": str(log), "PYTHONPATH": str(ROOT / "tests")}
    with serving_http([sys.executable, str(ROOT / "tests" / "mcp_header_server.py"), "s3cret", str(port)], env, port):
        yield f"http://127.0.0.1:{port}/mcp", log


def test_http_servers_get_headers_and_a_config_file_starts_servers_as_claude_desktop_does(tiny, tmp_path, keyed_server, capsys):
    url, http_log = keyed_server
    # without its key the server cannot be reached; with --header it can
    assert main(["agent", "--model", str(tiny), "--mcp", url, *ONE_TURN, "Remember my name."]) == 1
    assert "could not be reached" in capsys.readouterr().err
    assert main(["agent", "--model", str(tiny), "--mcp", url, "--header", "Authorization: Bearer s3cret", *ONE_TURN, "Remember my name."]) == 0
    assert logged(http_log) and all(c["server"] == "kv" for c in logged(http_log))
    capsys.readouterr()
    calc_log = tmp_path / "calc_calls.jsonl"
    config = tmp_path / "claude_desktop_config.json"
    config.write_text(json.dumps({"mcpServers": {
        "numbers": {"command": sys.executable, "args": [str(SCRIPT), "calc"], "env": {"MCP_TEST_LOG": str(calc_log)}},
        "notes": {"url": url, "headers": {"Authorization": "Bearer s3cret"}},
        "off": {"command": "no-such-server-command", "disabled": True},
    }}))
    choice = json.dumps({"type": "function", "function": {"name": "calculate"}})
    assert main(["agent", "--model", str(tiny), "--mcp-config", str(config), *TURN, "--tool-choice", choice, "--max-steps", "1", "What is 2 + 2?"]) == 0
    # each server under its name in the file (not the one it gives itself), the disabled one not started
    assert capsys.readouterr().out.startswith("tools: calculate (numbers), put (notes), count (notes)\n")
    assert logged(calc_log) and all(c["tool"] == "calculate" for c in logged(calc_log))


@pytest.mark.parametrize(
    "config, message",
    [
        ({"servers": {}}, 'has no "mcpServers" object'),
        ({"mcpServers": {"a": {"args": ["x"]}}}, "mcpServers.a.command must be a program to run, not None"),
        ({"mcpServers": {"a": {"command": "x", "env": {"N": 1}}}}, "mcpServers.a.env must be an object of strings"),
        ({"mcpServers": {"a": {"url": "ftp://x"}}}, "mcpServers.a.url must be an http(s):// URL, not 'ftp://x'"),
        ({"mcpServers": {"a": {"url": "http://x/sse", "type": "sse"}}}, "mcpServers.a: the SSE transport is not supported (Streamable HTTP is)"),
    ],
)
def test_a_config_files_mistake_is_named(tmp_path, capsys, config, message):
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(config))
    assert main(["agent", "--model", "served", "--engine", "openai", "--base-url", "http://127.0.0.1:1/v1", "--mcp-config", str(path), "q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"thinkgate agent: error: {path}") and message in err, err
