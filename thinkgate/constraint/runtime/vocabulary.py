"""What the constraint needs to know of one tokenizer, computed once per tokenizer.

The tokenizer's control tokens (its added tokens: the DeepSeek markers, ``<think>``, role and
placeholder tokens) get an ``0xFF`` byte in front of their text in xgrammar's vocabulary. No
valid UTF-8 text starts with that byte, so no text or JSON rule of any grammar can ever match a
control token: a marker can only enter the output where the grammar names it by id (a
``TokenFormat``), and never inside a JSON string. This costs nothing per step; the alternative,
``JSONSchemaFormat(excludes=...)``, costs seconds of compile time per tool set.
"""

from __future__ import annotations

import hashlib
import os
import threading
import weakref
from collections.abc import Iterable
from typing import Any

import numpy as np
import xgrammar as xgr

from ...formats.tokens import default_stop_ids, single_token_id, written_as_text

_POISON = b"\xff"


def compile_threads() -> int:
    """xgrammar's threads for one grammar's compile (its token masks are precomputed rule by
    rule, in parallel): ``THINKGATE_COMPILE_THREADS``, else one per core up to 8, xgrammar's own
    default. On 2 cores a Kimi-K3 tool set compiles in 7.5 s instead of 11 s, 400 BFCL tools' full
    grammar in 4.8 s instead of 7.2 s, for a third more CPU time."""
    value = os.environ.get("THINKGATE_COMPILE_THREADS")
    if value is None:
        return max(1, min(8, os.cpu_count() or 1))
    try:
        threads = int(value)
    except ValueError:
        threads = 0
    if threads < 1:
        raise ValueError(f"THINKGATE_COMPILE_THREADS must be a positive integer, not {value!r}")
    return threads


def bitmask_words(vocab_size: int) -> int:
    return (vocab_size + 31) // 32


def pack(ids: Iterable[int], vocab_size: int) -> np.ndarray:
    """A bitmask row (int32 words, xgrammar's layout) with the bits of ``ids`` set."""
    bits = np.zeros(bitmask_words(vocab_size) * 32, dtype=bool)
    bits[np.fromiter(ids, dtype=np.int64)] = True
    return np.packbits(bits, bitorder="little").view(np.int32).copy()


def _spells_text(token: str, text_tags: frozenset[str]) -> bool:
    """Whether an added token's text is one of ``text_tags`` or a piece of one."""
    return bool(token) and any(token in tag for tag in text_tags)


class Vocabulary:
    """One tokenizer, as the constraint sees it.

    ``size`` is the width of the model's logits (it may exceed the tokenizer's vocabulary; ids
    past the tokenizer are never allowed). ``stop_token_ids`` default to the tokenizer's EOS, or
    else the end-of-sequence markers of the registered formats that the tokenizer has. ``text``:
    what a format of one's own writes as text beside the registered formats (an added token of
    that text stays text).
    """

    def __init__(
        self,
        tokenizer: Any,
        vocab_size: int | None = None,
        stop_token_ids: Iterable[int] | None = None,
        text: frozenset[str] = frozenset(),
    ):
        self.tokenizer = tokenizer
        n_tok = len(tokenizer)
        self.size = max(vocab_size or 0, n_tok)
        if stop_token_ids is None:
            stop_token_ids = default_stop_ids(tokenizer)
        self.stop_token_ids = tuple(sorted(set(stop_token_ids)))
        if not self.stop_token_ids:
            raise ValueError(
                "the tokenizer has no EOS token and none of the known formats' end markers; "
                "pass stop_token_ids"
            )
        plain = xgr.TokenizerInfo.from_huggingface(
            tokenizer, vocab_size=self.size, stop_token_ids=list(self.stop_token_ids)
        )
        self.token_bytes: list[bytes] = list(plain.decoded_vocab)
        # Parameter tags that a tokenizer has as special tokens (GLM's <arg_key>) are written as
        # text by xgrammar's XML styles, and text markers as text by any grammar: they keep their
        # text, and so does an added token that spells a piece of one (DeepSeek's "｜DSML｜",
        # which its DSML tags are written with).
        text_tags = written_as_text() | text
        added = getattr(tokenizer, "added_tokens_decoder", {})
        self.control_ids = frozenset(
            i for i, tok in added.items() if i not in self.stop_token_ids and not _spells_text(str(tok), text_tags)
        )
        vocab = list(self.token_bytes)
        for i in self.control_ids:
            vocab[i] = _POISON + vocab[i]
        self.info = xgr.TokenizerInfo(
            vocab,
            xgr.VocabType.RAW,
            vocab_size=self.size,
            stop_token_ids=list(self.stop_token_ids),
            add_prefix_space=False,
        )
        # xgrammar's own compile cache is off: in 0.2.8 it mixes up token elements of different
        # structural tags (a tag compiled after another expects the other's marker token).
        # thinkgate caches whole compiled grammars itself (compiled.GrammarCache).
        self.compiler = xgr.GrammarCompiler(self.info, max_threads=compile_threads(), cache_enabled=False)
        self._ids: dict[str, int | None] = {}
        self._lock = threading.Lock()
        self._tables: TokenTables | None = None

    def token_id(self, text: str) -> int | None:
        """The id of ``text`` if the tokenizer writes it as a single token."""
        if text not in self._ids:
            self._ids[text] = single_token_id(self.tokenizer, text)
        return self._ids[text]

    @property
    def tables(self) -> TokenTables:
        """Per-token facts for the run-time guards, built on first use."""
        with self._lock:
            if self._tables is None:
                self._tables = TokenTables(self.token_bytes, self.size, self.control_ids)
            return self._tables


class TokenTables:
    """Per-token byte facts, vectorised, for the guards that run beside xgrammar."""

    def __init__(self, token_bytes: list[bytes], size: int, control_ids: frozenset[int]):
        n = len(token_bytes)
        self.size = size
        # Read from the vocabulary's bytes laid end to end, a few array operations for all its
        # tokens (a loop over them took 1.2-1.7 s per tokenizer, in every server's first request).
        # Control tokens and empty ones are left out (they never stand in JSON).
        lengths = np.fromiter((len(b) for b in token_bytes), dtype=np.int64, count=n)
        if control_ids:
            lengths[np.fromiter(control_ids, dtype=np.int64)] = 0
        flat = np.frombuffer(b"".join(b for b, k in zip(token_bytes, lengths) if k), dtype=np.uint8)
        starts = np.cumsum(lengths) - lengths
        owner = np.repeat(np.arange(n), lengths)  # the token each byte is in
        at = np.arange(len(flat)) - starts[owner]  # its place in that token
        ends = starts + lengths
        present = lengths > 0
        # Characters a token adds to a string: the bytes that start a UTF-8 character.
        self.chars = np.bincount(owner[(flat & 0xC0) != 0x80], minlength=n).astype(np.int32)
        self.first_byte = np.full(n, -1, dtype=np.int32)
        self.last_byte = np.full(n, -1, dtype=np.int32)
        self.first_byte[present] = flat[starts[present]]
        self.last_byte[present] = flat[ends[present] - 1]
        # JSON whitespace in a token read outside a string, up to its first quote (what follows
        # a quote is a string's): the run it starts with (which adds to the run before it), the
        # longest run after that (a run of its own), and whether a "}" or "]" comes before the
        # quote (a run after one that closes the JSON is not the JSON's).
        quote = flat == 0x22
        first_quote = np.full(n, np.iinfo(np.int64).max)
        quoted, first = np.unique(owner[quote], return_index=True)
        first_quote[quoted] = at[quote][first]
        head = at < first_quote[owner]
        self.closes = np.bincount(owner[head & ((flat == 0x7D) | (flat == 0x5D))], minlength=n) > 0
        space = head & ((flat == 0x20) | (flat == 0x09) | (flat == 0x0D) | (flat == 0x0A))
        run_start = space & ((at == 0) | ~np.concatenate(([False], space[:-1])))
        run_end = space & ((at == lengths[owner] - 1) | ~np.concatenate((space[1:], [False])))
        begins, finishes = np.flatnonzero(run_start), np.flatnonzero(run_end)  # paired in order
        run_owner, run_length, leading = owner[begins], finishes - begins + 1, at[begins] == 0
        self.ws_lead = np.zeros(n, dtype=np.int32)
        self.ws_lead[run_owner[leading]] = run_length[leading]
        self.ws_inner = np.zeros(n, dtype=np.int32)
        np.maximum.at(self.ws_inner, run_owner[~leading], run_length[~leading].astype(np.int32))
        # tokens with a quote or backslash: simulated one by one
        special = np.unique(owner[quote | (flat == 0x5C)])
        # tokens that hold the UTF-8 bytes of a surrogate (ED A0-BF)
        follows = np.concatenate((flat[1:], [0]))
        surrogate = np.unique(owner[(flat == 0xED) & (follows >= 0xA0) & (follows <= 0xBF) & (at < lengths[owner] - 1)])
        self.max_chars = int(self.chars.max()) if n else 0
        self.special_ids = special
        self.special_bytes = [token_bytes[i] for i in special]
        self.surrogate_mask = pack(surrogate, size)
        # Tokens whose first byte continues a character: after a token that ended on ED, those
        # starting with A0-BF would complete a surrogate.
        self.after_ed_mask = pack(np.flatnonzero((self.first_byte >= 0xA0) & (self.first_byte <= 0xBF)), size)
        # over[r]: plain tokens that add more than r characters (special tokens excluded: they
        # are simulated exactly).
        plain = np.ones(n, dtype=bool)
        plain[self.special_ids] = False
        self.over = [
            pack(np.flatnonzero(plain & (self.chars > r)), size) for r in range(self.max_chars + 1)
        ]
        self.empty = pack((), size)
        self.control_mask = pack(control_ids, size)
        # what a row is ANDed with (the inversions done once, not per step)
        self.keep_surrogate = ~self.surrogate_mask
        self.keep_after_ed = ~self.after_ed_mask


# by the tokenizer object (a weak reference to it: a tokenizer dropped is not kept alive here),
# and by what the tokenizer holds, so that tokenizers loaded again share one Vocabulary
_BY_OBJECT: dict[tuple, tuple[Any, Vocabulary]] = {}
_BY_CONTENT: dict[tuple, Vocabulary] = {}
_VOCAB_LOCK = threading.Lock()


def vocabulary_for(
    tokenizer: Any,
    vocab_size: int | None = None,
    stop_token_ids: Iterable[int] | None = None,
    text: frozenset[str] = frozenset(),
) -> Vocabulary:
    """The :class:`Vocabulary` of ``tokenizer``, built once (one ``GrammarCompiler`` per tokenizer;
    a format of one's own that writes as text what is a token to the registered formats gets
    one of its own: see :func:`~thinkgate.formats.tokens.own_text`).

    A Hugging Face fast tokenizer loaded again (a server's handler, a model directory read per
    request) is the same vocabulary to the constraint: it gets the Vocabulary, and with it the
    compiled grammars, of the first one that held the same vocabulary (xgrammar's view of a
    129k-token vocabulary takes 1-2 s to build, and every tool set compiles anew for it)."""
    options = (vocab_size, tuple(stop_token_ids) if stop_token_ids is not None else None, text)
    key = (id(tokenizer), *options)
    with _VOCAB_LOCK:
        held = _BY_OBJECT.get(key)
        if held is not None and _referent(held[0]) is tokenizer:
            return held[1]
        content = _content_key(tokenizer)
        vocab = _BY_CONTENT.get((content, *options)) if content is not None else None
        if vocab is None:
            vocab = Vocabulary(tokenizer, vocab_size, stop_token_ids, text)
            if content is not None:
                _BY_CONTENT[(content, *options)] = vocab
        _BY_OBJECT[key] = (_reference(tokenizer, key), vocab)
        return vocab


def _content_key(tokenizer: Any) -> tuple | None:
    """What a Hugging Face fast tokenizer's vocabulary is to the constraint: its backend's whole
    serialisation (model, added tokens and whether each is special) and the EOS that sets the
    default stop ids. None for any other tokenizer (known by the object alone)."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    to_str = getattr(backend, "to_str", None)
    if to_str is None:
        return None
    try:
        digest = hashlib.sha256(to_str().encode("utf-8")).hexdigest()
    except Exception:  # a backend that cannot say what it holds: known by the object alone
        return None
    return (type(tokenizer).__qualname__, digest, len(tokenizer), getattr(tokenizer, "eos_token_id", None))


def _reference(tokenizer: Any, key: tuple) -> Any:
    """A weak reference to ``tokenizer`` that takes its entry out of ``_BY_OBJECT`` when the
    tokenizer goes (a dict's pop is atomic: no lock, which the collector may find held)."""
    try:
        return weakref.ref(tokenizer, lambda _: _BY_OBJECT.pop(key, None))
    except TypeError:  # (a mapping of token texts to ids, which holds no weak references)
        return tokenizer


def _referent(held: Any) -> Any:
    return held() if isinstance(held, weakref.ref) else held
