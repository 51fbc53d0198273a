"""The formats reference of the docs, written from the registry so that it cannot drift from it.

    python -m thinkgate.formats.reference --write docs/formats.md

replaces what stands between the page's ``<!-- formats-table -->`` and ``<!-- /formats-table -->``
(a test holds the page to what this writes).
"""

from __future__ import annotations

import argparse
import html
import pathlib
import re
import sys

from .base import ChatFormat
from .registry import shipped

BEGIN, END = "<!-- formats-table -->", "<!-- /formats-table -->"
EXAMPLE_CALL = ("get_weather", '{"city": "Paris"}')


def _code(text: str) -> str:
    """A code span a table cell can hold (a pipe in it would split the cell)."""
    return "`" + text.replace("|", "\\|") + "`" if text else "—"


def _prose(text: str) -> str:
    return html.escape(text, quote=False).replace("|", "\\|").replace("`", "&#96;")


def _fence(text: str) -> str:
    """A code fence longer than any run of backticks in ``text`` (R1's calls hold a fence)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _reasoning(fmt: ChatFormat) -> str:
    r = fmt.reasoning
    if not r.present:
        return "none (the model does not think)"
    return f"{_code(str(r.open))} … {_code(str(r.close))}"


def reference() -> str:
    """The table of every format thinkgate ships, then each format's example call as it writes it
    (a format a program registers at run time, ``NAME:detected``, is not on the page)."""
    rows = ["| format | also called | layout | reasoning | |", "|---|---|---|---|---|"]
    for fmt in shipped():
        aliases = ", ".join(f"`{a}`" for a in fmt.aliases) or "—"
        rows.append(f"| [`{fmt.name}`](#{fmt.name}) | {aliases} | {fmt.tools.layout.name} | {_reasoning(fmt)} | {_prose(fmt.description)} |")
    parts = ["\n".join(rows), ""]
    for fmt in shipped():
        call = fmt.tools.section_text([EXAMPLE_CALL])
        fence = _fence(call)
        parts += [
            f"### {fmt.name}",
            "",
            f"A call of `get_weather(city=\"Paris\")` as `{fmt.name}` writes it (layout `{fmt.tools.layout.name}`; ends with `{fmt.eos}`):",
            "",
            f"{fence}text",
            call,
            fence,
            "",
        ]
    return "\n".join(parts).rstrip() + "\n"


def with_reference(page: str) -> str:
    """``page`` with its generated part replaced by today's registry's."""
    if BEGIN not in page or END not in page:
        raise ValueError(f"the page has no {BEGIN} … {END} part to write the reference into")
    head, rest = page.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{reference()}{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m thinkgate.formats.reference", description=__doc__.splitlines()[0])
    ap.add_argument("--write", metavar="PAGE", help="write the reference into PAGE (else print it)")
    args = ap.parse_args(argv)
    if args.write is None:
        sys.stdout.write(reference())
        return 0
    path = pathlib.Path(args.write)
    try:
        path.write_text(with_reference(path.read_text(encoding="utf-8")), encoding="utf-8")
    except (OSError, ValueError) as e:
        print(f"python -m thinkgate.formats.reference: error: {args.write}: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
