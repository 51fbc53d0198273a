"""Following reasoning whose markers are text, token by token, for the reasoner.

No token ends such reasoning, so the grammar holds it (free text up to the close, see
``GrammarSpec.with_reasoning``) and the reasoner only needs to know where the output stands: still
able to open the reasoning, inside it (for the thinking budget), or past it. Past it, the run-time
guard reads the tokens; the reasoning's own tokens it never sees (they may hold tool markup as
text). The state is a value, kept per token for rollback.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

OPENING, THINKING, ANSWER = range(3)


@dataclass(frozen=True)
class TextMarkers:
    open: bytes
    close: bytes


@dataclass(frozen=True)
class TextReasoning:
    """Where the output stands (``OPENING``: it may still write the open marker; ``THINKING``;
    ``ANSWER``), with the bytes that may still be part of a marker, the tokens held from the
    guard while the open marker may be coming, the thinking tokens so far and the close tokens
    a spent budget has forced so far."""

    where: int
    seen: bytes = b""
    held: tuple[int, ...] = ()
    tokens: int = 0
    forced: int = 0

    def step(self, token_id: int, data: bytes, marks: TextMarkers) -> tuple[TextReasoning, tuple[int, ...], int]:
        """The state after a token of bytes ``data``, the tokens the guard reads now, and where
        in the first of them the answer starts (the bytes before are the reasoning's close)."""
        if self.where == ANSWER:
            return self, (token_id,), 0
        if self.where == OPENING:
            seen = self.seen + data
            if seen.startswith(marks.open):
                return TextReasoning(THINKING)._read(token_id, seen[len(marks.open) :], len(data), marks, count=False)
            if marks.open.startswith(seen):
                return replace(self, seen=seen, held=(*self.held, token_id)), (), 0
            return TextReasoning(ANSWER), (*self.held, token_id), 0
        return self._read(token_id, data, len(data), marks, count=True)

    def _read(self, token_id: int, data: bytes, size: int, marks: TextMarkers, count: bool) -> tuple[TextReasoning, tuple[int, ...], int]:
        text = self.seen + data
        end = text.find(marks.close)
        if end >= 0:
            # The token that closes the reasoning is the guard's first: what it holds past the
            # close (its last bytes, ``size`` in all) is the answer's start.
            # (a forced close goes on with what the budget forces after it: see forcing)
            return TextReasoning(ANSWER, forced=self.forced), (token_id,), size - (len(text) - end - len(marks.close))
        keep = len(marks.close) - 1
        return replace(self, seen=text[-keep:] if keep else b"", tokens=self.tokens + count), (), 0

    def forcing(self, budget: int | None, forced_tokens: int = 0) -> bool:
        """Whether the budget is spent inside the reasoning: the close is forced now; or the
        close was forced, and the rest of the ``forced_tokens`` it forces (the answer's open
        marker after it, Kimi-K3's) are still to come."""
        if self.where == ANSWER:
            return 0 < self.forced < forced_tokens
        return self.where == THINKING and budget is not None and self.tokens >= budget
