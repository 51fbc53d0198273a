"""Finding markers in streamed text without re-reading it.

Two rules decide what counts as a marker:

* **Text only** (no token ids fed): a marker is its text, wherever the parser's state admits it.
  Text at the end of a delta that could still grow into a marker is held back until the next
  delta decides (at most one marker's length).
* **With token ids**: a marker counts only when its special token is among the delta's ids. A
  special token decodes to its whole text inside one delta, so a marker spelled with ordinary
  tokens (or split across deltas) is literal text, and nothing needs holding back. This keeps the
  parser in step with the grammar, which watches token ids too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping


class Credits:
    """How many of each marker's special tokens the current delta carried.

    ``None`` in place of a ``Credits`` means text-only mode: every occurrence counts.
    """

    __slots__ = ("_left", "fresh_from")

    def __init__(self, counts: dict[str, int], fresh_from: int) -> None:
        self._left = counts
        # Text before this index was carried over from an earlier delta: no token of this delta
        # can have produced a marker that starts there.
        self.fresh_from = fresh_from

    def available(self, marker: str, at: int) -> bool:
        return at >= self.fresh_from and self._left.get(marker, 0) > 0

    def take(self, marker: str) -> None:
        self._left[marker] -= 1

    @staticmethod
    def from_ids(
        token_ids: Iterable[int], id_to_marker: Mapping[int, str], fresh_from: int
    ) -> Credits:
        counts: dict[str, int] = {}
        for t in token_ids:
            m = id_to_marker.get(t)
            if m is not None:
                counts[m] = counts.get(m, 0) + 1
        return Credits(counts, fresh_from)


class MarkerSet:
    """A fixed set of markers looked for together in one parser state."""

    __slots__ = ("markers", "_firsts", "_longest")

    def __init__(self, markers: Iterable[str]) -> None:
        self.markers = tuple(dict.fromkeys(m for m in markers if m))
        self._firsts = tuple(dict.fromkeys(m[0] for m in self.markers))
        self._longest = max((len(m) for m in self.markers), default=0)

    def find(self, text: str, pos: int, credits: Credits | None) -> tuple[int, str | None]:
        """The earliest marker in ``text[pos:]`` that counts: ``(index, marker)``, or
        ``(len(text), None)``. Occurrences that do not count are skipped as literal text. The
        caller takes the marker's credit when it consumes the marker."""
        best, found = len(text), None
        for m in self.markers:
            i = text.find(m, pos, best + len(m) - 1)
            while i != -1 and credits is not None and not credits.available(m, i):
                i = text.find(m, i + 1, best + len(m) - 1)
            if i != -1 and i < best:
                best, found = i, m
        return best, found

    def hold_from(self, text: str, pos: int, credits: Credits | None) -> int:
        """Where the tail that could still become a marker starts (``len(text)`` if none).

        With token ids nothing is held: a real marker never arrives split."""
        n = len(text)
        if credits is not None or n <= pos:
            return n
        start = max(pos, n - self._longest + 1)
        best = n
        for first in self._firsts:
            i = text.find(first, start)
            while i != -1 and i < best:
                tail = text[i:]
                if any(m.startswith(tail) for m in self.markers):
                    best = i
                    break
                i = text.find(first, i + 1)
        return best
