"""``thinkgate agent`` as a user runs it, in a process of its own: Ctrl-C keeps the transcript
(issue 34, point 3); MCP servers started as Claude Desktop and Cursor start them (point 11)."""

import json
import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest

from thinkgate.demo import build_tiny_model

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tests" / "mcp_servers.py"
# one call per turn, a short thinking: a turn of the tiny model takes a second or two
TURN = ["--tool-choice", "required", "--thinking", "on", "--thinking-budget", "4", "--max-tokens", "100", "--seed", "0"]
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": "1"}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return build_tiny_model(tmp_path_factory.mktemp("model") / "tiny")


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
