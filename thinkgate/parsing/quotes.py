"""Whether text read so far leaves its next character quoted: inside a code fence (between runs
of three or more backticks) or inside inline code (between single or double backticks). Markup
that prose could write (a text marker) is prose there: a model explaining the markup quotes it.
Fed the text in order, in any pieces; each piece costs its length."""

from __future__ import annotations

_TICK = "`"
_FENCE = 3  # the shortest run of backticks that opens or closes a code fence


class Quotes:
    __slots__ = ("_fenced", "_inline", "_run")

    def __init__(self) -> None:
        self._fenced = False  # inside a code fence (the run of backticks now open aside)
        self._inline = False  # inside inline code
        self._run = 0  # backticks the text read so far ends with

    def read(self, text: str) -> None:
        n = len(text)
        i = text.find(_TICK)
        if i == -1:
            if n:
                self._close_run()
            return
        if i > 0:
            self._close_run()
        while i != -1:
            j = i
            while j < n and text[j] == _TICK:
                j += 1
            self._run += j - i
            if j == n:
                return  # the run may go on in the next piece
            self._close_run()
            i = text.find(_TICK, j)

    def _close_run(self) -> None:
        self._fenced, self._inline = self._after_run()
        self._run = 0

    def _after_run(self) -> tuple[bool, bool]:
        fenced, inline = self._fenced, self._inline
        if self._run >= _FENCE:
            return not fenced, False
        if self._run and not fenced:
            return fenced, not inline
        return fenced, inline

    @property
    def pending(self) -> bool:
        """Whether the text read so far ends with backticks (a run the next piece may go on)."""
        return self._run > 0

    @property
    def quoting(self) -> bool:
        """Whether the next character is quoted."""
        return any(self._after_run())
