"""What the grammar decides next in the tool phase (issue 37): tokens no forward pass has to
choose.

Two kinds, both read from a request's :class:`~thinkgate.constraint.ReasonerGrammar`:

* **forced**: the filled mask allows one token alone (a marker token after a call's name, the end
  after the last call): it may be appended with no pass of its own (:func:`only_token`);
* **drafted**: the text the grammar fixes from here (xgrammar's jump-forward string: a key the
  schema requires next, the rest of a tool's name once its first characters are unique, a
  footer) in the tokenizer's own encoding, the tokens a model trained on the chat template
  writes for it (:meth:`ForcedDrafts.draft`). Its last token is held back (it could merge with
  what follows: the key ``city`` before ``":`` is written ``city":`` where the BPE has that
  merge), unless it is a marker token or only marker tokens may follow the text (a tool's name
  before DeepSeek's ``<｜tool▁sep｜>``). A draft is a proposal: speculative decoding's
  verification keeps what the target model, masked, would have written, so drafting changes no
  output.

The jump-forward string is xgrammar's alone: markers that are special tokens are never in it
(they are forced in the mask instead), and it knows nothing of the run-time guard (string
bounds, numbers' ranges), whose refusals the verification meets like any other.
``benchmarks/forced_drafts.py`` measures both on BFCL's calls.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Optional

import numpy as np
import xgrammar as xgr

from .reasoner import Phase

if TYPE_CHECKING:
    from .reasoner import ReasonerGrammar


def forced_text(g: "ReasonerGrammar") -> str:
    """The text the grammar fixes next, in the tool phase ('' elsewhere, or where none is)."""
    if g.phase != Phase.CONSTRAINED:
        return ""
    m = g.matcher
    return m.find_jump_forward_string() if m is not None and not m.is_terminated() else ""


def only_token(words: np.ndarray) -> Optional[int]:
    """The token a filled bitmask row (int32 words) allows alone, or None (none, or several)."""
    nz = np.flatnonzero(words)
    if len(nz) != 1:
        return None
    word = int(words.view(np.uint32)[nz[0]])
    if word & (word - 1):
        return None
    return int(nz[0]) * 32 + word.bit_length() - 1


# What a JSON value other than a string begins with.
_VALUE_STARTS = ("0", "1", "-", "t", "f", "n", "{", "[")


def template_text(matcher: xgr.GrammarMatcher, text: str, after: str = "") -> str:
    """``text`` (what the grammar fixes) gone on as a chat template writes JSON (``tojson``:
    ``", "`` and ``": "``, no other whitespace) where the grammar leaves whitespace open, each
    step only where it is the one way on: a key's closing quote then ``": "``; ``{`` then a key's
    quote; ``:`` or ``,`` then `` "`` where only a string may follow (``:`` alone then a space);
    and after each step, what the grammar fixes again (a key the schema requires next). ``after``
    is the text written before ``text``. These are proposals: a model of the template writes
    them, and verification keeps what it does write."""
    m = matcher.fork()
    if text and not m.accept_string(text):
        return text

    def takes(s: str) -> bool:
        return m.fork().accept_string(s)

    out = text
    for _ in range(8):
        prev = (after + out)[-1:]
        if takes("x"):  # inside a string (or free text): the model's own
            break
        if prev == '"' and takes(": "):
            step = ": "
        elif prev == "{" and takes('"') and not takes("}"):
            step = '"'
        elif prev in (":", ",") and takes(' "') and not any(takes(" " + c) for c in _VALUE_STARTS):
            step = ' "'
        elif prev == ":" and takes(" "):
            step = " "
        else:
            break
        m.accept_string(step)
        out += step
        if step.endswith('"') and step != '"':  # (a string value opened: its text is the model's)
            break
        more = m.find_jump_forward_string()
        if more:
            m.accept_string(more)
            out += more
    return out


class ForcedDrafts:
    """Drafts of what the grammar fixes next, for one tokenizer: ``encode(text)`` is its own
    encoding (no special tokens added); ``markers``: its special tokens' ids, which may end a
    draft (nothing merges with them)."""

    def __init__(self, encode: Callable[[str], list[int]], markers: frozenset[int]) -> None:
        self._encode = encode
        self._markers = markers
        self._encodings: dict[str, tuple[int, ...]] = {}
        self._bits = None  # a mask row, and the markers' bits, for a vocabulary's size
        self._marker_words: Optional[np.ndarray] = None

    @classmethod
    def for_tokenizer(cls, tokenizer) -> "ForcedDrafts":
        special = set(getattr(tokenizer, "all_special_ids", ())) | set(getattr(tokenizer, "added_tokens_decoder", {}) or ())
        return cls(lambda text: tokenizer.encode(text, add_special_tokens=False), frozenset(special))

    def draft(self, g: "ReasonerGrammar", hold_back: bool = True, after: str = "") -> tuple[int, ...]:
        """The tokens to propose from ``g``'s state: the forced text's encoding, its last token
        held back unless it is a marker (``hold_back=False``: all of it). ``after``: the text of
        the token written last, which lets the draft go on as the template writes JSON
        (:func:`template_text`)."""
        text = forced_text(g)
        if g.phase == Phase.CONSTRAINED and g.matcher is not None and not g.matcher.is_terminated():
            text = template_text(g.matcher, text, after)
        if not text:
            return ()
        ids = self._encodings.get(text)
        if ids is None:
            ids = self._encodings[text] = tuple(self._encode(text))
        if hold_back and ids and ids[-1] not in self._markers and not self._then_markers(g, text):
            ids = ids[:-1]
        return ids

    def _then_markers(self, g: "ReasonerGrammar", text: str) -> bool:
        """Whether only marker tokens (or nothing) may follow ``text`` from ``g``'s state."""
        m = g.matcher.fork()  # type: ignore[union-attr]
        if not m.accept_string(text):
            return False
        if m.is_terminated():
            return True
        size = g.grammar.vocab.size
        if self._bits is None or self._bits.shape[1] * 32 < size:
            self._bits = xgr.allocate_token_bitmask(1, size)
            words = np.zeros(self._bits.shape[1], dtype=np.uint32)
            for t in self._markers:
                if t < size:
                    words[t >> 5] |= np.uint32(1 << (t & 31))
            self._marker_words = words.view(np.int32)
        m.fill_next_token_bitmask(self._bits)
        row = self._bits.numpy()[0]
        return not np.any(row & ~self._marker_words)
