"""Issue 34, points 1 and 2: ``thinkgate generate`` keeps every answer it has written when it is
interrupted, ``--resume`` completes the rest without generating any line twice, and an output
file is whole or absent (written as OUTPUT.partial, renamed at the end; never the input)."""

import json
import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest

from thinkgate.cli import main
from thinkgate.demo import build_tiny_model

ROOT = pathlib.Path(__file__).resolve().parent.parent
HELLO = [{"role": "user", "content": "Say hello."}]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return build_tiny_model(tmp_path_factory.mktemp("model") / "tiny")


def batch_line(custom_id, **body):
    body = {"messages": HELLO, "thinking": False, "tool_choice": "none", "max_tokens": 2, "temperature": 0, **body}
    return json.dumps({"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions", "body": body})


def interrupted(argv, env, partial, lines):
    """Run ``thinkgate generate`` (``argv``) until ``partial`` holds ``lines`` answers, then press
    Ctrl-C (a real SIGINT): its stderr, once it has exited with 130."""
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 120
    while not (partial.exists() and partial.read_bytes().count(b"\n") >= lines):
        assert child.poll() is None and time.monotonic() < deadline, child.communicate()
        time.sleep(0.01)
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=60)
    assert child.returncode == 130, err
    return err


def lines_of(path):
    return path.read_bytes().splitlines(keepends=True)


def test_an_interrupted_run_keeps_its_answers_and_resume_generates_only_the_rest(tiny, tmp_path):
    """The issue's case: 20 requests, Ctrl-C (a real SIGINT) after the 11th answer: 11 lines are
    kept, and --resume generates the other 9, leaving the 11 as they were."""
    # line 12 takes a second or two, so that the signal comes while it is generated
    requests = [batch_line(f"r{k:02}", **({"max_tokens": 80} if k == 12 else {})) for k in range(1, 21)]
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text("\n".join(requests) + "\n")
    partial = tmp_path / "out.jsonl.partial"
    argv = [sys.executable, "-m", "thinkgate", "generate", "--model", str(tiny), "--input", str(src), "--output", str(out), "--batch-size", "1", "--quiet"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    err = interrupted(argv, env, partial, 11)
    assert err.splitlines()[-1] == f"thinkgate generate: interrupted: 11 of 20 lines saved in {partial}; run the same command with --resume to generate the other 9"
    assert not out.exists()  # no file by the output's name until it is whole
    kept = lines_of(partial)
    assert [json.loads(x)["custom_id"] for x in kept] == [f"r{k:02}" for k in range(1, 12)]

    resumed = subprocess.run([*argv[:-1], "--resume"], capture_output=True, text=True, env=env, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert f"resuming {partial}: 11 of 20 lines are answered there" in resumed.stderr
    assert "9 of 9 lines answered" in resumed.stderr
    done = lines_of(out)
    assert not partial.exists() and len(done) == 20
    assert done[:11] == kept  # byte for byte: each answer has its own random id, so none was redone
    answers = [json.loads(x) for x in done]
    assert [a["custom_id"] for a in answers] == [f"r{k:02}" for k in range(1, 21)]
    assert all(a["error"] is None for a in answers)
    assert answers[11]["response"]["body"]["usage"]["completion_tokens"] == 80


def test_resume_keeps_whole_lines_and_generates_a_cut_one_again(tiny, tmp_path, capsys):
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text("\n".join([batch_line("a"), batch_line("b"), "{oops", batch_line("c")]) + "\n")
    assert main(["generate", "--model", str(tiny), "--input", str(src), "--output", str(out), "--quiet"]) == 1
    whole = lines_of(out)
    # a crash while the third line was written: two whole lines and half of one
    partial = tmp_path / "out.jsonl.partial"
    partial.write_bytes(whole[0] + whole[1] + whole[2][:15])
    out.unlink()
    assert main(["generate", "--model", str(tiny), "--input", str(src), "--output", str(out), "--resume"]) == 1
    err = capsys.readouterr().err
    assert f"resuming {partial}: 2 of 4 lines are answered there" in err and "thinkgate generate: error: line 3: not JSON" in err
    done = lines_of(out)
    assert done[:2] == whole[:2] and [json.loads(x)["custom_id"] for x in done] == ["a", "b", "line-3", "c"]
    # a finished output, resumed: nothing to do, nothing loaded, the file as it was
    assert main(["generate", "--model", str(tiny), "--input", str(src), "--output", str(out), "--resume", "--quiet"]) == 0
    assert lines_of(out) == done
    # another input's output is not completed with this one's answers
    (tmp_path / "other.jsonl").write_text(batch_line("zzz") + "\n")
    assert main(["generate", "--model", str(tiny), "--input", str(tmp_path / "other.jsonl"), "--output", str(out), "--resume"]) == 2
    assert capsys.readouterr().err.endswith(f"\nthinkgate generate: error: --resume: {out} answers custom_id 'a', which the input does not hold: it is another input's output\n")
    assert lines_of(out) == done


def test_bare_completions_resume_by_position(tiny, tmp_path, capsys):
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    bodies = [json.dumps({"messages": HELLO, "thinking": False, "max_tokens": 2, "temperature": 0, "id": f"q{k}"}) for k in range(3)]
    src.write_text("\n".join(bodies) + "\n")
    assert main(["generate", "--model", str(tiny), "--input", str(src), "--output", str(out), "--output-format", "chat", "--quiet"]) == 0
    first = lines_of(out)
    (tmp_path / "out.jsonl.partial").write_bytes(first[0])
    assert main(["generate", "--model", str(tiny), "--input", str(src), "--output", str(out), "--output-format", "chat", "--resume", "--quiet"]) == 0
    done = lines_of(out)
    assert done[0] == first[0] and [json.loads(x)["id"] for x in done] == ["q0", "q1", "q2"]


def test_the_output_is_never_the_input(tiny, tmp_path, capsys):
    src = tmp_path / "in.jsonl"
    text = batch_line("a") + "\n"
    src.write_text(text)
    for output in (src, tmp_path / "." / "in.jsonl"):
        assert main(["generate", "--model", str(tiny), "--input", str(src), "--output", str(output)]) == 2
        assert capsys.readouterr().err == f"thinkgate generate: error: --output {output} is the input file: the answers would overwrite the requests; name another file\n"
    assert src.read_text() == text
    assert main(["generate", "--model", str(tiny), "--input", str(src), "--resume"]) == 2
    assert "--resume needs --output FILE" in capsys.readouterr().err


def test_answers_of_a_batch_still_generating_are_kept_and_the_resumed_output_is_in_input_order(tiny, tmp_path):
    """Eight requests a batch (the default): in the second batch, line 12 writes long and 9-11,
    13-16 end at once. Interrupted while 12 goes on, the output keeps every answer that ended —
    13-16 out of order, as Batch API lines may stand — and --resume generates only 12 and
    17-20, then writes the whole output in input order."""
    # (400 tokens: the signal must come while line 12 is still being written, on a loaded machine too)
    requests = [batch_line(f"r{k:02}", **({"max_tokens": 400} if k == 12 else {})) for k in range(1, 21)]
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text("\n".join(requests) + "\n")
    partial = tmp_path / "out.jsonl.partial"
    argv = [sys.executable, "-m", "thinkgate", "generate", "--model", str(tiny), "--input", str(src), "--output", str(out), "--quiet"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    err = interrupted(argv, env, partial, 11)
    kept = lines_of(partial)
    ids = [json.loads(x)["custom_id"] for x in kept]
    assert ids == [f"r{k:02}" for k in (*range(1, 12), 13, 14, 15, 16)]
    assert err.splitlines()[-1] == f"thinkgate generate: interrupted: 15 of 20 lines saved in {partial}; run the same command with --resume to generate the other 5"

    resumed = subprocess.run([*argv[:-1], "--resume"], capture_output=True, text=True, env=env, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert "5 of 5 lines answered" in resumed.stderr
    done = lines_of(out)
    assert [json.loads(x)["custom_id"] for x in done] == [f"r{k:02}" for k in range(1, 21)]
    assert sorted(set(done) & set(kept)) == sorted(kept)  # byte for byte: none was redone
