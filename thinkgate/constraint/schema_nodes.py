"""What the run-time guard needs of a tool's schema: string length bounds, by place in the JSON.

xgrammar is given every string without ``minLength``/``maxLength`` (a bounded string costs it
seconds to compile and mishandles escapes and control characters, xgrammar #800); the bounds
live here instead, in a tree that follows the schema's shape, and the guard enforces them as the
arguments are written.
"""

from __future__ import annotations

import re
from typing import Any, Optional


class Node:
    """One place in the arguments: its children and, for a string, its length bounds."""

    __slots__ = ("props", "patterns", "additional", "items", "prefix", "min_len", "max_len", "_merged")

    def __init__(self) -> None:
        self.props: dict[str, Node] = {}
        self.patterns: list[tuple[re.Pattern, Node]] = []
        self.additional: Optional[Node] = None
        self.items: Optional[Node] = None
        self.prefix: list[Node] = []
        self.min_len = 0
        self.max_len: Optional[int] = None
        self._merged: dict[tuple, Node] = {}

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
                for n in found:
                    _merge(merged, n)
            return merged
        if index < len(self.prefix):
            return self.prefix[index]
        return self.items

    def is_trivial(self) -> bool:
        """Nothing bounded anywhere below (the guard can skip this subtree)."""
        seen: set[int] = set()
        stack: list[Node] = [self]
        while stack:
            n = stack.pop()
            if id(n) in seen:
                continue
            seen.add(id(n))
            if n.bounded:
                return False
            stack.extend(n.props.values())
            stack.extend(x for _, x in n.patterns)
            stack.extend(n.prefix)
            stack.extend(x for x in (n.additional, n.items) if x is not None)
        return True


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


def build_nodes(schema: Any, root: Any = None, _memo: dict | None = None) -> Node:
    """The node tree of ``schema``. Alternatives (``anyOf``/``oneOf``/``allOf``, type lists) are
    merged: a place any of them bounds gets the tightest bounds, which every alternative admits."""
    if root is None:
        root = schema
    memo: dict[int, Node] = {} if _memo is None else _memo
    if not isinstance(schema, dict):
        return Node()
    key = id(schema)
    if key in memo:
        return memo[key]
    node = Node()
    memo[key] = node  # before recursing: recursive $ref lands here
    parts = [schema]
    if "$ref" in schema:
        parts.append(resolve_ref(schema["$ref"], root))
    for word in ("anyOf", "oneOf", "allOf"):
        parts.extend(x for x in schema.get(word, ()) if isinstance(x, dict))
    for part in parts:
        sub = node if part is schema else build_nodes(part, root, memo)
        if sub is not node:
            _merge(node, sub)
            continue
        if "minLength" in part:
            node.min_len = max(node.min_len, int(part["minLength"]))
        if "maxLength" in part:
            m = int(part["maxLength"])
            node.max_len = m if node.max_len is None else min(node.max_len, m)
        for name, prop in (part.get("properties") or {}).items():
            child = build_nodes(prop, root, memo)
            if name in node.props:
                _merge(node.props[name], child)
            else:
                node.props[name] = child
        for pattern, prop in (part.get("patternProperties") or {}).items():
            node.patterns.append((re.compile(pattern), build_nodes(prop, root, memo)))
        extra = part.get("additionalProperties")
        if isinstance(extra, dict):
            node.additional = build_nodes(extra, root, memo)
        items = part.get("items")
        if isinstance(items, dict):
            node.items = build_nodes(items, root, memo)
        for p in part.get("prefixItems") or ():
            node.prefix.append(build_nodes(p, root, memo))
    if node.max_len is not None and node.min_len > node.max_len:
        raise ValueError(
            f"string length bounds conflict (minLength {node.min_len} > maxLength {node.max_len})"
        )
    return node


def _merge(into: Node, other: Node, _seen: set | None = None) -> None:
    seen = set() if _seen is None else _seen
    if into is other or (id(into), id(other)) in seen:
        return
    seen.add((id(into), id(other)))
    into.min_len = max(into.min_len, other.min_len)
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
