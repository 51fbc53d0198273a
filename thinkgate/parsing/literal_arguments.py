"""A tool call's arguments written as an object literal with bare keys and strings between a
delimiter token (Gemma 4: ``{city:<|"|>Paris<|"|>,days:3}``), read as they arrive and converted
into JSON text as they are read.

This is the one arguments style whose arguments are re-serialised: the model's literal is not
JSON, so the parser writes the JSON object it stands for (``{"city": "Paris", "days": 3}``,
JSON's default separators), a piece at a time as the literal is read: a key once its colon has
come, a string's text as it arrives (escaped for JSON, otherwise verbatim), a number or literal
once the character after it has come, the brackets where they stand. So the streamed argument
deltas concatenate to the final arguments exactly, whatever the cut of the deltas.

The scanner has the interface of :class:`~thinkgate.parsing.json_scanner.JsonScanner` that the
call machine drives (``feed``, ``done``, ``failed``, ``in_string``, ``arguments_text``, ``end``,
``unfinished``, ``ended_in_value``); it also takes the delta's ``credits``: with token ids, a
string ends only at the delimiter's own token (its text spelled in ordinary tokens is string
content). In text mode, text that could still become the delimiter is left unread.
"""

from __future__ import annotations

import json
import re
from typing import Any, Optional

from ..formats.base import LiteralArguments
from .markers import Credits, partial_suffix
from .spaces import JSON_SPACE_RUN

# States
VALUE, OBJECT_FIRST, KEY, BARE_KEY, QUOTED_KEY, COLON, STRING, BARE, AFTER, ARRAY_FIRST, DONE, FAILED = range(12)

_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_LITERALS = {"true": "true", "false": "false", "null": "null"}
_MAX_BARE = 512  # a number or literal longer than this is no value


class LiteralArgumentsScanner:

    takes_credits = True  # the delta's token credits set on it before each feed (strings end at a marker token)

    KIND = "object literal"  # what the arguments are written in, for errors

    def __init__(self, style: LiteralArguments) -> None:
        self._s = style
        self._quote = style.quote
        self._literals = {**_LITERALS, **{n: "null" for n in style.null_also}}
        self.state = VALUE
        self.error: Optional[str] = None
        self.credits: Optional[Credits] = None  # the delta's, where token ids are fed
        self._stack: list[str] = []  # the open containers' closing texts
        self._keys: list[set[str]] = []  # each open object's keys so far
        self._count: list[int] = []  # each open container's items so far
        self._text: list[str] = []  # the key or bare value being read
        self._text_len = 0
        self._out: list[str] = []  # JSON not yet handed over
        # the key run: what is none of the structure's characters, whitespace, or a marker's start
        stops = re.escape("".join({style.colon[0], style.comma[0], *style.object, *style.array, style.quote[0]}))
        self._key_run = re.compile(f"[^\\s{stops}]+")
        self._bare_run = re.compile(f"[^\\s{stops}]+")

    # ------------------------------------------------------------------ the interface

    @property
    def done(self) -> bool:
        return self.state == DONE

    @property
    def failed(self) -> bool:
        return self.state == FAILED

    @property
    def in_string(self) -> bool:
        return self.state in (STRING, QUOTED_KEY)

    def arguments_text(self, buf: str, start: int, end: int) -> str:
        out, self._out = "".join(self._out), []
        return out

    def end(self, buf: str, pos: int, end: int) -> bool:
        """A literal ends with its closing brace, never at a marker."""
        return False

    def unfinished(self) -> Optional[str]:
        if self.state in (STRING, QUOTED_KEY):
            return f"a string in the arguments has no closing {self._quote!r}"
        return None

    def ended_in_value(self) -> bool:
        return False

    # ------------------------------------------------------------------ reading

    def feed(self, buf: str, pos: int = 0, end: Optional[int] = None) -> int:
        """Read ``buf[pos:end]``; the position reached (before undecided delimiter text, or after
        the arguments when they are done, or at the fault when they fail)."""
        end = len(buf) if end is None else end
        s = self._s
        while pos < end and self.state < DONE:
            state = self.state
            if state == STRING or state == QUOTED_KEY:
                pos = self._string(buf, pos, end)
                if self.state == state and pos < end:
                    return pos  # the delimiter's text may have begun: wait for more
                continue
            if state == BARE_KEY or state == BARE:
                run = (self._key_run if state == BARE_KEY else self._bare_run).match(buf, pos, end)
                if run is not None:
                    self._text.append(run.group())
                    self._text_len += run.end() - pos
                    pos = run.end()
                    if self._text_len > (s.key_length if state == BARE_KEY else _MAX_BARE):
                        return self._fail("a key longer than %d characters" % s.key_length if state == BARE_KEY else "a value that is no number, true, false or null", pos)
                if pos == end:
                    return pos
                if state == BARE_KEY:
                    if not self._key("".join(self._text), pos):
                        return pos
                    self.state = COLON
                else:
                    past = self._openless(buf, pos, end)
                    if past is None:
                        return pos  # (the delimiter may come in the next piece)
                    if past != -1:
                        pos = past
                    elif not self._bare(pos):
                        return pos
                    self.state = AFTER
                continue
            pos = JSON_SPACE_RUN.match(buf, pos, end).end()  # type: ignore[union-attr]
            if pos == end:
                return pos
            c = buf[pos]
            if state == VALUE or state == ARRAY_FIRST:
                if state == ARRAY_FIRST and buf.startswith(s.array[1], pos):
                    pos = self._close(pos)
                    continue
                if not self._stack and not buf.startswith(s.object[0], pos):
                    if s.object[0].startswith(buf[pos:end]):
                        return pos
                    return self._fail(f"the arguments must be an object, opening with {s.object[0]!r}", pos)
                if buf.startswith(s.object[0], pos):
                    kind = "object"
                elif buf.startswith(s.array[0], pos):
                    kind = "array"
                else:
                    q = self._at_quote(buf, pos, end)
                    if q is None:
                        return pos  # perhaps the delimiter: wait for more
                    kind = "string" if q else "bare"
                if self._stack and self._stack[-1] == s.array[1]:
                    self._item()
                if kind == "object":
                    self._open(s.object[1])
                    self._out.append("{")
                    self.state = OBJECT_FIRST
                    pos += len(s.object[0])
                elif kind == "array":
                    self._open(s.array[1])
                    self._out.append("[")
                    self.state = ARRAY_FIRST
                    pos += len(s.array[0])
                elif kind == "string":
                    self._out.append('"')
                    self.state = STRING
                    pos += len(self._quote)
                else:
                    self._text, self._text_len = [], 0
                    self.state = BARE
            elif state == OBJECT_FIRST or state == KEY:
                if state == OBJECT_FIRST and buf.startswith(s.object[1], pos):
                    pos = self._close(pos)
                    continue
                q = self._at_quote(buf, pos, end)
                if q is None:
                    return pos
                self._text, self._text_len = [], 0
                if q:
                    self.state = QUOTED_KEY
                    pos += len(self._quote)
                else:
                    if self._key_run.match(buf, pos, end) is None:
                        return self._fail(f"expected a key, not {c!r}", pos)
                    self.state = BARE_KEY
            elif state == COLON:
                if not buf.startswith(s.colon, pos):
                    return self._fail(f"expected {s.colon!r} after the key {self._last_key!r}", pos)
                pos += len(s.colon)
                self.state = VALUE
            else:  # AFTER a value: the comma or the container's close
                closer = self._stack[-1]
                if buf.startswith(closer, pos):
                    pos = self._close(pos)
                elif buf.startswith(s.comma, pos):
                    pos += len(s.comma)
                    self.state = KEY if closer == s.object[1] else VALUE
                else:
                    return self._fail(f"expected {s.comma!r} or {closer!r}, not {c!r}", pos)
        return pos

    # ------------------------------------------------------------------ pieces

    def _at_quote(self, buf: str, pos: int, end: int) -> Optional[bool]:
        """Whether the delimiter stands at ``pos`` (None: its text may have begun; undecided)."""
        quote = self._quote
        if buf.startswith(quote, pos):
            if self.credits is None:
                return True
            if self.credits.available(quote, pos):
                self.credits.take(quote)
                return True
            return False
        if self.credits is None and quote.startswith(buf[pos:end]):
            return None
        return False

    def _string(self, buf: str, pos: int, end: int) -> int:
        """A string's text up to its closing delimiter (a key's, or a value's, which streams)."""
        quote = self._quote
        credits = self.credits
        i = buf.find(quote, pos, end)
        while i != -1 and credits is not None and not credits.available(quote, i):
            i = buf.find(quote, i + 1, end)
        if i == -1:
            stop = end if credits is not None else end - partial_suffix(buf, pos, end, quote)
            self._string_text(buf[pos:stop])
            return stop
        if credits is not None:
            credits.take(quote)
        self._string_text(buf[pos:i])
        if self.state == QUOTED_KEY:
            if not self._key("".join(self._text), i):
                return i
            self.state = COLON
        else:
            self._out.append('"')
            self.state = AFTER
        return i + len(quote)

    def _string_text(self, text: str) -> None:
        if not text:
            return
        if self.state == QUOTED_KEY:
            self._text.append(text)
            self._text_len += len(text)
        else:
            self._out.append(_json_string(text)[1:-1])

    def _key(self, key: str, pos: int) -> bool:
        keys = self._keys[-1]
        if key in keys:
            self._fail(f"the key {key!r} is given twice", pos)
            return False
        if len(key) > self._s.key_length:
            self._fail(f"a key longer than {self._s.key_length} characters", pos)
            return False
        keys.add(key)
        self._last_key = key
        self._out.append(("" if len(keys) == 1 else ", ") + json.dumps(key, ensure_ascii=False) + ": ")
        return True

    def _bare(self, pos: int) -> bool:
        text = "".join(self._text)
        value = self._literals.get(text)
        if value is None and _NUMBER.fullmatch(text) is not None:
            value = text
        if value is None:
            self._fail(f"{text[:40]!r} is no number, true, false or null (a string stands between {self._quote!r})", pos)
            return False
        self._out.append(value)
        return True

    def _openless(self, buf: str, pos: int, end: int) -> Optional[int]:
        """Bare text that is no literal, followed by the delimiter before any container closes:
        a string written without its opening delimiter (a slip Gemma 4 makes), read as the
        string it is; where after the text read so far the delimiter or a closer may still
        come, undecided (None); else -1."""
        text = "".join(self._text)
        if self._literals.get(text) is not None or _NUMBER.fullmatch(text) is not None:
            return -1
        quote, credits = self._quote, self.credits
        i = buf.find(quote, pos, end)
        while i != -1 and credits is not None and not credits.available(quote, i):
            i = buf.find(quote, i + 1, end)
        closers = (self._s.object[1], self._s.array[1])
        stop = i if i != -1 else end
        if any(c in buf[pos:stop] for c in closers) or "\n" in buf[pos:stop]:
            return -1
        if i == -1:
            return None
        if credits is not None:
            credits.take(quote)
        self._out.append('"' + json.dumps(text + buf[pos:i], ensure_ascii=False)[1:-1] + '"')
        return i + len(quote)

    def _open(self, closer: str) -> None:
        self._stack.append(closer)
        if closer == self._s.object[1]:
            self._keys.append(set())
        self._count.append(0)

    def _item(self) -> None:
        if self._count[-1]:
            self._out.append(", ")
        self._count[-1] += 1

    def _close(self, pos: int) -> int:
        closer = self._stack.pop()
        self._count.pop()
        if closer == self._s.object[1]:
            self._keys.pop()
            self._out.append("}")
        else:
            self._out.append("]")
        self.state = AFTER if self._stack else DONE
        return pos + len(closer)

    def _fail(self, error: str, pos: int) -> int:
        self.state = FAILED
        self.error = error
        return pos

    _last_key = ""


# a string as JSON writes it with ensure_ascii=False (json.dumps's own encoder, without its
# per-call setup: this runs on every delta of a streamed string)
_json_string = json.encoder.encode_basestring


def literal_reader(style: LiteralArguments) -> Any:
    return LiteralArgumentsScanner(style)
