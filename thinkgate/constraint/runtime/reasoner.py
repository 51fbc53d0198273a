"""ReasonerGrammar: one request's constraint: free while thinking, the tool grammar after it.

Phases: OPENING (thinking "auto": the first token may open ``<think>``) → THINKING → CONSTRAINED
→ DONE, or ERROR when a token the grammar forbids was sampled. A format of channel messages
(harmony) opens reasoning with several tokens (``<|channel|>analysis<|message|>``), closes it with
``<|end|>`` after which CLOSING forces ``<|start|>assistant``, and then OPENING again: the next
message may be analysis too. While THINKING a step costs a
comparison: no bitmask is filled and no logits are touched, with two exceptions that each cost
one row: the step a ``thinking_budget`` forces ``</think>``, and (for tool_choice ``required`` or
a named tool, where an answer without a call is invalid, and for an answer held to JSON by
``response_format``) the end-of-sequence logit, which is set to -inf so that the output cannot
end inside its thinking.

Two tokens end the thinking besides ``</think>``. The tool markup's opening token (the format's
``reasoning_trigger``) is the calls' first token: the matcher reads it, and the calls are held to
the grammar like any others; the thinking budget is then behind them. And where a call is
required and ``max_tokens`` is given, the thinking ends while the tokens left can still hold the
shortest complete answer (``call_room``): ``</think>`` is forced, then that answer.
"""

from __future__ import annotations

import enum
import logging
import os
from dataclasses import replace
from collections.abc import Iterable, Sequence
from typing import Optional

import numpy as np
import torch
import xgrammar as xgr

from ...formats import Thinking
from ...formats.tokens import thinking_from_prompt
from ..grammar.compiled import ToolGrammar
from .call_room import _walks, shortest_answer, simplest_calls
from .guard import ARGS, HEADER, OUTSIDE, RAW, ArgumentsGuard
from .tool_room import LITERAL, FinishPlan, allowed, pick, resume, witness_prefixes
from .routed import RoutedMatcher
from .text_reasoning import ANSWER, OPENING, THINKING, TextMarkers, TextReasoning

log = logging.getLogger("thinkgate.constraint")


class Phase(enum.IntEnum):
    OPENING = 0
    THINKING = 1
    CONSTRAINED = 2
    DONE = 3
    ERROR = 4
    CLOSING = 5  # harmony: <|start|>assistant forced after the analysis message's <|end|>


# An entry names its phase by number: a tuple of numbers is one the garbage collector stops
# following (an enum member is an object it follows), see ArgumentsGuard's history.
_CONSTRAINED = int(Phase.CONSTRAINED)


class ReasonerGrammar:
    """The constraint of one request. Feed it every sampled token with :meth:`accept_token`; ask
    :meth:`fill_bitmask` for the next token's mask when :attr:`needs_bitmask` says one is due.

    ``thinking``: ``True`` (the output starts inside ``<think>``), ``False``, or ``"auto"``;
    by default read from ``prompt_token_ids`` (see :func:`thinkgate.thinking_from_prompt`), else
    the format's default. ``thinking_budget``: after that many thinking tokens, ``</think>`` is
    forced. ``max_tokens``: the output's token limit; under tool_choice ``required`` or a named
    tool the thinking is ended in time for the shortest call to fit (see ``call_room``). A
    rejected token never raises: the request goes to ERROR, ``error`` says why, and from then on
    only end-of-sequence is allowed.
    """

    def __init__(
        self,
        grammar: ToolGrammar,
        *,
        prompt_token_ids: Optional[Sequence[int]] = None,
        thinking: Optional[Thinking] = None,
        thinking_budget: Optional[int] = None,
        max_tokens: Optional[int] = None,
    ) -> None:
        self.grammar = grammar
        fmt = grammar.format
        if thinking is None:
            if prompt_token_ids is not None:
                thinking = thinking_from_prompt(prompt_token_ids, grammar.vocab.tokenizer, fmt)
            else:
                thinking = fmt.reasoning.default_thinking
        thinking = fmt.start_thinking(thinking)
        if thinking_budget is not None and (not isinstance(thinking_budget, int) or thinking_budget < 0):
            raise ValueError(f"thinking_budget must be a non-negative integer, not {thinking_budget!r}")
        if max_tokens is not None and (isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1):
            raise ValueError(f"max_tokens must be a positive integer, not {max_tokens!r}")
        self.thinking = thinking
        self.thinking_budget = thinking_budget
        # The open marker may be several tokens (harmony's <|channel|>analysis<|message|>, whose
        # first token also begins the grammar's messages): while the model writes its prefix the
        # tokens are held back from the matcher, and fed to it if the model turns elsewhere.
        self._open_ids = grammar.open_ids
        self._close = grammar.think_close
        self._pending = 0  # tokens of the open marker written so far, not fed to the matcher
        self._tail = 0  # tokens of close_tail forced so far
        self._thought = 0  # thinking tokens of earlier reasoning messages (for the budget)
        self._stops = frozenset(grammar.stop_ids)
        # Where the output must hold a call or a JSON answer, it may not end inside its thinking
        # (the answer would be missing: the "content: null" of engines that constrain no thinking).
        self.block_eos_while_thinking = grammar.choice in ("required", "named") or grammar.spec.answer is not None
        self._trigger = grammar.reasoning_trigger
        self._watch = frozenset({self._close, *(self._stops if self.block_eos_while_thinking else ()), *((self._trigger,) if self._trigger is not None else ())})
        # The shortest answer, kept room for where a call is required within max_tokens; from
        # the position after a </think> written with no more room than that, it is forced.
        self._room: tuple[int, ...] = ()
        if max_tokens is not None and self.block_eos_while_thinking and thinking is not False and not grammar.close_tail and grammar.reasoning_grammars is None:
            self._room = shortest_answer(grammar) or ()
            if 1 + len(self._room) > max_tokens:  # no call fits at all: nothing to keep room for
                self._room = ()
        self._room_at = max_tokens - 1 - len(self._room) if self._room else None
        # Room at every step of the tool phase (see tool_room): the witness of how to finish,
        # the position it was found for, and the bound on what finishing costs (None: walk).
        self.max_tokens = max_tokens
        self._plan: Optional[FinishPlan] = None
        if max_tokens is not None and tool_room_on() and not grammar.free_answer and (grammar.choice != "none" or grammar.spec.answer is not None):
            self._plan = finish_plan(grammar)
        self._w: Optional[tuple[int, ...]] = None
        self._w_pos = -1
        self._w_free = 0  # the witness begins by closing a free string here (1), or is the end (2)
        self._w_seen: dict[int, tuple] = {}  # position → its witness (for rollback)
        self._recent: dict[int, int] = {}  # position → the tool phase's token there (see _finish_walk)
        self._resumes: dict[int, tuple[int, ...]] = {}  # position → the witness before it, resumed (a hint)
        self._snaps: dict[int, tuple] = {}  # position → the room there (witness, its position, bound, free)
        self._b: Optional[int] = None
        self._room_due = False
        self._walk_bits: Optional[torch.Tensor] = None
        self._answer_forced_from: Optional[int] = None
        self.error: Optional[str] = None
        self._pos = 0
        self._think_start = 0
        self._matcher: Optional[xgr.GrammarMatcher] = None
        self._routed = grammar.calls is not None
        self._guard: Optional[ArgumentsGuard] = None
        # (position, then phase, error, tokens it fed the matcher, and the opening / closing /
        # budget counters before it) for every token but the ordinary thinking ones, which cost
        # nothing to keep.
        self._entries: list[tuple] = []
        # Reasoning markers written as text: the grammar holds the reasoning (see text_reasoning).
        self._text: Optional[TextReasoning] = None
        if grammar.reasoning_grammars is not None and thinking is not False:
            self._text = TextReasoning(THINKING if thinking is True else OPENING)
            self._marks = TextMarkers(fmt.reasoning.open.encode(), fmt.reasoning.close.encode())
            self.phase = Phase.CONSTRAINED
            self._start_matcher(grammar.reasoning_grammars[thinking])
        elif thinking is True:
            self.phase = Phase.THINKING
        elif thinking is False:
            self.phase = Phase.CONSTRAINED
            self._start_matcher()
        else:
            self.phase = Phase.OPENING
            self._start_matcher()
        self._refresh()

    # ------------------------------------------------------------------ state

    @property
    def _budget_at(self) -> Optional[int]:
        """The position at which ``</think>`` is forced: the thinking budget's, or where the
        tokens left only just hold the required call's room, whichever comes first."""
        at = None if self.thinking_budget is None else self._think_start + self.thinking_budget - self._thought
        if self._room_at is not None:
            at = self._room_at if at is None else min(at, self._room_at)
        return at

    @property
    def answered_in_room(self) -> bool:
        """Whether the thinking was ended for want of room, and the shortest call written."""
        return self._answer_forced_from is not None

    @property
    def _forced_answer(self) -> Optional[int]:
        """The one token the kept room forces at this position (None: the model chooses)."""
        start = self._answer_forced_from
        if start is None or not 0 <= self._pos - start < len(self._room):
            return None
        return self._room[self._pos - start]

    @property
    def thinking_tokens(self) -> int:
        if self._text is not None:
            return self._text.tokens if self._text.where == THINKING else 0
        return self._pos - self._think_start if self.phase == Phase.THINKING else 0

    @property
    def forcing_close(self) -> bool:
        """This step must be ``</think>`` (the thinking budget is spent)."""
        if self._text is not None:
            return self.phase == Phase.CONSTRAINED and self._text.forcing(self.thinking_budget, len(self.grammar.close_ids))
        return self.phase == Phase.THINKING and self._budget_at is not None and self._pos >= self._budget_at

    def _refresh(self) -> None:
        """Recompute the two flags the batch masker reads every step (plain attributes: the
        masker reads them for every request at every step)."""
        forcing = self.forcing_close
        self._budget_stop = -1 if self._budget_at is None else self._budget_at
        self.needs_bitmask = (self.phase != Phase.THINKING or forcing) and not self._answer_free()
        self.blocks_eos = self.phase == Phase.THINKING and self.block_eos_while_thinking and not forcing
        # Thinking tokens that need no look: all but </think> and (when blocked) the stop tokens.
        self._free = self.phase == Phase.THINKING and not forcing
        # The tool phase's common step: the matcher's mask, the guard's, nothing forced (the
        # batch masker fills these rows together, and accept_token takes a short path).
        # (a routed grammar's matcher is two, which xgrammar's batch calls do not know)
        self._room_due = self._plan is not None and self._keeps_room() and self._walk_due()
        self.plain = self.phase == Phase.CONSTRAINED and self._text is None and self._answer_forced_from is None and self.needs_bitmask and not self._routed and not self._room_due

    def _answer_free(self) -> bool:
        """Strict level 0 under "auto", outside thinking: the grammar admits every token, so no
        mask is filled and the logits are untouched (the matcher still reads the tokens, for the
        end and for rollback)."""
        if not self.grammar.free_answer or self.phase not in (Phase.OPENING, Phase.CONSTRAINED):
            return False
        return self._text is None or self._text.where != THINKING

    def is_terminated(self) -> bool:
        return self.phase == Phase.DONE

    def _start_matcher(self, compiled: Optional[xgr.CompiledGrammar] = None) -> None:
        if self._matcher is None:
            self._matcher = xgr.GrammarMatcher(compiled or self.grammar.compiled)
            g = self.grammar
            spec = g.spec
            calls = g.choice != "none" and not g.free_answer
            if calls or spec.answer is not None:
                headers = spec.header_nodes() if calls else {}
                at_start = None  # the JSON answer found by its "{" where it has no header
                if spec.answer is not None:
                    if spec.answer_header is None:
                        at_start = spec.answer.nodes
                    else:
                        headers[spec.answer_header] = spec.answer.nodes
                self._guard = ArgumentsGuard(
                    g.masks,
                    g.call_begin if calls or spec.answer_header is not None else None,
                    g.call_end if calls else None,
                    headers,
                    raw=calls and spec.format.tools.xml is not None,
                    between=spec.between_calls if calls else None,
                    answer=at_start,
                    raw_headers=spec.routed_headers() if calls else (),
                    max_whitespace=spec.whitespace_bound,
                )
                if g.calls is not None:  # a routed grammar: the router's matcher and the tool's
                    self._matcher = RoutedMatcher(self._matcher, g.calls, self._guard)

    def _log(self, matched: int, phase: Phase, error: Optional[str] = None, guarded: Optional[int] = None) -> None:
        """Record the token at the current position (all but ordinary thinking tokens), then
        move to ``phase``. ``matched`` tokens went to the matcher, ``guarded`` (as many, unless
        said) to the guard."""
        guarded = matched if guarded is None else guarded
        self._entries.append((self._pos, int(self.phase), self.error, matched, guarded, self._pending, self._tail, self._think_start, self._thought, self._text, self._answer_forced_from))
        self._pos += 1
        self.phase = phase
        if error is not None:
            self.error = error
        self._refresh()

    # ------------------------------------------------------------------ tokens

    def _fail(self, error: str) -> None:
        """Enter ERROR from wherever the request is: from now on only end-of-sequence."""
        self.phase = Phase.ERROR
        self.error = error
        self._refresh()

    def accept_token(self, token_id: int) -> bool:
        """Advance by one sampled token. Returns False (and enters ERROR) if it was not allowed.
        Never raises: whatever goes wrong ends this request alone."""
        if self._free and token_id not in self._watch:
            self._pos += 1  # the free-thinking fast path: no entry, no matcher
            if self._pos == self._budget_stop:
                self._refresh()
            return True
        try:
            if self.plain and self._matcher.accept_token(token_id):
                # _accept's CONSTRAINED branch with nothing forced, the flags unchanged unless done
                if self._guard is not None:
                    self._guard.accept(token_id)
                self._entries.append((self._pos, _CONSTRAINED, self.error, 1, 1, self._pending, self._tail, self._think_start, self._thought, None, None))
                self._pos += 1
                if self._plan is not None:
                    self._room_step(token_id)
                    if self._walk_due():
                        self._refresh()
                # (a matcher ends only on a stop token: no call into xgrammar for the others)
                if token_id in self._stops and self._matcher.is_terminated():
                    self.phase = Phase.DONE
                    self._refresh()
                return True
            return self._accept(token_id)
        except Exception as e:  # a fault of the matcher or the guard: this request's, not the batch's
            log.exception("thinkgate: accepting token %s failed; the request ends", token_id)
            self._log(0, Phase.ERROR, f"internal error while accepting token {token_id}: {type(e).__name__}: {e}")
            return False

    def advance_free(self, n: int) -> None:
        """Count ``n`` thinking tokens that the caller has checked hold none of :attr:`watch`
        and do not reach :attr:`budget_stop` (a batch looks at all its rows' tokens at once)."""
        self._pos += n

    @property
    def watch(self) -> frozenset:
        """The tokens that end the free-thinking fast path (:attr:`free`)."""
        return self._watch

    @property
    def free(self) -> bool:
        """Thinking, nothing forced: a token outside :attr:`watch` only counts."""
        return self._free

    @property
    def budget_stop(self) -> int:
        """The position at which ``</think>`` is forced (-1: none)."""
        return self._budget_stop

    @property
    def position(self) -> int:
        return self._pos

    def _accept(self, token_id: int) -> bool:
        phase = self.phase
        if phase == Phase.THINKING:
            if token_id == self._close:
                thought = self._pos - self._think_start
                if self.grammar.close_tail:
                    self._log(0, Phase.CLOSING)
                    self._tail = 0
                else:
                    self._start_matcher()
                    no_room = self._room_at is not None and self._pos >= self._room_at
                    self._log(0, Phase.CONSTRAINED)
                    if no_room:  # the tokens left hold the shortest answer and no more: it is written
                        self._answer_forced_from = self._pos
                self._thought += thought
                self._refresh()
                return True
            if token_id == self._trigger:
                return self._calls_while_thinking(token_id)
            if self.forcing_close:
                self._log(0, Phase.ERROR, f"token {token_id} sampled where the thinking budget forces the end of thinking")
                return False
            if token_id in self._stops and self.block_eos_while_thinking:
                self._log(0, Phase.ERROR, "the output ended inside its thinking, but " + ("the tool_choice requires a call" if self.grammar.spec.answer is None else "the response_format requires an answer"))
                return False
            self._pos += 1
            return True
        if phase == Phase.CLOSING:
            tail = self.grammar.close_tail
            if token_id != tail[self._tail]:
                self._log(0, Phase.ERROR, f"token {token_id} sampled where {tail[self._tail]} must follow the end of thinking")
                return False
            done = self._tail + 1 == len(tail)
            budget_left = self.thinking_budget is None or self._thought < self.thinking_budget
            self._log(0, Phase.CLOSING if not done else (Phase.OPENING if self.grammar.reopen and budget_left else Phase.CONSTRAINED))
            self._tail += 1
            if done:
                self._start_matcher()
            return True
        if phase == Phase.OPENING:
            k = self._pending
            if token_id == self._open_ids[k]:
                if k + 1 == len(self._open_ids):
                    self._log(0, Phase.THINKING)
                    self._pending = 0
                    self._think_start = self._pos
                    self._refresh()
                else:
                    self._log(0, Phase.OPENING)
                    self._pending = k + 1
                return True
            # The model turned away from the open marker: the held prefix and this token are
            # the start of a constrained message.
            fed = 0
            for t in (*self._open_ids[:k], token_id):
                if not self._matcher.accept_token(t):
                    if fed:
                        self._matcher.rollback(fed)
                        if self._guard is not None:
                            self._guard.rollback(fed)
                    self._log(0, Phase.ERROR, f"token {token_id} is not allowed by the tool grammar here")
                    return False
                if self._guard is not None:
                    self._guard.accept(t)
                fed += 1
            self._log(fed, Phase.DONE if self._matcher.is_terminated() else Phase.CONSTRAINED)
            self._pending = 0
            return True
        if phase == Phase.CONSTRAINED:
            matcher = self._matcher
            text = self._text
            if text is not None and (text.where != ANSWER or text.forcing(self.thinking_budget, len(self.grammar.close_ids))):
                return self._accept_text(token_id)
            if self._plan is not None and self._keeps_room():
                self._ensure_witness()  # (as a fill here would have: the room follows from here alike)
            forced = self._forced_answer
            # (an end of sequence the room forces is any of the format's ends: the mask allows each)
            if forced is not None and token_id != forced and not (forced in self._stops and token_id in self._stops):
                self._log(0, Phase.ERROR, f"token {token_id} sampled where {forced} must follow: the tokens left before max_tokens only hold the shortest call")
                return False
            if not matcher.accept_token(token_id):
                self._log(0, Phase.ERROR, f"token {token_id} is not allowed by the tool grammar here")
                return False
            if self._guard is not None:
                self._guard.accept(token_id)
            self._log(1, Phase.DONE if matcher.is_terminated() else Phase.CONSTRAINED)
            if self._plan is not None:
                self._room_step(token_id)
                self._refresh()
            return True
        if phase == Phase.DONE:
            self._log(0, Phase.ERROR, f"token {token_id} came after the output ended")
        else:
            self._log(0, Phase.ERROR)
        return False

    def _calls_while_thinking(self, token_id: int) -> bool:
        """The tool markup's opening token, written while thinking: the reasoning ends here and
        the token is the calls' first, read by the matcher like any other."""
        thought = self._pos - self._think_start
        self._start_matcher()
        if not self._matcher.accept_token(token_id):  # a grammar that opens no calls this way
            self._log(0, Phase.ERROR, f"token {token_id} is not allowed by the tool grammar here")
            return False
        if self._guard is not None:
            self._guard.accept(token_id)
        self._log(1, Phase.DONE if self._matcher.is_terminated() else Phase.CONSTRAINED)
        self._thought += thought
        self._refresh()
        return True

    def _accept_text(self, token_id: int) -> bool:
        """A token while reasoning written as text may still open, or has not closed: the
        grammar reads it; the guard reads it only once the reasoning is behind."""
        text = self._text
        if text.forcing(self.thinking_budget, len(self.grammar.close_ids)):
            forced = self.grammar.close_ids[text.forced]
            if token_id != forced:
                self._log(0, Phase.ERROR, f"token {token_id} sampled where the thinking budget forces {forced}, the end of thinking")
                return False
            text = replace(text, forced=text.forced + 1)
        matcher = self._matcher
        if not matcher.accept_token(token_id):
            self._log(0, Phase.ERROR, f"token {token_id} is not allowed by the tool grammar here")
            return False
        after, guarded, cut = text.step(token_id, self.grammar.vocab.token_bytes[token_id], self._marks)
        if self._guard is not None:
            for k, t in enumerate(guarded):
                self._guard.accept(t, cut if k == 0 else 0)
        self._log(1, Phase.DONE if matcher.is_terminated() else Phase.CONSTRAINED, guarded=len(guarded) if self._guard is not None else 0)
        self._text = after
        self._refresh()
        return True

    def accept_tokens(self, token_ids: Iterable[int]) -> bool:
        ok = True
        for t in token_ids:
            ok = self.accept_token(t) and ok
        return ok

    def rollback(self, k: int) -> None:
        """Undo the last ``k`` accepted tokens (speculative decoding): phase and matcher both."""
        if k < 0 or k > self._pos:
            raise ValueError(f"cannot roll back {k} tokens; {self._pos} were accepted")
        target = self._pos - k
        matched = guarded = 0
        entries = self._entries
        while entries and entries[-1][0] >= target:
            _, phase, self.error, fed, read, self._pending, self._tail, self._think_start, self._thought, self._text, self._answer_forced_from = entries.pop()
            self.phase = Phase(phase)
            matched += fed
            guarded += read
        if matched:
            self._matcher.rollback(matched)
        if guarded and self._guard is not None:
            self._guard.rollback(guarded)
        self._pos = target
        if self._plan is not None:
            # The room as one token at a time left it here: a draft's steps mask as they would.
            self._w, self._w_pos, self._b, self._w_free = self._snaps.get(target, _NO_ROOM)
            for kept in (self._snaps, self._w_seen, self._resumes):
                for p in [p for p in kept if p > target]:
                    del kept[p]
            for p in [p for p in self._recent if p >= target]:
                del self._recent[p]
        self._refresh()

    # ------------------------------------------------------------------ masks

    def fill_bitmask(self, bitmask: torch.Tensor, index: int) -> bool:
        """Write this request's row of the next token's bitmask. Returns False when the row
        allows every token (nothing to apply). Never raises: a fault ends this request alone."""
        try:
            return self._fill(bitmask, index)
        except Exception as e:
            self._fault_in_mask(e, bitmask.numpy()[index])
            return True

    def _fault_in_mask(self, e: Exception, words: np.ndarray) -> None:
        """A fault while masking: this request ends (the batch goes on), its row only the end."""
        log.exception("thinkgate: filling the bitmask failed; the request ends")
        self._fail(f"internal error while masking: {type(e).__name__}: {e}")
        _only(words, self.grammar.stop_ids)

    def _fill(self, bitmask: torch.Tensor, index: int) -> bool:
        phase = self.phase
        words = bitmask.numpy()[index]  # (numpy's view of the row: a tensor's costs more)
        if phase == Phase.THINKING:
            if not self.forcing_close:
                return False
            _only(words, (self._close,))
            return True
        if phase in (Phase.DONE, Phase.ERROR):
            _only(words, self.grammar.stop_ids)
            return True
        if phase == Phase.CLOSING:
            _only(words, (self.grammar.close_tail[self._tail],))
            return True
        if self._text is not None and self.forcing_close:
            _only(words, (self.grammar.close_ids[self._text.forced],))
            return True
        forced = self._forced_answer if phase == Phase.CONSTRAINED else None
        if forced is not None:
            _only(words, (forced,))
            return True
        k = self._pending if phase == Phase.OPENING else 0
        # The held prefix of the open marker: the matcher's mask as if it had read it.
        fed = 0
        while fed < k and self._matcher.accept_token(self._open_ids[fed]):
            fed += 1
        masked = False
        if fed == k:
            # xgrammar's "need apply" says True only where it masked a token; its False is not
            # trusted: it says so where only tokens it holds to be special are masked, and those
            # (our poisoned control tokens) must stay masked. (A routed matcher says True always.)
            masked = self._matcher.fill_next_token_bitmask(bitmask, index) is True and not self._routed
        else:
            words[:] = 0
        if fed:
            self._matcher.rollback(fed)
        if self.grammar.no_controls is not None:
            words &= self.grammar.no_controls
        need = masked or bool((words != -1).any())
        if phase == Phase.OPENING:
            nxt = self._open_ids[k]
            words[nxt >> 5] |= np.int32(np.uint32(1 << (nxt & 31)).view(np.int32))
            need = True
        need = self._guarded(words) or need
        if self._plan is not None and self._keeps_room():
            need = self._keep_room(words) or need
        return need

    def _guarded(self, words: np.ndarray) -> bool:
        """The guard's part of a row the matcher filled; whether it touched the row."""
        if self._guard is not None and self._guard.restrict(words):
            if not np.count_nonzero(words):
                self.dead_end(words)
            return True
        return False

    def finish_row(self, words: np.ndarray) -> bool:
        """Complete a :attr:`plain` row that the matcher filled with the others of its batch
        (``words``: the row's int32 words, changed in place), but for what the batch does for
        all its rows at once: the guard's look at tokens of several quotes where
        :attr:`multi_due` (:meth:`finish_multi`), then, where this returns True (the guard
        touched the row), whether any token is left (:meth:`dead_end` if none). Never raises."""
        try:
            if self.grammar.no_controls is not None:
                words &= self.grammar.no_controls
            touched = self._guard is not None and self._guard.restrict(words, multi=False)
            if self._plan is not None and self._b is not None:  # far from the end: the bound's mask alone
                keep = self._plan.level(self.max_tokens - self._pos - 1 - self._b)
                if keep is not None:
                    if not np.any(words & keep):  # (the bound too coarse for every token left: walk)
                        self._b = None
                        self._keep_room(words)
                    else:
                        words &= keep
                    touched = True
            return touched
        except Exception as e:
            self._fault_in_mask(e, words)
            return False

    @property
    def multi_due(self) -> bool:
        return self._guard is not None and self._guard.multi_due

    def finish_multi(self, words: np.ndarray, allowed: np.ndarray) -> None:
        """The guard's look at ``allowed``, the tokens of several quotes that a row from
        :meth:`finish_row` allows. Never raises."""
        try:
            self._guard.restrict_multi(words, allowed)
        except Exception as e:
            self._fault_in_mask(e, words)

    def dead_end(self, words: np.ndarray) -> None:
        """The guard left this row no token: the request ends, its row only the end."""
        self._fail("no token can continue the arguments within the schema's bounds")
        _only(words, self.grammar.stop_ids)

    # ------------------------------------------------------------------ room to finish

    def _keeps_room(self) -> bool:
        """In the tool phase, nothing else forcing the tokens (see tool_room)."""
        return self.phase == Phase.CONSTRAINED and self._answer_forced_from is None and (self._text is None or self._text.where == ANSWER)

    def _room_step(self, token_id: int) -> None:
        """Follow the witness past an accepted token, or widen the bound by the token's; keep
        what the room is here (for a rollback to it)."""
        self._recent[self._pos - 1] = token_id
        self._recent.pop(self._pos - 17, None)  # (a walk looks back 8)
        self._follow(token_id)
        self._snaps[self._pos] = (self._w, self._w_pos, self._b, self._w_free)
        for kept in (self._snaps, self._w_seen, self._resumes):
            kept.pop(self._pos - _KEPT, None)

    def _follow(self, token_id: int) -> None:
        w = self._w
        if w is not None and self._w_pos == self._pos - 1:
            if token_id == w[0]:
                self._fresh(w[1:])
                return
            rest = witness_prefixes(self._plan, self.grammar.vocab.token_bytes, w).get(token_id)
            if rest is not None:
                self._fresh(rest)
                return
            if self._w_free and _bit(self._plan.neutral if self._w_free == 1 else self._plan.answer_text, token_id):
                self._fresh(w, self._w_free)  # the same witness finishes after text in a free string, or an answer's
                return
            again = resume(self._plan, self.grammar.vocab.token_bytes, w, token_id)
            if again is not None:
                self._resumes[self._pos] = again
        self._w = None
        if self._b is not None:
            self._b += int(self._plan.cost[token_id])

    def _walk_due(self) -> bool:
        """The bound on finishing is unknown, or its slack too small to mask by: walk."""
        return self._b is None or self.max_tokens - self._pos - 1 - self._b < self._plan.walk_below

    def _fresh(self, w: tuple[int, ...], free: Optional[int] = None) -> None:
        """``w`` finishes from this position (kept by position: a draft rolled back to here
        finds it again, and the finish it promised stands)."""
        self._w, self._w_pos, self._b = w, self._pos, len(w)
        self._w_free = self._in_free_string(w) if free is None else free
        self._w_seen[self._pos] = (w, self._w_free)

    def _in_free_string(self, w: tuple[int, ...]) -> int:
        """1: inside a string value free of rules, where the witness begins by closing it; 2: in
        an answer's text, where it is the end alone; 0: neither."""
        if len(w) == 1 and w[0] in self._stops and self.grammar.choice in ("auto", "none") and (self._guard is None or (self._guard.mode == OUTSIDE and self._guard.call_at == 0)):
            return 2  # (before any call: after one, text may be the separator a next call needs)
        g = self._guard
        if g is None or g.mode != ARGS or not w or not self.grammar.vocab.token_bytes[w[0]].startswith(b'"'):
            return 0
        c = g.cursor
        return int(c.in_string == 2 and c.esc == 0 and not c.pending_high and c.node is not None and c.node.free)

    def _keep_room(self, words: np.ndarray) -> bool:
        """Clear from a filled row the tokens after which the output could not finish within
        max_tokens; whether the row changed."""
        plan = self._plan
        left = self.max_tokens - self._pos - 1  # tokens after this one
        if not self._ensure_witness():
            return False
        # Nothing open (the end alone finishes): the limit may cut here, as "length"; only what
        # would open something must fit.
        slack = left - (0 if self._w_free == 2 else self._b)
        keep = plan.level(slack, self._cost_kind())
        if keep is None:
            return False
        if (not self._w or self._w_pos != self._pos) and not np.any(words & keep):
            # the bound too coarse for every token the row allows: walk, and keep the witness's
            self._b = None
            if not self._ensure_witness():
                return False
            return self._keep_room(words)
        keep = keep.copy()
        if self._w and self._w_pos == self._pos:
            ahead = witness_prefixes(plan, self.grammar.vocab.token_bytes, self._w)
            for t in (self._w[0], *(t for t, rest in ahead.items() if len(rest) <= left)):
                keep[t >> 5] |= np.int32(np.uint32(1 << (t & 31)).view(np.int32))
            if slack >= 0 and self._w_free:
                keep |= plan.neutral if self._w_free == 1 else plan.answer_text
        words &= keep
        return True

    def _cost_kind(self):
        """Where the next token starts, for its cost bound (a key of tool_room's costs): in
        JSON arguments by the place its cursor is at."""
        g = self._guard
        if g is None:
            return "any"
        if g.mode == RAW:
            return "raw"
        if g.mode != ARGS:
            return "header" if g.mode == HEADER else "outside"
        c = g.cursor
        plan = self._plan
        if c.capture is not None:
            return "name"
        frame = c.stack[-1][1] if c.stack else c.node
        around = frame.room if frame is not None else plan.value
        if c.in_string == 2 or c.esc:
            return plan.costs_in("string", c.node.own + 8 if c.node is not None else plan.value, around)
        if c.in_string == 1:
            return plan.costs_in("string", around, around)  # (a key: the member it begins)
        value = c.value_node() if c.stack and (not c.stack[-1][0] or c.stack[-1][2] is not None) else None
        return plan.costs_in("args", value.own + 8 if value is not None else LITERAL, around)

    def _ensure_witness(self) -> bool:
        """Where the bound is due for a walk, the witness at this position: the one it has, the
        one found here before, or a walk's. Done where a row is filled and where a token is
        accepted unfilled (a draft's, after a rollback), so that the room after a token is the
        same either way. False where no way to finish is found (the room is then dropped)."""
        if not self._walk_due():
            return True
        if self._w is None or self._w_pos != self._pos:
            seen = self._w_seen.get(self._pos)
            if seen is not None:
                self._w, self._w_pos, self._w_free = seen[0], self._pos, seen[1]
            else:
                w = self._finish_walk()
                if w is None:
                    log.warning("thinkgate: no way to finish was found from position %d (format %r); no room is kept before max_tokens for this request", self._pos, self.grammar.format.name)
                    self._plan = None
                    self._refresh()
                    return False
                self._fresh(w)
        self._b = len(self._w)
        return True

    def _finish_walk(self) -> Optional[tuple[int, ...]]:
        """A complete way to finish from here: walked ahead through this request's own mask and
        rolled back (see tool_room); where the walk drew bytes at random (a pattern, text), the
        shortest of three, or of up to eight while none fits in the tokens left. None where none
        is found within the walk's length."""
        best, drew = self._walk_once(0)
        left = self.max_tokens - self._pos
        seed = 1
        while drew and (seed < 3 or (seed < 8 and (best is None or len(best) > left))):
            w, _ = self._walk_once(seed)
            if w is not None and (best is None or len(w) < len(best)):
                best = w
            seed += 1
        return best

    def _walk_once(self, seed: int) -> tuple[Optional[tuple[int, ...]], bool]:
        plan = self._plan
        if self._walk_bits is None:
            self._walk_bits = xgr.allocate_token_bitmask(1, self.grammar.vocab.size)
        bits = self._walk_bits
        row = bits.numpy()[0]
        saved = (self.phase, self.error)
        self._plan = None  # (no room kept while walking)
        ids: list[int] = []
        tail = []
        while len(tail) < 8 and self._pos - 1 - len(tail) in self._recent:
            tail.append(self._recent[self._pos - 1 - len(tail)])
        tail.reverse()
        path: list = plan.continuations(tail)  # (a simplest answer the output is writing)
        if self._pos in self._resumes:
            path[:0] = plan.unspaced(self._resumes[self._pos])
        uses: dict = {-1: seed}
        found = False
        try:
            for _ in range(plan.k * 4 + 64):
                if self.phase == Phase.DONE:
                    found = True
                    break
                if self.phase == Phase.ERROR:
                    break
                row[:] = -1
                self._fill(bits, 0)
                if not any(allowed(row, p[0]) for p in path if p):  # (lost: found again where the answer is)
                    path = plan.continuations(tail[-8:])
                c = self._guard.cursor if self._guard is not None and self._guard.mode == ARGS else None
                t, path = pick(plan, row, path, uses, c is not None and c.in_string == 2 and c.esc == 0, self._guard is None or self._guard.mode in (ARGS, RAW))
                if t is None:
                    break
                ids.append(t)
                tail.append(t)
                if not self.accept_token(t):
                    break
            else:
                found = self.phase == Phase.DONE
        finally:
            self.rollback(len(ids))
            self.phase, self.error = saved
            self._plan = plan
            self._refresh()
        return (tuple(ids) if found else None), 0 in uses

    @property
    def matcher(self) -> Optional[xgr.GrammarMatcher]:
        return self._matcher


class FailedRequest:
    """A request whose constraint could not be set up (its grammar failed to compile inside an
    engine, which admission should have prevented): it may only end, and says why. It stands
    in a batch where a :class:`ReasonerGrammar` would."""

    phase = Phase.ERROR
    needs_bitmask = True
    blocks_eos = False
    plain = False
    free = False
    thinking = None

    def __init__(self, stop_ids: Iterable[int], error: str) -> None:
        self.stop_ids = tuple(stop_ids)
        self.error = error

    def accept_token(self, token_id: int) -> bool:
        return token_id in self.stop_ids

    def accept_tokens(self, token_ids: Iterable[int]) -> bool:
        return all([self.accept_token(t) for t in token_ids])

    def rollback(self, k: int) -> None:
        return None

    def is_terminated(self) -> bool:
        return False

    def fill_bitmask(self, bitmask: torch.Tensor, index: int) -> bool:
        _only(bitmask.numpy()[index], self.stop_ids)
        return True


def tool_room_on() -> bool:
    """Whether room to finish is kept in the tool phase (on unless ``THINKGATE_TOOL_ROOM=off``:
    to compare, or to let a call run into ``max_tokens`` as engines without it do)."""
    value = os.environ.get("THINKGATE_TOOL_ROOM", "on").strip().lower()
    if value not in ("on", "off", "1", "0", "true", "false"):
        raise ValueError(f"THINKGATE_TOOL_ROOM must be 'on' or 'off', not {value!r}")
    return value in ("on", "1", "true")


def finish_plan(grammar: ToolGrammar) -> FinishPlan:
    """The grammar's finish plan, made on first need."""
    if grammar.finish_plan is None:
        calls = [(name, (*a, grammar.stop_ids[0])) for name, a in simplest_calls(grammar)]
        # (only those the grammar admits: a path that breaks midway leads the walk astray)
        walked = [(name, a) for name, a in sorted(calls, key=lambda c: len(c[1]))[:8] if _walks(grammar, a)]
        # and the ends of an answer written in a frame of its own (Kimi-K3's response, its turn)
        fmt = grammar.format
        ends = [text for text in (fmt.answer[1] + fmt.turn_end, fmt.turn_end, fmt.response[1]) if text]
        tails = [(*grammar.vocab.tokenizer.encode(text, add_special_tokens=False), grammar.stop_ids[0]) for text in ends]
        answers = [a for _, a in walked or calls] + tails
        grammar.finish_plan = FinishPlan(grammar, answers, {name: len(a) for name, a in walked})
    return grammar.finish_plan


_NO_ROOM = (None, -1, None, 0)  # (no witness, no bound: walked where it matters)
_KEPT = 256  # positions back the room is kept for a rollback (drafts are a few tokens)


def _bit(mask: np.ndarray, token_id: int) -> bool:
    return bool((int(mask[token_id >> 5]) >> (token_id & 31)) & 1)


def _only(words: np.ndarray, ids: Iterable[int]) -> None:
    """Set a bitmask row (its int32 words) to allow ``ids`` alone."""
    words[:] = 0
    for i in ids:
        words[i >> 5] |= np.int32(np.uint32(1 << (i & 31)).view(np.int32))
