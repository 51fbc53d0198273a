"""Forced drafts for a batch of requests (issue 37): thinkgate's own decoding loop over the
model's KV cache, where each row drafts what its grammar decides and one forward pass of the
whole batch verifies every row's drafts.

transformers' assisted decoding drafts for one row at a time, and its verification crops the
cache to one length for the batch. Here each row keeps what it accepted: a pass feeds every row
its pending token and its drafts (rows with fewer drafts padded), and a drafted position the
row rejects, or a pad, stays in the cache as a hole its attention mask hides. Positions are
counted by the mask, so a row reads exactly the sequence it wrote, whatever the others did. The
holes are squeezed out of the cache when they grow to a fair share of it.

Verification is speculative decoding's rule for drafts that carry no probabilities, as in
``forced_drafting``: at every drafted position the masked model's token is picked (the argmax,
or a sample) and the row keeps its drafts up to the first that differs, plus the model's token
after them. Greedy output is plain greedy output, and a sample is drawn from the same masked
distribution, in fewer passes. The prompt's pass carries the first drafts too (a call forced
from the first token on).

The loop serves transformers models whose cache is a ``DynamicCache`` of full-attention layers
and whose forward takes position ids (:func:`serves`); elsewhere a batch generates as before.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Optional

import torch
import xgrammar as xgr
from transformers import LogitsProcessorList
from transformers.generation.logits_process import MinPLogitsWarper, TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper

from ..constraint.runtime.forced import ForcedDrafts
from .forced_drafting import MOST, propose

if TYPE_CHECKING:
    from .transformers import ToolCallLogitsProcessor

log = logging.getLogger("thinkgate.integrations")

# Processors that read nothing but each row's own scores: one call serves the whole batch at
# any position. Another (a repetition penalty reads the tokens, with state per row) sends the
# batch to transformers' own loop.
_ROW_WISE = (TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper, MinPLogitsWarper)


def serves(model: Any) -> bool:
    """Whether :func:`forced_batch_decoding` can run ``model``: a decoder whose forward takes
    position ids and whose cache (a ``DynamicCache`` made from its config) holds every layer's
    keys in full, so a hole can be masked and squeezed out."""
    try:
        import inspect

        from transformers import DynamicCache
        from transformers.cache_utils import DynamicLayer

        config = model.config
        if getattr(config, "is_encoder_decoder", False) or "position_ids" not in inspect.signature(model.forward).parameters:
            return False
        layers = getattr(DynamicCache(config=config), "layers", None)
        return bool(layers) and all(type(layer) is DynamicLayer for layer in layers)
    except Exception:  # an unusual model: generated as before
        return False


def forced_batch_decoding(processor: "ToolCallLogitsProcessor", tokenizer: Any, most: int = MOST) -> Callable[..., Any]:
    """A ``generate(custom_generate=...)`` decoding loop for a batch under ``processor``: each
    row's forced drafts verified by one pass of the batch; the prediction tokens counted in
    ``processor.accepted_prediction_tokens`` and ``rejected_prediction_tokens`` (and per row:
    ``processor.predictions(row)``)."""
    drafts = ForcedDrafts.for_tokenizer(tokenizer)

    def decode(model: Any, input_ids: torch.LongTensor, logits_processor: Any, stopping_criteria: Any, generation_config: Any, synced_gpus: bool = False, streamer: Any = None, **model_kwargs: Any) -> torch.LongTensor:
        others = [type(lp).__name__ for lp in logits_processor or () if lp is not processor and not isinstance(lp, _ROW_WISE)]
        why = (
            "a streamer" if streamer is not None else "synced GPUs" if synced_gpus else "return_dict_in_generate" if generation_config.return_dict_in_generate
            else f"logits processors that read the tokens ({', '.join(others)})" if others else None
        )
        if why is not None:  # transformers' own loop, without drafts: the same output
            log.warning("thinkgate: forced drafts for a batch are off for this generation (%s): generated as before", why)
            return model._sample(input_ids, logits_processor, stopping_criteria, generation_config, synced_gpus, streamer, **model_kwargs)
        return _Loop(model, processor, drafts, most, input_ids, logits_processor, generation_config, model_kwargs).run()

    return decode


class _Loop:
    """One batch's generation: each row's output tokens, the cache's mask and positions."""

    def __init__(self, model: Any, processor: "ToolCallLogitsProcessor", drafts: ForcedDrafts, most: int, input_ids: torch.Tensor, logits_processor: Any, generation_config: Any, model_kwargs: dict) -> None:
        self.model = model
        self.p = processor
        self.drafts = drafts
        self.most = most
        self.prompt = input_ids
        self.others = [lp for lp in (logits_processor or LogitsProcessorList()) if lp is not processor]
        self.kwargs = model_kwargs
        n, width = input_ids.shape
        self.n = n
        self.max_new = generation_config.max_length - width
        self.sample = bool(generation_config.do_sample)
        pad = generation_config._pad_token_tensor
        self.pad = int(pad.reshape(-1)[0]) if pad is not None else 0
        eos = generation_config._eos_token_tensor
        self.ends = set(processor.stop_ids) | (set(eos.reshape(-1).tolist()) if eos is not None else set())
        mask = model_kwargs.get("attention_mask")
        self.mask = mask.long() if mask is not None else torch.ones_like(input_ids)
        self.count = self.mask.sum(-1)  # each row's tokens in the cache (its next position)
        self.outputs: list[list[int]] = [[] for _ in range(n)]
        self.done = [self.max_new <= 0] * n
        self.bits = xgr.allocate_token_bitmask(1, processor.vocab_size)

    def run(self) -> torch.LongTensor:
        p, device = self.p, self.prompt.device
        p.start(self.prompt.cpu())
        p.defer_finish = True  # (drafts step the rows before the pass decides what they keep)
        feed, pending = self.prompt, self.mask  # what is fed before the drafts, and its mask
        self.mask = self.mask[:, :0]
        while not all(self.done):
            # what each row's grammar decides after its output (up to its last token before its
            # own limit, where only its end may follow)
            certain: dict[int, list[bool]] = {}
            proposed = {}
            for i in range(self.n):
                if not self.done[i]:
                    most = min(self.most, self.max_new - len(self.outputs[i]) - 1, int(p._limit[i]) - len(self.outputs[i]))
                    proposed[i] = propose(p, i, self.outputs[i], self.drafts, self.bits, max(most, 0), certain.setdefault(i, []))
            k = max(len(d) for d in proposed.values())
            ids = torch.full((self.n, k), self.pad, dtype=torch.long)
            drafted = torch.zeros((self.n, k), dtype=torch.long)
            for i, d in proposed.items():
                ids[i, : len(d)] = torch.tensor(d, dtype=torch.long)
                drafted[i, : len(d)] = 1
            feed = torch.cat([feed, ids.to(device)], dim=1)
            # the slots whose logits a pick reads: all but the drafts their mask allowed alone,
            # and the one after a row's drafts unless they ended it
            needed = sorted({j for i, d in proposed.items() for j in range(len(d) + 1) if j < len(d) and not certain[i][j] or j == len(d) and not (d and d[-1] in self.ends)})
            # (none needed: every row's drafts end it, each the one token its mask allows: no pass)
            logits = self._forward(feed, torch.cat([pending, drafted.to(device)], dim=1), k + 1, needed) if needed else {}
            kept = self._verify(logits, proposed, certain)
            ended = [i for i in proposed if self.done[i]]
            for i in ended:  # (a row whose end is kept is handed over now, the batch going on)
                p.follow_row(i, self.outputs[i])
            p.report_ended(ended)
            for i, c in kept.items():  # the drafts rejected, and the pads, are holes
                drafted[i, c:] = 0
            self.mask = torch.cat([self.mask, pending, drafted.to(device)], dim=1)
            self.count = self.mask.sum(-1)
            # each row's last token is fed first next round (a row that is done: a hole)
            feed = torch.tensor([[o[-1] if o else self.pad] for o in self.outputs], dtype=torch.long, device=device)
            pending = torch.tensor([[0 if d else 1] for d in self.done], dtype=torch.long, device=device)
            self._squeeze()
        return self._sequences()

    def _forward(self, feed: torch.Tensor, valid: torch.Tensor, keep: int, needed: list[int]) -> dict[int, torch.Tensor]:
        """One pass over the round's columns (``valid`` their mask) on the cache; the logits of
        the slots ``needed`` of the last ``keep`` columns (slot ``j``: the ``j``-th of them), the
        others' left uncomputed where the model takes the positions to keep (the vocabulary's
        projection is most of a small model's pass)."""
        model, kwargs = self.model, self.kwargs
        first = self.mask.shape[1] == 0
        mask = torch.cat([self.mask, valid], dim=1)
        if first:  # the prompts, left-padded, then the drafts
            positions = (mask.cumsum(-1) - 1).clamp(min=0)
        else:  # a row's positions count what its mask holds
            positions = self.count.unsqueeze(1) + torch.arange(valid.shape[1], device=mask.device).unsqueeze(0)
        kwargs["attention_mask"] = mask
        kwargs["position_ids"] = positions
        inputs = model.prepare_inputs_for_generation(feed, next_sequence_length=None if first else valid.shape[1], is_first_iteration=first, **kwargs)
        columns = feed.shape[1] if first else valid.shape[1]  # (the pass's own columns)
        chosen = "logits_to_keep" in inputs
        if chosen:
            inputs["logits_to_keep"] = torch.tensor([columns - keep + j for j in needed], dtype=torch.long, device=feed.device)
        out = model(**inputs, return_dict=True)
        name = "cache" if "cache" in kwargs or "past_key_values" not in kwargs else "past_key_values"
        if getattr(out, name, None) is not None:
            kwargs[name] = getattr(out, name)
        logits = out.logits if chosen else out.logits[:, [out.logits.shape[1] - keep + j for j in needed]]
        return {j: logits[:, c].to(dtype=torch.float32) for c, j in enumerate(needed)}

    def _verify(self, logits: dict[int, torch.Tensor], proposed: dict[int, list[int]], certain: dict[int, list[bool]]) -> dict[int, int]:
        """Each row's drafts kept (the masked model's picks, up to the first that differs) and
        its token after them, appended to its output; returns how many drafts each row kept. A
        draft its mask allowed alone is kept with no pick (its probability is one)."""
        p = self.p
        kept = {i: 0 for i in proposed}
        closed: dict[int, Optional[int]] = {}  # row -> its token after the drafts kept (None: they ended it)
        for j in range(max(len(d) for d in proposed.values()) + 1):
            rows = {}
            for i, d in proposed.items():
                if i in closed or j > len(d):
                    continue
                if j < len(d) and certain[i][j]:
                    kept[i] += 1
                    if d[j] in self.ends:
                        closed[i] = None
                    continue
                rows[i] = self.outputs[i] + d[:j]
            if not rows:
                if len(closed) == len(proposed):
                    break
                continue
            scores = p.mask_rows(rows, logits[j].clone())
            for lp in self.others:
                scores = lp(None, scores)
            order = sorted(rows)
            for i, t in zip(order, self._pick(scores, order, rows)):
                d = proposed[i]
                if j < len(d) and t == d[j]:
                    kept[i] += 1
                    if t in self.ends:  # a drafted end, kept: nothing follows it
                        closed[i] = None
                else:
                    closed[i] = t
        for i, d in proposed.items():
            out = self.outputs[i]
            out += d[: kept[i]]
            if closed.get(i) is not None:
                out.append(closed[i])
            p.count_predictions(i, kept[i], len(d) - kept[i])
            if len(out) >= self.max_new or any(t in self.ends for t in out[-(kept[i] + 1) :]):
                self.done[i] = True
        return kept

    def _pick(self, scores: torch.Tensor, order: list[int], rows: dict[int, list[int]]) -> list[int]:
        """The tokens of rows ``order`` (``rows``: their outputs so far), picked from ``scores``
        as plain generation picks them."""
        scores = scores[order]
        if self.sample:
            return torch.multinomial(torch.softmax(scores, dim=-1), num_samples=1).squeeze(1).tolist()
        return torch.argmax(scores, dim=-1).tolist()

    def _squeeze(self) -> None:
        """Take the holes out of the cache once they are a third of it or more: each row's kept
        columns, in order, moved to the right (left padding, as a fresh batch has)."""
        length = self.mask.shape[1]
        longest = int(self.count.max())
        if length - longest < max(32, length // 3):
            return
        order = torch.argsort(self.mask, dim=1, stable=True)[:, -longest:]  # (a stable sort: holes first, then the kept, in order)
        cache = self.kwargs.get("cache", self.kwargs.get("past_key_values"))
        for layer in cache.layers:
            layer.keys = _columns(layer.keys, order)
            layer.values = _columns(layer.values, order)
        self.mask = self.mask.gather(1, order)

    def _sequences(self) -> torch.LongTensor:
        """The prompts and each row's output, padded on the right to the longest."""
        width = max(len(o) for o in self.outputs)
        out = torch.full((self.n, width), self.pad, dtype=torch.long)
        for i, o in enumerate(self.outputs):
            out[i, : len(o)] = torch.tensor(o, dtype=torch.long)
        return torch.cat([self.prompt, out.to(self.prompt.device)], dim=1)


def _columns(states: torch.Tensor, order: torch.Tensor) -> torch.Tensor:
    """A cache layer's ``[batch, heads, length, dim]`` states at each row's columns ``order``."""
    b, h, _, d = states.shape
    return states.gather(2, order.to(states.device)[:, None, :, None].expand(b, h, order.shape[1], d))


__all__ = ["forced_batch_decoding", "serves"]
