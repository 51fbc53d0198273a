"""The grammar of arguments written as an object literal (Gemma 4's
``{city:<|"|>Paris<|"|>,days:3}``): the :class:`~thinkgate.formats.base.LiteralArguments` style.

xgrammar has no style for it, so the tool's schema (as :mod:`.schema` prepared it) is turned
into structural-tag elements here: keys as constants in the template's order (sorted, where
the style says so) or the schema's (required ones
always, optional ones or not), a string between two delimiter *tokens* (so the model cannot
spell the delimiter in ordinary tokens, and never writes a JSON quote), numbers, booleans and
null as JSON writes them (bounded numbers by xgrammar's own JSON-schema grammar of that one
number), arrays and nested objects in the literal's brackets, no whitespace. What the parser
reads back is then exactly what this grammar held to the schema.

A string's text never holds the delimiter's text (the parser, reading text, would end the string
there). A string with a ``pattern`` is that pattern's text, when the pattern cannot write the
delimiter's first character; a string with length bounds is text without that character. What
this grammar cannot hold a value to is refused with the keyword and its place: a ``pattern`` that
could write the delimiter, a pattern beside length bounds, recursive ``$ref``, ``prefixItems``,
``minProperties``/``maxProperties``, ``patternProperties``/``propertyNames``, and keys that are
no bare key. An object whose schema allows undeclared keys (``additionalProperties`` not false)
gets identifier keys with any values; an absent ``additionalProperties`` beside declared
properties is read as false, as xgrammar reads it.
"""

from __future__ import annotations

import json
import re
from typing import Any, Optional

from ...formats.base import ANNOTATIONS
from ..schemas.schema_nodes import resolve_ref
from .tag_elements import Element, const, either, json_schema, optional, regex, seq, star
from .free_text import text_grammar, text_without

_INTEGER = r"-?(0|[1-9][0-9]{0,17})"
_NUMBER = r"-?(0|[1-9][0-9]{0,15})(\.[0-9]{1,16})?([eE][+-]?[0-9]{1,3})?"


def literal_arguments_element(schema: Any, style: Any, quote: Element, where: str, format_name: str) -> Element:
    """The grammar element of a tool's arguments (``schema``: the prepared, bounded schema)."""
    return _Builder(schema, style, quote, where, format_name).value(schema, "#", top=True)


class _Builder:
    def __init__(self, root: Any, style: Any, quote: Element, where: str, format_name: str) -> None:
        self.root = root
        self.s = style
        self.q = quote
        self.where = where
        self.format_name = format_name
        self._refs: list[str] = []

    def refuse(self, path: str, what: str) -> None:
        raise ValueError(f"{self.where}: {what} at {path} cannot be enforced on an object literal in format {self.format_name!r}")

    # ------------------------------------------------------------------ values

    def value(self, node: Any, path: str, top: bool = False) -> Element:
        if node is True or node == {}:
            return self.any_value()
        if node is False:
            self.refuse(path, "a schema that admits nothing")
        if not isinstance(node, dict):
            self.refuse(path, f"the schema {node!r}")
        if "$ref" in node:
            ref = node["$ref"]
            if ref in self._refs:
                self.refuse(path, f"the recursive $ref {ref!r}")
            self._refs.append(ref)
            try:
                target = resolve_ref(ref, self.root)
                rest = {k: v for k, v in node.items() if k != "$ref"}
                if set(rest) - ANNOTATIONS - {"$defs", "definitions"}:
                    self.refuse(path, "keywords beside $ref")
                return self.value(target, ref)
            finally:
                self._refs.pop()
        if "const" in node:
            return self.literal(node["const"], path)
        if "enum" in node:
            return either([self.literal(v, path) for v in node["enum"]])
        for word in ("anyOf", "oneOf"):
            if word in node:
                rest = {k: v for k, v in node.items() if k != word}
                return either([self.value({**rest, **b} if isinstance(b, dict) else b, f"{path}/{word}/{i}") for i, b in enumerate(node[word])])
        t = node.get("type")
        if isinstance(t, list):
            return either([self.value({**node, "type": one}, path) for one in t])
        if t is None:
            t = "object" if top or "properties" in node else None
        if t is None:
            return self.any_value()
        return getattr(self, "_" + t)(node, path)

    def literal(self, value: Any, path: str) -> Element:
        """A value the schema fixes (``const``, an ``enum`` member), as the literal writes it:
        its delimiters as tokens."""
        try:
            text = self.s.value(value)
        except ValueError as e:
            self.refuse(path, f"a constant value ({e})")
        parts = text.split(self.s.quote)
        if len(parts) % 2 == 0 or any(self.s.quote in p for p in parts[1::2]):
            self.refuse(path, f"a constant string holding the delimiter {self.s.quote!r}")
        out: list[Element] = []
        for i, part in enumerate(parts):
            if i:
                out.append(self.q)
            if part:
                out.append(const(part))
        return seq(out)

    def _string(self, node: dict, path: str) -> Element:
        pattern = node.get("pattern")
        lo, hi = node.get("minLength", 0), node.get("maxLength")
        if pattern is not None:
            if "minLength" in node or hi is not None:
                self.refuse(path, "'pattern' beside 'minLength'/'maxLength'")
            self._safe_pattern(pattern, path)
            body = pattern[1:] if pattern.startswith("^") else pattern
            body = body[:-1] if body.endswith("$") and not body.endswith("\\$") else body
            return seq([self.q, regex(body), self.q])
        if lo or hi is not None:
            first = re.escape(self.s.quote[0])
            count = f"{{{lo},{'' if hi is None else hi}}}"
            if hi == 0:
                return seq([self.q, self.q])
            return seq([self.q, regex(f"[^{first}]{count}"), self.q])
        return seq([self.q, text_without([self.s.quote]), self.q])

    def _safe_pattern(self, pattern: str, path: str) -> None:
        """Refuse a pattern that could write the delimiter's first character."""
        danger = self.s.quote[0]
        i, n = 0, len(pattern)
        bad = None
        while i < n and bad is None:
            c = pattern[i]
            if c == "\\":
                nxt = pattern[i + 1 : i + 2]
                if nxt in ("S", "W", "D", "p", "P") or nxt == danger:
                    bad = "\\" + nxt
                i += 2
            elif c == "[":
                j = i + 1
                if pattern[j : j + 1] == "^":
                    bad = "a negated character class"
                    break
                if pattern[j : j + 1] == "]":
                    j += 1
                while j < n and pattern[j] != "]":
                    j += 2 if pattern[j] == "\\" else 1
                cls = pattern[i : j + 1]
                try:
                    if re.fullmatch(cls, danger):
                        bad = cls
                except re.error:
                    bad = cls
                i = j + 1
            elif c == "." or c == danger:
                bad = c
                i += 1
            else:
                i += 1
        if bad is not None:
            self.refuse(path, f"a 'pattern' that may write {danger!r} (the delimiter {self.s.quote!r} begins with it: {bad!r})")

    def _integer(self, node: dict, path: str) -> Element:
        bounds = {k: node[k] for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum") if k in node}
        if bounds:
            return json_schema({"type": "integer", **bounds}, 1)
        return regex(_INTEGER)

    def _number(self, node: dict, path: str) -> Element:
        bounds = {k: node[k] for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum") if k in node}
        if bounds:
            return json_schema({"type": "number", **bounds}, 1)
        return regex(_NUMBER)

    def _boolean(self, node: dict, path: str) -> Element:
        return either([const("true"), const("false")])

    def _null(self, node: dict, path: str) -> Element:
        return const("null")

    def _array(self, node: dict, path: str) -> Element:
        if "prefixItems" in node:
            self.refuse(path, "'prefixItems'")
        lo, hi = node.get("minItems", 0), node.get("maxItems")
        opening, closing = self.s.array
        if hi == 0:
            return const(opening + closing)
        item = self.value(node.get("items", True), path + "/items")
        more = {"type": "repeat", "min": max(lo - 1, 0), "max": -1 if hi is None else hi - 1, "content": seq([const(self.s.comma), item])}
        items = seq([item, more])
        return seq([const(opening), items if lo else optional(items), const(closing)])

    def _object(self, node: dict, path: str) -> Element:
        for word in ("patternProperties", "propertyNames", "minProperties", "maxProperties"):
            if word in node:
                self.refuse(path, repr(word))
        props = node.get("properties") or {}
        required = set(node.get("required") or ())
        bad = [k for k in props if not self.s.readable_key(k)]
        if bad:
            self.refuse(f"{path}/properties/{bad[0]}", f"the property name {bad[0]!r}, which is no bare key (a key matches {self.s.key_pattern})")
        # an object that says nothing but its type is any object; else undeclared keys only
        # where additionalProperties says so
        bare = not set(node) - ANNOTATIONS
        extra = node.get("additionalProperties", True if bare else False)
        order = self.s.order(props)
        items = [(k, self.value(props[k], f"{path}/properties/{k}"), k in required) for k in order]
        colon, comma = self.s.colon, self.s.comma
        free = None
        if extra is not False:
            free = seq([regex(self.s.free_key_pattern), const(colon), self.value(extra, path + "/additionalProperties")])

        def rest(i: int) -> list[Element]:
            out = []
            for key, elem, req in items[i:]:
                one = seq([const(comma + key + colon), elem])
                out.append(one if req else optional(one))
            if free is not None:
                out.append(star(seq([const(comma), free])))
            return out

        def first(i: int) -> Optional[Element]:
            if i == len(items):
                return None if free is None else seq([free, *rest(i)])
            key, elem, req = items[i]
            head = seq([const(key + colon), elem, *rest(i + 1)])
            if req:
                return head
            alt = first(i + 1)
            return head if alt is None else either([head, alt])

        opening, closing = self.s.object
        body = first(0)
        if body is None:
            return const(opening + closing)
        if not required:
            return seq([const(opening), optional(body), const(closing)])
        return seq([const(opening), body, const(closing)])

    def any_value(self, depth: int = 0) -> Element:
        """Any value (a schema that says nothing), as one recursive grammar: objects with
        identifier keys."""
        q = self.q
        quote = f"Token({q['token']})" if q.get("type") == "token" else json.dumps(q["value"])
        s = self.s
        text = text_grammar([s.quote]).replace("root ::= s0\n", "")
        text = re.sub(r"\bs(\d+)\b", r"text\1", text)
        key_rest = s.key_length - 1
        rules = [
            "root ::= value",
            'value ::= string | number | "true" | "false" | "null" | array | object',
            f"string ::= {quote} text0 {quote}",
            'number ::= "-"? ("0" | [1-9] [0-9]*) ("." [0-9]+)? ([eE] [+-]? [0-9]+)?',
            f"array ::= {json.dumps(s.array[0])} (value ({json.dumps(s.comma)} value)*)? {json.dumps(s.array[1])}",
            f"object ::= {json.dumps(s.object[0])} (pair ({json.dumps(s.comma)} pair)*)? {json.dumps(s.object[1])}",
            f"pair ::= [A-Za-z_] [A-Za-z0-9_]{{0,{key_rest}}} {json.dumps(s.colon)} value",
        ]
        return {"type": "grammar", "grammar": "\n".join(rules) + "\n" + text}
