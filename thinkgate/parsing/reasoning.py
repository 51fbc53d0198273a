"""The stages before the answer, for a format that reasons between two markers (``<think>`` and
``</think>``, ``[THINK]`` and ``[/THINK]``): whether the model opens its reasoning, and the
reasoning itself up to its close. Shared by the layouts of marked calls and of JSON calls; the
channel-messages layout says by each message's header what is reasoning instead.
"""

from __future__ import annotations

from collections.abc import Callable

from ..formats import ChatFormat, Thinking, is_text
from .driver import Driver
from .markers import Credits, MarkerSet
from .quotes import Quotes
from .spaces import SPACE_RUN
from .stages import Stage

# Leading whitespace is held while the parser waits to see whether the model opens <think>;
# past this much, it is not going to.
_MAX_START_SPACE = 64


class ReasoningStages:
    """``Stage.START`` and ``Stage.REASONING``; the answer starts in ``Stage.CONTENT``.

    ``recovered``: the tool marker that, met inside the reasoning, ends it and opens the calls
    (the format's ``reasoning_trigger``, unless the parser's ``recover_calls_in_reasoning`` is
    off); ``enter_calls(buf, marker, at, credits, back_to)`` is the layout's entry into its calls,
    returning where reading goes on.
    """

    def __init__(
        self,
        driver: Driver,
        fmt: ChatFormat,
        thinking: Thinking,
        *,
        recovered: tuple[str, ...] = (),
        enter_calls: Callable[[str, str, int, Credits | None, Stage], int] | None = None,
    ) -> None:
        self.d = driver
        self._thinking = thinking
        driver.reasoning_closed = thinking is False  # (the prompt closed it)
        self._open = fmt.reasoning.open
        self._close = fmt.reasoning.close
        self._stops = (fmt.eos, *fmt.stops)
        # the open marker too: written again at the reasoning's start (<think><think>) it is markup
        self._markers = MarkerSet((self._close, *self._stops, *recovered, self._open))
        self._open_spelled = MarkerSet((self._open,)) if is_text(self._open) else None
        self._enter_calls = enter_calls
        # markup text that opens calls here is prose where the reasoning quotes it
        self._text_exits = tuple(m for m in recovered if is_text(m))
        self._quotes = Quotes() if self._text_exits else None
        self._emit = self._reason if self._quotes is None else self._read_quoted
        self._fresh = True  # nothing but whitespace reasoned yet
        # the channel's name the model writes first (Gemma 4's "thought\n"): held while the
        # reasoning's start may still be it, then dropped where it is
        self._label = fmt.reasoning.label
        self._head = "" if self._label else None
        self._space = ""  # that whitespace, held until a word (then reasoning) or the open marker

    def reopen(self) -> None:
        """The model opens its reasoning again (after answer text): a new stretch of it, which
        may start with the label as the first did."""
        self._fresh = True
        self._head = "" if self._label else None
        self._space = ""
        self.d.stage = Stage.REASONING

    @property
    def first_stage(self) -> Stage:
        return Stage.CONTENT if self._thinking is False else Stage.START

    def start(self, buf: str, pos: int, credits: Credits | None) -> int:
        """Before the first character: is the model opening its reasoning?"""
        d = self.d
        n = len(buf)
        j = SPACE_RUN.match(buf, pos).end()  # type: ignore[union-attr]
        target = Stage.REASONING if self._thinking is True else Stage.CONTENT
        if j - pos > _MAX_START_SPACE:
            d.stage = target
            return pos
        if j == n and not d.final:
            d.carry = buf[pos:]
            return n
        if self._open_spelled is not None:
            # a text marker in any of its spellings (other whitespace, ``read_also``)
            at, m, past = self._open_spelled.find(buf, j, None, d.final)
            if m is not None and at == j:
                d.stage = Stage.REASONING
                return past
            if not d.final and self._open_spelled.hold_from(buf, j, None) == j:
                d.carry = buf[pos:]
                return n
            d.stage = target
            return pos
        if buf.startswith(self._open, j) and (credits is None or credits.available(self._open, j)):
            d.take(credits, self._open)
            d.stage = Stage.REASONING
            return j + len(self._open)
        # (a text marker may arrive in pieces with token ids too)
        if (credits is None or is_text(self._open)) and not d.final and self._open.startswith(buf[j:]):
            d.carry = buf[pos:]
            return n
        d.stage = target
        return pos

    def _read_quoted(self, text: str) -> None:
        self._quotes.feed(text)  # type: ignore[union-attr]
        self._reason(text)

    def _reason(self, text: str) -> None:
        if self._head is not None:
            head = self._head + text
            if len(head) < len(self._label) and self._label.startswith(head):
                self._head = head
                return
            self._head = None
            text = head[len(self._label) :] if head.startswith(self._label) else head
            if not text:
                return
        if self._fresh:
            if not text or text.isspace():
                self._space += text
                return
            self._fresh = False
            text, self._space = self._space + text, ""
        self.d.reason(text)

    def flush(self) -> None:
        """The reasoning is over (or the output): whitespace held at its start is reasoning
        (and so is a start that was still the label's)."""
        if self._head and not self._head.startswith(self._label.rstrip()):
            head, self._head = self._head, None
            self._reason(head)
        # (a label with none of its whitespace, the reasoning closed right after it: framing)
        self._head = None
        if self._space:
            self.d.reason(self._space)
            self._space = ""

    def reasoning(self, buf: str, pos: int, credits: Credits | None) -> int:
        d = self.d
        p, m = d.emit_until(self._markers, buf, pos, credits, self._emit)
        if m is None:
            return p
        if m in self._text_exits and self._quotes.quoting:  # type: ignore[union-attr]
            self._emit(d.spelled(buf, p))
            return d.past
        if m == self._open:
            d.take(credits, m)
            if self._fresh:  # the open marker repeated: markup, the whitespace before it too
                self._space = ""
            else:  # the marker's text in the middle of the reasoning is reasoning
                d.reason(d.spelled(buf, p))
            return d.past
        self.flush()
        if m in self._stops:
            d.take(credits, m)
            return d.past
        d.end_reasoning()
        if m == self._close:
            d.take(credits, m)
            d.reasoning_closed = True
            d.stage = Stage.CONTENT
            return d.past
        # the tool markup's token written while thinking: the reasoning is over, the calls begin
        # (as the grammar switches to the calls at that token); after them comes the answer
        if d.verbatim:  # reasoning_only: the markup, as all the answer, is handed over as written
            d.stage = Stage.CONTENT
            return p
        # (calls opened by text go on inside the thinking: it resumes after them until its close)
        back_to = Stage.REASONING if m in self._text_exits else Stage.CONTENT
        return self._enter_calls(buf, m, p, credits, back_to)  # type: ignore[misc]
