"""Issue 34, points 12 and 13: ``thinkgate generate`` reads the format from the chat template
(``--format auto``, the default) and says which; its bar shows output tokens a second and failed
lines; its last line sums up finish reasons and failures; each answer's usage counts its reasoning
tokens as OpenAI reports a reasoning model's; ``--quiet`` silences transformers' bars everywhere."""

import json

import pytest

from thinkgate.cli import main
from thinkgate.demo import DEMO_TOOLS, build_tiny_model

HELLO = [{"role": "user", "content": "What's the weather in Paris?"}]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return build_tiny_model(tmp_path_factory.mktemp("model") / "tiny")


def generate(tmp_path, model, bodies, *extra):
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text("\n".join(b if isinstance(b, str) else json.dumps(b) for b in bodies) + "\n")
    status = main(["generate", "--model", str(model), "--input", str(src), "--output", str(out), "--output-format", "chat", *extra])
    return status, [json.loads(x) for x in out.read_text().splitlines()] if out.exists() else None


def test_usage_counts_reasoning_tokens_as_openai_reports_them(tiny, tmp_path, capsys):
    base = {"messages": HELLO, "tools": DEMO_TOOLS, "tool_choice": "required", "max_tokens": 60, "temperature": 0}
    bodies = [{**base, "thinking": True, "thinking_budget": 5}, {**base, "thinking": True, "thinking_budget": 11}, {**base, "thinking": False}]
    status, answers = generate(tmp_path, tiny, bodies, "--quiet")
    assert status == 0
    counted = [a["usage"]["completion_tokens_details"]["reasoning_tokens"] for a in answers]
    # the tiny model never ends its thinking itself: the budget does, after exactly that many tokens
    assert counted == [5, 11, 0]
    for a in answers[:2]:
        assert a["choices"][0]["message"]["reasoning_content"] and a["usage"]["completion_tokens"] > a["usage"]["completion_tokens_details"]["reasoning_tokens"]
    assert answers[2]["choices"][0]["message"].get("reasoning_content") is None


def test_the_format_is_read_from_the_chat_template_and_said(tiny, tmp_path, capsys):
    from thinkgate.formats.templates import chat_template

    request = {"messages": HELLO, "thinking": False, "max_tokens": 3, "temperature": 0}
    status, [answer] = generate(tmp_path, tiny, [request])
    assert status == 0
    assert f"format: deepseek_r1, read from {tiny}'s chat template (--format to choose another)" in capsys.readouterr().err
    (tmp_path / "v31.jinja").write_text(chat_template("deepseek_v3_1"))
    assert generate(tmp_path, tiny, [request], "--chat-template", str(tmp_path / "v31.jinja"))[0] == 0
    assert f"format: deepseek_v3_1, read from --chat-template {tmp_path / 'v31.jinja'}" in capsys.readouterr().err
    (tmp_path / "plain.jinja").write_text("{% for m in messages %}{{ m.content }}{% endfor %}")
    assert generate(tmp_path, tiny, [request], "--chat-template", str(tmp_path / "plain.jinja"))[0] == 2
    err = capsys.readouterr().err
    assert err.startswith(f"thinkgate generate: error: --format auto: --chat-template {tmp_path / 'plain.jinja'}: ") and "renders no tool calls" in err
    assert err.rstrip().endswith("pass --format (thinkgate formats lists them)")
    # a format detect derives (V3.1's layout, Qwen3's thinking keyword) is one generate can use
    from test_detect import V3_1_OFFICIAL

    (tmp_path / "derived.jinja").write_text(V3_1_OFFICIAL.replace("thinking", "enable_thinking"))
    status, [answer] = generate(tmp_path, tiny, [{**request, "thinking": True}], "--chat-template", str(tmp_path / "derived.jinja"))
    assert status == 0 and answer["choices"][0]["message"]["reasoning_content"]
    assert "format: deepseek_v3_1:detected, read from --chat-template" in capsys.readouterr().err
    assert generate(tmp_path, "deepseek-ai/DeepSeek-R1", [request])[0] == 2
    assert "a Hub id (deepseek-ai/DeepSeek-R1) does not give before loading: pass --format" in capsys.readouterr().err


def test_the_bar_and_the_last_line_say_tokens_a_second_finish_reasons_and_failures(tiny, tmp_path, capsys):
    ok = {"messages": HELLO, "thinking": False, "tool_choice": "none", "max_tokens": 4, "temperature": 0}
    status, answers = generate(tmp_path, tiny, [ok, "{oops", {**ok, "max_tokens": "4"}, {**ok, "max_tokens": 6}], "--batch-size", "1")
    assert status == 1
    err = capsys.readouterr().err
    bar = [part for part in err.replace("\r", "\n").splitlines() if part.startswith("generate:")]
    # from the start, the lines refused before the model loaded; then the rate
    assert bar[0].endswith("0/2 [00:00<?, ?req/s, 0 tok/s, 2 failed]")
    assert any(" tok/s, 2 failed]" in part and "2/2" in part for part in bar)
    summary = err.splitlines()[-1]
    assert summary.startswith("2 of 4 lines answered (finish_reason length 2), 10 output tokens at ")
    assert summary.endswith(" tokens/s; 2 failed (invalid_json 1, invalid_request 1): their output lines carry the error")
