"""Example values for a JSON schema: what ``thinkgate inspect`` shows as a valid call."""

from __future__ import annotations

import re
from typing import Any

try:
    from re import _parser as _sre  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_parse as _sre  # type: ignore[no-redef]

_FORMAT_EXAMPLES = {
    "date-time": "2025-01-31T12:00:00Z",
    "date": "2025-01-31",
    "time": "12:00:00Z",
    "uuid": "123e4567-e89b-12d3-a456-426614174000",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "email": "user@example.com",
    "idn-email": "user@example.com",
    "uri": "https://example.com/path",
    "iri": "https://example.com/path",
}


def example_value(schema: Any, root: Any = None, depth: int = 0, short: bool = False) -> Any:
    """A simple value the schema admits (required properties only; bounds respected).
    ``short``: a string without a format or pattern is as short as its bounds allow."""
    root = schema if root is None else root
    if not isinstance(schema, dict) or depth > 8:
        return None
    if "$ref" in schema:
        from .schema_nodes import resolve_ref

        return example_value(resolve_ref(schema["$ref"], root), root, depth + 1, short)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    for word in ("anyOf", "oneOf", "allOf"):
        if schema.get(word):
            return example_value(schema[word][0], root, depth + 1, short)
    t = schema.get("type", "object" if "properties" in schema else "string")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), "null")
    if t == "object":
        props = schema.get("properties") or {}
        return {k: example_value(props.get(k, {}), root, depth + 1, short) for k in schema.get("required", [])}
    if t == "array":
        n = schema.get("minItems", 0)
        return [example_value(schema.get("items", {}), root, depth + 1, short) for _ in range(n)]
    if t in ("integer", "number"):
        lo = schema.get("minimum", schema.get("exclusiveMinimum", -1) + 1 if "exclusiveMinimum" in schema else 0)
        hi = schema.get("maximum", lo)
        value = lo if lo <= hi else hi
        return int(value) if t == "integer" else value
    if t == "boolean":
        return True
    if t == "null":
        return None
    if "pattern" in schema:
        return _matching(schema["pattern"])
    text = _FORMAT_EXAMPLES.get(schema.get("format", ""), "" if short else "example")
    lo, hi = schema.get("minLength", 0), schema.get("maxLength")
    if hi is not None:
        text = text[:hi]
    return text + "x" * max(0, lo - len(text))


def _matching(pattern: str) -> str:
    """A short string the regular expression matches in full (the first of each alternative, the
    fewest repeats, the first character of each class)."""
    out: list[str] = []

    def walk(items) -> None:
        for op, av in items:
            name = str(op)
            if name == "LITERAL":
                out.append(chr(av))
            elif name == "ANY":
                out.append("a")
            elif name == "NOT_LITERAL":
                out.append("b" if chr(av) == "a" else "a")
            elif name == "IN":
                out.append(_first_in(av))
            elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
                lo, _, sub = av
                for _ in range(lo):
                    walk(sub)
            elif name == "SUBPATTERN":
                walk(av[-1])
            elif name == "BRANCH":
                walk(av[1][0])
    walk(_sre.parse(pattern))
    text = "".join(out)
    return text if re.search(pattern, text) else "example"


def _first_in(items) -> str:
    negate = any(str(op) == "NEGATE" for op, _ in items)
    if negate:
        banned = {chr(av) for op, av in items if str(op) == "LITERAL"}
        return next(c for c in "abcXYZ019" if c not in banned)
    op, av = items[0]
    name = str(op)
    if name == "LITERAL":
        return chr(av)
    if name == "RANGE":
        return chr(av[0])
    if name == "CATEGORY":
        return {"CATEGORY_DIGIT": "0", "CATEGORY_SPACE": " ", "CATEGORY_WORD": "a"}.get(str(av), "a")
    return "a"
