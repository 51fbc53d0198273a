"""Hypothesis strategies for model outputs in a format: reasoning, answer text with code fences
and marker-like text, and 0-4 calls whose arguments hold nested, unicode and escaped values."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache

from hypothesis import strategies as st

from thinkgate.formats import ChatFormat

# Pieces that look like markup without being it; the markers themselves are added per format.
TRICKY = ["```", "```json", "{", "}", '"', "\\", "\n", "  ", "<", "｜", "▁", "</", "<th", "é", "中文", "😀", "\t", "function"]


@dataclass
class Output:
    text: str
    reasoning: str | None
    content: str | None
    calls: list[tuple[str, str]]
    broken: list[int] = field(default_factory=list)  # indexes of calls made invalid


def _strip_markers(text: str, markers) -> str:
    """Remove every marker, even those that removing another one brings together."""
    while True:
        before = text
        for m in markers:
            text = text.replace(m, "")
        if text == before:
            return text


@lru_cache(maxsize=None)
def free_text(fmt: ChatFormat, forbidden: tuple, max_parts=12):
    """Text made of letters, tricky pieces and prefixes of the format's markers, containing
    none of ``forbidden``."""
    prefixes = [m[:k] for m in fmt.markers for k in (1, 2, len(m) // 2, len(m) - 1) if k > 0]
    part = st.one_of(
        st.text(max_size=8),
        st.sampled_from(TRICKY),
        st.sampled_from(prefixes),
        st.sampled_from(["the", "weather", " ", "call"]),
    )
    return st.lists(part, max_size=max_parts).map(lambda parts: _strip_markers("".join(parts), forbidden))


@lru_cache(maxsize=None)
def json_values(fmt: ChatFormat):
    strings = st.one_of(
        st.text(max_size=10),
        st.sampled_from(TRICKY + list(fmt.markers) + ["a" + fmt.tools.call_end + '"}', "}\n```"]),
    )
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(10**12), max_value=10**12),
        st.floats(allow_nan=False, allow_infinity=False),
        strings,
    )
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.dictionaries(strings, inner, max_size=4),
        ),
        max_leaves=12,
    )


@st.composite
def arguments(draw, fmt: ChatFormat) -> str:
    obj = draw(st.dictionaries(st.text(max_size=6), json_values(fmt), max_size=5))
    style = draw(st.sampled_from(["compact", "spaced", "indented", "ascii"]))
    if style == "compact":
        return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    if style == "spaced":
        return json.dumps(obj, ensure_ascii=False)
    if style == "indented":
        return json.dumps(obj, indent=2, ensure_ascii=False)
    return json.dumps(obj)


def _plain_string(fmt: ChatFormat):
    """Strings an XML parameter holds as its bare text and reads back as the same string: not
    JSON, nothing around them the grammar takes for whitespace, no markup inside."""
    tags = (*fmt.markers, *fmt.tools.xml.markers)

    def fine(s: str) -> bool:
        if s != s.strip() or any(m in s for m in tags):
            return False
        try:
            json.loads(s)
        except ValueError:
            return True
        return False

    return st.one_of(st.text(max_size=10), st.sampled_from(["Paris", "中文 😀", "a\nb", "{x", "<", "```"])).filter(fine)


@st.composite
def xml_arguments(draw, fmt: ChatFormat) -> str:
    """Arguments (JSON, as the parser gives them back) for a format that writes parameters: top
    level strings as bare text, other values as JSON holding no markup."""
    tags = (*fmt.markers, *fmt.tools.xml.markers)
    nested = json_values(fmt).filter(lambda v: not any(m in json.dumps(v, ensure_ascii=False) for m in tags))
    value = st.one_of(_plain_string(fmt), nested.filter(lambda v: not isinstance(v, str)))
    if not fmt.tools.xml.typed:  # no schema and no tag types a value: it reads back as its text
        value = _plain_string(fmt)
    keys = st.from_regex(r"[a-zA-Z_][a-zA-Z0-9_]{0,8}", fullmatch=True)
    return json.dumps(draw(st.dictionaries(keys, value, max_size=4)), ensure_ascii=False)


@st.composite
def literal_arguments(draw, fmt: ChatFormat) -> str:
    """Arguments (JSON, as the parser gives them back) for a format that writes an object
    literal (Gemma 4): bare keys, strings holding anything but the string delimiter."""
    quote = fmt.tools.literal.quote
    keys = st.from_regex(r"[a-zA-Z_][a-zA-Z0-9_]{0,8}", fullmatch=True)

    def fine(v) -> bool:  # nested keys bare too, no delimiter in a string
        if isinstance(v, dict):
            return all(fmt.tools.literal.readable_key(k) and fine(x) for k, x in v.items())
        if isinstance(v, list):
            return all(fine(x) for x in v)
        return not (isinstance(v, str) and quote in v)

    def ordered(v):  # the keys in the order the model writes them (Gemma 4: sorted), as parsed
        if isinstance(v, dict):
            return {k: ordered(v[k]) for k in fmt.tools.literal.order(v)}
        return [ordered(x) for x in v] if isinstance(v, list) else v

    value = json_values(fmt).filter(fine)
    return json.dumps(ordered(draw(st.dictionaries(keys, value, max_size=4))), ensure_ascii=False)


@st.composite
def python_arguments(draw, fmt: ChatFormat) -> str:
    """Arguments (JSON, as the parser gives them back) for a format that writes Python keyword
    arguments: identifier names; where its template writes a string as its bare text between
    quotes, no quote or backslash in a top-level string."""
    style = fmt.tools.python
    keys = st.from_regex(r"[a-zA-Z_][a-zA-Z0-9_]{0,8}", fullmatch=True)

    def fine(v) -> bool:
        return style.escaped or not (isinstance(v, str) and (style.quote in v or "\\" in v))

    return json.dumps(draw(st.dictionaries(keys, json_values(fmt).filter(fine), max_size=4)), ensure_ascii=False)


def _broken_python(draw, fmt: ChatFormat, args: str) -> str:
    """Keyword arguments that cannot be read, their brackets balanced (the reader follows them to
    the call's end, so that the calls after it stand): a stray character among them, or a name
    where a value should be."""
    body = fmt.tools.python.render(args)
    if any(m in body for m in fmt.markers):
        # (marker text in a broken call's string: whether the string is open there is unknown,
        # and the marker is read as real, which ends the calls)
        return "(a=@)"
    if draw(st.booleans()):
        return body[:-1] + ", @)"
    return "(a=b, " + body[1:] if body != "()" else "(a=b)"


def _broken_literal(draw, fmt: ChatFormat, args: str) -> str:
    """An object literal that cannot be read: cut short, or a key with no value at its end."""
    body = fmt.tools.literal.render(args)
    if draw(st.booleans()):
        return body[: draw(st.integers(0, len(body) - 1))]
    return body[:-1] + ",@}"


def _broken_parameters(draw, fmt: ChatFormat, args: str) -> str:
    """Parameters that cannot be read: a name with a space, or a name never closed. (A name
    given again right after a value's closing tag is no longer broken: that closing tag and
    what follows are the value's text, as a file holding the tool's own markup is written.)"""
    xml = fmt.tools.xml
    body = xml.render(args)
    how = draw(st.sampled_from(["bad_name", "unclosed"]))
    if how == "unclosed":
        return body + xml.key_open + "ab"
    return body + xml.parameter("a b", 1)


names = st.from_regex(r"[a-zA-Z_][a-zA-Z0-9_\-]{0,20}", fullmatch=True)
python_names = st.from_regex(r"[a-zA-Z_][a-zA-Z0-9_.]{0,20}", fullmatch=True)


def _broken(draw, args: str) -> str:
    how = draw(st.sampled_from(["truncate", "garbage", "single_quotes"]))
    if how == "truncate":
        return args[: draw(st.integers(1, max(1, len(args) - 1)))]
    if how == "garbage":
        at = draw(st.integers(1, max(1, len(args) - 1)))
        return args[:at] + "@" + args[at:]
    return args.replace('"', "'") if '"' in args else "{'x': 1}"


def _call_texts(draw, fmt: ChatFormat, calls: list, allow_broken: bool, first_index: int = 0) -> tuple[list[str], list[int]]:
    """The text of each call, some made unreadable when ``allow_broken``: ``(texts, indexes of
    the broken ones)``; a broken JSON call's arguments are replaced in ``calls``."""
    t = fmt.tools
    texts: list[str] = []
    broken: list[int] = []
    for i, (name, args) in enumerate(calls):
        if allow_broken and draw(st.booleans()) and draw(st.booleans()):
            if t.xml is not None:
                broken.append(i)
                texts.append(t.call_begin + t.header_text(name) + _broken_parameters(draw, fmt, args) + t.footer + t.call_end)
                continue
            if t.literal is not None:
                broken.append(i)
                texts.append(t.call_begin + t.header_text(name) + _broken_literal(draw, fmt, args) + t.footer + t.call_end)
                continue
            if t.python is not None:
                broken.append(i)
                texts.append(t.header_text(name) + _broken_python(draw, fmt, args))
                continue
            args = _broken(draw, args)
            if not _valid_object(args):
                broken.append(i)
            calls[i] = (name, args)
        texts.append(t.call_text(name, args, first_index + i))
    return texts, broken


@st.composite
def harmony_outputs(draw, fmt: ChatFormat, thinking: bool, allow_broken: bool = False) -> Output:
    """Harmony: one or more analysis messages (thinking), an answer on the final channel or as
    a commentary preamble, then calls, each a commentary message to=functions.NAME."""
    msgs = fmt.tools.messages
    forbidden = tuple(fmt.markers)
    start = msgs.start + msgs.role
    reasoning = None
    text = ""
    if thinking:
        parts = draw(st.lists(free_text(fmt, forbidden), min_size=1, max_size=3))
        # The output starts inside the first analysis message (the prompt opened it).
        text = parts[0] + msgs.end
        for more in parts[1:]:
            text += start + msgs.header(msgs.reasoning_channel) + more + msgs.end
        # The parser joins analysis messages with a newline.
        reasoning = "\n".join(p for p in parts if p)
    content = draw(free_text(fmt, forbidden))
    calls = draw(st.lists(st.tuples(names, arguments(fmt)), max_size=4))
    channel = draw(st.sampled_from([msgs.answer_channel, msgs.tool_channel]))
    if content.strip():
        # The first message follows the prompt's <|start|>assistant.
        head = start + msgs.header(channel) if thinking else msgs.header(channel)
        text += head + content + (msgs.end if calls else fmt.eos)
    pieces, broken = _call_texts(draw, fmt, calls, allow_broken)
    for call in pieces:
        text += call if text else call[len(start) :]
    return Output(
        text=text,
        reasoning=reasoning or None,
        content=content if content.strip() else None,  # a message's body, as written
        calls=[c for i, c in enumerate(calls) if i not in broken],
        broken=broken,
    )


@st.composite
def outputs(draw, fmt: ChatFormat, thinking: bool, allow_broken: bool = False) -> Output:
    t = fmt.tools
    if t.messages is not None:
        return draw(harmony_outputs(fmt, thinking, allow_broken))
    reasoning = None
    text = ""
    stretch = ""  # the answer's text as written up to the first markup after the reasoning
    if thinking:
        reasoning = draw(free_text(fmt, (fmt.reasoning.close, fmt.eos)))
        # (the answer's open marker after the close, where the format writes one: Kimi-K3)
        text = reasoning + fmt.reasoning.close + fmt.answer[0]
        # R1 habitually writes whitespace after </think>
        stretch = draw(st.sampled_from(["", "\n\n", " "]))
        text += stretch
    content = draw(free_text(fmt, (t.section_begin, t.call_begin, fmt.eos, *fmt.stops, t.optional_begin, fmt.reasoning.open, *fmt.framing)))
    if not thinking:
        content = content.lstrip()
    styled = xml_arguments(fmt) if t.xml else literal_arguments(fmt) if t.literal else python_arguments(fmt) if t.python else arguments(fmt)
    calls = draw(st.lists(st.tuples(python_names if t.python else names, styled), max_size=4))
    # (no marker before the calls: bare call objects, bare Python calls, xLAM's bare JSON array)
    bare = t.bare or (not t.section_begin and (t.python is not None or any(t.array)))
    if t.python is not None and not t.section_begin:
        content = content.replace("[", "")  # (bare Python calls are read after text too: "[NAME(" would be one)
    if bare:
        # With no marker before a call, an answer is either calls or text that is no call.
        content = "" if calls else ("." + content if content.lstrip().startswith(("{", "[")) else content)
        # (<|python_tag|> with nothing after it is a tool block the output ended in: cut off)
        before = draw(st.sampled_from(["", " ", "\n", t.optional_begin] if calls or content.strip() else ["", " ", "\n"]))
        text += before
        # <|python_tag|> is markup before calls; with none after it, the text it was
        stretch = "" if before == t.optional_begin and calls else stretch + before
    text += content + fmt.answer[1]  # the answer's close marker, where the format writes one
    stretch += content
    broken: list[int] = []
    if calls:
        # Kimi-K2 numbers calls across the conversation, Kimi-K3 in the message
        first_index = draw(st.integers(0, 100)) if t.call_id else t.first_index
        pieces, broken = _call_texts(draw, fmt, calls, allow_broken, first_index)
        text += t.section_around(t.separator.join(pieces))
        if (bare or any(t.array)) and broken and t.python is None:
            # A broken call has no end marker to stop at: the rest of the output is its text.
            broken = broken[:1]
            calls = calls[: broken[0]]
    text += fmt.turn_end
    return Output(
        text=text,
        reasoning=reasoning or None,
        # a stretch of nothing but whitespace between markup is framing; any other, as written
        content=stretch if stretch.strip() else None,
        calls=[c for i, c in enumerate(calls) if i not in broken],
        broken=broken,
    )


def _valid_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


def cut_points(text_len: int):
    return st.lists(st.integers(0, max(0, text_len)), max_size=30)
