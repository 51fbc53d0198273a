"""The stages of calls delimited by markers (DeepSeek, Kimi-K2, Mistral v11+, Qwen3,
Qwen3-Coder, GLM, MiniMax-M2): the :class:`~thinkgate.formats.MarkedCalls` layout.

Output is read as::

    [<think>] REASONING </think> CONTENT
    SECTION_BEGIN ( CALL_BEGIN CALL_HEADER ARGUMENTS AFTER_ARGUMENTS CALL_END )* SECTION_END

with the markers and the header layout taken from a :class:`~thinkgate.formats.ChatFormat`.
This module holds the stages of its own: the section between calls and the call's header. The
machine is composed: the driver (``driver.py``) runs the stages; the reasoning, the answer and a
call's end are the stages every markup layout shares (``markup.py``); the call tracker
(``calls.py``) reads each call's arguments with the reader of the format's arguments style
(``arguments.py``: a JSON object, a call object, or parameters).
"""

from __future__ import annotations

import re

from ..formats import ChatFormat, is_text
from .calls import CallTracker
from .driver import Driver, Handler
from .markers import Credits, MarkerSet
from .markup import Markup
from .spaces import SPACE_RUN
from .stages import Reading, Stage
from .xml_arguments import attribute_text

_MAX_NAME = 256


class MarkedCalls:
    """The stages of an output whose calls are delimited by markers, in any arguments style."""

    def __init__(self, driver: Driver, calls: CallTracker, fmt: ChatFormat, reading: Reading) -> None:
        self.d = driver
        self.calls = calls
        tools = fmt.tools
        stops = self._stops = (fmt.eos, *fmt.stops)
        self._section_begin, self._section_end = tools.section
        self._call_begin = tools.call_begin
        self._pieces = tools.header_pieces()
        # the header's text right before the name, which the layout lets models leave out
        name_at = next((i for i, piece in enumerate(self._pieces) if piece.kind == "name"), 0)
        optional = tools.layout.optional_name_prefix and name_at > 0 and self._pieces[name_at - 1].kind == "text"
        self._optional_prefix = name_at - 1 if optional else -1
        # ... or write only the punctuation it ends with (Gemma 4's ``:NAME`` for ``call:NAME``)
        prefix = self._pieces[name_at - 1].text if optional else ""
        self._prefix_tail = prefix[len(prefix.rstrip(_PUNCTUATION)) :]
        # a name written as a quoted attribute's value (Kimi-K3's tool="NAME") holds XML references
        before = self._pieces[name_at - 1].text if name_at > 0 else str(self._call_begin)
        self._attribute_name = before.endswith('="')
        self._call_object = tools.call_object_layout
        # the header's piece that closes an XML element's opening tag (DSML's '">' after the
        # name): written self-closing ('"/>'), the element, a call, has no arguments
        after = name_at + 1
        closes = tools.xml is not None and after < len(self._pieces) and self._pieces[after].kind == "text" and self._pieces[after].text.endswith(">")
        self._closing_piece = after if closes else -1
        self.markup = Markup(driver, calls, fmt, reading, start_headless=self._start_headless)
        self._headless = self.markup.answer.headless
        self._headless_call = False  # the call being read was announced by its header alone
        self._announced = ""  # the text that announced it
        self._any_name = False  # whatever it names, it is a call
        # Calls opened by text inside the reasoning end where the reasoning closes.
        self._reasoning_close = fmt.reasoning.close if any(is_text(m) for m in fmt.reasoning_exits) else ""
        # The answer's framing after calls with no section around them (GigaChat 3's
        # <|message_sep|> ending the function call turn): markup, dropped as it is after text.
        self._framing = () if driver.verbatim or self._section_end else fmt.framing
        # A stray section begin or call end inside a section is markup, dropped like the rest.
        self._in_section = MarkerSet(
            (self._call_begin, self._section_end, self._section_begin, tools.call_end, *stops, self._headless, self._reasoning_close, *self._framing)
        )
        # while the text after calls opened inside the reasoning is held (see AnswerStages.hold),
        # the reasoning's close may still come
        close = self.markup.answer.reasoning_close
        self._in_section_held = MarkerSet((*self._in_section.markers, close)) if close else self._in_section
        # a name that ends the header ends where an object literal's arguments open (Gemma 4)
        opening = tools.literal.object[0] if tools.literal is not None else ""
        self._name_run = _name_run(self._pieces, (*self.markup.end.in_call.markers, opening))
        self._headless_from = Stage.CONTENT  # where a header that announced no call is read again
        self._reset_header()
        self.markup.start(self)

    def stages(self) -> dict[Stage, Handler]:
        return {**self.markup.stages(self.section), Stage.CALL_HEADER: self.header}

    def finish_stage(self) -> None:
        self.markup.finish_stage()

    # ------------------------------------------------------------------ stages

    def section(self, buf: str, pos: int, credits: Credits | None) -> int:
        d, answer = self.d, self.markup.answer
        p, m = d.emit_until(self._in_section_held if answer.holding else self._in_section, buf, pos, credits, self._stray)
        if m is None:
            return p
        if m == self._reasoning_close and answer.section_return == Stage.REASONING and answer.block is not None:
            answer.unhold()  # (no call came: nothing after calls to hold)
            answer.give_back()  # the block held no call: it was the reasoning's text
            d.stage = Stage.REASONING  # which closes here
            return p
        if answer.holding and (m == answer.reasoning_close or m in self._stops):
            answer.release(m, credits)
            if m == answer.reasoning_close:
                return p + len(m)
        if m == self._call_begin:
            for text in answer.call_begins():
                d.say(text)
            d.take(credits, m)
            self.calls.reset()
            self._reset_header()
            self._headless_call = False
            self.calls.raw.append(d.spelled(buf, p))
            d.stage = Stage.CALL_HEADER
            return d.past
        if m == self._headless:
            for text in answer.call_begins():
                d.say(text)
            return self._start_headless(p)
        d.take(credits, m)
        if m in self._framing:
            return d.past
        if m == self._section_end:
            answer.give_back(d.spelled(buf, p))
            d.stage = answer.section_return
        elif m in self._stops:
            answer.give_back()
        else:
            answer.keep(d.spelled(buf, p), markup=True)  # a stray marker: the block's text while it holds no call
        return d.past

    def _start_headless(self, at: int, announced: str = "") -> int:
        """A call whose begin marker was left out: its header, from ``at``, is read as a call's
        if it names one of the request's tools (else it is given back as text). ``announced``:
        the header's opening text where the reasoning closed (any name is a call's there when
        the request gave no tools)."""
        self.d.mark()
        self.calls.reset()
        self._reset_header()
        self._headless_call = True
        self._announced = announced or self._headless
        self._any_name = bool(announced) and not self.calls.knows_tools
        self._headless_from = Stage.SECTION if self.d.stage == Stage.SECTION else Stage.CONTENT
        self.d.stage = Stage.CALL_HEADER
        return at

    def _not_headless(self, buf: str, pos: int) -> int:
        """What announced a call without its begin marker is none: its opening text is the
        answer's, and everything after it is read again where reading was."""
        d, calls = self.d, self.calls
        raw = "".join(calls.raw)
        calls.reset()
        self._headless_call = False
        d.say(self._announced)
        d.refeed = raw[len(self._announced) :] + buf[pos:]
        d.stage = self._headless_from
        return len(buf)

    def _stray(self, text: str) -> None:
        """Text in a section, not in a call: the answer's, unless the block may still be none."""
        answer = self.markup.answer
        if not answer.keep(text) and not answer.hold(text):
            self.d.say(text)

    def _reset_header(self) -> None:
        # where the header is read: its piece, how much of that piece's text has matched
        self._piece = 0
        self._matched = 0
        self._name: list[str] = []
        self._name_len = 0
        self._id_reading = False
        self._tail_read = False  # the namespace's punctuation read before it

    def header(self, buf: str, pos: int, credits: Credits | None) -> int:
        d, calls = self.d, self.calls
        n = len(buf)
        pieces = self._pieces
        start = pos
        error = None
        closed = False  # the element closed itself: a call with no arguments
        while pos < n and self._piece < len(pieces):
            piece = pieces[self._piece]
            if piece.kind == "space":
                pos = SPACE_RUN.match(buf, pos).end()  # type: ignore[union-attr]
                if pos < n:
                    self._piece += 1
            elif piece.kind == "index":
                m = _DIGITS.match(buf, pos)
                if m is not None:
                    calls.index.append(m.group())
                    pos = m.end()
                if pos < n:
                    if not calls.index:
                        error = "the call header has no call index"
                        break
                    self._piece += 1
            elif piece.kind == "id":
                if self._id_reading:
                    m = _ID_RUN.match(buf, pos)
                    if m is not None:
                        calls.header_id.append(m.group())
                        pos = m.end()
                    if pos < n:
                        if not calls.header_id:
                            error = f"no call id after {piece.text!r}"
                            break
                        self._piece += 1
                elif credits is not None:
                    # With token ids the id marker is a whole special token here, or absent.
                    if buf.startswith(piece.text, pos) and credits.available(piece.text, pos):
                        credits.take(piece.text)
                        pos += len(piece.text)
                        self._id_reading = True
                    else:
                        self._piece += 1
                else:
                    want = piece.text[self._matched :]
                    got = buf[pos : pos + len(want)]
                    if want.startswith(got):
                        pos += len(got)
                        self._matched += len(got)
                        if self._matched == len(piece.text):
                            self._matched = 0
                            self._id_reading = True
                    else:
                        # No id: what looked like its marker must begin the next piece.
                        self._piece += 1
                        seen = piece.text[: self._matched]
                        if seen and not pieces[self._piece].text.startswith(seen):
                            error = f"expected {pieces[self._piece].text!r} in the call header"
                            break
            elif piece.kind == "name":
                m = self._name_run.match(buf, pos)
                if m is not None:
                    self._name.append(m.group())
                    self._name_len += m.end() - pos
                    pos = m.end()
                if self._name_len > _MAX_NAME:
                    error = f"tool name longer than {_MAX_NAME} characters"
                    break
                if pos < n:
                    self._piece += 1
            else:
                want = piece.text[self._matched :]
                got = buf[pos : pos + len(want)]
                if piece.kind == "marker" and credits is not None:
                    # With token ids the marker must be a whole special token right here.
                    if self._matched or got != want or not credits.available(want, pos):
                        error = f"expected {piece.text!r} in the call header"
                        break
                    credits.take(want)
                elif not want.startswith(got):
                    slash = pos + len(want) - 1  # where a self-closing tag has its "/"
                    if self._piece == self._closing_piece and buf.startswith(want[:-1] + "/", pos):
                        if slash + 1 == n:
                            calls.raw.append(buf[start:pos])
                            return d.rest(buf, pos)  # (">" may come next)
                        if buf[slash + 1] == ">":
                            pos = slash + 2
                            self._piece = len(pieces)
                            closed = True
                            break
                    if self._piece == self._optional_prefix:
                        # no namespace: what matched of it begins the name
                        seen = piece.text[: self._matched]
                        self._matched = 0
                        if not seen and self._prefix_tail and buf.startswith(self._prefix_tail, pos) and not self._tail_read:
                            # the namespace's punctuation alone, or before the namespace
                            # (Gemma 4's ":call:NAME"): the namespace may still follow
                            pos += len(self._prefix_tail)
                            self._tail_read = True
                            continue
                        self._piece += 1
                        if seen:
                            self._name.append(seen)
                            self._name_len += len(seen)
                        continue
                    error = f"expected {piece.text!r} in the call header"
                    break
                pos += len(got)
                self._matched += len(got)
                if self._matched == len(piece.text):
                    self._piece += 1
                    self._matched = 0
        calls.raw.append(buf[start:pos])
        if error is not None and self._headless_call:
            return self._not_headless(buf, pos)
        if error is not None:
            calls.pending_error = error
            d.stage = Stage.INVALID_CALL
            if self._matched and credits is None:
                # The piece's start, matched in an earlier delta, may begin another marker:
                # read it again as the invalid call's text.
                d.refeed = calls.unraw(self._matched) + buf[pos:]
                return n
            return pos
        if self._piece < len(pieces):
            return n
        if self._call_object:  # the name is inside the call object: read with the arguments
            calls.read_call_object()
            return pos
        name = "".join(self._name)
        name = attribute_text(name) if self._attribute_name else name
        if self._headless_call and not (self._any_name or calls.knows(name)):
            return self._not_headless(buf, pos)
        if not name:
            calls.pending_error = "the call header names no tool"
            d.stage = Stage.INVALID_CALL
            return pos
        if closed:
            calls.read_no_arguments(name)
            return pos
        calls.read_arguments(name)
        return pos


_DIGITS = re.compile("[0-9]+")
_PUNCTUATION = ".:/_-|"  # what a namespace before a tool name ends with
_ID_RUN = re.compile("[A-Za-z0-9_-]+")


def _name_run(pieces, markers) -> re.Pattern[str]:
    """A tool name runs until whitespace, the first character of the header's next piece, or
    the first character of a marker (so marker text never ends up in a name)."""
    stops = {m[0] for m in markers if m}
    after = False
    for piece in pieces:
        if after and piece.kind in ("text", "marker"):
            stops.add(piece.text[0])
            break
        if piece.kind == "name":
            after = True
    return re.compile("[^\\s" + re.escape("".join(sorted(stops))) + "]+")


def layout_class(fmt: ChatFormat) -> type:
    return MarkedCalls
