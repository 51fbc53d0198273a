"""Masking a batch of logits: bitmask rows only for requests that need one, applied on the
logits' device.

On CUDA (and other accelerators) rows are applied with xgrammar's kernels. On the CPU, a row
that masks most of the vocabulary — the usual case in a tool call's structure — is unpacked
with numpy and applied with one ``numpy.copyto`` (about 10x faster than xgrammar's scalar CPU
kernel on a 129k-token row, see ``benchmarks/step_overhead.py``); a row that allows most tokens
(inside a string) goes to xgrammar's kernel, which skips all-ones words.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Optional

import numpy as np
import torch
import xgrammar as xgr

from .reasoner import ReasonerGrammar
from .vocabulary import bitmask_words

# From this share of all-ones words on, xgrammar's CPU kernel (which skips them) is faster
# (measured on the masks of a real call: numpy 60-100 µs vs 520 µs on mostly-masked rows,
# xgrammar 20-50 µs vs 30-70 µs once a tenth of the words allow everything).
_DENSE_WORDS = 0.1
_NUMPY_DTYPES = (torch.float32, torch.float16, torch.float64)


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
        for i, g in enumerate(grammars):
            if g is not None:
                if g.needs_bitmask:
                    fill.append(i)
                elif g.blocks_eos:
                    eos_rows.append(i)
        self.last_rows = fill
        if eos_rows:
            # one tokenizer per batch, so one set of stop ids
            clear_ids(logits, eos_rows, grammars[eos_rows[0]].grammar.stop_ids)
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
        # numpy, not torch: one thread, so no intra-op thread hand-off on a busy machine.
        array = _numpy(logits) if logits.dtype in _NUMPY_DTYPES else None
        for r in rows:
            words = bitmask[r].numpy()
            if array is None or np.count_nonzero(words == -1) >= _DENSE_WORDS * len(words):
                xgr.apply_token_bitmask_inplace(logits, bitmask, vocab_size=n, indices=[r])
            else:
                allowed = np.unpackbits(words.view(np.uint8), bitorder="little")[:n].view(bool)
                np.copyto(array[r, :n], -np.inf, where=~allowed)
    if width > vocab_size:
        logits[rows, vocab_size:] = float("-inf")


def _numpy(t: torch.Tensor) -> np.ndarray:
    try:
        return t.numpy()
    except RuntimeError:  # requires grad
        return t.detach().numpy()


def clear_ids(logits: torch.Tensor, rows: list[int], ids: Sequence[int]) -> None:
    """Set ``logits[row, id]`` to -inf for every row and id (a handful of scalars)."""
    if logits.device.type == "cpu" and logits.dtype in _NUMPY_DTYPES:
        array = _numpy(logits)
        if len(rows) > 4:
            array[np.asarray(rows)[:, None], np.asarray(ids)] = -np.inf
        else:
            for r in rows:
                for i in ids:
                    array[r, i] = -np.inf
    else:
        r = torch.tensor(rows, device=logits.device).unsqueeze(1)
        c = torch.tensor(list(ids), device=logits.device)
        logits[r, c] = float("-inf")


__all__ = ["BatchMasker", "apply_bitmask", "bitmask_words", "clear_ids"]
