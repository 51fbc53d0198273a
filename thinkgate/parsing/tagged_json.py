"""The streaming state machine for tagged JSON calls (DeepSeek R1, V3-0324, V3.1).

Output is read as::

    [<think>] REASONING </think> CONTENT
    SECTION_BEGIN ( CALL_BEGIN CALL_HEADER ARGUMENTS AFTER_ARGUMENTS CALL_END )* SECTION_END

with the markers and the header layout taken from a :class:`~thinkgate.formats.ChatFormat`.
Every state handler takes the buffer and a position and returns the position it reached; it
never looks behind that position again. Text that could still become a marker is carried over to
the next delta (text-only mode), and argument text is validated as JSON as it arrives.
"""

from __future__ import annotations

import enum
import logging
import re
import uuid
from collections.abc import Callable, Mapping

from ..formats import ChatFormat, Thinking
from .events import (
    ContentDelta,
    Event,
    Finished,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningStart,
    ToolCallArgumentsDelta,
    ToolCallEnd,
    ToolCallInvalid,
    ToolCallStart,
)
from .json_scanner import JsonScanner
from .json_wrapper import JsonWrapperScanner
from .markers import Credits, MarkerSet

log = logging.getLogger("thinkgate.parsing")

_SPACE_RUN = re.compile(r"\s*")
_MAX_NAME = 256
# Leading whitespace is held while the parser waits to see whether the model opens <think>;
# past this much, it is not going to.
_MAX_START_SPACE = 64

INVALID_CALL_POLICIES = ("content", "drop", "error")


class Stage(enum.IntEnum):
    """What the model is writing at the current position."""

    START = 0  # before the first character: is <think> coming?
    REASONING = 1
    CONTENT = 2
    SECTION = 3  # inside the tool section, between calls
    CALL_HEADER = 4  # function<｜tool▁sep｜>NAME\n```json\n and the like
    ARGUMENTS = 5
    AFTER_ARGUMENTS = 6  # the footer (\n```) before the call's end marker
    INVALID_CALL = 7  # a call that cannot be read, up to its end marker
    STOPPED = 8  # strict mode after an invalid call: the rest is ignored


def default_call_id(index: int) -> str:
    return f"call_{uuid.uuid4().hex[:24]}"


class TaggedJsonMachine:
    """Events from the text of one output in the ``tagged_json`` layout.

    See :class:`thinkgate.StreamParser` for the options; this class holds the states only.
    """

    def __init__(
        self,
        fmt: ChatFormat,
        thinking: Thinking,
        tool_names: frozenset[str] | None,
        id_to_marker: Mapping[int, str] | None,
        *,
        on_invalid_call: str = "content",
        recover_calls_in_reasoning: bool = False,
        calls_after_content: bool = True,
        reasoning_only: bool = False,
        call_id: Callable[[int], str] = default_call_id,
    ) -> None:
        if thinking not in (True, False, "auto"):
            raise ValueError(f"thinking must be True, False or 'auto', not {thinking!r}")
        if not fmt.reasoning.present:
            if thinking is True:
                raise ValueError(f"format {fmt.name!r} does not think (it has no reasoning markers): thinking cannot be True")
            thinking = False  # "auto": there is no marker the model could open reasoning with
        if on_invalid_call not in INVALID_CALL_POLICIES:
            raise ValueError(
                f"on_invalid_call must be one of {INVALID_CALL_POLICIES}, not {on_invalid_call!r}"
            )
        self.fmt = fmt
        tools = fmt.tools
        self._thinking = thinking
        self._tool_names = tool_names
        self._id_to_marker = id_to_marker
        self._policy = on_invalid_call
        self._call_id = call_id
        self._open = fmt.reasoning.open
        self._close = fmt.reasoning.close
        # Every marker that ends the output: the end of sequence, and the format's other stops.
        self._stops = (fmt.eos, *fmt.stops)
        self._section_begin, self._section_end = tools.section
        self._call_begin, self._call_end = tools.call
        self._pieces = tools.header_pieces()
        self._json_object = tools.call_object_layout
        self._footer = "".join(tools.footer.split())

        tool_markers = (self._section_begin, self._call_begin)
        reasoning = [self._close, *self._stops]
        if recover_calls_in_reasoning:
            reasoning += tool_markers
        self._in_reasoning = MarkerSet(reasoning)
        # reasoning_only: split reasoning from the rest and hand the rest over verbatim (for an
        # engine that gives the answer to a separate tool parser).
        self._verbatim = reasoning_only
        self._in_content = MarkerSet(self._stops if reasoning_only else (*tool_markers, *self._stops))
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

        self.stage = Stage.CONTENT if thinking is False else Stage.START
        self._carry = ""  # unread text: a possible marker's beginning
        self._final = False
        self._refeed: str | None = None
        self._out: list[Event] = []
        self._reasoning_open = False
        self._space = ""  # content whitespace, emitted only if more content follows
        self._content_seen = False
        self._section_return = Stage.CONTENT
        self._next_index = 0
        self._ids_used: set[str] = set()
        self._valid_calls = 0
        self._cut_off = False
        self._finished = False
        self.error: dict | None = None
        self._reset_call()

    # ------------------------------------------------------------------ driving

    def feed(self, text: str, token_ids: list[int] | None = None) -> list[Event]:
        if self._finished:
            raise RuntimeError("feed() after finish()")
        self._out = []
        buf = self._carry + text
        credits = None
        if token_ids is not None:
            if self._id_to_marker is None:
                raise ValueError(
                    "token_ids were fed but the parser has no tokenizer to read marker ids from; "
                    "pass tokenizer= to StreamParser"
                )
            credits = Credits.from_ids(token_ids, self._id_to_marker, len(self._carry))
        self._carry = ""
        self._run(buf, credits)
        return self._out

    def finish(self, finish_reason: str | None = None) -> list[Event]:
        if self._finished:
            raise RuntimeError("finish() called twice")
        self._out = []
        self._final = True
        buf, self._carry = self._carry, ""
        self._run(buf, None)
        while self.stage == Stage.ARGUMENTS and self._suspect is not None:
            self._roll_back_suspect("a string in the arguments is never closed")
            buf, self._refeed = self._refeed or "", None
            self._run(buf, None)
        if self.stage == Stage.INVALID_CALL and not self._call_end:
            # A call that ends with its JSON broke before the output ended: it is invalid, not
            # cut off (no end marker was still to come).
            self._invalid(self._pending_error or "invalid tool call")
        elif self.stage in (Stage.CALL_HEADER, Stage.ARGUMENTS, Stage.INVALID_CALL):
            self._cut_off = True
            self._invalid(self._pending_error or "the output ended inside a tool call", cut_off=True)
        elif self.stage == Stage.AFTER_ARGUMENTS:
            self._close_call()
        self._end_reasoning()
        self._finished = True
        self._out.append(Finished(self._finish_reason(finish_reason), self.error))
        return self._out

    def _run(self, buf: str, credits: Credits | None) -> None:
        pos = 0
        handlers = self._handlers
        while True:
            n = len(buf)
            while pos < n:
                pos = handlers[self.stage](buf, pos, credits)
            if self._refeed is None:
                return
            # A suspected call was rolled back: read its tail again from the marker on.
            buf, self._refeed, pos, credits = self._refeed, None, 0, None

    def _finish_reason(self, given: str | None) -> str:
        if self.error is not None:
            return "error"
        if given == "length" or (given is None and self._cut_off):
            return "length"
        if self._valid_calls and given in (None, "stop", "tool_calls"):
            return "tool_calls"
        return given or "stop"

    def _hold(self, markers: MarkerSet, buf: str, pos: int, credits: Credits | None) -> int:
        return len(buf) if self._final else markers.hold_from(buf, pos, credits)

    # ------------------------------------------------------------------ emitting

    def _reason(self, text: str) -> None:
        if text:
            if not self._reasoning_open:
                self._reasoning_open = True
                self._out.append(ReasoningStart())
            self._out.append(ReasoningDelta(text))

    def _end_reasoning(self) -> None:
        if self._reasoning_open:
            self._reasoning_open = False
            self._out.append(ReasoningEnd())

    def _say(self, text: str) -> None:
        """Answer text. Whitespace before the first word, before tool markup and at the end is
        dropped; whitespace between words is kept."""
        if self._verbatim:
            if text:
                self._out.append(ContentDelta(text))
            return
        body = text.rstrip()
        if not body:
            if self._content_seen:
                self._space += text
            return
        if not self._content_seen:
            body = body.lstrip()
            self._content_seen = True
        self._out.append(ContentDelta(self._space + body))
        self._space = text[len(text.rstrip()) :]

    def _say_raw(self, text: str) -> None:
        if text:
            self._content_seen = True
            self._space = ""
            self._out.append(ContentDelta(text))

    # ------------------------------------------------------------------ stages

    def _start(self, buf: str, pos: int, credits: Credits | None) -> int:
        n = len(buf)
        j = _SPACE_RUN.match(buf, pos).end()  # type: ignore[union-attr]
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
                pos = _SPACE_RUN.match(buf, pos).end()  # type: ignore[union-attr]
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
            self._scanner = JsonWrapperScanner(self.fmt.tools.name_key, self.fmt.tools.arguments_key)
            self.stage = Stage.ARGUMENTS
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

    def _arguments_scanner(self, name: str):
        """What reads a call's arguments after its header names the tool."""
        return JsonScanner()

    def _start_call(self, name: str) -> None:
        self._call_name = name
        if self._tool_names is not None and name not in self._tool_names:
            # Read the arguments all the same, so that the invalid call ends where it really ends.
            self._pending_error = f"unknown tool {name!r}"
            return
        self._call_index = self._next_index
        self._next_index += 1
        self._call_id_value = self._new_call_id(name)
        self._out.append(ToolCallStart(self._call_index, self._call_id_value, name))
        # json_object: arguments written before the name (all of them, or those before marker
        # text met in a string, the rest waiting for that string to close)
        upto = self._suspect_args if self._suspect is not None else len(self._args)
        held = "".join(self._args[:upto])
        if held:
            self._out.append(ToolCallArgumentsDelta(self._call_index, held))

    def _new_call_id(self, name: str) -> str:
        """The id the model wrote (Mistral's ``[CALL_ID]…``) or the format's own (Kimi-K2's
        ``functions.NAME:0``, which its template writes back, so it must round-trip), when it is
        new in this message; else ``call_id``'s."""
        template = self.fmt.tools.call_id
        own = "".join(self._header_id)
        if template and not own:
            own = template.replace("{name}", name).replace("{index}", "".join(self._index) or str(self._call_index))
        if own:
            if own not in self._ids_used:
                self._ids_used.add(own)
                return own
        return self._call_id(self._call_index)

    def _arguments(self, buf: str, pos: int, credits: Credits | None) -> int:
        n = len(buf)
        if not self._args and type(self._scanner) is JsonScanner:  # its leading space is no argument text
            j = _SPACE_RUN.match(buf, pos).end()  # type: ignore[union-attr]
            if j > pos:
                self._raw.append(buf[pos:j])
            if j == n:
                return n
            pos = j
        p, m = self._in_call.find(buf, pos, credits)
        limit = p if m is not None else self._hold(self._in_call, buf, pos, credits)
        scanner = self._scanner
        q = scanner.feed(buf, pos, limit)
        if scanner.failed:
            if self._suspect is not None:
                self._roll_back_suspect(f"arguments are not valid {scanner.KIND}: {scanner.error}", buf, pos)
                return n
            self._arguments_text(buf, pos, q)  # the valid prefix, as streaming would have sent it
            self._pending_error = f"arguments are not valid {scanner.KIND}: {scanner.error}"
            self.stage = Stage.INVALID_CALL
            return q
        self._arguments_text(buf, pos, q)
        if scanner.done:
            self._arguments_done()
            return q
        if m is None:
            if self._final:  # text a parameter tag might have begun: the call is cut off there
                self._raw.append(buf[q:limit])
            self._carry = buf[q if q < limit and not self._final else limit :]
            return n
        if scanner.end(buf, q, p):  # arguments that end where the call's end marker comes (GLM)
            self._raw.append(buf[q:p])
            self._arguments_text(buf, p, p)
            self._arguments_done()
            return p
        if credits is None and scanner.in_string:
            # Marker text inside a string is string content, unless the string turns out never
            # to close properly: then the call is rolled back to here and the marker honoured.
            if self._suspect is None:
                self._suspect = m
                self._suspect_raw = len(self._raw)
                self._suspect_args = len(self._args)
            q = scanner.feed(buf, p, p + len(m))
            self._arguments_text(buf, p, q)
            return q
        # The marker is real and the object is still open: the call is broken off.
        error = "the call ended before its arguments' JSON object closed"
        if self._suspect is not None:
            # ... and so was it at the marker text met inside a string: end the call there.
            self._roll_back_suspect(error, buf, p)
            return len(buf)
        self._pending_error = error
        self.stage = Stage.INVALID_CALL
        return p

    def _arguments_done(self) -> None:
        if self._suspect is not None:
            self._release_suspect()
        if self._call_index is not None:
            args = "".join(self._args)
            self._valid_calls += 1
            self._out.append(ToolCallEnd(self._call_index, self._call_id_value, self._call_name, args))
        self._after = ""
        self._after_raw = len(self._raw)
        self.stage = Stage.AFTER_ARGUMENTS

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

    def _stopped(self, buf: str, pos: int, credits: Credits | None) -> int:
        return len(buf)

    # ------------------------------------------------------------------ calls

    def _reset_call(self) -> None:
        self._raw: list[str] = []  # the call's text as written, markers included
        self._args: list[str] = []
        self._piece = 0
        self._matched = 0
        self._name: list[str] = []
        self._name_len = 0
        self._index: list[str] = []
        self._header_id: list[str] = []
        self._id_reading = False
        self._call_name: str | None = None
        self._call_index: int | None = None
        self._call_id_value = ""
        self._pending_error: str | None = None
        self._scanner: JsonScanner | None = None
        self._suspect: str | None = None
        self._suspect_raw = 0
        self._suspect_args = 0
        self._after = ""
        self._after_raw = 0

    def _unraw(self, k: int) -> str:
        """Take the last ``k`` characters back off the call's raw text."""
        tail = ""
        while len(tail) < k:
            tail = self._raw.pop() + tail
        cut = len(tail) - k
        if cut:
            self._raw.append(tail[:cut])
        return tail[cut:]

    def _arguments_text(self, buf: str, start: int, end: int) -> None:
        """Text the scanner has read: all of it is the call's; the arguments' part (all of it,
        but for the json_object layout only the arguments value) streams."""
        scanner = self._scanner
        text = scanner.arguments_text(buf, start, end)
        if end > start:
            self._raw.append(buf[start:end])
        if text:
            self._args.append(text)
            if self._suspect is None and self._call_index is not None:
                self._out.append(ToolCallArgumentsDelta(self._call_index, text))
        if self._json_object and scanner.name is not None and self._call_name is None:
            self._start_call(scanner.name)

    def _release_suspect(self) -> None:
        held = "".join(self._args[self._suspect_args :])
        self._suspect = None
        if held and self._call_index is not None:
            self._out.append(ToolCallArgumentsDelta(self._call_index, held))

    def _roll_back_suspect(self, error: str, buf: str = "", pos: int = 0) -> None:
        """The call's JSON broke after marker text inside a string: the call ends at that marker
        (which was real after all), and everything from it on is read again."""
        marker = self._suspect
        tail = "".join(self._raw[self._suspect_raw :]) + buf[pos:]
        del self._raw[self._suspect_raw :]
        self._suspect = None
        if marker == self._call_end:
            self._raw.append(marker)
            tail = tail[len(marker) :]
        self._invalid(error)
        if self.stage != Stage.STOPPED:
            self.stage = Stage.SECTION
            self._refeed = tail

    def _close_call(self) -> None:
        if self._pending_error is not None:
            self._invalid(self._pending_error)
        self._reset_call()

    def _invalid(self, error: str, cut_off: bool = False) -> None:
        text = "".join(self._raw)
        index, name = self._call_index, self._call_name
        self._out.append(ToolCallInvalid(index, name, text, error, cut_off))
        self._reset_call()
        if self._policy == "content" or (cut_off and self._policy == "error"):
            self._say_raw(text)
        elif self._policy == "drop":
            log.warning("dropped an invalid tool call (%s): %.200r", error, text)
        else:
            self.error = {
                "type": "invalid_tool_call",
                "message": error,
                "tool_call_index": index,
                "tool_name": name,
            }
            self.stage = Stage.STOPPED


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
