"""Finding markers in streamed text without re-reading it.

Two rules decide what counts as a marker:

* **Text only** (no token ids fed): a marker is its text, wherever the parser's state admits it.
  Text at the end of a delta that could still grow into a marker is held back until the next
  delta decides (at most one marker's length).
* **With token ids**: a token marker counts only when its special token is among the delta's
  ids. A special token decodes to its whole text inside one delta, so a marker spelled with
  ordinary tokens (or split across deltas) is literal text, and nothing needs holding back. This
  keeps the parser in step with the grammar, which watches token ids too. A text marker
  (:class:`~thinkgate.formats.Text`) counts as text in both modes, held back as in the first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Optional

from ..formats import is_text, spellings
from ..formats.base import MARKER_SPACE, Spelling


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
        if is_text(marker):
            return True
        return at >= self.fresh_from and self._left.get(marker, 0) > 0

    def take(self, marker: str) -> None:
        if not is_text(marker):
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
    """A fixed set of markers looked for together in one parser state.

    Each marker is read in every spelling :func:`~thinkgate.formats.spellings` gives it: a
    token marker exactly, a text marker as its words with any short whitespace between them
    (none included), its padding (the whitespace its text ends with) read with it where it
    stands, and whatever whitespace stands before it left to the stage reading there.
    :meth:`find` says where the spelling found ends."""

    __slots__ = ("markers", "_spellings", "_exact", "_loose", "_firsts", "_first", "_longest", "_texts", "_prefixes")

    def __init__(self, markers: Iterable[str]) -> None:
        self.markers = tuple(dict.fromkeys(m for m in markers if m))
        # (first word, pattern of the whole spelling or None for one word, spelling, marker)
        entries = []
        longest = 0
        for m in self.markers:
            for spelling in spellings(m):
                words = spelling.words
                pattern = re.compile(_GAP.join(map(re.escape, words))) if len(words) > 1 else None
                entries.append((words[0], pattern, spelling, m))
                longest = max(longest, sum(map(len, words)) + MARKER_SPACE * (len(words) - 1) + len(spelling.padding))
        self._spellings = tuple(entries)
        # found by str.find alone: a spelling of one word and no padding (every token marker)
        self._exact = tuple((e[0], e[3]) for e in entries if e[1] is None and not e[2].padding)
        self._loose = tuple(e for e in entries if e[1] is not None or e[2].padding)
        self._firsts = tuple(dict.fromkeys(e[0][0] for e in entries))
        # any marker's first character: text with none of them holds no marker, nor its start
        # (one search, where a delta of prose would take one per marker)
        self._first = re.compile("[" + "".join(map(_in_class, self._firsts)) + "]") if self._firsts else None
        self._longest = longest
        # markers whose first word begins a spelling of several words of another marker: found
        # whole, they wait while that longer one may still follow (see _longer_may_follow)
        starts = {e[0][0] for e in entries if len(e[0]) > 1}
        self._prefixes = frozenset(e[3] for e in entries if e[0][0] in starts and any(o[3] != e[3] and len(o[0]) > 1 and o[0][0] == e[0][0] for o in entries))
        # With token ids only text markers can arrive split across deltas: held back by these.
        texts = tuple(m for m in self.markers if is_text(m))
        self._texts = None if not texts else self if len(texts) == len(self.markers) else MarkerSet(texts)

    def find(self, text: str, pos: int, credits: Credits | None, final: bool = False) -> tuple[int, str | None, int]:
        """The earliest marker in ``text[pos:]`` that counts: ``(index, marker, end)``, ``end``
        where its spelling ends (its padding included, where it stands); or ``(len(text), None,
        len(text))``, also where the earliest is a marker whose padding may still follow at the
        end of ``text`` (unless the text is ``final``: :meth:`hold_from` holds it). Occurrences
        that do not count are skipped as literal text. The caller takes the marker's credit
        when it consumes the marker."""
        n = len(text)
        first_at = self._first.search(text, pos) if self._first is not None else None
        if first_at is None:
            return n, None, n
        pos = first_at.start()
        best = stop = n
        found = None
        for first, m in self._exact:
            i = text.find(first, pos, best + len(first) - 1)
            while i != -1 and credits is not None and not credits.available(m, i):
                i = text.find(first, i + 1, best + len(first) - 1)
            if i != -1:
                best, found, stop = i, m, i + len(first)
        for first, pattern, spelling, m in self._loose:
            end = -1
            if pattern is None:  # a text marker of one word and its padding
                i = text.find(first, pos, best + len(first) - 1)
                if i != -1:
                    end = i + len(first)
            else:  # a text marker of several words
                spelled = pattern.search(text, pos)
                # (where two markers start at one place, the longer is what was written)
                if spelled is not None and (spelled.start() < best or (spelled.start() == best and found is not None and spelled.end() > stop)):
                    i, end = spelled.start(), spelled.end()
            if end == -1:
                continue
            padding = spelling.padding
            if padding:
                if text.startswith(padding, end):
                    end += len(padding)
                elif not final and padding.startswith(text[end:]):
                    best, found, stop = i, None, n  # undecided: held until its padding shows
                    continue
            best, found, stop = i, m, end
        if found is None:
            return n, None, n
        if not final and found in self._prefixes and self._longer_may_follow(text, best, found):
            return n, None, n  # a longer marker beginning with this one may still be written here
        return best, found, stop

    def _longer_may_follow(self, text: str, i: int, found: str) -> bool:
        """Whether a spelling of another marker that begins with ``found``'s first word (GigaChat
        3's ``<|message_sep|>`` ending the answer, and the same token then ``function call…``
        opening a call) may still be what ``text[i:]`` is the beginning of."""
        return any(m != found and len(spelling.words) > 1 and _begins(spelling, text, i) for _, _, spelling, m in self._spellings)

    def hold_from(self, text: str, pos: int, credits: Credits | None) -> int:
        """Where the tail that could still become a marker starts (``len(text)`` if none), its
        padding included.

        With token ids only a text marker is held: a token marker never arrives split."""
        n = len(text)
        if credits is not None:
            return self._texts.hold_from(text, pos, None) if self._texts is not None else n
        if n <= pos:
            return n
        start = max(pos, n - self._longest + 1)
        best = n
        if self._first is None or self._first.search(text, start) is None:
            return n
        for first in self._firsts:
            i = text.find(first, start)
            while i != -1 and i < best:
                tail = text[i:]
                for word, pattern, spelling, _ in self._spellings:
                    if len(tail) <= len(word) or (pattern is None and not spelling.padding):
                        if word.startswith(tail):  # within the first word (all of a token marker)
                            break
                    elif tail.startswith(word) and _begins(spelling, text, i):
                        break
                else:
                    i = text.find(first, i + 1)
                    continue
                best = i
                break
        return best


_GAP = "\\s{0,%d}" % MARKER_SPACE


def _begins(spelling: Spelling, text: str, i: int) -> bool:
    """Whether ``text[i:]`` is the beginning of ``spelling``, up to its padding (and not the
    whole of it)."""
    n = len(text)
    words = spelling.words
    for k, word in enumerate(words):
        if k:
            j = i
            while j < n and j - i < MARKER_SPACE and text[j].isspace():
                j += 1
            if j == n:
                return True
            i = j
        got = text[i : i + len(word)]
        if not word.startswith(got):
            return False
        i += len(got)
        if i == n:
            return len(got) < len(word) or k < len(words) - 1 or bool(spelling.padding)
    padding = spelling.padding
    return bool(padding) and padding.startswith(text[i:]) and len(text) - i < len(padding)


def marker_pieces(text: str, token_ids: list[int], id_to_marker: Mapping[int, str], decode: Callable[[list[int]], str]) -> Optional[list[tuple[str, list[int]]]]:
    """A delta cut at its marker tokens, each marker token its own piece, where the delta's text
    spells a marker more often than its ids hold that marker's token (a marker written in ordinary
    tokens beside the real one: within one delta the counts cannot tell which is which). None where
    there is nothing to cut, or where ``text`` is not what ``decode`` makes of the ids."""
    marks = [(k, m) for k, t in enumerate(token_ids) if (m := id_to_marker.get(t)) is not None]
    if not marks:
        return None
    held: dict[str, int] = {}
    for _, m in marks:
        held[m] = held.get(m, 0) + 1
    if all(text.count(m) == n for m, n in held.items()):
        return None  # every occurrence is a token
    pieces: list[tuple[str, list[int]]] = []
    pos = prev = 0
    for k, m in marks:
        before = decode(token_ids[prev:k]) if k > prev else ""
        at = pos + len(before)
        if text[pos:at] != before or not text.startswith(m, at):
            return None
        if before:
            pieces.append((before, token_ids[prev:k]))
        pieces.append((m, [token_ids[k]]))
        pos, prev = at + len(m), k + 1
    if pos < len(text) or prev < len(token_ids):
        pieces.append((text[pos:], token_ids[prev:]))
    return pieces


def _in_class(c: str) -> str:
    """``c`` as a member of a regular expression's character class."""
    return "\\" + c if c in "\\]^-[" else c


def partial_suffix(buf: str, pos: int, end: int, tag: str) -> int:
    """How many characters at the end of ``buf[pos:end]`` are a proper prefix of ``tag`` (the
    longest such; only where ``tag``'s first character stands is one looked for)."""
    i = buf.find(tag[0], max(pos, end - len(tag) + 1), end)
    while i != -1:
        if tag.startswith(buf[i:end]):
            return end - i
        i = buf.find(tag[0], i + 1, end)
    return 0
