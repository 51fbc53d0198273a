"""Regular expressions in tool schemas: string formats as exact patterns, and what thinkgate
reads from a pattern (its length range, how many strings it admits, a repeated character)
before xgrammar gets it."""

from __future__ import annotations

import re
from typing import Any, Optional

try:
    from re import _parser as _sre  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_parse as _sre  # type: ignore[no-redef]

# String formats, as anchored patterns that admit only what the JSON Schema 2020-12 format
# checker accepts: upper-case ``T``/``Z``, at most nine digits of fractional seconds (so a weak
# model cannot write digits forever), no leap second, the day checked against the month and the
# leap year. Optional parts are written ``(X|)`` (see ``optional_groups_as_ranges``).
_YEAR = r"(000[1-9]|00[1-9][0-9]|0[1-9][0-9]{2}|[1-9][0-9]{3})"
_LEAP_YEAR = r"([0-9]{2}(0[48]|[2468][048]|[13579][26])|(0[48]|[2468][048]|[13579][26])00)"
_MONTH_DAY = (
    r"((0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|(0[469]|11)-(0[1-9]|[12][0-9]|30)"
    r"|02-(0[1-9]|1[0-9]|2[0-8]))"
)
_DATE = rf"({_YEAR}-{_MONTH_DAY}|{_LEAP_YEAR}-02-29)"
_TIME = r"([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]([.][0-9]{1,9}|)(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])"
_OCTET = r"(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9][0-9]|[0-9])"
_H16 = r"[0-9a-fA-F]{1,4}"
FORMATS: dict[str, str] = {
    "date-time": f"^{_DATE}T{_TIME}$",
    "date": f"^{_DATE}$",
    "time": f"^{_TIME}$",
    "uuid": r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
    "ipv4": rf"^{_OCTET}([.]{_OCTET}){{3}}$",
    "ipv6": (
        rf"^(({_H16}:){{7}}{_H16}|({_H16}:){{1,7}}:|({_H16}:){{1,6}}:{_H16}"
        rf"|({_H16}:){{1,5}}(:{_H16}){{1,2}}|({_H16}:){{1,4}}(:{_H16}){{1,3}}"
        rf"|({_H16}:){{1,3}}(:{_H16}){{1,4}}|({_H16}:){{1,2}}(:{_H16}){{1,5}}"
        rf"|{_H16}:(:{_H16}){{1,6}}|:(:{_H16}){{1,7}}|::)$"
    ),
    # The checker only asks for an "@"; this admits the usual local@domain.tld shapes.
    "email": r"^[A-Za-z0-9._+-]+@[A-Za-z0-9-]+([.][A-Za-z0-9-]+)*[.][A-Za-z]{2,}$",
    "uri": r"^https?://[A-Za-z0-9-]+([.][A-Za-z0-9-]+)*(:[0-9]{1,5}|)(/[A-Za-z0-9._~!$&'()*+,;=:@/-]*|)([?][A-Za-z0-9._~!$&'()*+,;=:@/?-]*|)$",
}
FORMATS["idn-email"] = FORMATS["email"]
FORMATS["iri"] = FORMATS["uri"]

FORBIDDEN_IN_PATTERN = re.compile(r'\\[sSbBpPnrtfv0-9]|\\[xu]|"|\(\?[=!<]')


# A pattern that is one character (a class, an escape, ``.`` or a literal) repeated.
SINGLE_REPEAT = re.compile(r"\^?(\[(?:\\.|[^\]\\])+\]|\\.|\.|[^\\^$.|?*+()\[\]{}])(?:(\*)|(\+)|\{(\d+)(?:(,)(\d*))?\})\$?")


def pattern_width(pattern: str) -> tuple[int, Optional[int]]:
    """The fewest and most characters a full match of ``pattern`` has (None: no bound)."""
    try:
        lo, hi = _sre.parse(pattern).getwidth()
    except Exception:  # a pattern Python cannot read was refused before this
        return 0, None
    return lo, (None if hi >= _sre.MAXREPEAT else hi)


def top_alternatives(pattern: str) -> list[str]:
    """``pattern`` split at its top-level ``|``."""
    parts, depth, in_class, start, i = [], 0, False, 0, 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            parts.append(pattern[start:i])
            start = i + 1
        i += 1
    return [*parts, pattern[start:]]


def searched(alternative: str) -> str:
    """One alternative of a searched pattern, as a full match."""
    head = alternative.startswith("^")
    core = alternative[1:] if head else alternative
    tail = core.endswith("$") and not core.endswith("\\$")
    core = core[:-1] if tail else core
    return ("" if head else ".*") + f"({core})" + ("" if tail else ".*")


def language_size(pattern: str, cap: int = 10**6) -> int:
    """How many strings match ``pattern`` in full (at most ``cap``)."""
    try:
        parsed = _sre.parse(pattern)
    except Exception:
        return cap
    return _size_of(parsed, cap)


def _size_of(items: Any, cap: int) -> int:
    total = 1
    for op, av in items:
        name = str(op)
        if name == "LITERAL" or name == "AT":
            n = 1
        elif name == "IN":
            n = 0
            for kind, value in av:
                kind = str(kind)
                if kind == "LITERAL":
                    n += 1
                elif kind == "RANGE":
                    n += value[1] - value[0] + 1
                else:  # NEGATE, CATEGORY: many
                    n = cap
                    break
        elif name == "BRANCH":
            n = sum(_size_of(b, cap) for b in av[1])
        elif name == "SUBPATTERN":
            n = _size_of(av[-1], cap)
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            lo, hi, sub = av
            if hi >= _sre.MAXREPEAT:
                return cap
            one = _size_of(sub, cap)
            n = 0
            for k in range(lo, hi + 1):
                n += min(one**k, cap) if one > 1 else 1
                if n >= cap:
                    break
        else:  # ANY, NOT_LITERAL, CATEGORY, ...: many
            return cap
        total = min(total * max(n, 0), cap)
        if total >= cap:
            return cap
    return total


def optional_groups_as_ranges(pattern: str) -> str:
    """``(...)?`` written as ``(...){0,1}``, which means the same.

    xgrammar 0.2.8 misreads an optional group whose last atom has a quantifier:
    ``^1(x[0-9]{1,2})?Z$`` accepts ``15Z``. The range form is read correctly."""
    out = []
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        c = pattern[i]
        if c == "\\":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == ")" and i + 1 < n and pattern[i + 1] == "?":
            out.append("){0,1}")
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)
