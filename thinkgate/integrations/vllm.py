"""vLLM: one logits processor class for both of vLLM's logits-processor interfaces.

``ThinkgateLogitsProcessor`` subclasses the V1 interface (``vllm.v1.sample.logits_processor``,
used by the CPU runner and by ``VLLM_USE_V2_MODEL_RUNNER=0``) and Model Runner V2's
(``vllm.v1.worker.gpu.sample.logits_processor``, vLLM's default on GPU), so the same class —
registered with ``LLM(logits_processors=[...])``, ``--logits-processors`` or the
``vllm.logits_processors`` entry point — loads under either runner.

A request opts in through ``SamplingParams.extra_args["thinkgate"]``: a dict, or a JSON string
(the OpenAI server's ``vllm_xargs`` carries only flat values) with ``format``, ``tools``,
``tool_choice``, ``parallel_tool_calls``, ``thinking``, ``thinking_budget``, ``strict`` and
``response_format`` (OpenAI's: the answer after thinking held to JSON). A request that does
not opt in is untouched, and a step in which none did does no work.
"""

from __future__ import annotations

import logging
import threading
import weakref
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Optional

import numpy as np
import torch

from ..constraint import BatchMasker, ReasonerGrammar, compile_tool_grammar
from ..constraint.runtime.batch import clear_ids
from ..constraint.runtime.reasoner import FailedRequest
from ..requests import RequestOptions, request_options
from ..requests import check_options as check_request

try:  # vLLM is an optional dependency: without it this module still imports, for its helpers
    from vllm.v1.sample.logits_processor import BatchUpdate, MoveDirectionality
    from vllm.v1.sample.logits_processor import LogitsProcessor as _V1
    from vllm.v1.worker.gpu.sample.logits_processor.interface import LogitsProcessor as _V2
except ImportError:  # pragma: no cover - exercised only without vLLM

    class _V1:  # type: ignore[no-redef]
        pass

    class _V2:  # type: ignore[no-redef]
        pass

    BatchUpdate = MoveDirectionality = None  # type: ignore[assignment,misc]

if TYPE_CHECKING:
    from vllm import SamplingParams

log = logging.getLogger("thinkgate.vllm")

def check_options(opts: RequestOptions, tokenizer: Any = None) -> None:
    """:func:`thinkgate.requests.check_options`, then (given the tokenizer) :func:`admit`: the
    compile the engine step will read starts now."""
    check_request(opts, tokenizer)
    if tokenizer is not None:
        admit(opts)


_COMPILER: Optional[ThreadPoolExecutor] = None


def admit(opts: RequestOptions) -> Optional[Future]:
    """Where a logits processor of this process serves the engine (vLLM in-process,
    ``VLLM_ENABLE_V1_MULTIPROCESSING=0``, and an offline ``LLM`` so configured), compile the
    request's grammar now, in the background with that processor's tokenizer and vocabulary
    size: the engine step finds it cached, or waits for the compile already under way
    (xgrammar's compile lets go of the GIL, so the server's event loop goes on meanwhile).
    With the engine in another process there is nothing to warm here: it compiles on its own."""
    global _COMPILER
    engine = _in_process_engine()
    if engine is None:
        return None
    if _COMPILER is None:
        _COMPILER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="thinkgate-compile")
    return _COMPILER.submit(_warm, opts, engine)


def _warm(opts: RequestOptions, engine: "ThinkgateLogitsProcessor") -> None:
    try:
        compile_tool_grammar(
            engine.tokenizer,
            opts.format,
            opts.tools,
            opts.tool_choice,
            opts.parallel_tool_calls,
            vocab_size=engine.vocab_size,
            max_whitespace=opts.max_whitespace,
            unsupported=opts.unsupported,
            response_format=opts.response_format,
            strict=opts.strict,
        )
    except Exception as e:  # the engine step meets it again, and ends that request alone
        log.warning("thinkgate: compiling an admitted request's grammar failed: %s", e)


def _in_process_engine() -> Optional["ThinkgateLogitsProcessor"]:
    for ref in list(_ACTIVE.values()):
        proc = ref()
        if proc is not None and not proc._passive:
            return proc
    return None


class _Tracked:
    """One opted-in request: its grammar and how far into its output the grammar has read."""

    __slots__ = ("opts", "grammar", "output", "seen", "max_tokens")

    def __init__(self, opts: RequestOptions, grammar: Optional[ReasonerGrammar], output: Optional[list] = None, max_tokens: Optional[int] = None):
        self.opts = opts
        self.grammar = grammar
        self.output = output
        self.seen = 0
        self.max_tokens = max_tokens  # the request's own limit: a required call is kept room within it

    def catch_up(self, tokens) -> None:
        """Accept the output tokens not read yet (placeholders of async scheduling end the run)."""
        for t in tokens:
            if t < 0:
                break
            self.grammar.accept_token(int(t))
            self.seen += 1


_ACTIVE: dict[tuple, "weakref.ref[ThinkgateLogitsProcessor]"] = {}
_TOKENIZERS: dict[tuple, Any] = {}
_TOKENIZERS_LOCK = threading.Lock()


def _tokenizer(vllm_config: Any) -> Any:
    mc = vllm_config.model_config
    key = (mc.tokenizer, getattr(mc, "tokenizer_revision", None))
    with _TOKENIZERS_LOCK:
        tok = _TOKENIZERS.get(key)
        if tok is None:
            from transformers import AutoTokenizer

            tok = _TOKENIZERS[key] = AutoTokenizer.from_pretrained(
                mc.tokenizer, revision=key[1], trust_remote_code=getattr(mc, "trust_remote_code", False)
            )
        return tok


class ThinkgateLogitsProcessor(_V1, _V2):  # type: ignore[misc]
    """Tool grammar with thinking left free, for the requests that ask for it.

    Constructed by vLLM: ``(vllm_config, device, is_pin_memory)`` under the V1 runner,
    ``(vllm_config, req_states)`` under Model Runner V2.
    """

    def __init__(self, vllm_config: Any, *args: Any) -> None:
        self._v2 = len(args) == 1
        self.req_states = args[0] if self._v2 else None
        self.device = getattr(self.req_states, "device", None) if self._v2 else args[0]
        # Loaded when the first request opts in: as an entry-point plugin this class is built
        # for every engine, including ones thinkgate never serves.
        self._config = vllm_config
        self._tokenizer: Any = None
        self._masker: Optional[BatchMasker] = None
        self._tracked: dict[int, _Tracked] = {}  # V1: batch index; V2: request slot
        # Registered twice (the entry point and --logits-processors), vLLM builds two: the
        # second stands aside rather than mask every row again.
        key = (id(vllm_config), self._v2)
        first = _ACTIVE.get(key)
        self._passive = first is not None and first() is not None
        if not self._passive:
            _ACTIVE[key] = weakref.ref(self)

    @property
    def tokenizer(self) -> Any:
        if self._tokenizer is None:
            # set last: another thread (admission's compile) may read it meanwhile
            tok = _tokenizer(self._config)
            self.vocab_size = max(self._config.model_config.get_vocab_size(), len(tok))
            self._masker = BatchMasker(self.vocab_size)
            self._tokenizer = tok
        return self._tokenizer

    # ------------------------------------------------------------------ both

    @classmethod
    def validate_params(cls, sampling_params: "SamplingParams") -> None:
        """At admission, in the front end: the request's options and the grammar of its tools
        (without the tokenizer, which this hook does not get; the tool parser and the offline
        helper compile with it). A ``ValueError`` is the server's 400."""
        opts = request_options(getattr(sampling_params, "extra_args", None))
        if opts is not None:
            # vLLM validates with this class even where its engine left the processor out
            # (speculative decoding under the V1 runner): the request would go unconstrained
            from .vllm_paths import processor_refusal

            refusal = processor_refusal()
            if refusal:
                raise ValueError(refusal)
            check_options(opts)

    def is_argmax_invariant(self) -> bool:
        return False  # a mask changes the argmax

    def _grammar(self, opts: RequestOptions, prompt_ids, max_tokens: Optional[int] = None) -> ReasonerGrammar | FailedRequest:
        """The request's constraint. Its grammar was compiled at admission (a cache hit here
        when the engine runs in this process); whatever still fails ends this request alone —
        it may only end — and never the engine."""
        tokenizer = self.tokenizer
        try:
            compiled = compile_tool_grammar(
                tokenizer,
                opts.format,
                opts.tools,
                opts.tool_choice,
                opts.parallel_tool_calls,
                vocab_size=self.vocab_size,
                max_whitespace=opts.max_whitespace,
                unsupported=opts.unsupported,
                response_format=opts.response_format,
                strict=opts.strict,
            )
            return ReasonerGrammar(
                compiled,
                prompt_token_ids=list(prompt_ids) if prompt_ids is not None else None,
                thinking=opts.thinking,
                thinking_budget=opts.thinking_budget,
                max_tokens=max_tokens,
            )
        except Exception as e:
            log.error("thinkgate: a request's grammar failed in the engine (%s); the request is ended", e)
            return FailedRequest(self._stop_ids(), f"{type(e).__name__}: {e}")

    def _stop_ids(self) -> tuple[int, ...]:
        try:
            from ..constraint.runtime.vocabulary import vocabulary_for

            return vocabulary_for(self.tokenizer, self.vocab_size).stop_token_ids
        except Exception:
            eos = getattr(self.tokenizer, "eos_token_id", None)
            return (eos,) if eos is not None else ()

    # ------------------------------------------------------------------ V1 interface

    def update_state(self, batch_update: Optional["BatchUpdate"]) -> None:
        if batch_update is None or self._passive:
            return
        tracked = self._tracked
        for index in batch_update.removed:
            tracked.pop(index, None)
        for index, params, prompt_ids, output_ids in batch_update.added:
            try:
                opts = request_options(getattr(params, "extra_args", None))
            except ValueError as e:  # validate_params refused these at admission
                log.error("thinkgate: a request's options are invalid in the engine (%s); it is left unconstrained", e)
                opts = None
            if opts is None:
                tracked.pop(index, None)
            else:
                limit = getattr(params, "max_tokens", None)
                tracked[index] = _Tracked(opts, self._grammar(opts, prompt_ids, limit), output_ids)
        for a, b, direction in batch_update.moved:
            ta, tb = tracked.pop(a, None), tracked.pop(b, None)
            if ta is not None:
                tracked[b] = ta
            if direction == MoveDirectionality.SWAP and tb is not None:
                tracked[a] = tb

    def apply(self, logits: torch.Tensor, ctx: Any = None) -> torch.Tensor:
        if self._v2:
            return self._apply_v2(logits, ctx)
        if not self._tracked:
            return logits
        rows: list[Optional[ReasonerGrammar]] = [None] * logits.shape[0]
        for index, t in self._tracked.items():
            # output ids are read here, not in update_state: async scheduling fills them late
            if len(t.output) > t.seen:
                t.catch_up(t.output[t.seen :])
            if index < len(rows):
                rows[index] = t.grammar
        self._masker(rows, logits)
        return logits

    # ------------------------------------------------------------------ Model Runner V2

    def add_request(self, req_idx: int, sampling_params: "SamplingParams") -> bool:
        # Slots are recycled and there is no remove hook: whatever the slot held is dropped here.
        try:
            opts = None if self._passive else request_options(getattr(sampling_params, "extra_args", None))
        except ValueError as e:  # validate_params refused these at admission
            log.error("thinkgate: a request's options are invalid in the engine (%s); it is left unconstrained", e)
            opts = None
        opted = self._v2_slots(req_idx)
        opted[req_idx] = opts is not None
        if opts is None:
            self._tracked.pop(req_idx, None)
            return False
        self._tracked[req_idx] = _Tracked(opts, None, max_tokens=getattr(sampling_params, "max_tokens", None))
        return True

    def apply_staged_writes(self) -> None:
        return None

    def _v2_slots(self, slot: int) -> np.ndarray:
        """Which request slots hold a request that opted in, as an array a batch's slots index
        at once (a step of requests that did not opt in costs no Python work per row)."""
        opted = getattr(self, "_opted", None)
        size = max(slot + 1, int(getattr(self.req_states, "max_num_reqs", 0) or 0))
        if opted is None or len(opted) < size:
            grown = np.zeros(size, dtype=bool)
            if opted is not None:
                grown[: len(opted)] = opted
            self._opted = opted = grown
        return opted

    def _apply_v2(self, logits: torch.Tensor, ctx: Any) -> torch.Tensor:
        """Model Runner V2: rows are logits rows, not requests. Row ``r`` belongs to the request
        in slot ``ctx.expanded_idx_mapping[r]``; under speculative decoding a request owns one row
        per draft position plus one, contiguous, ``ctx.expanded_local_pos`` 0, 1, ..., and
        ``ctx.input_ids[r]`` is the token fed there: at 0 the last committed token, at j > 0 the
        j-th draft (-1 for a placeholder the sampler rejects). Committed tokens are in
        ``req_states.all_token_ids`` up to ``total_len``. Row j is masked as one-token stepping
        masks the committed tokens followed by drafts 1..j; the drafts are rolled back after."""
        batch = ctx.idx_mapping_np  # batch position -> slot, on the host: no device sync to skip a step
        if not self._tracked or not len(batch):
            return logits
        opted = self._v2_slots(int(batch.max()))
        at = np.flatnonzero(opted[batch])
        if not len(at):
            return logits
        slots = batch[at].tolist()
        self._catch_up_v2(slots)
        n = logits.shape[0]
        if n == len(batch):
            # One row per request (no drafts this step; each request has at least its own row,
            # so the rows are the batch positions).
            levels = [[(int(r), s, 0) for r, s in zip(at.tolist(), slots)]]
        else:
            levels = self._draft_levels(ctx, slots)
        grammars: dict[int, Any] = {}
        drafted: dict[int, int] = {}
        stopped: set[int] = set()
        filled: list[int] = []
        eos_rows: list[int] = []
        masker = self._masker
        for depth, level in enumerate(levels):
            single: list[int] = []
            plain: list[int] = []
            for row, slot, token in level:
                g = self._tracked[slot].grammar
                if depth and slot not in stopped:
                    if token < 0:  # a placeholder: no token; this row and the rest masked as the row before
                        stopped.add(slot)
                    else:
                        g.accept_token(token)  # one the grammar forbids leaves only the end: moot rows
                        drafted[slot] = drafted.get(slot, 0) + 1
                grammars[row] = g
                if g.needs_bitmask:
                    (plain if g.plain else single).append(row)
                elif g.blocks_eos:
                    eos_rows.append(row)
            if single or plain:
                # this depth's rows filled together; the states of the next depth come after
                filled += masker.fill(grammars, single, plain, n)
        for slot, k in drafted.items():
            self._tracked[slot].grammar.rollback(k)
        if eos_rows:
            clear_ids(logits, eos_rows, grammars[eos_rows[0]].grammar.stop_ids)
        if filled:
            masker.apply(logits, filled)
        return logits

    def _catch_up_v2(self, slots: list[int]) -> None:
        """Read the committed tokens the requests' grammars have not read yet (a new request's
        grammar is made here, from the prompt in its history; a request resumed after
        preemption reads its output again)."""
        rs = self.req_states
        total = rs.total_len.gpu
        ends = total[torch.tensor(slots, device=total.device)].tolist()
        pending: list[tuple[_Tracked, int, int, int]] = []  # (request, slot, from, to)
        for slot, end in zip(slots, ends):
            t = self._tracked[slot]
            prompt_len = int(rs.prompt_len.np[slot])
            if t.grammar is None:
                history = rs.all_token_ids.gpu[slot, :end].tolist()
                t.grammar = self._grammar(t.opts, history[:prompt_len], t.max_tokens)
                t.seen = 0
                _read_output(t, history[prompt_len:])
            elif end > prompt_len + t.seen:
                pending.append((t, slot, prompt_len + t.seen, end))
        if pending:
            # every request's new tokens in one read from the device, not one read per request
            ids = rs.all_token_ids.gpu
            at_rows = torch.tensor([s for _, s, a, b in pending for _ in range(a, b)], device=ids.device)
            at_cols = torch.tensor([c for _, _, a, b in pending for c in range(a, b)], device=ids.device)
            flat = ids[at_rows, at_cols].tolist()
            k = 0
            for t, _, a, b in pending:
                _read_output(t, flat[k : k + b - a])
                k += b - a

    @staticmethod
    def _draft_levels(ctx: Any, slots: list[int]) -> list[list[tuple[int, int, int]]]:
        """The rows of the requests in ``slots`` as (row, slot, token fed), by draft position:
        found on the device and read in one transfer, so the rows of other requests cost no
        Python work."""
        mapping = ctx.expanded_idx_mapping
        rows = torch.isin(mapping, torch.tensor(slots, device=mapping.device, dtype=mapping.dtype)).nonzero().flatten()
        info = torch.stack((rows, mapping[rows].long(), ctx.expanded_local_pos[rows].long(), ctx.input_ids[rows].long())).tolist()
        levels: list[list[tuple[int, int, int]]] = []
        for row, slot, depth, token in zip(*info):
            while len(levels) <= depth:
                levels.append([])
            levels[depth].append((row, slot, token))
        return levels


def _read_output(t: _Tracked, tokens) -> None:
    """Feed a Model Runner V2 request's committed output tokens to its grammar. What follows the
    end of the output is not read: a verify step may commit a bonus token after an accepted
    end-of-sequence draft, which vLLM's scheduler cuts off (as it cuts everything after a stop)."""
    g = t.grammar
    for token in tokens:
        if token < 0:
            break
        if not g.is_terminated():
            g.accept_token(int(token))
        t.seen += 1
