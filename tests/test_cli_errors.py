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

# (imported here, not under a test's captured stderr: the SDK binds a stdio server's stderr at import)
import mcp.client.stdio  # noqa: F401

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


SCRIPT = ROOT / "tests" / "mcp_servers.py"


@pytest.fixture
def no_model_load(monkeypatch):
    import thinkgate.demo

    def refuse(path):
        raise AssertionError("the model was loaded before the mistake was found")

    monkeypatch.setattr(thinkgate.demo, "load_model", refuse, raising=False)


def test_a_format_the_tokenizer_cannot_write_is_refused_before_servers_and_model(tiny, tmp_path, capsys, no_model_load):
    from thinkgate.cli import main

    # the agent: the MCP server named does not exist, so reaching it first would say so
    assert main(["agent", "--model", str(tiny), "--format", "qwen3", "--mcp", "no-such-server-command", "What is 2 + 2?"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"thinkgate agent: error: --format qwen3 does not fit {tiny}'s tokenizer: the tokenizer has no single token for ")
    # generate, with a template of its own (so that only the markers are wrong)
    (tmp_path / "qwen3.jinja").write_text("{% for m in messages %}{{ m.content }}{% endfor %}")
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"messages": HELLO}) + "\n")
    assert main(["generate", "--model", str(tiny), "--format", "qwen3", "--chat-template", str(tmp_path / "qwen3.jinja"), "--input", str(src), "--output", str(tmp_path / "out.jsonl")]) == 2
    assert f"thinkgate generate: error: --format qwen3 does not fit {tiny}'s tokenizer" in capsys.readouterr().err
    assert not (tmp_path / "out.jsonl").exists()


def test_agent_mistakes_are_found_before_servers_or_the_model(tiny, capsys, no_model_load):
    from thinkgate.cli import main

    assert main(["agent", "--engine", "openai", "--model", "served", "--mcp", "no-such-server-command", "q"]) == 2
    assert capsys.readouterr().err == "thinkgate agent: error: --engine openai needs --base-url (e.g. http://127.0.0.1:8000/v1)\n"
    assert main(["agent", "--model", str(tiny), "--prompt-lookup", "0", "--mcp", "no-such-server-command", "q"]) == 2
    assert "--prompt-lookup 0: draft at least 1 token" in capsys.readouterr().err
    # a function no server offers: said once the servers have listed their tools, before the model loads
    choice = json.dumps({"type": "function", "function": {"name": "divide"}})
    assert main(["agent", "--model", str(tiny), "--mcp", f"{sys.executable} {SCRIPT} calc", "--tool-choice", choice, "--quiet", "q"]) == 2
    assert capsys.readouterr().err == "thinkgate agent: error: --tool-choice: tool_choice names the function 'divide', which is not among the tools (calculate)\n"


def test_inspect_refuses_a_schema_before_it_loads_a_tokenizer(tmp_path, capsys, monkeypatch):
    import thinkgate.tokenizers
    from thinkgate.cli import main

    def refuse(name):
        raise AssertionError("the tokenizer was loaded before the schema was refused")

    monkeypatch.setattr(thinkgate.tokenizers, "family_tokenizer", refuse)
    bad = tmp_path / "tools.json"
    bad.write_text(json.dumps([{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"a": {"not": {}}}}}}]))
    assert main(["inspect", "--format", "deepseek_r1", "--tools", str(bad), "--tokenizer", "deepseek"]) == 2
    assert capsys.readouterr().err.startswith("thinkgate inspect: error: tool 'f': keyword 'not' at #/properties/a cannot be enforced")


def test_generate_says_errors_and_warnings_the_command_lines_way(tiny, tmp_path):
    """Issue 34, point 8: each line's error and warning names its line, behind ``thinkgate
    generate:``; the advice is ``--unsupported relax``, which generate takes, and a keyword it
    drops is warned of once, with the lines it concerns."""
    odd = [{"type": "function", "function": {"name": "count", "parameters": {"type": "object", "properties": {"n": {"type": "integer", "multipleOf": 3}}}}}]
    line = {"messages": HELLO, "tools": odd, "tool_choice": "required", "thinking": False, "max_tokens": 4, "temperature": 0}
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join([json.dumps(line), "{oops", json.dumps(line)]) + "\n")
    out = tmp_path / "out.jsonl"
    status, _, err = thinkgate("generate", "--model", tiny, "--input", src, "--output", out, "--quiet")
    assert status == 1
    said = err.splitlines()
    assert said[0] == "thinkgate generate: error: line 1: tool 'count': keyword 'multipleOf' at #/properties/n cannot be enforced by thinkgate; remove it, or pass --unsupported relax to drop it"
    assert said[1].startswith("thinkgate generate: error: line 2: not JSON")
    assert said[2].startswith("thinkgate generate: error: line 3: tool 'count'")
    answers = [json.loads(x) for x in out.read_text().splitlines()]
    assert "--unsupported relax" in answers[0]["error"]["message"] and "unsupported='relax'" not in answers[0]["error"]["message"]
    status, _, err = thinkgate("generate", "--model", tiny, "--input", src, "--output", out, "--quiet", "--unsupported", "relax")
    assert status == 1
    assert err.splitlines()[0] == "thinkgate generate: warning: lines 1, 3: tool 'count': keyword 'multipleOf' at #/properties/n is not enforced (dropped, --unsupported relax)"
    assert err.count("multipleOf") == 1  # (not again as the grammar is compiled for generation)
    answers = [json.loads(x) for x in out.read_text().splitlines()]
    assert answers[0]["error"] is None and answers[2]["error"] is None
