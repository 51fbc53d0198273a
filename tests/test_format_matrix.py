"""The split of the per-format suites between the default run and CI's run of the rest
(tests/format_matrix.py): every format sampled once, the README's command naming every suite."""

import re
from pathlib import Path

import pytest

import format_matrix
from format_matrix import formats_under_test, kind, layout_kind, representatives
from thinkgate.formats import get_format, names

ROOT = Path(__file__).resolve().parents[1]


def test_the_default_run_and_the_rest_cover_every_format_once(monkeypatch):
    monkeypatch.delenv("THINKGATE_TEST_FORMATS", raising=False)
    default = formats_under_test()
    monkeypatch.setenv("THINKGATE_TEST_FORMATS", "rest")
    rest = formats_under_test()
    monkeypatch.setenv("THINKGATE_TEST_FORMATS", "all")
    assert sorted(default + rest) == formats_under_test() == names()
    assert not set(default) & set(rest)
    # each format left to CI has the kind of one the default run samples
    kinds = {kind(get_format(n)) for n in default}
    assert all(kind(get_format(n)) in kinds for n in rest)
    # and so for the coarser kinds of the costliest suites
    monkeypatch.delenv("THINKGATE_TEST_FORMATS")
    coarse = formats_under_test(layout_kind)
    monkeypatch.setenv("THINKGATE_TEST_FORMATS", "rest")
    assert sorted(coarse + formats_under_test(layout_kind)) == names() and len(coarse) < len(default)
    monkeypatch.setenv("THINKGATE_TEST_FORMATS", "some")
    with pytest.raises(ValueError, match="THINKGATE_TEST_FORMATS='some'"):
        formats_under_test()


def test_a_kind_tells_token_markers_text_markers_and_layouts_apart():
    assert kind(get_format("qwen3")) == kind(get_format("exaone4"))  # other markers, same kind
    assert kind(get_format("deepseek_v3_2")) != kind(get_format("deepseek_v3_1"))  # XML parameters, JSON arguments
    assert kind(get_format("minimax_m2")) != kind(get_format("glm45"))  # text markers, token markers
    assert "deepseek_r1" in representatives() and "deepseek_v3" not in representatives()  # the first shipped


def test_the_readme_and_ci_run_the_rest_on_every_suite_that_splits_formats():
    users = sorted(p.name for p in (ROOT / "tests").glob("test_*.py") if "formats_under_test(" in p.read_text())
    readme = (ROOT / "README.md").read_text()
    command = next(line for line in readme.splitlines() if line.startswith("THINKGATE_TEST_FORMATS=rest"))
    assert sorted(re.findall(r"tests/(test_\w+\.py)", command)) == [u for u in users if u != Path(__file__).name]
    assert command in (ROOT / ".ci" / "run").read_text()
    assert format_matrix.MODES == ("", "rest", "all")
