"""The room a required call needs: the shortest complete answer a request's grammar admits, in
its tokenizer's tokens.

A model that never closes its thinking reaches ``max_tokens`` with no call, though the request
required one. The reasoner keeps this much room: when the tokens left can only just hold it,
``</think>`` is forced and then this answer, token by token (see ``ReasonerGrammar``).

How it is measured: for each tool the request's choice leaves, its simplest call (the required
properties only, each the shortest value its schema admits: ``example_value(short=True)``) is
written as the format writes a tool section of that one call and encoded by the request's own
tokenizer; each candidate is then walked through the compiled grammar exactly as a sampled output
would be (the mask, the arguments guard and all), and must end with an end-of-sequence token the
grammar allows there. The candidate of fewest tokens wins. A schema whose simplest value the
grammar refuses leaves its tool out; if none walks, the request keeps no room (logged).
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Optional

import torch
import xgrammar as xgr

from ..schemas.examples import example_value

if TYPE_CHECKING:
    from ..grammar.compiled import ToolGrammar

log = logging.getLogger("thinkgate.constraint")

_NONE = ()  # measured: no candidate walks


def shortest_answer(grammar: ToolGrammar) -> Optional[tuple[int, ...]]:
    """The token ids of the shortest complete answer of a ``required`` or named-tool grammar
    (its calls and the end-of-sequence token), measured once per compiled grammar; None where
    no candidate walks, or the grammar requires no call."""
    if grammar.choice not in ("required", "named"):
        return None
    if grammar.shortest is None:
        grammar.shortest = _measure(grammar)
    return grammar.shortest or None


def simplest_answers(grammar: ToolGrammar) -> list[tuple[int, ...]]:
    """Each tool's simplest call, written as the format writes a tool section of that one call,
    in the request's tokens (not walked: a schema's simplest value may be one its grammar
    refuses). One per tool, in the tools' order."""
    return [ids for _, ids in simplest_calls(grammar)]


def simplest_calls(grammar: ToolGrammar) -> list[tuple[str, tuple[int, ...]]]:
    """:func:`simplest_answers`, each with its tool's name (a tool whose arguments the format
    cannot write has none)."""
    t = grammar.format.tools
    tokenizer = grammar.vocab.tokenizer
    candidates = []
    for spec in grammar.spec.tools:
        # (the schema with its length bounds: the grammar's has them folded out for the guard)
        schema = next((s for s in (spec.schema.bounded_schema, spec.schema.xgrammar_schema) if isinstance(s, dict)), {})
        arguments = json.dumps(example_value(schema, short=True), ensure_ascii=False)
        try:
            # (and what ends the turn after the calls, where the format writes that: GigaChat's
            # <|message_sep|>)
            text = t.section_text([(spec.name, arguments)]) + grammar.format.turn_end
        except ValueError:  # arguments that are no object cannot be written as parameters
            continue
        candidates.append((spec.name, tuple(tokenizer.encode(text, add_special_tokens=False))))
    return candidates


def _measure(grammar: ToolGrammar) -> tuple[int, ...]:
    candidates = simplest_answers(grammar)
    # Shortest first (ties in the tools' order): the first that walks wins, and a routed
    # grammar compiles only the tools walked.
    for ids in sorted(candidates, key=len):
        for stop in grammar.stop_ids:
            if _walks(grammar, (*ids, stop)):
                return (*ids, stop)
    log.warning("thinkgate: no simplest call of the tools %s walks the grammar of format %r; a required call gets no room kept before max_tokens", [s.name for s in grammar.spec.tools], grammar.format.name)
    return _NONE


def _walks(grammar: ToolGrammar, ids: tuple[int, ...]) -> bool:
    """Whether ``ids`` is an answer the request's mask allows at every token, ending it."""
    from .reasoner import ReasonerGrammar

    g = ReasonerGrammar(grammar, thinking=False)
    bitmask = xgr.allocate_token_bitmask(1, grammar.vocab.size)
    for i in ids:
        if i >= grammar.vocab.size:
            return False
        bitmask.fill_(-1)
        if g.fill_bitmask(bitmask, 0) and not _allows(bitmask[0], i):
            return False
        if not g.accept_token(i):
            return False
    return g.is_terminated()


def _allows(row: torch.Tensor, token_id: int) -> bool:
    return bool((int(row[token_id >> 5]) >> (token_id & 31)) & 1)
