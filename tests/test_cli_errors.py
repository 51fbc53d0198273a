"""Issue 34, points 6-8: a mistake in any subcommand is one line, ``thinkgate SUBCOMMAND: error: …``,
status 2, found before anything slow (a model, a tokenizer, an MCP server) is loaded or reached,
with advice spelled as the command line takes it. Run as a user runs them: ``python -m thinkgate``
in a process of its own (this checkout's code, whatever is installed)."""

import importlib.util
import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
HELLO = [{"role": "user", "content": "Say hello."}]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    from thinkgate.demo import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("model") / "tiny")


def thinkgate(*argv, timeout=120, **env):
    """``python -m thinkgate ARGV`` in a child process importing this checkout: (status, stdout, stderr)."""
    run = subprocess.run(
        [sys.executable, "-m", "thinkgate", *map(str, argv)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
    )
    return run.returncode, run.stdout, run.stderr


def one_error_line(err, command):
    """The whole of stderr is one line: the command's error."""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"thinkgate {command}: error: "), err
    return lines[0]


@pytest.mark.skipif(importlib.util.find_spec("vllm") is not None, reason="vLLM is installed here")
def test_engine_vllm_without_vllm_is_one_line_with_an_install_that_works(tiny, tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"messages": HELLO}) + "\n")
    # (the agent's model and MCP server do not exist: the missing engine is said first)
    for command, argv in [
        ("generate", ["generate", "--engine", "vllm", "--model", tiny, "--input", src]),
        ("agent", ["agent", "--engine", "vllm", "--model", tmp_path / "no-model", "--mcp", "no-such-server-command", "What is 2 + 2?"]),
    ]:
        status, out, err = thinkgate(*argv)
        assert status == 2 and out == ""
        line = one_error_line(err, command)
        assert line.endswith('--engine vllm needs vllm, which is not installed: pip install -e ".[vllm]" in thinkgate\'s checkout (or pip install vllm)')
