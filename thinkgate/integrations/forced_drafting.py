"""Forced drafts in transformers' generation (issue 37): what the grammar decides next, proposed
to transformers' assisted decoding and verified by the model's one forward pass over them.

At each round the drafts are, in turn, the token a row's mask allows alone and the text the
grammar fixes, gone on as the chat template writes JSON (``thinkgate.constraint.runtime.forced``),
each appended and the grammar stepped past it, up to ``most`` tokens. transformers verifies them as it verifies any candidates without
their own probabilities: it masks the model's logits at every drafted position (thinkgate's
processor, which follows the drafts and rolls back what is rejected), picks a token at each
(the argmax, or a sample) and keeps the drafts up to the first that differs, plus the model's
token after them. A draft of probability one is so accepted with the masked model's probability
of it: the output is what plain generation gives (token for token when greedy), in fewer passes.

transformers drafts for one row at a time: these run where a batch holds one request
(``generate_chat(..., batch_size=1)``, or a single request).
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Optional

import numpy as np
import torch
import xgrammar as xgr
from transformers.generation.candidate_generator import CandidateGenerator

from ..constraint.runtime.forced import ForcedDrafts, only_token

if TYPE_CHECKING:
    from .transformers import ToolCallLogitsProcessor

MOST = 16  # drafted tokens a round at most (a long key or footer in one pass)

log = logging.getLogger("thinkgate.integrations")


@functools.lru_cache(maxsize=1)
def supported() -> bool:
    """Whether this transformers runs a callable as ``generate``'s decoding loop
    (``custom_generate``, a callable since transformers 5) and has the assisted decoding it
    drives; where not, forced drafts are off (said once in the log): the output is the same."""
    from transformers.generation.utils import GenerationMixin

    return runs_decoding_loops(GenerationMixin)


def runs_decoding_loops(mixin: type) -> bool:
    """:func:`supported`, for ``mixin`` (transformers' ``GenerationMixin``)."""
    parameter = inspect.signature(mixin.generate).parameters.get("custom_generate")
    ok = parameter is not None and "Callable" in str(parameter.annotation) and hasattr(mixin, "_assisted_decoding") and hasattr(mixin, "_get_candidate_generator")
    if not ok:
        log.warning("thinkgate: this transformers takes no callable custom_generate: forced drafts are off (the output is the same, in more forward passes)")
    return ok


class ForcedCandidates(CandidateGenerator):
    """transformers' candidate generator proposing what the grammar of ``processor``'s one row
    decides next."""

    def __init__(self, processor: "ToolCallLogitsProcessor", drafts: ForcedDrafts, most: int = MOST) -> None:
        self._processor = processor
        self._drafts = drafts
        self._most = most
        self._bits: Optional[torch.Tensor] = None

    def get_candidates(self, input_ids: torch.LongTensor, **kwargs: Any) -> tuple[torch.LongTensor, None]:
        p = self._processor
        if p._steps is None or input_ids.shape[0] != 1:  # (before the first step: the prompt alone)
            return input_ids, None
        output = p._output(input_ids)
        p._follow(output)  # the row's grammar where the sequence is (rejected drafts undone)
        g = p.requests[0]
        if g is None:
            return input_ids, None
        if self._bits is None:
            self._bits = xgr.allocate_token_bitmask(1, p.vocab_size)
        words = self._bits.numpy()[0]
        token_bytes = g.grammar.vocab.token_bytes
        added: list[int] = []
        last = int(input_ids[0, -1])
        while len(added) < self._most and not g.is_terminated():
            self._bits.fill_(-1)
            g.fill_bitmask(self._bits, 0)
            t = only_token(words)
            after = token_bytes[last].decode("utf-8", "ignore") if last < len(token_bytes) else ""
            draft = (t,) if t is not None else self._drafts.draft(g, after=after)
            if not draft:
                break
            added.extend(draft[: self._most - len(added)])
            last = added[-1]
            p._follow(np.concatenate([output, np.array([added], dtype=output.dtype)], axis=1))
        if not added:
            return input_ids, None
        return torch.cat([input_ids, torch.tensor([added], dtype=input_ids.dtype, device=input_ids.device)], dim=1), None

    def update_candidate_strategy(self, input_ids: torch.LongTensor, scores: torch.Tensor, num_matches: int) -> None:
        return None


def forced_decoding(processor: "ToolCallLogitsProcessor", tokenizer: Any, most: int = MOST) -> Callable[..., Any]:
    """A ``generate(custom_generate=...)`` decoding loop: transformers' assisted decoding with
    :class:`ForcedCandidates` as its candidates."""
    candidates = ForcedCandidates(processor, ForcedDrafts.for_tokenizer(tokenizer), most)

    def decode(model: Any, input_ids: torch.LongTensor, logits_processor: Any, stopping_criteria: Any, generation_config: Any, synced_gpus: bool = False, streamer: Any = None, **model_kwargs: Any) -> Any:
        model._get_candidate_generator = lambda **_: candidates  # (an instance attribute, removed after)
        try:
            return model._assisted_decoding(input_ids, logits_processor, stopping_criteria, generation_config, synced_gpus, streamer, **model_kwargs)
        finally:
            del model._get_candidate_generator

    return decode
