"""The streaming state machine for messages on channels (gpt-oss harmony): the
:class:`~thinkgate.formats.ChannelMessages` layout.

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
from collections.abc import Callable

from ..formats import ChannelMessages, ChatFormat
from .calls import CallTracker
from .events import BuiltinToolCall
from .driver import Driver, Handler
from .markers import Credits, MarkerSet
from .stages import Reading
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
    BUILTIN = 9  # a message to a built-in tool (to=browser.search, to=python): its body


class ChannelMessagesLayout:
    """The stages of one output in the channel-messages layout (harmony).

    See :class:`thinkgate.StreamParser` for the options. ``recover_calls_in_reasoning`` and
    ``calls_after_content`` have no effect here: each message says by its header what it is.
    """

    ARGUMENTS = HarmonyStage.ARGUMENTS
    INVALID_CALL = HarmonyStage.INVALID_CALL
    STOPPED = HarmonyStage.STOPPED
    RESUME = HarmonyStage.BETWEEN

    def __init__(self, driver: Driver, calls: CallTracker, fmt: ChatFormat, reading: Reading) -> None:
        msgs = fmt.tools.messages
        if msgs is None:
            raise ValueError(f"format {fmt.name!r} writes no channel messages")
        self.d = driver
        self.calls = calls
        self._m = msgs
        self._return = fmt.eos
        self._call_end = fmt.tools.call_end
        # What ends a body: the end of a message, of the answer, of a call, or (a message the
        # model did not end) the start of the next one.
        self._body_ends = self.in_call = MarkerSet((msgs.end, self._return, self._call_end, msgs.start))
        self._in_header = MarkerSet((msgs.message, msgs.channel, msgs.constrain, msgs.start, msgs.end, self._return, self._call_end))
        self._in_between = MarkerSet((msgs.start, msgs.end, self._return, self._call_end))
        self._header_parts: list[tuple[bool, str]] = []  # (is a marker, text)
        self._header_len = 0
        self._after_start = False  # the header being read followed <|start|>
        self._builtin = ""  # the built-in tool a message is addressed to, and its body so far
        self._builtin_text: list[str] = []
        calls.bind(self)
        # The prompt opened the analysis channel (True), or the model writes the first header;
        # False and "auto" differ only for the grammar (may the model open the analysis channel).
        driver.start(self, HarmonyStage.REASONING if reading.thinking is True else HarmonyStage.HEADER)

    def stages(self) -> dict[HarmonyStage, Handler]:
        return {
            HarmonyStage.HEADER: self._header,
            HarmonyStage.REASONING: self._reasoning,
            HarmonyStage.CONTENT: self._content,
            HarmonyStage.ARGUMENTS: self.calls.arguments,
            HarmonyStage.AFTER_ARGUMENTS: self._after_arguments,
            HarmonyStage.BETWEEN: self._between,
            HarmonyStage.INVALID_CALL: self._invalid_call,
            HarmonyStage.STOPPED: self.calls.stopped,
            HarmonyStage.VERBATIM: self._verbatim_rest,
            HarmonyStage.BUILTIN: self._builtin_body,
        }

    def finish_stage(self) -> None:
        d, calls = self.d, self.calls
        if d.stage == HarmonyStage.HEADER and self._header_parts:
            self._not_a_header()
        if d.stage == HarmonyStage.BUILTIN:
            d.cut_off = True
            self._builtin_done(cut_off=True)
        if d.stage in (HarmonyStage.ARGUMENTS, HarmonyStage.INVALID_CALL):
            calls.cut_off()
        elif d.stage == HarmonyStage.AFTER_ARGUMENTS:
            calls.close()

    def ends_call(self, marker: str) -> bool:
        return marker != self._m.start  # a message start begins the next message

    # ------------------------------------------------------------------ stages

    def _header(self, buf: str, pos: int, credits: Credits | None) -> int:
        d = self.d
        p, m, end = d.find(self._in_header, buf, pos, credits)
        if end > pos:
            self._header_parts.append((False, buf[pos:end]))
            self._header_len += end - pos
        if self._header_len > _MAX_HEADER:
            self._not_a_header()
            return end if m is None else p  # the rest is read as answer text
        if m is None:
            return d.rest(buf, end)
        m_ = self._m
        if m == m_.channel or m == m_.constrain:
            d.take(credits, m)
            self._header_parts.append((True, m))
            return p + len(m)
        if m != m_.message:
            # A message start, end or stop where the header should go on: no message here.
            self._not_a_header()
            d.stage = HarmonyStage.BETWEEN
            return p
        d.take(credits, m)
        self._header_parts.append((True, m))
        self._open_message()
        return p + len(m)

    def _not_a_header(self) -> None:
        """What stood where a header should be is not one: it is answer text, markers and all
        (nothing is dropped), and the answer goes on."""
        d = self.d
        raw = "".join(t for _, t in self._header_parts)
        self._header_parts, self._header_len = [], 0
        d.end_reasoning()
        d.say((self._m.start if self._after_start else "") + raw)
        self._after_start = False
        d.stage = HarmonyStage.VERBATIM if d.verbatim else HarmonyStage.CONTENT

    def _open_message(self) -> None:
        """Read the header just completed and enter its body."""
        d, calls = self.d, self.calls
        parts, self._header_parts, self._header_len = self._header_parts, [], 0
        raw = (self._m.start if self._after_start else "") + "".join(t for _, t in parts)
        self._after_start = False
        header = _read_header(parts, self._m)
        m = self._m
        if d.verbatim and (header is None or header[1] is not None or header[0] != m.reasoning_channel):
            # reasoning_only: the first message that is not reasoning, and all after it, go to
            # the engine's tool parser as they were written
            d.end_reasoning()
            d.say(raw)
            d.stage = HarmonyStage.VERBATIM
            return
        if header is None:
            d.end_reasoning()
            d.say(raw)
            d.stage = HarmonyStage.CONTENT
            return
        channel, recipient = header
        if recipient == m.role:
            recipient = None  # addressed back to the assistant: a message like any other
        if recipient is not None and not recipient.startswith(m.function_prefix):
            # one of the model's own tools (to=browser.search, to=python): no function call,
            # and no answer text either
            d.end_reasoning()
            self._builtin, self._builtin_text = recipient, []
            d.stage = HarmonyStage.BUILTIN
            return
        if recipient is not None:
            d.end_reasoning()
            calls.raw.append(raw)
            if not recipient.startswith(m.function_prefix) or len(recipient) == len(m.function_prefix):
                calls.pending_error = f"the message is addressed to {recipient!r}, not to a function"
                d.stage = HarmonyStage.INVALID_CALL
                return
            calls.read_arguments(recipient[len(m.function_prefix) :])
            return
        if channel == m.reasoning_channel:
            # The analysis messages are one reasoning, a line apart.
            d.reasoning_gap = d.reasoning_open
            d.stage = HarmonyStage.REASONING
        else:
            d.end_reasoning()
            d.stage = HarmonyStage.CONTENT

    def _body(self, buf: str, pos: int, credits: Credits | None, emit: Callable[[str], None]) -> int:
        d = self.d
        p, m = d.emit_until(self._body_ends, buf, pos, credits, emit)
        if m is None:
            return p
        d.stage = HarmonyStage.BETWEEN
        if m == self._m.start:
            return p  # a message the model did not end: BETWEEN reads the next one's start
        d.take(credits, m)
        return p + len(m)

    def _reasoning(self, buf: str, pos: int, credits: Credits | None) -> int:
        return self._body(buf, pos, credits, self.d.reason)

    def _content(self, buf: str, pos: int, credits: Credits | None) -> int:
        d = self.d
        d.end_reasoning()
        return self._body(buf, pos, credits, self.d.say)

    def _between(self, buf: str, pos: int, credits: Credits | None) -> int:
        d = self.d
        p, m, end = d.find(self._in_between, buf, pos, credits)
        if d.verbatim and buf[pos:end].strip():
            d.end_reasoning()
            d.stage = HarmonyStage.VERBATIM
            return pos
        if end > pos:
            d.end_reasoning()
            d.say(buf[pos:end])  # stray text between messages is answer text
        if m is None:
            return d.rest(buf, end)
        d.take(credits, m)
        if m == self._m.start:
            self._after_start = True
            d.stage = HarmonyStage.HEADER
        return p + len(m)  # a stray end of message is markup, dropped

    def arguments_done(self) -> None:
        d = self.d
        d.stage = HarmonyStage.AFTER_ARGUMENTS

    def broken_off(self, marker: str, at: int, credits: Credits | None) -> int:
        return self._close_invalid(marker, at, credits)

    def _after_arguments(self, buf: str, pos: int, credits: Credits | None) -> int:
        d, calls = self.d, self.calls
        p, m, end = d.find(self._body_ends, buf, pos, credits)
        text = buf[pos:end]
        if text.strip():
            # Text after the object that is not the call's end: the call stands, and the text
            # is answer text.
            calls.close()
            if d.stage != HarmonyStage.STOPPED:
                d.stage = HarmonyStage.CONTENT
            return pos
        calls.raw.append(text)
        if m is None:
            return d.rest(buf, end)
        calls.close()
        if d.stage == HarmonyStage.STOPPED:
            return len(buf)
        d.stage = HarmonyStage.BETWEEN
        if m == self._m.start:
            return p
        d.take(credits, m)
        return p + len(m)

    def _invalid_call(self, buf: str, pos: int, credits: Credits | None) -> int:
        d, calls = self.d, self.calls
        p, m, end = d.find(self._body_ends, buf, pos, credits)
        calls.raw.append(buf[pos:end])
        if m is None:
            return d.rest(buf, end)
        return self._close_invalid(m, p, credits)

    def _close_invalid(self, marker: str, at: int, credits: Credits | None) -> int:
        """The invalid call ends at ``marker``; a message start there begins the next message."""
        d, calls = self.d, self.calls
        if marker != self._m.start:
            d.take(credits, marker)
            calls.raw.append(marker)
            at += len(marker)
        calls.invalid(calls.pending_error or "invalid tool call")
        if d.stage != HarmonyStage.STOPPED:
            d.stage = HarmonyStage.BETWEEN
        return at

    def _builtin_body(self, buf: str, pos: int, credits: Credits | None) -> int:
        d = self.d
        p, m = d.emit_until(self._body_ends, buf, pos, credits, self._builtin_text.append)
        if m is None:
            return p
        self._builtin_done()
        d.stage = HarmonyStage.BETWEEN
        if m == self._m.start:
            return p
        d.take(credits, m)
        return p + len(m)

    def _builtin_done(self, cut_off: bool = False) -> None:
        self.d.out.append(BuiltinToolCall(self._builtin, "".join(self._builtin_text), cut_off))
        self._builtin_text = []

    def _verbatim_rest(self, buf: str, pos: int, credits: Credits | None) -> int:
        d = self.d
        d.say(buf[pos:])
        return len(buf)


def _read_header(parts: list[tuple[bool, str]], m: ChannelMessages) -> tuple[str | None, str | None] | None:
    """``(channel, recipient)`` of a header (``parts`` ends with the message marker), or ``None``
    when it is not one: words other than the role, a channel name, a recipient and a content
    type.

    Accepted: ``[assistant] [to=R] <|channel|>NAME [to=R] [[<|constrain|>]TYPE] <|message|>``, and
    before it a channel with no recipient but the assistant, which the later one replaces.
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
            if text == m.channel and where == "channel" and recipient in (None, m.role) and content_type is None:
                # a channel named again after one addressed back to the assistant (gpt-oss's stray
                # "commentary to=assistant" before its analysis or final): the last one stands
                channel = recipient = None
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


def layout_class(fmt: ChatFormat) -> type:
    return ChannelMessagesLayout
