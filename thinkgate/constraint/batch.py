"""Masking a batch of logits: bitmask rows only for requests that need one, applied on the
logits' device.

On CUDA (and other accelerators) rows are applied with xgrammar's kernels. On the CPU, a row
that masks most of the vocabulary — the usual case in a tool call's structure — is unpacked
with numpy and applied with one ``torch.where`` (measured here about 7x faster than xgrammar's
scalar CPU kernel on a 129k-token row); a row that allows nearly everything (inside a string)
goes to xgrammar's kernel, which skips all-ones words.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Optional

import numpy as np
import torch
import xgrammar as xgr

from .reasoner import ReasonerGrammar
from .vocabulary import bitmask_words

# Above this share of all-ones words, xgrammar's CPU kernel (which skips them) is faster.
_DENSE_WORDS = 0.9


class BatchMasker:
    """Applies the bitmasks of a batch of :class:`ReasonerGrammar` s to logits ``[B, V]``.

    ``V`` may exceed the tokenizer's vocabulary (padded model vocabularies): those ids are never
    allowed in a masked row. A step in which no request needs a mask touches no tensor.
    """

    def __init__(self, vocab_size: int, max_batch: int = 1):
        self.vocab_size = vocab_size
        self._bitmask = xgr.allocate_token_bitmask(max(max_batch, 1), vocab_size)
        self._neg: dict[tuple, torch.Tensor] = {}
        self.last_rows: list[int] = []  # rows masked by the last call (for tests and metrics)

    def _rows(self, batch: int) -> torch.Tensor:
        if self._bitmask.shape[0] < batch:
            self._bitmask = xgr.allocate_token_bitmask(batch, self.vocab_size)
        return self._bitmask

    def __call__(self, grammars: Sequence[Optional[ReasonerGrammar]], logits: torch.Tensor) -> torch.Tensor:
        """Mask ``logits`` in place (rows of ``None`` and of thinking requests are untouched)."""
        fill: list[int] = []
        eos_rows: list[int] = []
        eos_ids: set[int] = set()
        for i, g in enumerate(grammars):
            if g is None:
                continue
            if g.needs_bitmask:
                fill.append(i)
            elif g.blocks_eos:
                eos_rows.append(i)
                eos_ids.update(g.grammar.stop_ids)
        self.last_rows = fill
        if eos_rows:
            rows = torch.tensor(eos_rows, device=logits.device)
            cols = torch.tensor(sorted(eos_ids), device=logits.device)
            logits[rows.unsqueeze(1), cols] = float("-inf")
        if not fill:
            return logits
        bitmask = self._rows(len(grammars))
        applied = [i for i in fill if grammars[i].fill_bitmask(bitmask, i)]
        if applied:
            apply_bitmask(logits, bitmask, applied, self.vocab_size)
        return logits


def apply_bitmask(logits: torch.Tensor, bitmask: torch.Tensor, rows: list[int], vocab_size: int) -> None:
    """Set to -inf the logits of ``rows`` whose bit is 0 (and every id at or past ``vocab_size``)."""
    width = logits.shape[-1]
    n = min(width, vocab_size)
    if logits.device.type != "cpu":
        mask = bitmask.to(logits.device, non_blocking=True)
        xgr.apply_token_bitmask_inplace(logits, mask, vocab_size=n, indices=rows)
    else:
        neg = torch.tensor(float("-inf"), dtype=logits.dtype)
        for r in rows:
            words = bitmask[r].numpy()
            if np.count_nonzero(words == -1) >= _DENSE_WORDS * len(words):
                xgr.apply_token_bitmask_inplace(logits, bitmask, vocab_size=n, indices=[r])
            else:
                bits = np.unpackbits(words.view(np.uint8), bitorder="little")[:n]
                row = logits[r, :n]
                torch.where(torch.from_numpy(bits).view(torch.bool), row, neg, out=row)
    if width > vocab_size:
        logits[rows, vocab_size:] = float("-inf")


__all__ = ["BatchMasker", "apply_bitmask", "bitmask_words"]
