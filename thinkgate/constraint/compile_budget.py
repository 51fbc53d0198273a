"""What a tool set costs xgrammar to compile, estimated before it is compiled, and refused by name
past a budget.

xgrammar's compile cannot be interrupted (it is C++, and on vLLM's server thinkgate's processor
compiles a new tool set inside the engine's step, so every other stream waits for it), and some
ordinary-looking schemas take minutes: a string with ``"pattern": "^([a-z]{1,100}){1,100}$"``
takes 175 s on a 2-core machine. So the cost is estimated from the schema, in milliseconds, and
a schema or tool set whose estimate passes the budget is refused with the tool, the place in the
schema, the keyword and what to do, before anything is compiled.

The model follows what xgrammar does (measured on xgrammar 0.2.8, DeepSeek's vocabulary, this
2-core machine; ``benchmarks/compile_budget.py`` prints estimate against compile):

* **Patterns.** xgrammar builds one automaton per pattern, a bounded repeat of at most 128
  unrolled into copies (``X{1,100}`` is a hundred copies of ``X``; nested repeats multiply), a
  longer one kept as a counter. For every state it walks the vocabulary's prefix tree while the
  state's characters admit it, carrying the *set* of automaton states a prefix can be in: the
  work at a state is the token prefixes its characters admit (:mod:`.compile_profile`) times how
  many states one prefix reaches at once (a nested repeat reads a run of letters in many ways).
  The estimate builds the same automaton (positions of the pattern, repeats unrolled as xgrammar
  unrolls them) and counts both, depth by depth, up to 24 characters. A counter costs with the
  square of its bound besides (``[a-z]{1,20000}``: 38 s).
* **Enums** cost with their total length (100,000 values of ten characters: 9 s), **optional
  properties** with the square of their count (1,000: 0.8 s), **anyOf** branches, each.
* **Lengths that xgrammar holds itself** (a parameter format's bare string, :mod:`.arguments`):
  about 17 ms a character of bound up to 128, 3 s past it.
* **Tool sets**: each tool's schema (the same schema twice compiles once), plus 12 ms a tool
  (the Berkeley Function Calling Leaderboard's functions in a full grammar); a routed grammar
  (see :mod:`.routed`) compiles one tool at a time, so there only its most costly tool counts.

The estimate errs high (it was fitted to stay above every measured compile, and it counts the
larger of two vocabularies), so a schema it accepts compiles within the budget. The budget is
``THINKGATE_COMPILE_BUDGET`` seconds (default :data:`DEFAULT_BUDGET`; ``inf`` for none).
What a format costs by itself (its markup, its free text) is not counted: it is the same for
every request and cached once compiled.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable, Optional

try:
    from re import _parser as _sre  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_parse as _sre  # type: ignore[no-redef]

from .compile_profile import PREFIXES
from .schema_patterns import OWN_PATTERNS

BUDGET_ENV = "THINKGATE_COMPILE_BUDGET"
# Seconds of estimated compile a request's tool set may cost (the estimate errs high).
DEFAULT_BUDGET = 4.0

# xgrammar unrolls a bounded repeat up to this bound, and keeps a counter past it.
UNROLL = 128
# How deep into the vocabulary's prefix tree the estimate follows a state (deeper prefixes are few).
DEPTH = len(max(PREFIXES.values(), key=len))

# Fitted constants (seconds), see the module's docstring and benchmarks/compile_budget.py.
PER_PREFIX = 33e-9  # one token prefix read at one automaton state
PER_STATE = 60e-6  # one automaton state, whatever it reads
COUNTER = 1.2e-7  # times a counter's bound squared (3x for a class with spaces or non-ASCII)
ENUM_CHAR = 12e-6  # one character of an enum's or const's JSON text
OPTIONAL_PAIR = 1e-6  # times the square of an object's optional properties
PROPERTY = 1e-4  # one property, one anyOf branch
NATIVE_LENGTH = 0.02  # a character of a length bound xgrammar holds itself (to 128; 3.2 s past it)
PER_TOOL = 0.012  # one tool in a full grammar
OWN_PATTERN = 2.0  # one of thinkgate's own format patterns (measured: at most 1.9 s)

_KIND_BITS = {"lower": 1, "upper": 2, "digit": 4, "space": 8, "punct": 16, "non-ascii": 32}
_ALL = 63
_BROAD = 8 | 32


def compile_budget(value: Optional[float] = None) -> float:
    """The budget in seconds: ``value``, else ``THINKGATE_COMPILE_BUDGET``, else the default
    (``inf``, ``none`` or ``off``: no budget)."""
    if value is not None:
        return float(value)
    raw = os.environ.get(BUDGET_ENV)
    if raw is None or not raw.strip():
        return DEFAULT_BUDGET
    if raw.strip().lower() in ("inf", "none", "off"):
        return math.inf
    try:
        budget = float(raw)
    except ValueError:
        budget = -1.0
    if not budget > 0:
        raise ValueError(f"{BUDGET_ENV} must be a positive number of seconds (or 'inf'), not {raw!r}")
    return budget


@dataclass(frozen=True)
class Cost:
    """One costly thing in a schema: its estimated compile seconds, where it is and what."""

    seconds: float
    path: str
    keyword: str
    what: str  # the keyword's value as shown in an error
    advice: str


class CompileBudgetError(ValueError):
    """A schema or tool set whose estimated compile passes the budget (a ``ValueError``: a
    request's mistake, refused at admission as other schema faults are)."""


# ----------------------------------------------------------------------------- patterns


class _Automaton:
    """Positions of a pattern (each a character class), as xgrammar unrolls its repeats."""

    def __init__(self, limit: int) -> None:
        self.kinds: list[int] = []  # character kinds of each position's class
        self.sizes: list[float] = []  # how many characters the class holds
        self.follow: list[set[int]] = []
        self.chars: list[tuple[tuple[int, int], ...]] = []  # each class as code point ranges
        self.limit = limit
        self.counters: list[tuple[int, int]] = []  # (bound, kinds) of each counter

    def position(self, kinds: int, size: float, chars: tuple[tuple[int, int], ...] = ()) -> int:
        if len(self.kinds) >= self.limit:
            raise _TooLarge
        self.kinds.append(kinds)
        self.sizes.append(size)
        self.chars.append(chars)
        self.follow.append(set())
        return len(self.kinds) - 1

    def link(self, lasts: Iterable[int], firsts: Iterable[int]) -> None:
        firsts = tuple(firsts)
        for p in lasts:
            self.follow[p].update(firsts)


class _TooLarge(Exception):
    pass


# A fragment: (first positions, last positions, nullable, kinds of its classes)
_Frag = tuple[frozenset, frozenset, bool]
_EMPTY: _Frag = (frozenset(), frozenset(), True)


def _class_of(op: str, av: Any) -> tuple[int, float]:
    """The character kinds and size of one character-matching item."""
    if op == "LITERAL":
        return _char_kinds(av), 1
    if op in ("NOT_LITERAL", "ANY"):
        return _ALL, 1.1e6
    if op == "IN":
        kinds, size, negated = 0, 0.0, False
        for kind, value in av:
            kind = str(kind)
            if kind == "NEGATE":
                negated = True
            elif kind == "LITERAL":
                kinds |= _char_kinds(value)
                size += 1
            elif kind == "RANGE":
                lo, hi = value
                size += hi - lo + 1
                kinds |= _range_kinds(lo, hi)
            elif kind == "CATEGORY":
                k, s = _category(str(value))
                kinds |= k
                size += s
        if negated:
            return _ALL, 1.1e6
        return kinds or _ALL, max(size, 1)
    if op == "CATEGORY":
        return _category(str(av))
    return _ALL, 1.1e6


_MAX_CHAR = 0x10FFFF


def _ranges(op: str, av: Any) -> tuple[tuple[int, int], ...]:
    """The code points one character-matching item admits, as sorted disjoint ranges."""
    if op == "LITERAL":
        return ((av, av),)
    if op == "NOT_LITERAL":
        return _complement([(av, av)])
    if op == "ANY":
        return _complement([(10, 10)])
    if op == "CATEGORY":
        return _category_ranges(str(av))
    if op != "IN":
        return ((0, _MAX_CHAR),)
    out: list[tuple[int, int]] = []
    negated = False
    for kind, value in av:
        kind = str(kind)
        if kind == "NEGATE":
            negated = True
        elif kind == "LITERAL":
            out.append((value, value))
        elif kind == "RANGE":
            out.append(tuple(value))
        elif kind == "CATEGORY":
            out.extend(_category_ranges(str(value)))
    return _complement(out) if negated else _normal(out)


def _category_ranges(name: str) -> tuple[tuple[int, int], ...]:
    if name.endswith("CATEGORY_DIGIT"):
        plain = [(48, 57)]
    elif name.endswith("CATEGORY_WORD"):
        plain = [(48, 57), (65, 90), (95, 95), (97, 122)]
    else:
        return ((0, _MAX_CHAR),)
    return _complement(plain) if "NOT" in name else tuple(plain)


def _normal(ranges: list) -> tuple[tuple[int, int], ...]:
    out: list[list[int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return tuple((a, b) for a, b in out)


def _complement(ranges: list) -> tuple[tuple[int, int], ...]:
    out, at = [], 0
    for lo, hi in _normal(ranges):
        if lo > at:
            out.append((at, lo - 1))
        at = hi + 1
    if at <= _MAX_CHAR:
        out.append((at, _MAX_CHAR))
    return tuple(out)


def _char_kinds(c: int) -> int:
    if 97 <= c <= 122:
        return 1
    if 65 <= c <= 90:
        return 2
    if 48 <= c <= 57:
        return 4
    if c == 32:
        return 8
    if c < 128:
        return 16
    return 32


def _range_kinds(lo: int, hi: int) -> int:
    kinds = 0
    for a, b, bit in ((97, 122, 1), (65, 90, 2), (48, 57, 4), (32, 32, 8)):
        if lo <= b and hi >= a:
            kinds |= bit
    if any(lo <= c <= hi for c in range(33, 128) if not (97 <= c <= 122 or 65 <= c <= 90 or 48 <= c <= 57)):
        kinds |= 16
    if hi >= 128:
        kinds |= 32
    return kinds


def _category(name: str) -> tuple[int, float]:
    if name.endswith("CATEGORY_DIGIT"):
        return (_ALL, 1.1e6) if "NOT" in name else (4, 10)
    if name.endswith("CATEGORY_WORD"):
        return (_ALL, 1.1e6) if "NOT" in name else (1 | 2 | 4 | 16, 63)
    return _ALL, 1.1e6


def _build(items: Any, auto: _Automaton) -> _Frag:
    """The fragment of a parsed (sub)pattern, its positions added to ``auto``."""
    firsts: frozenset = frozenset()
    lasts: frozenset = frozenset()
    nullable = True
    for op, av in items:
        frag = _item(str(op), av, auto)
        if frag is None:
            continue
        f, l, n = frag
        auto.link(lasts, f)
        if nullable:
            firsts = firsts | f
        lasts = (lasts | l) if n else l
        nullable = nullable and n
    return firsts, lasts, nullable


def _item(op: str, av: Any, auto: _Automaton) -> Optional[_Frag]:
    if op == "AT":
        return None
    if op in ("LITERAL", "NOT_LITERAL", "ANY", "IN", "CATEGORY"):
        kinds, size = _class_of(op, av)
        p = auto.position(kinds, size, _ranges(op, av))
        return frozenset({p}), frozenset({p}), False
    if op == "SUBPATTERN":
        return _build(av[-1], auto)
    if op == "BRANCH":
        firsts, lasts, nullable = frozenset(), frozenset(), False
        for branch in av[1]:
            f, l, n = _build(branch, auto)
            firsts, lasts, nullable = firsts | f, lasts | l, nullable or n
        return firsts, lasts, nullable
    if op in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        lo, hi, sub = av
        unbounded = hi >= _sre.MAXREPEAT
        counter = (lo if unbounded else hi) > UNROLL
        if counter:
            return _counter(lo, None if unbounded else hi, sub, auto)
        if unbounded:
            # X{n,}: n copies, the last one looping
            copies = max(lo, 1)
            return _chain(sub, auto, copies, lo, loop=True)
        if hi == 0:
            return _EMPTY
        return _chain(sub, auto, hi, lo, loop=False)
    # anything else (a group reference, a lookaround) was refused before this
    return _EMPTY


def _chain(sub: Any, auto: _Automaton, copies: int, lo: int, loop: bool) -> _Frag:
    """``copies`` copies of ``sub`` one after the other, the first ``lo`` required (xgrammar's
    unrolling: an end state of every copy from the ``lo``-th on accepts); ``loop``: the last
    copy repeats."""
    firsts: frozenset = frozenset()
    lasts: frozenset = frozenset()
    ends: set = set()
    nullable = True
    f = l = frozenset()
    for i in range(copies):
        f, l, n = _build(sub, auto)
        auto.link(lasts, f)
        if nullable:
            firsts = firsts | f
        lasts = (lasts | l) if n else l
        nullable = nullable and n
        if i + 1 >= lo:
            ends.update(lasts)
    if loop:
        auto.link(l, f)
    return firsts, frozenset(ends), lo == 0 or nullable


def _counter(lo: int, hi: Optional[int], sub: Any, auto: _Automaton) -> _Frag:
    """A repeat past :data:`UNROLL` (a counter in xgrammar). Within one token's length a
    counter of one character reads as an unrolled chain (each count apart), so it is a chain of
    128 copies that loops; a counter of more than a character is one copy that loops."""
    bound = hi if hi is not None else lo
    probe = _Automaton(limit=10**9)
    f, _, _ = _build(sub, probe)
    kinds = 0
    for k in probe.kinds:
        kinds |= k
    auto.counters.append((bound, kinds))
    single = len(probe.kinds) == 1
    return _chain(sub, auto, UNROLL if single else 1, min(lo, 1), loop=True)


# Positions the estimate builds at most (a pattern with more is past any budget: 12 s at least).
MAX_POSITIONS = 200_000


def _size(items: Any, cap: int) -> int:
    """How many positions the automaton of a parsed (sub)pattern has (at most ``cap``)."""
    total = 0
    for op, av in items:
        op = str(op)
        if op in ("LITERAL", "NOT_LITERAL", "ANY", "IN", "CATEGORY"):
            total += 1
        elif op == "SUBPATTERN":
            total += _size(av[-1], cap)
        elif op == "BRANCH":
            total += sum(_size(b, cap) for b in av[1])
        elif op in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            lo, hi, sub = av
            unbounded = hi >= _sre.MAXREPEAT
            one = _size(sub, cap)
            if (lo if unbounded else hi) > UNROLL:
                copies = UNROLL if one == 1 else 1
            else:
                copies = max(lo, 1) if unbounded else hi
            total += one * copies
        if total >= cap:
            return cap
    return total


def pattern_seconds(pattern: str, limit: float = math.inf) -> float:
    """The estimated seconds xgrammar takes to compile ``pattern`` (a full match, as a JSON
    string's). Past ``limit`` it stops counting and returns what it has (more than ``limit``)."""
    return _pattern_seconds(pattern, limit)


@lru_cache(maxsize=4096)
def _pattern_seconds(pattern: str, limit: float) -> float:
    try:
        parsed = _sre.parse(pattern)
    except Exception:
        return 0.0  # refused by name before this
    # Positions are at least PER_STATE each: past this many the estimate is over any limit.
    cap = int(min(limit / PER_STATE + 1, MAX_POSITIONS))
    if _size(parsed, cap) >= cap:
        return max(limit, cap * PER_STATE) * 1.01 + 1
    auto = _Automaton(cap)
    try:
        firsts, _, _ = _build(parsed, auto)
    except (_TooLarge, RecursionError):
        return max(limit, cap * PER_STATE) * 1.01 + 1
    start = auto.position(0, 0)
    auto.follow[start].update(firsts)
    seconds = sum(COUNTER * bound * bound * (3 if kinds & _BROAD else 1) for bound, kinds in auto.counters)
    if seconds > limit:
        return seconds
    return seconds + _automaton_seconds(auto, limit - seconds)


def _automaton_seconds(auto: _Automaton, limit: float) -> float:
    """The work of xgrammar's compile at every state of the automaton (see the module's
    docstring): at depth k from a state, the token prefixes its characters admit times the
    states one prefix can be in, never more than the (string, path) pairs of length k. Past
    ``limit`` it stops counting and returns what it has.

    How many states one prefix can be in is first bounded reading every character as any
    other (fast); where that passes :data:`REFINE_FROM` it is counted again character by character (a
    separator that ends a repeat, like the dot of ``([a-z]{1,20}[.]){1,20}``, reads one way)."""
    n = len(auto.kinds)
    kinds = 0
    for k in auto.kinds:
        kinds |= k
    prefixes = PREFIXES.get(kinds or 1, PREFIXES[_ALL])
    depth_max = min(DEPTH, len(prefixes))
    succ = [sorted(f) for f in auto.follow]
    base = PER_STATE * n
    if base > limit:
        return base
    # paths[d][s]: (string, path) pairs of length d + 1 from s
    paths: list[list[float]] = []
    level = [1.0] * n
    for depth in range(depth_max):
        level = [min(sum(auto.sizes[t] * level[t] for t in succ[s]), 1e30) for s in range(n)]
        paths.append(level)
    if all(len(x) <= 1 for x in succ):
        return base + PER_PREFIX * sum(min(prefixes[d], p) for d in range(depth_max) for p in paths[d])
    # reach[s]: the states a string of the depth's length from s can end in, any character
    # standing for any other (a bit set)
    seconds = base
    reach = [1 << s for s in range(n)]
    deep = 0.0  # the units past the refinement's depth
    for depth in range(depth_max):
        reach = [_union(reach, succ[s]) for s in range(n)]
        units = sum(min(prefixes[depth] * r.bit_count(), p) for r, p in zip(reach, paths[depth]))
        seconds += PER_PREFIX * units
        if depth >= _REFINE_DEPTH:
            deep += PER_PREFIX * units
        if seconds > limit:
            break
    if seconds <= REFINE_FROM or seconds > limit:
        return seconds
    refined = _refined_seconds(auto, prefixes, paths[:_REFINE_DEPTH], limit - deep)
    return seconds if refined is None else min(seconds, refined + deep)


# Past this estimate (seconds) the states a prefix can be in are counted character by character.
REFINE_FROM = 0.2
# The work the refinement may do (subset steps) before it gives up (keeping the bound), and the
# depth it counts to (deeper prefixes are few: the bound stands for them).
_REFINE_WORK = 600_000
_REFINE_DEPTH = 12
# Distinct state sets kept per depth from one state; past it they are merged (a bound).
_REFINE_SETS = 16


def _refined_seconds(auto: _Automaton, prefixes: tuple, paths: list, limit: float) -> Optional[float]:
    """The automaton's work with the states a prefix can be in counted per string of
    characters (the characters grouped where every class of the pattern treats them alike): the
    most states any one string of each length reaches, an upper bound still. None if that takes
    too long to count."""
    n = len(auto.kinds)
    bounds = sorted({lo for r in auto.chars for lo, _ in r} | {hi + 1 for r in auto.chars for _, hi in r})
    atoms = [(a, b - 1) for a, b in zip(bounds, bounds[1:])]
    if len(atoms) <= 1:
        return None  # one kind of character: the bound is exact
    match = [0] * len(atoms)
    for p, ranges in enumerate(auto.chars):
        for i, (a, b) in enumerate(atoms):
            if any(lo <= a and b <= hi for lo, hi in ranges):
                match[i] |= 1 << p
    follow = [0] * n
    for p, f in enumerate(auto.follow):
        for q in f:
            follow[p] |= 1 << q
    after: dict[int, int] = {}
    work = 0
    seconds = PER_STATE * n
    for s in range(n):
        frontier = {1 << s}
        for depth in range(len(paths)):
            if paths[depth][s] == 0:
                break
            nxt: set[int] = set()
            for states in frontier:
                u = after.get(states)
                if u is None:
                    u = 0
                    x = states
                    while x:
                        low = x & -x
                        u |= follow[low.bit_length() - 1]
                        x ^= low
                    after[states] = u
                for m in match:
                    v = u & m
                    if v:
                        nxt.add(v)
                work += len(match)
            if not nxt:
                break
            if len(nxt) > _REFINE_SETS:
                merged = 0
                for v in nxt:
                    merged |= v
                nxt = {merged}
            most = max(v.bit_count() for v in nxt)
            seconds += PER_PREFIX * min(prefixes[depth] * most, paths[depth][s])
            frontier = nxt
        if seconds > limit:
            return seconds
        if work > _REFINE_WORK:
            return None
    return seconds


def _union(reach: list[int], states: list[int]) -> int:
    out = 0
    for t in states:
        out |= reach[t]
    return out


# ----------------------------------------------------------------------------- schemas


_PATTERN_ADVICE = (
    "write it with fewer or smaller bounded repeats (xgrammar unrolls each repeat of at most 128 into copies, and a "
    "repeat inside a repeat multiplies them: '([a-z]{1,100}){1,100}' is 10,000 states, each read in many ways; "
    "'[a-z]{1,10000}' is one counter)"
)


def schema_costs(schema: Any, native_lengths: bool = False, limit: float = math.inf) -> list[Cost]:
    """The costly things in a schema as xgrammar gets it, most costly first. ``native_lengths``:
    xgrammar holds ``minLength``/``maxLength`` itself (a parameter format's schema); otherwise
    they are the guard's and cost nothing here. A pattern's count stops past ``limit``."""
    try:
        text = json.dumps(schema, sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError):
        return []
    return list(_schema_costs(text, native_lengths, limit))


@lru_cache(maxsize=4096)
def _schema_costs(text: str, native_lengths: bool, limit: float) -> tuple[Cost, ...]:
    schema = json.loads(text)
    out: list[Cost] = []
    seen: set = set()  # xgrammar compiles a repeated pattern or bound once
    stack: list[tuple[Any, str]] = [(schema, "#")]
    while stack:
        node, path = stack.pop()
        if not isinstance(node, dict):
            continue
        for key in ("pattern",):
            if isinstance(node.get(key), str) and (key, node[key]) not in seen:
                seen.add((key, node[key]))
                seconds = OWN_PATTERN if node[key] in OWN_PATTERNS else pattern_seconds(node[key], limit)
                out.append(Cost(seconds, path, key, repr(node[key]), _PATTERN_ADVICE))
        if isinstance(node.get("patternProperties"), dict):
            for k in node["patternProperties"]:
                if ("pattern", k) not in seen:
                    seen.add(("pattern", k))
                    out.append(Cost(pattern_seconds(k, limit), f"{path}/patternProperties", "patternProperties", repr(k), _PATTERN_ADVICE))
        for key in ("enum", "const"):
            if key in node:
                values = node[key] if key == "enum" else [node[key]]
                chars = sum(len(json.dumps(v, ensure_ascii=False)) + 1 for v in values)
                out.append(Cost(ENUM_CHAR * chars, path, key, f"of {len(values)} values ({chars} characters)" if key == "enum" else f"of {chars} characters", "give it fewer or shorter values (or a 'pattern' that describes them)"))
        props = node.get("properties")
        if isinstance(props, dict) and props:
            optional = len(set(props) - set(node.get("required") or ()))
            seconds = PROPERTY * len(props) + OPTIONAL_PAIR * optional * optional
            out.append(Cost(seconds, path, "properties", f"of {len(props)} properties ({optional} optional)", "declare fewer properties, or make more of them required (xgrammar's automaton of optional properties grows with the square of their count)"))
        for key in ("anyOf", "oneOf"):
            if isinstance(node.get(key), list):
                out.append(Cost(PROPERTY * 4 * len(node[key]), path, key, f"of {len(node[key])} branches", "give it fewer branches"))
        if native_lengths and ("minLength" in node or "maxLength" in node) and "pattern" not in node:
            lo, hi = node.get("minLength", 0), node.get("maxLength")
            bound = max(lo, hi or 0)
            if ("lengths", lo, hi) not in seen:
                seen.add(("lengths", lo, hi))
                seconds = NATIVE_LENGTH * bound if bound <= UNROLL else 3.2
                shown = " and ".join(f"{k!r} {node[k]}" for k in ("minLength", "maxLength") if k in node)
                out.append(Cost(seconds, path, "maxLength" if hi is not None else "minLength", shown.split(" ", 1)[1] if " and " not in shown else shown, "lower the bound, or drop it (xgrammar unrolls a bounded string of a parameter format into a state per character)"))
        for key in ("properties", "patternProperties", "$defs", "definitions"):
            if isinstance(node.get(key), dict):
                stack.extend((v, f"{path}/{key}/{_pointer(k)}") for k, v in node[key].items())
        for key in ("items", "additionalProperties", "propertyNames"):
            if isinstance(node.get(key), dict):
                stack.append((node[key], f"{path}/{key}"))
        for key in ("prefixItems", "anyOf", "oneOf", "allOf"):
            if isinstance(node.get(key), list):
                stack.extend((v, f"{path}/{key}/{i}") for i, v in enumerate(node[key]))
    return tuple(sorted(out, key=lambda c: -c.seconds))


def _pointer(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def schema_seconds(schema: Any, native_lengths: bool = False) -> float:
    """The estimated seconds of xgrammar's compile of ``schema`` (see :func:`schema_costs`)."""
    return sum(c.seconds for c in schema_costs(schema, native_lengths))


# ----------------------------------------------------------------------------- refusals


def _seconds(s: float) -> str:
    if s >= 1e5:
        return "hours"
    return f"{s:.0f} s" if s >= 10 else f"{s:.1f} s" if s >= 0.95 else f"{s * 1000:.0f} ms"


def _budget_text(budget: float) -> str:
    return f"{_seconds(budget)} ({BUDGET_ENV})"


def check_schema(schema: Any, where: str, native_lengths: bool = False, budget: Optional[float] = None) -> float:
    """Refuse ``schema`` (a ``CompileBudgetError`` naming ``where``, the place, the keyword and
    what to do) if one thing in it, or all of it, passes the budget; else its estimated seconds."""
    limit = compile_budget(budget)
    costs = schema_costs(schema, native_lengths, limit)
    total = sum(c.seconds for c in costs)
    if total <= limit:
        return total
    worst = costs[0]
    if worst.seconds > limit:
        raise CompileBudgetError(
            f"{where}: the {worst.keyword!r} {worst.what} at {worst.path} would take xgrammar about "
            f"{_seconds(worst.seconds)} or more to compile (estimated; the budget is {_budget_text(limit)}): {worst.advice}, or raise {BUDGET_ENV}"
        )
    parts = ", ".join(f"the {c.keyword!r} at {c.path} ({_seconds(c.seconds)})" for c in costs[:3])
    raise CompileBudgetError(
        f"{where}: the schema would take xgrammar about {_seconds(total)} to compile (estimated; the budget is "
        f"{_budget_text(limit)}), most of it {parts}; simplify those, or raise {BUDGET_ENV}"
    )


@dataclass(frozen=True)
class Compiled:
    """One schema a grammar holds: what errors call it, the schema xgrammar gets, and whether
    xgrammar holds its lengths itself."""

    where: str
    schema: Any
    native_lengths: bool = False


def check_tool_set(schemas: list[Compiled], routed: bool = False, budget: Optional[float] = None) -> float:
    """Refuse a grammar's schemas by name past the budget: each alone (:func:`check_schema`),
    then together (a full grammar compiles them all at once, plus :data:`PER_TOOL` each; a
    routed one, one at a time). The estimated seconds otherwise."""
    limit = compile_budget(budget)
    each = [(s, check_schema(s.schema, s.where, s.native_lengths, limit)) for s in schemas]
    if routed:
        return max((sec for _, sec in each), default=0.0)
    distinct: dict[str, float] = {}
    for s, sec in each:
        try:
            key = json.dumps([s.schema, s.native_lengths], sort_keys=True)
        except (TypeError, ValueError):
            key = str(id(s))
        distinct[key] = sec
    total = sum(distinct.values()) + PER_TOOL * len(schemas)
    if total > limit:
        heaviest = sorted(each, key=lambda x: -x[1])[:3]
        named = ", ".join(f"{s.where} ({_seconds(sec)})" for s, sec in heaviest)
        raise CompileBudgetError(
            f"the {len(schemas)} schemas of this request would take xgrammar about {_seconds(total)} to compile together "
            f"(estimated; the budget is {_budget_text(limit)}), the most costly {named}; send fewer tools or simpler schemas, "
            f"or raise {BUDGET_ENV}"
        )
    return total


def check_spec(spec: Any, budget: Optional[float] = None) -> float:
    """:func:`check_tool_set` for a grammar spec (``structural_tag.GrammarSpec``): each tool
    held to its schema (a parameter format's with the lengths xgrammar holds itself), and the
    answer's schema; routed where the spec is. Its estimated seconds, or a
    ``CompileBudgetError`` naming what passes the budget."""
    xml = spec.format.tools.xml is not None
    items = [
        Compiled(t.schema.where, t.schema.bounded_schema if xml else t.schema.xgrammar_schema, native_lengths=xml)
        for t in spec.tools
        if t.level >= 2
    ]
    if spec.answer is not None:
        items.append(Compiled(spec.answer.where, spec.answer.xgrammar_schema))
    return check_tool_set(items, routed=spec.calls is not None, budget=budget)
