"""Compiled tool grammars, cached: one LRU per tokenizer, keyed canonically.

Two requests whose tools differ only in key order or whitespace share one compiled grammar.
Concurrent requests for the same key compile it once; the others wait for that result.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import numpy as np
import xgrammar as xgr

from ...formats import ChatFormat, get_format, is_text
from .compile_budget import CompileTimeout, check_spec, compile_tag, deadline, risky
from .future_cache import FutureCache
from ..runtime.guard import MaskCache
from ..runtime.routed import ROUTE_FROM, CallGrammars, RoutedCalls, call_heads, tag_key
from ...formats.strict import DEFAULT_STRICT, check_strict
from .structural_tag import DEFAULT_MAX_WHITESPACE, GrammarSpec, build_spec
from ...formats.tokens import own_text
from ..runtime.vocabulary import Vocabulary, vocabulary_for


@dataclass
class ToolGrammar:
    """A compiled grammar for the phase after thinking, with the facts a request needs."""

    spec: GrammarSpec
    vocab: Vocabulary
    compiled: xgr.CompiledGrammar
    masks: MaskCache
    open_ids: tuple[int, ...]  # the reasoning open marker: one token, or (harmony) several
    think_close: Optional[int]
    stop_ids: tuple[int, ...]
    call_begin: Optional[int | bytes]  # the token (or text) after which the guard reads a call's header (None: bare_json)
    call_end: Optional[int | bytes]
    # harmony: the tokens that follow the close marker before the next message's header
    # (<|start|>assistant), forced; and that message may open the reasoning again.
    close_tail: tuple[int, ...] = ()
    reopen: bool = False
    # A tag that names no token (tool markers that are text; calls with no markers at all)
    # wants no control token after thinking, and xgrammar's free text with excludes would admit
    # them: each row is ANDed with this (the control tokens' bits cleared). None where the tag
    # names tokens by id (and keeps the others out itself).
    no_controls: Optional[np.ndarray] = None
    # Reasoning markers written as text: the grammar holds the reasoning, one compiled grammar
    # for an output that starts inside it (True) and one for an output that may open it
    # ("auto"); close_ids spell the close, forced one by one when a thinking budget is spent.
    reasoning_grammars: Optional[dict[Any, xgr.CompiledGrammar]] = None
    close_ids: tuple[int, ...] = ()
    # The tool markup's opening token, which written while thinking ends the reasoning and is
    # the calls' first token (the format's reasoning_trigger; None under tool_choice "none").
    reasoning_trigger: Optional[int] = None
    # The shortest complete answer's token ids, measured once on first use (see call_room).
    shortest: Any = field(default=None, repr=False, compare=False)
    # What its requests share to keep room to finish in the tool phase (see tool_room).
    finish_plan: Any = field(default=None, repr=False, compare=False)
    # A routed grammar (agent-size tool sets): ``compiled`` is the router, and these are the
    # tools' own grammars, compiled when a call names the tool (see ``routed``).
    calls: Optional[RoutedCalls] = None

    @property
    def format(self) -> ChatFormat:
        return self.spec.format

    @property
    def choice(self) -> str:
        return self.spec.choice

    @property
    def free_answer(self) -> bool:
        """Strict level 0 under "auto": nothing after thinking is masked."""
        return self.spec.free_answer


def canonical(value: Any) -> str:
    """A JSON text that is the same for equal values (key order and whitespace aside)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            pass
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class GrammarCache:
    """Compiled :class:`ToolGrammar` s of one tokenizer (thread-safe LRU)."""

    def __init__(self, vocab: Vocabulary, size: int = 256):
        self.vocab = vocab
        self._futures = FutureCache(size)
        self._lock = threading.Lock()  # for the mask cache made on first need
        self._masks: Optional[MaskCache] = None
        self.calls = CallGrammars(vocab.compiler, vocab.info)  # routed tool sets' per-tool grammars
        self._apart: dict[str, bool] = {}

    @property
    def hits(self) -> int:
        return self._futures.hits

    @property
    def misses(self) -> int:
        return self._futures.misses

    def get(
        self,
        format: str | ChatFormat,
        tools: Any,
        tool_choice: Any = "auto",
        parallel_tool_calls: bool = True,
        *,
        max_whitespace: Optional[int] = DEFAULT_MAX_WHITESPACE,
        unsupported: str = "error",
        response_format: Any = None,
        strict: int = DEFAULT_STRICT,
        route_from: Optional[int] = ROUTE_FROM,
    ) -> ToolGrammar:
        """``route_from``: from this many tools (held to their schemas) on, a format that
        allows it gets a routed grammar (see ``routed``); None: always the full grammar."""
        fmt = get_format(format)
        if isinstance(tools, str):
            tools = json.loads(tools)
        if isinstance(response_format, str):
            response_format = json.loads(response_format)
        strict = check_strict(strict)
        key = (
            fmt,  # the value, not its name: a format of one's own may share a registered one's
            canonical(tools or []),  # each tool's function.strict with it
            canonical(tool_choice),
            bool(parallel_tool_calls),
            max_whitespace,
            unsupported,
            canonical(response_format),
            strict,
            route_from,
        )
        fut, mine = self._futures.entry(key)
        if mine:
            try:
                fut.set_result(self._compile(fmt, tools, tool_choice, parallel_tool_calls, max_whitespace, unsupported, response_format, strict, route_from))
            except BaseException as e:
                self._futures.drop(key, fut)
                fut.set_exception(e)
        return fut.result()

    def _compile(self, fmt, tools, tool_choice, parallel, max_whitespace, unsupported, response_format, strict, route_from) -> ToolGrammar:
        vocab = self.vocab
        ids = {m: vocab.token_id(m) for m in fmt.token_markers}
        check_markers(fmt, ids.get)
        msgs = fmt.tools.messages
        if route_from is not None and fmt.tools.call_object_layout and not self._names_end_apart(fmt.tools.arguments_key):
            route_from = None
        spec = build_spec(
            fmt,
            tools,
            tool_choice,
            parallel,
            marker_ids={m: i for m, i in ids.items() if i is not None},
            control_ids=sorted(vocab.control_ids),
            max_whitespace=max_whitespace,
            unsupported=unsupported,
            response_format=response_format,
            strict=strict,
            route_from=route_from,
            guard_whitespace=True,
        )
        check_spec(spec, vocab.size)
        what, until = _grammar_name(spec), deadline()
        try:
            compiled = compile_tag(vocab.compiler, vocab.info, spec.tag, what, until)
            reasoning_grammars = None
            if fmt.text_reasoning:
                reasoning_grammars = {t: compile_tag(vocab.compiler, vocab.info, spec.with_reasoning(t), what, until) for t in (True, "auto")}
            if spec.calls is not None:  # a tool whose grammar may be costly is compiled now, not when called
                for tool, tag in zip(spec.tools, spec.calls):
                    if tag is not None and risky(tag):
                        self.calls.get(tag_key(tag), tool.name)
        except CompileTimeout:
            raise
        except Exception as e:  # every schema was checked alone; this is the tag as a whole
            raise ValueError(_compile_error(spec, e)) from None
        with self._lock:
            if self._masks is None:
                self._masks = MaskCache(vocab.tables, vocab.token_bytes)
            self._masks.prepare_whitespace(spec.whitespace_bound)
        stop = tuple(i for i in vocab.stop_token_ids)
        return ToolGrammar(
            spec=spec,
            vocab=vocab,
            compiled=compiled,
            masks=self._masks,
            open_ids=_encode(vocab, fmt.reasoning.open),
            think_close=ids.get(fmt.reasoning.close),  # None: the format does not think
            stop_ids=stop,
            call_begin=_guard_marker(spec.call_trigger, ids),  # None: calls are found by their "{"
            # None where a call ends with its JSON (Mistral), or with a stop token (harmony)
            call_end=None if fmt.tools.call_end in fmt.stops else _guard_marker(fmt.tools.call_end, ids),
            close_tail=_encode(vocab, msgs.start + msgs.role) if msgs is not None else (),
            reopen=msgs is not None,
            # a free answer (strict level 0) keeps every token, control tokens too
            no_controls=None if names_tokens(spec.tag) or spec.free_answer else ~vocab.tables.control_mask,
            reasoning_grammars=reasoning_grammars,
            # a spent budget forces the close, and the answer's open marker after it (Kimi-K3)
            close_ids=_encode(vocab, fmt.reasoning.close + fmt.answer[0]) if fmt.reasoning.present else (),
            reasoning_trigger=ids.get(fmt.reasoning_trigger) if spec.choice != "none" else None,
            calls=None if spec.calls is None else RoutedCalls(
                self.calls,
                spec.calls,
                {s.name: i for i, s in enumerate(spec.tools)} if fmt.tools.call_object_layout else None,
                within=spec.between_calls is not None,
                heads=call_heads(spec),
                header_end=fmt.tools.header_text("").encode()[-1:] if fmt.tools.xml is not None else b"",
            ),
        )

    def _names_end_apart(self, arguments_key: str) -> bool:
        """Whether no token of the vocabulary can close a call object's name and reach into its
        arguments' value (it would hold the arguments' key: ``"`` … ``KEY"``). The router alone
        judges the token that closes the name; where one could, the tool's schema would be
        missing from that token's verdict, so such a vocabulary keeps the full grammar."""
        ok = self._apart.get(arguments_key)
        if ok is None:
            key, control = json.dumps(arguments_key).encode(), self.vocab.control_ids  # (control tokens match no text)
            ok = self._apart[arguments_key] = not any(b'"' in b[: b.find(key)] for i, b in enumerate(self.vocab.token_bytes) if key in b and i not in control)
        return ok


def names_tokens(tag: Any) -> bool:
    """Whether a structural tag (or a part of it) writes a token by id."""
    if isinstance(tag, dict):
        return tag.get("type") in ("token", "token_dispatch") or any(names_tokens(v) for v in tag.values())
    if isinstance(tag, list):
        return any(names_tokens(v) for v in tag)
    return False


def _guard_marker(marker: str, ids: dict[str, Optional[int]]) -> Optional[int | bytes]:
    """A marker as the guard watches for it: a token's id, or a text marker's bytes."""
    if not marker:
        return None
    return marker.encode() if is_text(marker) else ids.get(marker)


def check_markers(fmt: ChatFormat, token_id: Callable[[str], Optional[int]]) -> None:
    """That the tokenizer (``token_id``: a marker's single token, or None) has every marker the
    format's grammar matches as a token; a ``ValueError`` naming those it lacks."""
    # harmony's open marker is a channel header, several tokens; every other marker is one
    pieces = () if fmt.tools.messages is not None else (fmt.reasoning.open,)
    missing = [m for m in (*pieces, fmt.reasoning.close, *fmt.tools.markers, *fmt.stops) if m and not is_text(m) and token_id(m) is None]
    if missing:
        raise ValueError(
            f"the tokenizer has no single token for {', '.join(map(repr, missing))}, "
            f"which format {fmt.name!r} needs as markers"
        )


def _grammar_name(spec: GrammarSpec) -> str:
    names = ", ".join(repr(t.name) for t in spec.tools) or "none"
    answer = " and the response_format" if spec.answer is not None else ""
    return f"the grammar of format {spec.format.name!r} for the tools {names}{answer} (tool_choice {spec.choice!r})"


def _compile_error(spec: GrammarSpec, error: BaseException) -> str:
    message = str(error).strip().splitlines()[-1] if str(error).strip() else type(error).__name__
    return f"xgrammar cannot compile {_grammar_name(spec)}: {message}"


def check_tag(spec: GrammarSpec) -> None:
    """Build xgrammar's grammar of a spec's tag without a tokenizer (what compiling it would
    find wrong, found at admission); a fault is a ``ValueError``."""
    try:
        xgr.Grammar.from_structural_tag(spec.tag)
    except Exception as e:
        raise ValueError(_compile_error(spec, e)) from None


def _encode(vocab: Vocabulary, text: str) -> tuple[int, ...]:
    tid = vocab.token_id(text)
    if tid is not None:
        return (tid,)
    return tuple(vocab.tokenizer.encode(text, add_special_tokens=False))


_CACHES: dict[int, GrammarCache] = {}
_CACHES_LOCK = threading.Lock()


def grammar_cache(tokenizer: Any, vocab_size: Optional[int] = None, text: frozenset[str] = frozenset()) -> GrammarCache:
    """The cache of ``tokenizer`` (one ``GrammarCompiler`` and one LRU per tokenizer, and per
    what a format of one's own writes as text: see :class:`~thinkgate.constraint.runtime.vocabulary.Vocabulary`)."""
    vocab = vocabulary_for(tokenizer, vocab_size, text=text)
    with _CACHES_LOCK:
        cache = _CACHES.get(id(vocab))
        if cache is None:
            cache = _CACHES[id(vocab)] = GrammarCache(vocab)
        return cache


def compile_tool_grammar(
    tokenizer: Any,
    format: str | ChatFormat,
    tools: Any,
    tool_choice: Any = "auto",
    parallel_tool_calls: bool = True,
    *,
    vocab_size: Optional[int] = None,
    **options: Any,
) -> ToolGrammar:
    """The compiled grammar for one request's tools and tool_choice (cached)."""
    fmt = get_format(format)
    return grammar_cache(tokenizer, vocab_size, own_text(fmt)).get(fmt, tools, tool_choice, parallel_tool_calls, **options)
