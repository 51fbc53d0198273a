"""``thinkgate generate`` end to end on a small JSONL file that holds a bad line; the example."""

import json
import pathlib
import subprocess
import sys

import jsonschema

from thinkgate.cli import main
from thinkgate.demo import build_tiny_model

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_generate_writes_completions_and_reports_the_bad_line(tmp_path, capsys):
    model = build_tiny_model(tmp_path / "tiny")
    lines = (ROOT / "examples" / "requests.jsonl").read_text().splitlines()
    bad = [
        '{"messages": [{"role": "user", "content": "x"}], "tool_choice": "sometimes"}',
        "not json at all",
        '{"messages": [{"role": "user", "content": "x"}], "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"a": {"not": {}}}}}}], "tool_choice": "required"}',
    ]
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join([lines[0], bad[0], lines[1], bad[1], bad[2], lines[2]]) + "\n")
    out = tmp_path / "out.jsonl"
    status = main(["generate", "--model", str(model), "--input", str(src), "--output", str(out), "--batch-size", "2"])
    stderr = capsys.readouterr().err
    assert status == 1, stderr
    assert "line 2: tool_choice" in stderr
    assert "line 4: " in stderr and "line 5: tool 'f': keyword 'not'" in stderr
    assert "3 responses written; 3 line(s) failed" in stderr
    results = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["id"] for r in results] == ["weather-1", "alarm-1", "chat-1"]
    for r, line in zip(results, [lines[0], lines[1], lines[2]]):
        request = json.loads(line)
        choice = r["choices"][0]
        assert r["object"] == "chat.completion" and set(r["usage"]) == {"prompt_tokens", "completion_tokens", "total_tokens"}
        schemas = {t["function"]["name"]: t["function"]["parameters"] for t in request.get("tools", [])}
        for call in choice["message"].get("tool_calls") or []:
            jsonschema.validate(json.loads(call["function"]["arguments"]), schemas[call["function"]["name"]])
        if request["tool_choice"] != "none":
            assert choice["finish_reason"] == "tool_calls"


def test_demo_runs_and_every_call_validates(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("THINKGATE_CACHE", str(tmp_path))
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "4 calls from random weights, 4 valid against their schemas, 0 failures" in out
    assert out.count("-> valid") == 4


def test_cli_help_and_module_entry():
    proc = subprocess.run([sys.executable, "-m", "thinkgate", "--help"], capture_output=True, text=True)
    assert proc.returncode == 0 and "demo" in proc.stdout and "generate" in proc.stdout


def test_formats_and_inspect(tmp_path, capsys):
    assert main(["formats"]) == 0
    out = capsys.readouterr().out
    assert "deepseek_r1" in out and "deepseekv31" in out and "qwen3" in out
    from schemas import REALISTIC

    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(REALISTIC))
    for fmt in ("deepseek_r1", "deepseek_v3_1"):
        assert main(["inspect", "--format", fmt, "--tools", str(tools)]) == 0
        out = capsys.readouterr().out
        assert '"type": "structural_tag"' in out
        assert "the grammar accepts it, token by token: yes" in out
    assert main(["inspect", "--format", "deepseek_r1", "--tools", str(tools), "--tokenizer", "", "--single-call", "--tool-choice", '{"type": "function", "function": {"name": "set_alarm"}}']) == 0
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"a": {"not": {}}}}}}]))
    assert main(["inspect", "--format", "deepseek_r1", "--tools", str(bad)]) == 1
    assert "keyword 'not'" in capsys.readouterr().err


def test_inspect_gpt_oss_with_its_own_vocabulary(tmp_path, capsys, harmony_tokenizer):
    from schemas import REALISTIC

    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(REALISTIC))
    harmony_tokenizer.save_pretrained(tmp_path / "tok")
    for tokenizer in (str(tmp_path / "tok"), "deepseek"):
        assert main(["inspect", "--format", "gpt_oss", "--tools", str(tools), "--tool-choice", "required", "--tokenizer", tokenizer]) == 0
        out = capsys.readouterr().out
        assert "<|start|>assistant<|channel|>commentary to=functions." in out
        assert "the grammar accepts it, token by token: yes" in out


def test_detect_reads_a_template_file_a_tokenizer_config_or_a_model_directory(tmp_path, capsys):
    from thinkgate.formats.templates import chat_template

    jinja = tmp_path / "r1.jinja"
    jinja.write_text(chat_template("deepseek_r1"))
    assert main(["detect", str(jinja)]) == 0
    out = capsys.readouterr().out
    assert "format: deepseek_r1" in out and "output starts inside reasoning" in out
    model = tmp_path / "model"
    model.mkdir()
    (model / "tokenizer_config.json").write_text(json.dumps({"chat_template": [{"name": "default", "template": chat_template("deepseek_v3_1")}]}))
    assert main(["detect", str(model)]) == 0
    assert "format: deepseek_v3_1" in capsys.readouterr().out
    (tmp_path / "none.json").write_text("{}")
    assert main(["detect", str(tmp_path / "none.json")]) == 1
    assert "has no chat_template" in capsys.readouterr().err
    (tmp_path / "plain.jinja").write_text("{% for m in messages %}{{ m.content }}{% endfor %}")
    assert main(["detect", str(tmp_path / "plain.jinja")]) == 1
    assert "renders no tool calls" in capsys.readouterr().err
