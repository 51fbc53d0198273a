"""Which stage an output starts in, read from the prompt's token ids; marker token ids."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..formats import ChatFormat, Thinking, get_format

# How many trailing whitespace-only tokens (the "\n" of "<think>\n") to look past.
_MAX_TRAILING_SPACE_TOKENS = 4


def single_token_id(tokenizer: Any, text: str) -> int | None:
    """The id of ``text`` if the tokenizer writes it as exactly one token, else ``None``."""
    if isinstance(tokenizer, Mapping):
        return tokenizer.get(text)
    ids = tokenizer.encode(text, add_special_tokens=False)
    return ids[0] if len(ids) == 1 else None


def marker_token_ids(fmt: ChatFormat | str, tokenizer: Any) -> dict[str, int]:
    """Each of the format's markers that is a single token of ``tokenizer``, with its id.

    ``tokenizer`` is a Hugging Face tokenizer or a mapping from marker text to id."""
    fmt = get_format(fmt)
    out = {}
    for marker in fmt.markers:
        tid = single_token_id(tokenizer, marker)
        if tid is not None:
            out[marker] = tid
    return out


def thinking_from_prompt(
    prompt_token_ids: Sequence[int], tokenizer: Any, format: ChatFormat | str
) -> Thinking:
    """The stage the output starts in, from the prompt's last tokens.

    A prompt that ends in the open marker (``<think>`` or ``<think>\\n``) starts the output inside
    reasoning (``True``); one that ends in the close marker does not (``False``); otherwise the
    format's default (R1: ``True``, its template opens reasoning; V3/V3.1: ``"auto"``).
    """
    fmt = get_format(format)
    ids = marker_token_ids(fmt, tokenizer)
    missing = [m for m in (fmt.reasoning.open, fmt.reasoning.close) if m not in ids]
    if missing:
        raise ValueError(
            f"the tokenizer has no single token for {', '.join(map(repr, missing))} "
            f"of format {fmt.name!r}: cannot read the thinking stage from prompt ids"
        )
    open_id, close_id = ids[fmt.reasoning.open], ids[fmt.reasoning.close]
    i = len(prompt_token_ids) - 1
    floor = max(-1, i - _MAX_TRAILING_SPACE_TOKENS)
    while i > floor:
        tid = prompt_token_ids[i]
        if tid == open_id:
            return True
        if tid == close_id:
            return False
        if isinstance(tokenizer, Mapping) or not _is_space(tokenizer, tid):
            break
        i -= 1
    return fmt.reasoning.default_thinking


def _is_space(tokenizer: Any, token_id: int) -> bool:
    text = tokenizer.decode([token_id])
    return bool(text) and text.isspace()
