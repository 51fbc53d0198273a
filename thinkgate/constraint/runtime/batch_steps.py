"""A fixed batch of requests stepped together, with the thinking rows looked at all at once.

While a request thinks, a step needs only to know whether its token was one of the few that
matter (``</think>``, the stop ids where the output may not end while thinking, the tool markup's
opening token) or reached its thinking budget. :class:`BatchSteps` answers that for every
thinking row with a handful of numpy operations over the batch's tokens — no Python loop over
the rows, no bitmask, no copy — and counts their tokens in an array, handed to each request
(:meth:`ReasonerGrammar.advance_free`) only when it leaves that state or when :meth:`sync` is
called. Only the rows outside it (a token that matters, the tool phase) are stepped one by one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Optional

import numpy as np
import torch

from .batch import BatchMasker, clear_ids
from .reasoner import ReasonerGrammar

_FAR = np.iinfo(np.int64).max // 2  # no budget: never reached


def id_table(ids: Iterable[int], vocab_size: int) -> np.ndarray:
    """Which token ids are among ``ids``, as a table over the vocabulary for ``table.take(tokens,
    mode="clip")``: an id past it reads its last entry, which is never set."""
    ids = sorted(ids)
    table = np.zeros(max(vocab_size, ids[-1] + 1 if ids else 0) + 1, dtype=bool)
    table[ids] = True
    return table


class BatchSteps:
    """The requests of one batch, row ``i`` held by ``grammars[i]`` (``None``: a row without a
    constraint) for the whole generation. Each step: :meth:`accept` the tokens sampled (one per
    row), :meth:`finish` the rows that ended, then :meth:`mask` the next logits. Read a request's
    state only after :meth:`sync` (its thinking tokens are counted here until then)."""

    def __init__(self, grammars: Sequence[Optional[ReasonerGrammar]], vocab_size: int, threads: int | str = "auto") -> None:
        self.grammars = list(grammars)
        n = len(self.grammars)
        self.masker = BatchMasker(vocab_size, n, threads)
        self._active = np.array([g is not None for g in self.grammars], dtype=bool)
        self._free = np.zeros(n, dtype=bool)
        self._busy = np.zeros(n, dtype=bool)  # active and not free: stepped one by one
        self._eos = np.zeros(n, dtype=bool)  # thinking rows whose stop ids are cleared
        self._lag = np.zeros(n, dtype=np.int64)  # thinking tokens counted here, not yet in the request
        self._to_stop = np.full(n, _FAR, dtype=np.int64)  # tokens until the thinking budget forces </think>
        self._budgets = False  # whether any row has had a budget to count down (see _to_stop)
        # The rows stepped one by one and how many rows think, kept as _update changes them: a
        # step reads them, and numpy's any() of a small array costs more than the step's own work.
        self._busy_rows = np.zeros(0, dtype=np.int64)
        self._busy_list: list[int] = []
        self._frees = 0
        self._eos_rows = 0
        self._stale = False
        watched = set()
        for g in self.grammars:
            if g is not None:
                watched |= set(getattr(g, "watch", ()))
        watched.discard(None)
        self._watched = id_table(watched, vocab_size)
        self._stop_ids = next((g.grammar.stop_ids for g in self.grammars if isinstance(g, ReasonerGrammar)), ())
        for i in range(n):
            self._update(i)

    def _update(self, i: int) -> None:
        """Read row ``i``'s state after it was stepped on its own."""
        g = self.grammars[i]
        free = g is not None and self._active[i] and g.free
        busy = self._active[i] and not free
        eos = free and g.blocks_eos
        if free != self._free[i] or busy != self._busy[i]:
            self._frees += int(free) - int(self._free[i])
            self._stale = True
        self._eos_rows += int(eos) - int(self._eos[i])
        self._free[i] = free
        self._busy[i] = busy
        self._eos[i] = eos
        if free:
            stop = g.budget_stop
            self._to_stop[i] = stop - g.position if stop >= 0 else _FAR
            self._budgets = self._budgets or stop >= 0

    def accept(self, tokens: Sequence[int] | np.ndarray | torch.Tensor) -> np.ndarray:
        """Feed each active row its token. Returns the rows stepped one by one (the only ones
        whose request may have ended or changed phase)."""
        if isinstance(tokens, torch.Tensor):
            tokens = tokens.cpu().numpy()
        tokens = np.asarray(tokens, dtype=np.int64)
        if not self._frees:  # no row thinks (the tool phase): every active row is stepped
            slow = self._rows()[0]
            self._step(slow, tokens)
            return slow
        free = self._free
        hit = self._watched.take(tokens, mode="clip")
        if self._budgets:  # (no row has a thinking budget: nothing to count down)
            np.subtract(self._to_stop, free, out=self._to_stop)
            hit |= self._to_stop == 0
        hit &= free
        np.add(self._lag, free, out=self._lag)
        np.subtract(self._lag, hit, out=self._lag)  # a row that leaves counts its token itself
        slow = (self._busy | hit).nonzero()[0]
        if len(slow):
            self._step(slow, tokens)
        return slow

    def accept_row(self, row: int, token: int) -> bool:
        """Feed row ``row`` alone its token (the rows of a batch whose rows stand at different
        lengths, as in thinkgate's own decoding loop). Returns whether it was stepped one by
        one (only then may its request have ended or changed phase)."""
        if not self._active[row]:
            return False
        if self._free[row]:
            hit = bool(self._watched[min(token, len(self._watched) - 1)])
            if self._budgets:
                self._to_stop[row] -= 1
                hit = hit or self._to_stop[row] == 0
            if not hit:
                self._lag[row] += 1
                return False
        self._step_one(row, token)
        return True

    def _step(self, slow: np.ndarray, tokens: np.ndarray) -> None:
        """Feed the rows ``slow`` their tokens one by one."""
        ids = tokens.tolist()
        for i in slow.tolist():
            self._step_one(i, ids[i])

    def _step_one(self, i: int, token: int) -> None:
        g = self.grammars[i]
        if g.plain:  # the tool phase's common state: its short path, the flags kept unless it ends
            g.accept_token(token)
            if not g.plain:
                self._update(i)
            return
        if self._lag[i]:
            g.advance_free(int(self._lag[i]))
            self._lag[i] = 0
        g.accept_token(token)
        self._update(i)

    def _rows(self) -> tuple[np.ndarray, list[int]]:
        """The rows stepped one by one, as an array and a list, read again where rows changed."""
        if self._stale:
            self._busy_rows = self._busy.nonzero()[0]
            self._busy_list = self._busy_rows.tolist()
            self._stale = False
        return self._busy_rows, self._busy_list

    def finish(self, row: int) -> None:
        """Row ``row`` ended: it is neither stepped nor masked any more."""
        self._sync(row)
        self._active[row] = False
        self._update(row)

    def position(self, row: int) -> int:
        """The tokens row ``row``'s request has read, those counted here included."""
        return self.grammars[row].position + int(self._lag[row])

    def rollback(self, row: int, k: int, reopen: bool = False) -> None:
        """Undo row ``row``'s last ``k`` tokens (drafts that were rejected); ``reopen``: the row
        had ended on one of them, and is stepped and masked again."""
        if not reopen and self._free[row] and self._lag[row] >= k:
            # thinking tokens counted here, none that mattered: uncounting them is all
            self._lag[row] -= k
            if self._budgets:
                self._to_stop[row] += k
            return
        self._sync(row)
        if k:
            self.grammars[row].rollback(k)
        if reopen:
            self._active[row] = True
        self._update(row)

    def mask(self, logits: torch.Tensor, only: Optional[set[int]] = None) -> torch.Tensor:
        """Mask the next token's logits in place: the thinking rows' stop ids where they may not
        end yet (one vectorised write), every other active row by its grammar. ``only``: fill
        just these rows' masks (the others' logits are not read)."""
        rows = self.fill(logits, only)
        if rows:
            self.masker.apply(logits, rows)
        return logits

    def fill(self, logits: torch.Tensor, only: Optional[set[int]] = None) -> list[int]:
        """:meth:`mask` but the bitmask's apply: returns the rows filled, for
        ``self.masker.apply(logits, rows)``."""
        grammars = self.grammars
        single: list[int] = []
        plain: list[int] = []
        for i in self._rows()[1]:
            if only is not None and i not in only:
                continue
            g = grammars[i]
            if g.needs_bitmask:  # (a row whose stop ids alone are cleared is a thinking row: _eos)
                (plain if g.plain else single).append(i)
        if self._eos_rows:
            clear_ids(logits, self._eos.nonzero()[0], self._stop_ids)
        return self.masker.fill(grammars, single, plain, len(grammars))

    def _sync(self, i: int) -> None:
        if self._lag[i]:
            self.grammars[i].advance_free(int(self._lag[i]))
            self._lag[i] = 0

    def sync(self) -> None:
        """Hand every row's counted thinking tokens to its request."""
        for i in np.flatnonzero(self._lag):
            self._sync(int(i))


__all__ = ["BatchSteps"]
