"""Masking a batch of logits: bitmask rows only for requests that need one, applied on the
logits' device.

On CUDA (and other accelerators) rows are applied with xgrammar's kernels. On the CPU, a row
that masks most of the vocabulary — the usual case in a tool call's structure — is unpacked
with numpy and applied with one ``numpy.copyto`` (about 10x faster than xgrammar's scalar CPU
kernel on a 129k-token row, see ``benchmarks/step_overhead.py``); a row that allows most tokens
(inside a string) goes to xgrammar's kernel, which skips all-ones words.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, Optional

import numpy as np
import torch
import xgrammar as xgr

from .reasoner import ReasonerGrammar
from .vocabulary import bitmask_words

log = logging.getLogger("thinkgate.constraint")

# From this share of all-ones words on, xgrammar's CPU kernel (which skips them) is faster
# (measured on the masks of a real call: numpy 60-100 µs vs 520 µs on mostly-masked rows,
# xgrammar 20-50 µs vs 30-70 µs once a tenth of the words allow everything).
_DENSE_WORDS = 0.1
_NUMPY_DTYPES = (torch.float32, torch.float16, torch.float64)


class BatchMasker:
    """Applies the bitmasks of a batch of :class:`ReasonerGrammar` s to logits ``[B, V]``.

    ``V`` may exceed the tokenizer's vocabulary (padded model vocabularies): those ids are never
    allowed in a masked row. A step in which no request needs a mask touches no tensor. Rows in
    the tool phase's common state are filled by xgrammar in one call (its threads, without the
    GIL), the rest one by one.
    """

    def __init__(self, vocab_size: int, max_batch: int = 1, threads: int | str = "auto"):
        self.vocab_size = vocab_size
        self._bitmask = xgr.allocate_token_bitmask(max(max_batch, 1), vocab_size)
        self._batch = xgr.BatchGrammarMatcher(max_threads=threads)
        self._device: Optional[DeviceBitmask] = None
        self.last_rows: list[int] = []  # rows masked by the last call (for tests and metrics)

    def _rows(self, batch: int) -> torch.Tensor:
        if self._bitmask.shape[0] < batch:
            self._bitmask = xgr.allocate_token_bitmask(batch, self.vocab_size)
        return self._bitmask

    def __call__(self, grammars: Sequence[Optional[ReasonerGrammar]], logits: torch.Tensor) -> torch.Tensor:
        """Mask ``logits`` in place (rows of ``None`` and of thinking requests are untouched)."""
        single: list[int] = []
        plain: list[int] = []
        eos_rows: list[int] = []
        for i, g in enumerate(grammars):
            if g is not None:
                if g.needs_bitmask:
                    (plain if g.plain else single).append(i)
                elif g.blocks_eos:
                    eos_rows.append(i)
        return self.mask(grammars, logits, single, plain, eos_rows)

    def mask(
        self,
        grammars: Sequence[Optional[ReasonerGrammar]],
        logits: torch.Tensor,
        single: list[int],
        plain: list[int],
        eos_rows: Sequence[int] = (),
    ) -> torch.Tensor:
        """Mask the rows named: ``single`` filled one by one, ``plain`` (see
        :attr:`ReasonerGrammar.plain`) together, ``eos_rows`` with only the stop ids cleared."""
        if len(eos_rows):
            # one tokenizer per batch, so one set of stop ids
            clear_ids(logits, eos_rows, grammars[eos_rows[0]].grammar.stop_ids)
        rows = self.fill(grammars, single, plain, len(grammars))
        if rows:
            self.apply(logits, rows)
        return logits

    def fill(self, grammars: Sequence[Optional[ReasonerGrammar]], single: list[int], plain: list[int], batch: int) -> list[int]:
        """Fill the bitmask rows named (the CPU's part of a step, which may overlap the model's
        forward pass); returns the rows to apply."""
        if not single and not plain:
            self.last_rows = []
            return []
        self.last_rows = sorted(single + plain) if plain and single else list(plain or single)
        bitmask = self._rows(batch)
        if len(plain) == 1:
            single, plain = single + plain, []
        applied = [i for i in single if grammars[i].fill_bitmask(bitmask, i)]
        if plain:
            try:
                self._batch.batch_fill_next_token_bitmask([grammars[i].matcher for i in plain], bitmask, plain)
            except Exception:  # one by one, where a fault ends its own request alone
                log.exception("thinkgate: filling the batch's bitmask failed; the rows are filled one by one")
                applied += [i for i in plain if grammars[i].fill_bitmask(bitmask, i)]
            else:
                _finish_rows(grammars, bitmask.numpy(), plain)
                applied += plain  # a row the grammar leaves all open costs the apply a skim
        return applied

    def apply(self, logits: torch.Tensor, rows: list[int]) -> None:
        """Apply the filled rows of the bitmask to ``logits``, on the logits' device (its pinned
        buffers kept from step to step)."""
        if logits.device.type != "cpu" and (self._device is None or self._device.device != logits.device):
            self._device = DeviceBitmask(logits.device)
        apply_bitmask(logits, self._bitmask, rows, self.vocab_size, self._device)


def _finish_rows(grammars: Sequence[Any], words: np.ndarray, rows: list[int]) -> None:
    """The guards' part of rows xgrammar filled together: each row's own masks, then for all
    the rows at once the look for tokens of several quotes (few rows allow any) and for rows
    left with no token (none, but for a schema's dead end)."""
    touched: list[int] = []
    multi: dict[int, list[int]] = {}  # by mask cache (one per tokenizer: one in a batch)
    for i in rows:
        g = grammars[i]
        if g.finish_row(words[i]):
            touched.append(i)
            if g.multi_due:
                multi.setdefault(id(g.grammar.masks), []).append(i)
    for group in multi.values():
        for i, allowed in grammars[group[0]].grammar.masks.multi_allowed_rows(words, group):
            grammars[i].finish_multi(words[i], allowed)
    if touched:
        first, last = touched[0], touched[-1]
        block = words[first : last + 1] if last - first + 1 == len(touched) else words[touched]
        for r in np.flatnonzero(np.bitwise_or.reduce(block, axis=1) == 0).tolist():
            grammars[touched[r]].dead_end(words[touched[r]])


class DeviceBitmask:
    """The bitmask's way to an accelerator. Only the masked rows travel, packed, from pinned
    host memory without blocking the host (a pageable copy waits for the device); on the device
    they are scattered to their rows of a resident bitmask and applied by xgrammar's kernel. Two
    pinned buffers alternate, and a buffer is refilled only once the copy that read it has
    finished (an event per buffer), so the host never writes under a copy in flight.
    """

    def __init__(self, device: torch.device, pin: Optional[bool] = None):
        self.device = device
        self.pin = torch.cuda.is_available() if pin is None else pin
        self._host: list[Optional[torch.Tensor]] = [None, None]  # [rows, 1 + words]: row index, then its mask
        self._events: list[Any] = [None, None]
        self._dev: Optional[torch.Tensor] = None  # [rows, 1 + words] on the device
        self._mask: Optional[torch.Tensor] = None  # [batch, words] on the device
        self._turn = 0

    def _host_buffer(self, rows: int, words: int) -> torch.Tensor:
        k = self._turn
        event = self._events[k]
        if event is not None:
            event.synchronize()  # the copy that last read this buffer is done
            self._events[k] = None
        host = self._host[k]
        if host is None or host.shape[0] < rows or host.shape[1] != words + 1:
            host = self._host[k] = torch.empty((max(rows, 1), words + 1), dtype=torch.int32, pin_memory=self.pin)
        return host

    def apply(self, logits: torch.Tensor, bitmask: torch.Tensor, rows: list[int], vocab_size: int) -> None:
        n, words = len(rows), bitmask.shape[1]
        host = self._host_buffer(n, words)
        index = torch.tensor(rows, dtype=torch.long)
        host[:n, 0] = index
        host[:n, 1:].copy_(bitmask.index_select(0, index))
        if self._dev is None or self._dev.shape[0] < n or self._dev.shape[1] != words + 1:
            self._dev = torch.empty((max(n, 1), words + 1), dtype=torch.int32, device=self.device)
        packed = self._dev[:n]
        packed.copy_(host[:n], non_blocking=self.pin)
        if self.pin:
            event = torch.cuda.Event()
            event.record()
            self._events[self._turn] = event
        self._turn ^= 1
        batch = logits.shape[0]
        if self._mask is None or self._mask.shape[0] < batch or self._mask.shape[1] != words:
            self._mask = torch.empty((batch, words), dtype=torch.int32, device=self.device)
        at = packed[:, 0].long()
        self._mask.index_copy_(0, at, packed[:, 1:])
        width = logits.shape[-1]
        xgr.apply_token_bitmask_inplace(logits, self._mask[:batch], vocab_size=min(width, vocab_size), indices=at.int())
        if width > vocab_size:
            logits[at, vocab_size:] = float("-inf")


def apply_bitmask(logits: torch.Tensor, bitmask: torch.Tensor, rows: list[int], vocab_size: int, device: Optional[DeviceBitmask] = None) -> None:
    """Set to -inf the logits of ``rows`` whose bit is 0 (and every id at or past ``vocab_size``).
    Logits on an accelerator go through ``device`` (a new :class:`DeviceBitmask` if none)."""
    width = logits.shape[-1]
    n = min(width, vocab_size)
    if logits.device.type != "cpu":
        (device or DeviceBitmask(logits.device)).apply(logits, bitmask, rows, vocab_size)
        return
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
