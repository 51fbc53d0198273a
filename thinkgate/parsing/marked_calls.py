"""The streaming state machine for calls delimited by markers (DeepSeek, Kimi-K2, Mistral v11+,
Qwen3, Qwen3-Coder, GLM, MiniMax-M2): the :class:`~thinkgate.formats.MarkedCalls` layout.

Output is read as::

    [<think>] REASONING </think> CONTENT
    SECTION_BEGIN ( CALL_BEGIN CALL_HEADER ARGUMENTS AFTER_ARGUMENTS CALL_END )* SECTION_END

with the markers and the header layout taken from a :class:`~thinkgate.formats.ChatFormat`.
The driving, the emitting and a call's life are :class:`~thinkgate.parsing.machine.CallMachine`'s;
this module holds the stages. Text that could still become a marker is carried over to the next
delta (text-only mode), and argument text is validated as it arrives, by the reader of the
format's arguments style: a JSON object, a call object (the name inside it), or parameters.
"""

from __future__ import annotations

import re
from typing import Any

from ..formats import ChatFormat, Thinking
from .json_scanner import JsonScanner
from .json_wrapper import JsonWrapperScanner
from .machine import CallMachine
from .markers import Credits, MarkerSet
from .spaces import SPACE_RUN
from .stages import Stage
from .xml_arguments import XmlArgumentsScanner

_MAX_NAME = 256
# Leading whitespace is held while the parser waits to see whether the model opens <think>;
# past this much, it is not going to.
_MAX_START_SPACE = 64


class MarkedCallsMachine(CallMachine):
    """Events from the text of one output whose calls are delimited by markers
    (:class:`~thinkgate.formats.MarkedCalls`), in any arguments style.

    See :class:`thinkgate.StreamParser` for the options; this class holds the states only.
    """

    ARGUMENTS = Stage.ARGUMENTS
    INVALID_CALL = Stage.INVALID_CALL
    STOPPED = Stage.STOPPED
    RESUME = Stage.SECTION

    def __init__(self, fmt: ChatFormat, thinking: Thinking, *args: Any, recover_calls_in_reasoning: bool = False, calls_after_content: bool = True, **kwargs: Any) -> None:
        super().__init__(fmt, thinking, *args, **kwargs)
        tools = fmt.tools
        self._open = fmt.reasoning.open
        self._close = fmt.reasoning.close
        # Every marker that ends the output: the end of sequence, and the format's other stops.
        self._stops = (fmt.eos, *fmt.stops)
        self._section_begin, self._section_end = tools.section
        self._call_begin, self._call_end = tools.call
        self._pieces = tools.header_pieces()
        self._footer = "".join(tools.footer.split())

        tool_markers = (self._section_begin, self._call_begin)
        reasoning = [self._close, *self._stops]
        if recover_calls_in_reasoning:
            reasoning += tool_markers
        self._in_reasoning = MarkerSet(reasoning)
        self._in_content = MarkerSet(self._stops if self._verbatim else (*tool_markers, *self._stops))
        # With calls_after_content off, tool markup after the answer's text is text too.
        self._calls_after_content = calls_after_content
        self._in_content_only = (
            self._in_content if calls_after_content else MarkerSet(self._stops)
        )
        # A stray section begin or call end inside a section is markup, dropped like the rest.
        self._in_section = MarkerSet(
            (self._call_begin, self._section_end, self._section_begin, self._call_end, *self._stops)
        )
        self._in_call = MarkerSet(
            (self._call_end, self._call_begin, self._section_end, *self._stops)
        )
        self._name_run = _name_run(self._pieces, self._in_call.markers)
        self._handlers = {
            Stage.START: self._start,
            Stage.REASONING: self._reasoning,
            Stage.CONTENT: self._content,
            Stage.SECTION: self._section,
            Stage.CALL_HEADER: self._header,
            Stage.ARGUMENTS: self._arguments,
            Stage.AFTER_ARGUMENTS: self._after_arguments,
            Stage.INVALID_CALL: self._invalid_call,
            Stage.STOPPED: self._stopped,
        }

        self.stage = Stage.CONTENT if self._thinking is False else Stage.START
        self._section_return = Stage.CONTENT

    def _finish_stage(self) -> None:
        if self.stage == Stage.INVALID_CALL and not self._call_end:
            # A call that ends with its JSON broke before the output ended: it is invalid, not
            # cut off (no end marker was still to come).
            self._invalid(self._pending_error or "invalid tool call")
        elif self.stage in (Stage.CALL_HEADER, Stage.ARGUMENTS, Stage.INVALID_CALL):
            self._cut_off = True
            self._invalid(self._pending_error or "the output ended inside a tool call", cut_off=True)
        elif self.stage == Stage.AFTER_ARGUMENTS:
            self._close_call()

    def _ends_call(self, marker: str) -> bool:
        return marker == self._call_end

    # ------------------------------------------------------------------ stages

    def _start(self, buf: str, pos: int, credits: Credits | None) -> int:
        n = len(buf)
        j = SPACE_RUN.match(buf, pos).end()  # type: ignore[union-attr]
        target = Stage.REASONING if self._thinking is True else Stage.CONTENT
        if j - pos > _MAX_START_SPACE:
            self.stage = target
            return pos
        if j == n and not self._final:
            self._carry = buf[pos:]
            return n
        if buf.startswith(self._open, j) and (credits is None or credits.available(self._open, j)):
            if credits is not None:
                credits.take(self._open)
            self.stage = Stage.REASONING
            return j + len(self._open)
        if credits is None and not self._final and self._open.startswith(buf[j:]):
            self._carry = buf[pos:]
            return n
        self.stage = target
        return pos

    def _reasoning(self, buf: str, pos: int, credits: Credits | None) -> int:
        p, m = self._in_reasoning.find(buf, pos, credits)
        if m is None:
            h = self._hold(self._in_reasoning, buf, pos, credits)
            self._reason(buf[pos:h])
            self._carry = buf[h:]
            return len(buf)
        self._reason(buf[pos:p])
        if m == self._call_begin:
            # A call written inside the reasoning, recovered: the section reads it from here.
            self._end_reasoning()
            self._section_return = Stage.REASONING
            self.stage = Stage.SECTION
            return p
        if credits is not None:
            credits.take(m)
        if m in self._stops:
            return p + len(m)
        self._end_reasoning()
        if m == self._close:
            self.stage = Stage.CONTENT
        else:  # a tool section written inside the reasoning, recovered as calls
            self._section_return = Stage.REASONING
            self.stage = Stage.SECTION
        return p + len(m)

    def _content(self, buf: str, pos: int, credits: Credits | None) -> int:
        markers = self._in_content_only if self._content_seen else self._in_content
        p, m = markers.find(buf, pos, credits)
        if m is None:
            h = self._hold(markers, buf, pos, credits)
            self._say(buf[pos:h])
            self._carry = buf[h:]
            return len(buf)
        self._say(buf[pos:p])
        if m in self._stops:
            if credits is not None:
                credits.take(m)
            return p + len(m)
        if self._content_seen and not self._calls_after_content:
            return p  # answer text came first: from here on, markup is text
        self._space = ""
        self._section_return = Stage.CONTENT
        self.stage = Stage.SECTION
        if m == self._call_begin:  # a call with no section marker: read it all the same
            return p
        if credits is not None:
            credits.take(m)
        return p + len(m)

    def _section(self, buf: str, pos: int, credits: Credits | None) -> int:
        p, m = self._in_section.find(buf, pos, credits)
        end = p if m is not None else self._hold(self._in_section, buf, pos, credits)
        self._say(buf[pos:end])
        if m is None:
            self._carry = buf[end:]
            return len(buf)
        self._space = ""
        if credits is not None:
            credits.take(m)
        if m == self._call_begin:
            self._reset_call()
            self._raw.append(m)
            self.stage = Stage.CALL_HEADER
        elif m == self._section_end:
            self.stage = self._section_return
        return p + len(m)

    def _header(self, buf: str, pos: int, credits: Credits | None) -> int:
        n = len(buf)
        pieces = self._pieces
        start = pos
        error = None
        while pos < n and self._piece < len(pieces):
            piece = pieces[self._piece]
            if piece.kind == "space":
                pos = SPACE_RUN.match(buf, pos).end()  # type: ignore[union-attr]
                if pos < n:
                    self._piece += 1
            elif piece.kind == "index":
                m = _DIGITS.match(buf, pos)
                if m is not None:
                    self._index.append(m.group())
                    pos = m.end()
                if pos < n:
                    if not self._index:
                        error = "the call header has no call index"
                        break
                    self._piece += 1
            elif piece.kind == "id":
                if self._id_reading:
                    m = _ID_RUN.match(buf, pos)
                    if m is not None:
                        self._header_id.append(m.group())
                        pos = m.end()
                    if pos < n:
                        if not self._header_id:
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
                    error = f"expected {piece.text!r} in the call header"
                    break
                pos += len(got)
                self._matched += len(got)
                if self._matched == len(piece.text):
                    self._piece += 1
                    self._matched = 0
        self._raw.append(buf[start:pos])
        if error is not None:
            self._pending_error = error
            self.stage = Stage.INVALID_CALL
            if self._matched and credits is None:
                # The piece's start, matched in an earlier delta, may begin another marker:
                # read it again as the invalid call's text.
                self._refeed = self._unraw(self._matched) + buf[pos:]
                return n
            return pos
        if self._piece < len(pieces):
            return n
        if self._json_object:  # the name is inside the call object: read with the arguments
            self._read_call_object()
            return pos
        name = "".join(self._name)
        if not name:
            self._pending_error = "the call header names no tool"
            self.stage = Stage.INVALID_CALL
            return pos
        self._start_call(name)
        self._scanner = self._arguments_scanner(name)
        self.stage = Stage.ARGUMENTS
        return pos

    def _read_call_object(self) -> None:
        """A call object begins here: its name and arguments are read together."""
        self._scanner = JsonWrapperScanner(self.fmt.tools.name_key, self.fmt.tools.arguments_key)
        self.stage = Stage.ARGUMENTS

    def _arguments_scanner(self, name: str):
        """What reads a call's arguments after its header names the tool: a JSON object, or
        parameters typed by the tool's schema (a string is bare text)."""
        xml = self.fmt.tools.xml
        if xml is not None:
            return XmlArgumentsScanner(xml, self._parameters.get(name))
        return JsonScanner()

    def _arguments_done(self) -> None:
        self._after = ""
        self._after_raw = len(self._raw)
        self.stage = Stage.AFTER_ARGUMENTS

    def _broken_off(self, marker: str, at: int, credits: Credits | None) -> int:
        self.stage = Stage.INVALID_CALL  # read up to the call's end, then the call is invalid
        return at

    def _after_arguments(self, buf: str, pos: int, credits: Credits | None) -> int:
        p, m = self._in_call.find(buf, pos, credits)
        end = p if m is not None else self._hold(self._in_call, buf, pos, credits)
        seen = self._after + buf[pos:end]
        if not self._footer.startswith("".join(seen.split())):
            # Text after a complete call that is not its footer: the call stands, and the text
            # (with what looked like the footer's start) is read as the section's stray text.
            del self._raw[self._after_raw :]
            after = self._after
            self._close_call()
            self._say(after)
            self.stage = Stage.SECTION
            return pos
        self._after = seen
        self._raw.append(buf[pos:end])
        if m is None:
            self._carry = buf[end:]
            return len(buf)
        if m == self._call_end:
            if credits is not None:
                credits.take(m)
            self._raw.append(m)
            self._close_call()
            self.stage = Stage.SECTION
            return p + len(m)
        self._close_call()
        self.stage = Stage.SECTION
        return p

    def _invalid_call(self, buf: str, pos: int, credits: Credits | None) -> int:
        p, m = self._in_call.find(buf, pos, credits)
        end = p if m is not None else self._hold(self._in_call, buf, pos, credits)
        self._raw.append(buf[pos:end])
        if m is None:
            self._carry = buf[end:]
            return len(buf)
        if m == self._call_end:
            if credits is not None:
                credits.take(m)
            self._raw.append(m)
            end += len(m)
        self._invalid(self._pending_error or "invalid tool call")
        if self.stage != Stage.STOPPED:
            self.stage = Stage.SECTION
        return end

    def _reset_call(self) -> None:
        super()._reset_call()
        # where the header is read: its piece, how much of that piece's text has matched
        self._piece = 0
        self._matched = 0
        self._name: list[str] = []
        self._name_len = 0
        self._id_reading = False
        # the footer's text after the arguments, and where it starts in the raw text
        self._after = ""
        self._after_raw = 0


_DIGITS = re.compile("[0-9]+")
_ID_RUN = re.compile("[A-Za-z0-9_-]+")


def _name_run(pieces, markers) -> re.Pattern[str]:
    """A tool name runs until whitespace, the first character of the header's next piece, or
    the first character of a marker (so marker text never ends up in a name)."""
    stops = {m[0] for m in markers}
    after = False
    for piece in pieces:
        if after and piece.kind in ("text", "marker"):
            stops.add(piece.text[0])
            break
        if piece.kind == "name":
            after = True
    return re.compile("[^\\s" + re.escape("".join(sorted(stops))) + "]+")


def machine_class(fmt: ChatFormat) -> type:
    return MarkedCallsMachine
