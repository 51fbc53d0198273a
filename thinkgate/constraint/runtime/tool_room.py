"""Room to finish at every step of the tool phase: a call the grammar lets a model start can
always be completed within ``max_tokens``.

The room a state needs is shown by a witness: a complete way to finish from it (close the
string, write the required keys left, close the call, the section, end the output), found by
walking the request's own constraint ahead (its mask, its guard: every rule the output is held
to) and rolling it back. Its length ``|W|`` is what finishing costs from here. With ``R`` tokens
left, a token ``x`` may be written when what finishing costs after it is at most ``R - 1``; three
kinds of token are known to keep that:

* the witness's own next tokens (``W[0]``, or one token spelling ``W[0..k]``): finishing then
  costs ``|W| - 1`` or less;
* text inside a string free of rules (no pattern, format, enum or const), where the witness
  begins by closing it: the same witness still finishes after it (``neutral``);
* any other token, by a bound: one byte can commit the output to at most ``K`` tokens more
  (``K``: the longest of the tools' simplest calls and of the schemas' shortest values, with
  their keys and markers), so a token of ``n`` bytes (a special token: one) costs at most
  ``K * n``. It is allowed where the slack ``R - 1 - |W|`` holds that.

Far from the end nothing is restricted and nothing is walked: the cost bound ``B`` is the last
witness's length plus every later token's bound, and a row is only looked at when ``R - 1 - B``
falls below what the longest allowed token could cost; it is walked again when the bound's
slack falls below ``K * 8``, or after a token that was neither the witness's nor neutral.

How the walk chooses (any choice the mask allows finishes; these finish soon): an end of the
output where one is allowed; the continuation of the path it took; the first token of the
shortest suffix of the tools' simplest answers (their end markers, ``}``, ``"``) that the mask
allows; a single byte, the one this walk used least (so that forced text such as a key or a
marker is spelt, and a pattern's classes are left); the lowest token the mask allows.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Optional

import numpy as np

from ..schemas.examples import example_value
from ..schemas.schema_checks import subschemas
from .vocabulary import pack

if TYPE_CHECKING:
    from ..grammar.compiled import ToolGrammar

log = logging.getLogger("thinkgate.constraint")

# The first bytes of the tokens that begin a suffix the walk prefers: what closes (a string, a
# container, a tag), never a value's own text.
_CLOSING = frozenset(bytes([b]) for b in b'"}])></\n')
# Bytes the walk tries first where it spells text itself (each at most twice a walk): closers,
# then the separators that patterns such as an email's or a URI's need.
_PREFERRED = b'"}]>/<@.:=,-_aA0'
WALK_BELOW_BYTES = 8  # the bound's slack, in tokens of that many bytes, under which a row is walked again


class FinishPlan:
    """What the requests of one compiled grammar share to keep room: the per-token cost bound,
    its masks by slack, the neutral string tokens and the walk's preferences."""

    def __init__(self, grammar: ToolGrammar, answers: list[tuple[int, ...]]) -> None:
        vocab = grammar.vocab
        tables = vocab.tables
        n = vocab.size
        token_bytes = vocab.token_bytes
        self.size = n
        lengths = np.zeros(n, dtype=np.int64)
        lengths[: len(token_bytes)] = np.fromiter((len(b) for b in token_bytes), dtype=np.int64, count=len(token_bytes))
        special = np.zeros(n, dtype=bool)
        ids = [i for i in vocab.control_ids if i < n]
        special[ids] = True
        lengths[special] = 1
        lengths = np.maximum(lengths, 1)
        self.k = _per_byte_bound(grammar, answers)
        self.cost = (lengths * self.k).astype(np.int64)  # what a token can add to finishing, at most
        # (a marker token commits to at most a call: the longest of the simplest)
        self.cost[special] = max((len(a) for a in answers), default=self.k) + 2
        self.walk_below = self.k * WALK_BELOW_BYTES
        self._by_length = lengths
        self._levels: dict[int, np.ndarray] = {}
        self.max_len = int(lengths.max())
        self.neutral = _neutral_string_tokens(vocab)
        # Text of an answer that may end here: the end still follows it, unless it begins the
        # tool markup (a trigger written as text, a bare call's "{", an array's "[").
        t = grammar.format.tools
        openers = {m[:1].encode() for m in (t.trigger, t.array[0], "{" if t.bare else "") if m and m not in vocab_markers(vocab)}
        text = np.ones(n, dtype=bool)
        text[ids] = False
        text[len(token_bytes):] = False
        for i, b in enumerate(token_bytes):
            if not b or any(o in b for o in openers):
                text[i] = False
        self.answer_text = pack(np.flatnonzero(text), n)
        self.ids_by_bytes = _ids_by_bytes(vocab)
        self.stops = tuple(grammar.stop_ids)
        self.control = vocab.control_ids
        # Suffixes of the simplest answers, by first token, shortest first.
        by_head: dict[int, list[tuple[int, ...]]] = {}
        for ids_ in answers:
            for k in range(len(ids_)):
                suffix = ids_[k:]
                head = token_bytes[suffix[0]] if suffix[0] < len(token_bytes) else b""
                if k and suffix[0] not in vocab.control_ids and (head[:1] not in _CLOSING or not head.strip()):
                    continue  # (a value's text, or whitespace, which finish nothing: see pick)
                by_head.setdefault(suffix[0], []).append(suffix)
        order = sorted(by_head.items(), key=lambda kv: min(len(x) for x in kv[1]))
        self.suffix_first = np.array([t for t, _ in order], dtype=np.int64)
        self.suffixes = [sorted({x[1:] for x in group if len(x) > 1}, key=len) for _, group in order]
        single = {}
        for i, b in enumerate(token_bytes):
            if len(b) == 1 and not special[i] and b[0] not in single:
                single[b[0]] = i
        self.single = np.array(sorted(single.values()), dtype=np.int64)
        self.single_byte = np.array([token_bytes[i][0] for i in self.single], dtype=np.int64)
        self.single_space = np.isin(self.single_byte, list(b" \t\r\n"))
        self.single_of = {int(b): int(i) for b, i in zip(self.single_byte, self.single)}
        self.quote = self.single_of.get(0x22)
        self.preferred = [(b, self.single_of[b]) for b in _PREFERRED if b in self.single_of]

    def level(self, slack: int) -> Optional[np.ndarray]:
        """The tokens whose bound fits ``slack`` (None: every token does)."""
        longest = slack // self.k
        if longest >= self.max_len:
            return None
        longest = max(longest, 0)
        mask = self._levels.get(longest)
        if mask is None:
            mask = self._levels[longest] = pack(np.flatnonzero(self._by_length <= longest), self.size)
        return mask


def _per_byte_bound(grammar: ToolGrammar, answers: list[tuple[int, ...]]) -> int:
    """K: what one byte can commit the output to, in tokens: a whole call (the longest simplest
    one), or a value with its key and the markup around it (the longest shortest value of any
    place in the schemas, the longest key, the longest marker)."""
    k = max((len(a) for a in answers), default=0)
    value = key = 0
    for spec in grammar.spec.tools:
        schema = next((s for s in (spec.schema.bounded_schema, spec.schema.xgrammar_schema) if isinstance(s, dict)), {})
        for _, sub, _ in subschemas(schema, "#", 0):
            if not isinstance(sub, dict):
                continue
            for name in sub.get("properties") or {}:
                key = max(key, len(str(name).encode()))
            try:
                shortest = json.dumps(example_value(sub, schema, short=True), ensure_ascii=False)
            except Exception:  # a value the examples cannot write: the marker and key bound stand
                continue
            value = max(value, len(shortest.encode()))
    markers = max((len(m.encode()) for m in grammar.format.tools.markers), default=0)
    return max(k, value + key + markers + 8, 16)


def vocab_markers(vocab) -> set:
    """The texts of the control tokens (a marker that is a token opens nothing as text)."""
    return {vocab.token_bytes[i].decode("utf-8", "replace") for i in vocab.control_ids if i < len(vocab.token_bytes)}


def _neutral_string_tokens(vocab) -> np.ndarray:
    """Tokens that are whole characters of a JSON string's text with no quote, backslash or
    control character: after one, a string free of rules can still close at once."""
    cached = getattr(vocab, "_neutral_string_tokens", None)
    if cached is not None:
        return cached
    keep = []
    control = vocab.control_ids
    for i, b in enumerate(vocab.token_bytes):
        if not b or i in control or b'"' in b or b"\\" in b or min(b) < 0x20:
            continue
        try:
            b.decode("utf-8")
        except UnicodeDecodeError:
            continue
        keep.append(i)
    mask = pack(keep, vocab.size)
    vocab._neutral_string_tokens = mask
    return mask


def _ids_by_bytes(vocab) -> dict[bytes, int]:
    cached = getattr(vocab, "_ids_by_bytes", None)
    if cached is None:
        control = vocab.control_ids
        cached = {}
        for i, b in enumerate(vocab.token_bytes):
            if b and i not in control and b not in cached:
                cached[b] = i
        vocab._ids_by_bytes = cached
    return cached


def allowed(words: np.ndarray, token_id: int) -> bool:
    return bool((int(words[token_id >> 5]) >> (token_id & 31)) & 1)


def allowed_among(words: np.ndarray, ids: np.ndarray) -> np.ndarray:
    return ((words.view(np.uint32)[ids >> 5] >> (ids & 31).astype(np.uint32)) & 1).astype(bool)


def pick(plan: FinishPlan, words: np.ndarray, path: list, uses: dict, in_string: bool, in_value: bool = True) -> tuple[Optional[int], list]:
    """The walk's next token from a filled row, and the paths it continues (the rests of the
    suffixes it follows, shortest first; see the module).
    ``in_string``: inside a JSON string, where its closing quote comes first. ``in_value``:
    inside a call's arguments, where a suffix begun twice in vain is given up (its first token
    is a value's text there; in the markup between, it is a marker's start, as Kimi-K3's "<|"). ``uses``: the
    walk's memory (its random draws at 0 once drawn, their seed at -1, how often a suffix was
    begun at -2 - its first token)."""
    for s in plan.stops:
        if allowed(words, s):
            return s, []
    live = [p for p in path if allowed(words, p[0])]
    if live:
        t = live[0][0]
        return t, [p[1:] for p in live if p[0] == t and len(p) > 1]
    if in_string and plan.quote is not None and allowed(words, plan.quote):
        return plan.quote, []
    if len(plan.suffix_first):
        for j in np.flatnonzero(allowed_among(words, plan.suffix_first)).tolist():
            t = int(plan.suffix_first[j])
            if not in_value or uses.get(-2 - t, 0) < 2:  # (begun again and again in a value: a loop)
                uses[-2 - t] = uses.get(-2 - t, 0) + 1
                return t, plan.suffixes[j]
    # A byte: one of the preferred ones the mask allows, else of any it allows, drawn at
    # random (seeded: a walk from one state is one walk). A fixed order cycles in a pattern
    # (an email's ".-A0a" never ends in two letters); drawn, it ends soon.
    choices = [i for _, i in plan.preferred if allowed(words, i)]
    if not choices:
        ok = allowed_among(words, plan.single)
        choices = plan.single[ok & ~plan.single_space].tolist() or plan.single[ok].tolist()
    if choices:
        rng = uses.get(0)
        if rng is None:
            rng = uses[0] = np.random.default_rng(uses.get(-1, 0))
        return int(choices[int(rng.integers(len(choices)))]), []
    nz = np.flatnonzero(words)
    if not len(nz):
        return None, []
    w = int(nz[0])
    word = int(words.view(np.uint32)[w])
    return w * 32 + ((word & -word).bit_length() - 1), []


def witness_prefixes(plan: FinishPlan, token_bytes: list, witness: tuple[int, ...]) -> dict[int, int]:
    """The tokens that spell the witness's first tokens together (``W[:k]``), each with its
    ``k``: after one, ``W[k:]`` still finishes."""
    out: dict[int, int] = {}
    text = b""
    for k, t in enumerate(witness[:8], 1):
        b = token_bytes[t]
        if not b or t in plan.control:  # a marker token is itself, whatever text spells it
            break
        text += b
        i = plan.ids_by_bytes.get(text)
        if i is not None:
            out.setdefault(i, k)
    return out
