"""The streaming state machine for calls written as Python calls (the
:class:`~thinkgate.formats.PythonicCalls` layout), in a list or one a line, bare or between the
section's markers.

Bare, in a list (Llama 4)::

    [OPTIONAL_BEGIN] "[" CALL ( "," CALL )* "]" [OPTIONAL_END]       an answer that starts with "[NAME("
    TEXT                                                             any other answer

Between section markers (LFM2 in a list, OLMo 3 one a line)::

    CONTENT SECTION_BEGIN [ "[" ] CALL ( SEPARATOR CALL )* [ "]" ] SECTION_END CONTENT

A call is ``NAME(KEY=VALUE, …)``: its name, then its keyword arguments read by
:class:`~thinkgate.parsing.python_arguments.PythonArgumentsScanner` (which converts them into
JSON as they stream) through the call tracker. With no marker to announce bare calls, what
decides is the answer's start: ``[`` (after ``<|python_start|>``, where the model writes it),
a name and ``(``; anything else makes the whole answer text (``[1] see below`` is text). The
brackets, commas and whitespace around the calls are markup. What does not fit where a call or
a comma should be — prose, a bracket out of place — ends the calls, and the text is answer
text; a call whose arguments break is invalid with its text, and ends the calls.
"""

from __future__ import annotations

import re

from ..formats import ChatFormat
from ..formats.base import PYTHON_NAME, Text
from .calls import CallTracker
from .driver import Driver, Handler
from .markers import Credits, MarkerSet
from .markup import Markup
from .spaces import SPACE_RUN
from .stages import Reading, Stage

_HEADER = re.compile(r"(" + PYTHON_NAME + r")[ \t]*(?=\()")
_NAME_START = re.compile(r"[A-Za-z_]")
_NAME_RUN = re.compile(r"[A-Za-z0-9_.\-]*[ \t]*")
_MAX_NAME = 256

# Where the reader is: before the list's "[" (or the first call, where there is no list), before
# a call (or "]"), after a call (before a separator, "]" or the end), after a separator (before
# a call), after "]" (before the section's or the optional end marker); at what announced bare
# calls in the answer (before it is known whether they are).
OPEN, FIRST, AFTER_ITEM, AFTER_SEP, CLOSED, ANNOUNCED = range(6)


class PythonicCalls:
    """The stages of an output whose calls are Python calls (see the module)."""

    def __init__(self, driver: Driver, calls: CallTracker, fmt: ChatFormat, reading: Reading) -> None:
        self.d = driver
        self.calls = calls
        tools = fmt.tools
        self._bare = not tools.section_begin
        self._open, self._close = tools.array
        # Bare calls are announced by the list's "[" (checked for a name and "(" after it) or by
        # the optional begin marker, at the answer's start or after its text.
        # (the bracket is text, found in any token; the marker a token of its own)
        announcers = tuple(m for m in (Text(self._open) if self._open else "", tools.optional_begin) if m) if self._bare else ()
        self.markup = Markup(driver, calls, fmt, reading, then=self._item_done, start_headless=self._announced, announcers=announcers)
        self.answer = self.markup.answer
        self._separator = tools.separator.strip()  # "" where a separator is whitespace (a new line)
        self._section_end = tools.section_end
        self._optional_begin = tools.optional_begin
        self._optional_end = tools.optional_end
        ends = (fmt.eos, *fmt.stops)
        self._in_calls = MarkerSet((tools.section_end, tools.section_begin, self._optional_end, *ends))
        self._at = OPEN
        self._ws = ""
        self._balance: _Balance | None = None  # a broken call's brackets, read to its end
        self._announcer = ""
        self.markup.start(self)

    def stages(self) -> dict[Stage, Handler]:
        table = self.markup.stages(self.section)
        table[Stage.INVALID_CALL] = self.invalid_call
        return table

    def finish_stage(self) -> None:
        self.markup.finish_stage()

    # ------------------------------------------------------------------ bare calls: what announces them

    def _announced(self, at: int, announcer: str = "") -> int:
        """``announcer`` (the list's ``[``, or the optional begin marker) found in the answer at
        ``at``: the section's stage reads from there whether calls follow."""
        self._announcer = announcer
        self._at = ANNOUNCED
        self.d.stage = Stage.SECTION
        return at

    def _at_announcer(self, buf: str, j: int, credits: Credits | None) -> int:
        """Calls, or the answer's text, where an announcer stands at ``j``."""
        d, answer = self.d, self.answer
        announcer = self._announcer
        if announcer == self._optional_begin:
            d.take(credits, announcer)
            d.mark()
            answer.block = [d.spelled(buf, j)]  # given back with the text if no call follows
            self._at = OPEN
            return d.past
        k = self._list_opening(buf, j)
        if k is None:  # more text must tell
            d.carry = buf[j:]
            return len(buf)
        if k < 0:  # "[" of the answer's text
            self._at = OPEN
            d.stage = answer.section_return
            d.say(announcer)
            return j + len(announcer)
        d.mark()
        answer.block = [announcer]
        self._at = FIRST
        return j + len(announcer)

    def _list_opening(self, buf: str, j: int) -> int | None:
        """Whether ``buf[j:]`` opens a list of calls: ``[``, then a name and ``(``. The position
        of ``[`` where it does, -1 where it does not, None where more text must tell."""
        n = len(buf)
        final = self.d.final
        k = SPACE_RUN.match(buf, j + len(self._open)).end()  # type: ignore[union-attr]
        if k == n:
            return -1 if final else None
        if _NAME_START.match(buf, k) is None:
            return -1
        run = _NAME_RUN.match(buf, k).end()  # type: ignore[union-attr]
        if run == n:
            return -1 if final or run - k > _MAX_NAME else None
        return j if buf[run] == "(" else -1

    # ------------------------------------------------------------------ between the calls

    def section(self, buf: str, pos: int, credits: Credits | None) -> int:
        if self._at == ANNOUNCED:
            return self._at_announcer(buf, pos, credits)
        d, answer = self.d, self.answer
        n = len(buf)
        j = SPACE_RUN.match(buf, pos).end()  # type: ignore[union-attr]
        # whitespace is markup among the calls and the answer's where they end: held until the
        # next character says which
        self._ws += buf[pos:j]
        if j == n:
            if d.final:
                self._leave()
            return n
        p, m, past = self._in_calls.find(buf, j, credits, d.final)
        if m is not None and p == j:
            if m in (self._section_end, self._optional_end) and m:
                # the section's end closes it wherever it stands: markup
                d.take(credits, m)
                self._markup(d.spelled(buf, j))
                return self._leave(past)
            return self._leave(j)  # a marker ends the calls; the stage after them reads it
        if m is None and not d.final and self._in_calls.hold_from(buf, j, credits) == j:
            d.carry = buf[j:]
            return n
        at = self._at
        if at == CLOSED:
            return self._leave(j)  # no end marker after the list: the text is the answer's
        if at == OPEN:
            if self._open:
                if buf.startswith(self._open, j):
                    self._at = FIRST
                    self._markup(self._open)
                    return j + len(self._open)
                if not d.final and self._open.startswith(buf[j:]):
                    d.carry = buf[j:]
                    return n
                # between section markers a call written without the list's brackets is still
                # framed (LFM2's <|tool_call_start|>f(x=1)<|tool_call_end|>): read as a list of one
            at = FIRST
        if self._close and buf.startswith(self._close, j) and at in (FIRST, AFTER_ITEM):
            self._markup(self._close)
            if self._section_end or self._optional_end:
                self._at = CLOSED
                return j + len(self._close)
            return self._leave(j + len(self._close))
        if self._separator and at == AFTER_ITEM:
            if buf.startswith(self._separator, j):
                self._markup(self._separator)
                self._at = AFTER_SEP
                return j + len(self._separator)
            return self._leave(j)  # neither a comma nor the list's close after a call: answer text
        if at == AFTER_ITEM and not self._ws:
            return self._leave(j)  # calls one a line: a call right after another is no call
        if buf[j] == "{" and not self._bare:  # a call object between the section's markers (LFM2's first format): JSON
            self._ws = ""
            self.answer.call_begins()
            self.calls.reset()
            self.calls.read_call_object(read_also=("parameters",))
            return j
        return self._call(buf, j)

    def _call(self, buf: str, j: int) -> int:
        """A call's header (its name, then ``(``) at ``j``, or what ends the calls."""
        d = self.d
        m = _HEADER.match(buf, j)
        if m is None:
            if _NAME_START.match(buf, j) is not None:
                run = _NAME_RUN.match(buf, j).end()  # type: ignore[union-attr]
                if run == len(buf) and not d.final and run - j <= _MAX_NAME:
                    d.carry = buf[j:]  # a name the next piece may go on, then its "("
                    return len(buf)
            return self._leave(j)  # no call where one should be: answer text
        self._ws = ""
        self.answer.call_begins()  # brackets and space: markup around the calls
        calls = self.calls
        calls.reset()
        calls.raw.append(m.group())
        calls.read_arguments(m.group(1))
        return m.end()

    def invalid_call(self, buf: str, pos: int, credits: Credits | None) -> int:
        """A call whose arguments broke: its text runs to the parenthesis that closes it (its
        brackets and strings followed), so that the calls after it still stand; or to a marker
        that ends the calls first."""
        d, calls = self.d, self.calls
        if self._balance is None:
            self._balance = _Balance("".join(calls.raw))
        p, m, end = d.find(self.markup.end.in_call, buf, pos, credits)
        close = self._balance.feed(buf, pos, end)
        if close is not None:
            calls.raw.append(buf[pos:close])
            self._balance = None
            calls.invalid(calls.pending_error or "invalid tool call")
            if d.stage != Stage.STOPPED:
                self._at = AFTER_ITEM
                d.stage = Stage.SECTION
            return close
        calls.raw.append(buf[pos:end])
        if m is None:
            return d.rest(buf, end)
        self._balance = None
        calls.invalid(calls.pending_error or "invalid tool call")
        if d.stage != Stage.STOPPED:
            d.stage = Stage.SECTION  # (which reads the marker)
        return p

    def _markup(self, text: str) -> None:
        """Markup read between the calls, with the whitespace before it (kept with a block that
        holds no call yet: it may still be given back as text)."""
        self.answer.keep(self._ws + text)
        self._ws = ""

    def _leave(self, at: int = 0) -> int:
        """The calls end; the whitespace held before ``at`` is the text's that follows."""
        self._at = OPEN
        answer = self.answer
        ws, self._ws = self._ws, ""
        if answer.block is not None:
            answer.give_back(ws)  # a list with no call in it is the text it was
            ws = ""
        self.d.stage = answer.section_return
        if ws:
            self.d.say(ws)
        return at

    def _item_done(self) -> None:
        # A call ends with its closing parenthesis: no footer, no end marker. (A broken call is
        # read up to a marker, and the marker ends the calls.)
        self.calls.close()
        if self.d.stage != Stage.STOPPED:
            self._at = AFTER_ITEM
            self.d.stage = Stage.SECTION


class _Balance:
    """The brackets and strings of a call's text, followed to the parenthesis that closes it."""

    def __init__(self, text: str) -> None:
        self._depth = 0
        self._quote = ""
        self._escape = False
        self.feed(text, 0, len(text))

    def feed(self, buf: str, pos: int, end: int) -> int | None:
        """Read ``buf[pos:end]``; where the call closes (past its ``)``), or None."""
        for i in range(pos, end):
            c = buf[i]
            if self._quote:
                if self._escape:
                    self._escape = False
                elif c == "\\":
                    self._escape = True
                elif c == self._quote:
                    self._quote = ""
            elif c in "'\"":
                self._quote = c
            elif c in "([{":
                self._depth += 1
            elif c in ")]}":
                self._depth -= 1
                if self._depth <= 0:
                    return i + 1
        return None


def layout_class(fmt: ChatFormat) -> type:
    return PythonicCalls
