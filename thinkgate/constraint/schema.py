"""Tool schemas, checked and rewritten into what xgrammar enforces exactly.

xgrammar 0.2.8 enforces much of JSON Schema, but silently drops some keywords and misreads a few
constructs (measured, see ``docs`` in the README). Every keyword of a tool's schema therefore
ends up in one of four places:

* enforced by xgrammar as written (``type``, ``properties``, ``required``, ``items``, bounds,
  ``enum``, ``anyOf``, local ``$ref``, ...);
* rewritten first into an equivalent form xgrammar reads correctly: ``allOf`` merged into one
  schema, keywords beside ``anyOf``/``oneOf`` distributed into each branch, ``enum``/``const``
  filtered by their sibling keywords, ``format`` replaced by an exact pattern, ``(...)?`` written
  ``(...){0,1}``, integer bounds rounded inwards, names in ``required`` that ``properties`` lacks
  added to it;
* enforced at run time by the guard (``minLength``/``maxLength``, no duplicate keys, no lone
  surrogates);
* refused: a schema using a keyword thinkgate cannot enforce (``not``, ``if``, ``uniqueItems``,
  ``contains``, ``multipleOf``, ``oneOf`` with branches that may overlap, ...) raises an error
  naming the keyword and where it is, unless ``unsupported="relax"`` asks for it to be dropped.

Annotations (``title``, ``description``, ``default``, ``examples``, unknown keywords) are dropped.
"""

from __future__ import annotations

import copy
import logging
import math
import re
from dataclasses import dataclass
from typing import Any

import jsonschema

from .schema_nodes import Node, build_nodes, resolve_ref

log = logging.getLogger("thinkgate.constraint")

# Validation keywords xgrammar enforces as written.
ENFORCED = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "patternProperties",
        "propertyNames",
        "minProperties",
        "maxProperties",
        "items",
        "prefixItems",
        "minItems",
        "maxItems",
        "enum",
        "const",
        "anyOf",
        "oneOf",
        "allOf",
        "$ref",
        "$defs",
        "definitions",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "pattern",
        "format",
        "minLength",
        "maxLength",
    }
)
# Validation keywords of JSON Schema 2020-12 that thinkgate cannot enforce.
UNSUPPORTED = frozenset(
    {
        "not",
        "if",
        "then",
        "else",
        "dependentRequired",
        "dependentSchemas",
        "dependencies",
        "uniqueItems",
        "contains",
        "minContains",
        "maxContains",
        "unevaluatedProperties",
        "unevaluatedItems",
        "multipleOf",
        "additionalItems",
        "$dynamicRef",
        "$recursiveRef",
    }
)
# Keywords that only say how the value is used (or are not JSON Schema at all): dropped.
# Everything neither enforced nor unsupported is treated so, as JSON Schema itself does.

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

_ANNOTATION_ONLY = object()
_COMBINATORS = ("anyOf", "oneOf")


@dataclass
class PreparedSchema:
    """A tool's schema as xgrammar gets it, and the bounds and keys the guard keeps."""

    xgrammar_schema: dict | bool
    nodes: Node
    # With the length bounds: for arguments written as parameters (xgrammar's XML styles), where
    # xgrammar enforces the bounds of a bare-text string itself and the guard does not follow.
    bounded_schema: dict | bool = True


class _Refused(ValueError):
    pass


class _Context:
    def __init__(self, root: dict, where: str, unsupported: str) -> None:
        self.root = root
        self.where = where
        self.relax = unsupported == "relax"

    def refuse(self, path: str, what: str) -> None:
        """A keyword thinkgate cannot enforce: an error, or (relaxed) a warning and a drop."""
        if self.relax:
            log.warning("%s: %s at %s is not enforced (dropped, unsupported='relax')", self.where, what, path)
            return
        raise _Refused(
            f"{self.where}: {what} at {path} cannot be enforced by thinkgate; "
            "remove it, or pass unsupported='relax' to drop it"
        )

    def fail(self, path: str, what: str) -> None:
        raise _Refused(f"{self.where}: {what} at {path}")


def prepare(schema: Any, where: str, unsupported: str = "error") -> PreparedSchema:
    """Check ``schema`` and split it into what xgrammar enforces and what the guard enforces.

    ``where`` names the schema in errors (e.g. ``"tool 'get_weather'"``)."""
    if unsupported not in ("error", "relax"):
        raise ValueError(f"unsupported must be 'error' or 'relax', not {unsupported!r}")
    if schema is None:
        schema = {"type": "object", "properties": {}}
    if not isinstance(schema, dict):
        raise ValueError(f"{where}: parameters must be a JSON schema object, not {type(schema).__name__}")
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as e:
        path = "/".join(str(p) for p in e.absolute_path) or "(root)"
        raise ValueError(f"{where}: invalid JSON schema at {path}: {e.message}") from None
    if "type" in schema and schema["type"] != "object":
        raise ValueError(f"{where}: parameters must describe an object, not type {schema['type']!r}")
    ctx = _Context(schema, where, unsupported)
    try:
        normal = _normalize(copy.deepcopy(schema), ctx, "#", top=True)
        nodes = build_nodes(normal)
    except ValueError as e:
        raise ValueError(str(e) if isinstance(e, _Refused) else f"{where}: {e}") from None
    return PreparedSchema(_without_lengths(normal), nodes, normal)


def _normalize(node: Any, ctx: _Context, path: str, top: bool = False) -> Any:
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in UNSUPPORTED:
            ctx.refuse(path, f"keyword {key!r}")
        elif key in ENFORCED or (top and key in ("$defs", "definitions")):
            out[key] = value
    # subschemas first
    for key in ("properties", "patternProperties", "$defs", "definitions"):
        if isinstance(out.get(key), dict):
            out[key] = {k: _normalize(v, ctx, f"{path}/{key}/{k}") for k, v in out[key].items()}
    for key in ("items", "additionalProperties", "propertyNames"):
        if isinstance(out.get(key), dict):
            out[key] = _normalize(out[key], ctx, f"{path}/{key}")
    for key in ("prefixItems", "anyOf", "oneOf", "allOf"):
        if isinstance(out.get(key), list):
            out[key] = [_normalize(v, ctx, f"{path}/{key}/{i}") for i, v in enumerate(out[key])]

    if "allOf" in out:
        branches = out.pop("allOf")
        merged = out
        for i, branch in enumerate(branches):
            merged = _conjoin(merged, branch, ctx, f"{path}/allOf/{i}")
        out = merged
    if "$ref" in out and len(set(out) - {"$ref", "$defs", "definitions"}) > 0:
        others = sorted(set(out) - {"$ref", "$defs", "definitions"})
        target = resolve_ref(out["$ref"], ctx.root)
        if _refers_to_itself(target, ctx.root):
            ctx.fail(path, f"keywords beside a recursive $ref ({', '.join(others)}) cannot be enforced")
        resolved = _normalize(copy.deepcopy(target), ctx, out["$ref"])
        rest = {k: v for k, v in out.items() if k != "$ref"}
        out = _conjoin(resolved, rest, ctx, path)
    for word in _COMBINATORS:
        if word in out:
            siblings = {k: v for k, v in out.items() if k not in (word, "$defs", "definitions")}
            if siblings:
                # xgrammar reads only the combinator: give each branch the siblings' constraints.
                out = {word: [_conjoin(b, siblings, ctx, f"{path}/{word}/{i}") for i, b in enumerate(out[word])]} | {
                    k: v for k, v in out.items() if k in ("$defs", "definitions")
                }
    if "oneOf" in out and not _disjoint(out["oneOf"], ctx):
        ctx.refuse(path, "'oneOf' whose branches may overlap (xgrammar checks only that one matches)")
        out["anyOf"] = out.pop("oneOf")
    if "enum" in out or "const" in out:
        out = _filter_enum(out, ctx, path)
    if "format" in out:
        fmt = out["format"]
        if not _is_string_schema(out):
            out.pop("format")  # a format on a non-string constrains nothing
        elif fmt not in FORMATS:
            ctx.refuse(path, f"string format {fmt!r}")
            out.pop("format")
        elif "pattern" in out:
            ctx.refuse(path, f"string format {fmt!r} together with a pattern")
            out.pop("format")
        else:
            out["pattern"] = FORMATS[out.pop("format")]
    if "pattern" in out:
        out["pattern"] = _checked_pattern(out["pattern"], ctx, path)
    if _types(out) == {"integer"}:
        _round_integer_bounds(out)
    if "required" in out:
        props = out.setdefault("properties", {})
        for name in out["required"]:
            if name not in props:
                if out.get("additionalProperties") is False:
                    ctx.fail(path, f"'required' names {name!r}, which additionalProperties: false forbids")
                # xgrammar forbids a required name that properties lacks; any value will do
                props[name] = {}
    return out


def _types(schema: dict) -> set[str] | None:
    t = schema.get("type")
    if t is None:
        return None
    return {t} if isinstance(t, str) else set(t)


def _is_string_schema(schema: dict) -> bool:
    t = _types(schema)
    return t is None or "string" in t


def _refers_to_itself(target: Any, root: Any) -> bool:
    seen: set[int] = set()
    stack = [target]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if id(node) in seen:
                continue
            seen.add(id(node))
            ref = node.get("$ref")
            if isinstance(ref, str):
                resolved = resolve_ref(ref, root)
                if resolved is target:
                    return True
                stack.append(resolved)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


_MIN_KEYS = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
_MAX_KEYS = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")


def _conjoin(a: Any, b: Any, ctx: _Context, path: str) -> Any:
    """One schema that means ``a`` and ``b`` both hold, or an error if it cannot be written so."""
    if b is True or b == {}:
        return a
    if a is True or a == {}:
        return b
    if a is False or b is False:
        ctx.fail(path, "a schema that no value can satisfy")
    for side in (a, b):
        if "$ref" in side:
            target = resolve_ref(side["$ref"], ctx.root)
            if _refers_to_itself(target, ctx.root):
                ctx.fail(path, "a recursive $ref inside allOf cannot be merged")
    a = _inline_ref(a, ctx)
    b = _inline_ref(b, ctx)
    for word in _COMBINATORS:
        if word in a and word in b:
            ctx.fail(path, f"two {word} lists that must both hold cannot be merged")
        if word in b:
            a, b = b, a
        if word in a:
            rest = {k: v for k, v in a.items() if k != word}
            both = _conjoin(rest, b, ctx, path) if rest else b
            return {word: [_conjoin(branch, both, ctx, f"{path}/{word}/{i}") for i, branch in enumerate(a[word])]}
    out = dict(a)
    for key, value in b.items():
        if key not in out:
            out[key] = value
            continue
        mine = out[key]
        if key == "type":
            ta, tb = _types(out) or set(), _types(b) or set()
            common = ta & tb
            if ("integer" in ta and "number" in tb) or ("number" in ta and "integer" in tb):
                common.add("integer")
            if not common:
                ctx.fail(path, f"types {mine!r} and {value!r} that no value has both")
            out[key] = sorted(common) if len(common) > 1 else next(iter(common))
        elif key in _MIN_KEYS:
            out[key] = max(mine, value)
        elif key in _MAX_KEYS:
            out[key] = min(mine, value)
        elif key == "required":
            out[key] = list(dict.fromkeys([*mine, *value]))
        elif key in ("properties", "patternProperties"):
            merged = dict(mine)
            for name, sub in value.items():
                merged[name] = _conjoin(merged[name], sub, ctx, f"{path}/{key}/{name}") if name in merged else sub
            out[key] = merged
        elif key in ("items", "additionalProperties", "propertyNames"):
            out[key] = _conjoin(mine, value, ctx, f"{path}/{key}")
        elif key == "enum":
            out[key] = [v for v in mine if v in value]
        elif mine != value:
            ctx.fail(path, f"two different {key!r} that must both hold cannot be merged")
    return _prune_by_type(out)


_KEYWORDS_OF_TYPE = {
    "number": ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"),
    "string": ("pattern", "format", "minLength", "maxLength"),
    "object": ("properties", "required", "additionalProperties", "patternProperties", "propertyNames", "minProperties", "maxProperties"),
    "array": ("items", "prefixItems", "minItems", "maxItems"),
}


def _prune_by_type(schema: dict) -> dict:
    """Drop the keywords that apply only to types the schema excludes (they constrain nothing
    there, and xgrammar can misread them)."""
    types = _types(schema)
    if types is None:
        return schema
    kinds = set(types) | ({"number"} if "integer" in types else set())
    drop = {k for kind, words in _KEYWORDS_OF_TYPE.items() if kind not in kinds for k in words}
    return {k: v for k, v in schema.items() if k not in drop}


def _inline_ref(schema: dict, ctx: _Context) -> dict:
    if "$ref" not in schema:
        return schema
    target = copy.deepcopy(resolve_ref(schema["$ref"], ctx.root))
    rest = {k: v for k, v in schema.items() if k != "$ref"}
    return _conjoin(_normalize(target, ctx, schema["$ref"]), rest, ctx, schema["$ref"]) if rest else _normalize(target, ctx, schema["$ref"])


def _filter_enum(schema: dict, ctx: _Context, path: str) -> dict:
    """``enum``/``const`` with sibling keywords, which xgrammar would drop: keep only the values
    the siblings admit, and drop the siblings."""
    values = schema["enum"] if "enum" in schema else [schema["const"]]
    siblings = {k: v for k, v in schema.items() if k not in ("enum", "const", "$defs", "definitions")}
    if siblings:
        check = jsonschema.Draft202012Validator(siblings | {k: v for k, v in ctx.root.items() if k in ("$defs", "definitions")}, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
        values = [v for v in values if check.is_valid(v)]
    if not values:
        ctx.fail(path, "an enum/const that no value of its siblings' constraints can take")
    keep = {k: v for k, v in schema.items() if k in ("$defs", "definitions")}
    return keep | ({"const": values[0]} if "const" in schema else {"enum": values})


def _disjoint(branches: list, ctx: _Context) -> bool:
    """Whether no value can match two ``oneOf`` branches (a conservative test: distinct types,
    or objects told apart by a required property with distinct constant values)."""
    kinds = []
    for b in branches:
        if not isinstance(b, dict):
            return False
        t = _types(b)
        if t is None and ("enum" in b or "const" in b):
            vals = b["enum"] if "enum" in b else [b["const"]]
            t = {_json_type(v) for v in vals}
        if t is None:
            return False
        if "number" in t:
            t = t | {"integer"}
        kinds.append(t)
    if all(not (kinds[i] & kinds[j]) for i in range(len(kinds)) for j in range(i + 1, len(kinds))):
        return True
    # objects with a discriminating property
    if all(k == {"object"} for k in kinds):
        common = set.intersection(*(set(b.get("required", ())) for b in branches))
        for name in common:
            seen: list[set] = []
            for b in branches:
                sub = (b.get("properties") or {}).get(name, {})
                vals = sub.get("enum") if "enum" in sub else ([sub["const"]] if "const" in sub else None)
                if vals is None:
                    break
                seen.append({repr(v) for v in vals})
            else:
                if all(not (seen[i] & seen[j]) for i in range(len(seen)) for j in range(i + 1, len(seen))):
                    return True
    return False


def _json_type(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    return "array" if isinstance(v, list) else "object"


def _round_integer_bounds(schema: dict) -> None:
    """xgrammar refuses fractional integer bounds; the nearest whole bounds inside mean the same."""
    for key, fn in (("minimum", math.ceil), ("maximum", math.floor)):
        if isinstance(schema.get(key), float):
            schema[key] = int(fn(schema[key]))
    if isinstance(schema.get("exclusiveMinimum"), (int, float)):
        schema["minimum"] = max(schema.get("minimum", -math.inf), math.floor(schema.pop("exclusiveMinimum")) + 1)
    if isinstance(schema.get("exclusiveMaximum"), (int, float)):
        schema["maximum"] = min(schema.get("maximum", math.inf), math.ceil(schema.pop("exclusiveMaximum")) - 1)


_FORBIDDEN_IN_PATTERN = re.compile(r'\\[sSbBpPnrtfv0-9]|\\[xu]|"|\(\?[=!<]')


def _checked_pattern(pattern: str, ctx: _Context, path: str) -> str:
    """A pattern xgrammar reads as written. xgrammar matches it against the raw JSON text of the
    string, so a pattern that can produce a quote, a backslash or a control character would let
    invalid JSON through; lookarounds and back-references it drops or refuses."""
    try:
        re.compile(pattern)
    except re.error as e:
        ctx.fail(path, f"pattern {pattern!r} is not a valid regular expression ({e})")
    bad = _FORBIDDEN_IN_PATTERN.search(pattern)
    if bad or "\\\\" in pattern or any(ord(c) < 0x20 for c in pattern):
        what = bad.group() if bad else "a backslash or control character"
        ctx.refuse(path, f"pattern {pattern!r} (it uses {what!r}, which xgrammar cannot match inside JSON text)")
        return "^.*$" if ctx.relax else pattern
    return optional_groups_as_ranges(pattern)


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


def _without_lengths(schema: Any) -> Any:
    """The schema xgrammar gets: strings without minLength/maxLength (the guard has them)."""
    if not isinstance(schema, dict):
        return schema
    out = {k: v for k, v in schema.items() if k not in ("minLength", "maxLength")}
    for key in ("properties", "patternProperties", "$defs", "definitions"):
        if isinstance(out.get(key), dict):
            out[key] = {k: _without_lengths(v) for k, v in out[key].items()}
    for key in ("items", "additionalProperties", "propertyNames"):
        if isinstance(out.get(key), dict):
            out[key] = _without_lengths(out[key])
    for key in ("prefixItems", "anyOf", "oneOf", "allOf"):
        if isinstance(out.get(key), list):
            out[key] = [_without_lengths(v) for v in out[key]]
    return out
