"""Checks of a whole tool schema that walk it without recursion or ask xgrammar: how deep it
nests, and whether xgrammar builds a grammar from it (and if not, where the fault lies)."""

from __future__ import annotations

import json
import re
from typing import Any, Optional

# How deep a schema document may nest (objects and arrays of the schema itself, about two per
# level of the arguments): deeper ones are refused by name before anything recurses into them.
MAX_SCHEMA_DEPTH = 128


def too_deep(schema: Any) -> Optional[str]:
    """The place where ``schema`` first nests deeper than :data:`MAX_SCHEMA_DEPTH`, or None
    (found without recursion, so that no depth can overflow the stack here)."""
    stack: list[tuple[Any, int, str]] = [(schema, 0, "#")]
    while stack:
        node, depth, path = stack.pop()
        if depth > MAX_SCHEMA_DEPTH and isinstance(node, (dict, list)):
            return path
        if isinstance(node, dict):
            stack.extend((v, depth + 1, f"{path}/{k}") for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, depth + 1, f"{path}/{i}") for i, v in enumerate(node))
    return None


def check_with_xgrammar(schema: Any, where: str) -> None:
    """Build xgrammar's grammar of ``schema`` (milliseconds, no tokenizer), so that a fault
    xgrammar finds is an error naming its place here, not a failed compile in an engine step."""
    import xgrammar as xgr

    try:
        xgr.Grammar.from_json_schema(json.dumps(schema), any_whitespace=True, strict_mode=True, max_whitespace_cnt=8)
    except Exception as e:  # xgrammar raises RuntimeError, and others for what it cannot read
        path, sub, message = locate_fault(schema, e)
        keys = ", ".join(repr(k) for k in sub if k not in ("$defs", "definitions")) if isinstance(sub, dict) else ""
        raise ValueError(
            f"{where}: the schema at {path} cannot be compiled ({message})" + (f"; its keywords: {keys}" if keys else "")
        ) from None


def xgrammar_message(e: BaseException) -> str:
    text = str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__
    return re.sub(r"^\[[0-9:]+\] \S+:[0-9]+: ", "", text)


def locate_fault(schema: Any, error: BaseException) -> tuple[str, Any, str]:
    """The deepest place whose schema alone (with the root's definitions) xgrammar refuses with
    the same message, and that message."""
    import xgrammar as xgr

    message = xgrammar_message(error)
    defs = {k: v for k, v in schema.items() if k in ("$defs", "definitions")} if isinstance(schema, dict) else {}
    best, best_sub, depth = "#", schema, 0
    for path, sub, d in subschemas(schema, "#", 0):
        if d <= depth or not isinstance(sub, dict):
            continue
        try:
            xgr.Grammar.from_json_schema(json.dumps({**defs, **sub}), any_whitespace=True, strict_mode=True, max_whitespace_cnt=8)
        except Exception as e:
            if xgrammar_message(e) == message:
                best, best_sub, depth = path, sub, d
    return best, best_sub, message


def subschemas(schema: Any, path: str, depth: int):
    yield path, schema, depth
    if not isinstance(schema, dict):
        return
    for key in ("properties", "patternProperties", "$defs", "definitions"):
        if isinstance(schema.get(key), dict):
            for k, v in schema[key].items():
                yield from subschemas(v, f"{path}/{key}/{k}", depth + 1)
    for key in ("items", "additionalProperties", "propertyNames"):
        if isinstance(schema.get(key), dict):
            yield from subschemas(schema[key], f"{path}/{key}", depth + 1)
    for key in ("prefixItems", "anyOf", "oneOf", "allOf"):
        if isinstance(schema.get(key), list):
            for i, v in enumerate(schema[key]):
                yield from subschemas(v, f"{path}/{key}/{i}", depth + 1)
