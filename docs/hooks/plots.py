"""The docs build draws the benchmarks' plots (issue 36, point 3).

The benchmarks write their results as JSON; the ones the docs show are kept in ``docs/data/``
(``python benchmarks/parse_stream.py --out docs/data/parse_stream.json``,
``python benchmarks/parse_stream_peers.py --lengths 10000,20000,40000 --out docs/data/parse_stream_peers.json``,
``python benchmarks/parse_stream_peers.py --formats pythonic --lengths 10000,20000,40000 --repeat 3 --out docs/data/parse_stream_peers_pythonic.json``,
``python benchmarks/step_overhead.py --out docs/data/step_overhead.json``). At build time this
hook draws them with matplotlib into SVG files that exist only in the built site: no picture is
committed, and a page shows ``plots/NAME.svg``. Run by ``mkdocs build`` (``hooks:`` in
mkdocs.yml); ``python docs/hooks/plots.py DIR`` writes them to a folder to look at.
"""

from __future__ import annotations

import io
import json
import os
import sys

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")


def parse_time_vs_length(data: dict):
    """Total parse time of a streamed output against its length, one line per shape and mode."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4))
    lines: dict = {}
    for row in data["rows"]:
        lines.setdefault(f"{row['shape']} ({row['mode']})", []).append((row["chars"], row["total_ms"]))
    for label, points in sorted(lines.items()):
        points.sort()
        ax.plot([p[0] / 1000 for p in points], [p[1] for p in points], marker="o", label=label)
    _log_axes(ax, "output length (thousand characters)", "parse time, whole output (ms)", f"Streaming parse, {data['format']}, {data['tokens_per_delta']} tokens a delta", y_base=2)
    return fig


def parse_time_vs_length_peers(data: dict):
    """thinkgate's streaming parse time beside SGLang's and vLLM's on the same streams, against
    the output's length: a panel per format, a colour per parser, a line style per shape (a
    parser that read the wrong calls, or did not finish, has no line)."""
    import matplotlib.pyplot as plt

    formats = list(dict.fromkeys(r["format"] for r in data["rows"]))
    fig, axes = plt.subplots(1, len(formats), figsize=(6.4 * len(formats) / 1.5, 4), squeeze=False)
    styles = {"reasoning": "-", "half_arguments": "--", "long_argument": ":"}
    colours = {"thinkgate": "tab:green", "sglang": "tab:blue", "vllm": "tab:orange"}
    versions = data.get("versions", {})
    for ax, fmt in zip(axes[0], formats):
        lines: dict = {}
        for row in data["rows"]:
            if row["format"] != fmt:
                continue
            for peer, result in row["peers"].items():
                if result.get("best_s") is not None and not result.get("error") and result.get("names_ok", True):
                    lines.setdefault((peer, row["shape"]), []).append((row["chars"], result["best_s"] * 1e3))
        for (peer, shape), points in sorted(lines.items()):
            points.sort()
            label = f"{peer} {versions.get(peer, '')}, {shape}".replace(" ,", ",")
            ax.plot([p[0] / 1000 for p in points], [p[1] for p in points], styles.get(shape, "-"), color=colours.get(peer), marker="o", label=label)
        _log_axes(ax, "output length (thousand characters)", "parse time, whole stream (ms)", f"{fmt}, {data['delta_chars']}-character deltas", y_base=2)
        ax.get_legend().remove()
    legend: dict = {}  # every panel's lines (a panel may lack a parser or a shape)
    for ax in axes[0]:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            legend.setdefault(label, handle)
    labels = sorted(legend)
    fig.legend([legend[k] for k in labels], labels, loc="lower center", ncol=3, fontsize=7, bbox_to_anchor=(0.5, -0.2))
    return fig


def _log_axes(ax, xlabel: str, ylabel: str, title: str, y_base: int = 10) -> None:
    """Labels, log axes (x in powers of two, written as plain numbers: 10, 20, 40; y too where
    its base is two), a grid and the legend."""
    from matplotlib.ticker import FuncFormatter

    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=y_base)
    plain = FuncFormatter(lambda v, _: f"{v:g}")
    ax.xaxis.set_major_formatter(plain)
    if y_base == 2:
        ax.yaxis.set_major_formatter(plain)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)


def step_cost_vs_batch(data: dict):
    """A step's masking cost against the batch size, by phase."""
    import matplotlib.pyplot as plt

    rows = data["batch_steps"]
    batches = [r["batch"] for r in rows]
    fig, ax = plt.subplots(figsize=(6.4, 4))
    for key, label in (
        ("thinking_auto_ms", "thinking (nothing masked)"),
        ("thinking_required_ms", "thinking, a call required (end blocked)"),
        ("tool_cpu_ms", "tool phase: masks filled"),
        ("tool_apply_ms", "tool phase: masks filled and applied"),
        ("tool_xgrammar_floor_ms", "xgrammar's batch fill alone"),
    ):
        if all(key in r for r in rows):
            ax.plot(batches, [r[key] for r in rows], marker="o", label=label)
    _log_axes(ax, "batch size (requests)", "cost per step (ms)", "Step cost against batch size (CPU)")
    return fig


def compile_time_vs_tools(data: dict):
    """A tool set's grammar compile time against its size: cold (a new tool set) and cached."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4))
    for bounded, style in ((False, "-"), (True, "--")):
        rows = sorted((r for r in data["compile"] if isinstance(r["tools"], int) and r["max_length_string"] is bounded), key=lambda r: r["tools"])
        what = "with a maxLength string" if bounded else "plain"
        for key, label in (("cold_ms", "cold"), ("cached_ms", "cached")):
            ax.plot([r["tools"] for r in rows], [r[key] for r in rows], style, marker="o", label=f"{label}, {what}")
    _log_axes(ax, "tools in the request", "compile time (ms)", "Grammar compile time against the number of tools (CPU)")
    return fig


PLOTS = {
    "parse_time_vs_length": ("parse_stream.json", parse_time_vs_length),
    "parse_time_vs_length_peers": ("parse_stream_peers.json", parse_time_vs_length_peers),
    "parse_time_vs_length_peers_pythonic": ("parse_stream_peers_pythonic.json", parse_time_vs_length_peers),
    "step_cost_vs_batch": ("step_overhead.json", step_cost_vs_batch),
    "compile_time_vs_tools": ("step_overhead.json", compile_time_vs_tools),
}


def draw() -> dict[str, bytes]:
    """Every plot whose data is in docs/data, as SVG bytes by name."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "thinkgate"  # the same data draws the same file
    import matplotlib.pyplot as plt

    out = {}
    for name, (source, plot) in PLOTS.items():
        path = os.path.join(DATA, source)
        with open(path, encoding="utf-8") as f:
            fig = plot(json.load(f))
        buf = io.BytesIO()
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
        plt.close(fig)
        out[name] = buf.getvalue()
    return out


def on_files(files, config):
    """mkdocs: the plots join the site's files (so that pages may link them, strict or not)."""
    from mkdocs.structure.files import File

    for name, svg in draw().items():
        files.append(File.generated(config, f"plots/{name}.svg", content=svg))
    return files


if __name__ == "__main__":
    target = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(target, exist_ok=True)
    for name, svg in draw().items():
        with open(os.path.join(target, f"{name}.svg"), "wb") as f:
            f.write(svg)
        print(os.path.join(target, f"{name}.svg"))
