"""SGLang: a custom logit processor and function-call detectors backed by thinkgate.

Logit processor. SGLang builds a ``CustomLogitProcessor`` per batch from its ``to_str()`` (the
class, pickled by reference: this module must be importable where the server runs) and passes
each row's ``custom_params`` with the request under ``"__req__"``. Each request's
:class:`~thinkgate.constraint.ReasonerGrammar` therefore lives here, outside the instance, keyed
by the request id, and is dropped when the request finishes. A request opts in with
``custom_params={"thinkgate": json.dumps({...})}`` (values must be flat): ``format``,
``tokenizer`` (a path; the model's), ``tools``, ``tool_choice``, ``parallel_tool_calls``,
``thinking``, ``thinking_budget``, ``strict``, ``response_format`` (OpenAI's: the answer after
thinking held to JSON after the thinking thinkgate follows; not SGLang's own ``response_format``
as well, or two grammars apply). Start the server with ``--enable-custom-logit-processor`` and
``--disable-overlap-schedule``.

Where SGLang would not run the processor on every step with the request's tokens up to date
(speculative decoding of any algorithm, the overlap scheduler, diffusion decoding, a plugin's
sampler, beam search), a request that asks for thinkgate is refused with a 400 naming the
setting, and a server started for thinkgate (a ``thinkgate_*`` parser and custom logit
processors on) refuses to start: see :func:`processor_skip_reason`. SGLang's own grammar backend
is not used in its place: thinkgate's structural tag does not hold everything the processor holds
(thinking budgets, calls that always finish within ``max_tokens``, the run-time guard).

Detectors. ``register()`` adds ``thinkgate_<format>`` to SGLang's ``FunctionCallParser``
registry (also run from the ``sglang.srt.plugins`` entry point, so ``--tool-call-parser
thinkgate_<format>`` works once thinkgate is installed, for any registered format). A detector
sees the tools (their ``function.strict``) but not the request's ``custom_params``: it reads calls
at the server's strict level, ``THINKGATE_STRICT`` (default 2), so a server whose requests ask
for a lower level sets it there too (or marks the tools ``"strict": false``).
"""

from __future__ import annotations

import json
import logging
import threading
from collections import Counter, OrderedDict
from http import HTTPStatus
from typing import Any, Optional

import torch

from ..constraint import BatchMasker, ReasonerGrammar, compile_tool_grammar
from ..constraint.runtime.reasoner import FailedRequest
from ..constraint.runtime.vocabulary import vocabulary_for
from ..formats import ChatFormat, get_format
from ..formats import names as format_names
from ..parsing import ContentDelta, ReasoningDelta, ReasoningEnd, StreamParser, ToolCallArgumentsDelta, ToolCallStart, parse
from ..formats.strict import DEFAULT_STRICT, check_strict
from ..requests import OPTION_KEY, RequestOptions, check_options, default_strict, default_unsupported, request_options
from .common import ENGINE_INVALID_CALLS, enforced_schemas, format_class, plain_tools

from sglang.srt.function_call.base_format_detector import BaseFormatDetector
from sglang.srt.function_call.core_types import StreamingParseResult, StructureInfo, ToolCallItem
from sglang.srt.parser.reasoning_parser import BaseReasoningFormatDetector
from sglang.srt.parser.reasoning_parser import StreamingParseResult as ReasoningResult
from sglang.srt.sampling.custom_logit_processor import CustomLogitProcessor

log = logging.getLogger("thinkgate.sglang")

_MAX_TRACKED = 4096


class _Requests:
    """The grammars of live requests, by request id (bounded, in case one is aborted unseen)."""

    def __init__(self) -> None:
        self.grammars: OrderedDict[str, tuple[ReasonerGrammar, list[int]]] = OrderedDict()
        self.tokenizers: dict[str, Any] = {}
        self.maskers: dict[int, BatchMasker] = {}
        self.lock = threading.Lock()

    def tokenizer(self, path: str) -> Any:
        tok = self.tokenizers.get(path)
        if tok is None:
            from transformers import AutoTokenizer

            tok = self.tokenizers[path] = AutoTokenizer.from_pretrained(path)
        return tok


_REQUESTS = _Requests()


def _options(params: dict) -> tuple[RequestOptions, str]:
    raw = params.get(OPTION_KEY)
    data = json.loads(raw) if isinstance(raw, str) else dict(raw)
    tokenizer = data.pop("tokenizer", None)
    if not tokenizer:
        raise ValueError("thinkgate options for SGLang need a 'tokenizer' (the model's path)")
    return request_options({OPTION_KEY: data}), tokenizer  # type: ignore[return-value]


class ThinkgateLogitProcessor(CustomLogitProcessor):
    """Tool grammar with thinking left free, for the rows whose ``custom_params`` ask for it."""

    def __call__(self, logits: torch.Tensor, custom_param_list: Optional[list] = None) -> torch.Tensor:
        if not custom_param_list:
            return logits
        state = _REQUESTS
        rows: list[Optional[ReasonerGrammar]] = [None] * logits.shape[0]
        asking = [_asking(params) for params in custom_param_list[: len(rows)]]
        verifying = {rid for rid, n in Counter(str(req.rid) for req in asking if req is not None).items() if n > 1}
        vocab = 0
        with state.lock:
            for i, req in enumerate(asking):
                if req is None:
                    continue
                grammar = _row(state, custom_param_list[i], req, logits.shape[-1], verifying)
                if grammar is None:
                    continue
                rows[i] = grammar
                vocab = max(vocab, grammar.grammar.vocab.size if isinstance(grammar, ReasonerGrammar) else logits.shape[-1])
            if vocab:
                masker = state.maskers.get(vocab)
                if masker is None:
                    masker = state.maskers[vocab] = BatchMasker(vocab)
                masker(rows, logits)
        return logits


def _asking(params: Any) -> Any:
    """The SGLang request of a row that asks for thinkgate, or None."""
    if not params or OPTION_KEY not in params:
        return None
    req = params.get("__req__")
    if req is None:  # SGLang always sends it; without it no request can be followed
        log.error("thinkgate: custom_params without SGLang's '__req__'; the row is left unconstrained")
    return req


# SGLang's verify of drafted tokens (DFlash, DSpark) hands a processor one row per drafted
# position, each with the same request and its committed tokens only; the overlap scheduler runs
# it before the previous step's token is recorded. Masks from such rows would not be the
# request's: the request ends with this error instead (start-up and admission refuse both
# settings; this holds wherever a request slips past them).
_SEVERAL_ROWS = "SGLang handed the logit processor several rows of this request in one step (a speculative verify) without the drafted tokens, so no row's mask would be the request's; serve thinkgate's processor without --speculative-algorithm"
_BEHIND = "SGLang ran the logit processor before recording this request's previous token (the overlap scheduler), so its mask would be a token behind; start the server with --disable-overlap-schedule"


def _row(state: _Requests, params: dict, req: Any, width: int, verifying: set) -> Optional[ReasonerGrammar | FailedRequest]:
    """The constraint of one row: the request's, brought up to the tokens SGLang has recorded
    for it, or one that may only end when the row's mask could not be the request's."""
    rid = str(req.rid)
    grammar = _follow(state, params, req, width)
    if grammar is None:
        return None
    finished = getattr(req, "finished", None)
    if callable(finished) and finished():
        state.grammars.pop(rid, None)
        return None
    if rid in verifying:
        return _end(state, rid, req, grammar, _SEVERAL_ROWS)
    if _behind(req):
        return _end(state, rid, req, grammar, _BEHIND)
    return grammar


def _follow(state: _Requests, params: dict, req: Any, width: int) -> Optional[ReasonerGrammar | FailedRequest]:
    rid = str(req.rid)
    out = req.output_ids
    entry = state.grammars.get(rid)
    if entry is None or len(out) < entry[1][0]:  # new, or retracted and started over without its tokens
        grammar = _request_grammar(state, params, req, width)
        if grammar is None:
            return None
        entry = state.grammars[rid] = (grammar, [0])
        while len(state.grammars) > _MAX_TRACKED:
            state.grammars.popitem(last=False)
    grammar, seen = entry
    for t in list(out[seen[0] :]):
        grammar.accept_token(int(t))
    seen[0] = len(out)
    return grammar


def _behind(req: Any) -> bool:
    """SGLang counts a decode step in ``decode_batch_idx`` before it runs and records its token
    after; run in step, a request has at least as many tokens as decode steps."""
    steps = getattr(req, "decode_batch_idx", None)
    return isinstance(steps, int) and len(req.output_ids) < steps


def _end(state: _Requests, rid: str, req: Any, grammar: ReasonerGrammar | FailedRequest, why: str) -> FailedRequest:
    if isinstance(grammar, FailedRequest):  # ended already, and said why
        return grammar
    log.error("thinkgate: request %s ended: %s", rid, why)
    failed = FailedRequest(grammar.grammar.vocab.stop_token_ids, why)
    state.grammars[rid] = (failed, state.grammars[rid][1])
    _abort(req, why)
    return failed


def _abort(req: Any, why: str) -> None:
    """Have SGLang finish the request with this error at its next step (the client gets a 400),
    as SGLang does when its own grammar rejects a token."""
    try:
        from sglang.srt.managers.schedule_batch import FINISH_ABORT
    except ImportError:  # SGLang's serving modules are not importable here: the row still ends at a stop token
        return
    req.to_finish = FINISH_ABORT(f"thinkgate: {why}", HTTPStatus.BAD_REQUEST, "BadRequestError")


def _request_grammar(state: _Requests, params: dict, req: Any, width: int) -> Optional[ReasonerGrammar | FailedRequest]:
    """A new request's constraint. ``custom_params`` checked its options and compiled its grammar
    on the client's side; whatever still fails here ends this request alone (it may only end),
    never the batch. None: not even the tokenizer loads, and the row is left as it is."""
    try:
        opts, path = _options(params)
        tok = state.tokenizer(path)
    except Exception as e:
        log.error("thinkgate: a request's options or tokenizer failed (%s); the row is left unconstrained", e)
        return None
    try:
        compiled = compile_tool_grammar(tok, opts.format, opts.tools, opts.tool_choice, opts.parallel_tool_calls, vocab_size=max(width, len(tok)), max_whitespace=opts.max_whitespace, unsupported=opts.unsupported, response_format=opts.response_format, strict=opts.strict)
        limit = getattr(getattr(req, "sampling_params", None), "max_new_tokens", None)
        return ReasonerGrammar(compiled, prompt_token_ids=list(req.origin_input_ids), thinking=opts.thinking, thinking_budget=opts.thinking_budget, max_tokens=limit)
    except Exception as e:
        log.error("thinkgate: a request's grammar failed (%s); the request is ended", e)
        _abort(req, f"the request's grammar failed ({type(e).__name__}: {e})")
        try:
            stops = vocabulary_for(tok, max(width, len(tok))).stop_token_ids
        except Exception:
            stops = tuple(i for i in (getattr(tok, "eos_token_id", None),) if i is not None)
        return FailedRequest(stops, f"{type(e).__name__}: {e}")


def custom_params(format: str, tokenizer_path: str, tools: Any = None, tool_choice: Any = "auto", *, strict: int = DEFAULT_STRICT, **options: Any) -> dict:
    """The ``custom_params`` that opt a request in (checked now, so a bad request fails here).
    ``strict``: 0 parse only (under ``auto``), 1 markup and tool names, 2 full schemas."""
    opts = RequestOptions(format=get_format(format).name, tools=tools, tool_choice=tool_choice, strict=check_strict(strict), **options)
    check_options(opts)
    data = json.loads(opts.to_json())
    data["tokenizer"] = tokenizer_path
    return {OPTION_KEY: json.dumps(data, ensure_ascii=False)}


# Where SGLang 0.5.23 would not run thinkgate's processor on every step with each request's
# tokens up to date. Each rule reads SGLang's resolved settings and returns the one at fault,
# what it does to the processor and the way out; the source each rests on is in the rule.

_VERIFY_WITHOUT_PROCESSORS = frozenset({"EAGLE", "EAGLE3", "NEXTN", "FROZEN_KV_MTP", "STANDALONE", "NGRAM"})
_VERIFY_ROW_PER_DRAFT = frozenset({"DFLASH", "DSPARK"})


def _speculative(server_args: Any, cfg: Any) -> Optional[str]:
    """EAGLE, EAGLE3, NEXTN, FROZEN_KV_MTP, STANDALONE and NGRAM verify drafts in
    ``speculative/eagle_utils.py:eagle_sample``, which applies penalties, logit bias and SGLang's
    grammar mask but no custom logit processor. DFlash and DSpark call them
    (``speculative/dflash_utils.py:apply_dflash_verify_logits_adjustments``) through
    ``layers/sampler.py:apply_custom_logit_processor(num_tokens_in_batch=k)``: one row per
    drafted position, each with the same request and without the drafted tokens. UNO refuses
    requests with a processor (``speculative/uno_validation.py``)."""
    algorithm = cfg.speculative_algorithm
    if algorithm is None:
        return None
    kind = str(algorithm).upper()
    if kind in _VERIFY_WITHOUT_PROCESSORS:
        effect = "SGLang's verify (eagle_sample) never calls custom logit processors, so thinkgate's processor would constrain nothing"
    elif kind in _VERIFY_ROW_PER_DRAFT:
        effect = "SGLang's verify calls custom logit processors once per drafted position without the drafted tokens, so thinkgate could not mask the drafted positions"
    elif kind == "UNO":
        effect = "SGLang refuses custom logit processors under it"
    else:
        effect = "thinkgate has not checked that this algorithm calls custom logit processors at every drafted position"
    return f"--speculative-algorithm {server_args.speculative_algorithm or algorithm}: {effect}; drop --speculative-algorithm to use thinkgate's processor"


def _diffusion(server_args: Any, cfg: Any) -> Optional[str]:
    """A diffusion LLM (``dllm/``) fills many positions a step; thinkgate follows one token at a time."""
    if cfg.dllm_algorithm is None:
        return None
    return f"--dllm-algorithm {cfg.dllm_algorithm}: diffusion decoding fills many positions a step, which thinkgate's processor cannot follow; drop --dllm-algorithm to use it"


def _sampler(server_args: Any, cfg: Any) -> Optional[str]:
    """SGLang's own backends all sample through ``layers/sampler.py:Sampler.forward``, whose
    ``_preprocess_logits`` calls the processors; a plugin's sampler
    (``register_sampler_backend``) may override that."""
    from sglang.srt.arg_groups.choices import BUILT_IN_SAMPLING_BACKENDS

    backend = cfg.sampling_backend
    if backend is None or backend in BUILT_IN_SAMPLING_BACKENDS:
        return None
    return f"--sampling-backend {backend}: a plugin's sampler, which may not call custom logit processors; use one of SGLang's own ({', '.join(sorted(BUILT_IN_SAMPLING_BACKENDS))}) with thinkgate's processor"


def _overlap(server_args: Any, cfg: Any) -> Optional[str]:
    """``managers/scheduler.py:event_loop_overlap`` launches a step (``run_batch``, which samples
    at once in ``managers/tp_worker.py:forward_batch_generation`` unless the batch has a grammar
    or ``SGLANG_ENABLE_DELAY_SAMPLE`` is set) before ``process_batch_result`` appends the last
    step's token to ``req.output_ids``. A disaggregated prefill server samples only the first
    token, from the prompt, so it is unaffected."""
    from sglang.srt.environ import envs

    if cfg.disable_overlap_schedule or cfg.disaggregation_mode == "prefill" or envs.SGLANG_ENABLE_DELAY_SAMPLE.get():
        return None
    return "the overlap scheduler (on unless --disable-overlap-schedule): it runs custom logit processors before a request's previous token is recorded, so thinkgate's masks would be a token behind; add --disable-overlap-schedule (or set SGLANG_ENABLE_DELAY_SAMPLE=1)"


_RULES = (_speculative, _diffusion, _sampler, _overlap)
# The settings under which the processor never runs a step of a request (with the overlap
# scheduler it runs a token behind, which the processor itself notices and ends the request for).
_NEVER_CALLED = (_speculative, _diffusion, _sampler)


def processor_skip_reason(server_args: Any) -> Optional[str]:
    """Why SGLang, so configured, would skip thinkgate's processor or run it on a stale token
    history, as one line naming the setting and the choices; None where it runs it at every
    step with each request's tokens up to date (the plain scheduler, pipeline parallelism,
    disaggregated prefill and decode, PD multiplexing)."""
    from sglang.srt.arg_groups.model_override_base import resolving_view

    cfg = resolving_view(server_args)
    for rule in _RULES:
        reason = rule(server_args, cfg)
        if reason is not None:
            return f"thinkgate: {reason}, or leave thinkgate's processor out and use SGLang's own structured outputs"
    return None


def _set_up_for_thinkgate(cfg: Any) -> bool:
    return any(str(getattr(cfg, name, None) or "").startswith("thinkgate_") for name in ("tool_call_parser", "reasoning_parser"))


def check_server_args(server_args: Any) -> None:
    """At start-up, after SGLang's own checks: a server set up for thinkgate (custom logit
    processors on and a ``thinkgate_*`` parser) where SGLang would not run the processor does
    not start. With custom logit processors on for another use, one warning line says so, and
    :func:`check_request` refuses the requests that ask for thinkgate."""
    from sglang.srt.arg_groups.model_override_base import resolving_view

    cfg = resolving_view(server_args)
    if not cfg.enable_custom_logit_processor:
        return  # SGLang refuses every request that names a processor
    reason = processor_skip_reason(server_args)
    if reason is None:
        return
    if _set_up_for_thinkgate(cfg):
        raise ValueError(reason)
    workers = getattr(cfg, "tokenizer_worker_num", 1) or 1
    never_called = any(rule(server_args, cfg) for rule in _NEVER_CALLED)
    if workers > 1 and never_called:
        # SGLang loads no plugins in its tokenizer workers (http_server.init_multi_tokenizer):
        # check_request would not run there, and no step would hold such a request either
        raise ValueError(f"{reason}; with --tokenizer-worker-num {workers} SGLang loads no plugins in its tokenizer workers, so thinkgate could not refuse the requests that ask for it there: run one tokenizer worker")
    log.warning("%s (requests that ask for thinkgate will be refused)", reason)


def check_request(server_args: Any, obj: Any) -> None:
    """At admission (SGLang's ``TokenizerManager._validate_one_request``): a request whose
    ``custom_params`` ask for thinkgate is refused with a ValueError, SGLang's 400, wherever
    thinkgate's processor would not constrain it."""
    params = getattr(obj, "sampling_params", None)
    custom = params.get("custom_params") if isinstance(params, dict) else None
    if not isinstance(custom, dict) or OPTION_KEY not in custom:
        return
    reason = _processor_named(getattr(obj, "custom_logit_processor", None)) or _beams(params) or processor_skip_reason(server_args)
    if reason is not None:
        raise ValueError(reason)


def _processor_named(serialized: Any) -> Optional[str]:
    """thinkgate's custom_params do nothing unless the request names thinkgate's processor."""
    if not isinstance(serialized, str) or not serialized:
        return "thinkgate: custom_params ask for thinkgate, but the request names no custom_logit_processor, so nothing would constrain it; send ThinkgateLogitProcessor.to_str() as its custom_logit_processor"
    try:
        processor = CustomLogitProcessor.from_str(serialized)
    except Exception as e:
        return f"thinkgate: custom_params ask for thinkgate, but the request's custom_logit_processor cannot be loaded ({type(e).__name__}: {e})"
    if not isinstance(processor, ThinkgateLogitProcessor):
        return f"thinkgate: custom_params ask for thinkgate, but the request's custom_logit_processor is {type(processor).__name__}, not ThinkgateLogitProcessor"
    return None


def _beams(params: dict) -> Optional[str]:
    """Beam search ranks its beams on logits copied before sampling
    (``beam_search/logits_capture.py:capture_pre_sample_logits``), so no processor shapes them."""
    width = params.get("beam_width") or 1
    if width <= 1:
        return None
    return f"thinkgate: beam search (beam_width {width}) ranks beams on logits taken before custom logit processors run, so thinkgate's would constrain nothing; leave beam_width out to use it"


def _after_check_server_args(result: Any, server_args: Any, *args: Any, **kwargs: Any) -> None:
    check_server_args(server_args)


def _after_validate_one_request(result: Any, tokenizer_manager: Any, obj: Any, *args: Any, **kwargs: Any) -> None:
    check_request(tokenizer_manager.server_args, obj)


HOOKS = (
    ("sglang.srt.server_args.ServerArgs.check_server_args", _after_check_server_args),
    ("sglang.srt.managers.tokenizer_manager.TokenizerManager._validate_one_request", _after_validate_one_request),
)


def _register_hooks() -> None:
    """SGLang applies plugin hooks once its plugins have run (``load_plugins``), in every
    process. A second ``register()`` in one process (a test, a script) must not wrap twice."""
    from sglang.srt.plugins.hook_registry import HookRegistry, HookType

    for target, hook in HOOKS:
        if all(registered is not hook for _, registered, _ in HookRegistry._hooks.get(target, ())):
            HookRegistry.register(target, hook, HookType.AFTER)


class ThinkgateDetector(BaseFormatDetector):
    """SGLang function-call detector reading one format with thinkgate's streaming parser."""

    format: ChatFormat

    def __init__(self) -> None:
        super().__init__()
        t = self.format.tools
        self.bot_token = t.trigger
        self.eot_token = t.markup_end
        self._stream: Optional[StreamParser] = None

    def has_tool_call(self, text: str) -> bool:
        return self.format.tools.holds_calls(text)

    def _index(self, tools: Any) -> dict[str, int]:
        return {name: i for i, name in enumerate(t["function"]["name"] for t in (plain_tools(tools) or []))}

    def _reading(self, tools: Any) -> dict:
        """The server's strict level, and under its ``THINKGATE_UNSUPPORTED=relax`` the schemas
        the grammar held calls to (a detector does not see the request's own options)."""
        strict = default_strict()
        return {"strict": strict, "enforced_schemas": enforced_schemas(self.format.name, plain_tools(tools), "auto", strict, default_unsupported())}

    def detect_and_parse(self, text: str, tools: Any) -> StreamingParseResult:
        try:
            m = parse(text, self.format, thinking=False, tools=plain_tools(tools), on_invalid_call=ENGINE_INVALID_CALLS, **self._reading(tools))
        except Exception:  # never the server's error: the output comes back as text
            log.exception("thinkgate: reading the tool calls failed; the output is returned as text")
            return StreamingParseResult(normal_text=text, calls=[])
        index = self._index(tools)
        calls = [ToolCallItem(tool_index=index.get(c.name, -1), name=c.name, parameters=c.arguments) for c in m.tool_calls]
        return StreamingParseResult(normal_text=m.content or "", calls=calls)

    def parse_streaming_increment(self, new_text: str, tools: Any) -> StreamingParseResult:
        try:
            if self._stream is None:
                self._stream = StreamParser(self.format, thinking=False, tools=plain_tools(tools), on_invalid_call=ENGINE_INVALID_CALLS, **self._reading(tools))
            events = self._stream.feed_events(new_text)
        except Exception:  # never the server's error: the rest streams as text
            log.exception("thinkgate: reading the tool calls failed; the rest is streamed as text")
            self._stream = _Passthrough()
            return StreamingParseResult(normal_text=new_text, calls=[])
        text: list[str] = []
        calls: list[ToolCallItem] = []
        for ev in events:
            if isinstance(ev, ContentDelta):
                text.append(ev.text)
            elif isinstance(ev, ToolCallStart):
                self.current_tool_id = ev.index
                self.current_tool_name_sent = True
                self.prev_tool_call_arr.append({"name": ev.name, "arguments": {}})
                self.streamed_args_for_tool.append("")
                calls.append(ToolCallItem(tool_index=ev.index, name=ev.name, parameters=""))
            elif isinstance(ev, ToolCallArgumentsDelta):
                self.streamed_args_for_tool[ev.index] += ev.text
                calls.append(ToolCallItem(tool_index=ev.index, name=None, parameters=ev.text))
        for i, args in enumerate(self.streamed_args_for_tool):
            try:
                self.prev_tool_call_arr[i]["arguments"] = json.loads(args)
            except ValueError:
                pass
        return StreamingParseResult(normal_text="".join(text), calls=calls)

    def structure_info(self):
        def info(name: str) -> StructureInfo:
            begin, end, trigger = self.format.tools.call_frame(name)
            return StructureInfo(begin=begin, end=end, trigger=trigger)

        return info

    def supports_structural_tag(self) -> bool:
        return False  # thinkgate's processor enforces the calls, with thinking left free

    def parses_required_natively(self) -> bool:
        return True


class _Passthrough:
    """What a stream whose parser failed becomes: every later delta is text."""

    def feed_events(self, delta_text: str, token_ids: Any = None) -> list:
        return [ContentDelta(delta_text)] if delta_text else []


class ThinkgateReasoningDetector(BaseReasoningFormatDetector):
    """SGLang's ``--reasoning-parser thinkgate_<format>``: reasoning split from the answer by
    thinkgate's parser, the answer verbatim (the tool parser reads it). Where a tool parser is
    active, the tool markup's token written while thinking ends the reasoning there, as
    thinkgate's grammar reads it (SGLang passes the detector no token ids: the marker is
    matched as text). ``force_reasoning``: the output starts inside the reasoning; ``False``:
    the model may open it; unset: the format's default."""

    format: ChatFormat

    def __init__(self, stream_reasoning: bool = True, force_reasoning: Optional[bool] = None, tool_call_parser_active: bool = False, **_: Any) -> None:
        fmt = self.format
        super().__init__(fmt.reasoning.open, fmt.reasoning.close, force_reasoning=bool(force_reasoning), stream_reasoning=stream_reasoning)
        self._thinking = fmt.reasoning.default_thinking if force_reasoning is None else True if force_reasoning else "auto"
        self._calls = tool_call_parser_active
        self._stream: Any = StreamParser(fmt, thinking=self._thinking, reasoning_only=True, recover_calls_in_reasoning=tool_call_parser_active)
        self._held: list[str] = []  # reasoning held until it ends (stream_reasoning off)

    def detect_and_parse(self, text: str) -> ReasoningResult:
        try:
            m = parse(text, self.format, thinking=self._thinking, reasoning_only=True, recover_calls_in_reasoning=self._calls)
        except Exception:  # never the server's 500: the output comes back as text
            log.exception("thinkgate: reading the reasoning failed; the output is returned as text")
            return ReasoningResult(normal_text=text)
        return ReasoningResult(normal_text=m.content or "", reasoning_text=m.reasoning_content or "")

    def parse_streaming_increment(self, new_text: str) -> ReasoningResult:
        try:
            events = self._stream.feed_events(new_text)
        except Exception:  # never the server's 500: the rest of the output streams as text
            log.exception("thinkgate: reading the reasoning failed; the rest is streamed as text")
            self._stream = _Passthrough()
            return ReasoningResult(normal_text=new_text)
        return self._result(events)

    def finish(self) -> ReasoningResult:
        if isinstance(self._stream, _Passthrough):
            return ReasoningResult()
        return self._result(self._stream.finish_events(), end=True)

    def _result(self, events: list, end: bool = False) -> ReasoningResult:
        reasoning, text = [], []
        for ev in events:
            if isinstance(ev, ReasoningDelta):
                (reasoning if self.stream_reasoning else self._held).append(ev.text)
            elif isinstance(ev, ReasoningEnd) and self._held:
                reasoning.append("".join(self._held))
                self._held = []
            elif isinstance(ev, ContentDelta):
                text.append(ev.text)
        if end and self._held:
            reasoning.append("".join(self._held))
            self._held = []
        return ReasoningResult(normal_text="".join(text), reasoning_text="".join(reasoning))


def detector_classes() -> dict[str, type]:
    out = {}
    for name in format_names():
        fmt = get_format(name)
        cls = format_class(ThinkgateDetector, fmt, "Detector", globals())
        out["thinkgate_" + fmt.name] = cls
    return out


def reasoning_detector_classes() -> dict[str, type]:
    """A reasoning detector per format that thinks (Llama 3.x has none)."""
    out = {}
    for name in format_names():
        fmt = get_format(name)
        if fmt.reasoning.present:
            out["thinkgate_" + fmt.name] = format_class(ThinkgateReasoningDetector, fmt, "ReasoningDetector", globals())
    return out


DETECTORS = detector_classes()
REASONING_DETECTORS = reasoning_detector_classes()


def register() -> None:
    """Add thinkgate's detectors to SGLang's ``FunctionCallParser`` and ``ReasoningParser``
    registries, and the checks that refuse what thinkgate's processor cannot constrain
    (:func:`check_server_args` at start-up, :func:`check_request` at admission)."""
    from sglang.srt.function_call.function_call_parser import FunctionCallParser
    from sglang.srt.parser.reasoning_parser import ReasoningParser

    FunctionCallParser.ToolCallParserEnum.update(DETECTORS)
    ReasoningParser.DetectorMap.update(REASONING_DETECTORS)
    _register_hooks()


__all__ = ["ThinkgateDetector", "ThinkgateLogitProcessor", "ThinkgateReasoningDetector", "check_request", "check_server_args", "custom_params", "processor_skip_reason", "register"]
