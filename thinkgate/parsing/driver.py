"""What drives every layout's stages: feeding deltas through them, and emitting reasoning and
answer text.

A layout (``marked_calls.py``, ``json_calls.py``, ``channel_messages.py``) is a table of stage
handlers. Each takes the buffer and a position and returns the position it reached, never looking
behind it. The driver runs the handler of the current stage until the buffer is read, carries
over the text that could still become a marker to the next delta, and reads again the tail of a
call the call tracker (``calls.py``) rolled back. It knows nothing of calls or layouts beyond
the three hooks it calls when the output ends.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..formats import ChatFormat
from .events import ContentDelta, Event, Finished, ReasoningDelta, ReasoningEnd, ReasoningStart
from .markers import Credits, MarkerSet

if TYPE_CHECKING:
    from .calls import CallTracker

Handler = Callable[[str, int, "Credits | None"], int]


class Driver:
    """Runs one output through a layout's stages; holds what every stage shares.

    ``verbatim`` (the parser's ``reasoning_only``): reasoning is split from the rest and the rest
    is handed over as written, for an engine that gives the answer to a separate tool parser.
    """

    def __init__(self, fmt: ChatFormat, id_to_marker: Mapping[int, str] | None, *, verbatim: bool) -> None:
        self.fmt = fmt
        self.verbatim = verbatim
        self._id_to_marker = id_to_marker
        self.handlers: dict[Any, Handler] = {}
        self.stage: Any = None
        self.layout: Any = None  # the layout's stages: finish_stage() says what an ending means
        self.calls: CallTracker | None = None
        self.carry = ""  # unread text: a possible marker's beginning
        self.final = False
        self.refeed: str | None = None  # a rolled-back call's tail, to read again
        self.out: list[Event] = []
        self.reasoning_open = False
        self.reasoning_gap = False  # harmony: the next reasoning is another analysis message
        self.reasoning_closed = False  # the reasoning's close was written (or the prompt's was)
        self.space = ""  # answer whitespace at a stretch's start, dropped if only it stands there
        self.stretch_text = False  # the current stretch of answer text holds more than whitespace
        self.content_seen = False
        self.cut_off = False
        self.error: dict | None = None
        self.past = 0  # where the marker found last ends, as it was spelled (see :meth:`spelled`)
        self._finished = False

    def start(self, layout: Any, first_stage: Any) -> None:
        self.layout = layout
        self.handlers = layout.stages()
        self.stage = first_stage

    # ------------------------------------------------------------------ driving

    def feed(self, text: str, token_ids: list[int] | None = None) -> list[Event]:
        if self._finished:
            raise RuntimeError("feed() after finish()")
        self.out = []
        buf = self.carry + text
        credits = None
        if token_ids is not None:
            if self._id_to_marker is None:
                raise ValueError(
                    "token_ids were fed but the parser has no tokenizer to read marker ids from; "
                    "pass tokenizer= to StreamParser"
                )
            credits = Credits.from_ids(token_ids, self._id_to_marker, len(self.carry))
        self.carry = ""
        self.run(buf, credits)
        return self.out

    def finish(self, finish_reason: str | None = None) -> list[Event]:
        if self._finished:
            raise RuntimeError("finish() called twice")
        self.out = []
        self.final = True
        buf, self.carry = self.carry, ""
        if buf in self.fmt.text_tokens:
            buf = ""  # a marker's own token the output ended in, held as a marker's start: markup, no text
        self.run(buf, None)
        if self.calls is not None:
            self.calls.settle()
        self.layout.finish_stage()
        self.end_reasoning()
        self._finished = True
        self.out.append(Finished(self._finish_reason(finish_reason), self.error))
        return self.out

    def run(self, buf: str, credits: Credits | None) -> None:
        pos = 0
        handlers = self.handlers
        while True:
            n = len(buf)
            while pos < n:
                pos = handlers[self.stage](buf, pos, credits)
            if self.refeed is None:
                return
            # A suspected call was rolled back: read its tail again from the marker on.
            buf, self.refeed, pos, credits = self.refeed, None, 0, None

    def _finish_reason(self, given: str | None) -> str:
        if self.error is not None:
            return "error"
        if given == "length" or (given is None and self.cut_off):
            return "length"
        if self.calls is not None and self.calls.valid and given in (None, "stop", "tool_calls"):
            return "tool_calls"
        if given == "tool_calls":  # the engine saw tool markup, but no valid call remains
            return "stop"
        return given or "stop"

    def hold(self, markers: MarkerSet, buf: str, pos: int, credits: Credits | None) -> int:
        """Where the text that could still become one of ``markers`` starts (nothing is held
        once the output is complete)."""
        return len(buf) if self.final else markers.hold_from(buf, pos, credits)

    def find(self, markers: MarkerSet, buf: str, pos: int, credits: Credits | None) -> tuple[int, str | None, int]:
        """The next marker that counts and where the text before it ends: ``(index, marker,
        end of text)``; with no marker, ``(len(buf), None, h)`` where ``buf[h:]`` could still
        become a marker (the handler carries it over with :meth:`rest`)."""
        p, m, self.past = markers.find(buf, pos, credits, self.final)
        if m is not None:
            return p, m, p
        return len(buf), None, self.hold(markers, buf, pos, credits)

    def emit_until(self, markers: MarkerSet, buf: str, pos: int, credits: Credits | None, emit: Callable[[str], None]) -> tuple[int, str | None]:
        """Emit the text up to the next marker that counts: ``(index, marker)``. With no marker,
        ``(len(buf), None)``, and the text that could still become one is carried over."""
        p, m, end = self.find(markers, buf, pos, credits)
        emit(buf[pos:end])
        if m is None:
            self.carry = buf[end:]
        return p, m

    def spelled(self, buf: str, at: int) -> str:
        """The marker found last, at ``at``, as the model spelled it (a text marker is read in
        more spellings than its own: see :func:`~thinkgate.formats.spellings`)."""
        return buf[at : self.past]

    def rest(self, buf: str, h: int) -> int:
        """Carry ``buf[h:]`` over to the next delta; the buffer is read."""
        self.carry = buf[h:]
        return len(buf)

    def take(self, credits: Credits | None, marker: str) -> None:
        """A marker is read as markup: its token's credit is used, and a stretch of answer text
        ends there."""
        if credits is not None:
            credits.take(marker)
        self.mark()

    # ------------------------------------------------------------------ emitting

    def reason(self, text: str) -> None:
        if text:
            if self.reasoning_gap:
                self.reasoning_gap = False
                text = "\n" + text
            if not self.reasoning_open:
                self.reasoning_open = True
                self.out.append(ReasoningStart())
            self.out.append(ReasoningDelta(text))

    def end_reasoning(self) -> None:
        self.reasoning_gap = False
        if self.reasoning_open:
            self.reasoning_open = False
            self.out.append(ReasoningEnd())

    def say(self, text: str) -> None:
        """Answer text, as written. A stretch of it between two pieces of markup (the close of
        the reasoning, a tool block, a call, the end) that is only whitespace is framing, and
        dropped; one that holds anything else comes out whole, its whitespace included."""
        if not text:
            return
        if self.verbatim or self.stretch_text:
            self.out.append(ContentDelta(text))
            return
        if text.isspace():
            self.space += text  # framing, unless more than whitespace follows before markup
            return
        self.stretch_text = self.content_seen = True
        self.out.append(ContentDelta(self.space + text))
        self.space = ""

    def mark(self) -> None:
        """Markup stands here: the stretch of answer text before it is over."""
        self.space = ""
        self.stretch_text = False

    def say_raw(self, text: str) -> None:
        """Text that is answer text exactly as written (an invalid call's), markup and all."""
        if text:
            self.content_seen = True
            self.mark()
            self.out.append(ContentDelta(text))
