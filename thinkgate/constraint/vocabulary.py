"""What the constraint needs to know of one tokenizer, computed once per tokenizer.

The tokenizer's control tokens (its added tokens: the DeepSeek markers, ``<think>``, role and
placeholder tokens) get an ``0xFF`` byte in front of their text in xgrammar's vocabulary. No
valid UTF-8 text starts with that byte, so no text or JSON rule of any grammar can ever match a
control token: a marker can only enter the output where the grammar names it by id (a
``TokenFormat``), and never inside a JSON string. This costs nothing per step; the alternative,
``JSONSchemaFormat(excludes=...)``, costs seconds of compile time per tool set.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable
from typing import Any

import numpy as np
import xgrammar as xgr

from ..formats.tokens import default_stop_ids, single_token_id, written_as_text

_POISON = b"\xff"
_WHITESPACE_RUN = re.compile(rb"[ \t\r\n]+")


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
        # Characters a token adds to a string: the bytes that start a UTF-8 character.
        self.chars = np.zeros(n, dtype=np.int32)
        self.first_byte = np.full(n, -1, dtype=np.int32)
        self.last_byte = np.full(n, -1, dtype=np.int32)
        # JSON whitespace in a token read outside a string, up to its first quote (what follows
        # a quote is a string's): the run it starts with (which adds to the run before it), the
        # longest run after that (a run of its own), and whether a "}" or "]" comes before the
        # quote (a run after one that closes the JSON is not the JSON's).
        self.ws_lead = np.zeros(n, dtype=np.int32)
        self.ws_inner = np.zeros(n, dtype=np.int32)
        self.closes = np.zeros(n, dtype=bool)
        special: list[int] = []  # tokens with a quote or backslash: simulated one by one
        surrogate: list[int] = []  # tokens that hold the UTF-8 bytes of a surrogate (ED A0-BF)
        for i, b in enumerate(token_bytes):
            if not b or i in control_ids:
                continue
            self.chars[i] = sum(1 for x in b if x & 0xC0 != 0x80)
            self.first_byte[i] = b[0]
            self.last_byte[i] = b[-1]
            head = b[: b.find(b'"')] if b'"' in b else b
            self.closes[i] = b"}" in head or b"]" in head
            runs = _WHITESPACE_RUN.findall(head)
            if runs:
                lead = len(runs[0]) if head[0] in b" \t\r\n" else 0
                self.ws_lead[i] = lead
                self.ws_inner[i] = max((len(r) for r in runs[1 if lead else 0 :]), default=0)
            if b"\\" in b or b'"' in b:
                special.append(i)
            if any(b[k] == 0xED and 0xA0 <= b[k + 1] <= 0xBF for k in range(len(b) - 1)):
                surrogate.append(i)
        self.max_chars = int(self.chars.max()) if n else 0
        self.special_ids = np.array(special, dtype=np.int64)
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


_VOCABULARIES: dict[tuple, Vocabulary] = {}
_VOCAB_LOCK = threading.Lock()


def vocabulary_for(
    tokenizer: Any,
    vocab_size: int | None = None,
    stop_token_ids: Iterable[int] | None = None,
    text: frozenset[str] = frozenset(),
) -> Vocabulary:
    """The :class:`Vocabulary` of ``tokenizer``, built once (one ``GrammarCompiler`` per tokenizer;
    a format of one's own that writes as text what is a token to the registered formats gets
    one of its own: see :func:`~thinkgate.formats.tokens.own_text`)."""
    key = (id(tokenizer), vocab_size, tuple(stop_token_ids) if stop_token_ids is not None else None, text)
    with _VOCAB_LOCK:
        vocab = _VOCABULARIES.get(key)
        if vocab is None or vocab.tokenizer is not tokenizer:
            vocab = Vocabulary(tokenizer, vocab_size, stop_token_ids, text)
            _VOCABULARIES[key] = vocab
        return vocab
