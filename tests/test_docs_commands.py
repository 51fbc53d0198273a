"""Every command block of the README and the docs is run, or says why not.

A ```bash (or ```py) block is run here as a user types it — in a fresh home whose
``~/.cache/thinkgate`` the commands build, from a copy of the repository's examples — unless a
comment right before it names who runs it (``<!-- run by .ci/run -->``, ``<!-- run by
tests/FILE.py::TEST -->``, both checked) or why it is not run (``<!-- not run by the tests:
REASON -->``). ```python blocks are run by tests/test_readme.py.
"""

from __future__ import annotations

import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGES = ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"(?:<!--(?P<note>[^>]*)-->\n)?```(?P<lang>bash|sh|py|console)\n(?P<body>.*?)```", re.S)


def _blocks():
    seen: dict[str, tuple[str, str]] = {}
    for page in PAGES:
        for m in BLOCK.finditer((ROOT / page).read_text()):
            seen.setdefault(m.group("body"), (page, (m.group("note") or "").strip()))
    return [(page, note, body) for body, (page, note) in seen.items()]


BLOCKS = _blocks()


def _commands(body: str) -> list[str]:
    """The block's commands: continuation lines joined, comments dropped."""
    joined = body.replace("\\\n", " ")
    return [line.split("  #", 1)[0].strip() for line in joined.splitlines() if line.strip() and not line.lstrip().startswith("#")]


@pytest.mark.parametrize("page, note, body", [b for b in BLOCKS if b[1]], ids=lambda v: v if isinstance(v, str) and v.endswith(".md") else "")
def test_a_block_not_run_here_says_who_runs_it_or_why_not(page, note, body):
    if note == "run by .ci/run":
        ci = (ROOT / ".ci" / "run").read_text().splitlines()
        for command in _commands(body):
            if command.startswith("python -m venv"):
                continue  # (CI's fresh machine is the environment)
            command = re.sub(r"\s+--index-url \S+", "", command).removeprefix("pip ")
            assert any(c.endswith(command) for c in ci), (page, command)
    elif note.startswith("run by tests/"):
        path, name = note.removeprefix("run by ").split("::")
        assert f"def {name}(" in (ROOT / path).read_text(), (page, note)
    else:
        assert note.startswith("not run by the tests") and len(note) > len("not run by the tests: ") + 10, (page, note)


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """A user's fresh home and working directory: a copy of the examples, ``thinkgate`` on the
    PATH as this checkout's (the commands' child processes import it)."""
    home = tmp_path_factory.mktemp("home")
    work = home / "work"
    shutil.copytree(ROOT / "examples", work / "examples")
    bin_dir = home / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "thinkgate"
    shim.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -m thinkgate \"$@\"\n")
    shim.chmod(0o755)
    (bin_dir / "python").symlink_to(sys.executable)
    env = {k: v for k, v in os.environ.items() if k not in ("THINKGATE_CACHE", "XDG_CACHE_HOME")}
    env.update(HOME=str(home), PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", PYTHONPATH=str(ROOT))
    return work, env


RUN = [b for b in BLOCKS if not b[1]]


@pytest.mark.parametrize("page, note, body", RUN, ids=[f"{p}:{_commands(b)[-1][:40]}" for p, _, b in RUN])
def test_the_commands_a_user_types_run(home, page, note, body):
    work, env = home
    run = subprocess.run(["bash", "-e", "-c", body], cwd=work, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, (page, body, run.stdout[-2000:], run.stderr[-2000:])


def test_every_command_block_is_accounted_for():
    """(A sanity check of the collection: the blocks run here are the ones that need no engine.)"""
    assert RUN and all("vllm" not in body and "sglang" not in body for _, _, body in RUN)
