"""Stop strings (OpenAI's ``stop``), cut the same way in every engine: the output ends just
before the first stop string it holds, which is not returned, and the finish reason is "stop"."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional


def find_stop(text: str, stops: Optional[Sequence[str]]) -> Optional[int]:
    """Where the earliest stop string in ``text`` starts, or None."""
    found = [p for p in (text.find(s) for s in stops or ()) if p >= 0]
    return min(found) if found else None


def _decode(tokenizer: Any, ids: list[int]) -> str:
    return tokenizer.decode(ids, skip_special_tokens=False, clean_up_tokenization_spaces=False)


def output_text(tokenizer: Any, ids: list[int], stops: Optional[Sequence[str]]) -> tuple[list[int], str, bool]:
    """``(ids, text, cut)`` of an output: decoded whole, or, when it holds a stop string, cut just
    before the first one (``cut`` True). The ids are then those that wrote the text kept (the last
    may have written the stop string's start too), so the parser reads markers from the same
    tokens as the text."""
    text = _decode(tokenizer, ids)
    at = find_stop(text, stops)
    if at is None:
        return ids, text, False
    # the fewest tokens whose text reaches the cut: a binary search, as a prefix of more tokens
    # decodes to no less text
    lo, hi = 0, len(ids)
    while lo < hi:
        mid = (lo + hi) // 2
        if len(_decode(tokenizer, ids[:mid])) >= at:
            hi = mid
        else:
            lo = mid + 1
    return ids[:lo], text[:at], True


def stop_window(stops: Sequence[str]) -> int:
    """How many last tokens can hold a stop string just completed: as many as the longest stop
    has characters (every token writes at least one), plus a margin for a character split
    across tokens."""
    return max(len(s) for s in stops) + 2


def stop_in_tail(tokenizer: Any, tail: list[int], stops: Sequence[str]) -> bool:
    """Whether ``tail`` (an output's last :func:`stop_window` tokens, or all of a shorter one)
    holds a stop string: cheap enough to ask after every token."""
    return find_stop(_decode(tokenizer, tail), stops) is not None
