"""Stop strings (OpenAI's ``stop``), cut the same way in every engine: the output ends just
before the first stop string it holds, which is not returned, and the finish reason is "stop"."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional


def find_stop(text: str, stops: Optional[Sequence[str]]) -> Optional[int]:
    """Where the earliest stop string in ``text`` starts, or None."""
    found = [p for p in (text.find(s) for s in stops or ()) if p >= 0]
    return min(found) if found else None


def cut_at_stop(tokenizer: Any, ids: list[int], stops: Optional[Sequence[str]]) -> Optional[tuple[list[int], str]]:
    """``(ids, text)`` of an output cut at its first stop string, or None if it holds none. The
    ids are those that wrote the text kept (the last may have written the stop string's start
    too), so the parser reads markers from the same tokens as the text."""
    if not stops:
        return None
    decode = lambda part: tokenizer.decode(part, skip_special_tokens=False, clean_up_tokenization_spaces=False)  # noqa: E731
    text = decode(ids)
    at = find_stop(text, stops)
    if at is None:
        return None
    # the fewest tokens whose text reaches the cut: a binary search, as a prefix of more tokens
    # decodes to no less text
    lo, hi = 0, len(ids)
    while lo < hi:
        mid = (lo + hi) // 2
        if len(decode(ids[:mid])) >= at:
            hi = mid
        else:
            lo = mid + 1
    return ids[:lo], text[:at]


def stop_in_tail(tokenizer: Any, ids: list[int], stops: Sequence[str]) -> bool:
    """Whether the last tokens of ``ids`` complete a stop string: a window as many tokens long as
    the longest stop has characters (every token writes at least one), plus a margin for a
    character split across tokens; cheap enough to ask after every token."""
    window = max(len(s) for s in stops) + 2
    tail = tokenizer.decode(ids[-window:], skip_special_tokens=False, clean_up_tokenization_spaces=False)
    return find_stop(tail, stops) is not None
