"""Hugging Face transformers: a logits processor for ``model.generate`` and a batch helper.

``ToolCallLogitsProcessor`` drives one :class:`~thinkgate.constraint.ReasonerGrammar` per batch
row — each row with its own format, tools, tool_choice, response_format, thinking and budget — through greedy or
sampled generation of left-padded batches, and reads each row's result afterwards.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
import torch
from transformers import LogitsProcessor, LogitsProcessorList, StoppingCriteria, StoppingCriteriaList

from ..constraint import BatchSteps, Phase, ReasonerGrammar, compile_tool_grammar
from ..constraint.runtime.batch_steps import id_table
from ..formats import ChatFormat, get_format
from ..formats.templates import apply_chat_template
from ..parsing import Message, StreamParser
from ..requests import ChatRequest, answer_reading, chat_completion
from .common import enforced_schemas
from .forced_batch_decoding import forced_batch_decoding
from .forced_batch_decoding import serves as serves_batches
from .forced_drafting import forced_decoding
from .forced_drafting import supported as forced_supported
from .stops import _decode, output_text, stop_in_tail, stop_window


@dataclass
class RowSpec:
    """What one batch row is constrained to."""

    format: str | ChatFormat = "deepseek_r1"
    tools: Optional[list[dict]] = None
    tool_choice: Any = "auto"
    parallel_tool_calls: bool = True
    thinking: Any = None  # None: read from the prompt's ids
    thinking_budget: Optional[int] = None
    max_new_tokens: Optional[int] = None  # this row's own limit (the batch's may be larger)
    stop: Optional[list[str]] = None  # OpenAI's stop strings: the output ends before the first
    response_format: Optional[dict] = None  # OpenAI's: the answer after thinking held to JSON
    strict: int = 2  # 0 parse only (under "auto"), 1 markup and tool names, 2 full schemas
    unsupported: str = "error"  # a schema keyword thinkgate cannot enforce: refused, or dropped ("relax")



@contextlib.contextmanager
def _interrupt_after() -> Iterator[None]:
    """Ctrl-C during the block comes at its end: the answers one step ended are handed over
    whole (``thinkgate generate`` keeps them all when interrupted, not the first few). Only on
    the main thread, where Python's own handler is installed; elsewhere the block runs as is."""
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt

class ToolCallLogitsProcessor(LogitsProcessor):
    """A ``transformers.LogitsProcessor`` constraining each row of a generation to its tool
    grammar, with thinking left free.

    ``prompt_lengths`` are the unpadded prompt lengths (for left-padded batches). After
    ``generate``, :meth:`results` parses each row's output. ``on_finish(row)`` is called once
    for each row, as it ends (so that progress moves while the batch goes on).

    Each call follows the tokens it is given, not the number of calls: what is new since the
    last call is read, and what the call no longer holds is rolled back (the grammar, the
    thinking counters and budget, the token limit, stop strings, a row's end). So assisted
    generation — ``prompt_lookup_num_tokens``, an ``assistant_model`` sharing the tokenizer —
    is exact: drafts are masked as the tokens before them allow, and greedy output is plain
    greedy output. An assistant with another tokenizer (universal assisted decoding) would
    show the processor ids of another vocabulary: it is refused by name.
    """

    def __init__(
        self,
        tokenizer: Any,
        rows: Sequence[RowSpec],
        prompt_lengths: Sequence[int],
        vocab_size: Optional[int] = None,
        on_finish: Optional[Callable[[int], None]] = None,
    ) -> None:
        if len(rows) != len(prompt_lengths):
            raise ValueError("one RowSpec and one prompt length per batch row")
        self.tokenizer = tokenizer
        self.rows = list(rows)
        self.prompt_lengths = list(prompt_lengths)
        self._grammars = [
            compile_tool_grammar(tokenizer, r.format, r.tools, r.tool_choice, r.parallel_tool_calls, vocab_size=vocab_size, response_format=r.response_format, strict=r.strict, unsupported=r.unsupported)
            for r in self.rows
        ]
        self.vocab_size = self._grammars[0].vocab.size if self._grammars else 0
        self.stop_ids = sorted({i for g in self._grammars for i in g.stop_ids})
        self.requests: list[Optional[ReasonerGrammar]] = [None] * len(rows)
        n = len(rows)
        self._active = np.ones(n, dtype=bool)  # rows not yet ended
        self._ended_at = np.full(n, -1, dtype=np.int64)  # the output position of the token that ended a row
        # a row at its own token limit may only end (no limit: never)
        self._limit = np.array([r.max_new_tokens - 1 if r.max_new_tokens is not None else np.iinfo(np.int64).max for r in rows], dtype=np.int64)
        self._limits = any(r.max_new_tokens is not None for r in rows)
        self._stop_rows = [i for i, r in enumerate(rows) if r.stop]  # rows with stop strings, looked at one by one
        self._is_stop = id_table(self.stop_ids, self.vocab_size)
        self._stopped: dict[int, int] = {}  # row -> where it wrote a stop string (end-of-sequence forced next)
        self.on_finish = on_finish
        # A decoding loop that steps rows through drafts before it knows which it keeps reports
        # the ends itself (report_ended), once a row's end is kept.
        self.defer_finish = False
        self._reported: set[int] = set()  # the rows on_finish was called for
        self._prompt_width = 0
        self._prompt: Optional[torch.Tensor] = None
        self._steps: Optional[BatchSteps] = None
        # What every row's request has read: the output tokens, position by position, kept to
        # compare with the next call's (a draft round shows them again, or fewer, or others).
        self._seen = 0
        self._history = np.zeros((n, 256), dtype=np.int64)
        self._drafting = False  # a call went back, or skipped ahead: from then on each compares
        # Rows at different lengths (thinkgate's own decoding loop, forced_batch_decoding): from
        # then on each row has its own position, and every call follows row by row.
        self._at: Optional[np.ndarray] = None
        self._longest = 0  # the longest output a call showed since the last committed round
        # OpenAI's usage.completion_tokens_details, counted by draft_counter()'s criterion
        self.accepted_prediction_tokens = 0
        self.rejected_prediction_tokens = 0
        self._predictions = np.zeros((n, 2), dtype=np.int64)  # and each row's (accepted, rejected)
        # and its reasoning_tokens, per row, counted by results()
        self.reasoning_tokens: list[int] = [0] * n

    def _start(self, input_ids: torch.Tensor) -> None:
        self._prompt_width = input_ids.shape[1]
        self._prompt = input_ids.detach().cpu().clone()
        for i, (row, grammar) in enumerate(zip(self.rows, self._grammars)):
            prompt = input_ids[i, self._prompt_width - self.prompt_lengths[i] :].tolist()
            self.requests[i] = ReasonerGrammar(
                grammar,
                prompt_token_ids=prompt,
                thinking=row.thinking,
                thinking_budget=row.thinking_budget,
                max_tokens=row.max_new_tokens,
            )
        self._steps = BatchSteps(self.requests, self.vocab_size)

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        if input_ids.shape[0] != len(self.rows):
            raise ValueError(
                f"the batch has {input_ids.shape[0]} rows but the processor was built for {len(self.rows)} "
                "(beam search and num_return_sequences > 1 are not supported)"
            )
        steps = self._steps
        if steps is None:
            self._start(input_ids)
            steps = self._steps
        n = input_ids.shape[1] - self._prompt_width
        if n == self._seen + 1 and not self._drafting and self._at is None:
            # one token more than last time: every row at once (a thinking row costs a few numpy
            # operations, not a Python step)
            self._take((input_ids if input_ids.device.type == "cpu" else input_ids[:, -1:].cpu()).numpy()[:, -1])
        elif n or self._seen:
            self._drafting = True
            self._follow(self._output(input_ids))
        if n > self._longest:
            self._longest = n
        steps.mask(scores)
        self._force_ends(scores, self._seen if self._at is None else self._at)
        return scores

    def mask_rows(self, outputs: dict[int, Sequence[int]], scores: torch.Tensor) -> torch.Tensor:
        """Mask ``scores[i]`` as the next token after ``outputs[i]`` (row ``i``'s output tokens)
        for each row named, whatever length each stands at (thinkgate's own decoding loop); the
        other rows' scores are left unread."""
        if self._steps is None:
            raise ValueError("mask_rows before the processor was started (call start() with the prompt first)")
        for i, output in outputs.items():
            self.follow_row(i, output)
        self._steps.mask(scores, set(outputs))
        self._force_ends(scores, self._at, set(outputs))
        return scores

    def _force_ends(self, scores: torch.Tensor, seen: Any, only: Optional[set[int]] = None) -> None:
        """A row at its own token limit may only end, and so may a row that wrote a stop string
        (it is cut there afterwards). ``seen``: the output tokens read (one for all rows, or
        each row's)."""
        at_limit = np.flatnonzero(self._active & (self._limit <= seen)).tolist() if self._limits else []
        forced = at_limit + sorted(set(self._stopped).difference(at_limit))
        if only is not None:
            forced = [i for i in forced if i in only]
        if forced:
            scores[forced] = float("-inf")
            scores[torch.tensor(forced).unsqueeze(1), torch.tensor(self.stop_ids)] = 0.0

    def start(self, input_ids: torch.Tensor) -> None:
        """Begin with the (left-padded) prompts ``input_ids``, as the first call does."""
        if self._steps is None:
            self._start(input_ids)

    def _output(self, input_ids: torch.Tensor) -> np.ndarray:
        """The output part of ``input_ids``, checked to follow the prompt the generation began
        with: a sequence of another vocabulary (an assistant model of another tokenizer) would
        step the grammars through ids they never meant."""
        width = self._prompt_width
        ids = input_ids.detach().cpu()
        if ids.shape[1] < width or not torch.equal(ids[:, :width], self._prompt):
            raise ValueError(
                "ToolCallLogitsProcessor was called with a sequence that does not start with the prompt it began "
                "with: an assistant model with another tokenizer (universal assisted decoding) is not supported; "
                "use an assistant that shares the model's tokenizer, or prompt lookup (prompt_lookup_num_tokens)"
            )
        return ids[:, width:].numpy()

    def _follow(self, output: np.ndarray) -> None:
        """Bring every row to ``output``: back to where it leaves what was read, then forward."""
        if self._at is not None:
            for i in range(len(self.rows)):
                self.follow_row(i, output[i])
            return
        n, seen = output.shape[1], self._seen
        common = min(n, seen)
        differs = (output[:, :common] != self._history[:, :common]).any(axis=0)
        at = int(differs.argmax()) if differs.any() else common
        if at < seen:
            self._rollback(at)
        for k in range(at, n):
            self._take(output[:, k])

    def _rollback(self, at: int) -> None:
        """Undo every row's tokens from output position ``at`` on (drafts rejected)."""
        for i in range(len(self.rows)):
            self._undo(i, at)
        self._seen = at

    def follow_row(self, i: int, output: Sequence[int]) -> None:
        """Bring row ``i`` alone to its output tokens ``output`` (back to where it leaves what
        it read, then forward): from then on every row keeps its own position."""
        if self._at is None:
            self._at = np.full(len(self.rows), self._seen, dtype=np.int64)
            self._drafting = True
        out = np.asarray(output, dtype=np.int64)
        seen = int(self._at[i])
        common = min(len(out), seen)
        differs = np.flatnonzero(out[:common] != self._history[i, :common])
        at = int(differs[0]) if len(differs) else common
        if at < seen:
            self._rollback_row(i, at)
        for t in out[at:].tolist():
            self._take_row(i, t)

    def _rollback_row(self, i: int, at: int) -> None:
        """Undo row ``i``'s tokens from its output position ``at`` on."""
        self._undo(i, at)
        self._at[i] = at

    def _undo(self, i: int, at: int) -> None:
        """Row ``i``'s grammar, end and stop string back to before output position ``at``."""
        back = self._steps.position(i) - at
        reopen = self._ended_at[i] >= at
        if back > 0 or reopen:
            self._steps.rollback(i, max(back, 0), reopen)
        if reopen:
            self._ended_at[i] = -1
            self._active[i] = True
        if self._stopped.get(i, -1) >= at:
            del self._stopped[i]

    def _take_row(self, i: int, token: int) -> None:
        """Row ``i`` alone reads its token at its next output position."""
        pos = int(self._at[i])
        self._grow(pos)
        self._history[i, pos] = token
        self._at[i] = pos + 1
        self._seen = max(self._seen, pos + 1)
        if not self._active[i]:
            return
        stepped = self._steps.accept_row(i, token)
        if self._is_stop[min(token, len(self._is_stop) - 1)] or (stepped and self.requests[i].is_terminated()) or self._wrote_stop(i, pos):
            self._end([i], pos)

    def _grow(self, pos: int) -> None:
        if pos == self._history.shape[1]:
            self._history = np.concatenate([self._history, np.zeros_like(self._history)], axis=1)

    def _take(self, tokens: np.ndarray) -> None:
        """Every active row reads its token at the next output position."""
        pos = self._seen
        self._grow(pos)
        self._history[:, pos] = tokens
        self._seen = pos + 1
        active = self._active
        stepped = self._steps.accept(tokens)
        ended = self._is_stop.take(tokens, mode="clip")
        ended &= active
        for i in stepped.tolist():
            if self.requests[i].is_terminated():
                ended[i] = True
        for i in self._stop_rows:  # only the last tokens can have completed one
            if active[i] and self._wrote_stop(i, pos):
                ended[i] = True
        if np.count_nonzero(ended):  # (numpy's any() of a small array costs several times more)
            self._end(np.flatnonzero(ended).tolist(), pos)

    def _wrote_stop(self, i: int, pos: int) -> bool:
        """Whether row ``i``'s token at ``pos`` completed one of its stop strings (noted)."""
        stop = self.rows[i].stop
        if not stop:
            return False
        tail = self._history[i, max(0, pos + 1 - stop_window(stop)) : pos + 1].tolist()
        if not stop_in_tail(self.tokenizer, tail, stop):
            return False
        self._stopped[i] = pos
        return True

    def _end(self, rows: list[int], pos: int) -> None:
        """The ``rows`` ended with their token at output position ``pos``."""
        for i in rows:
            self._active[i] = False
            self._ended_at[i] = pos
            self._steps.finish(i)
        if not self.defer_finish:
            self.report_ended(rows)

    def report_ended(self, rows: Sequence[int]) -> None:
        """Call ``on_finish`` for those of ``rows`` that ended and were not reported yet (all
        together: Ctrl-C meanwhile comes after the last)."""
        reported = [i for i in rows if self._ended_at[i] >= 0 and i not in self._reported] if self.on_finish is not None else []
        if reported:
            self._reported.update(reported)
            with _interrupt_after():  # (the rows one step ended are handed over together)
                for i in reported:
                    self.on_finish(i)

    def draft_counter(self) -> "StoppingCriteria":
        """A stopping criterion (it never stops anything) that counts, per round of assisted
        generation, the drafted tokens accepted and rejected, into
        :attr:`accepted_prediction_tokens` and :attr:`rejected_prediction_tokens`: pass it to
        ``generate(stopping_criteria=...)`` beside this processor."""
        return _DraftCounter(self)

    def count_predictions(self, row: int, accepted: int, rejected: int) -> None:
        """Count drafted tokens of row ``row`` the model kept and rejected."""
        self._predictions[row] += (accepted, rejected)
        self.accepted_prediction_tokens += accepted
        self.rejected_prediction_tokens += rejected

    def predictions(self, row: int) -> dict[str, int]:
        """Row ``row``'s ``accepted_prediction_tokens`` and ``rejected_prediction_tokens``."""
        accepted, rejected = self._predictions[row].tolist()
        return {"accepted_prediction_tokens": accepted, "rejected_prediction_tokens": rejected}

    def results(self, sequences: torch.Tensor) -> list[tuple[Message, int]]:
        """``(message, completion_tokens)`` per row, from ``generate``'s output sequences. A row
        that ended without its grammar ending (its own or the batch's token limit) has
        ``finish_reason="length"``; one cut at a stop string, ``"stop"``."""
        if self._steps is not None:
            # generate samples one token after the last call of the processor, and a draft
            # round's last call may have shown drafts that were then rejected
            self._follow(self._output(sequences))
            self._steps.sync()
        return [self._row_result(i, sequences[i, self._prompt_width :].tolist()) for i in range(len(self.rows))]

    def ended_result(self, row: int) -> tuple[Message, int]:
        """:meth:`results`' entry for a row that has ended (``on_finish`` was called for it),
        while the batch goes on: from the tokens it was given, and the end-of-sequence token the
        processor forces after a stop string. Under assisted generation a draft's end may be
        rejected: read :meth:`results` there instead."""
        end = int(self._ended_at[row])
        if end < 0:
            raise ValueError(f"row {row} has not ended")
        ids = self._history[row, : end + 1].tolist()
        if row in self._stopped:
            ids.append(self.stop_ids[0])
        return self._row_result(row, ids)

    def _row_result(self, i: int, ids: list[int]) -> tuple[Message, int]:
        """``(message, completion_tokens)`` of row ``i``, whose output tokens are ``ids``."""
        row, grammar = self.rows[i], self._grammars[i]
        end = next((k for k, t in enumerate(ids) if t in self.stop_ids), None)
        req = self.requests[i]
        body = ids if end is None else ids[:end]
        # An end the row's token limit forced is "length", whatever the grammar made of it,
        # unless it ends the answer the grammar forced into the room it kept for a call.
        limited = end is not None and end == self._limit[i] and not (req is not None and req.answered_in_room)
        natural = end is not None and (req is None or req.is_terminated()) and not limited
        failed = req is not None and req.phase == Phase.ERROR and not limited
        parser = StreamParser(
            grammar.format,
            thinking=req.thinking if req is not None else None,
            tools=row.tools,
            tokenizer=self.tokenizer,
            # (the tool markup's token while thinking is a call where the grammar read one)
            recover_calls_in_reasoning=grammar.reasoning_trigger is not None,
            **answer_reading(grammar.format, row.tools, row.tool_choice, row.response_format),
            strict=row.strict,
            enforced_schemas=enforced_schemas(grammar.format.name, row.tools, row.tool_choice, row.strict, row.unsupported),
        )
        kept, text, cut = output_text(self.tokenizer, body, row.stop)
        failed = failed and not cut  # the output ends before its first stop string, whatever came after
        parser.feed_events(text, kept)
        parser.finish_events("error" if failed else "stop" if cut else None if natural else "length")
        message = parser.message
        self.reasoning_tokens[i] = _reasoning_tokens(self.tokenizer, kept, text, message.reasoning_content)
        if failed:  # the grammar ended this row (the batch went on): say why
            message.error = {"type": "constraint_error", "message": req.error}
        return message, len(body) + (0 if end is None else 1)


def _reasoning_tokens(tokenizer: Any, ids: list[int], text: str, reasoning: Optional[str]) -> int:
    """The output tokens that wrote the reasoning (OpenAI's ``reasoning_tokens``), its markers
    not counted: those that reach the reasoning's end in the decoded output, less those before it
    (an open marker the model wrote itself; whitespace before it is the reasoning's, which the
    parser reads as framing). Nothing thought, nothing counted (thinking off)."""
    start = text.find(reasoning) if reasoning else -1
    if start < 0:
        return 0
    before = 0 if not text[:start].strip() else _tokens_reaching(tokenizer, ids, start)
    return _tokens_reaching(tokenizer, ids, start + len(reasoning)) - before


def _tokens_reaching(tokenizer: Any, ids: list[int], chars: int) -> int:
    """The fewest of ``ids`` whose text holds ``chars`` characters (a binary search: more tokens
    decode to no less text)."""
    lo, hi = 0, len(ids)
    while lo < hi:
        mid = (lo + hi) // 2
        if len(_decode(tokenizer, ids[:mid])) >= chars:
            hi = mid
        else:
            lo = mid + 1
    return lo


class _DraftCounter(StoppingCriteria):
    """Called by ``generate`` once a round, with the output committed so far: the round's
    drafts are the tokens the processor was shown past the output committed before it (the
    verifying call shows them all), and those accepted are the round's tokens but the one the
    model wrote itself."""

    def __init__(self, processor: ToolCallLogitsProcessor) -> None:
        self.processor = processor
        self._committed = 0

    def __call__(self, input_ids: torch.LongTensor, scores: Any, **kwargs: Any) -> torch.BoolTensor:
        p = self.processor
        n = input_ids.shape[1] - p._prompt_width
        drafted = max(0, p._longest - self._committed)
        accepted = max(0, n - self._committed - 1)
        for i in range(input_ids.shape[0]):  # (assisted decoding drafts for one row)
            p.count_predictions(i, accepted, max(0, drafted - accepted))
        self._committed = p._longest = n
        return torch.zeros(input_ids.shape[0], dtype=torch.bool, device=input_ids.device)


def _pad_left(batch: list[list[int]], pad_id: int) -> tuple[torch.Tensor, torch.Tensor]:
    width = max(len(p) for p in batch)
    ids = torch.full((len(batch), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(batch), width), dtype=torch.long)
    for i, p in enumerate(batch):
        ids[i, width - len(p) :] = torch.tensor(p, dtype=torch.long)
        mask[i, width - len(p) :] = 1
    return ids, mask


def generate_chat(
    model: Any,
    tokenizer: Any,
    requests: Sequence[ChatRequest],
    *,
    format: str | ChatFormat = "deepseek_r1",
    batch_size: int = 8,
    chat_template: Optional[str] = None,
    model_name: str = "local",
    on_batch: Optional[Callable[[int], None]] = None,
    on_progress: Optional[Callable[[int], None]] = None,
    strict: Optional[int] = None,
    unsupported: str = "error",
    assistant_model: Any = None,
    assistant_tokenizer: Any = None,
    prompt_lookup: Optional[int] = None,
    on_result: Optional[Callable[[int, dict], None]] = None,
    forced_drafts: bool = True,
) -> list[dict]:
    """Generate for OpenAI-shape requests with ``model.generate`` under thinkgate's grammar, and
    return one OpenAI ``chat.completion`` per request (in order).

    Requests are batched (left-padded) by their sampling settings; each row keeps its own tools,
    tool_choice, thinking, budget, ``max_tokens`` and ``stop``. ``on_batch(n)`` is called after
    each batch of ``n`` requests; ``on_progress(n)`` as ``n`` more requests end their generation,
    row by row while a batch goes on (a progress bar's ``update``). ``strict``: the strict level
    of the requests that set none (default 2). ``unsupported="relax"`` drops the schema keywords
    thinkgate cannot enforce (with a warning) instead of refusing them. ``on_result(i, completion)``
    hands over request ``i``'s completion as soon as it is known: as its row ends while the
    batch goes on (at the batch's end under assisted generation, where a drafted end may yet be
    rejected), so that a caller can keep it before the batch is over.

    Assisted generation: ``assistant_model`` (a draft model that shares the tokenizer; an
    ``assistant_tokenizer`` of another vocabulary is refused) or ``prompt_lookup`` (that many
    tokens drafted from n-grams of the sequence so far). The grammar holds every draft as it
    holds every token, so the output is what plain generation gives (token for token when
    greedy); each request is then generated alone (transformers drafts for one row at a time),
    and its ``usage.completion_tokens_details`` counts the ``accepted_prediction_tokens`` and
    ``rejected_prediction_tokens``. Every completion's ``reasoning_tokens`` there counts the
    tokens of its reasoning, as OpenAI reports a reasoning model's (0 with thinking off).

    ``forced_drafts`` (on by default): the tokens the grammar decides are drafted and verified in
    one forward pass — through thinkgate's own decoding loop, a request alone or a batch
    (:mod:`thinkgate.integrations.forced_batch_decoding`, for models whose cache it can hold),
    else, for a request alone, through transformers' assisted decoding, first beside prompt
    lookup or an assistant model where those are asked for
    (:mod:`thinkgate.integrations.forced_drafting`) — the same output in fewer passes, counted
    in ``usage.completion_tokens_details`` as accepted and rejected prediction tokens."""
    drafting = _drafting(tokenizer, assistant_model, assistant_tokenizer, prompt_lookup)
    if drafting:
        batch_size = 1
    forced_drafts = forced_drafts and forced_supported()
    batches_drafted = forced_drafts and serves_batches(model)
    fmt = get_format(format)
    eos = tokenizer.convert_tokens_to_ids(fmt.eos)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else eos
    prompts = [apply_chat_template(tokenizer, r.messages, fmt, r.tools, r.thinking, chat_template) for r in requests]
    groups: dict[tuple, list[int]] = {}
    for i, r in enumerate(requests):
        groups.setdefault((r.temperature, r.top_p, r.top_k, r.seed), []).append(i)
    results: list[Optional[dict]] = [None] * len(requests)
    for (temperature, top_p, top_k, seed), members in groups.items():
        for start in range(0, len(members), batch_size):
            chunk = members[start : start + batch_size]
            rows = [
                RowSpec(fmt, requests[i].tools, requests[i].effective_tool_choice, requests[i].parallel_tool_calls, None, requests[i].thinking_budget, requests[i].max_tokens, requests[i].stop, requests[i].response_format, requests[i].strict_level(strict), unsupported)
                for i in chunk
            ]
            batch = [prompts[i] for i in chunk]
            # the grammar's own drafts: a request alone through transformers' assisted decoding
            # (beside prompt lookup or an assistant model, where asked), a batch through
            # thinkgate's own loop
            forced = forced_drafts and (len(chunk) == 1 or batches_drafted)
            own_loop = forced and batches_drafted and not drafting
            drafted = bool(drafting) or forced
            ended: set[int] = set()
            early: dict[int, dict] = {}  # completions handed over while the batch went on

            def completion(k: int, message: Message, n_out: int, predictions: dict) -> dict:
                i = chunk[k]
                return chat_completion(
                    message,
                    model=requests[i].model or model_name,
                    prompt_tokens=len(prompts[i]),
                    completion_tokens=n_out,
                    request_id=requests[i].id,
                    tool_choice=requests[i].effective_tool_choice,
                    completion_tokens_details={"reasoning_tokens": processor.reasoning_tokens[k], **predictions},
                )

            def row_ended(row: int) -> None:
                ended.add(row)
                if on_result is not None and (own_loop or not drafted):  # (thinkgate's loop reports kept ends only)
                    early[row] = completion(row, *processor.ended_result(row), processor.predictions(row) if drafted else {})
                    on_result(chunk[row], early[row])
                if on_progress is not None:
                    on_progress(1)

            processor = ToolCallLogitsProcessor(tokenizer, rows, [len(p) for p in batch], vocab_size=_vocab_size(model, tokenizer), on_finish=row_ended)
            input_ids, attention_mask = _pad_left(batch, pad)
            if seed is not None:
                torch.manual_seed(seed)
            sampling = dict(do_sample=temperature > 0)
            if temperature > 0:
                sampling.update(temperature=temperature, top_p=top_p, top_k=top_k or 0)
            if drafting:
                sampling.update(drafting)
            if own_loop:
                sampling.update(custom_generate=forced_batch_decoding(processor, tokenizer))
            elif forced:
                assistant = sampling.pop("assistant_model", None)  # (the decoding loop builds its candidates)
                sampling.update(custom_generate=forced_decoding(processor, tokenizer, assistant_model=assistant))
            if drafted and not own_loop:
                sampling.update(stopping_criteria=StoppingCriteriaList([processor.draft_counter()]))
            with torch.no_grad():
                out = model.generate(
                    input_ids=input_ids.to(model.device),
                    attention_mask=attention_mask.to(model.device),
                    logits_processor=LogitsProcessorList([processor]),
                    max_new_tokens=max(r.max_new_tokens for r in rows),
                    eos_token_id=eos,
                    pad_token_id=pad,
                    **sampling,
                )
            for k, (i, (message, n_out)) in enumerate(zip(chunk, processor.results(out.cpu()))):
                if k in early:  # (handed over already: the same object, its call ids with it)
                    results[i] = early[k]
                    continue
                results[i] = completion(k, message, n_out, processor.predictions(k) if drafted else {})
                if on_result is not None:
                    on_result(i, results[i])
            if on_progress is not None and len(ended) < len(chunk):  # rows the batch's end ended
                on_progress(len(chunk) - len(ended))
            if on_batch is not None:
                on_batch(len(chunk))
    return results  # type: ignore[return-value]


def _drafting(tokenizer: Any, assistant_model: Any, assistant_tokenizer: Any, prompt_lookup: Optional[int]) -> dict:
    """``generate``'s options for assisted generation (none: plain), the choice checked."""
    if assistant_model is not None and prompt_lookup is not None:
        raise ValueError("choose one way of drafting: an assistant model or prompt lookup, not both")
    if prompt_lookup is not None:
        if isinstance(prompt_lookup, bool) or not isinstance(prompt_lookup, int) or prompt_lookup < 1:
            raise ValueError(f"prompt lookup drafts a positive number of tokens, not {prompt_lookup!r}")
        return {"prompt_lookup_num_tokens": prompt_lookup}
    if assistant_model is None:
        if assistant_tokenizer is not None:
            raise ValueError("an assistant tokenizer was given without an assistant model")
        return {}
    if assistant_tokenizer is not None and assistant_tokenizer.get_vocab() != tokenizer.get_vocab():
        raise ValueError(
            "the assistant model's tokenizer is not the model's: universal assisted decoding (drafts in another "
            "vocabulary) is not supported, because thinkgate's grammar reads the model's token ids; use an assistant "
            "that shares the tokenizer, or prompt lookup"
        )
    return {"assistant_model": assistant_model}


def _vocab_size(model: Any, tokenizer: Any) -> int:
    size = getattr(getattr(model, "config", None), "vocab_size", None)
    return max(size or 0, len(tokenizer))


__all__ = ["RowSpec", "ToolCallLogitsProcessor", "generate_chat"]
