"""Free answer text that holds no piece of tool markup written as text.

xgrammar's free text with ``excludes`` keeps a marker out of the text, but lets the text end in
the marker's first characters (``Hello <minimax:tool_`` and the end of the output): a fragment of
markup the parser holds back as a possible marker and then has to give back as content. This text
is an automaton over every marker at once (Aho-Corasick): its states are the markers' prefixes
the text now ends in, a transition that would complete a marker is missing, and only the state
with no pending prefix may end the text. Written as an EBNF grammar, one rule per state.
"""

from __future__ import annotations

from collections import deque
from typing import Any


def text_without(markers: list[str]) -> dict[str, Any]:
    """A grammar element: any text in which no marker occurs and that does not end in a proper
    prefix of one (an empty text included)."""
    return {"type": "grammar", "grammar": text_grammar(markers)}


def text_grammar(markers: list[str]) -> str:
    patterns = sorted({m for m in markers if m})
    if not patterns:
        return 'root ::= [^]*'  # pragma: no cover - every caller has markers
    # The trie of the markers' prefixes; state 0 is the empty prefix.
    goto: list[dict[str, int]] = [{}]
    ends = [False]
    for p in patterns:
        s = 0
        for c in p:
            if c not in goto[s]:
                goto.append({})
                ends.append(False)
                goto[s][c] = len(goto) - 1
            s = goto[s][c]
        ends[s] = True
    # Failure links, breadth first; a state whose longest marker suffix is a whole marker is dead.
    fail = [0] * len(goto)
    order = deque(goto[0].values())
    while order:
        s = order.popleft()
        for c, t in goto[s].items():
            f = fail[s]
            while f and c not in goto[f]:
                f = fail[f]
            fail[t] = goto[f][c] if c in goto[f] and goto[f][c] != t else 0
            ends[t] = ends[t] or ends[fail[t]]
            order.append(t)
    alphabet = sorted({c for p in patterns for c in p})

    def step(s: int, c: str) -> int:
        while s and c not in goto[s]:
            s = fail[s]
        return goto[s].get(c, 0)

    live = [s for s in range(len(goto)) if not ends[s]]
    # The automaton minimised (states with the same future merged: eight of Kimi-K3's markers
    # end in the same seven characters, 120 states become 55): xgrammar precomputes every rule
    # over the whole vocabulary, so a rule fewer is ~30 ms of compile fewer on a 129k vocabulary.
    moves = {s: {c: step(s, c) for c in alphabet} for s in live}
    group = _merged(live, moves, ends)
    rules = []
    for s in sorted({group[s] for s in live}):
        # chars outside every marker lead back to the empty prefix; a marker's own chars to the
        # longest prefix the text then ends in (never to a whole marker)
        alts = ['""'] if s == 0 else []
        by_target: dict[int, list[str]] = {}
        for c in alphabet:
            t = moves[s][c]
            if not ends[t]:
                by_target.setdefault(group[t], []).append(c)
        # (the chars of no marker join the markers' own that also lead back to s0: one class)
        home = "".join(_class_char(c) for c in sorted(set(alphabet) - set(by_target.get(0, ()))))
        alts.append(f"[^{home}] s0")
        for t, chars in sorted(by_target.items()):
            if t:
                alts.append("[" + "".join(_class_char(c) for c in chars) + f"] s{t}")
        rules.append(f"s{s} ::= " + " | ".join(alts))
    return "root ::= s0\n" + "\n".join(rules) + "\n"


def _merged(live: list[int], moves: dict[int, dict[str, int]], ends: list[bool]) -> dict[int, int]:
    """Each live state's representative (its least member) among the states with the same
    future (Moore's refinement: the empty prefix alone may end the text, a whole marker is
    dead). The empty prefix represents itself: no other state may end the text."""
    group = {s: (0 if s == 0 else 1) for s in live}
    while True:
        signature = {s: (group[s], tuple(-1 if ends[t] else group[t] for t in moves[s].values())) for s in live}
        first: dict[tuple, int] = {}
        for s in live:
            first.setdefault(signature[s], s)
        refined = {s: first[signature[s]] for s in live}
        if len(set(refined.values())) == len(set(group.values())):
            return refined
        group = refined


def _class_char(c: str) -> str:
    """One character inside an EBNF character class, escaped where it could be read as syntax."""
    if c.isalnum() or c in " _:=<>/.\"'~!@#%&*+,;?`{}|()":
        return c if c != '"' else '\\"'
    return f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}"
