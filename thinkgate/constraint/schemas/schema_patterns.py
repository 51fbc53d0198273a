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


# The formats whose pattern has no length bound of its own, written within a length instead
# (see ``bounded_format``).
_LOCAL = "[A-Za-z0-9._+-]"
_LABEL = "[A-Za-z0-9-]"
_URI_CHAR = "[A-Za-z0-9._~!$&'()*+,;=:@/-]"
_QUERY_CHAR = "[A-Za-z0-9._~!$&'()*+,;=:@/?-]"
# The longest run a bounded format's part gets (longer ones compile slowly: see FOLD_LIMIT).
_PART_LIMIT = 1000


def _rep(atom: str, lo: int, hi: int) -> str:
    return f"{atom}{{{lo},{hi}}}"


def bounded_format(fmt: str, min_length: int, max_length: int) -> Optional[str]:
    """The pattern of format ``fmt`` (``email``, ``uri`` and their IDN forms) written so that
    every string it matches is at most ``max_length`` and at least ``min_length`` characters
    long, or None where it cannot be (a bound below the format's shortest string, or a
    ``minLength`` the parts cannot take up).

    xgrammar then holds the length exactly, and a string the pattern begins can always be
    finished within it (a length held beside the unbounded pattern could not promise that: a
    local part of ``maxLength - 1`` characters has no room for its ``@a.bc``). It is narrower
    than the format within the length: the length is shared out among the parts (local part,
    domain labels and top-level domain; host, port, path and query), each bounded on its own,
    so a value that spends most of the length on one part may not be written. Every string it
    matches matches the format's own pattern (:data:`FORMATS`)."""
    if fmt in ("email", "idn-email"):
        out = _bounded_email(min_length, max_length)
    elif fmt in ("uri", "iri"):
        out = _bounded_uri(min_length, max_length)
    else:
        return None
    return out


def _labels(total: int, first_min: int = 1) -> tuple[int, int]:
    """How many dotted labels, and how long each, a domain of at most ``total`` characters gets
    (``k`` labels of at most ``m`` and their dots: ``k * (m + 1) <= total``)."""
    k = max(1, min(4, total // 8))
    m = max(first_min, total // k - 1)
    while k > 1 and k * (m + 1) > total:
        k -= 1
        m = total // k - 1
    return k, min(m, 63)


def _bounded_email(lo: int, hi: int) -> Optional[str]:
    # local@label.(label.)*tld: at least "a@b.cd"
    if hi < 6:
        return None
    local = min(64, max(1, (hi - 1) * 2 // 5), hi - 5)
    domain = hi - 1 - local
    tld = min(24, max(2, domain // 4))
    k, m = _labels(domain - tld)
    longest = local + 1 + k * (m + 1) + tld
    shortest = 6
    local_min = 1
    if lo > shortest:
        local_min = min(local, 1 + lo - shortest)
        shortest += local_min - 1
    tld_min = 2 + max(0, lo - shortest)
    if tld_min > tld or longest > hi:
        return None
    labels = f"({_rep(_LABEL, 1, m)}[.]){{1,{k}}}"
    return f"^{_rep(_LOCAL, local_min, local)}@{labels}{_rep('[A-Za-z]', tld_min, tld)}$"


def _bounded_uri(lo: int, hi: int) -> Optional[str]:
    # http(s)://host(:port)(/path)(?query): at least "http://a"
    scheme = 8  # "https://"
    if hi < scheme + 1:
        # room for "http://" and a host only
        return f"^http://{_rep(_LABEL, max(1, lo - 7), hi - 7)}$" if hi >= 8 and lo <= hi else None
    rest = hi - scheme
    host = min(253, max(1, rest // 3))
    k, m = _labels(host + 1)  # the host's labels, as the domain's with one dot fewer
    host_longest = k * (m + 1) - 1
    left = rest - host_longest
    port = "(:[0-9]{1,5}|)" if left >= 6 + 2 else ""
    left -= 6 if port else 0
    path = min(_PART_LIMIT, max(0, left * 2 // 3 - 1))
    query = min(_PART_LIMIT, max(0, left - (path + 1) - 1))
    first_min = 1
    shortest = 8  # "http://a"
    if lo > shortest:
        first_min = 1 + lo - shortest
        if first_min > m:
            return None
    host_re = f"{_rep(_LABEL, first_min, m)}" + (f"([.]{_rep(_LABEL, 1, m)}){{0,{k - 1}}}" if k > 1 else "")
    path_re = f"(/{_rep(_URI_CHAR, 0, path)}|)" if path > 0 else ""
    query_re = f"([?]{_rep(_QUERY_CHAR, 0, query)}|)" if query > 0 else ""
    longest = scheme + host_longest + (6 if port else 0) + (path + 1 if path else 0) + (query + 1 if query else 0)
    if longest > hi:
        return None
    return f"^https?://{host_re}{port}{path_re}{query_re}$"
