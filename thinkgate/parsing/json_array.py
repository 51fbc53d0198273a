"""The streaming state machine for the ``json_array`` layout (Mistral before tokenizer v11).

Output is read as::

    CONTENT SECTION_BEGIN "[" CALL_OBJECT ( "," CALL_OBJECT )* "]" CONTENT

``[TOOL_CALLS] [{"name": "get_weather", "arguments": {…}}, {"name": "now", "arguments": {}}]``:
the section marker, then one JSON array whose items are call objects, each read (and its
arguments streamed) as in the ``json_object`` layout. The brackets and commas of the array are
markup like the marker; whitespace around them is dropped. What does not fit — the marker not
followed by ``[``, text where an item or a comma should be — ends the array, and the text is
answer text. A broken item has no end of its own to stop at: it runs to the next marker (the end
of the output, or another ``[TOOL_CALLS]``), the items before it standing.
"""

from __future__ import annotations

from typing import Any

from ..formats import ChatFormat, Thinking
from .markers import Credits
from .tagged_json import Stage, TaggedJsonMachine
from .spaces import SPACE_RUN


# Where in the array the reader is: before "[", before the first item (or "]"), after an item
# (before "," or "]"), after a comma (before an item).
OPEN, FIRST, AFTER_ITEM, AFTER_COMMA = range(4)


class JsonArrayMachine(TaggedJsonMachine):
    """Events from the text of one output in the ``json_array`` layout (see the module)."""

    def __init__(self, fmt: ChatFormat, thinking: Thinking, *args: Any, **kwargs: Any) -> None:
        super().__init__(fmt, thinking, *args, **kwargs)
        tools = fmt.tools
        self._array_open, self._array_close = (b.strip() for b in tools.array)
        self._comma = tools.separator.strip()
        self._at = OPEN
        self._handlers[Stage.SECTION] = self._array

    def _array(self, buf: str, pos: int, credits: Credits | None) -> int:
        n = len(buf)
        j = SPACE_RUN.match(buf, pos).end()  # type: ignore[union-attr]
        if j == n:
            if not self._final and self._at == OPEN:
                self._carry = buf[pos:]  # the "[" may follow: the space is no text yet
            return n
        p, m = self._in_section.find(buf, j, credits)
        if m is not None and p == j:
            # A marker ends the array; the stage after it reads the marker (the section marker
            # written twice opens the array again).
            return self._leave(j)
        if m is None and not self._final and self._in_section.hold_from(buf, j, credits) == j:
            self._carry = buf[j:]
            return n
        at = self._at
        if at == OPEN:
            if buf.startswith(self._array_open, j):
                self._at = FIRST
                return j + len(self._array_open)
        elif buf[j] == "{" and at != AFTER_ITEM:
            self._reset_call()
            self._read_call_object()
            return j
        elif buf.startswith(self._array_close, j) and at != AFTER_COMMA:
            self._leave(j)
            return j + len(self._array_close)
        elif buf.startswith(self._comma, j) and at == AFTER_ITEM:
            self._at = AFTER_COMMA
            return j + len(self._comma)
        return self._leave(j)  # no array, or no item where one should be: answer text

    def _leave(self, at: int) -> int:
        self._at = OPEN
        self.stage = self._section_return
        return at

    def _arguments_done(self) -> None:
        # An item ends with its object: no footer, no end marker. (A broken item is read up to a
        # marker, and the marker ends the array.)
        self._close_call()
        if self.stage != Stage.STOPPED:
            self._at = AFTER_ITEM
            self.stage = Stage.SECTION
