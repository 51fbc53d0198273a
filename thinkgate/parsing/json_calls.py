"""The streaming state machines for calls as JSON call objects with no markers of their own
(the :class:`~thinkgate.formats.JsonCalls` layout), bare or in one JSON array.

Bare (Llama 3.x)::

    [OPTIONAL_BEGIN] CALL_OBJECT ( SEPARATOR CALL_OBJECT )*      an answer that starts with "{"
    TEXT                                                          any other answer

With no marker to announce a call, what decides is the answer's first character past leading
whitespace (and past ``<|python_tag|>``, which the model may write first): ``{`` starts the calls,
anything else makes the whole answer text, so a ``{`` later in a sentence is never read as a
call.

In an array (Mistral before tokenizer v11, Nemotron Nano v2)::

    CONTENT SECTION_BEGIN "[" CALL_OBJECT ( "," CALL_OBJECT )* "]" [SECTION_END] CONTENT

or, where no section marker opens the array (xLAM), the whole answer::

    "[" CALL_OBJECT ( "," CALL_OBJECT )* "]" CONTENT      an answer that starts with "[" and "{"
    TEXT                                                  any other answer

``[TOOL_CALLS] [{"name": "get_weather", "arguments": {…}}, {"name": "now", "arguments": {}}]``:
the section marker, then one JSON array whose items are call objects. The brackets and commas of
the array are markup like the marker; whitespace around them is dropped. What does not fit — the
marker not followed by ``[``, text where an item or a comma should be — ends the array, and the
text is answer text. A broken item has no end of its own to stop at: it runs to the next marker
(the end of the output, or another ``[TOOL_CALLS]``), the items before it standing.

Either way a call object is read by the call tracker (``calls.py``), which streams its arguments
as it does Qwen3's; the reasoning, the answer and a call's end are the stages every markup
layout shares (``markup.py``). This module holds only the entry into the calls and what stands
between them.
"""

from __future__ import annotations

from ..formats import ChatFormat
from .calls import CallTracker
from .driver import Driver, Handler
from .markers import Credits, MarkerSet
from .markup import Markup
from .spaces import SPACE_RUN
from .stages import Reading, Stage


class BareJsonCalls:
    """The stages of an output whose calls are bare call objects (see the module)."""

    def __init__(self, driver: Driver, calls: CallTracker, fmt: ChatFormat, reading: Reading) -> None:
        self.d = driver
        self.calls = calls
        tools = fmt.tools
        # A call is only ever the start of the answer: after text, a "{" is text.
        self.markup = Markup(driver, calls, fmt, reading, calls_after_content=False)
        self.answer = self.markup.answer
        self._optional_begin = tools.optional_begin
        self._separator = tools.separator.strip()
        self._between = MarkerSet((fmt.eos, *fmt.stops, self._optional_begin))
        self.markup.start(self)

    def stages(self) -> dict[Stage, Handler]:
        return self.markup.stages(self.between_calls, content=self.answer_start)

    def finish_stage(self) -> None:
        self.markup.finish_stage()

    def answer_start(self, buf: str, pos: int, credits: Credits | None) -> int:
        """Before the answer's first character: is it a call?"""
        d = self.d
        if d.content_seen or d.verbatim:
            return self.answer.content(buf, pos, credits)
        j = SPACE_RUN.match(buf, pos).end()  # type: ignore[union-attr]
        if j == len(buf):
            if not d.final:
                d.carry = buf[pos:]
            return len(buf)
        if buf[j] == "{":
            self.answer.section_return = Stage.CONTENT
            d.stage = Stage.SECTION
            return j
        begin = self._optional_begin
        if begin and buf.startswith(begin, j) and (credits is None or credits.available(begin, j)):
            d.take(credits, begin)
            self.answer.block = [begin]  # given back with the text if no call follows
            d.stage = Stage.SECTION
            return j + len(begin)
        if begin and credits is None and not d.final and begin.startswith(buf[j:]):
            d.carry = buf[pos:]
            return len(buf)
        return self.answer.content(buf, pos, credits)

    def between_calls(self, buf: str, pos: int, credits: Credits | None) -> int:
        """Whitespace and separators between calls are markup; a ``{`` starts the next call; an
        end marker ends the output; anything else is text, and the rest of the answer with it."""
        d, calls = self.d, self.calls
        n = len(buf)
        j = SPACE_RUN.match(buf, pos).end()  # type: ignore[union-attr]
        if not self.answer.keep(buf[pos:j]):
            d.say(buf[pos:j])  # framing if markup follows, the answer's own if text does
        if j == n:
            return n
        c = buf[j]
        if c == "{":
            self.answer.call_begins()
            calls.reset()
            calls.read_call_object()
            return j
        sep = self._separator
        if sep and calls.ended and buf.startswith(sep, j):
            d.mark()
            return j + len(sep)
        if sep and calls.ended and credits is None and not d.final and sep.startswith(buf[j:]):
            d.carry = buf[j:]
            return n
        p, m, past = self._between.find(buf, j, credits, d.final)
        if m is not None and p == j:
            if m == self._optional_begin:
                self.answer.keep(m)
            else:
                self.answer.give_back()  # the end of the output
            d.take(credits, m)
            return past
        if m is None and self._between.hold_from(buf, j, credits) == j and not d.final:
            d.carry = buf[j:]
            return n
        self.answer.give_back()
        d.stage = Stage.CONTENT
        return self.answer.content(buf, j, credits)


# Where in the array the reader is: before "[", before the first item (or "]"), after an item
# (before "," or "]"), after a comma (before an item), after "]" (before the section's end
# marker, where the layout has one).
OPEN, FIRST, AFTER_ITEM, AFTER_COMMA, CLOSED = range(5)


class JsonArrayCalls:
    """The stages of an output whose calls are one JSON array (see the module)."""

    def __init__(self, driver: Driver, calls: CallTracker, fmt: ChatFormat, reading: Reading) -> None:
        self.d = driver
        self.calls = calls
        tools = fmt.tools
        # No section marker: the array is only ever the start of the answer (after text, a "["
        # is text), found there by its "[" and the "{" of its first item.
        self._bare = not tools.section_begin
        self.markup = Markup(driver, calls, fmt, reading, then=self._item_done, **({"calls_after_content": False} if self._bare else {}))
        self._array_open, self._array_close = (b.strip() for b in tools.array)
        self._comma = tools.separator.strip()
        self._section_end = tools.section_end
        # A marker where an item or a comma should be ends the array.
        self._in_array = MarkerSet(
            (tools.call_begin, tools.section_end, tools.section_begin, tools.call_end, fmt.eos, *fmt.stops)
        )
        self._at = OPEN
        self._ws = ""
        self.markup.start(self)

    def stages(self) -> dict[Stage, Handler]:
        return self.markup.stages(self.array, content=self.answer_start if self._bare else None)

    def finish_stage(self) -> None:
        self.markup.finish_stage()

    def answer_start(self, buf: str, pos: int, credits: Credits | None) -> int:
        """Before the answer's first character, where no marker opens the array: is it calls?"""
        d, answer = self.d, self.markup.answer
        if d.content_seen or d.verbatim:
            return answer.content(buf, pos, credits)
        n = len(buf)
        j = SPACE_RUN.match(buf, pos).end()  # type: ignore[union-attr]
        opening = self._array_open
        k = SPACE_RUN.match(buf, j + len(opening)).end() if buf.startswith(opening, j) else j  # type: ignore[union-attr]
        if k == n or (k == j and opening.startswith(buf[j:])):
            if not d.final:  # more text must tell
                d.carry = buf[pos:]
                return n
        if k > j and k < n and buf[k] == "{":
            answer.section_return = Stage.CONTENT
            d.stage = Stage.SECTION
            return j  # (the whitespace before the array: framing)
        return answer.content(buf, pos, credits)

    def array(self, buf: str, pos: int, credits: Credits | None) -> int:
        d, answer = self.d, self.markup.answer
        n = len(buf)
        j = SPACE_RUN.match(buf, pos).end()  # type: ignore[union-attr]
        # whitespace is markup inside the array and the answer's where the array ends: held
        # until the next character says which
        self._ws += buf[pos:j]
        if j == n:
            if d.final:
                self._leave()
            return n
        p, m, past = self._in_array.find(buf, j, credits, d.final)
        if m is not None and p == j:
            if m == self._section_end:
                # the section's end closes it wherever it stands (after a broken item too): markup
                d.take(credits, m)
                self._markup(m)
                return self._leave(past)
            # A marker ends the array; the stage after it reads the marker (the section marker
            # written twice opens the array again).
            return self._leave(j)
        if m is None and not d.final and self._in_array.hold_from(buf, j, credits) == j:
            d.carry = buf[j:]
            return n
        at = self._at
        if at == CLOSED:
            return self._leave(j)  # no end marker after the array: the text is the answer's
        if at == OPEN:
            if buf.startswith(self._array_open, j):
                self._at = FIRST
                self._markup(self._array_open)
                return j + len(self._array_open)
            if not (self._section_end and buf[j] == "{"):
                return self._leave(j)  # no array: the text after the marker is answer text, as written
            # Between section markers a call object written without the array's brackets is
            # still framed (Nemotron: <TOOLCALL>{…}</TOOLCALL>): read as a one-item array.
            at = FIRST
        if buf[j] == "{" and at != AFTER_ITEM:
            self._ws = ""
            answer.call_begins()  # brackets and space: markup around the calls
            self.calls.reset()
            self.calls.read_call_object()
            return j
        if buf.startswith(self._array_close, j) and at != AFTER_COMMA:
            self._markup(self._array_close)
            if self._section_end:
                self._at = CLOSED
                return j + len(self._array_close)
            return self._leave(j + len(self._array_close))
        if buf.startswith(self._comma, j) and at == AFTER_ITEM:
            self._markup(self._comma)
            self._at = AFTER_COMMA
            return j + len(self._comma)
        return self._leave(j)  # no item where one should be: answer text

    def _markup(self, text: str) -> None:
        """Array markup read, with the whitespace before it (kept with a block that holds no
        call yet: it may still be given back as text)."""
        self.markup.answer.keep(self._ws + text)
        self._ws = ""

    def _leave(self, at: int = 0) -> int:
        """The array ends; the whitespace held before ``at`` is the text's that follows."""
        self._at = OPEN
        answer = self.markup.answer
        ws, self._ws = self._ws, ""
        if answer.block is not None:
            answer.give_back()  # an array with no call in it is the text it was
        self.d.stage = answer.section_return
        if ws:
            self.d.say(ws)
        return at

    def _item_done(self) -> None:
        # An item ends with its object: no footer, no end marker. (A broken item is read up to a
        # marker, and the marker ends the array.)
        self.calls.close()
        if self.d.stage != Stage.STOPPED:
            self._at = AFTER_ITEM
            self.d.stage = Stage.SECTION


def layout_class(fmt: ChatFormat) -> type:
    return JsonArrayCalls if any(fmt.tools.array) else BareJsonCalls
