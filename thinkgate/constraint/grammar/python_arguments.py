"""The grammar of arguments written as Python keyword arguments (the
:class:`~thinkgate.formats.base.PythonArguments` style: ``(city="Paris", days=3, on=True)``).

xgrammar has no Python style, so the tool's schema (as :mod:`.schema` prepared it) is turned
into structural-tag elements here, as for an object literal (:mod:`.literal_arguments`, whose
builder this one extends): keyword arguments in the schema's order (required ones always,
optional ones or not), ``=`` and ``, `` between; a string between the style's quote, its
characters any but the quote, a backslash and control characters, or with Python's escapes
where the style escapes (``\\n``, ``\\t``, ``\\\\``, the quote); numbers as JSON writes them (Python
reads them alike); ``True``/``False``/``None`` (or JSON's words, as the style writes them); a
list or dict as Python's ``repr`` writes it (or JSON, where the template writes it with
``tojson``), no other whitespace. What the parser reads back is exactly what this grammar held
to the schema.

Bounded strings (``minLength``/``maxLength``) are written without escapes (so that a character
is a character), and a ``pattern`` must not be able to write the quote or a backslash; what
cannot be held is refused with the keyword and its place, as the object literal's builder
refuses it (``prefixItems``, ``minProperties``/``maxProperties``, a recursive ``$ref``, keys that
are no Python names).
"""

from __future__ import annotations

import json
import re
from typing import Any, Optional

from ...formats.base import ANNOTATIONS, PythonArguments, python_string
from .literal_arguments import _Builder
from .tag_elements import Element, const, either, optional, regex, seq, star

_CONTROLS = r"\x00-\x1f"


def python_arguments_element(schema: Any, style: PythonArguments, where: str, format_name: str) -> Element:
    """The grammar element of a tool's keyword arguments, parentheses included (``schema``: the
    prepared, bounded schema)."""
    return _PythonBuilder(schema, style, where, format_name).arguments(schema)


class _Layer:
    """The quote and words of values at one depth: a top-level argument's, or one inside a
    list or dict."""

    def __init__(self, style: PythonArguments, top: bool, container: str = "") -> None:
        self.top = top
        self.quote = style.quote
        self.escaped = style.escaped or not top
        self.json = container == "json"
        if self.json:
            self.quote, self.escaped, self.words = '"', True, ("true", "false", "null")
        else:
            self.words = style.literals if top else ("True", "False", "None")


class _PythonBuilder(_Builder):
    def __init__(self, root: Any, style: PythonArguments, where: str, format_name: str) -> None:
        super().__init__(root, style, const(style.quote), where, format_name)
        self._layers = [_Layer(style, top=True)]

    def refuse(self, path: str, what: str) -> None:
        raise ValueError(f"{self.where}: {what} at {path} cannot be enforced on Python keyword arguments in format {self.format_name!r}")

    @property
    def layer(self) -> _Layer:
        return self._layers[-1]

    def _inside(self, kind: str) -> None:
        """Values inside a list or dict from here on (as JSON where the style writes that kind
        with ``tojson``, and everything within it)."""
        outer = self.layer
        if outer.json:
            self._layers.append(outer)
            return
        container = getattr(self.s, kind + "s") if outer.top else "python"
        self._layers.append(_Layer(self.s, top=False, container=container))

    # ------------------------------------------------------------------ the arguments

    def arguments(self, node: Any) -> Element:
        """``(KEY=VALUE, …)`` for the tool's schema (an object, or nothing said: any arguments)."""
        if node is True or node == {}:
            return seq([const("("), optional(self._free_pairs("=")), const(")")])
        if not isinstance(node, dict):
            self.refuse("#", f"the schema {node!r}")
        if "$ref" in node or any(w in node for w in ("anyOf", "oneOf", "allOf", "enum", "const")) or node.get("type", "object") != "object":
            self.refuse("#", "arguments that are no plain object schema")
        return self._pairs(node, "#", "=", ("(", ")"), keyed=lambda k: k)

    # ------------------------------------------------------------------ values

    def literal(self, value: Any, path: str) -> Element:
        layer = self.layer
        if layer.json:
            return const(json.dumps(value, ensure_ascii=False))
        top = layer.top
        if isinstance(value, str) and top and not layer.escaped:
            if layer.quote in value or "\\" in value:
                self.refuse(path, f"a constant string holding the quote {layer.quote!r} or a backslash")
            return const(layer.quote + value + layer.quote)
        return const(self.s.value(value, top=top) if not isinstance(value, str) else python_string(value, layer.quote))

    def _string(self, node: dict, path: str) -> Element:
        q = self.layer.quote
        pattern = node.get("pattern")
        lo, hi = node.get("minLength", 0), node.get("maxLength")
        plain = f"[^{re.escape(q)}\\\\{_CONTROLS}]"
        if pattern is not None:
            if "minLength" in node or hi is not None:
                self.refuse(path, "'pattern' beside 'minLength'/'maxLength'")
            self._safe(pattern, path, "\\")
            if self._writes(pattern, q):
                # (a URI may hold the template's quote: the string is written in the other one,
                # which the parser reads alike, where the pattern cannot write that)
                other = '"' if q == "'" else "'"
                self._safe(pattern, path, other)
                q = other
            body = pattern[1:] if pattern.startswith("^") else pattern
            body = body[:-1] if body.endswith("$") and not body.endswith("\\$") else body
            return seq([const(q), regex(body), const(q)])
        if lo or hi is not None:
            if hi == 0:
                return const(q + q)
            return seq([const(q), regex(f"{plain}{{{lo},{'' if hi is None else hi}}}"), const(q)])
        if self.layer.escaped:
            escape = "\\\\[" + re.escape(q) + "\\\\ntr]"
            return seq([const(q), regex(f"({plain}|{escape})*"), const(q)])
        return seq([const(q), regex(f"{plain}*"), const(q)])

    def _safe(self, pattern: str, path: str, danger: str) -> None:
        """Refuse a pattern that could write ``danger``: the string's quote or a backslash (the
        parser would read either as the string's end or an escape)."""
        _Builder._safe_pattern(_Quoted(self, danger), pattern, path)  # type: ignore[arg-type]

    def _writes(self, pattern: str, char: str) -> bool:
        """Whether ``pattern`` may write ``char`` (as far as the check can tell)."""
        try:
            self._safe(pattern, "#", char)
        except ValueError:
            return True
        return False

    def _boolean(self, node: dict, path: str) -> Element:
        true, false, _ = self.layer.words
        return either([const(true), const(false)])

    def _null(self, node: dict, path: str) -> Element:
        return const(self.layer.words[2])

    def _array(self, node: dict, path: str) -> Element:
        if "prefixItems" in node:
            self.refuse(path, "'prefixItems'")
        lo, hi = node.get("minItems", 0), node.get("maxItems")
        if hi == 0:
            return const("[]")
        self._inside("list")
        try:
            item = self.value(node.get("items", True), path + "/items")
        finally:
            self._layers.pop()
        more = {"type": "repeat", "min": max(lo - 1, 0), "max": -1 if hi is None else hi - 1, "content": seq([const(", "), item])}
        items = seq([item, more])
        return seq([const("["), items if lo else optional(items), const("]")])

    def _object(self, node: dict, path: str) -> Element:
        for word in ("patternProperties", "propertyNames", "minProperties", "maxProperties"):
            if word in node:
                self.refuse(path, repr(word))
        self._inside("dict")
        try:
            q = self.layer.quote
            return self._pairs(node, path, ": ", ("{", "}"), keyed=lambda k: python_string(k, q) if not self.layer.json else json.dumps(k, ensure_ascii=False))
        finally:
            self._layers.pop()

    def _pairs(self, node: dict, path: str, colon: str, brackets: tuple[str, str], keyed: Any) -> Element:
        """An object's pairs in the schema's order between ``brackets`` (keyword arguments: the
        parentheses and ``=``; a dict: braces and ``: ``)."""
        props = node.get("properties") or {}
        required = set(node.get("required") or ())
        if colon == "=":
            bad = [k for k in props if not self.s.readable_key(k)]
            if bad:
                self.refuse(f"{path}/properties/{bad[0]}", f"the property name {bad[0]!r}, which is no Python name for a keyword argument")
        bare = not set(node) - ANNOTATIONS
        extra = node.get("additionalProperties", True if bare else False)
        if colon == "=":
            self._layers.append(self._layers[0])  # (the arguments' values are top-level ones)
        try:
            items = [(keyed(k), self.value(props[k], f"{path}/properties/{k}"), k in required) for k in props]
            free = None
            if extra is not False:
                free = self._free_pair(colon, extra, path)
        finally:
            if colon == "=":
                self._layers.pop()
        comma = ", "

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

        opening, closing = brackets
        body = first(0)
        if body is None:
            return const(opening + closing)
        return seq([const(opening), body if required else optional(body), const(closing)])

    def _free_pair(self, colon: str, extra: Any, path: str) -> Element:
        """A key the schema does not declare: a Python name (an argument's), or a string with
        no quote, backslash or control character (a dict's); then its value."""
        if colon == "=":
            key = regex(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
        else:
            q = self.layer.quote
            key = seq([const(q), regex(f"[^{re.escape(q)}\\\\{_CONTROLS}]{{0,64}}"), const(q)])
        return seq([key, const(colon), self.value(extra, path + "/additionalProperties")])

    def _free_pairs(self, colon: str) -> Element:
        pair = self._free_pair(colon, True, "#")
        return seq([pair, star(seq([const(", "), pair]))])

    def any_value(self, depth: int = 0) -> Element:
        """Any value (a schema that says nothing), as one recursive grammar: Python literals, a
        dict's keys strings."""
        layer = self.layer
        q = layer.quote
        true, false, null = layer.words
        plain = f"[^{re.escape(q)}\\\\{_CONTROLS}]"
        string = f"{json.dumps(q)} ({plain} | \"\\\\\" [{re.escape(q)}\\\\ntr])* {json.dumps(q)}"
        rules = [
            "root ::= value",
            f"value ::= string | number | {json.dumps(true)} | {json.dumps(false)} | {json.dumps(null)} | array | object",
            f"string ::= {string}",
            'number ::= "-"? ("0" | [1-9] [0-9]*) ("." [0-9]+)? ([eE] [+-]? [0-9]+)?',
            'array ::= "[" (value (", " value)*)? "]"',
            'object ::= "{" (pair (", " pair)*)? "}"',
            "pair ::= string \": \" value",
        ]
        return {"type": "grammar", "grammar": "\n".join(rules) + "\n"}


class _Quoted:
    """The object literal builder's view for its pattern check: the one delimiter to keep out."""

    def __init__(self, builder: _PythonBuilder, danger: str) -> None:
        self.s = _Delimiter(danger)
        self.refuse = builder.refuse


class _Delimiter:
    def __init__(self, quote: str) -> None:
        self.quote = quote
