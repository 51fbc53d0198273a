"""Invariants over generated outputs: split invariance, nothing lost, never raises."""

import dataclasses
import os
from collections import Counter

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from helpers import cuts, normalise, seq_ids, stream_deltas, stream_events
from format_matrix import formats_under_test
from outputs import cut_points, outputs
from thinkgate import parse
from thinkgate.formats import DEEPSEEK_R1, JsonCalls, PythonicCalls, Text, get_format, is_text, names, spellings
from thinkgate.parsing import ToolCallEnd, accumulate

FORMATS = [get_format(n) for n in formats_under_test()]  # one format of each kind (tests/format_matrix.py)


def _tight(marker):
    return Text(marker.rstrip(), marker.read_also, marker.joints) if is_text(marker) else marker


def tight(fmt):
    """``fmt`` as models write it with none of the template's whitespace between its text
    markers (``<｜DSML｜invoke name="f"><｜DSML｜parameter …>…</｜DSML｜parameter></｜DSML｜invoke>``):
    outputs are written in it and read with ``fmt``, which must read them alike."""
    t = fmt.tools
    tools = dataclasses.replace(
        t,
        section=tuple(map(_tight, t.section)),
        call=tuple(map(_tight, t.call)),
        header="".join(t.header.split()),
        arguments=dataclasses.replace(t.xml, after="") if t.xml is not None else t.arguments,
    )
    return dataclasses.replace(fmt, name=fmt.name + "_tight", tools=tools)


# (the format an output is read in, the format it is written in): each format as its template
# writes it, and each format whose tool markers are text also with no whitespace between them
WRITTEN = [(f, f) for f in FORMATS] + [(f, tight(f)) for f in FORMATS if f.tools.trigger and is_text(f.tools.trigger)]
WRITTEN_IDS = [w.name for _, w in WRITTEN]
# Every format's markers and parameter tags, for text that mixes them all.
MARKUP = sorted({m for f in FORMATS for m in (*f.markers, *(f.tools.xml.markers if f.tools.xml else ()))})
# THINKGATE_EXAMPLES=5000 for a deeper hunt than the default run.
EXAMPLES = int(os.environ.get("THINKGATE_EXAMPLES", "40"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def readable(fmt, written, out):
    """Whether the generated output holds a text marker only where it is markup: the generator
    keeps each marker of ``written`` out of free text and values, but ``fmt`` reads a text
    marker without its padding too (``</invoke>`` for ``</invoke>\\n``)."""
    if written is not fmt:
        # written without padding: the generator kept the tool markers' spellings out, though
        # not the reasoning's (``tight`` leaves those as they are)
        padded = [m for m in (fmt.reasoning.open, fmt.reasoning.close) if is_text(m) and m != m.rstrip()]
        return all(out.text.count(m.rstrip()) == out.text.count(m) for m in padded)
    padded = [m for m in fmt.text_markers if m != m.rstrip()]
    return all(out.text.count(m.rstrip()) == out.text.count(m) for m in padded)


def kept_characters(fmt, message, events, written=None):
    """Every non-space character the parse kept, markers aside: reasoning, content, each
    complete call written out again (header text, arguments, footer) and each invalid call's text
    (each character in one of these places only: a count that doubles one fails)."""
    t = fmt.tools
    parts = [message.reasoning_content or "", message.content or ""]
    parts += [c.text for c in message.invalid_tool_calls]
    for ev in events:
        if isinstance(ev, ToolCallEnd):
            # A format whose id is its header (Kimi-K2) keeps the call's index there.
            # (Kimi-K3 numbers a message's calls: its header keeps the call's number)
            index = int(ev.id.rsplit(":", 1)[1]) if t.call_id else ev.index + t.first_index
            parts.append(t.call_text(ev.name, ev.arguments, index))
    # Part by part: joined, reasoning "</think" and content ">" would spell a marker again.
    return sum((_visible(p, written or fmt) for p in parts), Counter())


def _structure(fmt):
    """The markup that carries no characters of its own: the markers, the separator between
    calls that have no markers (Llama's ";"), and for a format of channel messages (harmony) the
    role and the headers of the channels."""
    msgs = fmt.tools.messages
    if isinstance(fmt.tools.layout, (JsonCalls, PythonicCalls)):
        return (*fmt.markers, *(s.strip() for s in (fmt.tools.separator, *fmt.tools.array) if s.strip()))
    if msgs is None:
        return fmt.markers
    channels = (msgs.reasoning_channel, msgs.answer_channel, msgs.tool_channel)
    return (*fmt.markers, msgs.start + msgs.role, *(msgs.header(c) for c in channels))


def _visible(text, fmt):
    # a text marker is read without its padding too
    structure = {*_structure(fmt), *(m.rstrip() for m in fmt.text_markers)}
    for m in sorted(structure, key=len, reverse=True):
        text = text.replace(m, "")
    return Counter(c for c in text if not c.isspace())


@pytest.mark.parametrize(("fmt", "written"), WRITTEN, ids=WRITTEN_IDS)
@SETTINGS
@given(data=st.data())
def test_generated_outputs_parse_to_what_was_written(fmt, written, data):
    thinking = data.draw(st.booleans()) if fmt is not DEEPSEEK_R1 else True
    thinking = thinking and fmt.reasoning.present
    out = data.draw(outputs(written, thinking))
    assume(readable(fmt, written, out))
    m = parse(out.text, format=fmt, thinking=thinking, call_id=seq_ids)
    assert m.reasoning_content == out.reasoning
    assert m.content == out.content
    assert [(c.name, c.arguments) for c in m.tool_calls] == out.calls
    assert m.invalid_tool_calls == []
    assert m.finish_reason == ("tool_calls" if out.calls else "stop")


@pytest.mark.parametrize(("fmt", "written"), WRITTEN, ids=WRITTEN_IDS)
@SETTINGS
@given(data=st.data())
def test_every_chunking_gives_the_same_result(fmt, written, data):
    thinking = data.draw(st.sampled_from([True, False, "auto"] if fmt.reasoning.present else [False, "auto"]))
    out = data.draw(outputs(written, thinking is True, allow_broken=True))
    points = data.draw(cut_points(len(out.text)))
    kw = dict(format=fmt, thinking=thinking)
    whole_events, whole = stream_events([out.text], **kw)
    split_events, split = stream_events(cuts(out.text, points), **kw)
    assert normalise(split_events) == normalise(whole_events)
    assert split.message == whole.message
    if not whole.message.invalid_tool_calls:
        deltas, _ = stream_deltas(cuts(out.text, points), **kw)
        assert accumulate(deltas) == whole.message.to_openai()


@pytest.mark.parametrize(("fmt", "written"), WRITTEN, ids=WRITTEN_IDS)
@SETTINGS
@given(data=st.data())
def test_nothing_is_lost_and_broken_calls_spare_the_others(fmt, written, data):
    thinking = fmt.reasoning.present
    out = data.draw(outputs(written, thinking, allow_broken=True))
    assume(readable(fmt, written, out))
    events, parser = stream_events(cuts(out.text, data.draw(cut_points(len(out.text)))), format=fmt, thinking=thinking)
    m = parser.message
    assert kept_characters(fmt, m, events, written) == _visible(out.text, written)
    assert [(c.name, c.arguments) for c in m.tool_calls] == out.calls
    # Once a call's JSON is broken its string state is unknown, so marker text inside it may
    # split it in two; the calls around it are untouched.
    assert len(m.invalid_tool_calls) >= len(out.broken)
    assert not out.broken or m.invalid_tool_calls


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.name)
@settings(max_examples=2 * EXAMPLES, deadline=None)
@given(
    pieces=st.lists(
        st.one_of(
            st.text(max_size=6),
            st.sampled_from(MARKUP + ["<function=", "</function>", "```json", "{", "}", '"', "\\", "function", "\n", '"name"', '"arguments"', '"parameters"', ":", "; ", " [", "]", ", "]),
        ),
        max_size=40,
    ),
    thinking=st.sampled_from([True, False, "auto"]),
    policy=st.sampled_from(["report", "content", "drop", "error"]),
    recover=st.booleans(),
    data=st.data(),
)
def test_arbitrary_text_never_raises_and_is_split_invariant(fmt, pieces, thinking, policy, recover, data):
    text = "".join(pieces)
    thinking = thinking if fmt.reasoning.present else False
    kw = dict(format=fmt, thinking=thinking, on_invalid_call=policy, recover_calls_in_reasoning=recover)
    whole_events, whole = stream_events([text], **kw)
    split_events, split = stream_events(cuts(text, data.draw(cut_points(len(text)))), **kw)
    assert normalise(split_events) == normalise(whole_events)
    assert split.message == whole.message
    for call in whole.message.tool_calls:
        call.parsed_arguments()  # every complete call holds valid JSON
    if policy in ("report", "content"):
        assert kept_characters(fmt, whole.message, whole_events) == _visible(text, fmt) or _footer_slack(fmt, text, whole)


def _footer_slack(fmt, text, parser):
    """The only characters the parser may drop besides markers and whitespace: a footer the
    model began and did not finish (``\\n``` `` before the end marker)."""
    lost = _visible(text, fmt) - kept_characters(fmt, parser.message, [])
    return set(lost) <= set(fmt.tools.footer) and not (kept_characters(fmt, parser.message, []) - _visible(text, fmt) - Counter())
