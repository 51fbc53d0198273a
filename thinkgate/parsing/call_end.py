"""How a call ends where calls are markup in the answer (the marked-calls and JSON-calls
layouts): after its arguments, the format's footer (`` ``` ``) and its end marker; a call that
cannot be read runs up to that marker (or the next call's, the section's, the output's end).
Either way reading goes on between calls, in ``Stage.SECTION``. These stages answer the call
tracker's questions for those layouts.
"""

from __future__ import annotations

from collections.abc import Callable

from ..formats import ChatFormat
from .calls import CallTracker
from .driver import Driver
from .markers import Credits, MarkerSet
from .stages import Stage


class CallEndStages:
    """``Stage.AFTER_ARGUMENTS`` and ``Stage.INVALID_CALL``, and the call tracker's hooks for
    what follows a call's arguments. ``then``: what follows arguments that closed, where no
    footer or end marker does (an item of a JSON array)."""

    ARGUMENTS = Stage.ARGUMENTS
    INVALID_CALL = Stage.INVALID_CALL
    STOPPED = Stage.STOPPED
    RESUME = Stage.SECTION

    def __init__(self, driver: Driver, calls: CallTracker, fmt: ChatFormat, then: Callable[[], None] | None = None, headless: str = "") -> None:
        self.say = driver.say  # where text after a call goes (held while it may be reasoning: see Markup)
        tools = fmt.tools
        self.d = driver
        self.calls = calls
        self._then = then
        calls.bind(self)
        self._call_end = tools.call_end
        self._footer = "".join(tools.footer.split())
        # What ends a call's arguments: its end, the next call, the section's end, the output's.
        self.in_call = MarkerSet((tools.call_end, tools.call_begin, tools.section_end, fmt.eos, *fmt.stops))
        # after the arguments, the next call's header may also begin a call (``headless``)
        self._after_args = MarkerSet((*self.in_call.markers, headless)) if headless else self.in_call
        self._own_end = MarkerSet((tools.call_end,))
        self._after = ""  # the footer's text read so far
        self._after_raw = 0  # where it starts in the call's raw text

    def arguments_done(self) -> None:
        if self._then is not None:
            self._then()
            return
        self._after = ""
        self._after_raw = len(self.calls.raw)
        self.d.stage = Stage.AFTER_ARGUMENTS

    def broken_off(self, marker: str, at: int, credits: Credits | None) -> int:
        self.d.stage = Stage.INVALID_CALL  # read up to the call's end, then the call is invalid
        return at

    def ends_call(self, marker: str) -> bool:
        return marker == self._call_end

    def finish_stage(self) -> None:
        """What the output's ending in a call's stage means."""
        d, calls = self.d, self.calls
        if d.stage == Stage.INVALID_CALL and not self._call_end:
            # A call that ends with its JSON broke before the output ended: it is invalid, not
            # cut off (no end marker was still to come).
            calls.invalid(calls.pending_error or "invalid tool call")
        elif d.stage in (Stage.CALL_HEADER, Stage.ARGUMENTS, Stage.INVALID_CALL):
            calls.cut_off()
        elif d.stage == Stage.AFTER_ARGUMENTS:
            calls.close()

    def after_arguments(self, buf: str, pos: int, credits: Credits | None) -> int:
        d, calls = self.d, self.calls
        p, m, end = d.find(self._after_args, buf, pos, credits)
        if m is None and d.final and self._ends_in_own_end(buf, pos):
            calls.raw.append(buf[pos:])  # the output ended inside the call's end marker: the call's
            self._close()
            return len(buf)
        seen = self._after + buf[pos:end]
        compact = "".join(seen.split())
        if self._footer and compact.startswith(self._footer) and compact != self._footer:
            # The whole footer, then other text (a call whose end marker was left out: Qwen3-Coder's
            # `<function=…>…</function>` with no `</tool_call>`): the footer is the call's, and the
            # call ends with it (and the whitespace after it, which chunking may already have
            # given to the call); what follows is read as what follows a call.
            q = _past_non_space(buf, pos, end, len(self._footer) - len("".join(self._after.split())))
            while q < end and buf[q].isspace():
                q += 1
            calls.raw.append(buf[pos:q])
            self._close()
            return q
        if not self._footer.startswith(compact):
            # Text after a complete call that is not its footer: the call stands, and the text
            # (with what looked like the footer's start) is read as the section's stray text.
            del calls.raw[self._after_raw :]
            after = self._after
            if self._close():
                self.say(after)
            return pos
        self._after = seen
        calls.raw.append(buf[pos:end])
        if m is None:
            return d.rest(buf, end)
        after = self._through_own_end(buf, m, p, credits)
        self._close()
        return after

    def _ends_in_own_end(self, buf: str, pos: int) -> bool:
        """Whether ``buf[pos:]`` is the rest of the footer, then the beginning of the call's end
        marker (whitespace aside): a marker left dangling at the very end of the output."""
        if not self._call_end:
            return False
        k = _past_non_space(buf, pos, len(buf), len(self._footer) - len("".join(self._after.split())))
        if "".join((self._after + buf[pos:k]).split()) != self._footer:
            return False
        j = len(buf) - len(buf[k:].lstrip())
        return j < len(buf) and self._own_end.hold_from(buf, j, None) == j

    def _through_own_end(self, buf: str, marker: str, at: int, credits: Credits | None) -> int:
        """Where the call's text ends: past ``marker`` (read as the call's) when it is the call's
        own end marker, else at it (it begins what follows)."""
        if marker != self._call_end:
            return at
        self.d.take(credits, marker)
        self.calls.raw.append(self.d.spelled(buf, at))
        return self.d.past

    def _close(self) -> bool:
        """End the call (it stands, or its pending error makes it invalid)."""
        self.calls.close()
        return self._go_on()

    def _go_on(self) -> bool:
        """Reading goes on between calls, unless strict mode stopped it at the call just ended."""
        if self.d.stage == Stage.STOPPED:
            return False
        self.d.stage = Stage.SECTION
        return True

    def invalid_call(self, buf: str, pos: int, credits: Credits | None) -> int:
        d, calls = self.d, self.calls
        p, m, end = d.find(self.in_call, buf, pos, credits)
        calls.raw.append(buf[pos:end])
        if m is None:
            return d.rest(buf, end)
        end = self._through_own_end(buf, m, p, credits)
        calls.invalid(calls.pending_error or "invalid tool call")
        self._go_on()
        return end


def _past_non_space(buf: str, pos: int, end: int, n: int) -> int:
    """Where, from ``pos``, ``n`` characters other than whitespace have been passed."""
    while n > 0 and pos < end:
        if not buf[pos].isspace():
            n -= 1
        pos += 1
    return pos
