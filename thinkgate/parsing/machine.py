"""What every layout's streaming machine shares: driving, emitting, and the life of a call.

A machine is a set of stage handlers (each takes the buffer and a position and returns the
position it reached, never looking behind it) over this base, which feeds deltas through them
(carrying over text that could still become a marker, and reading again the tail of a call
that was rolled back), emits reasoning and answer text, and follows a call from its start through
its streamed arguments to its end or its invalidity under the ``on_invalid_call`` policy. The
layouts differ only in their stages: see ``marked_calls.py``, ``json_calls.py`` and ``channel_messages.py``.
"""

from __future__ import annotations

import enum
import logging
import secrets
import string
import uuid
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

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
from .markers import Credits, MarkerSet
from .spaces import SPACE_RUN

log = logging.getLogger("thinkgate.parsing")


INVALID_CALL_POLICIES = ("content", "drop", "error")


def default_call_id(index: int) -> str:
    return f"call_{uuid.uuid4().hex[:24]}"


_ID_CHARACTERS = string.ascii_letters + string.digits


def short_call_id(length: int) -> Callable[[int], str]:
    """Ids of ``length`` random letters and digits (a format's ``id_length``: Mistral's nine)."""
    return lambda index: "".join(secrets.choice(_ID_CHARACTERS) for _ in range(length))


class CallMachine:
    """The shared part of a layout's machine. A subclass sets the stage it reads arguments in,
    the one for an invalid call, the one strict mode stops in, and the one reading resumes in
    after a call (``ARGUMENTS``, ``INVALID_CALL``, ``STOPPED``, ``RESUME``), fills
    ``self._handlers``, sets ``self._in_call`` (the markers that end a call's arguments) and says
    in :meth:`_finish_stage` what an output ending in each stage means."""

    ARGUMENTS: ClassVar[enum.IntEnum]
    INVALID_CALL: ClassVar[enum.IntEnum]
    STOPPED: ClassVar[enum.IntEnum]
    RESUME: ClassVar[enum.IntEnum]

    def __init__(
        self,
        fmt: ChatFormat,
        thinking: Thinking,
        tool_names: frozenset[str] | None,
        id_to_marker: Mapping[int, str] | None,
        *,
        on_invalid_call: str = "content",
        reasoning_only: bool = False,
        call_id: Callable[[int], str] = default_call_id,
        tool_parameters: Mapping[str, Any] | None = None,
    ) -> None:
        thinking = fmt.start_thinking(thinking)
        if on_invalid_call not in INVALID_CALL_POLICIES:
            raise ValueError(
                f"on_invalid_call must be one of {INVALID_CALL_POLICIES}, not {on_invalid_call!r}"
            )
        self.fmt = fmt
        self._thinking = thinking
        self._tool_names = tool_names
        # each tool's parameters schema, by name: parameters written as text are typed by it
        self._parameters = dict(tool_parameters or {})
        self._id_to_marker = id_to_marker
        self._policy = on_invalid_call
        if call_id is default_call_id and fmt.tools.id_length:
            call_id = short_call_id(fmt.tools.id_length)
        self._call_id = call_id
        # reasoning_only: split reasoning from the rest and hand the rest over verbatim (for an
        # engine that gives the answer to a separate tool parser).
        self._verbatim = reasoning_only
        self._json_object = fmt.tools.call_object_layout
        self._handlers: dict[enum.IntEnum, Callable[[str, int, Credits | None], int]] = {}
        self._carry = ""  # unread text: a possible marker's beginning
        self._final = False
        self._refeed: str | None = None
        self._out: list[Event] = []
        self._reasoning_open = False
        self._reasoning_gap = False  # harmony: the next reasoning is another analysis message
        self._space = ""  # content whitespace, emitted only if more content follows
        self._content_seen = False
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
        while self.stage == self.ARGUMENTS and self._suspect is not None:
            self._roll_back_suspect("a string in the arguments is never closed")
            buf, self._refeed = self._refeed or "", None
            self._run(buf, None)
        self._finish_stage()
        self._end_reasoning()
        self._finished = True
        self._out.append(Finished(self._finish_reason(finish_reason), self.error))
        return self._out

    def _finish_stage(self) -> None:
        """What the output's ending in the current stage means (a call cut off, say)."""
        raise NotImplementedError

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
        """Where the text that could still become one of ``markers`` starts (nothing is held
        once the output is complete)."""
        return len(buf) if self._final else markers.hold_from(buf, pos, credits)

    def _find(self, markers: MarkerSet, buf: str, pos: int, credits: Credits | None) -> tuple[int, str | None, int]:
        """The next marker that counts and where the text before it ends: ``(index, marker,
        end of text)``; with no marker, ``(len(buf), None, h)`` where ``buf[h:]`` could still
        become a marker (the handler carries it over with :meth:`_rest`)."""
        p, m = markers.find(buf, pos, credits)
        if m is not None:
            return p, m, p
        return len(buf), None, self._hold(markers, buf, pos, credits)

    def _rest(self, buf: str, h: int) -> int:
        self._carry = buf[h:]
        return len(buf)

    @staticmethod
    def _take(credits: Credits | None, marker: str) -> None:
        if credits is not None:
            credits.take(marker)

    # ------------------------------------------------------------------ emitting

    def _reason(self, text: str) -> None:
        if text:
            if self._reasoning_gap:
                self._reasoning_gap = False
                text = "\n" + text
            if not self._reasoning_open:
                self._reasoning_open = True
                self._out.append(ReasoningStart())
            self._out.append(ReasoningDelta(text))

    def _end_reasoning(self) -> None:
        self._reasoning_gap = False
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

    # ------------------------------------------------------------------ calls

    def _reset_call(self) -> None:
        self._raw: list[str] = []  # the call's text as written, markers included
        self._args: list[str] = []
        self._index: list[str] = []  # the call number its header wrote (Kimi-K2)
        self._header_id: list[str] = []  # the id its header wrote (Mistral)
        self._call_name: str | None = None
        self._call_index: int | None = None
        self._call_id_value = ""
        self._pending_error: str | None = None
        self._scanner: JsonScanner | None = None
        self._suspect: str | None = None
        self._suspect_raw = 0
        self._suspect_args = 0

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
        but for a call object only the arguments value) streams."""
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

    def _arguments(self, buf: str, pos: int, credits: Credits | None) -> int:
        """The arguments' JSON, validated as it arrives, up to the next marker that counts."""
        n = len(buf)
        if not self._args and type(self._scanner) is JsonScanner:  # its leading space is no argument text
            j = SPACE_RUN.match(buf, pos).end()  # type: ignore[union-attr]
            if j > pos:
                self._raw.append(buf[pos:j])
            if j == n:
                return n
            pos = j
        p, m, limit = self._find(self._in_call, buf, pos, credits)
        scanner = self._scanner
        q = scanner.feed(buf, pos, limit)
        if scanner.failed:
            if self._suspect is not None:
                self._roll_back_suspect(f"arguments are not valid {scanner.KIND}: {scanner.error}", buf, pos)
                return n
            self._arguments_text(buf, pos, q)  # the valid prefix, as streaming would have sent it
            self._pending_error = f"arguments are not valid {scanner.KIND}: {scanner.error}"
            self.stage = self.INVALID_CALL
            return q
        self._arguments_text(buf, pos, q)
        if scanner.done:
            self._complete_call()
            return q
        if m is None:
            if self._final:  # text a parameter tag might have begun: the call is cut off there
                self._raw.append(buf[q:limit])
                return self._rest(buf, limit)
            return self._rest(buf, min(q, limit))
        if scanner.end(buf, q, p):  # arguments that end where the call's end marker comes (GLM)
            self._raw.append(buf[q:p])
            self._arguments_text(buf, p, p)
            self._complete_call()
            return p
        if credits is None and scanner.in_string:
            return self._suspect_marker(scanner, buf, p, m)
        # The marker is real and the object is still open: the call is broken off.
        error = "the call ended before its arguments' JSON object closed"
        if self._suspect is not None:
            # ... and so was it at the marker text met inside a string: end the call there.
            self._roll_back_suspect(error, buf, p)
            return n
        self._pending_error = error
        return self._broken_off(m, p, credits)

    def _complete_call(self) -> None:
        """The arguments are complete: the call stands (unless its tool is unknown)."""
        if self._suspect is not None:
            self._release_suspect()
        if self._call_index is not None:
            self._valid_calls += 1
            self._out.append(ToolCallEnd(self._call_index, self._call_id_value, self._call_name or "", "".join(self._args)))
        self._arguments_done()

    def _arguments_done(self) -> None:
        """The arguments' object closed: what follows it (a footer, the call's end)."""
        raise NotImplementedError

    def _broken_off(self, marker: str, at: int, credits: Credits | None) -> int:
        """A real ``marker`` at ``at`` ended the call before its object closed."""
        raise NotImplementedError

    def _suspect_marker(self, scanner: JsonScanner, buf: str, p: int, marker: str) -> int:
        """Marker text inside a string is string content, unless the string turns out never to
        close properly: then the call is rolled back to here and the marker honoured."""
        if self._suspect is None:
            self._suspect = marker
            self._suspect_raw = len(self._raw)
            self._suspect_args = len(self._args)
        q = scanner.feed(buf, p, p + len(marker))
        self._arguments_text(buf, p, q)
        return q

    def _release_suspect(self) -> None:
        held = "".join(self._args[self._suspect_args :])
        self._suspect = None
        if held and self._call_index is not None:
            self._out.append(ToolCallArgumentsDelta(self._call_index, held))

    def _ends_call(self, marker: str) -> bool:
        """Whether ``marker``, met where a call is read, is the call's own end (and so part of
        its text) rather than the start of what follows it."""
        raise NotImplementedError

    def _roll_back_suspect(self, error: str, buf: str = "", pos: int = 0) -> None:
        """The call's JSON broke after marker text inside a string: the call ends at that marker
        (which was real after all), and everything from it on is read again."""
        marker = self._suspect
        tail = "".join(self._raw[self._suspect_raw :]) + buf[pos:]
        del self._raw[self._suspect_raw :]
        self._suspect = None
        if self._ends_call(marker):
            self._raw.append(marker)
            tail = tail[len(marker) :]
        self._invalid(error)
        if self.stage != self.STOPPED:
            self.stage = self.RESUME
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
            self.stage = self.STOPPED

    def _stopped(self, buf: str, pos: int, credits: Credits | None) -> int:
        return len(buf)
