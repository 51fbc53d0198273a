"""Which way vLLM constrains a request that thinkgate accepted, and the structured-output way.

Two paths:

- ``processor``: :class:`~thinkgate.integrations.vllm.ThinkgateLogitsProcessor` runs in the
  engine (Model Runner V2, or the V1 runner without speculative decoding) and holds the request;
  the tool parser hands it the request's options through ``vllm_xargs``.
- ``structured_outputs``: the processor does not run — vLLM 0.32's V1 runner with a
  ``speculative_config`` refuses ``--logits-processors`` ("Custom logits processors are not
  supported when speculative decoding is enabled") and silently leaves out the entry-point
  plugins (``build_logitsprocs`` in ``vllm/v1/sample/logits_processor/__init__.py`` returns only
  its min-tokens processor); TPU loads none; or the operator chose vLLM's own structured outputs
  (``THINKGATE_VLLM_PATH=structured_outputs``). The tool parser then hands vLLM's xgrammar backend
  thinkgate's structural tag for the request (:func:`structured_outputs_tag`).

vLLM gives a parser no view of the engine's configuration (a tool parser gets the tokenizer and
the tools, a reasoning parser the ``ModelConfig``; ``get_current_vllm_config`` is set only while
models are built), so :func:`engine_paths` finds the ``VllmConfig`` objects of this process (the
API server builds one before it serves, ``LLM`` one per engine) among the garbage collector's
objects, frozen ones included, and :func:`path_for` reads each.
"""

from __future__ import annotations

import functools
import gc
import json
import logging
import os
import threading
import time
import weakref
from dataclasses import dataclass
from typing import Any, Optional

from ..formats import ChatFormat, Thinking
from ..formats.templates import chat_template
from ..formats.tokens import single_token_id, thinking_from_prompt

# A child of vLLM's logger: the lines land in the server's log, in its format, under
# VLLM_LOGGING_LEVEL (the per-request lines are debug).
log = logging.getLogger("vllm.thinkgate")

PROCESSOR = "processor"
STRUCTURED_OUTPUTS = "structured_outputs"
# "auto" (the default: the processor where it runs, else vLLM's structured outputs) or
# "structured_outputs" (always vLLM's, e.g. to keep vLLM's async scheduling and grammar backend
# in charge). There is no way to force the processor: where it does not run, that would leave the
# request unconstrained.
PATH_ENV = "THINKGATE_VLLM_PATH"
_PATH_CHOICES = ("auto", STRUCTURED_OUTPUTS)
# The structured-output backends that compile thinkgate's tag ("auto" tries xgrammar first, and
# thinkgate's tag is one xgrammar takes).
_TAG_BACKENDS = ("auto", "xgrammar")

# What the structured-output path holds differently from the processor, said once per server.
NOT_HELD = (
    "a call is not kept room to finish within max_tokens (a call cut there ends with finish_reason 'length': "
    "its text in the content, streamed and not); a tool-call token written while thinking is "
    "refused (thinking closes first); a marker token inside a JSON string is taken as its text (vLLM's vocabulary)"
)


@dataclass(frozen=True)
class Path:
    """The path requests take in one engine, why, and what that engine cannot do on it."""

    name: str  # PROCESSOR or STRUCTURED_OUTPUTS
    reason: str
    # Where the structured-output path cannot hold thinkgate's tag: the refusal a request gets.
    refusal: Optional[str] = None
    # Whether vLLM's thinking budget is set up (a reasoning parser gives it its markers).
    thinking_budget: bool = False


def chosen_path() -> str:
    value = os.environ.get(PATH_ENV, "auto")
    if value not in _PATH_CHOICES:
        raise ValueError(f"the environment variable {PATH_ENV} must be one of {', '.join(_PATH_CHOICES)}, not {value!r}")
    return value


def path_for(vllm_config: Any) -> Path:
    """The path of the engine that ``vllm_config`` (a ``vllm.config.VllmConfig``) configures."""
    so = getattr(vllm_config, "structured_outputs_config", None)
    backend = getattr(so, "backend", "auto")
    refusal = None
    if backend not in _TAG_BACKENDS:
        refusal = (
            f"this server's structured-output backend is {backend!r} (--structured-outputs-config), which cannot "
            f"compile thinkgate's structural tag; run it with backend 'xgrammar' or 'auto'"
        )
    rc = getattr(vllm_config, "reasoning_config", None)
    budget = bool(rc is not None and getattr(rc, "enabled", False))

    def so_path(reason: str) -> Path:
        return Path(STRUCTURED_OUTPUTS, reason, refusal, budget)

    if chosen_path() == STRUCTURED_OUTPUTS:
        return so_path(f"{PATH_ENV}=structured_outputs")
    if not _registered(vllm_config):
        return so_path("thinkgate's logits processor is not registered (no vllm.logits_processors entry point, not in --logits-processors)")
    if _on_tpu():
        return so_path("vLLM loads no custom logits processors on TPU")
    spec = getattr(vllm_config, "speculative_config", None)
    v2 = _uses_v2_runner(vllm_config)
    if spec is not None and not v2:
        method = getattr(spec, "method", None) or "on"
        return so_path(
            f"speculative decoding ({method}) under the V1 model runner: vLLM leaves logits-processor plugins out "
            "(build_logitsprocs) and refuses --logits-processors"
        )
    runner = "Model Runner V2" if v2 else "the V1 model runner"
    return Path(PROCESSOR, f"thinkgate's logits processor runs under {runner}" + (f" with speculative decoding ({spec.method})" if spec is not None else ""), None, budget)


def _uses_v2_runner(vllm_config: Any) -> bool:
    try:
        return bool(vllm_config.use_v2_model_runner)
    except Exception:  # (a setting vLLM itself refuses: the engine does not start either)
        return False


def _on_tpu() -> bool:
    try:
        from vllm.platforms import current_platform

        return bool(current_platform.is_tpu())
    except Exception:
        return False


def _registered(vllm_config: Any) -> bool:
    """Whether vLLM will load thinkgate's processor: the entry point (loaded for every engine)
    or ``--logits-processors`` naming it (a class or ``module:Class``)."""
    from importlib.metadata import entry_points

    from .vllm import ThinkgateLogitsProcessor

    def ours(item: Any) -> bool:
        if isinstance(item, str):
            module, _, name = item.partition(":")
            try:
                import importlib

                item = getattr(importlib.import_module(module), name)
            except Exception:
                return False
        return isinstance(item, type) and issubclass(item, ThinkgateLogitsProcessor)

    for ep in entry_points(group="vllm.logits_processors"):
        try:
            if ours(ep.load()):
                return True
        except Exception:
            continue
    mc = getattr(vllm_config, "model_config", None)
    return any(ours(p) for p in (getattr(mc, "logits_processors", None) or ()))


# ---------------------------------------------------------------------------- this process

# id -> weak reference (VllmConfig is an unhashable dataclass: no WeakSet)
_CONFIGS: dict[int, Any] = {}
_PATHS: dict[int, tuple[Any, Path]] = {}  # id(config) -> (weakref to it, its path)
_LOCK = threading.Lock()
_LAST_SCAN = [float("-inf")]
# With no engine found, look again at most this often (the API server builds its engine
# before it serves, so the first look finds it; a process with none pays one look per period).
_RESCAN_S = 10.0


def _vllm_config_type() -> Optional[type]:
    try:
        from vllm.config import VllmConfig

        return VllmConfig
    except Exception:
        return None


def engine_configs() -> list:
    """The live ``VllmConfig`` objects of this process (found once by the garbage collector's
    list of objects; kept while they live)."""
    with _LOCK:
        found = _live()
        if found or time.monotonic() - _LAST_SCAN[0] < _RESCAN_S:
            return found
        _LAST_SCAN[0] = time.monotonic()
        cls = _vllm_config_type()
        if cls is None:
            return []
        for obj in _all_objects():
            if type(obj) is cls:
                _CONFIGS[id(obj)] = weakref.ref(obj)
        found = _live()
        log.debug("thinkgate: looked for vLLM engines in this process: %d found", len(found))
        return found


def _all_objects() -> list:
    """``gc.get_objects()``, frozen objects included: vLLM's API server (and an in-process
    engine core) calls ``gc.freeze()`` once started (``freeze_gc_heap``), and the frozen — its
    engine config among them — are not listed otherwise. The heap is frozen again afterwards as
    vLLM freezes it, after a full collection, so that nothing dead is frozen with it (this runs
    once, at the first request that needs the path)."""
    frozen = gc.get_freeze_count() > 0
    if not frozen:
        return gc.get_objects()
    enabled = gc.isenabled()
    gc.disable()
    try:
        gc.unfreeze()
        try:
            return gc.get_objects()
        finally:
            gc.collect()
            gc.freeze()
    finally:
        if enabled:
            gc.enable()


def _live() -> list:
    out = []
    for key, ref in list(_CONFIGS.items()):
        obj = ref()
        if obj is None:
            del _CONFIGS[key]
        else:
            out.append(obj)
    return out


def forget_engines() -> None:
    """Look for engines anew on the next call (tests that build and drop configs)."""
    with _LOCK:
        _CONFIGS.clear()
        _PATHS.clear()
        _LAST_SCAN[0] = float("-inf")


def config_path(vllm_config: Any) -> Path:
    """:func:`path_for`, once per engine, said in the log once per engine."""
    key = id(vllm_config)
    with _LOCK:
        held = _PATHS.get(key)
        if held is not None and held[0]() is vllm_config:
            return held[1]
    path = path_for(vllm_config)
    with _LOCK:
        _PATHS[key] = (weakref.ref(vllm_config), path)
    if path.name == STRUCTURED_OUTPUTS:
        log.warning(
            "thinkgate: requests with tools or a JSON response_format take the structured_outputs path: %s. "
            "vLLM's structured outputs hold thinkgate's structural tag from the first generated token, thinking included%s. "
            "Not held on this path: %s.",
            path.reason,
            f"; refused: {path.refusal}" if path.refusal else "",
            NOT_HELD,
        )
    else:
        log.info("thinkgate: requests with tools or a JSON response_format take the processor path: %s.", path.reason)
    return path


def engine_paths(model_config: Any = None) -> list[Path]:
    """The paths of this process's engines: of the one whose ``ModelConfig`` is ``model_config``
    where given and found, else of all of them (none: no engine in this process)."""
    configs = engine_configs()
    if model_config is not None:
        mine = [c for c in configs if getattr(c, "model_config", None) is model_config]
        configs = mine or configs
    return [config_path(c) for c in configs]


def request_path(model_config: Any = None) -> Optional[Path]:
    """The path for a request the parsers adjust: the engine's; where several engines disagree,
    the structured-output one (it holds the request whether or not a processor runs too); None
    where this process has no engine (the parsers used on their own: the processor's, as
    before). :data:`PATH_ENV` set to ``structured_outputs`` chooses that path even then."""
    paths = engine_paths(model_config)
    if not paths:
        if chosen_path() == STRUCTURED_OUTPUTS:
            return Path(STRUCTURED_OUTPUTS, f"{PATH_ENV}=structured_outputs", thinking_budget=True)
        return None
    for p in paths:
        if p.name == STRUCTURED_OUTPUTS:
            return p
    return paths[0]


def processor_refusal() -> Optional[str]:
    """Why a request that carries thinkgate's processor options must be refused (the processor
    would not see it), or None. Only where every engine of this process leaves it out: with one
    that runs it, the request may be that engine's."""
    paths = engine_paths()
    if paths and all(p.name == STRUCTURED_OUTPUTS for p in paths):
        return (
            f"thinkgate's logits processor does not run in this engine ({paths[0].reason}), so the request's "
            "thinkgate options would be ignored and its output left unconstrained; give vLLM thinkgate's "
            "structural tag instead (structured_outputs=StructuredOutputsParams(structural_tag=json.dumps("
            "thinkgate.constraint.build_structural_tag(..., tokenizer=...)))), or serve through vLLM's OpenAI "
            "server with thinkgate's parser plugins, which do so"
        )
    return None


# ---------------------------------------------------------------------------- the tag


def prompt_stage(tokenizer: Any, fmt: ChatFormat, template: Optional[str] = None, kwargs: Optional[dict] = None) -> Thinking:
    """The stage an output starts in under ``template`` (else the tokenizer's own, else the
    format's) with these chat-template keywords: the generation prompt of a one-message
    conversation, read as :func:`~thinkgate.formats.tokens.thinking_from_prompt` reads a prompt.

    vLLM renders the prompt before it adjusts the request but hands the parsers neither the
    prompt nor the server's ``--chat-template``; the generation prompt's end depends on the
    template and its keywords, not on the conversation."""
    if not fmt.reasoning.present:
        return False
    source = template or getattr(tokenizer, "chat_template", None) or chat_template(fmt)
    try:
        key = json.dumps(kwargs or {}, sort_keys=True, default=str)
    except (TypeError, ValueError):
        key = repr(sorted((kwargs or {}).items(), key=str))
    return _stage(_Held(tokenizer), fmt.name, source, key)


class _Held:
    """A tokenizer as a cache key: by identity (vLLM holds one per server)."""

    __slots__ = ("tokenizer",)

    def __init__(self, tokenizer: Any):
        self.tokenizer = tokenizer

    def __hash__(self) -> int:
        return id(self.tokenizer)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Held) and other.tokenizer is self.tokenizer


# keywords apply_chat_template takes itself: a request's own are not passed twice
_OWN_KEYWORDS = {"conversation", "tools", "documents", "chat_template", "add_generation_prompt", "continue_final_message", "tokenize", "return_dict"}


@functools.lru_cache(maxsize=256)
def _stage(held: _Held, format_name: str, source: str, kwargs_json: str) -> Thinking:
    from ..formats import get_format

    fmt = get_format(format_name)
    tokenizer = held.tokenizer
    kwargs = {k: v for k, v in json.loads(kwargs_json).items() if k not in _OWN_KEYWORDS} if kwargs_json.startswith("{") else {}
    try:
        text = tokenizer.apply_chat_template(
            [{"role": "user", "content": "x"}], add_generation_prompt=True, tokenize=False, chat_template=source, **kwargs
        )
        ids = tokenizer.encode(text, add_special_tokens=False)
        return thinking_from_prompt(ids, tokenizer, fmt)
    except Exception as e:
        log.warning("thinkgate: reading the thinking stage from the chat template failed (%s); the format's default (%r) is used", e, fmt.reasoning.default_thinking)
        return fmt.reasoning.default_thinking


def structured_outputs_tag(tag: dict, fmt: ChatFormat, stage: Thinking, tokenizer: Any) -> dict:
    """``tag`` (:func:`~thinkgate.constraint.build_structural_tag`'s, the output after thinking)
    with the thinking ahead of it, for vLLM to hold from the first generated token.

    vLLM 0.32's own reasoning gate cannot start it right: it starts a grammar after the token
    that ends reasoning (so a grammar whose first token ends thinking — thinkgate's reading of a
    tool-call token written while thinking — would miss that token), and an output that may or
    may not open thinking (a prompt that leaves it to the model: Qwen3, GLM-4.5, DeepSeek-V3,
    Kimi-K2, ...) would be left unconstrained if the model answered at once. So the request says
    the grammar holds the reasoning itself (as vLLM's own Mistral parser does), and the tag does:
    stage ``True`` free tokens up to the close marker, ``"auto"`` that or the answer at once,
    ``False`` the answer. Free thinking excludes control tokens (the tool markup's among them:
    thinking closes before a call), as the answer's free text does."""
    from ..constraint.grammar.tag_elements import const, either, reasoning, seq, structural_tag, token, token_dispatch

    if stage is False or not fmt.reasoning.present:
        return tag
    if fmt.tools.messages is not None:
        raise ValueError(
            f"format {fmt.name!r} writes its reasoning as channel messages, which thinkgate's structural tag does not "
            "hold on vLLM's structured-output path; serve it where thinkgate's logits processor runs"
        )
    r = fmt.reasoning
    answer = tag["format"]
    opened = [const(fmt.answer[0])] if fmt.answer[0] else []
    then = seq([*opened, answer])
    open_id = close_id = None
    if not fmt.text_reasoning:
        open_id, close_id = single_token_id(tokenizer, r.open), single_token_id(tokenizer, r.close)
    if open_id is None or close_id is None:
        # markers written as text: the grammar holds the text up to the close marker
        if stage is True:
            return structural_tag(seq([reasoning(None, str(r.close)), then]))
        return structural_tag(either([seq([reasoning(str(r.open), str(r.close)), then]), answer]))
    from ..constraint.runtime.vocabulary import vocabulary_for
    from ..formats.tokens import own_text

    control = vocabulary_for(tokenizer, text=own_text(fmt)).control_ids
    thinking = token_dispatch([(close_id, then)], sorted(i for i in control if i != close_id))
    if stage is True:
        return structural_tag(thinking)
    return structural_tag(either([seq([token(open_id), thinking]), answer]))


# The chat-template keyword by which a Responses API request on the structured-output path tells
# the engine's structured-output gate that thinkgate's tag holds the reasoning. vLLM's Responses
# serving passes the engine no ``reasoning_ended`` (a chat completion's ``_grammar_from_parser``
# does), but it builds the engine's own reasoning parser from the request's chat-template
# keywords (``reasoning_parser_kwargs``): that parser then ends the reasoning at the prompt
# (:meth:`~thinkgate.integrations.vllm_parsers.ThinkgateReasoningParser.is_reasoning_end`), and the
# grammar applies from the first generated token.
GRAMMAR_HOLDS_REASONING = "thinkgate_grammar_holds_reasoning"


def _says_grammar_from_parser(request: Any) -> bool:
    return "_grammar_from_parser" in (getattr(type(request), "__private_attributes__", None) or {})


def _responses_api(request: Any) -> bool:
    from vllm.entrypoints.openai.responses.protocol import ResponsesRequest

    return isinstance(request, ResponsesRequest)


def hold_from_first_token(request: Any) -> None:
    """Have vLLM's structured outputs hold ``request`` from its first generated token (the tag
    holds the thinking): a chat completion says so itself (as vLLM's Mistral parser does), a
    Responses API request through :data:`GRAMMAR_HOLDS_REASONING`."""
    if _says_grammar_from_parser(request):
        request._grammar_from_parser = True
    else:
        request.chat_template_kwargs = {**(request.chat_template_kwargs or {}), GRAMMAR_HOLDS_REASONING: True}


def request_can_hold(request: Any) -> Optional[str]:
    """Why this request cannot take the structured-output path (a refusal), or None."""
    responses = _responses_api(request)
    if not responses and not _says_grammar_from_parser(request):
        return (
            f"{type(request).__name__} cannot say that its grammar holds the reasoning (vLLM's _grammar_from_parser), "
            "which thinkgate's structured-output path needs; send it as a chat completion"
        )
    if getattr(request, "continue_final_message", False) or (responses and _continues_final_message(request)):
        return "continue_final_message: thinkgate cannot tell where the continued message stands in its grammar on the structured-output path"
    so = getattr(request, "structured_outputs", None)
    if so is not None:
        return "structured_outputs together with tools or a JSON response_format: thinkgate's structural tag holds the output, give one or the other"
    rf = getattr(request, "response_format", None)
    kind = rf.get("type") if isinstance(rf, dict) else getattr(rf, "type", None)
    if kind not in (None, "text", "json_schema", "json_object"):
        return f"response_format of type {kind!r} together with tools: thinkgate's structural tag holds the output, give one or the other"
    return None


def _continues_final_message(request: Any) -> bool:
    """A Responses API input that ends in a partial assistant message, which vLLM continues."""
    from vllm.entrypoints.openai.responses.utils import should_continue_final_message

    return bool(should_continue_final_message(request.input))


__all__ = [
    "GRAMMAR_HOLDS_REASONING",
    "NOT_HELD",
    "PATH_ENV",
    "PROCESSOR",
    "STRUCTURED_OUTPUTS",
    "Path",
    "engine_configs",
    "engine_paths",
    "forget_engines",
    "hold_from_first_token",
    "path_for",
    "processor_refusal",
    "prompt_stage",
    "request_can_hold",
    "request_path",
    "structured_outputs_tag",
]
