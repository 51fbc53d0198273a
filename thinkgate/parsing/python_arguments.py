"""A tool call's arguments written as Python keyword arguments (the
:class:`~thinkgate.formats.base.PythonArguments` style: ``(city="Paris", days=3, on=True)``), read
as they arrive and converted into JSON text as they are read.

The model's text is Python, so the parser writes the JSON object it stands for
(``{"city": "Paris", "days": 3, "on": true}``, JSON's default separators) a piece at a time: a
key once its ``=`` has come, a string's text as it arrives (its escapes read as Python reads
them, written as JSON writes them), a number or literal once the character after it has come,
brackets where they stand. So the streamed argument deltas concatenate to the final arguments
exactly, whatever the cut of the deltas.

It reads what models write, not only what a template renders: either quote, triple quotes, a
raw string (``r"…"``), ``True``/``False``/``None`` and JSON's ``true``/``false``/``null``, lists
and tuples (JSON arrays), dicts with string keys, numbers as Python writes them (``1_000``,
``.5``, ``5.``, ``+1``), a trailing comma, any whitespace between. A positional argument, a
key given twice, a dict key that is no string, or text that is no literal (a variable, a call)
makes the arguments fail: the call is reported invalid with its text.

The scanner has the interface of :class:`~thinkgate.parsing.json_scanner.JsonScanner` that the
call machine drives (``feed``, ``done``, ``failed``, ``in_string``, ``arguments_text``, ``end``,
``unfinished``, ``ended_in_value``).
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Optional

from ..formats.base import PythonArguments

# States
OPEN, KW_FIRST, KW, KW_NAME, EQUALS, VALUE, STRING, BARE, AFTER, DICT_FIRST, DICT_KEY, COLON, DONE, FAILED = range(14)

_SPACE = re.compile(r"[ \t\r\n\f]*")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NAME_CHARS = re.compile(r"[A-Za-z0-9_]*")
_BARE_CHARS = re.compile(r"[A-Za-z0-9_.+\-]*")
_INT = re.compile(r"[+-]?(?:0|[1-9](?:_?[0-9])*)")
_FLOAT = re.compile(r"[+-]?(?:(?:[0-9](?:_?[0-9])*)?\.[0-9](?:_?[0-9])*|[0-9](?:_?[0-9])*\.?)(?:[eE][+-]?[0-9](?:_?[0-9])*)?")
_LITERALS = {"True": "true", "False": "false", "None": "null", "true": "true", "false": "false", "null": "null"}
_PREFIXES = {"r", "R", "u", "U", "f", "F"}  # (an f-string's text as written: no field is filled)
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "a": "\a", "v": "\v", "\\": "\\", "'": "'", '"': '"', "\n": ""}
_MAX_BARE = 512  # a number or literal longer than this is no value
_CLOSERS = {"[": "]", "(": ")", "{": "}"}


class PythonArgumentsScanner:

    takes_credits = False

    KIND = "Python keyword arguments"  # what the arguments are written in, for errors

    def __init__(self, style: Optional[PythonArguments] = None) -> None:
        # A template that writes a string as its bare text between quotes (LFM2's '…') writes
        # the quote inside it too: there, an argument's quote closes its string only where the
        # arguments go on after it (", NAME=", ")" then the list's "," or "]", or a marker).
        self._lenient = style.quote if style is not None and not style.escaped else ""
        self.state = OPEN
        self.error: Optional[str] = None
        self._stack: list[str] = []  # the open containers' closing characters (")" of the call first)
        # ... and what each is: "args", "list" (a list or tuple), "dict", "set", or "brace" (a "{"
        # whose first item has not told a dict from a set yet; nothing written for it yet)
        self._kinds: list[str] = []
        self._count: list[int] = []  # each open container's items so far
        self._keys: list[set[str]] = []  # each open dict's keys (the call's first)
        self._text: list[str] = []  # the name, key or bare value being read
        self._out: list[str] = []  # JSON not yet handed over
        self._quote = ""  # the open string's quote (three characters for a triple-quoted one)
        self._raw = False  # a raw string: no escapes
        self._key_string = False  # the open string is a dict's key
        self._maybe_triple = False  # its one quote came at a piece's end: it may be three

    # ------------------------------------------------------------------ the interface

    @property
    def done(self) -> bool:
        return self.state == DONE

    @property
    def failed(self) -> bool:
        return self.state == FAILED

    @property
    def in_string(self) -> bool:
        return self.state == STRING

    def arguments_text(self, buf: str, start: int, end: int) -> str:
        out, self._out = "".join(self._out), []
        return out

    def end(self, buf: str, pos: int, end: int) -> bool:
        """Keyword arguments end with their closing parenthesis, never at a marker; but where an
        argument's quote (see ``_lenient``) waits on what follows it, and ``)`` and nothing but
        whitespace stand before the marker, the arguments end there."""
        if self.state != STRING or not self._lenient or len(self._stack) != 1 or not buf.startswith(self._lenient, pos):
            return False
        k = _SPACE.match(buf, pos + 1, end).end()  # type: ignore[union-attr]
        if k >= end or buf[k] != ")" or _SPACE.match(buf, k + 1, end).end() != end:  # type: ignore[union-attr]
            return False
        self._end_string(pos)
        self._close(k)
        return True

    def unfinished(self) -> Optional[str]:
        if self.state == STRING:
            return f"a string in the arguments has no closing {self._quote!r}"
        if self.state != DONE:
            return "the call's arguments have no closing ')'"
        return None

    def ended_in_value(self) -> bool:
        return False

    # ------------------------------------------------------------------ reading

    def feed(self, buf: str, pos: int = 0, end: Optional[int] = None) -> int:
        """Read ``buf[pos:end]``; the position reached (before text that cannot be read yet: a
        name, number or escape the next piece may go on, or after the arguments when they are
        done, or at the fault when they fail)."""
        end = len(buf) if end is None else end
        while pos < end and self.state < DONE:
            state = self.state
            if state == STRING:
                q = self._string(buf, pos, end)
                if q == pos and self.state == STRING:
                    return pos  # a quote or escape that may go on in the next piece
                pos = q
                continue
            if state == KW_NAME or state == BARE:
                run = (_NAME_CHARS if state == KW_NAME else _BARE_CHARS).match(buf, pos, end)
                self._text.append(run.group())
                pos = run.end()
                if sum(map(len, self._text)) > _MAX_BARE:
                    return self._fail("a name or value too long", pos)
                if pos == end:
                    return pos
                text = "".join(self._text)
                if state == KW_NAME:
                    if not self._key(text, pos):
                        return pos
                    self.state = EQUALS
                    continue
                if text in _PREFIXES and buf[pos] in "'\"":  # a prefixed string: r"…", u"…"
                    self._raw = text in ("r", "R")
                    self._key_string = False
                    q = self._open_string(buf, pos, end)
                    if q == pos:
                        return pos  # a quote that may be the first of three
                    pos = q
                    continue
                if not self._bare(text, pos):
                    return pos
                self.state = AFTER
                continue
            pos = _SPACE.match(buf, pos, end).end()  # type: ignore[union-attr]
            if pos == end:
                return pos
            c = buf[pos]
            if state == OPEN:
                if c != "(":
                    return self._fail(f"keyword arguments open with '(', not {c!r}", pos)
                self._open(")", "args")
                self.state = KW_FIRST
                pos += 1
            elif state == KW_FIRST or state == KW:
                if c == ")":
                    pos = self._close(pos)
                elif _NAME.match(c) is not None:
                    self._text = []
                    self.state = KW_NAME
                else:
                    return self._fail(f"expected a keyword argument's name, not {c!r}", pos)
            elif state == EQUALS:
                if c != "=":
                    what = "a positional argument (only keyword arguments name a value)" if c in ",)" else repr(c)
                    return self._fail(f"expected '=' after {self._last_key!r}, not {what}", pos)
                self.state = VALUE
                self._closable = False
                pos += 1
            elif state == VALUE:
                q = self._value(buf, pos, end)
                if q == pos and self.state == VALUE:
                    return pos  # a quote that may be the first of three
                pos = q
            elif state == DICT_FIRST or state == DICT_KEY:
                if c == "}":
                    pos = self._close(pos)
                elif c in "'\"":
                    self._key_string = True
                    self._text = []
                    q = self._open_string(buf, pos, end)
                    if q == pos:
                        return pos
                    pos = q
                elif state == DICT_FIRST:  # a set whose first item is no string: {1, 2}
                    self._decide("set")
                    self.state = VALUE
                else:
                    return self._fail(f"a dict's key must be a string, not {c!r}", pos)
            elif state == COLON:
                if self._kinds[-1] == "brace" and c in ",}":  # {'a', 'b'}: a set, read as a list
                    self._decide("set")
                    self._out.append(_json_string("".join(self._text)))
                    self._count[-1] = 1
                    self.state = AFTER
                    continue
                if c != ":":
                    return self._fail(f"expected ':' after the key {self._last_key!r}, not {c!r}", pos)
                if self._kinds[-1] == "brace":
                    self._decide("dict")
                    if not self._key("".join(self._text), pos):
                        return pos
                self.state = VALUE
                pos += 1
            else:  # AFTER a value: a comma or the container's close
                closer, kind = self._stack[-1], self._kinds[-1]
                if c == closer:
                    pos = self._close(pos)
                elif c == ",":
                    pos += 1
                    self.state = KW if kind == "args" else DICT_KEY if kind == "dict" else VALUE
                    self._closable = True  # (a trailing comma: the close may follow)
                else:
                    return self._fail(f"expected ',' or {closer!r}, not {c!r}", pos)
        return pos

    _closable = False  # a list's or tuple's close may stand where its next value would

    def _value(self, buf: str, pos: int, end: int) -> int:
        """A value begins at ``pos`` (or the open list closes there, empty or after a comma)."""
        c = buf[pos]
        if self._closable and c == self._stack[-1]:
            self._closable = False
            return self._close(pos)
        if c in "])}":
            return self._fail(f"expected a value, not {c!r}", pos)
        if c in "'\"":
            if end - pos == 2 and buf[pos:end] == c * 2:
                return pos  # (an empty string, or a triple quote's beginning: nothing read yet)
            self._closable = False
            self._item()
            self._key_string = False
            return self._open_string(buf, pos, end)
        self._closable = False
        self._item()
        if c in "[(":
            self._open(_CLOSERS[c], "list")
            self.state = VALUE
            self._closable = True  # (empty: the close may follow)
            return pos + 1
        if c == "{":
            self._open("}", "brace")
            self.state = DICT_FIRST
            return pos + 1
        if _BARE_CHARS.match(buf, pos, pos + 1).end() == pos:  # type: ignore[union-attr]
            return self._fail(f"expected a value, not {c!r}", pos)
        self._text = []
        self.state = BARE
        return pos

    def _open_string(self, buf: str, pos: int, end: int) -> int:
        """A string's opening quote (three of them: a triple-quoted string) at ``pos``; ``pos``
        itself where the piece ends in one or two quotes (the third may follow)."""
        c = buf[pos]
        self._maybe_triple = False
        if buf.startswith(c * 3, pos):
            self._quote = c * 3
        elif end - pos == 2 and buf[pos:end] == c * 2:
            return pos  # "" at the piece's end: an empty string, or a triple quote's beginning
        else:
            self._quote = c
            # one quote at the piece's end: a string (a marker's text after it is the string's),
            # and the next piece may make it a triple-quoted one
            self._maybe_triple = end - pos == 1
        if not self._key_string:
            self._out.append('"')
        self.state = STRING
        return pos + len(self._quote)

    def _string(self, buf: str, pos: int, end: int) -> int:
        """A string's text up to its closing quote, its escapes read."""
        if self._maybe_triple:
            if end - pos < 2 and buf[pos:end] == self._quote[0] * (end - pos):
                return pos  # one or two more quotes may come: the triple quote is undecided
            self._maybe_triple = False
            if buf.startswith(self._quote * 2, pos):
                self._quote *= 3
                pos += 2
        quote = self._quote
        first = quote[0]
        i = pos
        while i < end:
            stop = _next_special(buf, i, end, first)
            if stop > i:
                self._string_text(buf[i:stop])
                i = stop
            if i == end:
                break
            c = buf[i]
            if c == "\\":
                if self._raw:  # a raw string keeps its backslashes, and one escapes its quote
                    if i + 1 >= end:
                        return i
                    self._string_text(buf[i : i + 2])
                    i += 2
                    continue
                j, text = _escape(buf, i, end)
                if j is None:
                    return i  # the escape may go on in the next piece
                self._string_text(text)
                i = j
                continue
            # the quote's first character
            if buf.startswith(quote, i):
                if quote == self._lenient and len(self._stack) == 1 and not self._key_string:
                    closes = _closes_argument(buf, i + 1, end)
                    if closes is None:
                        return i  # what follows the quote must tell
                    if not closes:
                        self._string_text(c)
                        i += 1
                        continue
                self._end_string(i)
                return i + len(quote)
            if len(quote) == 3 and quote.startswith(buf[i:end]):
                return i  # the closing triple quote may have begun
            self._string_text(c)
            i += 1
        return i

    def _end_string(self, pos: int) -> None:
        self._raw = False
        if self._key_string:
            self._key_string = False
            if self._kinds[-1] == "brace":  # (a dict's first key, or a set's first item: ":" tells)
                self._last_key = "".join(self._text)
                self.state = COLON
                return
            if not self._key("".join(self._text), pos):
                return
            self.state = COLON
            return
        self._out.append('"')
        self.state = AFTER

    def _string_text(self, text: str) -> None:
        if not text:
            return
        if self._key_string:
            self._text.append(text)
        else:
            self._out.append(_json_string(text)[1:-1])

    def _key(self, key: str, pos: int) -> bool:
        keys = self._keys[-1]
        if key in keys:
            self._fail(f"the key {key!r} is given twice", pos)
            return False
        keys.add(key)
        self._last_key = key
        self._out.append(("" if len(keys) == 1 else ", ") + json.dumps(key, ensure_ascii=False) + ": ")
        return True

    def _bare(self, text: str, pos: int) -> bool:
        value = _LITERALS.get(text)
        if value is None:
            value = _number(text)
        if value is None:
            self._fail(f"{text[:40]!r} is no literal (a string, number, True, False, None, list or dict)", pos)
            return False
        self._out.append(value)
        return True

    def _open(self, closer: str, kind: str) -> None:
        self._stack.append(closer)
        self._kinds.append(kind)
        self._count.append(0)
        if kind in ("args", "brace"):
            self._keys.append(set())
        if kind != "brace":
            self._out.append("[" if kind == "list" else "{")

    def _decide(self, kind: str) -> None:
        """A "{" is a dict, or a set (a JSON array: JSON has no sets)."""
        self._kinds[-1] = kind
        self._out.append("{" if kind == "dict" else "[")

    def _item(self) -> None:
        """A value begins in the open container (a dict's value or a kwarg's: no comma to add)."""
        if not self._kinds or self._kinds[-1] not in ("list", "set"):
            return
        if self._count[-1]:
            self._out.append(", ")
        self._count[-1] += 1

    def _close(self, pos: int) -> int:
        self._stack.pop()
        kind = self._kinds.pop()
        self._count.pop()
        if kind != "list":
            self._keys.pop()
        self._out.append({"args": "}", "dict": "}", "brace": "{}", "list": "]", "set": "]"}[kind])
        self.state = AFTER if self._stack else DONE
        return pos + 1

    def _fail(self, error: str, pos: int) -> int:
        self.state = FAILED
        self.error = error
        return pos

    _last_key = ""


def _closes_argument(buf: str, j: int, end: int) -> Optional[bool]:
    """Whether a quote before ``buf[j]`` closes an argument's string: the arguments go on after
    it (``, NAME=``, ``,)``, or ``)`` then ``,``, ``]``, a new line or a marker's ``<``). None
    where the text ends before that is known."""
    k = _SPACE.match(buf, j, end).end()  # type: ignore[union-attr]
    if k == end:
        return None
    c = buf[k]
    if c == ",":
        k = _SPACE.match(buf, k + 1, end).end()  # type: ignore[union-attr]
        if k == end:
            return None
        if buf[k] in ")<":
            return True
        name = _NAME.match(buf, k, end)
        if name is None:
            return False
        k = _SPACE.match(buf, name.end(), end).end()  # type: ignore[union-attr]
        if k == end:
            return None
        return buf[k] == "="
    if c == ")":
        k = _SPACE.match(buf, k + 1, end).end()  # type: ignore[union-attr]
        if k == end:
            return None
        return buf[k] in ",]<\n" or buf[k - 1] == "\n"
    return False


def _next_special(buf: str, i: int, end: int, quote: str) -> int:
    """The next backslash or quote character from ``i`` (``end`` where there is none)."""
    q = buf.find(quote, i, end)
    b = buf.find("\\", i, end)
    found = [p for p in (q, b) if p != -1]
    return min(found) if found else end


def _escape(buf: str, i: int, end: int) -> tuple[Optional[int], str]:
    """The escape at ``buf[i]`` (a backslash): where it ends and the text it stands for, or
    ``(None, "")`` where the piece ends before it does."""
    if i + 1 >= end:
        return None, ""
    c = buf[i + 1]
    if c in _SIMPLE_ESCAPES:
        return i + 2, _SIMPLE_ESCAPES[c]
    if c == "\r":  # a line continuation written with \r\n
        return (i + 3 if buf.startswith("\r\n", i + 1) else i + 2), ""
    if c in "xuU":
        n = {"x": 2, "u": 4, "U": 8}[c]
        digits = buf[i + 2 : i + 2 + n]
        if len(digits) < n and i + 2 + n > end:
            return None, ""
        if len(digits) == n and re.fullmatch(r"[0-9A-Fa-f]+", digits):
            code = int(digits, 16)
            return i + 2 + n, chr(code) if code <= 0x10FFFF else "\\" + c + digits
        return i + 2, "\\" + c  # no escape after all: Python keeps the backslash
    if c in "01234567":
        m = re.match(r"[0-7]{1,3}", buf[i + 1 : min(end, i + 4)])
        j = i + 1 + m.end()  # type: ignore[union-attr]
        if j == end and m.end() < 3:  # type: ignore[union-attr]
            return None, ""
        return j, chr(int(m.group(), 8))  # type: ignore[union-attr]
    if c == "N":
        close = buf.find("}", i + 2, end)
        if buf.startswith("{", i + 2) and close != -1:
            try:
                return close + 1, unicodedata.lookup(buf[i + 3 : close])
            except KeyError:
                pass
        elif buf.startswith("{", i + 2) or i + 2 >= end:
            return None, ""
        return i + 2, "\\N"
    return i + 2, "\\" + c  # an escape Python does not know keeps its backslash


def _number(text: str) -> Optional[str]:
    """A Python number's text as JSON writes the number (None: no number)."""
    if _INT.fullmatch(text):
        return str(int(text.replace("_", "")))
    if _FLOAT.fullmatch(text) and any(ch.isdigit() for ch in text):
        value = float(text.replace("_", ""))
        if value != value or value in (float("inf"), float("-inf")):
            return None
        plain = text.replace("_", "").lstrip("+")
        if re.fullmatch(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?", plain):
            return plain  # JSON already: written as it stands
        return json.dumps(value)
    return None


# a string as JSON writes it with ensure_ascii=False
_json_string = json.encoder.encode_basestring
