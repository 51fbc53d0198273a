"""Reading a call written as one JSON object — ``{"name": "get_weather", "arguments": {...}}`` —
incrementally: the tool name as soon as its string closes, and where in the text the arguments
value lies, so that it can stream as raw text like any other layout's arguments.

It offers the :class:`~thinkgate.parsing.json_scanner.JsonScanner` interface (``feed``,
``done``, ``failed``, ``in_string``, ``error``) so the call machine drives both alike; the
values themselves are read by inner scanners.
"""

from __future__ import annotations

import json
import re
from typing import Optional

from .json_scanner import JsonScanner
from .spaces import JSON_SPACE_RUN

_KEY_RUN = re.compile(r'[^"\\\x00-\x1f]+')

OPEN, KEY_OR_END, KEY_START, KEY, KEY_ESCAPE, COLON, VALUE, IN_VALUE, AFTER, DONE, ERROR = range(11)


class JsonWrapperScanner:
    """Validates the call object and finds the tool name and the arguments in it.

    After each :meth:`feed`, ``spans`` holds the ``(start, end)`` ranges of the fed text that
    belong to the arguments value; ``name`` is set once the name's string has closed."""

    takes_credits = False  # (no token credits: see calls.arguments)

    KIND = "JSON"  # what the arguments are written in, for errors

    __slots__ = ("state", "error", "name", "call_id", "arguments_done", "spans", "_name_key", "_args_key", "_args_keys", "_id_key", "_key", "_value", "_value_key", "_raw_name", "_name_as_key")

    def __init__(self, name_key: str = "name", arguments_key: str = "arguments", id_key: str = "", read_also: tuple[str, ...] = (), name_as_key: bool = False) -> None:
        # ``name_as_key``: the object's one key is the tool's name, its value the arguments
        # (Apertus: ``{"get_weather": {"city": "Paris"}}``)
        self._name_as_key = name_as_key
        self._name_key = name_key
        self._args_key = arguments_key
        self._args_keys = frozenset((arguments_key, *read_also))  # the keys the arguments may stand under
        self._id_key = id_key
        self.call_id: Optional[str] = None  # the value under id_key, when it is a string
        self.state = OPEN
        self.error: Optional[str] = None
        self.name: Optional[str] = None
        self.arguments_done = False
        self.spans: list[tuple[int, int]] = []
        self._key: list[str] = []
        self._value: Optional[JsonScanner] = None
        self._value_key = ""
        self._raw_name: list[str] = []

    @property
    def done(self) -> bool:
        return self.state == DONE

    @property
    def failed(self) -> bool:
        return self.state == ERROR

    def arguments_text(self, buf: str, start: int, end: int) -> str:
        """The arguments' JSON in what was just read: the arguments value's spans only."""
        return "".join(buf[a:b] for a, b in self.spans) if end > start else ""

    def unfinished(self) -> Optional[str]:
        return None  # an open object says all there is to say

    def ended_in_value(self) -> bool:
        return False  # a JSON object's end is its own closing brace

    def end(self, buf: str, pos: int, end: int) -> bool:
        return False

    @property
    def in_string(self) -> bool:
        if self.state in (KEY, KEY_ESCAPE):
            return True
        return self.state == IN_VALUE and self._value is not None and self._value.in_string

    def _fail(self, message: str) -> None:
        self.state = ERROR
        self.error = message

    def feed(self, text: str, start: int = 0, end: Optional[int] = None) -> int:
        if end is None:
            end = len(text)
        self.spans = []
        i = start
        while i < end:
            st = self.state
            if st == IN_VALUE:
                value = self._value
                j = value.feed(text, i, end)
                if self._value_key in self._args_keys:
                    self.spans.append((i, j))
                elif self._value_key in (self._name_key, self._id_key):
                    self._raw_name.append(text[i:j])
                if value.failed:
                    self._fail(f"{self._value_key!r}: {value.error}")
                    return j
                i = j
                if value.done:
                    self._value_done()
                    if self.state == ERROR:
                        return i
                continue
            if st in (DONE, ERROR):
                return i
            if st in (OPEN, KEY_OR_END, KEY_START, COLON, VALUE, AFTER):
                i = JSON_SPACE_RUN.match(text, i, end).end()  # type: ignore[union-attr]
                if i >= end:
                    break
            c = text[i]
            if st == OPEN:
                if c != "{":
                    self._fail(f"a call must be a JSON object, got {c!r}")
                    return i
                self.state = KEY_OR_END
                i += 1
            elif st == KEY_OR_END or st == KEY_START:
                if c == '"':
                    self.state = KEY
                    self._key = []
                    i += 1
                elif c == "}" and st == KEY_OR_END:
                    self._close()
                    return i + 1
                else:
                    self._fail(f"expected a key in the call object, got {c!r}")
                    return i
            elif st == KEY:
                m = _KEY_RUN.match(text, i, end)
                if m is not None:
                    self._key.append(m.group())
                    i = m.end()
                    continue
                if c == '"':
                    self.state = COLON
                    if self._name_as_key and self.name is None:
                        # the key names the tool: known as soon as its string closes
                        self.name = _decode("".join(self._key))
                        self._args_keys = frozenset((self.name,))
                elif c == "\\":
                    self._key.append(c)
                    self.state = KEY_ESCAPE
                else:
                    self._fail(f"raw control character {c!r} in a key")
                    return i
                i += 1
            elif st == KEY_ESCAPE:
                self._key.append(c)
                self.state = KEY
                i += 1
            elif st == COLON:
                if c != ":":
                    self._fail(f"expected ':' in the call object, got {c!r}")
                    return i
                self.state = VALUE
                i += 1
            elif st == VALUE:
                key = _decode("".join(self._key))
                self._value_key = key
                if self._name_as_key and self.arguments_done:
                    self._fail(f"the call object names its tool by its one key, and holds another ({key!r} after {self.name!r})")
                    return i
                if key in self._args_keys and self.arguments_done:
                    self._fail(f"the call object holds its arguments twice ({key!r} after {self._args_key!r} or its alias)")
                    return i
                self._value = JsonScanner(object_only=key in self._args_keys)
                self._raw_name = []
                self.state = IN_VALUE
            elif st == AFTER:
                if c == ",":
                    self.state = KEY_START
                    i += 1
                elif c == "}":
                    self._close()
                    return i + 1
                else:
                    self._fail(f"expected ',' or '}}' in the call object, got {c!r}")
                    return i
        return end

    def _value_done(self) -> None:
        key = self._value_key
        if self._name_as_key:
            self.arguments_done = True
        elif key == self._name_key:
            try:
                name = json.loads("".join(self._raw_name))
            except ValueError:
                name = None
            if not isinstance(name, str):
                self._fail(f"the tool name ({self._name_key!r}) is not a string")
                return
            self.name = name
        elif key in self._args_keys:
            self.arguments_done = True
        elif key == self._id_key:
            try:
                value = json.loads("".join(self._raw_name))
            except ValueError:
                value = None
            self.call_id = value if isinstance(value, str) else None
        self.state = AFTER

    def _close(self) -> None:
        if self.name is None:
            self._fail("the call object names no tool (its one key is the tool's name)" if self._name_as_key else f"the call object has no {self._name_key!r}")
        elif not self.arguments_done:
            self._fail(f"the call object has no {self._args_key!r} object")
        else:
            self.state = DONE


def _decode(raw: str) -> str:
    try:
        return json.loads('"' + raw + '"')
    except ValueError:
        return raw
