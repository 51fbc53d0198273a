"""The peers' own vectors for the newest families (issue 35), counted: per format, how many
thinkgate reads as the peer's test expects on each path (whole, the test's own chunks, one
character at a time) and on all three, and how many of those it fails are set down to each point
of issue 35 (``xfail``; "none": a failure no point names) or differ on purpose (``why``, counted as passing: the vector then holds
thinkgate's reading).

Prints a table like issue 35's, writes JSON.

    python benchmarks/peer_vectors.py [--out benchmarks/results/peer_vectors.json] [--failures]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, ".."), os.path.join(HERE, "..", "tests")]

from peer_vectors_newest import PATHS, VECTORS, failures  # noqa: E402


def _point(xfail: str) -> str:
    """The point of issue 35 an xfail names; "none" for a failure no point covers."""
    m = re.match(r"issue 35 point (\d+)", xfail)
    return m.group(1) if m else "none"


def count() -> tuple[dict, list]:
    rows: dict = defaultdict(lambda: {"total": 0, "all": 0, **{p: 0 for p in PATHS}, "disputed": 0, "xfail_by_point": Counter()})
    failed = []
    for v in VECTORS.values():
        row = rows[v.fmt]
        row["total"] += 1
        row["disputed"] += bool(v.why)
        if v.xfail:
            row["xfail_by_point"][_point(v.xfail)] += 1
        bad = failures(v)
        for p in PATHS:
            row[p] += p not in bad
        row["all"] += not bad
        if bad:
            failed.append((v.id, v.xfail, bad))
    return {f: {**r, "xfail_by_point": dict(sorted(r["xfail_by_point"].items()))} for f, r in rows.items()}, failed


def table(rows: dict) -> str:
    head = "| format | all three paths | whole | chunks | chars | differs on purpose | xfail by issue 35 point |"
    lines = [head, "|---|---|---|---|---|---|---|"]
    total = Counter()
    for fmt in sorted(rows):
        r = rows[fmt]
        n = r["total"]
        pts = ", ".join(f"{k}: {c}" for k, c in r["xfail_by_point"].items()) or "-"
        lines.append(f"| {fmt} | {r['all']}/{n} | {r['whole']}/{n} | {r['chunks']}/{n} | {r['chars']}/{n} | {r['disputed']} | {pts} |")
        total.update({k: r[k] for k in ("total", "all", *PATHS, "disputed")})
    n = total["total"]
    lines.append(f"| **all** | **{total['all']}/{n}** | {total['whole']}/{n} | {total['chunks']}/{n} | {total['chars']}/{n} | {total['disputed']} | |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(HERE, "results", "peer_vectors.json"))
    ap.add_argument("--failures", action="store_true", help="also list each failing vector and what differs")
    args = ap.parse_args()
    rows, failed = count()
    print(table(rows))
    if args.failures:
        for vid, xfail, bad in failed:
            print(f"\n{vid}  [{xfail or 'NOT MARKED'}]")
            for p, what in bad.items():
                print(f"  {p}: {'; '.join(what)}")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump({"formats": rows, "failing": [{"id": i, "xfail": x, "paths": b} for i, x, b in failed]}, f, indent=1)
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
