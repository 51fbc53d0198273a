"""The streaming state machine for the ``bare_json`` layout (Llama 3.x): calls with no markers.

Output is read as::

    [OPTIONAL_BEGIN] CALL_OBJECT ( SEPARATOR CALL_OBJECT )*      an answer that starts with "{"
    TEXT                                                          any other answer

With no marker to announce a call, what decides is the answer's first character past leading
whitespace (and past ``<|python_tag|>``, which the model may write first): ``{`` starts the calls,
anything else makes the whole answer text, so a ``{`` later in a sentence is never read as a
call. The calls themselves are read by the tagged machine's states (a call object streams its
arguments as in the ``json_object`` layout); only the entry and the text between calls differ.
"""

from __future__ import annotations


from ..formats import ChatFormat, Thinking
from .markers import Credits, MarkerSet
from .tagged_json import Stage, TaggedJsonMachine
from .spaces import SPACE_RUN



class BareJsonMachine(TaggedJsonMachine):
    """Events from the text of one output in the ``bare_json`` layout (see the module)."""

    def __init__(self, fmt: ChatFormat, thinking: Thinking, *args, calls_after_content: bool = True, **kwargs) -> None:
        # A call is only ever the start of the answer: after text, a "{" is text.
        super().__init__(fmt, thinking, *args, calls_after_content=False, **kwargs)
        tools = fmt.tools
        self._begin = tools.optional_begin
        self._separator = tools.separator.strip()
        self._ends = MarkerSet(self._stops)
        if not self._verbatim:
            self._in_content = self._in_content_only = self._ends
        self._in_call = self._ends
        self._between = MarkerSet((*self._stops, self._begin))
        self._calls_read = 0
        self._handlers[Stage.CONTENT] = self._answer_start
        self._handlers[Stage.SECTION] = self._between_calls

    def _answer_start(self, buf: str, pos: int, credits: Credits | None) -> int:
        """Before the answer's first character: is it a call?"""
        if self._content_seen or self._verbatim:
            return self._content(buf, pos, credits)
        j = SPACE_RUN.match(buf, pos).end()  # type: ignore[union-attr]
        if j == len(buf):
            if not self._final:
                self._carry = buf[pos:]
            return len(buf)
        if buf[j] == "{":
            self._section_return = Stage.CONTENT
            self.stage = Stage.SECTION
            return j
        begin = self._begin
        if begin and buf.startswith(begin, j) and (credits is None or credits.available(begin, j)):
            if credits is not None:
                credits.take(begin)
            self.stage = Stage.SECTION
            return j + len(begin)
        if begin and credits is None and not self._final and begin.startswith(buf[j:]):
            self._carry = buf[pos:]
            return len(buf)
        return self._content(buf, pos, credits)

    def _between_calls(self, buf: str, pos: int, credits: Credits | None) -> int:
        """Whitespace and separators between calls are markup; a ``{`` starts the next call; an
        end marker ends the output; anything else is text, and the rest of the answer with it."""
        n = len(buf)
        j = SPACE_RUN.match(buf, pos).end()  # type: ignore[union-attr]
        if j == n:
            return n
        c = buf[j]
        if c == "{":
            self._reset_call()
            self._read_call_object()
            return j
        if self._separator and self._calls_read and buf.startswith(self._separator, j):
            return j + len(self._separator)
        if self._separator and self._calls_read and credits is None and not self._final and self._separator.startswith(buf[j:]):
            self._carry = buf[j:]
            return n
        p, m = self._between.find(buf, j, credits)
        if m is not None and p == j:
            if credits is not None:
                credits.take(m)
            return j + len(m)
        if m is None and self._between.hold_from(buf, j, credits) == j and not self._final:
            self._carry = buf[j:]
            return n
        self._space = ""
        self.stage = Stage.CONTENT
        return self._content(buf, j, credits)

    def _close_call(self) -> None:
        self._calls_read += 1
        super()._close_call()

    def _invalid(self, error: str, cut_off: bool = False) -> None:
        self._calls_read += 1
        super()._invalid(error, cut_off)
