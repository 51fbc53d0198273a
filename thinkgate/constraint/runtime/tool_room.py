"""Room to finish at every step of the tool phase: a call the grammar lets a model start can
always be completed within ``max_tokens``.

The room a state needs is shown by a witness: a complete way to finish from it (close the
string, write the required keys left, close the call, the section, end the output), found by
walking the request's own constraint ahead (its mask, its guard: every rule the output is held
to) and rolling it back. Its length ``|W|`` is what finishing costs from here. With ``R`` tokens
left, a token ``x`` may be written when what finishing costs after it is at most ``R - 1``; four
kinds of token are known to keep that:

* the witness's own next tokens, or a token that spells its first bytes (the witness's token it
  ends inside is written again from there: ``witness_prefixes``);
* text inside a string free of rules (no pattern, format, enum or const), where the witness
  begins by closing it: the same witness still finishes after it (``neutral``);
* an answer's text before any call under ``auto``/``none``: the end still follows it;
* any other token, by a bound of what it can add: what it opens, read from its bytes where it
  starts (between JSON values, inside a string, in raw XML text, in a call's header or markup)
  and priced by the place the guard's cursor is at. In JSON arguments a member begun by ",", a
  container by "{" or "[", a string begun on its own each commit to at most the most any value
  inside the container may need once begun, with its key (``Node.room``, in bytes: a token a
  byte writes anything); what the token continues (a number's digits, a string's text) to at
  most that place's own (``Node.own``); a token that closes a container first, to anything's.
  In a call's header a part of a tool's name costs the difference between that tool's simplest
  call and the shortest one; a marker token, or markup text, a whole call (the longest simplest
  one). Every such token may cut the witness's token it leaves, whose rest is written again:
  two more. It is allowed where ``R - 1 - |W|`` holds its bound.

So a natural call (the tokenizer's own encoding of the realistic tools' calls) passes untouched
whenever ``max_tokens`` leaves about 45 to 55 tokens beyond its own length
(benchmarks/tool_room.py); nearer the limit the model is held to what finishes.

Far from the end nothing is restricted and nothing is walked: the cost bound ``B`` is the last
witness's length plus every later token's bound (the most it costs anywhere), and a row is only
looked at when ``R - 1 - B`` falls below what the costliest token could cost; it is walked again
when that slack falls below ``walk_below``, or after a token that was neither the witness's nor
neutral.

How the walk chooses (any choice the mask allows finishes; these finish soon): an end of the
output where one is allowed; a path it was given or took: the simplest answer the output is
writing (``continuations``: matched on the last tokens' bytes), the last witness resumed after
a token that only spaced it differently (``resume``); the suffixes of the tools' simplest
answers that close something (their end markers, ``}``, ``"``); a single byte, separators first,
drawn at random (seeded; the shortest of three walks, of up to eight while none fits), so that
forced text such as a key or a marker is spelt and a pattern's classes are left.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Optional

import numpy as np

from .vocabulary import pack

if TYPE_CHECKING:
    from ..grammar.compiled import ToolGrammar

log = logging.getLogger("thinkgate.constraint")

# The first bytes of the tokens that begin a suffix the walk prefers: what closes (a string, a
# container, a tag), never a value's own text.
_SPACE = frozenset(b" \t\r\n")
_CLOSING = frozenset(bytes([b]) for b in b'"\'}])></\n')
# Bytes the walk tries first where it spells text itself (each at most twice a walk): closers
# (Python's among them: a string in single quotes, keyword arguments' parenthesis), then the
# separators that patterns such as an email's or a URI's need.
_PREFERRED = b'"}])>\'/<@.:=,-_aA0'


class FinishPlan:
    """What the requests of one compiled grammar share to keep room: the per-token cost bounds
    (one table for each place a token can start in), their masks by slack, the neutral string
    tokens and the walk's preferences."""

    def __init__(self, grammar: ToolGrammar, answers: list[tuple[int, ...]], calls: Optional[dict[str, int]] = None) -> None:
        """``answers``: the simplest answers the walk follows; ``calls``: the walked ones' lengths
        by their tool's name."""
        vocab = grammar.vocab
        n = vocab.size
        token_bytes = vocab.token_bytes
        self.size = n
        ids = [i for i in vocab.control_ids if i < n]
        special = np.zeros(n, dtype=bool)
        special[ids] = True
        self.call = max((len(a) for a in answers), default=16) + 2  # a whole call, in tokens
        self.value = _value_bound(grammar)  # a key with its value, in bytes, anywhere
        self.k = max(self.call, self.value)  # (the walk's length is bounded by a few of these)
        markers = {m for m in grammar.format.tools.markers if m and m not in vocab_markers(vocab)}
        # Bytes that begin markup written as text: in a call's arguments, outside a string, one
        # may end the call and begin the next.
        mark_first = frozenset(m.encode()[0] for m in markers if m.encode()[:1] not in (b'"', b"{", b"[", b","))
        self._m = len(token_bytes)
        self._cols = _token_counts(vocab, mark_first)  # (shared by the vocabulary's plans: read only)
        self._special = special
        self.stops = tuple(grammar.stop_ids)
        self.control = vocab.control_ids
        known = calls or {}
        self._names = _name_parts(vocab, {s.name: known.get(s.name) for s in grammar.spec.tools}, self.call)
        # What a token can add to finishing, at most, by where it starts (see the module); in
        # JSON arguments by the place too (costs_in).
        c = self._cols
        string = self._finish(self.value * (c["cont_q"] + c["open_q"]) + self.call * c["marks_q"])
        name = string.copy()
        outside = self.call * (1 + c["outs"])
        header = outside.copy()
        for i, cost in self._names.items():
            if i < n:
                name[i] = min(name[i], cost)  # (a call object's name: a string)
                header[i] = min(header[i], cost)
        self.costs: dict = {
            "raw": self._finish(self.value + self.call * c["angles"]),  # a value written raw (XML), tags begun by "<"
            "outside": self._finish(outside),  # the markup: a marker, a call's frame
            "header": self._finish(header),  # a call's header, which names its tool
            "name": name,
        }
        self.cost = np.maximum.reduce([
            *self.costs.values(), string,
            self._finish(max(self.value, LITERAL) * c["cont_s"] + _opened(grammar, self.value) * c["open_s"] + self.call * c["marks_s"]),
        ])  # (where a token started is not kept: the most it can cost anywhere)
        self.costs["any"] = self.cost
        self.costs = {kind: cost.astype(np.int32) for kind, cost in self.costs.items()}
        self.cost = self.costs["any"]
        self._levels: dict[tuple, np.ndarray] = {}
        self._steps = {kind: np.unique(cost) for kind, cost in self.costs.items()}
        self.walk_below = max(2 * self.call, 4 * self.value)
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
        # Where each marker token and each byte stands in the simplest answers, for a walk begun
        # inside one of them (see continuations): an answer's bytes but whitespace, each with its
        # token and where in it it ends, a marker token as -1.
        self._answers = answers
        self._token_bytes = token_bytes
        self._at: dict[int, list[tuple[int, int]]] = {}
        self._flat: list[list[tuple[int, int, int]]] = []
        self._by_last: dict[int, list[tuple[int, int]]] = {}
        for a, ids_ in enumerate(answers):
            flat: list[tuple[int, int, int]] = []
            for k, t in enumerate(ids_[:-1]):
                if t in vocab.control_ids or t in grammar.stop_ids or t >= len(token_bytes):
                    self._at.setdefault(t, []).append((a, k))
                    flat.append((-1, k, 0))
                    continue
                for j, c in enumerate(token_bytes[t]):
                    if c not in _SPACE:
                        self._by_last.setdefault(c, []).append((a, len(flat)))
                        flat.append((c, k, j + 1))
            self._flat.append(flat)
        self.suffix_first = np.array([t for t, _ in order], dtype=np.int64)
        self.quoted_first = np.array([token_bytes[t][:1] == b'"' if t < len(token_bytes) else False for t, _ in order], dtype=bool)
        self.suffixes = [sorted({x[1:] for x in group if len(x) > 1}, key=lambda x: (len(x), x)) for _, group in order]
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

    def continuations(self, tail: list[int]) -> list[tuple[int, ...]]:
        """The rests of the simplest answers the output's last tokens (``tail``) are writing,
        shortest first: after the same marker token, or where the text since the last marker
        ends as the answer's does at some place (its last dozen bytes but whitespace, or all of
        them if fewer), the token the place cuts written again from there."""
        if not tail:
            return []
        found = set()
        if tail[-1] in self.control:
            for a, k in self._at.get(tail[-1], ()):
                found.add(self._answers[a][k + 1 :])
        else:
            text = b""
            for t in reversed(tail):
                if t in self.control or t in self.stops or t >= len(self._token_bytes):
                    break
                text = self._token_bytes[t] + text
            key = bytes(c for c in text if c not in _SPACE)[-12:]
            for a, p in self._by_last.get(key[-1], ()) if key else ():
                flat = self._flat[a]
                if p + 1 < len(key) or tuple(f[0] for f in flat[p + 1 - len(key) : p + 1]) != tuple(key):
                    continue
                if len(key) < 3 and p + 1 - len(key) > 0 and flat[p - len(key)][0] != -1:
                    continue  # (a byte or two, not just after a marker: anywhere)
                _, k, end = flat[p]
                ids = self._answers[a]
                rest = self._token_bytes[ids[k]][end:]
                spelt = self.spell(rest)
                if spelt is not None:
                    found.add(spelt + ids[k + 1 :])
        return [p for path in sorted(found, key=lambda x: (len(x), x)) for p in self.unspaced(path)]  # (not the set's order: the hash seed's)

    def unspaced(self, path: tuple[int, ...]) -> list[tuple[int, ...]]:
        """``path``, and where its first token begins with whitespace (which the whitespace
        written before may leave no room for), the same without it."""
        if not path or path[0] in self.control or path[0] in self.stops or path[0] >= len(self._token_bytes):
            return [path]
        b = self._token_bytes[path[0]]
        stripped = b.lstrip(bytes(_SPACE))
        if stripped == b:
            return [path]
        spelt = self.spell(stripped)
        return [path] if spelt is None else [path, spelt + path[1:]]

    def spell(self, text: bytes) -> Optional[tuple[int, ...]]:
        """``text`` as one token, or a token a byte (None where a byte has none)."""
        if not text:
            return ()
        whole = self.ids_by_bytes.get(text)
        if whole is not None:
            return (whole,)
        spelt = tuple(self.single_of.get(c, -1) for c in text)
        return None if -1 in spelt else spelt

    def _finish(self, costs: np.ndarray) -> np.ndarray:
        costs += RESPELL
        costs[self._special] = self.call  # a marker token commits to at most a call
        costs[self._m :] = self.call
        costs[[t for t in self.stops if t < self.size]] = 0  # (an end, where one is allowed, finishes)
        return costs

    def costs_in(self, kind: str, here: int, frame: int) -> str:
        """The key of the cost table for a token that starts in JSON arguments (``kind``:
        "args" between values, "string" inside one), where what it continues (a number or
        literal; the string) commits to at most ``here`` bytes and what it opens in the
        container it is in to at most ``frame`` (a token that closes a container first: to
        anything's bound)."""
        key = (kind, _rounded_up(here), _rounded_up(frame))  # (a few tables, not one a place)
        if key not in self._steps:
            self._steps[key] = np.unique(self._costs_in(key))
        return key

    def _costs_in(self, key: tuple) -> np.ndarray:
        """The table of a key of :meth:`costs_in` (made when a mask of it is, not kept)."""
        kind, here, frame = key
        c = self._cols
        s = "q" if kind == "string" else "s"
        opens = np.where(c["close_" + s] > 0, self.value, frame) * c["open_" + s]
        return self._finish(here * c["cont_" + s] + opens + self.call * c["marks_" + s])

    def level(self, slack: int, kind="any") -> Optional[np.ndarray]:
        """The tokens whose bound, where they start (``kind``: a key of :attr:`costs`), fits
        ``slack`` (None: every token does)."""
        steps = self._steps[kind]
        if slack >= steps[-1]:
            return None
        j = int(np.searchsorted(steps, slack, side="right"))  # the costs up to steps[j - 1] fit
        mask = self._levels.get((kind, j))
        if mask is None:
            costs = self.costs[kind] if isinstance(kind, str) else self._costs_in(kind)
            fits = np.flatnonzero(costs <= steps[j - 1]) if j else np.zeros(0, dtype=np.int64)
            mask = self._levels[(kind, j)] = pack(fits, self.size)
        return mask


def _name_parts(vocab, calls: dict[str, Optional[int]], most: int) -> dict[int, int]:
    """The tokens that spell a part of a tool's name, each with what choosing the tools whose
    names hold it can cost: at a name the shortest way to finish begins with the shortest of
    the simplest calls, so choosing another costs the difference of their lengths, and two
    tokens for another spelling (``most`` where a tool's call is not known: None)."""
    by_part: dict[bytes, int] = {}
    shortest = min((n for n in calls.values() if n is not None), default=0)
    for name, length in calls.items():
        b = name.encode()
        cost = most if length is None else length - shortest + 2
        for i in range(len(b)):
            for j in range(i + 1, min(len(b), i + 32) + 1):  # (no token is longer)
                by_part[b[i:j]] = max(by_part.get(b[i:j], 0), cost)
    ids = _ids_by_bytes(vocab)
    return {ids[part]: cost for part, cost in by_part.items() if part in ids}


def _value_bound(grammar: ToolGrammar) -> int:
    """What one step into a call's arguments can commit the output to, anywhere, in bytes (a
    token per byte is the longest way to write them): the most a place's value may need once
    begun, with a key (see ``Node.room``); with the markup around a value where the
    arguments are no JSON."""
    value = max((spec.schema.nodes.room for spec in grammar.spec.tools if spec.schema.nodes is not None), default=16)
    t = grammar.format.tools
    markup = 2 * max((len(m.encode()) for m in t.markers), default=0) if t.xml is not None or t.literal is not None else 0
    return value + markup


def _opened(grammar: ToolGrammar, value: int) -> int:
    """What a member opened anywhere commits to, a call's arguments included (a call object
    holds them as a member)."""
    roots = [spec.schema.nodes for spec in grammar.spec.tools if spec.schema.nodes is not None]
    return max([value, *(r.own + r.room for r in roots)])


def _rounded_up(n: int) -> int:
    """``n`` rounded up to a step of a series that doubles every two steps (8, 12, 16, 24, 32,
    ...): a bound only grows, and a grammar's places share a few tables."""
    step = 8
    while step < n:
        step = step * 3 // 2 if step & (step - 1) == 0 else step * 4 // 3
    return step


_COLUMNS = ("cont_s", "open_s", "close_s", "marks_s", "cont_q", "open_q", "close_q", "marks_q", "angles", "outs")
RESPELL = 2  # a token off the witness may cut one of its tokens, whose rest is written again (see resume)
LITERAL = 24  # the most a number's or a literal's first bytes commit to (a bounded number's digits)


def _token_counts(vocab, mark_first: frozenset) -> dict[str, np.ndarray]:
    """For each token, from its bytes alone (the columns of ``_COLUMNS``): in JSON arguments,
    starting between values (``_s``) and inside a string (``_q``), whether it continues what
    is being written, what it opens (a member begun by ",", a container by "{" or "[", a string
    begun on its own), what it closes, and the bytes that begin text markup outside a string;
    its "<"; and, read as markup, the bytes that may begin a call."""
    key = ("_token_counts", mark_first)
    cached = getattr(vocab, "_room_counts", {}).get(key)
    if cached is not None:
        return cached
    call_first = mark_first | {0x7B, 0x5B}
    rows = []
    for b in vocab.token_bytes:
        rows.append((*_json_commitments(b, False, mark_first), *_json_commitments(b, True, mark_first), b.count(b"<"), sum(1 for c in b if c in call_first)))
    table = np.zeros((vocab.size, len(_COLUMNS)), dtype=np.int32)
    table[: len(rows)] = np.array(rows, dtype=np.int32).reshape(len(rows), len(_COLUMNS))
    cols = {name: np.ascontiguousarray(table[:, j]) for j, name in enumerate(_COLUMNS)}
    if not hasattr(vocab, "_room_counts"):
        vocab._room_counts = {}
    vocab._room_counts[key] = cols
    return cols


def _json_commitments(b: bytes, in_string: bool, mark_first: frozenset) -> tuple[int, int, int, int]:
    opens = closes = marks = 0
    esc = cont = False
    prev = 0
    for c in b:
        if in_string:
            if esc:
                esc = False
            elif c == 0x22:
                in_string, prev = False, c
                continue
            elif c == 0x5C:
                esc = True
            cont = cont or not opens  # (text of a string the token began is its opener's)
            continue
        if c in (0x20, 0x09, 0x0A, 0x0D):
            continue
        if c == 0x22:
            in_string = True
            if prev not in (0x2C, 0x3A):  # (after "," or ":" the string is the member's or value's)
                opens += 1
        elif c in (0x2C, 0x7B, 0x5B):
            opens += 1
        elif c in (0x7D, 0x5D):
            closes += 1
        elif c in mark_first:
            marks += 1
        elif c != 0x3A and not opens:
            cont = True  # a number's or a literal's bytes, before anything is opened
        prev = c
    return int(cont), opens, closes, marks


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
    if in_string and len(plan.suffix_first):  # (a suffix that closes the string, as "," does)
        for j in np.flatnonzero(allowed_among(words, plan.suffix_first) & plan.quoted_first).tolist():
            t = int(plan.suffix_first[j])
            if _begin(uses, t, in_value):  # ('",' in an array: each one another item)
                return t, plan.suffixes[j]
    if in_string and plan.quote is not None and allowed(words, plan.quote):
        return plan.quote, []
    if len(plan.suffix_first):
        for j in np.flatnonzero(allowed_among(words, plan.suffix_first)).tolist():
            t = int(plan.suffix_first[j])
            if _begin(uses, t, in_value):
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


def _begin(uses: dict, t: int, in_value: bool) -> bool:
    """Whether the walk may begin a suffix at ``t`` again (begun again and again: a loop)."""
    n = uses.get(-2 - t, 0)
    if n >= (2 if in_value else 6):
        return False
    uses[-2 - t] = n + 1
    return True


def _witness_text(plan: FinishPlan, token_bytes: list, witness: tuple[int, ...]) -> tuple[bytes, list[int]]:
    """The text of the witness's first tokens up to its first marker or end token (a marker
    token is itself, whatever text spells it), and where each of those tokens ends in it."""
    text = b""
    ends: list[int] = []
    for t in witness:
        b = token_bytes[t] if t < len(token_bytes) else b""
        if not b or t in plan.control or t in plan.stops:
            break
        text += b
        ends.append(len(text))
    return text, ends


def witness_prefixes(plan: FinishPlan, token_bytes: list, witness: tuple[int, ...]) -> dict[int, tuple[int, ...]]:
    """The tokens that spell the witness's first bytes, each with what finishes after it: the
    rest of the witness, its token cut by the token's end written again (``W[:k]`` spelt by
    one token leaves ``W[k:]``; a token that ends inside ``W[k]`` leaves the rest of ``W[k]``'s
    bytes, as one token or byte by byte, then ``W[k + 1:]``). The same bytes follow, so every
    rule that held for the witness holds for them."""
    out: dict[int, tuple[int, ...]] = {}
    text, ends = _witness_text(plan, token_bytes, witness[:8])
    for j in range(1, min(len(text), 32) + 1):
        i = plan.ids_by_bytes.get(text[:j])
        if i is None or i in out:
            continue
        k = next(n for n, e in enumerate(ends) if e >= j)
        spelt = plan.spell(text[j : ends[k]])
        if spelt is not None:
            out[i] = spelt + witness[k + 1 :]
    return out


def resume(plan: FinishPlan, token_bytes: list, witness: tuple[int, ...], token: int) -> Optional[tuple[int, ...]]:
    """The witness again after a token off it that writes the same bytes but for whitespace
    (JSON's, between values: a model spaces its output as it likes): the rest of the witness's
    bytes from where the token ends, the cut token's rest written again. A hint for the walk
    (which checks it against the mask), not a promise; None where the bytes part."""
    x = token_bytes[token] if token < len(token_bytes) else b""
    if not x or token in plan.control:
        return None
    text, ends = _witness_text(plan, token_bytes, witness[:16])
    i = j = 0
    while i < len(x):
        if j < len(text) and x[i] == text[j]:
            i, j = i + 1, j + 1
        elif x[i] in _SPACE:
            i += 1
        elif j < len(text) and text[j] in _SPACE:
            j += 1
        else:
            return None
    if j == 0:
        return witness  # (whitespace alone)
    if j > len(text) or not ends:
        return None
    k = next((n for n, e in enumerate(ends) if e >= j), None)
    if k is None:
        return None
    spelt = plan.spell(text[j : ends[k]])
    return None if spelt is None else spelt + witness[k + 1 :]
