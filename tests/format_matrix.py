"""Which formats the expensive per-format suites run on (sampling under the grammar, the tool
room's walks, the property tests, forced-draft batches).

A format's *kind* is its layout (with the layout's options), its arguments style, and whether its
call, section, reasoning and response markers are special tokens, text or absent: formats of one
kind run mostly the same grammar and parser code on other markers. The default run (the README's
test command) runs those suites on the first format shipped of each kind;
``THINKGATE_TEST_FORMATS=rest`` on every other registered format, ``all`` on every one. CI runs
the default and then the rest (``.ci/run``), so every format is sampled on every submission. The
cheap suites (the peers' vectors, detect, each family's own tests) run on every format always.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any, Callable

from thinkgate.formats import ChatFormat, Text, names
from thinkgate.formats.base import template_parts
from thinkgate.formats.registry import shipped

_NOT_SHAPE = {"name", "aliases", "description"}


def shape(value: Any) -> Any:
    """``value`` (a format, or a part of one) with its markers reduced to their kinds."""
    if isinstance(value, Text):
        return "text" if value else ""
    if isinstance(value, str):
        if "{" in value:  # a header or footer template: its placeholders and where text stands
            return tuple(kind for kind, _ in template_parts(value))
        return "token" if value else ""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = dataclasses.fields(value)
        return (type(value).__name__, *((f.name, shape(getattr(value, f.name))) for f in fields if f.name not in _NOT_SHAPE))
    if isinstance(value, (tuple, list)):
        return tuple(shape(v) for v in value)
    if isinstance(value, (frozenset, set)):
        return tuple(sorted(map(repr, map(shape, value))))
    if isinstance(value, dict):
        return tuple(sorted((k, shape(v)) for k, v in value.items()))
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return type(value).__name__


def kind(fmt: ChatFormat) -> tuple:
    t, r = fmt.tools, fmt.reasoning
    # (the arguments style's options are left out: each family's own tests and the peers' vectors
    # read them in the default run, and CI's run of the rest samples them)
    return (shape(t.layout), type(t.arguments).__name__, shape(t.call), shape(t.section), shape((r.open, r.close)), shape(fmt.response))


def layout_kind(fmt: ChatFormat) -> tuple:
    """A coarser kind, for the costliest suites (forced-draft batches run a model): the layout,
    the arguments style, and whether the markup opens with a token or with text."""
    t = fmt.tools
    return (type(t.layout).__name__, type(t.arguments).__name__, shape(t.trigger))


def representatives(key: Callable[[ChatFormat], Any] = kind) -> list[str]:
    """The first shipped format of each ``key`` (a kind), sorted by name."""
    first: dict[Any, str] = {}
    for fmt in shipped():
        first.setdefault(key(fmt), fmt.name)
    return sorted(first.values())


MODES = ("", "rest", "all")


def formats_under_test(key: Callable[[ChatFormat], Any] = kind) -> list[str]:
    """The registered formats' names the expensive per-format suites run on, sorted, as
    ``THINKGATE_TEST_FORMATS`` says (unset: one of each ``key``, by default each kind)."""
    mode = os.environ.get("THINKGATE_TEST_FORMATS", "").lower()
    if mode not in MODES:
        raise ValueError(f"THINKGATE_TEST_FORMATS={mode!r}: expected one of 'rest', 'all' or nothing")
    if mode == "all":
        return names()
    chosen = representatives(key)
    return chosen if mode == "" else [n for n in names() if n not in chosen]
