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

What no value can satisfy is found here, never in xgrammar's compile (which fails inside an
engine step): bounds that hold no value (``minimum > maximum``, an integer range without an
integer, ``minItems > maxItems``, ...) take their type out of the schema; a place left with no
type at all is *unsatisfiable*. An optional property, an ``anyOf`` branch, ``items`` or
``additionalProperties`` that is unsatisfiable is simply never written; a required one makes the
whole schema unsatisfiable, which is refused with the keyword and its place. A schema in which
xgrammar still finds a fault is refused with the place where it lies.

Annotations (``title``, ``description``, ``default``, ``examples``, unknown keywords) are dropped.
"""

from __future__ import annotations

import copy
import logging
import math
import re
from dataclasses import dataclass
from typing import Any, Optional

import jsonschema

from .metaschema import flat_metaschema
from .schema_checks import MAX_SCHEMA_DEPTH, check_with_xgrammar, subschemas, too_deep
from .schema_nodes import Node, build_nodes, resolve_ref
from .schema_patterns import (
    FORBIDDEN_IN_PATTERN,
    FORMATS,
    SINGLE_REPEAT,
    bounded_format,
    language_size,
    optional_groups_as_ranges,
    pattern_width,
    searched,
    top_alternatives,
)

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
    # Where a string keeps a pattern beside a length bound (a repeat too long to fold in): the
    # guard holds the bound for JSON arguments; xgrammar's XML styles would drop it.
    unbounded_in_parameters: Optional[str] = None
    # What errors call the schema (``tool 'f'``): the exported tag's refusals name it too.
    where: str = ""


class _Refused(ValueError):
    pass


class _Unsatisfiable(Exception):
    """No value satisfies the schema at ``path`` (the caller may drop an optional place)."""

    def __init__(self, path: str, what: str, note: str = "") -> None:
        super().__init__(f"{what} at {path}{note}")
        self.path = path
        self.what = what
        self.note = note


# Integer bounds past this magnitude are clamped (xgrammar's ranges are 64-bit); a range
# wholly past it is refused.
INTEGER_LIMIT = 10**18


class _Context:
    def __init__(self, root: dict, where: str, unsupported: str) -> None:
        self.root = root
        self.where = where
        self.relax = unsupported == "relax"
        # "#/$defs/NAME" of definitions that no value satisfies: a $ref to one is unsatisfiable
        self.unsatisfiable: dict[str, _Unsatisfiable] = {}
        self.formats: dict[int, str] = {}  # the format a schema's pattern was made from, for errors
        self.key_patterns: dict[str, str] = {}  # a patternProperties key as read -> as written, for errors

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

    def never(self, path: str, what: str, note: str = "") -> None:
        """No value can satisfy the schema here."""
        raise _Unsatisfiable(path, what, note)


# (the published metaschema as one document: the same errors, seven times faster, see metaschema)
_META = jsonschema.Draft202012Validator(flat_metaschema(), format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def prepare(schema: Any, where: str, unsupported: str = "error", ask_xgrammar: bool = True) -> PreparedSchema:
    """Check ``schema`` and split it into what xgrammar enforces and what the guard enforces.

    ``where`` names the schema in errors (e.g. ``"tool 'get_weather'"``). Every problem is a
    ``ValueError`` naming the keyword and its place; ``None`` and ``{}`` (the usual "no
    arguments") mean an object with no required keys, and a schema without a type an object.
    ``ask_xgrammar=False`` leaves out xgrammar's own verdict (its import brings torch): the
    grammar's compile gives it then."""
    if unsupported not in ("error", "relax"):
        raise ValueError(f"unsupported must be 'error' or 'relax', not {unsupported!r}")
    if schema is None or schema == {}:
        schema = {"type": "object", "properties": {}}
    if not isinstance(schema, dict):
        raise ValueError(f"{where}: parameters must be a JSON schema object, not {type(schema).__name__}")
    deep = too_deep(schema)
    if deep is not None:
        shown = deep if len(deep) <= 120 else deep[:60] + "…" + deep[-60:]
        raise ValueError(f"{where}: the schema nests more than {MAX_SCHEMA_DEPTH} levels deep (at {shown}); flatten it")
    # Every error of the schema against the metaschema, and the first by place: the one
    # check_schema raises depends on the process's hash seed (a server and its client named
    # different places for one schema).
    errors = sorted(_META.iter_errors(schema), key=lambda e: ([str(p) for p in e.absolute_path], e.message))
    if errors:
        e = errors[0]
        path = "/".join(["#", *(str(p) for p in e.absolute_path)])
        raise ValueError(f"{where}: invalid JSON schema at {path}: {e.message}") from None
    if "type" in schema and schema["type"] != "object":
        raise ValueError(f"{where}: parameters must describe an object, not type {schema['type']!r}")
    if "type" not in schema:
        schema = {**schema, "type": "object"}  # the arguments are an object whatever else it says
    ctx = _Context(schema, where, unsupported)
    try:
        normal = _normalize(copy.deepcopy(schema), ctx, "#", top=True)
        nodes = build_nodes(normal)
    except _Unsatisfiable as e:
        raise ValueError(f"{where}: no arguments can satisfy the schema: {e}") from None
    except RecursionError:
        raise ValueError(f"{where}: the schema nests too deeply to be compiled; flatten it") from None
    except ValueError as e:
        raise ValueError(str(e) if isinstance(e, _Refused) else f"{where}: {e}") from None
    xgrammar_schema = _without_lengths(normal)
    if ask_xgrammar:
        check_with_xgrammar(xgrammar_schema, where)
    both = next((p for p, sub, _ in subschemas(normal, "#", 0) if isinstance(sub, dict) and "pattern" in sub and "maxLength" in sub), None)
    unbounded = None
    if both is not None:
        unbounded = f"{where}: 'maxLength' beside a 'pattern' at {both} cannot be enforced on a parameter's bare text; write the length into the pattern (at most {FOLD_LIMIT})"
    return PreparedSchema(xgrammar_schema, nodes, normal, unbounded, where)


def _normalize(node: Any, ctx: _Context, path: str, top: bool = False) -> Any:
    if node is True:
        return {}
    if node is False:
        ctx.never(path, "the schema false")
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in UNSUPPORTED:
            ctx.refuse(path, f"keyword {key!r}")
        elif key in ENFORCED or (top and key in ("$defs", "definitions")):
            out[key] = value
    # Definitions first, so that a $ref to one that no value satisfies is known where it is met.
    for key in ("$defs", "definitions"):
        if isinstance(out.get(key), dict):
            defs = {}
            for k, v in out[key].items():
                try:
                    defs[k] = _normalize(v, ctx, f"{path}/{key}/{k}")
                except _Unsatisfiable as e:
                    ctx.unsatisfiable[f"{path}/{key}/{_pointer(k)}"] = e
                    defs[k] = {}  # never reached: every $ref to it is unsatisfiable
            out[key] = defs
    if isinstance(out.get("patternProperties"), dict):
        read = {}
        for k, v in out["patternProperties"].items():
            full = _key_pattern(k, ctx, f"{path}/patternProperties/{k}")
            ctx.key_patterns.setdefault(full, k)
            read[full] = v
        out["patternProperties"] = read
    if isinstance(out.get("propertyNames"), dict):
        names = out["propertyNames"]
        if "pattern" in names:
            names["pattern"] = _key_pattern(names["pattern"], ctx, f"{path}/propertyNames")
        if "enum" in names or "const" in names:
            ctx.fail(f"{path}/propertyNames", "propertyNames from an enum or const (a finite set of keys) cannot be enforced without repeating keys; name those keys in 'properties'")
    _children(out, ctx, path, _normalize)

    if "allOf" in out:
        branches = out.pop("allOf")
        merged = out
        for i, branch in enumerate(branches):
            merged = _conjoin(merged, branch, ctx, f"{path}/allOf/{i}")
        # the merged places (items, properties, ...) are new conjunctions: finish them too
        out = _children(merged, ctx, path, _finish_deep)
    if "$ref" in out and out["$ref"] in ctx.unsatisfiable:
        ctx.never(path, f"$ref {out['$ref']!r} to a schema that no value can satisfy ({ctx.unsatisfiable[out['$ref']].what})")
    if "$ref" in out and len(set(out) - {"$ref", "$defs", "definitions"}) > 0:
        others = sorted(set(out) - {"$ref", "$defs", "definitions"})
        target = resolve_ref(out["$ref"], ctx.root)
        if _refers_to_itself(target, ctx.root):
            ctx.fail(path, f"keywords beside a recursive $ref ({', '.join(others)}) cannot be enforced")
        resolved = _normalize(copy.deepcopy(target), ctx, out["$ref"])
        rest = {k: v for k, v in out.items() if k != "$ref"}
        out = _children(_conjoin(resolved, rest, ctx, path), ctx, path, _finish_deep)
    for word in _COMBINATORS:
        if word in out:
            siblings = {k: v for k, v in out.items() if k not in (word, "$defs", "definitions")}
            if siblings:
                # xgrammar reads only the combinator: give each branch the siblings' constraints.
                branches = _satisfiable_branches(
                    out[word], ctx, f"{path}/{word}", lambda b, p: _finish_deep(_conjoin(b, siblings, ctx, p), ctx, p)
                )
                out = {word: branches} | {k: v for k, v in out.items() if k in ("$defs", "definitions")}
    raw = node.get("oneOf") if isinstance(node.get("oneOf"), list) else None
    if "oneOf" in out and not _disjoint(out["oneOf"], ctx, _raw_types(raw, node, ctx) if raw is not None else None):
        ctx.refuse(path, "'oneOf' whose branches may overlap (xgrammar checks only that one matches)")
        out["anyOf"] = out.pop("oneOf")
    return _finish(out, ctx, path)


# A key pattern whose keys are this few is refused: the guard never lets an object repeat a key,
# so once they are used a model that opened another key could not finish it.
FEW_KEYS = 256


def _key_pattern(pattern: str, ctx: _Context, path: str) -> str:
    """A key pattern (patternProperties, propertyNames) as the full match xgrammar reads, for the
    search JSON Schema means: ``^x`` is every key that starts with x (``^x.*``)."""
    checked = _checked_pattern(pattern, ctx, path)
    full = "|".join(searched(alt) for alt in top_alternatives(checked))
    if language_size(full) <= FEW_KEYS:
        ctx.fail(path, f"a key pattern {pattern!r} that admits only a few keys (a key is never written twice); name them in 'properties'")
    return full


def _children(out: Any, ctx: _Context, path: str, fn) -> Any:
    """``fn(schema, ctx, path)`` applied to every subschema of ``out`` (not its definitions),
    what no value satisfies handled by where it stands: an optional property, an anyOf
    branch, ``items`` or ``additionalProperties`` is never written; anything else makes
    ``out`` unsatisfiable."""
    if not isinstance(out, dict):
        return out
    if isinstance(out.get("patternProperties"), dict):
        kept = {}
        for k, v in out["patternProperties"].items():
            try:
                kept[k] = fn(v, ctx, f"{path}/patternProperties/{k}")
            except _Unsatisfiable as e:
                # The keys it matches cannot be written; they stay out only if nothing else
                # admits them. Kept as false until the properties it matches are read.
                if out.get("additionalProperties", False) is not False:
                    ctx.fail(f"{path}/patternProperties/{ctx.key_patterns.get(k, k)}", f"a patternProperties schema that no value can satisfy ({e.what}), whose keys additionalProperties would still admit")
                kept[k] = False
        out["patternProperties"] = kept
    if isinstance(out.get("properties"), dict):
        _normalize_properties(out, ctx, path, fn)
    if isinstance(out.get("items"), (dict, bool)):
        try:
            out["items"] = fn(out["items"], ctx, f"{path}/items")
        except _Unsatisfiable:
            out["items"] = False  # no item can be written past the prefix
    if isinstance(out.get("additionalProperties"), (dict, bool)):
        try:
            out["additionalProperties"] = fn(out["additionalProperties"], ctx, f"{path}/additionalProperties")
        except _Unsatisfiable:
            out["additionalProperties"] = False
    if isinstance(out.get("propertyNames"), (dict, bool)):
        try:
            out["propertyNames"] = fn(out["propertyNames"], ctx, f"{path}/propertyNames")
        except _Unsatisfiable:
            out.pop("propertyNames")  # no key can be written: the object is empty
            out["maxProperties"] = 0
    if isinstance(out.get("prefixItems"), list):
        prefix = []
        for i, v in enumerate(out["prefixItems"]):
            try:
                prefix.append(fn(v, ctx, f"{path}/prefixItems/{i}"))
            except _Unsatisfiable:
                out["items"] = False  # the array ends before the item that cannot be written
                break
        out["prefixItems"] = prefix
    for key in _COMBINATORS:
        if isinstance(out.get(key), list):
            out[key] = _satisfiable_branches(out[key], ctx, f"{path}/{key}", lambda b, p: fn(b, ctx, p))
    if isinstance(out.get("allOf"), list):
        out["allOf"] = [fn(v, ctx, f"{path}/allOf/{i}") for i, v in enumerate(out["allOf"])]
    return out


def _finish_deep(schema: Any, ctx: _Context, path: str) -> Any:
    """:func:`_finish` at every place of a schema that was conjoined from normalized parts."""
    if schema is True:
        return {}
    if schema is False:
        ctx.never(path, "the schema false")
    if not isinstance(schema, dict):
        return schema
    return _finish(_children(schema, ctx, path, _finish_deep), ctx, path)


def _pointer(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def _normalize_properties(out: dict, ctx: _Context, path: str, fn) -> None:
    """Each property's schema (``fn`` makes it); an optional one that no value satisfies is
    never written."""
    required = set(out.get("required") or ())
    kept, never = {}, []
    for k, v in out["properties"].items():
        try:
            value = fn(v, ctx, f"{path}/properties/{k}")
            # JSON Schema applies every patternProperties schema whose pattern the name
            # matches as well; xgrammar reads only properties'
            for schema in _matching_patterns(out, k):
                value = _finish_deep(_conjoin(value, schema, ctx, f"{path}/properties/{k}"), ctx, f"{path}/properties/{k}")
            kept[k] = value
        except _Unsatisfiable as e:
            if k in required:
                ctx.never(e.path, e.what, f"{e.note}, and property {k!r} is required")
            never.append((k, e))
    out["properties"] = kept
    for k, e in never:
        # xgrammar writes no key that properties and patternProperties lack while
        # additionalProperties is absent or false: only then does the key stay out.
        patterns = out.get("patternProperties") or {}
        if out.get("additionalProperties", False) is not False or any(v is not False and re.fullmatch(p, k) for p, v in patterns.items()):
            ctx.fail(f"{path}/properties/{k}", f"optional property {k!r} can take no value ({e.what}), but additionalProperties or patternProperties would let it be written")
        log.warning("%s: optional property %r at %s/properties/%s can take no value (%s): it is never written", ctx.where, k, path, k, e.what)


def _matching_patterns(out: dict, name: str) -> list:
    """The (normalized, full-match) patternProperties schemas that apply to the key ``name``."""
    return [v for p, v in (out.get("patternProperties") or {}).items() if re.fullmatch(p, name)]


def _value_of_undeclared(out: dict, name: str, ctx: _Context, path: str) -> Any:
    """The schema a key that ``properties`` lacks gets: the patternProperties it matches, else
    additionalProperties."""
    matching = _matching_patterns(out, name)
    if matching:
        value: Any = {}
        for schema in matching:
            value = _conjoin(value, schema, ctx, f"{path}/properties/{name}")
        return value
    extra = out.get("additionalProperties")
    return extra if isinstance(extra, dict) else {}


def _satisfiable_branches(branches: list, ctx: _Context, path: str, make) -> list:
    """The branches of an anyOf/oneOf that some value satisfies (``make(branch, path)`` builds
    each); none left is unsatisfiable."""
    kept, why = [], []
    for i, b in enumerate(branches):
        try:
            kept.append(make(b, f"{path}/{i}"))
        except _Unsatisfiable as e:
            why.append(f"{e.what} at {e.path}")
    if not kept:
        ctx.never(path, "no branch that some value satisfies (" + "; ".join(why) + ")")
    return kept


def _finish(out: dict, ctx: _Context, path: str) -> dict:
    """The steps after a schema's parts are normalized (again after siblings are conjoined into
    a branch): enum filtering, formats, patterns, integer bounds, required names, and the types
    whose bounds hold no value taken out."""
    if not isinstance(out, dict):
        return out
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
            ctx.formats[id(out)] = fmt
            out["pattern"] = FORMATS[out.pop("format")]
    if "pattern" in out:
        out["pattern"] = _checked_pattern(out["pattern"], ctx, path)
    if "required" in out:
        props = out.setdefault("properties", {})
        for name in out["required"]:
            if name not in props:
                if out.get("additionalProperties") is False:
                    ctx.fail(path, f"'required' names {name!r}, which additionalProperties: false forbids")
                # xgrammar forbids a required name that properties lacks: it gets the schema
                # such a key has (patternProperties it matches, else additionalProperties)
                props[name] = _finish_deep(copy.deepcopy(_value_of_undeclared(out, name, ctx, path)), ctx, f"{path}/properties/{name}")
    out = _settle_types(out, ctx, path)
    if isinstance(out.get("patternProperties"), dict) and False in out["patternProperties"].values():
        # read by properties, required and the object's bounds above; xgrammar takes no false schema
        out["patternProperties"] = {k: v for k, v in out["patternProperties"].items() if v is not False}
    if _types(out) == {"integer"}:
        _round_integer_bounds(out, ctx, path)
    elif "number" in (_types(out) or ()):
        _clamp_number_bounds(out, ctx, path)
    if "pattern" in out and ("minLength" in out or "maxLength" in out):
        _fold_lengths(out, ctx, path)
    return out


# Repeats up to this bound go into the pattern; xgrammar compiles longer ones slowly.
FOLD_LIMIT = 1000


def _fold_lengths(out: dict, ctx: _Context, path: str) -> None:
    """A string with a pattern and length bounds, as one thing xgrammar enforces exactly:
    xgrammar would follow the pattern and the guard the lengths, and a string the pattern
    lets start could then be one that no string within the lengths completes. Lengths the
    pattern already keeps go; a repeated character takes them into its repeat; anything
    else is refused."""
    lo, hi = out.get("minLength", 0), out.get("maxLength")
    pattern = out["pattern"]
    shortest, longest = pattern_width(pattern)
    if shortest >= lo and (hi is None or (longest is not None and longest <= hi)):
        out.pop("minLength", None)
        out.pop("maxLength", None)
        return
    m = SINGLE_REPEAT.fullmatch(pattern)
    if m is not None:
        atom, star, plus, a, comma, b = m.groups()
        first = 0 if star else 1 if plus else int(a)
        last = None if (star or plus or (comma and not b)) else int(b) if comma else int(a)
        first = max(first, lo)
        last = hi if last is None else (last if hi is None else min(last, hi))
        out.pop("minLength", None)
        if last is not None and last <= FOLD_LIMIT:
            out["pattern"] = f"^{atom}{{{first},{last}}}$"
            out.pop("maxLength", None)
        else:  # the guard keeps the upper bound: any string of the repeat can end anywhere
            out["pattern"] = f"^{atom}{{{first},}}$"
        return
    fmt = ctx.formats.get(id(out))
    if fmt is not None and hi is not None:
        # a format with no length bound of its own (email, uri): its pattern written within the
        # length, which xgrammar then holds exactly (see bounded_format)
        written = bounded_format(fmt, lo, hi)
        if written is not None:
            out["pattern"] = written
            out.pop("minLength", None)
            out.pop("maxLength", None)
            return
    what = f"'format' {fmt!r}" if fmt else f"'pattern' {pattern!r}"
    bounds = " and ".join(repr(k) for k in ("minLength", "maxLength") if k in out)
    ctx.refuse(path, f"{what} together with {bounds} (a string the pattern lets begin might be one that no string within the length completes; write the length into the pattern)")
    out.pop("minLength", None)  # relaxed: the pattern alone
    out.pop("maxLength", None)


def _settle_types(out: dict, ctx: _Context, path: str) -> dict:
    """Take out of ``out`` the types whose own keywords admit no value (``minimum > maximum``:
    no number; ``minLength > maxLength``: no string; ...), and write the types a schema without
    ``type`` means by its keywords (xgrammar would ignore ``maxItems`` or ``pattern`` there).
    No type left: unsatisfiable."""
    if any(k in out for k in ("enum", "const", "$ref", *_COMBINATORS)):
        return out
    types = _types(out)
    explicit = types is not None
    if types is None:
        types = {kind for kind, words in _KEYWORDS_OF_TYPE.items() if any(w in out for w in words)}
        if not types:
            return out  # any value
    types = set(types)
    why: list[str] = []
    if types & {"integer", "number"}:
        empty = _empty_number_range(out, integer="number" not in types)
        if empty:
            why.append(empty)
            types -= {"integer", "number"}
    if "string" in types:
        empty = _empty_string(out)
        if empty:
            why.append(empty)
            types.discard("string")
    if "array" in types:
        empty = _empty_array(out)
        if empty:
            why.append(empty)
            types.discard("array")
    if "object" in types:
        empty = _empty_object(out, ctx, path)
        if empty:
            why.append(empty)
            types.discard("object")
    if not types:
        ctx.never(path, "; ".join(why) if why else "no type")
    if why or not explicit:
        out["type"] = sorted(types) if len(types) > 1 else next(iter(types))
        out = _prune_by_type(out)
    return out


def _empty_number_range(s: dict, integer: bool) -> Optional[str]:
    lo, lo_open = s.get("minimum", -math.inf), False
    if "exclusiveMinimum" in s and s["exclusiveMinimum"] >= lo:
        lo, lo_open = s["exclusiveMinimum"], True
    hi, hi_open = s.get("maximum", math.inf), False
    if "exclusiveMaximum" in s and s["exclusiveMaximum"] <= hi:
        hi, hi_open = s["exclusiveMaximum"], True
    if integer:
        first = math.floor(lo) + 1 if lo_open and lo != -math.inf else (math.ceil(lo) if lo != -math.inf else lo)
        last = math.ceil(hi) - 1 if hi_open and hi != math.inf else (math.floor(hi) if hi != math.inf else hi)
        if first > last:
            return f"no integer lies between {_bound('minimum', lo, lo_open)} and {_bound('maximum', hi, hi_open)}"
        return None
    if lo > hi or (lo == hi and (lo_open or hi_open)):
        return f"no number lies between {_bound('minimum', lo, lo_open)} and {_bound('maximum', hi, hi_open)}"
    return None


def _bound(word: str, value: Any, exclusive: bool) -> str:
    name = "exclusive" + word[0].upper() + word[1:] if exclusive else word
    return f"{name!r} {value}"


def _empty_string(s: dict) -> Optional[str]:
    lo, hi = s.get("minLength", 0), s.get("maxLength")
    if hi is not None and lo > hi:
        return f"'minLength' {lo} is greater than 'maxLength' {hi}"
    if "pattern" in s:
        shortest, longest = pattern_width(s["pattern"])
        if hi is not None and shortest > hi:
            return f"'pattern' {s['pattern']!r} matches nothing as short as 'maxLength' {hi}"
        if longest is not None and longest < lo:
            return f"'pattern' {s['pattern']!r} matches nothing as long as 'minLength' {lo}"
    return None


def _empty_array(s: dict) -> Optional[str]:
    if "items" not in s and any(k in s for k in ("minItems", "maxItems", "prefixItems")):
        # JSON Schema admits any items here; xgrammar would read the absent keyword as false
        s["items"] = {}
    lo, hi = s.get("minItems", 0), s.get("maxItems")
    prefix = s.get("prefixItems") or []
    if s.get("items") is False and (hi is None or hi > len(prefix)):
        if lo > len(prefix):
            return f"'minItems' {lo} asks for more items than the {len(prefix)} that 'prefixItems' and 'items' admit"
    if hi is not None and lo > hi:
        return f"'minItems' {lo} is greater than 'maxItems' {hi}"
    if hi is not None and len(prefix) > hi:
        # items past maxItems are never written (xgrammar refuses a longer prefix)
        s["prefixItems"] = prefix[:hi]
        if not s["prefixItems"]:
            del s["prefixItems"]
    return None


def _empty_object(s: dict, ctx: _Context, path: str) -> Optional[str]:
    lo, hi = s.get("minProperties", 0), s.get("maxProperties")
    props = s.get("properties") or {}
    required = s.get("required") or []
    if hi is not None and lo > hi:
        return f"'minProperties' {lo} is greater than 'maxProperties' {hi}"
    if hi is not None and len(set(required)) > hi:
        return f"{len(set(required))} 'required' properties are more than 'maxProperties' {hi}"
    patterns = s.get("patternProperties") or {}
    live = any(v is not False for v in patterns.values())
    if lo > len(props) and not live and s.get("additionalProperties", False) is False:
        if "additionalProperties" in s:
            return f"'minProperties' {lo} asks for more properties than the {len(props)} that 'properties' names and additionalProperties: false allows"
        dead = next((k for k, v in patterns.items() if v is False), None)
        if dead is not None:
            # The other keys JSON Schema admits here must miss the pattern whose schema holds
            # nothing: a grammar cannot write "any key but these".
            ctx.fail(f"{path}/patternProperties/{ctx.key_patterns.get(dead, dead)}", f"a patternProperties schema that no value can satisfy, whose keys the other properties 'minProperties' {lo} asks for could match")
            return None
        # JSON Schema admits other keys here; xgrammar would read the absent keyword as false
        s["additionalProperties"] = True
    return None


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
        ctx.never(path, "a schema that no value can satisfy (false)")
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
    if "prefixItems" in a or "prefixItems" in b:
        # items applies past each side's own prefix: position by position, both sides hold
        pa, pb = a.get("prefixItems") or [], b.get("prefixItems") or []
        ia, ib = a.get("items", {}), b.get("items", {})
        prefix: list = []
        items: Any = False if ia is False or ib is False else None
        for i in range(max(len(pa), len(pb))):
            x, y = (pa[i] if i < len(pa) else ia), (pb[i] if i < len(pb) else ib)
            try:
                if x is False or y is False:
                    ctx.never(f"{path}/prefixItems/{i}", "the schema false")
                prefix.append(_conjoin(x, y, ctx, f"{path}/prefixItems/{i}"))
            except _Unsatisfiable:
                items = False  # the array ends before the item that cannot be written
                break
        if items is None:
            try:
                items = _conjoin(ia, ib, ctx, f"{path}/items")
            except _Unsatisfiable:
                items = False
        out["prefixItems"] = prefix
        out.pop("items", None)
        if items != {}:
            out["items"] = items
        b = {k: v for k, v in b.items() if k not in ("prefixItems", "items")}
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
                ctx.never(path, f"types {mine!r} and {value!r} that no value has both")
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
            # false there means "none may be written", which holds for the conjunction too
            out[key] = False if mine is False or value is False else _conjoin(mine, value, ctx, f"{path}/{key}")
        elif key == "enum":
            out[key] = [v for v in mine if v in value]
        elif key == "const":
            ctx.never(path, f"two different 'const' values {mine!r} and {value!r} that must both hold")
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
        ctx.never(path, "an enum/const that no value of its siblings' constraints can take")
    keep = {k: v for k, v in schema.items() if k in ("$defs", "definitions")}
    return keep | ({"const": values[0]} if "const" in schema else {"enum": values})


_ALL_TYPES = frozenset({"null", "boolean", "integer", "number", "string", "array", "object"})


def _branch_types(b: Any) -> Optional[set]:
    """The types a (normalized) branch admits, None for any."""
    if b is True or b == {}:
        return None
    if not isinstance(b, dict):
        return set()
    t = _types(b)
    if t is None and ("enum" in b or "const" in b):
        t = {_json_type(v) for v in (b["enum"] if "enum" in b else [b["const"]])}
    if t is not None and "number" in t:
        t = t | {"integer"}
    return t


def _raw_types(branches: list, node: dict, ctx: _Context) -> list[Optional[set]]:
    """The types each ``oneOf`` branch admits as written — before any narrowing (a schema
    without ``type`` admits every type). Narrowing a branch is exact only if what it keeps
    matches no other branch as written."""
    sibling = _branch_types({"type": node["type"]}) if "type" in node else None
    out = []
    for b in branches:
        if isinstance(b, dict) and "type" not in b and "$ref" in b:
            try:
                b = resolve_ref(b["$ref"], ctx.root)
            except ValueError:
                b = {}
        t = _branch_types(b) if isinstance(b, dict) and ("type" in b or "enum" in b or "const" in b) else (set() if b is False else None)
        if sibling is not None:
            t = sibling if t is None else t & sibling
        out.append(t)
    return out


def _disjoint(branches: list, ctx: _Context, raw: Optional[list] = None) -> bool:
    """Whether no value can match two ``oneOf`` branches (a conservative test: distinct types —
    as written, where ``raw`` gives them — or objects told apart by a required property with
    distinct constant values)."""
    kinds = [_branch_types(b) for b in branches] if raw is None else list(raw)
    kinds = [set(_ALL_TYPES) if k is None else k for k in kinds]
    if all(not (kinds[i] & kinds[j]) for i in range(len(kinds)) for j in range(i + 1, len(kinds))):
        return True
    kinds = [_branch_types(b) for b in branches]
    if not all(isinstance(b, dict) for b in branches):
        return False
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


# Number bounds past this magnitude are clamped (xgrammar compares them as doubles, which
# hold every integer only up to 2^53); a range wholly past it is refused.
NUMBER_LIMIT = 10**15


def _clamp_number_bounds(schema: dict, ctx: _Context, path: str) -> None:
    lows = [schema[k] for k in ("minimum", "exclusiveMinimum") if k in schema]
    highs = [schema[k] for k in ("maximum", "exclusiveMaximum") if k in schema]
    if any(v >= NUMBER_LIMIT for v in lows) or any(v <= -NUMBER_LIMIT for v in highs):
        bounds = ", ".join(f"{k!r} {schema[k]}" for k in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum") if k in schema)
        ctx.fail(path, f"number bounds past ±10^15 ({bounds}) cannot be enforced exactly")
    for key in ("minimum", "exclusiveMinimum"):
        if key in schema and schema[key] < -NUMBER_LIMIT:
            del schema[key]
            schema["minimum"] = max(schema.get("minimum", -NUMBER_LIMIT), -NUMBER_LIMIT)
    for key in ("maximum", "exclusiveMaximum"):
        if key in schema and schema[key] > NUMBER_LIMIT:
            del schema[key]
            schema["maximum"] = min(schema.get("maximum", NUMBER_LIMIT), NUMBER_LIMIT)


def _round_integer_bounds(schema: dict, ctx: _Context, path: str) -> None:
    """xgrammar refuses fractional integer bounds and bounds past 64 bits; the nearest whole
    bounds inside, clamped to ±:data:`INTEGER_LIMIT`, admit only integers the schema admits."""
    for key, fn in (("minimum", math.ceil), ("maximum", math.floor)):
        if isinstance(schema.get(key), float):
            schema[key] = int(fn(schema[key]))
    if isinstance(schema.get("exclusiveMinimum"), (int, float)):
        schema["minimum"] = max(schema.get("minimum", -math.inf), math.floor(schema.pop("exclusiveMinimum")) + 1)
    if isinstance(schema.get("exclusiveMaximum"), (int, float)):
        schema["maximum"] = min(schema.get("maximum", math.inf), math.ceil(schema.pop("exclusiveMaximum")) - 1)
    lo, hi = schema.get("minimum"), schema.get("maximum")
    if (lo is not None and lo > INTEGER_LIMIT) or (hi is not None and hi < -INTEGER_LIMIT):
        ctx.fail(path, f"integer bounds past ±10^18 ('minimum' {lo}, 'maximum' {hi}) cannot be enforced")
    if lo is not None and lo < -INTEGER_LIMIT:
        schema["minimum"] = -INTEGER_LIMIT
    if hi is not None and hi > INTEGER_LIMIT:
        schema["maximum"] = INTEGER_LIMIT


def _checked_pattern(pattern: str, ctx: _Context, path: str) -> str:
    """A pattern xgrammar reads as written. xgrammar matches it against the raw JSON text of the
    string, so a pattern that can produce a quote, a backslash or a control character would let
    invalid JSON through; lookarounds and back-references it drops or refuses."""
    try:
        re.compile(pattern)
    except re.error as e:
        ctx.fail(path, f"pattern {pattern!r} is not a valid regular expression ({e})")
    bad = FORBIDDEN_IN_PATTERN.search(pattern)
    if bad or "\\\\" in pattern or any(ord(c) < 0x20 for c in pattern):
        what = bad.group() if bad else "a backslash or control character"
        ctx.refuse(path, f"pattern {pattern!r} (it uses {what!r}, which xgrammar cannot match inside JSON text)")
        return "^.*$" if ctx.relax else pattern
    return optional_groups_as_ranges(pattern)


def _without_lengths(schema: Any) -> Any:
    """The schema xgrammar gets: strings without minLength/maxLength (the guard has them)."""
    if not isinstance(schema, dict):
        return schema
    out = {k: v for k, v in schema.items() if k not in ("minLength", "maxLength")}
    for key in ("properties", "patternProperties", "$defs", "definitions"):
        if isinstance(out.get(key), dict):
            out[key] = {k: _without_lengths(v) for k, v in out[key].items()}
    # propertyNames keep theirs: xgrammar bounds the keys, which the guard does not follow
    for key in ("items", "additionalProperties"):
        if isinstance(out.get(key), dict):
            out[key] = _without_lengths(out[key])
    for key in ("prefixItems", "anyOf", "oneOf", "allOf"):
        if isinstance(out.get(key), list):
            out[key] = [_without_lengths(v) for v in out[key]]
    return out
