"""Routed grammars: agent-size tool sets compiled in a fraction of a second.

xgrammar's compile precomputes token masks for every position of the grammar, so its cost grows
with the tools' schemas (on the DeepSeek vocabulary about 12 ms per BFCL function: 400 functions
take seconds). A routed grammar splits that cost in two:

* the *router*, compiled per tool set: the format's whole call structure with every tool's name,
  but every tool's arguments one shared "any JSON object" (in a call-object style one object
  whose name is any of the tools'; its cost hardly grows with the tools);
* one grammar per tool, from where its call begins to the end of its arguments, compiled when a
  call first names the tool (or, in the background, as soon as what the call has written of
  the name names it alone) and cached by its tag, so tool sets that share a tool share it.

The guard already follows the calls from token ids; it says where the call began and which tool
it names (a header's, or the name a call object gives), and the tool's matcher is started there,
fed the call's tokens written so far. Each is held as the full grammar holds it: the router
keeps the structure, the names and the JSON object, the tool's grammar its header and its
arguments' schema. Where a begin marker starts the call, the tool's grammar runs to the call's
end marker and its row alone stands inside the arguments; where the call is a JSON object found
by its "{" (bare calls, a JSON array), the tool's grammar is that object then any text, started
at the "{" inside its token, and its row is ANDed with the router's, which judges what follows
the object in the token that closes it.

Parameters (Qwen3-Coder, GLM-4.5: no JSON) are routed too: the router's arguments are any text
up to the footer, the guard matches each tool's header to say which tool a call names, and the
tool's grammar (header, parameters, footer, end marker) masks alone from there.

Where the tool is not known yet the router alone masks; that is exact as long as no token can
both end the name and reach into the arguments. For call objects that is checked per vocabulary
(see ``GrammarCache``); for parameters, whose header ends in a byte many tokens hold (``\n``),
each token the router allows that would end the header and write on is judged by the grammar of
the tool that header names (``_judge_header_ends``).
"""

from __future__ import annotations

import json
import threading
from bisect import bisect_left
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Optional

import numpy as np
import xgrammar as xgr

from ..grammar.compile_budget import compile_tag
from ..grammar.future_cache import FutureCache
from .guard import ARGS, HEADER, RAW, ArgumentsGuard
from .vocabulary import pack

# From this many tools held to their schemas on, a tool set is routed (see the README's
# "Agent-size tool sets" for the measurements it comes from).
ROUTE_FROM = 32


class CallGrammars:
    """Compiled per-tool grammars of one tokenizer, keyed by their tags (thread-safe LRU);
    a tool compiles once, whichever tool sets hold it."""

    def __init__(self, compiler: xgr.GrammarCompiler, info: Optional[xgr.TokenizerInfo] = None, size: int = 4096):
        self.compiler = compiler
        self.info = info  # (for a compile under the budget's deadline; None: none)
        self.futures = FutureCache(size)
        self._lock = threading.Lock()  # for _compiling
        self._masks: dict[tuple, np.ndarray] = {}
        self._bytes: Optional[_TokenBytes] = None
        self._compiling: set[str] = set()  # keys a thread is compiling now

    # Token masks the routed matchers of this tokenizer share (bitmask rows, built on first need).

    def crossing(self, token_bytes: list[bytes], words: int, end: bytes) -> np.ndarray:
        """Parameters: the tokens that could end a header whose last byte is ``end`` and write
        on past it (they hold that byte before their own last)."""
        key = ("crossing", end)
        mask = self._masks.get(key)
        if mask is None:
            t = self._tokens(token_bytes)
            inner = t.counts(t.buf == end[0], t.starts, t.ends - 1)  # (an empty token: no byte, none counted)
            mask = self._masks[key] = pack(np.flatnonzero(inner > 0), words * 32)
        return mask

    def closing(self, token_bytes: list[bytes], words: int, depth: int, in_string: bool) -> np.ndarray:
        """Calls found by their "{": the tokens that could close a call object ``depth``
        containers deep (``in_string``: a string first), those with that many closing brackets
        (after their first quote)."""
        key = ("closing", min(depth, 64), in_string)
        mask = self._masks.get(key)
        if mask is None:
            t = self._tokens(token_bytes)
            closers = (t.buf == 0x7D) | (t.buf == 0x5D)
            start = t.first_quote + 1 if in_string else t.starts
            mask = self._masks[key] = pack(np.flatnonzero(t.counts(closers, np.minimum(start, t.ends), t.ends) >= depth), words * 32)
        return mask

    def _tokens(self, token_bytes: list[bytes]) -> "_TokenBytes":
        if self._bytes is None:
            self._bytes = _TokenBytes(token_bytes)
        return self._bytes

    def get(self, key: str, name: Optional[str] = None) -> xgr.CompiledGrammar:
        """The compiled grammar of a tag (``key``: its JSON text, see :func:`tag_key`; ``name``:
        its tool's, for errors), compiled here unless it is already, or being compiled (then
        waited for)."""
        fut, mine = self.futures.entry(key)
        if mine or not fut.done():
            # (one queued behind other tools' background compiles is compiled here instead)
            self._compile(key, fut, name)
        return fut.result()

    def prefetch(self, key: str) -> None:
        """Start compiling a tag in the background (xgrammar releases the GIL while it compiles),
        so that a :meth:`get` that follows waits less or not at all."""
        fut, mine = self.futures.entry(key)
        if mine:
            _background().submit(self._compile, key, fut)

    @property
    def hits(self) -> int:
        return self.futures.hits

    @property
    def misses(self) -> int:
        return self.futures.misses

    def _compile(self, key: str, fut: Future, name: Optional[str] = None) -> None:
        """Compile ``key`` into ``fut``, unless another thread is at it or has done it."""
        with self._lock:
            if fut.done() or key in self._compiling:
                return
            self._compiling.add(key)
        try:
            if self.info is None:
                fut.set_result(self.compiler.compile_structural_tag(key))
            else:
                fut.set_result(compile_tag(self.compiler, self.info, key, f"the grammar of tool {name!r}" if name else "a tool's grammar"))
        except BaseException as e:
            self.futures.drop(key, fut)
            fut.set_exception(e)
        finally:
            with self._lock:
                self._compiling.discard(key)


class _TokenBytes:
    """A vocabulary's tokens as one byte array, for counts over every token at once."""

    def __init__(self, token_bytes: list[bytes]):
        lens = np.fromiter(map(len, token_bytes), np.int64, len(token_bytes))
        self.buf = np.frombuffer(b"".join(token_bytes), np.uint8)
        self.ends = np.cumsum(lens)
        self.starts = self.ends - lens
        at = np.flatnonzero(self.buf == 0x22)  # quotes
        k = np.searchsorted(at, self.starts)  # each token's first quote at or after its start
        first = np.append(at, len(self.buf))[k]
        self.first_quote = np.where(first < self.ends, first, self.ends)  # none: its end

    @staticmethod
    def counts(hits: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """How many of ``hits`` lie in ``[lo, hi)``, for each token."""
        c = np.concatenate(([0], np.cumsum(hits, dtype=np.int64)))
        return c[np.maximum(hi, lo)] - c[lo]


def tag_key(tag: dict) -> str:
    # (not sorted: the order of a schema's properties is the order xgrammar writes them in)
    return json.dumps(tag, separators=(",", ":"), ensure_ascii=False)


_POOL: list[ThreadPoolExecutor] = []
_POOL_LOCK = threading.Lock()


def _background() -> ThreadPoolExecutor:
    """One thread compiles tools ahead for the whole process (a second would only contend for
    the cores the engine's own steps use)."""
    with _POOL_LOCK:
        if not _POOL:
            _POOL.append(ThreadPoolExecutor(max_workers=1, thread_name_prefix="thinkgate-tool-compile"))
        return _POOL[0]


class RoutedCalls:
    """The per-tool grammars of one routed tool set: ``tags[i]`` is tool ``i``'s (None: the
    router holds that tool alone)."""

    def __init__(
        self,
        cache: CallGrammars,
        tags: list[Optional[dict]],
        names: Optional[dict[str, int]] = None,
        within: bool = False,
        heads: Optional[list[bytes]] = None,
        header_end: bytes = b"",
    ):
        self.cache = cache
        self.tags = tags
        # call-object styles: each tool's index by its name (the guard reads the name the call
        # object gives, where a header style has the header's index)
        self.names = names
        # Calls that no marker begins (bare JSON calls, a JSON array's): a tool's grammar is its
        # call object then any text, started at the object's "{" inside a token, and a row in
        # its arguments is the router's AND the tool's (the router judges what follows the
        # object in the token that closes it).
        self.within = within
        self._keys: list[Optional[str]] = [None] * len(tags)
        # parameters: the last byte of a header (see ``crossing``)
        self.header_end = header_end
        self.verdicts: dict[tuple[bytes, int], bool] = {}  # (header so far, token): kept
        # What names each tool as a call writes it, sorted, with the tool's index: the header
        # up to the name, or the call object's name as its JSON string holds it (see ``ahead``).
        self.heads: list[tuple[bytes, int]] = sorted((h, i) for i, h in enumerate(heads or ()) if tags[i] is not None)

    def _key(self, index: int) -> str:
        key = self._keys[index]
        if key is None:
            key = self._keys[index] = tag_key(self.tags[index])
        return key

    def compiled(self, index: int) -> Optional[xgr.CompiledGrammar]:
        return None if self.tags[index] is None else self.cache.get(self._key(index))

    def ahead(self, written: bytes) -> Optional[int]:
        """Where ``written`` (a call's header, or its name, so far) can only name one tool
        whose grammar is compiled apart: that tool, its grammar now compiling in the
        background; else None."""
        heads = self.heads
        k = bisect_left(heads, (written,))
        if k < len(heads) and heads[k][0].startswith(written) and (k + 1 == len(heads) or not heads[k + 1][0].startswith(written)):
            index = heads[k][1]
            self.cache.prefetch(self._key(index))
            return index
        return None


def call_heads(spec: Any) -> list[bytes]:
    """Each tool's call as written up to the end of its name, as the guard reads it: the header
    after the begin marker (its markers as their text), or a call object's name inside its
    JSON string."""
    t = spec.format.tools
    if t.call_object_layout:
        return [json.dumps(s.name, ensure_ascii=False)[1:-1].encode() for s in spec.tools]
    before = t.header_text("\0").split("\0")[0]
    return [(before + s.name).encode() for s in spec.tools]


class RoutedMatcher:
    """A router's matcher and, inside a call's arguments, the named tool's: what a
    ``GrammarMatcher`` offers a request (accept, rollback, fill, termination). It reads the
    call's place and tool from ``guard``, which must be fed the same tokens after each accept."""

    def __init__(self, router: xgr.GrammarMatcher, calls: RoutedCalls, guard: ArgumentsGuard):
        self.router = router
        self.calls = calls
        self.guard = guard
        self._tokens: list[int] = []
        self._call: Optional[tuple[int, int]] = None  # (call_at, tool) that _tool follows
        self._tool: Optional[xgr.GrammarMatcher] = None
        self._scratch: Any = None  # the tool's row, where it is ANDed with the router's
        self._fetched: Optional[int] = None  # the call whose tool is compiling ahead

    def _sync(self) -> None:
        """Start or drop the tool's matcher where the guard's call is (it has read every token
        this matcher has)."""
        g = self.guard
        if len(g._history) != len(self._tokens):
            raise RuntimeError(f"the arguments guard read {len(g._history)} tokens and the routed matcher {len(self._tokens)}")
        if self.calls.names is None:
            want = (g.call_at, g.tool) if (g.mode == ARGS or g.mode == RAW) and g.tool is not None else None
        else:
            name = g.named
            want = None if name is None else (g.call_at, self.calls.names[name])
        if want is None and self._fetched != g.call_at and self.calls.heads:
            # the tool not known yet: where what the call has written names one tool only,
            # its grammar compiles while the model writes the rest of the name
            written = g._hbuf if g.mode == HEADER and self.calls.names is None else g.cursor.capture if g.mode == ARGS else g._rbuf if g.mode == RAW else None
            if written and self.calls.ahead(written) is not None:
                self._fetched = g.call_at
        if want == self._call:
            return
        self._call, self._tool = want, None
        if want is None:
            return
        self._tool = self._started(*want)

    def _started(self, call_at: int, tool: int) -> Optional[xgr.GrammarMatcher]:
        """Tool ``tool``'s matcher, fed the call's bytes from ``call_at`` on (None: the router
        holds that tool alone)."""
        compiled = self.calls.compiled(tool)
        if compiled is None:
            return None
        g = self.guard
        matcher = xgr.GrammarMatcher(compiled)
        if g.call_tail and not matcher.accept_string(g._token_bytes[self._tokens[call_at - 1]][-g.call_tail :]):
            raise RuntimeError(f"tool {tool}'s grammar refuses the start of its call object, which the router took")
        for t in self._tokens[call_at:]:
            if not matcher.accept_token(t):
                raise RuntimeError(f"tool {tool}'s grammar refuses token {t} of its call, which the router took")
        return matcher

    def accept_token(self, token_id: int) -> bool:
        self._sync()
        if not self.router.accept_token(token_id):
            return False
        if self._tool is not None and not self._tool.accept_token(token_id):
            self.router.rollback(1)
            return False
        self._tokens.append(token_id)
        return True

    def rollback(self, k: int) -> None:
        if k <= 0:
            return
        self.router.rollback(k)
        if self._tool is not None:
            fed = len(self._tokens) - self._call[0]
            if k >= fed:
                self._call = self._tool = None
            else:
                self._tool.rollback(k)
        del self._tokens[-k:]

    def fill_next_token_bitmask(self, bitmask: Any, index: int = 0) -> bool:
        """Inside a call's arguments the tool's mask alone: its grammar holds the call to its
        end as the full grammar does, and the router's "any object" admits every object it
        does (the router still reads every token, and refuses what it would not admit)."""
        self._sync()
        tool = self._tool
        if tool is None and self.guard.mode == RAW and self.guard.tool is None:
            self.router.fill_next_token_bitmask(bitmask, index)
            self._judge_header_ends(bitmask[index].numpy())
            return True
        if tool is None or not self.calls.within:
            (tool or self.router).fill_next_token_bitmask(bitmask, index)
            return True
        tool.fill_next_token_bitmask(bitmask, index)
        c = self.guard.cursor
        if not (bitmask[index].numpy() & self.calls.cache.closing(self.guard._token_bytes, bitmask.shape[1], len(c.stack), bool(c.in_string))).any():
            return True  # no token the tool allows can close the object: the router's "any object" allows them all
        if self._scratch is None:
            self._scratch = bitmask[index : index + 1].clone()
        self.router.fill_next_token_bitmask(self._scratch, 0)
        bitmask[index] &= self._scratch[0]
        return True

    def _judge_header_ends(self, words: np.ndarray) -> None:
        """In a header before parameters: a token that ends the header and writes on into the
        parameters is judged by the tool its header names, as the full grammar judges it (the
        router's "any text" would take what the tool's parameters refuse)."""
        g = self.guard
        on = words & self.calls.cache.crossing(g._token_bytes, len(words), self.calls.header_end)
        if not on.any():
            return
        matchers: dict[int, Optional[xgr.GrammarMatcher]] = {}
        verdicts = self.calls.verdicts
        for tid in _bits(on):
            # (what the call has written decides it: kept per tool set, as the guard's masks are)
            key = (g._rbuf, tid)
            keep = verdicts.get(key)
            if keep is None:
                keep = True
                g.accept(tid)
                tool, call_at = g.tool, g.call_at
                g.rollback(1)
                if tool is not None:  # else the header goes on: the router's verdict is the full grammar's
                    if tool not in matchers:
                        matchers[tool] = self._started(call_at, tool)
                    m = matchers[tool]
                    if m is not None:
                        keep = m.accept_token(tid)
                        if keep:
                            m.rollback(1)
                if len(verdicts) >= 1 << 16:
                    verdicts.clear()
                verdicts[key] = keep
            if not keep:
                words[tid >> 5] &= ~np.int32(np.uint32(1 << (tid & 31)).view(np.int32))

    def is_terminated(self) -> bool:
        return self.router.is_terminated()


def _bits(words: np.ndarray) -> list[int]:
    """The token ids set in a bitmask row (of a few words: no unpacking of the whole row)."""
    out = []
    for w in np.flatnonzero(words).tolist():
        bits = int(words[w]) & 0xFFFFFFFF
        while bits:
            low = bits & -bits
            out.append(w * 32 + low.bit_length() - 1)
            bits ^= low
    return out
