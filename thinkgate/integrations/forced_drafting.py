"""Forced drafts in transformers' generation (issue 37): what the grammar decides next, proposed
to transformers' assisted decoding and verified by the model's one forward pass over them.

At each round the drafts are, in turn, the token a row's mask allows alone and the text the
grammar fixes, gone on as the chat template writes JSON (``thinkgate.constraint.runtime.forced``),
each appended and the grammar stepped past it, up to ``most`` tokens. transformers verifies them
as it verifies any candidates without their own probabilities: it masks the model's logits at every drafted position (thinkgate's
processor, which follows the drafts and rolls back what is rejected), picks a token at each
(the argmax, or a sample) and keeps the drafts up to the first that differs, plus the model's
token after them. A draft of probability one is so accepted with the masked model's probability
of it: the output is what plain generation gives (token for token when greedy), in fewer passes.

transformers drafts for one row at a time: this loop runs for a request alone where prompt
lookup or an assistant model drafts too (the grammar's drafts first, theirs from there on), or
where thinkgate's own loop (``forced_batch_decoding``, which serves batches too) does not hold
the model's cache. :func:`propose` is what both loops draft.
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Optional

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


def propose(processor: "ToolCallLogitsProcessor", row: int, output: Sequence[int], drafts: ForcedDrafts, bits: torch.Tensor, most: int, certain: Optional[list[bool]] = None) -> list[int]:
    """What the grammar of ``processor``'s row ``row``, whose output tokens are ``output``,
    decides next: in turn the token its mask allows alone and the text the grammar fixes, each
    taken by the row's grammar, up to ``most`` tokens (the processor is left after them). A row
    that thinks freely proposes nothing and fills no mask; the thinking budget's forced close
    is a mask's one token, and what follows it is drafted. ``certain`` gets, per token, whether
    it was the one its mask allows (probability one after the mask: no pick needed)."""
    p = processor
    p.follow_row(row, output)
    g = p.requests[row]
    if g is None:
        return []
    words = bits.numpy()[0]
    token_bytes = g.grammar.vocab.token_bytes
    added: list[int] = []
    last = int(output[-1]) if len(output) else -1
    while len(added) < most and p._active[row] and g.needs_bitmask and not g.is_terminated():
        bits.fill_(-1)
        g.fill_bitmask(bits, 0)
        t = only_token(words)
        after = token_bytes[last].decode("utf-8", "ignore") if 0 <= last < len(token_bytes) else ""
        draft = (t,) if t is not None else drafts.draft(g, after=after)
        if not draft:
            break
        draft = draft[: most - len(added)]
        added.extend(draft)
        if certain is not None:
            certain.extend([t is not None] * len(draft))
        last = added[-1]
        p.follow_row(row, [*output, *added])
    return added


class ForcedCandidates(CandidateGenerator):
    """transformers' candidate generator proposing what the grammar of ``processor``'s one row
    decides next, then, if there is one, ``inner``'s candidates (prompt lookup, an assistant
    model) from there on.

    Where ``inner`` gives its drafts' probabilities (an assistant, sampling), the grammar's
    drafts are given probability one, so that speculative sampling accepts each with the
    target's masked probability of it and, on rejection, samples the rest of that distribution:
    exact."""

    def __init__(self, processor: "ToolCallLogitsProcessor", drafts: ForcedDrafts, most: int = MOST, inner: Optional[CandidateGenerator] = None) -> None:
        self._processor = processor
        self._drafts = drafts
        self._most = most
        self._bits: Optional[torch.Tensor] = None
        self._inner = inner
        self.requires_model_outputs = bool(getattr(inner, "requires_model_outputs", False))

    def get_candidates(self, input_ids: torch.LongTensor, **kwargs: Any) -> tuple[torch.LongTensor, Optional[torch.FloatTensor]]:
        p = self._processor
        added: list[int] = []
        if p._steps is not None and input_ids.shape[0] == 1:  # (before the first step: the prompt alone)
            if self._bits is None:
                self._bits = xgr.allocate_token_bitmask(1, p.vocab_size)
            added = propose(p, 0, p._output(input_ids)[0].tolist(), self._drafts, self._bits, self._most)
        ids = torch.cat([input_ids, torch.tensor([added], dtype=input_ids.dtype, device=input_ids.device)], dim=1) if added else input_ids
        inner = self._inner
        if inner is None or (added and self.requires_model_outputs):  # (a generator reading the model's outputs drafts from where they are)
            return ids, None
        candidates, logits = inner.get_candidates(ids, **kwargs)
        if added and logits is not None:
            certain = torch.full((1, len(added), logits.shape[-1]), float("-inf"), dtype=logits.dtype, device=logits.device)
            certain[0, torch.arange(len(added)), torch.tensor(added)] = 0.0
            logits = torch.cat([certain, logits], dim=1)
        return candidates, logits

    def update_candidate_strategy(self, input_ids: torch.LongTensor, scores: torch.Tensor, num_matches: int) -> None:
        if self._inner is not None:
            self._inner.update_candidate_strategy(input_ids, scores, num_matches)

    def __getattr__(self, name: str) -> Any:  # what assisted decoding reads of an inner generator (model_kwargs_overrides, ...)
        inner = self.__dict__.get("_inner")
        if inner is None:
            raise AttributeError(name)
        return getattr(inner, name)


def forced_decoding(processor: "ToolCallLogitsProcessor", tokenizer: Any, most: int = MOST, assistant_model: Any = None) -> Callable[..., Any]:
    """A ``generate(custom_generate=...)`` decoding loop: transformers' assisted decoding with
    :class:`ForcedCandidates` as its candidates. Beside prompt lookup (``generate``'s
    ``prompt_lookup_num_tokens``) or ``assistant_model`` (a draft model sharing the tokenizer),
    the grammar's drafts come first and theirs where the grammar decides nothing."""
    drafts = ForcedDrafts.for_tokenizer(tokenizer)

    def decode(model: Any, input_ids: torch.LongTensor, logits_processor: Any, stopping_criteria: Any, generation_config: Any, synced_gpus: bool = False, streamer: Any = None, **model_kwargs: Any) -> Any:
        builds = type(model)._get_candidate_generator
        assisted = assistant_model is not None or generation_config.prompt_lookup_num_tokens is not None

        def candidates(**options: Any) -> ForcedCandidates:
            inner = builds(model, **{**options, "assistant_model": assistant_model}) if assisted else None
            return ForcedCandidates(processor, drafts, most, inner)

        model._get_candidate_generator = candidates  # (an instance attribute, removed after)
        try:
            return model._assisted_decoding(input_ids, logits_processor, stopping_criteria, generation_config, synced_gpus, streamer, **model_kwargs)
        finally:
            del model._get_candidate_generator

    return decode
