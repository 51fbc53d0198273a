"""Which stage an output starts in, read from the prompt's token ids; marker token ids."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .base import ChatFormat, Thinking
from .registry import get_format, names

# How many trailing whitespace-only tokens (the "\n" of "<think>\n") to look past.
_MAX_TRAILING_SPACE_TOKENS = 4


def single_token_id(tokenizer: Any, text: str) -> int | None:
    """The id of ``text`` if the tokenizer writes it as exactly one token, else ``None``."""
    if isinstance(tokenizer, Mapping):
        return tokenizer.get(text)
    ids = tokenizer.encode(text, add_special_tokens=False)
    return ids[0] if len(ids) == 1 else None


def open_marker_ids(fmt: ChatFormat, tokenizer: Any) -> tuple[int, ...] | None:
    """The ids the reasoning open marker is written in: its one token, or for a format of
    channel messages (harmony's ``<|channel|>analysis<|message|>``) the tokens of its pieces;
    ``None`` where the tokenizer does not have it so."""
    text = fmt.reasoning.open
    tid = single_token_id(tokenizer, text)
    if tid is not None:
        return (tid,)
    if fmt.tools.messages is None or isinstance(tokenizer, Mapping):
        return None
    return tuple(tokenizer.encode(text, add_special_tokens=False)) or None


def marker_token_ids(fmt: ChatFormat | str, tokenizer: Any) -> dict[str, int]:
    """Each of the format's token markers that is a single token of ``tokenizer``, with its id
    (a :class:`~thinkgate.formats.Text` marker is matched as text, never by id).

    ``tokenizer`` is a Hugging Face tokenizer or a mapping from marker text to id."""
    fmt = get_format(fmt)
    out = {}
    for marker in fmt.token_markers:
        tid = single_token_id(tokenizer, marker)
        if tid is not None:
            out[marker] = tid
    return out


def thinking_from_prompt(
    prompt_token_ids: Sequence[int], tokenizer: Any, format: ChatFormat | str
) -> Thinking:
    """The stage the output starts in, from the prompt's last tokens.

    A prompt that ends in the open marker (``<think>`` or ``<think>\\n``; harmony's several
    pieces ``<|channel|>analysis<|message|>``) starts the output inside reasoning (``True``); one
    that ends in the close marker does not (``False``); otherwise the format's default (R1:
    ``True``, its template opens reasoning; V3/V3.1: ``"auto"``; gpt-oss: ``"auto"``, its prompt
    ends in ``<|start|>assistant`` and the model opens the analysis channel itself).
    """
    fmt = get_format(format)
    if not fmt.reasoning.present:
        return False
    if fmt.text_reasoning:
        return _thinking_from_text(prompt_token_ids, tokenizer, fmt)
    open_ids = open_marker_ids(fmt, tokenizer)
    close_id = single_token_id(tokenizer, fmt.reasoning.close)
    missing = [m for m, i in ((fmt.reasoning.open, open_ids), (fmt.reasoning.close, close_id)) if i is None]
    if missing:
        raise ValueError(
            f"the tokenizer has no single token for {', '.join(map(repr, missing))} "
            f"of format {fmt.name!r}: cannot read the thinking stage from prompt ids"
        )
    i = len(prompt_token_ids) - 1
    floor = max(-1, i - _MAX_TRAILING_SPACE_TOKENS)
    k = len(open_ids)
    after_open = {single_token_id(tokenizer, m) for m in fmt.reasoning.prompt_after_open} - {None}
    while i > floor:
        tid = prompt_token_ids[i]
        if tid == open_ids[-1] and i + 1 >= k and tuple(prompt_token_ids[i + 1 - k : i + 1]) == open_ids:
            return True
        if tid == close_id:
            return False
        if tid not in after_open and (isinstance(tokenizer, Mapping) or not _is_space(tokenizer, tid)):
            break
        i -= 1
    return fmt.reasoning.default_thinking


def _thinking_from_text(prompt_token_ids: Sequence[int], tokenizer: Any, fmt: ChatFormat) -> Thinking:
    """Text reasoning markers: the prompt's last characters, trailing whitespace aside."""
    if isinstance(tokenizer, Mapping):
        raise ValueError(f"format {fmt.name!r} writes its reasoning markers as text: reading the thinking stage needs a tokenizer that decodes")
    r = fmt.reasoning
    # enough tokens to hold either marker spelled one character a token, and its whitespace
    k = max(len(r.open), len(r.close), len(fmt.answer[0])) + _MAX_TRAILING_SPACE_TOKENS
    tail = tokenizer.decode(list(prompt_token_ids[-k:]), skip_special_tokens=False).rstrip()
    if tail.endswith(r.open):
        return True
    if tail.endswith(r.close) or (fmt.answer[0] and tail.endswith(fmt.answer[0])):
        return False  # (a prompt that opens the answer itself does not think: Kimi-K3's)
    return r.default_thinking


def _is_space(tokenizer: Any, token_id: int) -> bool:
    text = tokenizer.decode([token_id])
    return bool(text) and text.isspace()


class AnalysisIds:
    """Where reasoning ends in token ids, for a format of channel messages (harmony), where the
    close marker ``<|end|>`` ends every message and reasoning is the analysis channel's."""

    def __init__(self, fmt: ChatFormat | str, tokenizer: Any) -> None:
        fmt = get_format(fmt)
        msgs = fmt.tools.messages
        if msgs is None:
            raise ValueError(f"format {fmt.name!r} does not write channel messages")
        self.open_ids = open_marker_ids(fmt, tokenizer) or ()
        self.close = single_token_id(tokenizer, fmt.reasoning.close)
        self.message = single_token_id(tokenizer, msgs.message)

    def _is_analysis(self, ids: Sequence[int], i: int) -> bool:
        """Whether the message marker at ``i`` opens an analysis message."""
        k = len(self.open_ids)
        return k > 0 and i + 1 >= k and tuple(ids[i + 1 - k : i + 1]) == self.open_ids

    def ended(self, ids: Sequence[int]) -> bool:
        """Whether reasoning is over at the end of ``ids``: the last message marker opened a
        message that is not analysis, or the last ``<|end|>`` closed an analysis message (one
        that closed a user or tool message, as a prompt's last does, says nothing has begun)."""
        i = len(ids) - 1
        while i >= 0:
            t = ids[i]
            if t == self.message:
                return not self._is_analysis(ids, i)
            if t == self.close:
                j = i - 1
                while j >= 0 and ids[j] != self.message:
                    j -= 1
                return j >= 0 and self._is_analysis(ids, j)
            i -= 1
        return False

    def content_from(self, ids: Sequence[int]) -> int:
        """Where the answer's ids start: after the ``<|end|>`` of the last analysis message (0
        when there is none)."""
        start, in_analysis = 0, False
        for i, t in enumerate(ids):
            if t == self.message:
                in_analysis = self._is_analysis(ids, i)
            elif t == self.close and in_analysis:
                start, in_analysis = i + 1, False
        return start


class TextReasoningIds:
    """Where reasoning ends in token ids, for a format whose reasoning markers are text (spelled
    by ordinary tokens): the ids are decoded one at a time and the markers found in the text (a
    marker is ASCII: a character split across tokens never hides one)."""

    def __init__(self, fmt: ChatFormat | str, tokenizer: Any) -> None:
        self.fmt = get_format(fmt)
        self._tokenizer = tokenizer

    def _read(self, ids: Sequence[int]) -> tuple[str, list[int]]:
        """The text of ``ids``, and the end offset of each token's text in it."""
        pieces = [self._tokenizer.decode([t], skip_special_tokens=False) for t in ids]
        ends, total = [], 0
        for piece in pieces:
            total += len(piece)
            ends.append(total)
        return "".join(pieces), ends

    def ended(self, ids: Sequence[int]) -> bool:
        """Whether the last reasoning marker in ``ids`` is the close."""
        text, _ = self._read(ids)
        r = self.fmt.reasoning
        return r.close in text and text.rfind(r.close) > text.rfind(r.open)

    def content_from(self, ids: Sequence[int]) -> int:
        """Where the answer's ids start: after the token that completes the first close (0
        where there is none)."""
        text, ends = self._read(ids)
        at = text.find(self.fmt.reasoning.close)
        if at < 0:
            return 0
        done = at + len(self.fmt.reasoning.close)
        return next(i + 1 for i, e in enumerate(ends) if e >= done)


# What the registry as a whole tells a tokenizer (the constraint's vocabulary asks these).


def written_as_text(fmt: ChatFormat | None = None) -> frozenset[str]:
    """What ``fmt`` writes as text (every registered format's, without one), so that a
    tokenizer's added token of that text stays text: text markers (and the special tokens they
    are written with), and the tags of arguments written as parameters."""
    out: set[str] = set()
    formats = [fmt] if fmt is not None else [get_format(name) for name in names()]
    for f in formats:
        out.update(f.text_markers)
        out.update(f.text_tokens)
        if f.tools.xml is not None:
            out.update(f.tools.xml.markers)
    if fmt is None:
        # a marker one format writes as text and another as its token (Hunyuan A13B's text
        # <think>, DeepSeek's and Qwen's token) stays a token for all: the format that writes it
        # as text says so for its own vocabulary (own_text)
        out -= {m for f in formats for m in f.token_markers}
    return frozenset(out)


def own_text(fmt: ChatFormat) -> frozenset[str]:
    """What ``fmt`` writes as text that no registered format does (a format of one's own)."""
    return written_as_text(fmt) - written_as_text()


def default_stop_ids(tokenizer: Any) -> list[int]:
    """The ids that end a generation with ``tokenizer``: its EOS (and the other end markers of a
    registered format whose end of sequence that is), or where it has none, every registered
    format's end markers it has as tokens."""
    eos = getattr(tokenizer, "eos_token_id", None)
    if eos is not None:
        # A format whose end of sequence is this EOS may end a generation with other markers
        # too (gpt-oss: <|call|> beside <|return|>, as its generation config lists them).
        more = []
        for name in names():
            fmt = get_format(name)
            if fmt.stops and single_token_id(tokenizer, fmt.eos) == eos:
                more += [single_token_id(tokenizer, m) for m in fmt.stops]
        return [eos, *(i for i in more if i is not None)]
    ids = []
    for name in names():
        fmt = get_format(name)
        for marker in (fmt.eos, *fmt.stops):
            tid = single_token_id(tokenizer, marker)
            if tid is not None:
                ids.append(tid)
    return ids
