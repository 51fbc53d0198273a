"""What the run-time guard needs of a tool's schema: string length bounds, by place in the JSON.

xgrammar is given every string without ``minLength``/``maxLength`` (a bounded string costs it
seconds to compile and mishandles escapes and control characters, xgrammar #800); the bounds
live here instead, in a tree that follows the schema's shape, and the guard enforces them as the
arguments are written.
"""

from __future__ import annotations

import json
import re
from typing import Any, Optional


class Node:
    """One place in the arguments: its children and, for a string, its length bounds."""

    __slots__ = ("props", "patterns", "additional", "items", "prefix", "min_len", "max_len", "alts", "_merged", "variants", "variant_key", "variant_of", "path", "free", "own", "_room")

    def __init__(self) -> None:
        self.props: dict[str, Node] = {}
        self.patterns: list[tuple[re.Pattern, Node]] = []
        self.additional: Optional[Node] = None
        self.items: Optional[Node] = None
        self.prefix: list[Node] = []
        self.min_len = 0
        self.max_len: Optional[int] = None
        self.alts: list[Node] = []  # nodes still to merge in (while building)
        # A call object (json_object layout): the node of property ``variant_of`` depends on
        # the string value of property ``variant_key`` (the tool's name).
        self.variants: Optional[dict[str, Node]] = None
        self.variant_key = ""
        self.variant_of = ""
        self._merged: dict[tuple, Node] = {}
        self.path = "#"  # where in the schema (for errors)
        # A string no grammar rule restricts (no pattern, format, enum, const; lengths are the
        # guard's): any text may be written in it and it may close after any character.
        self.free = False
        # What writing a value here commits the output to, in bytes (see own_room), and the
        # most of that anywhere in what may be written inside it (see room).
        self.own = 0
        self._room: Optional[int] = None

    @property
    def room(self) -> int:
        """The most a value begun anywhere inside this place commits the output to, in bytes,
        its key included (the room to finish a call keeps: see runtime/tool_room)."""
        if self._room is None:
            seen: set[int] = set()
            todo = list(self._children())
            own = key = 0
            while todo:
                n = todo.pop()
                if id(n) in seen:
                    continue
                seen.add(id(n))
                own = max(own, n.own)
                key = max([key, *(len(k.encode()) for k in n.props)])
                todo.extend(n._children())
            key = max([key, *(len(k.encode()) for k in self.props)])
            self._room = own + key + 8
        return self._room

    def _children(self) -> list:
        out = [*self.props.values(), *(n for _, n in self.patterns), *self.prefix]
        out += [n for n in (self.additional, self.items) if n is not None]
        return out + list((self.variants or {}).values())

    @property
    def bounded(self) -> bool:
        return self.min_len > 0 or self.max_len is not None

    def child(self, key: Optional[str], index: int) -> Optional[Node]:
        """The node of a member (``key``) or an item (``index``)."""
        if key is not None:
            found = [n for p, n in self.patterns if p.search(key)]
            if key in self.props:
                found.insert(0, self.props[key])
            if not found:
                return self.additional
            if len(found) == 1:
                return found[0]
            ids = tuple(id(n) for n in found)
            merged = self._merged.get(ids)
            if merged is None:
                merged = self._merged[ids] = Node()  # every match applies: the tightest bounds
                merged.free = True
                merged.own = max(n.own for n in found)
                for n in found:
                    _merge(merged, n)
            return merged
        if index < len(self.prefix):
            return self.prefix[index]
        return self.items


def call_object_node(name_key: str, arguments_key: str, tools: dict[str, "Node"], name_as_key: bool = False) -> Node:
    """The node of a call written as ``{name_key: NAME, arguments_key: ARGS}`` (``name_as_key``:
    as ``{NAME: ARGS}``, each tool's name the key of its arguments)."""
    node = Node()
    if name_as_key:
        node.props.update(tools)
        return node
    node.props[name_key] = Node()
    node.variants = dict(tools)
    node.variant_key = name_key
    node.variant_of = arguments_key
    return node


def resolve_ref(ref: str, root: Any) -> Any:
    """A local ``$ref`` (``#/$defs/X``, ``#/definitions/X``, ``#``)."""
    if not ref.startswith("#"):
        raise ValueError(f"only local $ref is supported, not {ref!r}")
    node = root
    for part in [p for p in ref[1:].split("/") if p]:
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            raise ValueError(f"$ref {ref!r} points nowhere in the schema")
    return node


def build_nodes(schema: Any, root: Any = None) -> Node:
    """The node tree of ``schema``. Alternatives (``anyOf``/``oneOf``/``allOf``, a ``$ref`` with
    siblings) are merged: a place any of them bounds gets the tightest bounds, which every
    alternative admits. Built in two passes, so that recursive schemas merge complete nodes."""
    memo: dict[int, Node] = {}
    node = _build(schema, schema if root is None else root, memo, "#")
    for n in list(memo.values()):
        _settle(n, set())
    for n in memo.values():
        if n.max_len is not None and n.min_len > n.max_len:
            raise ValueError(
                f"the string length bounds that apply together at {n.path} conflict (minLength "
                f"{n.min_len} > maxLength {n.max_len}): the run-time guard holds a string to the "
                "bounds of every alternative (anyOf/oneOf branches, $ref) at once"
            )
    return node


def _build(schema: Any, root: Any, memo: dict[int, Node], path: str) -> Node:
    if not isinstance(schema, dict):
        return Node()
    key = id(schema)
    if key in memo:
        return memo[key]
    if "$ref" in schema and set(schema) <= {"$ref", "$defs", "definitions"}:
        memo[key] = Node()  # a placeholder while the target is built (a reference to itself)
        memo[key].path = path
        memo[key].free = True  # (what its target is)
        ref = schema["$ref"]
        target = _build(resolve_ref(ref, root), root, memo, ref)
        memo[key].alts.append(target)
        return memo[key]
    node = memo[key] = Node()
    node.path = path
    node.free = _free_string(schema)
    node.own = own_room(schema, root)
    if "minLength" in schema:
        node.min_len = int(schema["minLength"])
    if "maxLength" in schema:
        node.max_len = int(schema["maxLength"])
    for name, prop in (schema.get("properties") or {}).items():
        node.props[name] = _build(prop, root, memo, f"{path}/properties/{name}")
    for pattern, prop in (schema.get("patternProperties") or {}).items():
        node.patterns.append((re.compile(pattern), _build(prop, root, memo, f"{path}/patternProperties/{pattern}")))
    for word, attr in (("additionalProperties", "additional"), ("items", "items")):
        if isinstance(schema.get(word), dict):
            setattr(node, attr, _build(schema[word], root, memo, f"{path}/{word}"))
    node.prefix = [_build(p, root, memo, f"{path}/prefixItems/{i}") for i, p in enumerate(schema.get("prefixItems") or ())]
    if "$ref" in schema:
        node.alts.append(_build(resolve_ref(schema["$ref"], root), root, memo, schema["$ref"]))
    for word in ("anyOf", "oneOf", "allOf"):
        node.alts.extend(_build(x, root, memo, f"{path}/{word}/{i}") for i, x in enumerate(schema.get(word, ())) if isinstance(x, dict))
    return node


_RULES = frozenset({"pattern", "format", "enum", "const", "anyOf", "oneOf", "allOf", "not", "$ref", "contentEncoding", "contentMediaType"})


def own_room(schema: dict, root: Any) -> int:
    """The longest a value written at this place may have to be, in bytes, once begun: its
    shortest (a token a byte writes any value), its longest enum member or constant, or its
    bounded length where a pattern or format decides what each character commits to."""
    from .examples import example_value

    texts = [json.dumps(v, ensure_ascii=False) for v in schema.get("enum") or ()]
    if "const" in schema:
        texts.append(json.dumps(schema["const"], ensure_ascii=False))
    for bound in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        if isinstance(schema.get(bound), (int, float)) and not isinstance(schema.get(bound), bool):
            texts.append(json.dumps(schema[bound]))  # (a number's first digits may commit to as many)
    if isinstance(schema.get("maxLength"), int) and (schema.get("pattern") or schema.get("format")):
        texts.append("x" * (schema["maxLength"] + 2))
    try:
        texts.append(json.dumps(example_value(schema, root, short=True), ensure_ascii=False))
    except Exception:  # a value the examples cannot write: the others stand
        pass
    return max((len(t.encode()) for t in texts), default=0)


def _free_string(schema: dict) -> bool:
    t = schema.get("type")
    return (t == "string" or (isinstance(t, list) and "string" in t)) and not _RULES.intersection(schema)


def _settle(node: Node, visiting: set[int]) -> None:
    if not node.alts or id(node) in visiting:
        return
    visiting.add(id(node))
    alts, node.alts = node.alts, []
    for alt in alts:
        _settle(alt, visiting)
        _merge(node, alt)


def _merge(into: Node, other: Node, _seen: set | None = None) -> None:
    seen = set() if _seen is None else _seen
    if into is other or (id(into), id(other)) in seen:
        return
    seen.add((id(into), id(other)))
    into.min_len = max(into.min_len, other.min_len)
    into.free = into.free and other.free
    into.own = max(into.own, other.own)
    if other.max_len is not None:
        into.max_len = other.max_len if into.max_len is None else min(into.max_len, other.max_len)
    for name, child in other.props.items():
        if name in into.props:
            _merge(into.props[name], child, seen)
        else:
            into.props[name] = child
    into.patterns.extend(p for p in other.patterns if p not in into.patterns)
    for attr in ("additional", "items"):
        mine, theirs = getattr(into, attr), getattr(other, attr)
        if theirs is None:
            continue
        if mine is None:
            setattr(into, attr, theirs)
        else:
            _merge(mine, theirs, seen)
    for i, p in enumerate(other.prefix):
        if i < len(into.prefix):
            _merge(into.prefix[i], p, seen)
        else:
            into.prefix.append(p)
