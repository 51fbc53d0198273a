"""The streaming state machines for calls as JSON call objects with no markers of their own
(the :class:`~thinkgate.formats.JsonCalls` layout), bare or in one JSON array.

Bare (Llama 3.x)::

    [OPTIONAL_BEGIN] CALL_OBJECT ( SEPARATOR CALL_OBJECT )*      an answer that starts with "{"
    TEXT                                                          any other answer

With no marker to announce a call, what decides is the answer's first character past leading
whitespace (and past ``<|python_tag|>``, which the model may write first): ``{`` starts the calls,
anything else makes the whole answer text, so a ``{`` later in a sentence is never read as a
call.

In an array (Mistral before tokenizer v11)::

    CONTENT SECTION_BEGIN "[" CALL_OBJECT ( "," CALL_OBJECT )* "]" CONTENT

``[TOOL_CALLS] [{"name": "get_weather", "arguments": {…}}, {"name": "now", "arguments": {}}]``:
the section marker, then one JSON array whose items are call objects. The brackets and commas of
the array are markup like the marker; whitespace around them is dropped. What does not fit — the
marker not followed by ``[``, text where an item or a comma should be — ends the array, and the
text is answer text. A broken item has no end of its own to stop at: it runs to the next marker
(the end of the output, or another ``[TOOL_CALLS]``), the items before it standing.

Either way the call objects are read by the marked-calls machine's states (a call object
streams its arguments as Qwen3's do); only the entry and the text between calls differ.
"""

from __future__ import annotations

from typing import Any

from ..formats import ChatFormat, Thinking
from .marked_calls import MarkedCallsMachine
from .markers import Credits, MarkerSet
from .spaces import SPACE_RUN
from .stages import Stage


class BareJsonMachine(MarkedCallsMachine):
    """Events from the text of one output whose calls are bare call objects (see the module)."""

    def __init__(self, fmt: ChatFormat, thinking: Thinking, *args, calls_after_content: bool = True, **kwargs) -> None:
        # A call is only ever the start of the answer: after text, a "{" is text.
        super().__init__(fmt, thinking, *args, calls_after_content=False, **kwargs)
        tools = fmt.tools
        self._begin = tools.optional_begin
        self._separator = tools.separator.strip()
        self._ends = MarkerSet(self._stops)
        if not self._verbatim:
            self._in_content = self._in_content_only = self._ends
        self._in_call = self._ends
        self._between = MarkerSet((*self._stops, self._begin))
        self._calls_read = 0
        self._handlers[Stage.CONTENT] = self._answer_start
        self._handlers[Stage.SECTION] = self._between_calls

    def _answer_start(self, buf: str, pos: int, credits: Credits | None) -> int:
        """Before the answer's first character: is it a call?"""
        if self._content_seen or self._verbatim:
            return self._content(buf, pos, credits)
        j = SPACE_RUN.match(buf, pos).end()  # type: ignore[union-attr]
        if j == len(buf):
            if not self._final:
                self._carry = buf[pos:]
            return len(buf)
        if buf[j] == "{":
            self._section_return = Stage.CONTENT
            self.stage = Stage.SECTION
            return j
        begin = self._begin
        if begin and buf.startswith(begin, j) and (credits is None or credits.available(begin, j)):
            if credits is not None:
                credits.take(begin)
            self.stage = Stage.SECTION
            return j + len(begin)
        if begin and credits is None and not self._final and begin.startswith(buf[j:]):
            self._carry = buf[pos:]
            return len(buf)
        return self._content(buf, pos, credits)

    def _between_calls(self, buf: str, pos: int, credits: Credits | None) -> int:
        """Whitespace and separators between calls are markup; a ``{`` starts the next call; an
        end marker ends the output; anything else is text, and the rest of the answer with it."""
        n = len(buf)
        j = SPACE_RUN.match(buf, pos).end()  # type: ignore[union-attr]
        if j == n:
            return n
        c = buf[j]
        if c == "{":
            self._reset_call()
            self._read_call_object()
            return j
        if self._separator and self._calls_read and buf.startswith(self._separator, j):
            return j + len(self._separator)
        if self._separator and self._calls_read and credits is None and not self._final and self._separator.startswith(buf[j:]):
            self._carry = buf[j:]
            return n
        p, m = self._between.find(buf, j, credits)
        if m is not None and p == j:
            if credits is not None:
                credits.take(m)
            return j + len(m)
        if m is None and self._between.hold_from(buf, j, credits) == j and not self._final:
            self._carry = buf[j:]
            return n
        self._space = ""
        self.stage = Stage.CONTENT
        return self._content(buf, j, credits)

    def _close_call(self) -> None:
        self._calls_read += 1
        super()._close_call()

    def _invalid(self, error: str, cut_off: bool = False) -> None:
        self._calls_read += 1
        super()._invalid(error, cut_off)


# Where in the array the reader is: before "[", before the first item (or "]"), after an item
# (before "," or "]"), after a comma (before an item).
OPEN, FIRST, AFTER_ITEM, AFTER_COMMA = range(4)


class JsonArrayMachine(MarkedCallsMachine):
    """Events from the text of one output whose calls are one JSON array (see the module)."""

    def __init__(self, fmt: ChatFormat, thinking: Thinking, *args: Any, **kwargs: Any) -> None:
        super().__init__(fmt, thinking, *args, **kwargs)
        tools = fmt.tools
        self._array_open, self._array_close = (b.strip() for b in tools.array)
        self._comma = tools.separator.strip()
        self._at = OPEN
        self._handlers[Stage.SECTION] = self._array

    def _array(self, buf: str, pos: int, credits: Credits | None) -> int:
        n = len(buf)
        j = SPACE_RUN.match(buf, pos).end()  # type: ignore[union-attr]
        if j == n:
            if not self._final and self._at == OPEN:
                self._carry = buf[pos:]  # the "[" may follow: the space is no text yet
            return n
        p, m = self._in_section.find(buf, j, credits)
        if m is not None and p == j:
            # A marker ends the array; the stage after it reads the marker (the section marker
            # written twice opens the array again).
            return self._leave(j)
        if m is None and not self._final and self._in_section.hold_from(buf, j, credits) == j:
            self._carry = buf[j:]
            return n
        at = self._at
        if at == OPEN:
            if buf.startswith(self._array_open, j):
                self._at = FIRST
                return j + len(self._array_open)
        elif buf[j] == "{" and at != AFTER_ITEM:
            self._reset_call()
            self._read_call_object()
            return j
        elif buf.startswith(self._array_close, j) and at != AFTER_COMMA:
            self._leave(j)
            return j + len(self._array_close)
        elif buf.startswith(self._comma, j) and at == AFTER_ITEM:
            self._at = AFTER_COMMA
            return j + len(self._comma)
        return self._leave(j)  # no array, or no item where one should be: answer text

    def _leave(self, at: int) -> int:
        self._at = OPEN
        self.stage = self._section_return
        return at

    def _arguments_done(self) -> None:
        # An item ends with its object: no footer, no end marker. (A broken item is read up to a
        # marker, and the marker ends the array.)
        self._close_call()
        if self.stage != Stage.STOPPED:
            self._at = AFTER_ITEM
            self.stage = Stage.SECTION


def machine_class(fmt: ChatFormat) -> type:
    return JsonArrayMachine if any(fmt.tools.array) else BareJsonMachine
