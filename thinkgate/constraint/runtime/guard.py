"""The run-time guard beside xgrammar: string length bounds and valid Unicode in arguments.

xgrammar enforces the JSON structure and the schema; two things it cannot do cheaply are done
here, from where the arguments are as they are being written:

* ``minLength``/``maxLength``: xgrammar gets plain strings (fast to compile, and free of
  xgrammar #800); inside a bounded string the guard clears the tokens that would overrun the
  bound or close the string too early. Plain tokens are cleared with one vectorised AND against a
  precomputed row ("tokens adding more than r characters"); tokens with a quote or a backslash
  are read through exactly.
* Valid Unicode: no UTF-8 bytes of a surrogate (``ED A0..BF``) and no lone surrogate escape
  (``\\ud800`` without its low half) in any string.
* Bounded whitespace: no run of more than ``max_whitespace`` whitespace characters between
  JSON's tokens (so that a weak model cannot write whitespace forever). xgrammar can bound it
  (``max_whitespace_cnt``), but a bounded run makes every token that starts with whitespace
  one it checks at run time, at every value's start: the mask of a realistic call fills in
  about 3.4 µs a row with the run free against 9.5 µs with it bounded. Here it is one cached
  mask per run length ("plain tokens whose leading whitespace overruns the room left").

The guard follows the call structure from token ids, or for a format whose markers are text
(:class:`~thinkgate.formats.Text`) from the bytes written (the grammar guarantees the exact marker
and header text, so this is a small machine, not the parser). Masks are cached by the state that
decides them, so a state seen before costs a dictionary lookup and one vectorised AND.
"""

from __future__ import annotations

import json
import operator
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Optional

import numpy as np

from ..schemas.schema_nodes import Node
from .vocabulary import TokenTables, pack

_QUOTE, _BACKSLASH = 0x22, 0x5C
_PLAIN_RUN = re.compile(rb'[^"\\]+')
_CONTINUATION = bytes(range(0x80, 0xC0))
_HEX = frozenset(b"0123456789abcdefABCDEF")
_SURROGATE_BYTES = re.compile(rb"\xed[\xa0-\xbf]")

# Where the guard is in the call structure. BETWEEN: a layout whose calls have no markers of
# their own (bare_json; json_array after its section marker), at the answer's start or after the
# section marker or a call, where "{" begins a call, the bytes allowed between calls are skipped
# and anything else ends the calls. RAW: inside a call whose arguments are parameters (bare text,
# no JSON to follow), where only the Unicode rule applies. ANSWER: at the start of an answer held
# to JSON (response_format) that has no header of its own, where "{" begins the answer and
# anything else (a call's marker) leaves the guard OUTSIDE.
OUTSIDE, HEADER, ARGS, AFTER, BETWEEN, RAW, ANSWER = 0, 1, 2, 3, 4, 5, 6
_SPACE = frozenset(b" \t\r\n")


class Cursor:
    """A position in JSON arguments: open containers with their schema nodes, and the state of
    the string being written. ``read`` follows bytes; with ``check`` it stops at the first byte
    that would break a bound or a surrogate rule and says so."""

    __slots__ = ("stack", "node", "in_string", "esc", "hexbuf", "pending_high", "count", "keybuf", "last_byte", "done", "check_keys", "capture", "ws", "max_ws", "overrun")

    def __init__(self, root: Optional[Node], max_ws: Optional[int] = None) -> None:
        # frames: (is_object, node, key, index, keys seen (raw bytes), the tool a call object names)
        self.stack: tuple = ()
        self.node = root  # while no container is open: the root; then the open string's node
        self.in_string = 0  # 1: a key, 2: a value
        self.esc = 0  # 1 after a backslash, 2 inside \\uXXXX
        self.hexbuf = ""
        self.pending_high = False  # a high surrogate escape waits for its low half
        self.count = 0
        self.keybuf = b""
        self.last_byte = -1
        self.done = False
        self.check_keys = True  # a checked read refuses a key the object already has
        self.capture: Optional[bytes] = None  # the raw value of a call object's name, being read
        self.ws = 0  # the whitespace run outside strings that the last bytes read end with
        self.max_ws = max_ws  # the longest run a checked read lets through (None: any)
        self.overrun = False  # an unchecked read went past max_ws (a token tried, see ArgumentsGuard)

    def copy(self) -> Cursor:
        c = Cursor.__new__(Cursor)
        c.restore(_STATE(self))
        return c

    def state(self) -> tuple:
        return _STATE(self)

    def restore(self, state: tuple) -> None:
        for name, value in zip(Cursor.__slots__, state):
            setattr(self, name, value)

    def _bounds(self) -> tuple[int, Optional[int]]:
        node = self.node if self.in_string == 2 else None
        if node is None:
            return 0, None
        return node.min_len, node.max_len

    def read(self, data: bytes, check: bool = False) -> int:
        """Follow ``data``; returns how many bytes were read (``len(data)``, fewer when the
        object closed, or -1 when ``check`` found a violation)."""
        if check and self.in_string and self.last_byte == 0xED and data and 0xA0 <= data[0] <= 0xBF:
            return -1
        i, n = 0, len(data)
        while i < n:
            if self.in_string:
                esc = self.esc
                if esc == 0:
                    m = _PLAIN_RUN.match(data, i)
                    if m is not None:
                        if self.pending_high and check:
                            return -1
                        run = m.group()
                        if self.in_string == 1:
                            self.keybuf += run
                        else:
                            if self.capture is not None:
                                self.capture += run
                            self.count += len(run.translate(None, _CONTINUATION))  # bytes that start a character
                            if check:
                                lo, hi = self._bounds()
                                if hi is not None and self.count > hi:
                                    return -1
                        if check and _SURROGATE_BYTES.search(run):
                            return -1
                        i = m.end()
                        continue
                    x = data[i]
                    i += 1
                    if x == _QUOTE:
                        if check:
                            lo, _ = self._bounds()
                            if self.pending_high or self.count < lo:
                                return -1
                            if self.in_string == 1 and self.check_keys and self.keybuf in self.stack[-1][4]:
                                return -1
                        self._close_string()
                    else:
                        self.esc = 1
                        if self.in_string == 1:
                            self.keybuf += b"\\"
                        elif self.capture is not None:
                            self.capture += b"\\"
                        # An escape is one character, counted where it starts; the low half of
                        # a surrogate pair adds none.
                        elif not self.pending_high:
                            self.count += 1
                            if check:
                                _, hi = self._bounds()
                                if hi is not None and self.count > hi:
                                    return -1
                elif esc == 1:
                    x = data[i]
                    i += 1
                    if self.in_string == 1:
                        self.keybuf += bytes((x,))
                    elif self.capture is not None:
                        self.capture += bytes((x,))
                    if x == 0x75:  # u
                        self.esc, self.hexbuf = 2, ""
                    else:
                        if self.pending_high and check:
                            return -1
                        self.esc = 0
                        self.pending_high = False
                else:
                    x = data[i]
                    i += 1
                    if self.in_string == 1:
                        self.keybuf += bytes((x,))
                    elif self.capture is not None:
                        self.capture += bytes((x,))
                    if x not in _HEX:
                        if check:
                            return -1
                        continue
                    self.hexbuf += chr(x)
                    if check and not self._surrogate_prefix_ok():
                        return -1
                    if len(self.hexbuf) == 4:
                        code = int(self.hexbuf, 16)
                        low = 0xDC00 <= code <= 0xDFFF
                        if self.pending_high:
                            if check and not low:
                                return -1
                            self.pending_high = False
                        else:
                            if check and low:
                                return -1
                            self.pending_high = 0xD800 <= code <= 0xDBFF
                        self.esc, self.hexbuf = 0, ""
                continue
            x = data[i]
            i += 1
            if x in _SPACE:
                self.ws += 1
                if self.max_ws is not None and self.ws > self.max_ws:
                    if check:
                        return -1
                    self.overrun = True
                continue
            self.ws = 0
            if x == _QUOTE:
                self._open_string()
            elif x == 0x7B or x == 0x5B:  # { [
                self.stack = self.stack + ((x == 0x7B, self.value_node(), None, 0, frozenset(), None),)
            elif x == 0x7D or x == 0x5D:  # } ]
                self.stack = self.stack[:-1]
                if not self.stack:
                    self.done = True
                    self.last_byte = x
                    return i
            elif x == 0x2C:  # ,
                if not self.stack:
                    return -1  # not JSON the grammar allows; only a candidate being checked gets here
                is_obj, node, _, index, seen, tag = self.stack[-1]
                self.stack = self.stack[:-1] + ((is_obj, node, None, index + 1, seen, tag),)
        if n:
            self.last_byte = data[-1]
        return n

    def _surrogate_prefix_ok(self) -> bool:
        """Whether the escape's hex digits so far can still end well: a low half (DC00-DFFF)
        after a high surrogate and only there, so a pair is never left unfinishable."""
        h = self.hexbuf
        if self.pending_high:
            return h[0] in "dD" and (len(h) < 2 or h[1] in "cdefCDEF")
        return not (len(h) >= 2 and h[0] in "dD" and h[1] in "cdefCDEF")

    def value_node(self) -> Optional[Node]:
        """The node of the value to be written next: the open container's member or item."""
        if not self.stack:
            return self.node
        return _child(self.stack[-1])

    def _open_string(self) -> None:
        top = self.stack[-1] if self.stack else None
        if top is not None and top[0] and top[2] is None:
            self.in_string = 1
            self.keybuf = b""
        else:
            self.in_string = 2
            self.node = self.value_node()
            self.count = 0
            node, key = (top[1], top[2]) if top is not None else (None, None)
            self.capture = b"" if node is not None and node.variants is not None and key == node.variant_key else None
        self.esc = 0
        self.pending_high = False

    def _close_string(self) -> None:
        if self.in_string == 1:
            is_obj, node, _, index, seen, tag = self.stack[-1]
            self.stack = self.stack[:-1] + ((is_obj, node, _decode_key(self.keybuf), index, seen | {self.keybuf}, tag),)
        elif self.capture is not None:
            is_obj, node, key, index, seen, _ = self.stack[-1]
            self.stack = self.stack[:-1] + ((is_obj, node, key, index, seen, _decode_key(self.capture)),)
            self.capture = None
        self.in_string = 0
        self.node = None


_MAX_VERDICT_STATES = 1 << 14  # (each with at most a verdict per token of several quotes: a few dozen)
_STATE = operator.attrgetter(*Cursor.__slots__)  # one C call per token, not one per slot
_ATOMS = operator.attrgetter(*Cursor.__slots__[2:])  # all but the stack and the node: no containers


@lru_cache(maxsize=4096)  # a schema's keys come again and again
def _decode_key(raw: bytes) -> str:
    try:
        return json.loads(b'"' + raw + b'"')
    except ValueError:
        return raw.decode("utf-8", "replace")


class MaskCache:
    """Bad-token masks by the state that decides them, per tokenizer, computed on first need."""

    def __init__(self, tables: TokenTables, token_bytes: list[bytes]):
        self.tables = tables
        self.token_bytes = token_bytes
        self._masks: dict[tuple, np.ndarray] = {}
        self._steps: dict[tuple, tuple] = {}
        self._verdicts: dict[tuple, dict[int, bool]] = {}
        # Per mask key: the tokens it leaves that close the arguments' JSON and may open another
        # after it (bare calls), whose whitespace only the step can judge. Empty for most keys.
        self.late: dict[tuple, tuple] = {}
        self._openers: dict[int, tuple] = {}
        self._brace_ids: Optional[list[int]] = None
        self._shapes: dict[tuple, int] = {}
        fb = tables.first_byte
        special = tables.special_ids
        quotes = np.array([token_bytes[i].count(b'"') for i in special], dtype=np.int64)
        # Tokens with two or more quotes can close one string and open another: checked one by
        # one at every step (there are few), never cached.
        self.multi_quote, self._multi_word, self._multi_mask = _selection(special[quotes >= 2])
        self.single = special[quotes < 2]
        self.single_quote = special[quotes == 1]
        self.hex_first = np.flatnonzero(np.isin(fb, np.array(sorted(_HEX))))
        self.u_first = np.flatnonzero(fb == 0x75)
        self.u_first_mask = pack(self.u_first, tables.size)
        self.not_backslash_first = pack(np.flatnonzero((fb >= 0) & (fb != _BACKSLASH)), tables.size)
        self.not_u_first = pack(np.flatnonzero((fb >= 0) & (fb != 0x75)), tables.size)
        # For duplicate keys: single-quote tokens by the bytes before their quote.
        self.close_prefix: dict[bytes, list[int]] = {}
        for i in self.single_quote:
            data = token_bytes[i]
            self.close_prefix.setdefault(data[: data.index(b'"')], []).append(int(i))

    def get(self, key: tuple, cursor: Cursor) -> np.ndarray:
        """The tokens to keep (not the bad ones: a row is ANDed with it, no inversion per step)."""
        keep = self._masks.get(key)
        if keep is None:
            bad, late = self._compute(cursor)
            if late:
                self.late[key] = _selection(late)
            keep = self._masks[key] = ~bad
        return keep

    def step(self, key: tuple, cursor: Cursor, room: Optional[int]) -> tuple:
        """Everything one step's row needs at ``cursor`` (whose state ``key`` names, see
        :meth:`ArgumentsGuard.restrict`): ``(keep, late)``, the one mask to AND (:meth:`get`'s,
        with a bounded string's room (:meth:`keep_short`) or the whitespace room
        (:meth:`ws_keep`) folded in) and the tokens to try at the step (:attr:`late`, with
        :meth:`ws_late` outside strings; None if there are none)."""
        entry = self._steps.get(key)
        if entry is None:
            base = key if cursor.in_string else key[:-1]  # a string's mask, or the whitespace run's aside
            keep = self.get(base, cursor)
            late = self.late.get(base)
            if cursor.in_string:
                if room is not None and cursor.esc != 2:
                    keep = keep & self.keep_short(max(room, 0), cursor.esc != 0)
            elif cursor.max_ws is not None:
                keep = keep & self.ws_keep(cursor.max_ws - cursor.ws, cursor.max_ws)
                ws_late = self.ws_late(cursor.max_ws)
                if len(ws_late[0]):
                    late = ws_late if late is None else _selection(np.union1d(late[0], ws_late[0]))
            entry = self._steps[key] = (keep, late)
        return entry

    def keep_short(self, room: int, escaped: bool) -> np.ndarray:
        """The tokens to keep with ``room`` characters left in a bounded string (after a
        backslash: the first byte ends the escape, which was counted at the backslash)."""
        key = ("room", room, escaped)
        keep = self._masks.get(key)
        if keep is None:
            over = self.tables.over
            if escaped:
                keep = ~(over[min(room + 1, len(over) - 1)] & ~self.u_first_mask)
            else:
                keep = ~over[room]
            self._masks[key] = keep
        return keep

    def prepare_whitespace(self, bound: Optional[int]) -> None:
        """Build the whitespace masks of ``bound`` now (a few ms each, once per tokenizer), at
        compile time rather than at a request's step."""
        if bound is not None and ("ws", bound, bound) not in self._masks:
            for room in range(bound + 1):
                self.ws_keep(room, bound)
            self.ws_late(bound)
            self.openers(bound)

    def ws_keep(self, room: int, bound: int) -> np.ndarray:
        """Outside strings, with ``room`` whitespace characters left of a run of at most
        ``bound``: the tokens to keep, all but those whose leading whitespace overruns the
        room or that hold a longer run after it before their first quote (but a token that
        may close the JSON before that run: :meth:`ws_late`). One mask per room, whatever the
        place in the JSON."""
        key = ("ws", room, bound)
        keep = self._masks.get(key)
        if keep is None:
            t = self.tables
            keep = self._masks[key] = ~pack(np.flatnonzero((t.ws_lead > room) | ((t.ws_inner > bound) & ~t.closes)), t.size)
        return keep

    def ws_late(self, bound: int) -> tuple:
        """The tokens :meth:`ws_keep` leaves for the step to judge: a "}" or "]" and then a run
        longer than ``bound`` before their first quote (the run is the JSON's only if the JSON
        is still open after the bracket). ``(ids, words, bits)``; none in the vocabularies
        measured at the default bound of 8."""
        key = ("ws late", bound)
        entry = self.late.get(key)
        if entry is None:
            t = self.tables
            entry = self.late[key] = _selection(np.flatnonzero(t.closes & (t.ws_inner > bound)))
        return entry

    def shape_id(self, shape: tuple) -> int:
        """A number for a container shape (see ``_shape``), so that a mask's key is flat and
        hashes at once (a shape holds a tuple per open container)."""
        n = self._shapes.get(shape)
        if n is None:
            n = self._shapes[shape] = len(self._shapes)
        return n

    def openers(self, bound: int) -> tuple:
        """The tokens that may open JSON (a ``{``) and hold a run of more than ``bound``
        whitespace characters after it (for :meth:`ArgumentsGuard.restrict` to try where JSON
        has not begun): none in the vocabularies measured at the default bound of 8.
        ``(ids, their words, their bits)``."""
        entry = self._openers.get(bound)
        if entry is None:
            tb = self.token_bytes
            entry = self._openers[bound] = _selection([i for i in self._braces() if _run_after(tb[i], tb[i].find(b"{"), bound)])
        return entry

    def _braces(self) -> list[int]:
        """The tokens that hold a ``{``, found in the vocabulary's bytes laid end to end (a
        loop over 129k tokens took most of a first compile's 40 ms of whitespace masks)."""
        if self._brace_ids is None:
            tb = self.token_bytes
            ends = np.cumsum([len(b) for b in tb])
            at = [m.start() for m in re.finditer(rb"\{", b"".join(tb))]
            self._brace_ids = np.unique(np.searchsorted(ends, at, side="right")).tolist()
        return self._brace_ids

    def verdicts(self, state: tuple) -> dict[int, bool]:
        """Whether each token of several quotes breaks a rule at a cursor whose state is
        ``state`` (see :meth:`ArgumentsGuard.restrict_multi`), by token, filled in by
        :meth:`breaks` as tokens come: remembered by state, since a batch's rows and a schema's
        calls pass the same states again and again (the state, a tuple holding the stack, is
        hashed once a row rather than once a token)."""
        found = self._verdicts.get(state)
        if found is None:
            if len(self._verdicts) >= _MAX_VERDICT_STATES:
                self._verdicts.clear()
            found = self._verdicts[state] = {}
        return found

    def breaks(self, cursor: Cursor, token: int) -> bool:
        """Whether ``token`` breaks a rule read from ``cursor`` (a token of several quotes)."""
        return cursor.copy().read(self.token_bytes[token], check=True) < 0

    def multi_allowed_rows(self, words: np.ndarray, rows: list[int]) -> list[tuple[int, np.ndarray]]:
        """:meth:`multi_allowed` for several rows of a bitmask at once: ``(row, its tokens)``
        for the rows that allow any."""
        first, last = rows[0], rows[-1]
        if last - first + 1 == len(rows):  # a block of rows: a take along its words, half the cost
            hits = (words[first : last + 1].take(self._multi_word, axis=1) & self._multi_mask) != 0
        else:
            hits = (words[np.asarray(rows)[:, None], self._multi_word] & self._multi_mask) != 0
        return [(rows[r], self.multi_quote[hits[r]]) for r in np.flatnonzero(hits.any(axis=1)).tolist()]

    def multi_allowed(self, row: np.ndarray) -> np.ndarray:
        """The tokens of two or more quotes that ``row`` allows."""
        hits = row[self._multi_word] & self._multi_mask
        return self.multi_quote[hits != 0] if hits.any() else self.multi_quote[:0]

    def _compute(self, cursor: Cursor) -> tuple[np.ndarray, list[int]]:
        """The tokens ``cursor`` rules out, and the late ones (see :attr:`late`)."""
        t = self.tables
        if not cursor.in_string:
            candidates = self.single_quote
        elif cursor.esc == 2:
            candidates = np.union1d(self.hex_first, self.single)
        elif cursor.esc == 1:
            candidates = np.union1d(self.u_first, self.single)
        else:
            candidates = self.single
        tb = self.token_bytes
        probe = cursor.copy()
        probe.check_keys = False  # duplicate keys depend on the object, so are checked per step
        bound = cursor.max_ws
        if not cursor.in_string:
            # the whitespace before a string opens is ws_keep's (the same at every place)
            probe.ws, probe.max_ws = 0, None
        bad: list[int] = []
        late: list[int] = []
        for i in candidates:
            data = tb[i]
            if cursor.in_string and bound is not None and _run_after_bracket(data, bound):
                # whether that run is the JSON's depends on how deep the string is, which a
                # string's masks leave out: judged at the step
                late.append(int(i))
                continue
            read = probe.copy().read(data, check=True)
            if read < 0:
                bad.append(int(i))
            elif read < len(data) and bound is not None and _run_after(data, data.find(b"{", read), bound):
                late.append(int(i))
        mask = pack(bad, t.size)
        if cursor.in_string:
            mask |= t.surrogate_mask
            if cursor.pending_high and cursor.esc == 0:
                mask |= self.not_backslash_first  # a high surrogate's low half must follow
            elif cursor.pending_high and cursor.esc == 1:
                mask |= self.not_u_first
            if cursor.last_byte == 0xED:
                mask |= t.after_ed_mask
        return mask, late


class ArgumentsGuard:
    """Follows one request's constrained output token by token, and clears from a bitmask row
    the tokens that would break a string's bounds or its Unicode."""

    def __init__(
        self,
        cache: MaskCache,
        call_begin: Optional[int | bytes],
        call_end: Optional[int | bytes],
        headers: Mapping[str, Optional[Node]],
        raw: bool = False,
        between: Optional[bytes] = None,
        answer: Optional[Node] = None,
        raw_headers: Sequence[str] = (),
        max_whitespace: Optional[int] = None,
    ) -> None:
        """``answer``: the schema node of a JSON answer found by its ``{`` at the start (one
        with a header is one of ``headers``). ``raw_headers``: where the arguments are
        parameters, each tool's header (a pattern), matched to say which tool a call names (a
        routed grammar's need). ``max_whitespace``: the longest run of whitespace JSON may have
        between its tokens (None: the grammar bounds it, or nothing does)."""
        self._cache = cache
        self._tables = cache.tables
        self._token_bytes = cache.token_bytes
        self._call_begin = call_begin
        self._call_end = call_end
        # One pattern for every header, a group per tool: the header ends where a group matches.
        self._header_nodes = list(headers.values())
        alternatives = b"|".join(b"(" + p.encode() + b")" for p in headers)
        self._header_re = re.compile(alternatives, re.DOTALL) if headers else None
        # No header is longer than its pattern (escapes only lengthen it) plus a call number's
        # digits: past that, what follows the trigger is no call (harmony: the final channel).
        self._max_header = max((len(p.encode()) for p in headers), default=0) + 8
        # A token's entry (for rollback) holds only atoms: numbers, bytes, None. Its cursor's
        # stack and node, which hold schema nodes and sets, are named by an index into _stacks
        # and _nodes, where they are added only when they change. The garbage collector stops
        # following a tuple of atoms at its first collection; an entry holding the stack would
        # be walked by every full collection for as long as the request lives, and would bring
        # those collections sooner (one comes each time a quarter more objects have been kept;
        # it took 0.46 s in a process of 1.4M objects, see benchmarks/step_overhead.py).
        self._history: list[tuple] = []
        self._stacks: list[tuple] = [()]
        self._nodes: list[Optional[Node]] = [None]
        # between: calls are found by their "{" (from the start, or after call_begin: json_array)
        self._bare = between is not None
        self._between_bytes = frozenset(between or b"")
        self._raw = raw  # RAW keeps the last byte written in _hbuf (a surrogate split across tokens)
        self._answer = answer
        self.mode = ANSWER if answer is not None else BETWEEN if self._bare and call_begin is None else OUTSIDE
        self._hbuf = b""
        self._max_ws = max_whitespace
        self.cursor = Cursor(None, max_whitespace)
        self._shape_memo: tuple = (None, None)
        self.multi_due = False  # see restrict
        self._overran = False  # a JSON closed by a token being tried overran the bound
        # The call being written: how many tokens the guard had read when its begin marker came
        # (that token included), and the index of the header it matched (None: not yet). A
        # routed grammar (see ``routed``) starts the named tool's own matcher from these.
        self.call_at = 0
        self.tool: Optional[int] = None
        # A call found by its "{" inside a token (no marker begins it): how many of the last
        # bytes of the token before ``call_at`` are the call's.
        self.call_tail = 0
        # RAW: the call's bytes so far, until one of raw_headers matches them (tool then set)
        self._max_raw = max((len(p.encode()) for p in raw_headers), default=0)
        self._raw_re = re.compile(b"|".join(b"(" + p.encode() + b")" for p in raw_headers), re.DOTALL) if raw_headers else None
        self._rbuf = b""
        # Text markers: the last bytes written, where a marker's start may wait for its end.
        texts = [m for m in (call_begin, call_end) if isinstance(m, bytes)]
        self._by_text = bool(texts)
        self._keep = max((len(m) for m in texts), default=1) - 1
        self._tail = b""

    @property
    def named(self) -> Optional[str]:
        """In a call object's arguments (``ARGS``): the name it gave its tool, once that name's
        string has closed (None before)."""
        stack = self.cursor.stack
        return stack[0][5] if self.mode == ARGS and stack else None

    def rollback(self, k: int) -> None:
        if k <= 0:
            return
        entry = self._history[-k]  # the guard's eight, then the cursor's atoms (see accept)
        mode, hbuf, tail, place, self.call_at, self.tool, self.call_tail, self._rbuf = entry[:8]
        atoms = entry[8:]
        del self._history[-k:]
        del self._stacks[place + 1 :], self._nodes[place + 1 :]
        self.mode, self._hbuf, self._tail = mode, hbuf, tail
        self.cursor.restore((self._stacks[place], self._nodes[place]) + atoms)

    def accept(self, token_id: int, skip: int = 0) -> None:
        """Follow one token; ``skip``: its first bytes are not the guard's to read (the end of
        reasoning written as text, in the token that closes it)."""
        c, stacks, nodes = self.cursor, self._stacks, self._nodes
        if c.stack is not stacks[-1] or c.node is not nodes[-1]:
            stacks.append(c.stack)
            nodes.append(c.node)
        # (one flat tuple: a tuple in a tuple may be left for a later collection to untrack)
        self._history.append((self.mode, self._hbuf, self._tail, len(stacks) - 1, self.call_at, self.tool, self.call_tail, self._rbuf) + _ATOMS(c))
        if self._by_text:
            self._accept_text(token_id, self._token_bytes[token_id][skip:])
            return
        mode = self.mode
        if mode == ANSWER:
            if token_id != self._call_begin:
                self._answer_start(self._token_bytes[token_id][skip:])
                return
            mode = self.mode = OUTSIDE  # the calls instead of the answer
        if mode == BETWEEN:
            self._between(self._token_bytes[token_id][skip:])
        elif mode == OUTSIDE:
            if token_id == self._call_begin:
                self.mode, self._hbuf = (RAW, b"") if self._raw else (BETWEEN, b"") if self._bare else (HEADER, b"")
                self.call_at, self.tool, self.call_tail, self._rbuf = len(self._history), None, 0, b""
        elif mode == RAW:
            data = self._token_bytes[token_id]
            if token_id == self._call_end:
                self.mode = OUTSIDE
            elif data:
                self._hbuf = data[-1:]
                if self.tool is None and self._raw_re is not None and len(self._rbuf) <= self._max_raw:
                    self._rbuf += data
                    m = self._raw_re.match(self._rbuf)
                    if m is not None:
                        self.tool = m.lastindex - 1
        elif mode == AFTER:
            if token_id == self._call_end:
                self.mode = OUTSIDE
            elif token_id == self._call_begin:  # a layout whose calls have no end marker
                self.mode, self._hbuf = HEADER, b""
                self.call_at, self.tool, self.call_tail = len(self._history), None, 0
        elif mode == HEADER:
            self._hbuf += self._token_bytes[token_id]
            m = self._header_re.match(self._hbuf) if self._header_re is not None else None
            if m is not None:
                self.tool = m.lastindex - 1
                self.cursor = Cursor(self._header_nodes[self.tool], self._max_ws)
                self.mode = ARGS
                self._read(self._hbuf[m.end() :])
            elif len(self._hbuf) > self._max_header:
                self.mode, self._hbuf = OUTSIDE, b""
        else:
            self._read(self._token_bytes[token_id])

    def _past(self, marker: Optional[int | bytes], token_id: int, data: bytes) -> Optional[int]:
        """Where in ``data`` the bytes after ``marker`` start, if this token ends it."""
        if marker is None:
            return None
        if not isinstance(marker, bytes):
            return len(data) if token_id == marker else None
        window = self._tail + data
        i = window.find(marker, max(0, len(self._tail) - len(marker) + 1))
        return None if i < 0 else i + len(marker) - len(self._tail)

    def _accept_text(self, token_id: int, data: bytes) -> None:
        """``accept`` where markers are text: the token's bytes carry the structure."""
        while True:
            mode = self.mode
            if mode == ANSWER:
                j = next((i for i, b in enumerate(data) if b not in _SPACE), len(data))
                if j == len(data):
                    return
                if data[j] == 0x7B:  # {
                    self.cursor, self.mode, data = Cursor(self._answer, self._max_ws), ARGS, data[j:]
                else:
                    self.mode = OUTSIDE
            elif mode in (OUTSIDE, AFTER):
                k = self._past(self._call_begin, token_id, data)
                j = self._past(self._call_end, token_id, data) if mode == AFTER else None
                if j is not None and (k is None or j <= k):
                    self.mode, self._tail, data = OUTSIDE, b"", data[j:]
                    continue
                if k is None:
                    self._tail = (self._tail + data)[-self._keep :] if self._keep else b""
                    return
                self.mode, self._hbuf, self._tail, data = (RAW if self._raw else BETWEEN if self._bare else HEADER), b"", b"", data[k:]
            elif mode == BETWEEN:  # a JSON array after a text marker: its calls found by their "{"
                i = next((i for i, b in enumerate(data) if b not in self._between_bytes), len(data))
                if i == len(data):
                    return
                if data[i] != 0x7B:  # text: no call follows (the grammar allows none)
                    self.mode, data = OUTSIDE, data[i:]
                    continue
                self.cursor = Cursor(self._header_nodes[0] if self._header_nodes else None, self._max_ws)
                self.mode, data = ARGS, data[i:]
                self.call_at, self.tool, self.call_tail = len(self._history), 0, len(data)
            elif mode == RAW:
                j = self._past(self._call_end, token_id, data)
                if j is None:
                    self._tail = (self._tail + data)[-self._keep :] if self._keep else b""
                    self._hbuf = data[-1:] or self._hbuf
                    return
                self.mode, self._tail, data = OUTSIDE, b"", data[j:]
            elif mode == HEADER:
                self._hbuf += data
                m = self._header_re.match(self._hbuf) if self._header_re is not None else None
                if m is None:
                    if len(self._hbuf) > self._max_header:
                        self.mode, self._hbuf = OUTSIDE, b""
                    return
                self.cursor = Cursor(self._header_nodes[m.lastindex - 1], self._max_ws)
                self.mode, data = ARGS, self._hbuf[m.end() :]
            elif mode == ARGS:
                if not data:
                    return
                k = self.cursor.read(data)
                if not self.cursor.done:
                    return
                self._overran |= self.cursor.overrun  # (the next call's JSON gets a cursor of its own)
                self.mode, data = (BETWEEN if self._bare else AFTER), data[k:]
            else:
                return

    def _read(self, data: bytes) -> None:
        if data:
            k = self.cursor.read(data)
            if self.cursor.done:
                self._overran |= self.cursor.overrun  # (the next call's JSON gets a cursor of its own)
                self.mode = AFTER
                if self._bare:
                    self.mode = BETWEEN
                    self._between(data[k:])

    def _answer_start(self, data: bytes) -> None:
        for i, b in enumerate(data):
            if b in _SPACE:
                continue
            if b == 0x7B:  # {
                self.cursor = Cursor(self._answer, self._max_ws)
                self.mode = ARGS
                self._read(data[i:])
            else:  # no answer here: what the grammar allows instead (calls) follows
                self.mode = OUTSIDE
            return

    def _between(self, data: bytes) -> None:
        for i, b in enumerate(data):
            if b in self._between_bytes:
                continue
            if b == 0x7B:  # {
                self.cursor = Cursor(self._header_nodes[0] if self._header_nodes else None, self._max_ws)
                self.mode = ARGS
                self.call_at, self.tool, self.call_tail = len(self._history), 0, len(data) - i
                self._read(data[i:])
            else:  # text: no call follows (the grammar allows none)
                self.mode = OUTSIDE
            return

    def restrict(self, row: np.ndarray, multi: bool = True) -> bool:
        """Clear, in one bitmask row (int32 words), the tokens that would break the arguments'
        strings. Returns whether the row was touched. ``multi`` False leaves the tokens of
        several quotes to :meth:`restrict_multi` (a batch finds the rows that allow any at
        once), setting :attr:`multi_due` where it is due."""
        self.multi_due = False
        if self.mode == RAW:
            row &= self._tables.keep_surrogate
            if self._hbuf == b"\xed":
                row &= self._tables.keep_after_ed
            return True
        if self.mode != ARGS:
            # where JSON may begin inside the next token: such a token's whitespace (none of
            # the measured vocabularies has one at the default bound)
            if self._max_ws is not None and (self.mode in (HEADER, BETWEEN, ANSWER) or self._by_text and self.mode != RAW):
                ids, words, bits = self._cache.openers(self._max_ws)
                if len(ids):
                    return self._clear_overruns(row, ids[(row[words] & bits) != 0])
            return False
        c = self.cursor
        cache = self._cache
        if c.in_string:
            room, need = self._room_need(c)
            key = (c.in_string, c.esc, c.hexbuf, c.pending_high, room, need, c.last_byte == 0xED, c.max_ws)
        else:
            if self._shape_memo[0] is not c.stack:  # the stack is a new tuple whenever it changes
                self._shape_memo = (c.stack, cache.shape_id(_shape(c.stack)))
            room, key = None, (0, self._shape_memo[1], c.max_ws, c.ws if c.max_ws is not None else 0)
        keep, late = cache.step(key, c, room)
        row &= keep
        if c.in_string == 1 and c.esc == 0 and c.stack and c.stack[-1][4]:
            self._clear_duplicate_keys(row, c)
        if late is not None:
            ids, words, bits = late
            self._clear_overruns(row, ids[(row[words] & bits) != 0])
        if multi:
            self.restrict_multi(row, cache.multi_allowed(row))
        else:
            self.multi_due = True
        return True

    def restrict_multi(self, row: np.ndarray, allowed: np.ndarray) -> None:
        """The last part of :meth:`restrict` in ``ARGS``: clear those of ``allowed`` (tokens
        of several quotes the row allows) that break a rule, by verdicts remembered by state."""
        if not len(allowed):
            return
        c = self.cursor
        room, need = self._room_need(c)
        # what a verdict depends on: a string's length only as the room and the need of its
        # bounds (capped as the masks are: no token is longer), the last byte only as whether
        # it may begin a surrogate
        state = (c.stack, c.node, c.in_string, c.esc, c.hexbuf, c.pending_high, room, need, c.keybuf, c.last_byte == 0xED, c.done, c.check_keys, c.capture, c.ws, c.max_ws)
        cache = self._cache
        verdicts = cache.verdicts(state)
        for i in allowed.tolist():
            bad = verdicts.get(i)
            if bad is None:
                bad = verdicts[i] = cache.breaks(c, i)
            if bad:
                row[i >> 5] &= ~np.int32(np.uint32(1 << (i & 31)).view(np.int32))

    def _room_need(self, c: Cursor) -> tuple[Optional[int], Optional[int]]:
        """In a bounded string value: the characters left before its maximum and still needed
        for its minimum (None, None elsewhere). Past the longest token's length every room masks
        alike (``over`` ends there): capped, a bound of any size shares one cached mask."""
        if c.in_string == 2 and c.node is not None and c.node.bounded:
            cap = self._tables.max_chars
            room = None if c.node.max_len is None else min(c.node.max_len - c.count, cap)
            return room, min(max(c.node.min_len - c.count, 0), cap + 1)
        return None, None

    def _clear_overruns(self, row: np.ndarray, tokens: np.ndarray) -> bool:
        """Clear those of ``tokens`` (ones the row allows) that would write a longer whitespace
        run into JSON than the bound, each tried on the guard itself and undone. Returns
        whether any was."""
        cleared = False
        for i in tokens.tolist():
            self._overran = False
            self.accept(i)
            over = self._overran or self.cursor.overrun
            self.rollback(1)
            if over:
                row[i >> 5] &= ~np.int32(np.uint32(1 << (i & 31)).view(np.int32))
                cleared = True
        return cleared

    def _clear_duplicate_keys(self, row: np.ndarray, c: Cursor) -> None:
        """Clear the tokens that would close this key as one the object already has."""
        buf = c.keybuf
        for seen in c.stack[-1][4]:
            if seen.startswith(buf):
                for i in self._cache.close_prefix.get(seen[len(buf) :], ()):
                    row[i >> 5] &= ~np.int32(np.uint32(1 << (i & 31)).view(np.int32))


def _child(frame: tuple) -> Optional[Node]:
    """The node of the value at this place of an open container."""
    _, node, key, index, _, tag = frame
    if node is None:
        return None
    if node.variants is not None and key == node.variant_of:
        return node.variants.get(tag) if tag is not None else None
    return node.child(key, index)


def _run_after(data: bytes, at: int, bound: int) -> bool:
    """Whether ``data`` holds a run of more than ``bound`` whitespace characters from ``at``
    on (-1: nowhere)."""
    return at >= 0 and _long_run(bound).search(data, at) is not None


def _run_after_bracket(data: bytes, bound: int) -> bool:
    """Whether ``data``, after its first quote, closes a container and then writes a run of
    more than ``bound`` whitespace characters."""
    q = data.find(b'"')
    if q < 0:
        return False
    return _run_after(data, min((k for k in (data.find(b"}", q), data.find(b"]", q)) if k >= 0), default=-1), bound)


@lru_cache(maxsize=None)
def _long_run(bound: int) -> re.Pattern:
    return re.compile(rb"[ \t\r\n]{%d}" % (bound + 1))


def _selection(ids: Sequence[int]) -> tuple:
    """Token ids with their bitmask words and bits, to find at once those a row allows:
    ``ids[(row[words] & bits) != 0]``."""
    ids = np.asarray(ids, dtype=np.int64)
    return ids, ids >> 5, (np.uint32(1) << (ids & 31).astype(np.uint32)).view(np.int32)


def _shape(stack: tuple) -> tuple:
    """What a token opening a string here depends on: per open container, whether a key or a
    value comes next and the schema node it would have (not the key text itself, so that free
    keys do not grow the cache)."""
    out = []
    for frame in stack:
        is_obj, node, key = frame[0], frame[1], frame[2]
        child = None if is_obj and key is None else _child(frame)
        out.append((is_obj, key is None, node, child))  # the nodes themselves: ids could be reused
    return tuple(out)
