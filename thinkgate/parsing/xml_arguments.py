"""A tool call's arguments written as XML-like parameters (Qwen3-Coder, GLM), read as they arrive
and turned into the JSON object they stand for.

The scanner has the interface of :class:`~thinkgate.parsing.json_scanner.JsonScanner` that the
call machine drives (``feed``, ``done``, ``failed``, ``in_string``), plus two things JSON does not
need: :meth:`arguments_text` hands over the JSON written so far (a parameter at a time, once its
value has closed), and :meth:`end` closes the arguments where the call's end marker comes (GLM's
parameters have no closing tag of their own). Text that could still be the start of a parameter
tag, or a closing tag whose meaning what follows it decides, is left unread (``feed`` returns
before it) so the machine carries it to the next delta.

A value may hold the call markup itself (a file that is a parser fixture): it ends only at a
closing tag that pairs with no tag opened inside it and is followed by what can follow a
parameter (see :meth:`XmlArgumentsScanner._scan_value`).

A value's type comes from the tool's schema, or from its tag where the tag names one: a property
that can only be a string is the bare text; one the schema types otherwise is read as JSON, and
as a string when it is none. A value that nothing types (no schema, a key the schema does not
list, a property schema without a type) is its text, as the peers keep it: ``10`` is ``"10"``,
which loses nothing. A typed tag written without its type (DSML's ``string=`` left out) is read
as JSON where it is JSON, as vLLM reads it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Optional

from ..formats.base import XmlArguments, admits_free_keys, json_type, loads_json
from .json_scanner import JsonScanner
from .markers import partial_suffix
from .spaces import JSON_SPACE_RUN


# States
BETWEEN, KEY, BEFORE_VALUE, VALUE, DONE, FAILED, TYPE_NAME, JSON_BODY = range(8)
_MAX_TYPE = 32  # the longest word a typed tag may write for a value's type


class XmlArgumentsScanner:

    takes_credits = False  # (no token credits: see calls.arguments)

    KIND = "parameters"  # what the arguments are written in, for errors
    def __init__(self, xml: XmlArguments, parameters: Optional[Mapping[str, Any]] = None, footer: str = "", free_keys: bool = False) -> None:
        self._xml = xml
        self._footer = footer  # the call's footer, spaces aside: inside a value, the call ended there
        self._properties = _properties(parameters)
        self.state = BETWEEN
        self.error: Optional[str] = None
        self._text = ""  # the key being read
        self._chunks: list[str] = []  # the value being read
        self._depth = 0  # parameter tags opened inside the value and not yet closed there
        self._looked = 0  # how far past a closing tag left undecided its lookahead has read
        self._refused: Optional[str] = None  # why the value's last closing tag did not end it
        # keys the schema does not declare may follow (any, where the call is not held to it)
        self._free = free_keys or _admits_unlisted(parameters)
        self._tags = re.compile(re.escape(xml.value_close) + "|" + re.escape(xml.key_open))
        self._name = re.compile(xml.name_pattern)
        self._attribute = xml.key_open.endswith('="')  # a key written as an attribute's value
        self._key = ""
        self._type: Optional[str] = None  # the word the parameter's tag names its type with (Kimi-K3, DSML)
        self._bare = False  # the tag is a typed one written without its type
        self._keys: set[str] = set()
        self._out: list[str] = []  # JSON not yet handed over

    @property
    def done(self) -> bool:
        return self.state == DONE

    @property
    def failed(self) -> bool:
        return self.state == FAILED

    @property
    def in_string(self) -> bool:
        # A marker met inside a value is the value's text if the value closes after it (a file
        # that holds call markup); else the call ends at it (the call machine rolls back).
        if self.state == JSON_BODY:
            return self._json.in_string
        return self.state == VALUE or (self.state == BEFORE_VALUE and not self._xml.value_open)

    def arguments_text(self, buf: str, start: int, end: int) -> str:
        out, self._out = "".join(self._out), []
        return out

    def feed(self, buf: str, pos: int = 0, end: Optional[int] = None) -> int:
        """Read ``buf[pos:end]``; the position reached (before undecided tag text, or after the
        arguments when they are done)."""
        end = len(buf) if end is None else end
        xml = self._xml
        while pos < end and self.state not in (DONE, FAILED):
            state = self.state
            if state == VALUE:  # held whole until its closing tag (the state most text is read in)
                pos = self._scan_value(buf, pos, end)
                if self.state == VALUE:
                    return pos
            elif state == BETWEEN:
                j = JSON_SPACE_RUN.match(buf, pos, end).end()  # type: ignore[union-attr]
                if j == end:
                    return end
                rest = buf[j:end]
                if rest.startswith(xml.key_open):
                    self.state, self._text = KEY, ""
                    pos = j + len(xml.key_open)
                elif rest[0] == "{" and not self._keys:
                    # the arguments written as their JSON object, with no parameter tags (a
                    # slip DeepSeek-V4 makes, which the peers read): the object is the arguments
                    self.state, self._json, self._json_text = JSON_BODY, JsonScanner(), []
                    pos = j
                elif xml.key_open.startswith(rest):
                    return j  # perhaps a parameter: wait for more
                elif self._ends_here(rest):
                    self._close_object()
                    return j  # the footer (or, where the call has none, the end marker's place)
                else:
                    # text where a parameter or the call's footer must come (prose, a tag
                    # misspelled): the body is no parameters, and the call keeps its text
                    return self._fail("text where a parameter or the call's end must come", j)
            elif state in (KEY, TYPE_NAME):
                closing = xml.key_end if state == KEY else xml.type_end
                longest = xml.name_length if state == KEY else _MAX_TYPE
                k = buf.find(closing, pos, end)
                # a typed tag written without its type: the name ends at the bare close
                bare = xml.untyped_close if state == KEY else None
                kb = buf.find(bare, pos, end) if bare else -1
                untyped = kb >= 0 and (k < 0 or kb < k)
                if untyped:
                    k, closing = kb, bare
                stop = end if k < 0 else k
                self._text += buf[pos:stop]
                keep = max(partial_suffix(buf, pos, end, closing), partial_suffix(buf, pos, end, bare) if bare else 0) if k < 0 else 0
                if keep:  # the closing text may have begun: leave its start unread
                    self._text = self._text[: len(self._text) - keep]
                if len(self._text) > longest:
                    what = "a parameter name" if state == KEY else f"the type of the parameter {self._key!r}"
                    return self._fail(f"{what} longer than {longest} characters", pos)
                if k < 0:
                    return end - keep
                pos = k + len(closing)
                if state == TYPE_NAME:
                    if not xml.types_of(self._text):
                        return self._fail(f"the parameter {self._key!r} has an unknown type {self._text!r}", pos)
                    self._type = self._text
                    self.state = BEFORE_VALUE
                    continue
                key = self._text
                # a name in a quoted attribute may hold references (each one character) and a raw
                # "<" (which templates do not escape there; a marker would have ended the call)
                if not xml.readable_name(_REFERENCE.sub("_", key).replace("<", "_") if self._attribute else key):
                    return self._fail(f"invalid parameter name {key!r}", pos)
                key = attribute_text(key) if self._attribute else key
                if key in self._keys:
                    return self._fail(f"the parameter {key!r} is given twice", pos)
                self._keys.add(key)
                self._key = key
                self._type = None
                self._bare = untyped
                self._text = ""
                self.state = TYPE_NAME if xml.typed and not untyped else BEFORE_VALUE
            elif state == BEFORE_VALUE:
                if not xml.value_open:
                    self.state, self._chunks, self._depth, self._refused = VALUE, [], 0, None
                    continue
                j = JSON_SPACE_RUN.match(buf, pos, end).end()  # type: ignore[union-attr]
                rest = buf[j:end]
                if rest.startswith(xml.value_open):
                    self.state, self._chunks, self._depth, self._refused = VALUE, [], 0, None
                    pos = j + len(xml.value_open)
                elif xml.value_open.startswith(rest):
                    return j
                else:
                    return self._fail(f"expected {xml.value_open!r} after the parameter name {self._key!r}", j)
            elif state == JSON_BODY:
                p = self._json.feed(buf, pos, end)
                self._json_text.append(buf[pos:p])
                if self._json.failed:
                    return self._fail(f"the arguments written as JSON are no JSON object: {self._json.error}", p)
                if not self._json.done:
                    return p
                self._out.append("".join(self._json_text))
                self.state = DONE
                return p
        return pos

    def end(self, buf: str, pos: int, end: int) -> bool:
        """The call's end marker comes at ``end``: whether the arguments can end there (between
        parameters, nothing but whitespace left); if so they are done."""
        if self.state == VALUE and self._depth == 0 and buf.startswith(self._xml.value_close, pos):
            # a value's closing tag, then only whitespace before the marker: the value ended there
            if buf[pos + len(self._xml.value_close) : end].strip():
                return False
            self._value("".join(self._chunks))
            self.state = BETWEEN
            pos += len(self._xml.value_close)
        if self.state == BETWEEN and not buf[pos:end].strip():
            self._close_object()
            return True
        return False

    def unfinished(self) -> Optional[str]:
        """Why the arguments are not complete, where there is more to say than that they are not."""
        if self.state == JSON_BODY:
            return "the arguments written as JSON have no closing brace"
        if self.state != VALUE:
            return None
        return self._refused or f"the parameter {self._key!r} has no closing tag"

    def ended_in_value(self) -> bool:
        """Whether the call's footer came inside a value that never closed: the call ended there,
        its parameter unclosed (a malformed call, not one the end of the output cut off)."""
        return self.state == VALUE and bool(self._footer) and self._footer in "".join(self._chunks)

    def _scan_value(self, buf: str, pos: int, end: int) -> int:
        """Read a value's text in ``buf[pos:end]``: the position reached (before text that may
        still be its closing tag, or after the tag that closed it).

        A value ends at a closing tag that pairs with no parameter tag opened inside it and is
        followed by what can follow a parameter: the next parameter, of a key the tool can take
        and not given yet, or the call's footer (or its end marker, see :meth:`end`). Any other
        closing tag is the value's text: a file whose text holds the call markup is one value.
        Undecided text is left unread for the next delta, whitespace after a closing tag
        counted once."""
        xml = self._xml
        close, opener = xml.value_close, xml.key_open
        start = i = pos
        while True:
            m = self._tags.search(buf, i, end)
            if m is None:
                keep = max(partial_suffix(buf, i, end, close), partial_suffix(buf, i, end, opener))
                self._chunks.append(buf[start : end - keep])
                return end - keep
            k = m.start()
            if m.group() == opener:
                name = self._parameter_tag(buf, k, end)
                if name is None:  # undecided: wait for more
                    self._chunks.append(buf[start:k])
                    return k
                if name:
                    self._depth += 1
                i = k + 1
                continue
            if self._depth:
                self._depth -= 1
                i = k + len(close)
                continue
            ends = self._ends_value(buf, k, end)
            if ends is None:
                self._chunks.append(buf[start:k])
                return k
            self._looked = 0
            if not ends:
                i = k + len(close)
                continue
            self._chunks.append(buf[start:k])
            self._value("".join(self._chunks))
            self.state = BETWEEN
            return k + len(close)

    def _parameter_tag(self, buf: str, k: int, end: int) -> Optional[str]:
        """At ``k`` the text of a parameter tag's opening: its key where the tag is one (``""``
        where it is none, ``None`` while undecided)."""
        xml = self._xml
        at = k + len(xml.key_open)
        m = self._name.match(buf, at, end)
        stop = m.end() if m is not None else at
        if stop - at > xml.name_length:
            return ""
        if stop == end:
            return None
        rest = buf[stop : stop + len(xml.key_end)]
        if rest == xml.key_end:
            return buf[at:stop]
        return None if stop + len(rest) == end and xml.key_end.startswith(rest) else ""

    def _ends_value(self, buf: str, k: int, end: int) -> Optional[bool]:
        """Whether the closing tag at ``k`` ends the value (``None``: undecided)."""
        xml = self._xml
        after = k + len(xml.value_close)
        j = JSON_SPACE_RUN.match(buf, max(after, k + self._looked), end).end()  # type: ignore[union-attr]
        if j == end:
            self._looked = j - k
            return None
        footer = self._footer
        if footer and buf.startswith(footer, j):
            return True
        if buf.startswith(xml.key_open, j):
            key = self._parameter_tag(buf, j, end)
            if key is None:
                return None
            if not key:
                # a parameter tag with a name no parameter has: the call is malformed there,
                # not a file's text (the tag is read, and fails)
                return True
            if key in self._keys:
                self._refused = f"the parameter {key!r} is given twice"
                return False
            if key not in self._properties and not self._free:
                self._refused = f"the parameter {key!r} is not one the tool takes"
                return False
            return True
        rest = buf[j:end]
        return None if (footer and footer.startswith(rest)) or xml.key_open.startswith(rest) else False

    def _value(self, text: str) -> None:
        pad = self._xml.padding
        if pad:  # the template's framing, once on each side; the rest is the value's own
            text = text[len(pad) :] if text.startswith(pad) else text
            text = text[: -len(pad)] if text.endswith(pad) else text
        wrap_open, wrap_close = self._xml.cdata
        if wrap_open and len(text) >= len(wrap_open) + len(wrap_close) and text.startswith(wrap_open) and text.endswith(wrap_close):
            text = text[len(wrap_open) : len(text) - len(wrap_close)]  # the template's wrapper: markup
        if self._type is None:
            value = _convert(text, self._properties.get(self._key), untyped_json=self._bare)
        else:
            value = _typed(text, self._xml.types_of(self._type), self._properties.get(self._key))
        self._type = None
        self._out.append(("{" if len(self._keys) == 1 else ", ") + json.dumps(self._key, ensure_ascii=False) + ": " + value)

    def _ends_here(self, rest: str) -> bool:
        """Whether ``rest`` (no space first) is, or may still become, the call's footer; where the
        call has none, its end marker comes next (the machine reads no further), so nothing but
        the marker's place ends the parameters."""
        footer = self._footer
        if not footer:
            return False
        compact = "".join(rest[: len(footer) * 2].split())
        return compact.startswith(footer) or footer.startswith(compact)

    def _close_object(self) -> None:
        self._out.append("}" if self._keys else "{}")
        self.state = DONE

    def _fail(self, error: str, pos: int) -> int:
        self.state = FAILED
        self.error = error
        return pos


# XML's references: the five entities and numeric characters
_REFERENCE = re.compile(r"&(?:(amp|quot|lt|gt|apos)|#([0-9]{1,7})|#[xX]([0-9a-fA-F]{1,6}));")
_ENTITIES = {"amp": "&", "quot": '"', "lt": "<", "gt": ">", "apos": "'"}


def attribute_text(raw: str) -> str:
    """A name written as a quoted attribute's value, its XML references decoded (Kimi-K3's
    template writes ``&`` and ``"`` in a tool's or key's name as ``&amp;`` and ``&quot;``); a
    reference to no character stays as written."""
    return _REFERENCE.sub(_decode_reference, raw) if "&" in raw else raw


def _decode_reference(m: re.Match[str]) -> str:
    if m.group(1):
        return _ENTITIES[m.group(1)]
    code = int(m.group(2), 10) if m.group(2) else int(m.group(3), 16)
    return chr(code) if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else m.group()


def _admits_unlisted(parameters: Optional[Mapping[str, Any]]) -> bool:
    """Whether a key ``parameters`` does not list may follow a value. JSON Schema leaves such a
    key free unless ``additionalProperties`` (or ``unevaluatedProperties``) is false, but where
    the schema lists keys, a closing tag followed by another key is read as the value's text (a
    file holding the tool's markup): a listed key is what ends a value there, as xgrammar's
    reading (:func:`admits_free_keys`) has it. A schema that lists none (``"properties": {}``)
    has no such key, so any key follows."""
    if admits_free_keys(parameters):
        return True
    if parameters.get("additionalProperties", True) is False or parameters.get("unevaluatedProperties", True) is False:  # type: ignore[union-attr]
        return False
    return not parameters.get("properties")  # type: ignore[union-attr]


def _typed(text: str, tag: tuple[str, ...], schema: Any) -> str:
    """A value whose tag names its type (``tag``: the JSON types the tag's word stands for): a
    string is its text verbatim, anything else JSON; where the schema is known and disagrees
    (which no grammar lets through), the value is read as the schema says, so the call keeps
    what the model wrote."""
    if tag == ("string",):
        return _typed_string(text, schema)
    return _typed_json(text, schema if _types(schema) is not None else {"type": list(tag)})


def _typed_string(text: str, schema: Any) -> str:
    """A value its tag says is a string (DSML's ``string="true"``): its text verbatim, unless the
    schema allows no string (a model writing ``string="true">42`` for an integer, which no
    grammar lets through): then it is read as the schema says."""
    types = _types(schema)
    if types is not None and "string" not in types:
        return _convert(text, schema)
    return json.dumps(text, ensure_ascii=False)


def _typed_json(text: str, schema: Any) -> str:
    """A value its tag says is JSON (DSML's ``string="false"``): the JSON value where it is one
    of a type the schema allows (any, where the schema does not say); else the text read as the
    schema says (``null`` for a string is the text ``"null"``, text that is no JSON a string),
    so the call keeps what the model wrote."""
    try:
        value = loads_json(text, strict=False)
    except ValueError:
        return _convert(text, schema)
    types, kind = _types(schema), json_type(value)
    if types is None or kind in types or (kind == "number" and "integer" in types):
        return _dumps(value, text)
    return _convert(text, schema)


def _properties(parameters: Optional[Mapping[str, Any]]) -> dict[str, Any]:
    if not isinstance(parameters, Mapping):
        return {}
    props = parameters.get("properties")
    if not isinstance(props, Mapping):
        return {}
    defs = {**(parameters.get("definitions") or {}), **(parameters.get("$defs") or {})}
    out = {}
    for key, schema in props.items():
        ref = schema.get("$ref") if isinstance(schema, Mapping) else None
        if isinstance(ref, str) and ref.rsplit("/", 1)[-1] in defs:
            schema = defs[ref.rsplit("/", 1)[-1]]
        out[key] = schema
    return out


def _types(schema: Any) -> Optional[set[str]]:
    """The JSON types a schema allows, when it says (``None``: any)."""
    if not isinstance(schema, Mapping):
        return None
    if "const" in schema:
        return {json_type(schema["const"])}
    if isinstance(schema.get("enum"), list):
        return {json_type(v) for v in schema["enum"]}
    t = schema.get("type")
    if isinstance(t, str):
        return {t}
    if isinstance(t, list):
        return set(t)
    branches = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(branches, list):
        out: set[str] = set()
        for b in branches:
            bt = _types(b)
            if bt is None:
                return None
            out |= bt
        return out
    return None


# How Python writes these values: Qwen3-Coder's chat template (and Qwen3.5's, Nemotron 3's) renders
# booleans and null so in the history, and the model writes them back so.
_PYTHON_LITERALS = {"True": (True, "boolean"), "False": (False, "boolean"), "None": (None, "null")}


def _convert(text: str, schema: Any, untyped_json: bool = False) -> str:
    """A parameter's text as the JSON value it stands for: its text where ``schema`` names no
    type, unless ``untyped_json`` (then JSON where it is JSON)."""
    types = _types(schema)
    if types is None and not untyped_json:
        return json.dumps(text, ensure_ascii=False)
    if types != {"string"}:
        value = _json(text, types)
        if value is _NOTHING and types is not None:
            literal = _PYTHON_LITERALS.get(text.strip())
            if literal is not None and literal[1] in types:
                value = literal[0]
        if value is not _NOTHING:
            return _dumps(value, text)
    return json.dumps(text, ensure_ascii=False)


_NOTHING = object()


def _dumps(value: Any, text: str) -> str:
    """``value`` as JSON; one holding a number past a double's range (read as a Decimal, which
    json cannot write) is its own text, which is that JSON."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except TypeError:
        return text.strip()


def _json(text: str, types: Optional[set[str]]) -> Any:
    """``text`` read as JSON when it is a value of one of ``types`` other than a string (any
    type, ``types`` None); where the schema allows no string, a number, boolean or null may be
    written quoted (``"42"``)."""
    try:
        # strict=False: xgrammar's XML styles let raw control characters into nested strings
        value = loads_json(text, strict=False)
    except ValueError:
        return _NOTHING
    if isinstance(value, str) and types is not None and "string" not in types:
        try:
            value = loads_json(value)
        except ValueError:
            return _NOTHING
        if isinstance(value, (dict, list, str)):
            return _NOTHING
    kind = json_type(value)
    fits = types is None or kind in types or (kind == "number" and "integer" in types)
    return value if kind != "string" and fits else _NOTHING
