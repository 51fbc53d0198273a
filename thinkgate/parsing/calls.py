"""The life of a tool call, the same in every layout: from its start through its streamed
arguments to its end, or to its invalidity under the ``on_invalid_call`` policy.

The :class:`CallTracker` holds one call at a time: its text as written, its arguments, its name,
index and id, and the reader of its arguments (``arguments.py``). It owns the stage in which
the arguments are read, and asks the layout four things: which markers end a call's arguments
(``in_call``), what follows arguments that closed (``arguments_done``), what a real marker that
broke a call off means (``broken_off``), and whether a marker is the call's own end
(``ends_call``). A layout names three of its stages for it: ``ARGUMENTS``, ``STOPPED`` (strict
mode after an invalid call) and ``RESUME`` (where reading goes on after a call rolled back).
"""

from __future__ import annotations

import logging
import secrets
import string
import uuid
from collections.abc import Callable, Collection, Mapping
from typing import Any

from ..formats import ChatFormat
from .arguments import ArgumentsSchemas, arguments_reader, call_object_reader
from .driver import Driver
from .events import ToolCallArgumentsDelta, ToolCallEnd, ToolCallInvalid, ToolCallStart
from .json_scanner import JsonScanner
from .markers import Credits
from .spaces import SPACE_RUN

log = logging.getLogger("thinkgate.parsing")

INVALID_CALL_POLICIES = ("report", "content", "drop", "error")


def default_call_id(index: int) -> str:
    return f"call_{uuid.uuid4().hex[:24]}"


_ID_CHARACTERS = string.ascii_letters + string.digits


def short_call_id(length: int) -> Callable[[int], str]:
    """Ids of ``length`` random letters and digits (a format's ``id_length``: Mistral's nine)."""
    return lambda index: "".join(secrets.choice(_ID_CHARACTERS) for _ in range(length))


class CallTracker:
    """One call at a time, for the layout bound to it (see the module)."""

    def __init__(
        self,
        driver: Driver,
        fmt: ChatFormat,
        tool_names: frozenset[str] | None,
        *,
        on_invalid_call: str = "report",
        call_id: Callable[[int], str] = default_call_id,
        tool_parameters: Mapping[str, Any] | None = None,
        validate_arguments: bool = True,
        checked: Collection[str] | None = None,
        enforced_schemas: Mapping[str, Any] | None = None,
    ) -> None:
        if on_invalid_call not in INVALID_CALL_POLICIES:
            raise ValueError(
                f"on_invalid_call must be one of {INVALID_CALL_POLICIES}, not {on_invalid_call!r}"
            )
        self.d = driver
        driver.calls = self
        self.fmt = fmt
        self._tool_names = tool_names
        # each tool's parameters schema, by name: parameters written as text are typed by it
        self._parameters = dict(tool_parameters or {})
        # ... and a call's arguments must satisfy it, or what the grammar held it to where that
        # is less (a call that does not is invalid); a tool not in ``checked`` (its strict level
        # below 2) only needs a JSON object
        held = {**self._parameters, **(enforced_schemas or {})}
        schemas = held if checked is None else {n: p for n, p in held.items() if n in checked}
        self._schemas = ArgumentsSchemas(schemas) if validate_arguments and tool_names is not None else None
        self._checked = frozenset(schemas) if self._schemas is not None else frozenset()
        self._policy = on_invalid_call
        if call_id is default_call_id and fmt.tools.id_length:
            call_id = short_call_id(fmt.tools.id_length)
        self._call_id = call_id
        self._json_object = self._object_layout = fmt.tools.call_object_layout
        # A call object that carries its id after the arguments (Mistral's array) starts when it
        # closes: its first delta must carry that id.
        self._start_at_close = self._json_object and bool(fmt.tools.id_key)
        self.layout: Any = None
        self._next_index = 0
        self._ids_used: set[str] = set()
        self.valid = 0  # calls that stood
        self.ended = 0  # calls that ended, valid or not
        self.reset()

    @property
    def knows_tools(self) -> bool:
        """Whether the request gave its tools."""
        return self._tool_names is not None

    def knows(self, name: str) -> bool:
        """Whether ``name`` is one of the request's tools (none given: no name is known)."""
        return self._tool_names is not None and name in self._tool_names

    def bind(self, layout: Any) -> None:
        self.layout = layout

    def reset(self) -> None:
        """Forget the call read last: the next one starts. (A call is markup: the stretch of
        answer text before it is over.)"""
        self.d.mark()
        self.raw: list[str] = []  # the call's text as written, markers included
        self.args: list[str] = []
        self.index: list[str] = []  # the call number its header wrote (Kimi-K2)
        self.header_id: list[str] = []  # the id its header wrote (Mistral)
        self.name: str | None = None
        self._call_index: int | None = None
        self._call_id_value = ""
        self.pending_error: str | None = None
        self._reader: Any = None
        self._json_object = getattr(self, "_object_layout", False)  # (a call object read where the layout has none)
        self._suspect: str | None = None
        self._suspect_spelled = 0  # the length of its text as written
        self._suspect_raw = 0
        self._suspect_args = 0

    # ------------------------------------------------------------------ starting

    def read_arguments(self, name: str) -> None:
        """The header named the tool: the call starts, and its arguments are read next."""
        self.start(name)
        self._reader = arguments_reader(self.fmt.tools, self._parameters.get(name), name in self._checked)
        self.d.stage = self.layout.ARGUMENTS

    def read_no_arguments(self, name: str) -> None:
        """The header named the tool and closed the call itself (an XML element written
        self-closing, ``<invoke name="submit"/>``): its arguments are none, ``{}``."""
        self.read_arguments(name)
        self.args.append("{}")
        if self._call_index is not None:
            self.d.out.append(ToolCallArgumentsDelta(self._call_index, "{}"))
        self._complete()

    def read_call_object(self, read_also: tuple[str, ...] = ()) -> None:
        """A call object begins here: its name and arguments are read together (``read_also``:
        more keys its arguments may stand under, where the layout writes no call objects)."""
        self._reader = call_object_reader(self.fmt.tools, read_also)
        self._json_object = True
        self.d.stage = self.layout.ARGUMENTS

    def start(self, name: str) -> None:
        self.name = name
        if self._tool_names is not None and name not in self._tool_names:
            # Read the arguments all the same, so that the invalid call ends where it really ends.
            self.pending_error = f"unknown tool {name!r}"
            return
        self._call_index = self._next_index
        self._next_index += 1
        self._call_id_value = self._new_call_id(name)
        out = self.d.out
        out.append(ToolCallStart(self._call_index, self._call_id_value, name))
        # A call object: arguments written before the name (all of them, or those before marker
        # text met in a string, the rest waiting for that string to close)
        upto = self._suspect_args if self._suspect is not None else len(self.args)
        held = "".join(self.args[:upto])
        if held:
            out.append(ToolCallArgumentsDelta(self._call_index, held))

    def _new_call_id(self, name: str) -> str:
        """The id the model wrote (Mistral's ``[CALL_ID]…``) or the format's own (Kimi-K2's
        ``functions.NAME:0``, which its template writes back, so it must round-trip), when it is
        new in this message; else ``call_id``'s."""
        template = self.fmt.tools.call_id
        own = "".join(self.header_id)
        if template and not own:
            own = template.replace("{name}", name).replace("{index}", "".join(self.index) or str(self._call_index))
        if own:
            if own not in self._ids_used:
                self._ids_used.add(own)
                return own
        return self._call_id(self._call_index)

    def _is_model_id(self, call_id: str) -> bool:
        """Whether an id the model wrote can be the call's: where the format's template allows
        only ``id_length`` letters and digits (Mistral), only such an id."""
        n = self.fmt.tools.id_length
        return bool(call_id) and (not n or (len(call_id) == n and all(c in _ID_CHARACTERS for c in call_id)))

    def unraw(self, k: int) -> str:
        """Take the last ``k`` characters back off the call's raw text."""
        tail = ""
        while len(tail) < k:
            tail = self.raw.pop() + tail
        cut = len(tail) - k
        if cut:
            self.raw.append(tail[:cut])
        return tail[cut:]

    # ------------------------------------------------------------------ the arguments stage

    def _arguments_text(self, buf: str, start: int, end: int) -> None:
        """Text the reader has read: all of it is the call's; the arguments' part (all of it,
        but for a call object only the arguments value) streams."""
        reader = self._reader
        text = reader.arguments_text(buf, start, end)
        if end > start:
            self.raw.append(buf[start:end])
        if text:
            self.args.append(text)
            if self._suspect is None and self._call_index is not None:
                self.d.out.append(ToolCallArgumentsDelta(self._call_index, text))
        if self._json_object and reader.name is not None and self.name is None and not self._start_at_close:
            self.start(reader.name)

    def arguments(self, buf: str, pos: int, credits: Credits | None) -> int:
        """The stage: the arguments, validated as they arrive, up to the next marker that counts."""
        d = self.d
        n = len(buf)
        if not self.args and type(self._reader) is JsonScanner:  # its leading space is no argument text
            j = SPACE_RUN.match(buf, pos).end()  # type: ignore[union-attr]
            if j > pos:
                self.raw.append(buf[pos:j])
            if j == n:
                return n
            pos = j
        p, m, limit = d.find(self.layout.in_call, buf, pos, credits)
        if m is None and d.final:
            # the output may end inside the call's end marker: the arguments may end before it
            limit = self.layout.in_call.hold_from(buf, pos, None)
        reader = self._reader
        if reader.takes_credits:  # a reader whose strings end at a marker token
            reader.credits = credits
        q = reader.feed(buf, pos, limit)
        if reader.failed:
            if self._suspect is not None:
                self._roll_back_suspect(f"arguments are not valid {reader.KIND}: {reader.error}", buf, pos)
                return n
            self._arguments_text(buf, pos, q)  # the valid prefix, as streaming would have sent it
            self.pending_error = f"arguments are not valid {reader.KIND}: {reader.error}"
            d.stage = self.layout.INVALID_CALL
            return q
        self._arguments_text(buf, pos, q)
        if reader.done:
            self._complete()
            return q
        if m is None:
            if d.final:
                if limit < n and reader.end(buf, q, limit):
                    # complete arguments, the output ended inside the call's end marker: the call
                    # stands, as it was announced (what follows reads the marker's beginning)
                    self.raw.append(buf[q:limit])
                    self._arguments_text(buf, limit, limit)
                    self._complete()
                    return limit
                # text a parameter tag might have begun: the call is cut off there
                self.raw.append(buf[q:n])
                return n
            return d.rest(buf, min(q, limit))
        if reader.end(buf, q, p):  # arguments that end where the call's end marker comes (GLM)
            self.raw.append(buf[q:p])
            self._arguments_text(buf, p, p)
            self._complete()
            return p
        # (text the reader left unread before the marker, as a delimiter's possible start: read
        # with the marker, or the call's text)
        if credits is None and reader.in_string:
            return self._suspect_marker(reader, buf, p, m, q)
        # The marker is real and the object is still open: the call is broken off.
        error = reader.unfinished() or "the call ended before its arguments' JSON object closed"
        if self._suspect is not None:
            # ... and so was it at the marker text met inside a string: end the call there.
            self._roll_back_suspect(error, buf, q)
            return n
        self.raw.append(buf[q:p])
        self.pending_error = error
        return self.layout.broken_off(m, p, credits)

    def _complete(self) -> None:
        """The arguments are complete: the call stands (unless its tool is unknown, or its
        arguments break the tool's schema)."""
        if self._suspect is not None:
            self._release_suspect()
        reader = self._reader
        if self._start_at_close and self.name is None and reader.name is not None:
            if reader.call_id is not None and self._is_model_id(reader.call_id):
                self.header_id.append(reader.call_id)
            self.start(reader.name)
        if self._call_index is not None and self._schemas is not None:
            self.pending_error = self._schemas.error(self.name or "", "".join(self.args))
        if self._call_index is not None and self.pending_error is None:
            self.valid += 1
            self.d.out.append(ToolCallEnd(self._call_index, self._call_id_value, self.name or "", "".join(self.args)))
        self.layout.arguments_done()

    # ------------------------------------------------------------------ marker text in a string

    def _suspect_marker(self, reader: Any, buf: str, p: int, marker: str, start: int | None = None) -> int:
        """Marker text inside a string is string content, unless the string turns out never to
        close properly: then the call is rolled back to here and the marker honoured. Text the
        reader left unread before it (``buf[start:p]``) is read with it."""
        start = p if start is None else start
        if start < p:
            self.raw.append(buf[start:p])
        past = self.d.past  # where the marker, as spelled, ends
        if self._suspect is None:
            self._suspect = marker
            self._suspect_spelled = past - p
            self._suspect_raw = len(self.raw)
            self._suspect_args = len(self.args)
        q = reader.feed(buf, start, past)
        self._arguments_text(buf, p, max(q, p))
        return max(q, p)

    def _release_suspect(self) -> None:
        held = "".join(self.args[self._suspect_args :])
        self._suspect = None
        if held and self._call_index is not None:
            self.d.out.append(ToolCallArgumentsDelta(self._call_index, held))

    def _roll_back_suspect(self, error: str, buf: str = "", pos: int = 0) -> None:
        """The call's JSON broke after marker text inside a string: the call ends at that marker
        (which was real after all), and everything from it on is read again."""
        marker = self._suspect
        tail = "".join(self.raw[self._suspect_raw :]) + buf[pos:]
        del self.raw[self._suspect_raw :]
        self._suspect = None
        if self.layout.ends_call(marker):
            spelled = self._suspect_spelled
            self.raw.append(tail[:spelled])
            tail = tail[spelled:]
        self.invalid(error)
        d = self.d
        if d.stage != self.layout.STOPPED:
            d.stage = self.layout.RESUME
            d.refeed = tail

    def settle(self) -> None:
        """The output is complete: marker text met in a string that never closed was real."""
        d = self.d
        while d.stage == self.layout.ARGUMENTS and self._suspect is not None:
            self._roll_back_suspect(self._reader.unfinished() or "a string in the arguments is never closed")
            buf, d.refeed = d.refeed or "", None
            d.run(buf, None)

    # ------------------------------------------------------------------ ending

    def close(self) -> None:
        """The call's text is over: it stood, or its pending error makes it invalid."""
        if self.pending_error is not None:
            self.invalid(self.pending_error)
            return
        self.ended += 1
        self.reset()

    def invalid(self, error: str, cut_off: bool = False) -> None:
        d = self.d
        text = "".join(self.raw)
        index, name = self._call_index, self.name
        policy = self._policy
        # Its text lands in one place: the message's invalid calls, or its content (never both).
        d.out.append(ToolCallInvalid(index, name, text, error, cut_off, reported=policy in ("report", "error")))
        self.ended += 1
        self.reset()
        if policy == "content":
            d.say_raw(text)
        elif policy == "drop":
            log.warning("dropped an invalid tool call (%s): %.200r", error, text)
        elif policy == "error" and not cut_off:  # cut off is no error: the output ran out
            d.error = {
                "type": "invalid_tool_call",
                "message": error,
                "tool_call_index": index,
                "tool_name": name,
            }
            d.stage = self.layout.STOPPED

    def cut_off(self) -> None:
        """The output ended inside the call."""
        reader = self._reader
        if self.d.stage == self.layout.ARGUMENTS and reader is not None and reader.ended_in_value():
            self.invalid(reader.unfinished() or "invalid tool call")  # it ended before the output did
            return
        self.d.cut_off = True
        self.invalid(self.pending_error or "the output ended inside a tool call", cut_off=True)

    def stopped(self, buf: str, pos: int, credits: Credits | None) -> int:
        """The stage of strict mode after an invalid call: the rest is ignored."""
        return len(buf)
