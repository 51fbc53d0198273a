"""An incremental validator for one JSON object, fed text in pieces.

The streaming parser needs to know, for every character of a tool call's arguments, whether it
is inside a string and whether the object has closed, without ever re-reading earlier text. This
is a pushdown automaton over RFC 8259: runs of plain string characters, whitespace and digits are
skipped with compiled regexes, so the Python loop only turns for structural characters.
"""

from __future__ import annotations

import re
from typing import Optional

from .spaces import JSON_SPACE_RUN

# States. Integers rather than an Enum: this loop runs for every character of every argument.
VALUE = 0  # a value is expected
FIRST_KEY = 1  # just after "{": a key or "}"
KEY = 2  # after ",": a key
COLON = 3  # after a key: ":"
AFTER = 4  # after a value: "," or the closer
FIRST_ITEM = 5  # just after "[": a value or "]"
STRING = 6
ESCAPE = 7
UNICODE = 8  # inside \uXXXX
NUM_MINUS = 9  # after "-": a digit
NUM_ZERO = 10  # integer part is "0"
NUM_INT = 11
NUM_DOT = 12  # after ".": a digit
NUM_FRAC = 13
NUM_E = 14  # after "e": a sign or a digit
NUM_ESIGN = 15  # after the exponent's sign: a digit
NUM_EXP = 16
LITERAL = 17  # inside true / false / null
DONE = 18
ERROR = 19

_STRING_RUN = re.compile(r'[^"\\\x00-\x1f]+')
_DIGIT_RUN = re.compile(r"[0-9]+")
_HEX = frozenset("0123456789abcdefABCDEF")
_ESCAPES = frozenset('"\\/bfnrtu')
_LITERALS = {"t": "true", "f": "false", "n": "null"}
_SPACE = frozenset(" \t\n\r")


class JsonScanner:
    """Validates one JSON object as it arrives; :meth:`feed` says where it stopped.

    >>> s = JsonScanner()
    >>> s.feed('{"a": "x}"') , s.in_string, s.done
    (10, False, False)
    >>> s.feed('} tail'), s.done
    (1, True)
    """

    takes_credits = False  # (no token credits: see calls.arguments)

    KIND = "JSON"  # what the arguments are written in, for errors

    __slots__ = ("state", "_stack", "_key", "_literal", "_literal_at", "_hex_left", "error", "_object_only")

    def __init__(self, object_only: bool = True) -> None:
        # object_only: tool arguments (the top level is an object); else any JSON value, which
        # for a number is done at the first character after it (not consumed).
        self._object_only = object_only
        self.state = VALUE
        self._stack: list[str] = []  # "{" or "["
        self._key = False  # the open string is an object key
        self._literal = ""
        self._literal_at = 0
        self._hex_left = 0
        self.error: str | None = None

    @property
    def done(self) -> bool:
        return self.state == DONE

    @property
    def failed(self) -> bool:
        return self.state == ERROR

    def arguments_text(self, buf: str, start: int, end: int) -> str:
        """The arguments' JSON in what was just read: all of it."""
        return buf[start:end]

    def unfinished(self) -> Optional[str]:
        return None  # an open object says all there is to say

    def ended_in_value(self) -> bool:
        return False  # a JSON object's end is its own closing brace

    def end(self, buf: str, pos: int, end: int) -> bool:
        """An object is done only when it closes, never at a marker."""
        return False

    @property
    def in_string(self) -> bool:
        return STRING <= self.state <= UNICODE

    @property
    def depth(self) -> int:
        return len(self._stack)

    def _fail(self, message: str) -> None:
        self.state = ERROR
        self.error = message

    def feed(self, text: str, start: int = 0, end: int | None = None) -> int:
        """Consume ``text[start:end]``. Returns the index after the object's closing brace (state
        DONE), the index of the first invalid character (state ERROR, ``error`` says why), or
        ``end`` when all of it was consumed and more is expected."""
        if end is None:
            end = len(text)
        st = self.state
        if st == DONE or st == ERROR:
            return start
        i = start
        stack = self._stack
        while i < end:
            if st == STRING:
                m = _STRING_RUN.match(text, i, end)
                if m is not None:
                    i = m.end()
                    if i >= end:
                        break
                c = text[i]
                if c == '"':
                    i += 1
                    if self._key:
                        st = COLON
                    elif not stack:
                        self.state = DONE
                        return i
                    else:
                        st = AFTER
                elif c == "\\":
                    i += 1
                    st = ESCAPE
                else:
                    self.state = st
                    self._fail(f"raw control character {c!r} in a string")
                    return i
                continue
            c = text[i]
            if st < STRING and c in _SPACE:
                m = JSON_SPACE_RUN.match(text, i, end)
                i = m.end()  # type: ignore[union-attr]
                continue
            if st == AFTER:
                top = stack[-1]
                if c == ",":
                    st = KEY if top == "{" else VALUE
                elif (c == "}" and top == "{") or (c == "]" and top == "["):
                    stack.pop()
                    if not stack:
                        self.state = DONE
                        return i + 1
                else:
                    self.state = st
                    self._fail(f"expected ',' or {'}' if top == '{' else ']'!r}, got {c!r}")
                    return i
                i += 1
            elif st == VALUE or st == FIRST_ITEM:
                if c == "{":
                    stack.append("{")
                    st = FIRST_KEY
                    i += 1
                elif not stack and self._object_only:
                    self.state = st
                    self._fail(f"arguments must be a JSON object, got {c!r}")
                    return i
                elif c == '"':
                    st = STRING
                    self._key = False
                    i += 1
                elif c == "[":
                    stack.append("[")
                    st = FIRST_ITEM
                    i += 1
                elif c == "]" and st == FIRST_ITEM:
                    stack.pop()
                    st = AFTER
                    i += 1
                    if not stack:
                        self.state = DONE
                        return i
                elif c == "-":
                    st = NUM_MINUS
                    i += 1
                elif c == "0":
                    st = NUM_ZERO
                    i += 1
                elif "1" <= c <= "9":
                    m = _DIGIT_RUN.match(text, i, end)
                    i = m.end()  # type: ignore[union-attr]
                    st = NUM_INT
                elif c in _LITERALS:
                    self._literal = _LITERALS[c]
                    self._literal_at = 1
                    st = LITERAL
                    i += 1
                else:
                    self.state = st
                    self._fail(f"expected a JSON value, got {c!r}")
                    return i
            elif st == FIRST_KEY or st == KEY:
                if c == '"':
                    st = STRING
                    self._key = True
                    i += 1
                elif c == "}" and st == FIRST_KEY:
                    stack.pop()
                    if not stack:
                        self.state = DONE
                        return i + 1
                    st = AFTER
                    i += 1
                else:
                    self.state = st
                    self._fail(f"expected an object key, got {c!r}")
                    return i
            elif st == COLON:
                if c == ":":
                    st = VALUE
                    i += 1
                else:
                    self.state = st
                    self._fail(f"expected ':', got {c!r}")
                    return i
            elif st == ESCAPE:
                if c not in _ESCAPES:
                    self.state = st
                    self._fail(f"invalid escape '\\{c}'")
                    return i
                i += 1
                if c == "u":
                    self._hex_left = 4
                    st = UNICODE
                else:
                    st = STRING
            elif st == UNICODE:
                if c not in _HEX:
                    self.state = st
                    self._fail(f"invalid \\u escape digit {c!r}")
                    return i
                i += 1
                self._hex_left -= 1
                if self._hex_left == 0:
                    st = STRING
            elif st == LITERAL:
                if c != self._literal[self._literal_at]:
                    self.state = st
                    self._fail(f"invalid literal, expected {self._literal!r}")
                    return i
                i += 1
                self._literal_at += 1
                if self._literal_at == len(self._literal):
                    st = AFTER
                    if not stack:
                        self.state = DONE
                        return i
            elif st == NUM_MINUS:
                if c == "0":
                    st = NUM_ZERO
                    i += 1
                elif "1" <= c <= "9":
                    m = _DIGIT_RUN.match(text, i, end)
                    i = m.end()  # type: ignore[union-attr]
                    st = NUM_INT
                else:
                    self.state = st
                    self._fail(f"expected a digit after '-', got {c!r}")
                    return i
            elif st == NUM_DOT or st == NUM_ESIGN:
                if "0" <= c <= "9":
                    m = _DIGIT_RUN.match(text, i, end)
                    i = m.end()  # type: ignore[union-attr]
                    st = NUM_FRAC if st == NUM_DOT else NUM_EXP
                else:
                    self.state = st
                    self._fail(f"expected a digit in a number, got {c!r}")
                    return i
            elif st == NUM_E:
                if c == "+" or c == "-":
                    st = NUM_ESIGN
                    i += 1
                elif "0" <= c <= "9":
                    m = _DIGIT_RUN.match(text, i, end)
                    i = m.end()  # type: ignore[union-attr]
                    st = NUM_EXP
                else:
                    self.state = st
                    self._fail(f"expected an exponent, got {c!r}")
                    return i
            else:  # NUM_ZERO, NUM_INT, NUM_FRAC, NUM_EXP: the number may go on or end here
                if "0" <= c <= "9":
                    if st == NUM_ZERO:
                        self.state = st
                        self._fail("a number may not have a leading zero")
                        return i
                    m = _DIGIT_RUN.match(text, i, end)
                    i = m.end()  # type: ignore[union-attr]
                elif c == "." and (st == NUM_ZERO or st == NUM_INT):
                    st = NUM_DOT
                    i += 1
                elif (c == "e" or c == "E") and st != NUM_EXP:
                    st = NUM_E
                    i += 1
                else:
                    st = AFTER  # the number ended; this character belongs to what follows
                    if not stack:
                        self.state = DONE
                        return i
        self.state = st
        return end
