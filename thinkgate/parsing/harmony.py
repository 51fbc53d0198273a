"""The streaming state machine for the harmony layout (gpt-oss): messages on channels.

Output is read as a sequence of messages::

    HEADER <|message|> BODY (<|end|> | <|return|> | <|call|>)  ( <|start|> HEADER <|message|> BODY ... )*

where the first HEADER follows the prompt's ``<|start|>assistant``. The header decides what the
body is: the analysis channel is reasoning, the final channel and a commentary message without a
recipient (a preamble) are answer text, a message addressed ``to=functions.NAME`` is a call whose
body is its JSON arguments. Every handler takes the buffer and a position and returns the position
it reached; it never looks behind that position again. Headers are short and read whole (they are
metadata, at most ``_MAX_HEADER`` characters); bodies stream.
"""

from __future__ import annotations

import enum
import logging
import re
from collections.abc import Callable, Mapping

from ..formats import ChannelMessages, ChatFormat, Thinking
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
from .tagged_json import INVALID_CALL_POLICIES, default_call_id

log = logging.getLogger("thinkgate.parsing")

_SPACE_RUN = re.compile(r"\s*")
# A header is a role, a channel, a recipient and a content type: a few words. Longer text where
# a header should be is not one (an output that starts without harmony markup, say).
_MAX_HEADER = 512


class HarmonyStage(enum.IntEnum):
    """What the model is writing at the current position."""

    HEADER = 0  # role, channel, recipient, content type: up to <|message|>
    REASONING = 1  # an analysis message's body
    CONTENT = 2  # a final message's body, or a preamble's
    ARGUMENTS = 3  # a call's body: its JSON arguments
    AFTER_ARGUMENTS = 4  # the object closed: <|call|> is due
    BETWEEN = 5  # after a message's end, before the next <|start|>
    INVALID_CALL = 6  # a call that cannot be read, up to its end
    STOPPED = 7  # strict mode after an invalid call: the rest is ignored
    VERBATIM = 8  # reasoning_only, past the reasoning: the rest is handed over as it is


class HarmonyMachine:
    """Events from the text of one output in the ``harmony`` layout.

    See :class:`thinkgate.StreamParser` for the options. ``recover_calls_in_reasoning`` and
    ``calls_after_content`` have no effect here: each message says by its header what it is.
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
        if on_invalid_call not in INVALID_CALL_POLICIES:
            raise ValueError(
                f"on_invalid_call must be one of {INVALID_CALL_POLICIES}, not {on_invalid_call!r}"
            )
        msgs = fmt.tools.messages
        if msgs is None:
            raise ValueError(f"format {fmt.name!r} has the harmony layout but no channel messages")
        self.fmt = fmt
        self._m = msgs
        self._tool_names = tool_names
        self._id_to_marker = id_to_marker
        self._policy = on_invalid_call
        self._call_id = call_id
        self._verbatim = reasoning_only
        self._return = fmt.eos
        self._call_end = fmt.tools.call_end
        # What ends a body: the end of a message, of the answer, of a call, or (a message the
        # model did not end) the start of the next one.
        self._body_ends = MarkerSet((msgs.end, self._return, self._call_end, msgs.start))
        self._in_header = MarkerSet((msgs.message, msgs.channel, msgs.constrain, msgs.start, msgs.end, self._return, self._call_end))
        self._in_between = MarkerSet((msgs.start, msgs.end, self._return, self._call_end))
        self._handlers = {
            HarmonyStage.HEADER: self._header,
            HarmonyStage.REASONING: self._reasoning,
            HarmonyStage.CONTENT: self._content,
            HarmonyStage.ARGUMENTS: self._arguments,
            HarmonyStage.AFTER_ARGUMENTS: self._after_arguments,
            HarmonyStage.BETWEEN: self._between,
            HarmonyStage.INVALID_CALL: self._invalid_call,
            HarmonyStage.STOPPED: self._stopped,
            HarmonyStage.VERBATIM: self._verbatim_rest,
        }
        # The prompt opened the analysis channel (True), or the model writes the first header;
        # False and "auto" differ only for the grammar (may the model open the analysis channel).
        self.stage = HarmonyStage.REASONING if thinking is True else HarmonyStage.HEADER
        self._carry = ""
        self._final = False
        self._refeed: str | None = None
        self._out: list[Event] = []
        self._reasoning_open = False
        self._reasoning_gap = False
        self._space = ""
        self._content_seen = False
        self._next_index = 0
        self._valid_calls = 0
        self._cut_off = False
        self._finished = False
        self.error: dict | None = None
        self._header_parts: list[tuple[bool, str]] = []  # (is a marker, text)
        self._header_len = 0
        self._after_start = False  # the header being read followed <|start|>
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
        while self.stage == HarmonyStage.ARGUMENTS and self._suspect is not None:
            self._roll_back_suspect("a string in the arguments is never closed")
            buf, self._refeed = self._refeed or "", None
            self._run(buf, None)
        if self.stage == HarmonyStage.HEADER and self._header_parts:
            self._not_a_header()
        if self.stage in (HarmonyStage.ARGUMENTS, HarmonyStage.INVALID_CALL):
            self._cut_off = True
            self._invalid(self._pending_error or "the output ended inside a tool call", cut_off=True)
        elif self.stage == HarmonyStage.AFTER_ARGUMENTS:
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

    def _find(self, markers: MarkerSet, buf: str, pos: int, credits: Credits | None) -> tuple[int, str | None, int]:
        """The next marker that counts and where the text before it ends: ``(index, marker,
        end of text)``; with no marker, ``(len(buf), None, h)`` where ``buf[h:]`` could still
        become a marker (the handler carries it over with :meth:`_rest`)."""
        p, m = markers.find(buf, pos, credits)
        if m is not None:
            return p, m, p
        return len(buf), None, (len(buf) if self._final else markers.hold_from(buf, pos, credits))

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
        """Answer text; whitespace before the first word and at the end is dropped."""
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

    def _header(self, buf: str, pos: int, credits: Credits | None) -> int:
        p, m, end = self._find(self._in_header, buf, pos, credits)
        if end > pos:
            self._header_parts.append((False, buf[pos:end]))
            self._header_len += end - pos
        if self._header_len > _MAX_HEADER:
            self._not_a_header()
            return end if m is None else p  # the rest is read as answer text
        if m is None:
            return self._rest(buf, end)
        m_ = self._m
        if m == m_.channel or m == m_.constrain:
            self._take(credits, m)
            self._header_parts.append((True, m))
            return p + len(m)
        if m != m_.message:
            # A message start, end or stop where the header should go on: no message here.
            self._not_a_header()
            self.stage = HarmonyStage.BETWEEN
            return p
        self._take(credits, m)
        self._header_parts.append((True, m))
        self._open_message()
        return p + len(m)

    def _not_a_header(self) -> None:
        """What stood where a header should be is not one: it is answer text, markers and all
        (nothing is dropped), and the answer goes on."""
        raw = "".join(t for _, t in self._header_parts)
        self._header_parts, self._header_len = [], 0
        self._end_reasoning()
        self._say((self._m.start if self._after_start else "") + raw)
        self._after_start = False
        self.stage = HarmonyStage.VERBATIM if self._verbatim else HarmonyStage.CONTENT

    def _open_message(self) -> None:
        """Read the header just completed and enter its body."""
        parts, self._header_parts, self._header_len = self._header_parts, [], 0
        raw = (self._m.start if self._after_start else "") + "".join(t for _, t in parts)
        self._after_start = False
        header = _read_header(parts, self._m)
        m = self._m
        if self._verbatim and (header is None or header[1] is not None or header[0] != m.reasoning_channel):
            # reasoning_only: the first message that is not reasoning, and all after it, go to
            # the engine's tool parser as they were written
            self._end_reasoning()
            self._say(raw)
            self.stage = HarmonyStage.VERBATIM
            return
        if header is None:
            self._end_reasoning()
            self._say(raw)
            self.stage = HarmonyStage.CONTENT
            return
        channel, recipient = header
        if recipient is not None:
            self._end_reasoning()
            self._raw = [raw]
            if not recipient.startswith(m.function_prefix) or len(recipient) == len(m.function_prefix):
                self._pending_error = f"the message is addressed to {recipient!r}, not to a function"
                self.stage = HarmonyStage.INVALID_CALL
                return
            self._start_call(recipient[len(m.function_prefix) :])
            self._scanner = JsonScanner()
            self.stage = HarmonyStage.ARGUMENTS
            return
        if channel == m.reasoning_channel:
            # The analysis messages are one reasoning, a line apart.
            self._reasoning_gap = self._reasoning_open
            self.stage = HarmonyStage.REASONING
        else:
            self._end_reasoning()
            self.stage = HarmonyStage.CONTENT

    def _body(self, buf: str, pos: int, credits: Credits | None, emit: Callable[[str], None]) -> int:
        p, m, end = self._find(self._body_ends, buf, pos, credits)
        emit(buf[pos:end])
        if m is None:
            return self._rest(buf, end)
        self.stage = HarmonyStage.BETWEEN
        if m == self._m.start:
            return p  # a message the model did not end: BETWEEN reads the next one's start
        self._take(credits, m)
        return p + len(m)

    def _reasoning(self, buf: str, pos: int, credits: Credits | None) -> int:
        return self._body(buf, pos, credits, self._reason)

    def _content(self, buf: str, pos: int, credits: Credits | None) -> int:
        self._end_reasoning()
        return self._body(buf, pos, credits, self._say)

    def _between(self, buf: str, pos: int, credits: Credits | None) -> int:
        p, m, end = self._find(self._in_between, buf, pos, credits)
        if self._verbatim and buf[pos:end].strip():
            self._end_reasoning()
            self.stage = HarmonyStage.VERBATIM
            return pos
        if end > pos:
            self._end_reasoning()
            self._say(buf[pos:end])  # stray text between messages is answer text
        if m is None:
            return self._rest(buf, end)
        self._take(credits, m)
        if m == self._m.start:
            self._after_start = True
            self.stage = HarmonyStage.HEADER
        return p + len(m)  # a stray end of message is markup, dropped

    def _arguments(self, buf: str, pos: int, credits: Credits | None) -> int:
        n = len(buf)
        if not self._args:
            j = _SPACE_RUN.match(buf, pos).end()  # type: ignore[union-attr]
            if j > pos:
                self._raw.append(buf[pos:j])
            if j == n:
                return n
            pos = j
        p, m, limit = self._find(self._body_ends, buf, pos, credits)
        scanner = self._scanner
        q = scanner.feed(buf, pos, limit)
        if scanner.failed:
            if self._suspect is not None:
                self._roll_back_suspect(f"arguments are not valid JSON: {scanner.error}", buf, pos)
                return n
            self._arguments_text(buf, pos, q)
            self._pending_error = f"arguments are not valid JSON: {scanner.error}"
            self.stage = HarmonyStage.INVALID_CALL
            return q
        self._arguments_text(buf, pos, q)
        if scanner.done:
            if self._suspect is not None:
                self._release_suspect()
            if self._call_index is not None:
                self._valid_calls += 1
                self._out.append(ToolCallEnd(self._call_index, self._call_id_value, self._call_name or "", "".join(self._args)))
            self.stage = HarmonyStage.AFTER_ARGUMENTS
            return q
        if m is None:
            return self._rest(buf, limit)
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
        error = "the call ended before its arguments' JSON object closed"
        if self._suspect is not None:
            self._roll_back_suspect(error, buf, p)
            return n
        self._pending_error = error
        return self._close_invalid(m, p, credits)

    def _after_arguments(self, buf: str, pos: int, credits: Credits | None) -> int:
        p, m, end = self._find(self._body_ends, buf, pos, credits)
        text = buf[pos:end]
        if text.strip():
            # Text after the object that is not the call's end: the call stands, and the text
            # is answer text.
            self._close_call()
            self.stage = HarmonyStage.CONTENT
            return pos
        self._raw.append(text)
        if m is None:
            return self._rest(buf, end)
        self._close_call()
        self.stage = HarmonyStage.BETWEEN
        if m == self._m.start:
            return p
        self._take(credits, m)
        return p + len(m)

    def _invalid_call(self, buf: str, pos: int, credits: Credits | None) -> int:
        p, m, end = self._find(self._body_ends, buf, pos, credits)
        self._raw.append(buf[pos:end])
        if m is None:
            return self._rest(buf, end)
        return self._close_invalid(m, p, credits)

    def _close_invalid(self, marker: str, at: int, credits: Credits | None) -> int:
        """The invalid call ends at ``marker``; a message start there begins the next message."""
        if marker != self._m.start:
            self._take(credits, marker)
            self._raw.append(marker)
            at += len(marker)
        self._invalid(self._pending_error or "invalid tool call")
        if self.stage != HarmonyStage.STOPPED:
            self.stage = HarmonyStage.BETWEEN
        return at

    def _stopped(self, buf: str, pos: int, credits: Credits | None) -> int:
        return len(buf)

    def _verbatim_rest(self, buf: str, pos: int, credits: Credits | None) -> int:
        self._say(buf[pos:])
        return len(buf)

    # ------------------------------------------------------------------ calls

    def _reset_call(self) -> None:
        self._raw: list[str] = []
        self._args: list[str] = []
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
            self._pending_error = f"unknown tool {name!r}"
            return
        self._call_index = self._next_index
        self._next_index += 1
        self._call_id_value = self._call_id(self._call_index)
        self._out.append(ToolCallStart(self._call_index, self._call_id_value, name))

    def _arguments_text(self, buf: str, start: int, end: int) -> None:
        if end <= start:
            return
        text = buf[start:end]
        self._raw.append(text)
        self._args.append(text)
        if self._suspect is None and self._call_index is not None:
            self._out.append(ToolCallArgumentsDelta(self._call_index, text))

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
        if marker != self._m.start:
            self._raw.append(marker)
            tail = tail[len(marker) :]
        self._invalid(error)
        if self.stage != HarmonyStage.STOPPED:
            self.stage = HarmonyStage.BETWEEN
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
            self.stage = HarmonyStage.STOPPED


def _read_header(parts: list[tuple[bool, str]], m: ChannelMessages) -> tuple[str | None, str | None] | None:
    """``(channel, recipient)`` of a header (``parts`` ends with the message marker), or ``None``
    when it is not one: words other than the role, a channel name, a recipient and a content
    type.

    Accepted: ``[assistant] [to=R] <|channel|>NAME [to=R] [[<|constrain|>]TYPE] <|message|>``.
    """
    merged: list[tuple[bool, str]] = []
    for is_marker, text in parts[:-1]:
        if merged and not is_marker and not merged[-1][0]:
            merged[-1] = (False, merged[-1][1] + text)  # a word may arrive in two deltas
        else:
            merged.append((is_marker, text))
    channel = recipient = content_type = None
    where = "role"  # before the channel marker, then "channel", then "type" (after <|constrain|>)
    for is_marker, text in merged:
        if is_marker:
            if text == m.channel and where == "role":
                where = "channel"
                continue
            if text == m.constrain and where == "channel" and channel is not None:
                where = "type"
                continue
            return None
        for word in text.split():
            if word.startswith(m.recipient) and len(word) > len(m.recipient) and where != "type" and recipient is None:
                recipient = word[len(m.recipient) :]
            elif where == "role" and word == m.role:
                continue
            elif where == "channel" and channel is None:
                channel = word
            elif where != "role" and channel is not None and content_type is None and word.isidentifier():
                content_type = word  # json (a call's arguments), code (a built-in tool's)
            else:
                return None
    if where == "role" or channel not in (m.reasoning_channel, m.answer_channel, m.tool_channel):
        return None
    return channel, recipient
