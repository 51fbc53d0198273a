"""``--prompt-lookup`` and ``--assistant-model`` on ``thinkgate generate`` (and ``agent``): the
answers of greedy requests are those generated without drafts, with OpenAI's counts of accepted
and rejected predictions; every mistake is one line, before the model loads."""

import json
import os
import pathlib
import subprocess
import sys

import pytest

from thinkgate.cli import main
from thinkgate.demo import build_tiny_model

ROOT = pathlib.Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return build_tiny_model(tmp_path_factory.mktemp("model") / "tiny")


def _greedy_lines():
    """The example requests with tools, greedy and short."""
    lines = []
    for text in (ROOT / "examples" / "requests.jsonl").read_text().splitlines():
        body = json.loads(text)
        if body.get("tools"):
            body.update(temperature=0, max_tokens=min(body.get("max_tokens", 96), 96))
            lines.append(json.dumps(body))
    return lines[:2]


def _said(answers):
    out = []
    for a in answers:
        choice = a["choices"][0]
        message = {k: v for k, v in choice["message"].items() if k != "tool_calls"}
        calls = [(c["function"]["name"], c["function"]["arguments"]) for c in choice["message"].get("tool_calls") or []]
        out.append((message, calls, choice["finish_reason"], a["usage"]["completion_tokens"]))
    return out


def test_drafted_answers_are_the_plain_ones_with_predictions_counted(tiny, tmp_path, capsys):
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join(_greedy_lines()) + "\n")
    plain = tmp_path / "plain.jsonl"
    assert main(["generate", "--model", str(tiny), "--input", str(src), "--output", str(plain), "--output-format", "chat", "--drafts", "off", "--quiet"]) == 0
    expected = [json.loads(x) for x in plain.read_text().splitlines()]
    # prompt lookup, as a user runs it: the command in a process of its own
    looked = tmp_path / "lookup.jsonl"
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    run = subprocess.run([sys.executable, "-m", "thinkgate", "generate", "--model", str(tiny), "--input", str(src), "--output", str(looked), "--output-format", "chat", "--prompt-lookup", "3", "--quiet"], capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    drafted = [json.loads(x) for x in looked.read_text().splitlines()]
    # an assistant model: the same model drafts (every draft it makes is the model's own pick)
    assisted = tmp_path / "assisted.jsonl"
    assert main(["generate", "--model", str(tiny), "--input", str(src), "--output", str(assisted), "--output-format", "chat", "--assistant-model", str(tiny), "--quiet"]) == 0
    helped = [json.loads(x) for x in assisted.read_text().splitlines()]
    assert _said(drafted) == _said(expected) and _said(helped) == _said(expected)
    reasoning = [a["usage"]["completion_tokens_details"]["reasoning_tokens"] for a in expected]
    for answers in (drafted, helped):
        details = [a["usage"]["completion_tokens_details"] for a in answers]
        assert all(set(d) == {"reasoning_tokens", "accepted_prediction_tokens", "rejected_prediction_tokens"} for d in details)
        assert sum(d["accepted_prediction_tokens"] for d in details) > 0
        # (the counts of predictions merged with the reasoning's, which drafting leaves as it was)
        assert [d["reasoning_tokens"] for d in details] == reasoning
    assert all(set(a["usage"]["completion_tokens_details"]) == {"reasoning_tokens"} for a in expected)


def test_drafting_mistakes_are_one_line_before_the_model_loads(tiny, tmp_path, capsys, monkeypatch):
    import thinkgate.demo

    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}], "max_tokens": 2}) + "\n")
    base = ["generate", "--model", str(tiny), "--input", str(src), "--output", str(tmp_path / "out.jsonl")]
    calls = []
    real_load = thinkgate.demo.load
    monkeypatch.setattr(thinkgate.demo, "load", lambda path: calls.append(path) or real_load(path))
    cases = [
        (["--engine", "vllm", "--prompt-lookup", "3"], "--prompt-lookup is for --engine transformers"),
        (["--engine", "vllm", "--assistant-model", str(tiny)], "--assistant-model is for --engine transformers"),
        (["--prompt-lookup", "0"], "--prompt-lookup 0: draft at least 1 token"),
        (["--assistant-model", str(tmp_path / "nowhere")], f"model directory {tmp_path / 'nowhere'} does not exist"),
    ]
    for extra, message in cases:
        calls.clear()
        assert main([*base, *extra]) == 2, extra
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err, err
        assert len(calls) <= 1  # (the model itself, at most: the assistant's mistake is found before it)
    with pytest.raises(SystemExit):  # argparse: one way of drafting
        main([*base, "--prompt-lookup", "2", "--assistant-model", str(tiny)])
    assert "not allowed with argument" in capsys.readouterr().err


def test_an_assistant_of_another_tokenizer_is_refused(tiny, tmp_path, capsys):
    from thinkgate.tokenizers import family_tokenizer
    from transformers import LlamaConfig, LlamaForCausalLM

    qwen = family_tokenizer("qwen")
    other = tmp_path / "other"
    LlamaForCausalLM(LlamaConfig(vocab_size=len(qwen), hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=1, num_key_value_heads=1)).save_pretrained(other)
    qwen.save_pretrained(other)
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}], "max_tokens": 2}) + "\n")
    assert main(["generate", "--model", str(tiny), "--input", str(src), "--output", str(tmp_path / "out.jsonl"), "--assistant-model", str(other)]) == 2
    err = capsys.readouterr().err
    assert "has another tokenizer than the model" in err and "Traceback" not in err


@pytest.mark.parametrize("batch", ["1", "8"])
def test_forced_drafts_are_on_by_default_and_off_on_request(tiny, tmp_path, batch):
    """A batch of one request and the default batch: the tokens the grammar decides are drafted
    (issue 37), the answers those of ``--drafts off``, with the predictions counted; a wrong
    value is one line."""
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join(_greedy_lines()) + "\n")
    outputs = {}
    for drafts in ("on", "off"):
        out = tmp_path / f"{drafts}.jsonl"
        assert main(["generate", "--model", str(tiny), "--input", str(src), "--output", str(out), "--output-format", "chat", "--batch-size", batch, "--drafts", drafts, "--quiet"]) == 0
        outputs[drafts] = [json.loads(x) for x in out.read_text().splitlines()]
    assert _said(outputs["on"]) == _said(outputs["off"])
    assert all(a["usage"]["completion_tokens_details"]["accepted_prediction_tokens"] > 0 for a in outputs["on"])
    assert all(set(a["usage"]["completion_tokens_details"]) == {"reasoning_tokens"} for a in outputs["off"])
    run = subprocess.run([sys.executable, "-m", "thinkgate", "generate", "--model", str(tiny), "--input", str(src), "--output", str(tmp_path / "x.jsonl"), "--drafts", "maybe"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "--drafts" in run.stderr and "Traceback" not in run.stderr
