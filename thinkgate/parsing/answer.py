"""The answer's text, up to the tool markup that opens the calls (the section marker, or a
call's begin marker with no section around it) or the output's end: ``Stage.CONTENT`` of the
marked-calls and JSON-calls layouts. Where the calls are read from there is the layout's
``Stage.SECTION``.
"""

from __future__ import annotations

from collections.abc import Callable

from ..formats import ChatFormat
from .driver import Driver
from .markers import Credits, MarkerSet
from .stages import Stage


class AnswerStages:
    """``Stage.CONTENT``, and the entry into the calls from it or from the reasoning.

    ``calls_after_content`` off: tool markup after the answer's text is text too.
    """

    def __init__(
        self,
        driver: Driver,
        fmt: ChatFormat,
        *,
        calls_after_content: bool = True,
        headless: str = "",
        after_reasoning: str = "",
        start_headless: Callable[..., int] | None = None,
        announcers: tuple[str, ...] = (),
    ) -> None:
        self.d = driver
        tools = fmt.tools
        self._stops = (fmt.eos, *fmt.stops)  # every marker that ends the output
        self._call_begin = tools.call_begin
        self.tool_markers = tuple(m for m in (tools.section_begin, tools.call_begin) if m)
        # a call written without its begin marker, announced by its header's opening text
        self.headless = headless
        self._start_headless = start_headless
        # text (or markers) that may announce calls where no marker opens them: the layout's
        # start_headless(at, announcer) decides (a pythonic layout's "[NAME(")
        self._announcers = announcers
        markers = (*self.tool_markers, headless, *announcers)
        # the answer's framing (Kimi-K3's response element around it): markup, dropped
        self._framing = () if driver.verbatim else fmt.framing
        # reasoning opened again after answer text (see ``ReasoningFormat.reopens``)
        self._reopen_marker = fmt.reasoning.open if fmt.reasoning.reopens and fmt.reasoning.present else ""
        self.reopen: Callable[[], None] | None = None  # the reasoning's stages, set by the markup
        # The reasoning's close written again after the reasoning closed: a stray marker,
        # dropped (as the peers drop it: markup in the content is never the answer), unless
        # the content opened a reasoning of its own before it (then both are its text). Where
        # no reasoning closed (a model that thinks only if it opens), it is text.
        r = fmt.reasoning
        self._stray_close = r.close if r.present and r.close and not driver.verbatim else ""
        self._open_text = r.open if self._stray_close and r.open and not self._reopen_marker else ""
        self._opened = False  # the content holds the open marker's text, not yet closed
        ends = (*self._stops, self._reopen_marker, self._stray_close, self._open_text)
        self._in_content = MarkerSet(ends if driver.verbatim else (*markers, *self._framing, *ends))
        self._calls_after_content = calls_after_content
        self._in_content_only = self._in_content if calls_after_content else MarkerSet((*self._framing, *ends))
        # a call written without its begin marker right where the reasoning closed, announced
        # by its header's opening text there (``MarkedCalls.headless_after_reasoning``)
        self.after_reasoning = "" if driver.verbatim else after_reasoning
        self._in_answer_start = MarkerSet((*self._in_content.markers, after_reasoning)) if self.after_reasoning else self._in_content
        self.section_return = Stage.CONTENT  # where reading goes back to after the calls
        # After calls opened inside the reasoning, the text that follows is held: the reasoning's
        # close after it makes it reasoning (the model went on thinking), anything else content.
        self._close = fmt.reasoning.close if fmt.reasoning.present and not driver.verbatim else ""
        self._held_markers = (*markers, *self._framing, *self._stops)
        self._in_held: MarkerSet | None = None  # built when first needed
        self._held: list[str] | None = None
        # A tool block's text while no call has begun in it: a block that holds none is given
        # back whole, markers and all (it was no tool block).
        self.block: list[str] | None = None

    def enter_calls(self, buf: str, marker: str, at: int, credits: Credits | None, back_to: Stage) -> int:
        """Tool markup starts at ``marker``, found at ``at``; after the calls, reading goes back
        to ``back_to``."""
        self.section_return = back_to
        self.d.stage = Stage.SECTION
        if marker == self._call_begin:  # a call with no section marker: the section reads it
            self.block = None
            return at
        self.d.take(credits, marker)
        self.block = [self.d.spelled(buf, at)]
        return self.d.past

    def keep(self, text: str, markup: bool = False) -> bool:
        """Hold ``text`` with the block, if no call has begun in it yet (``markup``: a stray
        marker, which a call beginning makes markup too)."""
        if self.block is None:
            return False
        if text:
            self.block.append(_Markup(text) if markup else text)
        return True

    def call_begins(self) -> list[str]:
        """A call begins in the block: the block is markup; what it held after its opening marker
        (text between the marker and the call, stray markers aside) is returned to be read as such."""
        held, self.block = self.block or [], None
        return [t for t in held[1:] if not isinstance(t, _Markup)]

    def dangles(self) -> bool:
        """Whether the output ended in a tool block opened with nothing after its marker but
        whitespace: markup the output ended in, no text."""
        return self.block is not None and not "".join(self.block[1:]).strip()

    def give_back(self, more: str = "") -> None:
        """The block ends with no call in it: its whole text is what it was written in."""
        if self.block is None:
            return
        text, self.block = "".join(self.block) + more, None
        if self.section_return == Stage.REASONING:
            self.d.reason(text)
        else:
            self.d.say_raw(text)

    def hold_after_calls(self) -> None:
        """The calls about to be read were opened inside the reasoning: hold what follows them."""
        if self._close:
            if self._in_held is None:
                self._in_held = MarkerSet((self._close, *self._held_markers))
            self._held = []

    def unhold(self) -> None:
        """The calls the text after them was held for never came."""
        self._held = None

    def flush_held(self) -> None:
        """The output ended while text was held: it was the answer."""
        if self._held is not None:
            held, self._held = "".join(self._held), None
            self.d.say(held)

    @property
    def holding(self) -> bool:
        return self._held is not None

    @property
    def reasoning_close(self) -> str:
        return self._close

    def hold(self, text: str) -> bool:
        """Hold ``text``, if text is held."""
        if self._held is None:
            return False
        self._held.append(text)
        return True

    def release(self, marker: str, credits: Credits | None) -> None:
        """``marker`` ends the held text: the reasoning's close makes it reasoning (and is
        markup), anything else makes it the answer."""
        d = self.d
        held, self._held = "".join(self._held or ()), None
        if marker == self._close:
            d.take(credits, marker)
            d.reason(held)
            d.end_reasoning()
            d.reasoning_closed = True
        else:
            d.say(held)

    def _held_text(self, buf: str, pos: int, credits: Credits | None) -> int:
        p, m = self.d.emit_until(self._in_held, buf, pos, credits, self.hold)  # type: ignore[arg-type]
        if m is None:
            return p
        self.release(m, credits)
        return p + len(m) if m == self._close else self.content(buf, p, credits)

    def content(self, buf: str, pos: int, credits: Credits | None) -> int:
        if self._held is not None:
            return self._held_text(buf, pos, credits)
        d = self.d
        if d.content_seen:
            markers = self._in_content_only
        else:
            markers = self._in_answer_start if d.reasoning_closed else self._in_content
        p, m = d.emit_until(markers, buf, pos, credits, d.say)
        if m is None:
            return p
        if m == self.after_reasoning and m not in self._in_content.markers:
            if d.content_seen:  # (answer text came before it: prose)
                d.say(d.spelled(buf, p))
                return d.past
            self.section_return = Stage.CONTENT
            return self._start_headless(p, m)  # type: ignore[misc]
        if m in self._stops or m in self._framing:
            d.take(credits, m)
            return d.past
        if m == self._stray_close or m == self._open_text:
            d.take(credits, m)
            if m == self._open_text or self._opened or not d.reasoning_closed:
                self._opened = m == self._open_text
                d.say(d.spelled(buf, p))
            return d.past
        if m == self._reopen_marker and self.reopen is not None:
            d.take(credits, m)
            self.reopen()
            return d.past
        if d.content_seen and not self._calls_after_content:
            return p  # answer text came first: from here on, markup is text
        if m == self.headless:
            self.section_return = Stage.CONTENT
            return self._start_headless(p)  # type: ignore[misc]
        if m in self._announcers:
            self.section_return = Stage.CONTENT
            return self._start_headless(p, m)  # type: ignore[misc]
        d.mark()
        return self.enter_calls(buf, m, p, credits, Stage.CONTENT)


class _Markup(str):
    """A stray marker held with a tool block's text (the block's opener written twice)."""
