"""The docs build draws the benchmarks' plots from docs/data (issue 36, point 3): every plot
the hook names has its data committed and draws as an SVG that shows it. (CI's docs build runs
the hook itself; here it runs where matplotlib, of the docs extra, is installed.)"""

import json
import os
import sys

import pytest

HOOKS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "hooks")


def test_every_plot_draws_from_its_committed_data():
    pytest.importorskip("matplotlib")
    sys.path.insert(0, HOOKS)
    try:
        import plots
    finally:
        sys.path.remove(HOOKS)
    drawn = plots.draw()
    assert set(drawn) == set(plots.PLOTS)
    with open(os.path.join(plots.DATA, "parse_stream.json"), encoding="utf-8") as f:
        parse = json.load(f)
    svg = drawn["parse_time_vs_length"].decode()
    assert svg.startswith("<?xml") and parse["format"] in svg
    assert "batch size" in drawn["step_cost_vs_batch"].decode() and "tools in the request" in drawn["compile_time_vs_tools"].decode()
    assert plots.draw() == drawn  # the same data draws the same file
    page = open(os.path.join(os.path.dirname(HOOKS), "benchmarks.md"), encoding="utf-8").read()
    assert all(f"plots/{name}.svg" in page for name in plots.PLOTS)
