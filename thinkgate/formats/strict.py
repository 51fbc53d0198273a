"""Strict levels: how much of a tool call the grammar holds, and so what the parser checks.

One place for the rule, since the grammar (``constraint``) and the parser (``parsing``) must
agree on it: a call the grammar let through is a call, never an invalid one.

* 2 (the default): markup, tool names and arguments valid against each tool's schema.
* 1: markup and tool names; the arguments any JSON object (parameters: any readable ones).
* 0: parse only. Under tool_choice ``auto`` the answer after thinking is not constrained at
  all; a call is still read, its arguments unchecked.

Per tool, OpenAI's ``function.strict``: ``true`` holds that tool to its schema (2), ``false``
holds it to no more than its markup (at most 1: under a request at level 0 it stays 0, as
``false`` asks for less, not more), absent leaves the request's level.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

STRICT_LEVELS = (0, 1, 2)
DEFAULT_STRICT = 2


def check_strict(value: Any, name: str = "strict") -> int:
    """A request's strict level as given (0, 1, 2, or their digits); a ``ValueError`` naming
    ``name`` otherwise."""
    if isinstance(value, str) and value.strip() in ("0", "1", "2"):
        return int(value)
    if isinstance(value, bool) or value not in STRICT_LEVELS:
        raise ValueError(f"{name} must be 0 (parse only), 1 (markup and tool names) or 2 (full schemas), not {value!r}")
    return int(value)


def function_strict(function: Any, where: str) -> Optional[bool]:
    """A tool's own ``function.strict``: True, False or None (absent); anything else is a
    ``ValueError`` naming the tool (``where``)."""
    value = function.get("strict") if isinstance(function, Mapping) else None
    if value is not None and not isinstance(value, bool):
        raise ValueError(f"{where}: function.strict must be true or false, not {value!r}")
    return value


def tool_level(strict: Optional[bool], request: int) -> int:
    """The level of one tool: its own ``function.strict`` (see :func:`function_strict`) over
    the request's level."""
    if strict is True:
        return 2
    if strict is False:
        return min(request, 1)
    return request
