"""The README's commands and examples are the ones that work."""

import contextlib
import io
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def _blocks(lang):
    return re.findall(rf"```{lang}\n(.*?)```", README, flags=re.S)


def _first_bash_block_after(heading):
    return re.search(r"```bash\n(.*?)\n```", README.split(heading, 1)[1], re.S).group(1).strip()


def test_ci_runs_exactly_the_readme_test_command():
    command = _first_bash_block_after("## Test")
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert command in ci
    # and the coverage run the section gives after it
    section = README.split("## Test", 1)[1].split("\n## ", 1)[0]
    commands = [b.strip() for b in re.findall(r"```bash\n(.*?)\n```", section, re.S)]
    assert len(commands) == 3 and "--cov-fail-under" in commands[1] and commands[1] in ci
    # and the per-format suites on the formats the default run leaves to CI
    assert commands[2].startswith("THINKGATE_TEST_FORMATS=rest ") and commands[2] in ci
    # the set-up's installs, as CI runs them (CI's machine has the CPU build of torch on disk, so
    # it needs no index for it)
    for line in _first_bash_block_after("## Set up").splitlines():
        if line.startswith("python -m venv"):
            continue  # (CI's fresh machine is the environment)
        command = re.sub(r"\s+--index-url \S+", "", line.split("#", 1)[0]).strip().removeprefix("pip ")
        assert any(c.endswith(command) for c in ci), command


DOCS = ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("page", DOCS)
def test_python_examples_run_and_print_what_they_say(page):
    """Every ```python block of the README and the docs runs here as written (```py blocks need
    an engine: see tests/on_vllm)."""
    text = (ROOT / page).read_text()
    for block in re.findall(r"```python\n(.*?)```", text, flags=re.S):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block, page, "exec"), {})
        printed = out.getvalue().splitlines()
        promised = [m.group(1).strip() for m in re.finditer(r"print\(.*\)\s+# (.*)", block)]
        assert len(printed) == len(promised)
        for got, want in zip(printed, promised):
            if "..." not in want:
                assert got == want


def test_the_readme_is_a_short_front_door_whose_links_lead_somewhere():
    assert len(README.splitlines()) <= 150
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README):
        if not target.startswith("http"):
            assert (ROOT / target).exists(), target


def test_the_docs_home_page_is_the_readme_with_its_links_made_relative():
    # (the site's home and the repository's front door say the same: edit README.md, then
    # write docs/index.md from it with this substitution)
    index = (ROOT / "docs" / "index.md").read_text()
    assert index == re.sub(r"\]\(docs/", "](", README)


def test_the_formats_page_is_what_the_registry_writes():
    """docs/formats.md's table and examples are generated (python -m thinkgate.formats.reference
    --write docs/formats.md): a format registered, renamed or given another marker shows here."""
    from thinkgate.formats.reference import with_reference
    from thinkgate.formats.registry import registered, shipped

    page = (ROOT / "docs" / "formats.md").read_text()
    assert page == with_reference(page), "docs/formats.md is stale: python -m thinkgate.formats.reference --write docs/formats.md"
    for fmt in shipped():
        assert f"### {fmt.name}\n" in page
    # a format registered at run time (thinkgate generate --format auto's NAME:detected) is not
    assert [f.name for f in shipped()] == [f.name for f in registered() if not f.name.endswith(":detected")]


def test_ci_builds_the_docs_strictly():
    assert "mkdocs build --strict" in (ROOT / ".ci" / "run").read_text()


def test_the_formats_page_is_written_by_its_command(tmp_path):
    import subprocess
    import sys

    page = tmp_path / "formats.md"
    page.write_text("# Formats\n\n<!-- formats-table -->\nold\n<!-- /formats-table -->\n\nnotes\n")
    run = subprocess.run([sys.executable, "-m", "thinkgate.formats.reference", "--write", str(page)], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0 and "### deepseek_r1\n" in page.read_text() and page.read_text().endswith("<!-- /formats-table -->\n\nnotes\n")
    page.write_text("no place for it")
    run = subprocess.run([sys.executable, "-m", "thinkgate.formats.reference", "--write", str(page)], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 2 and run.stderr.startswith("python -m thinkgate.formats.reference: error: ") and "<!-- formats-table -->" in run.stderr
