"""Whether text read so far leaves its next character quoted: inside a code fence (between runs
of three or more backticks, or of three or more tildes) or inside inline code (between single or
double backticks). Markup that prose could write (a text marker) is prose there: a model
explaining the markup quotes it. Fed the text in order, in any pieces; each piece costs its
length."""

from __future__ import annotations

import re

_FENCE = 3  # the shortest run of backticks or tildes that opens or closes a code fence
_MARKS = re.compile(r"[`~]")


class Quotes:
    __slots__ = ("_fence", "_inline", "_run", "_char")

    def __init__(self) -> None:
        self._fence = ""  # the character of the code fence open (a run of it closes it), or ""
        self._inline = False  # inside inline code
        self._run = 0  # how many of _char the text read so far ends with
        self._char = ""

    def feed(self, text: str) -> None:
        """Read ``text`` where it can change anything (text with no backtick or tilde after
        none changes nothing)."""
        if self._run or "`" in text or "~" in text:
            self.read(text)

    def read(self, text: str) -> None:
        n = len(text)
        m = _MARKS.search(text)
        if m is None:
            if n:
                self._close_run()
            return
        i = m.start()
        while True:
            c = text[i]
            if i > 0 or c != self._char:
                self._close_run()
            j = i
            while j < n and text[j] == c:
                j += 1
            self._char = c
            self._run += j - i
            if j == n:
                return  # the run may go on in the next piece
            self._close_run()
            m = _MARKS.search(text, j)
            if m is None:
                return
            i = m.start()

    def _close_run(self) -> None:
        self._fence, self._inline = self._after_run()
        self._run = 0
        self._char = ""

    def _after_run(self) -> tuple[str, bool]:
        fence, inline, run, c = self._fence, self._inline, self._run, self._char
        if not run:
            return fence, inline
        if fence:  # (only a run of the fence's own character, long enough, closes it)
            return ("" if c == fence and run >= _FENCE else fence), False
        if run >= _FENCE and (c == "`" or not inline):  # (tildes in inline code are its text)
            return c, False
        if c == "`":
            return fence, not inline
        return fence, inline

    @property
    def pending(self) -> bool:
        """Whether the text read so far ends with backticks or tildes (a run the next piece
        may go on)."""
        return self._run > 0

    @property
    def quoting(self) -> bool:
        """Whether the next character is quoted."""
        fence, inline = self._after_run()
        return bool(fence) or inline
