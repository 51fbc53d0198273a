from ag_ui.core import EventType

from helpers import seq_ids, stream_events
from thinkgate import AGUIRenderer, StreamParser
from thinkgate.formats import DEEPSEEK_R1
from thinkgate.parsing import chunk, render_deltas

T = DEEPSEEK_R1.tools
CLOSE = DEEPSEEK_R1.reasoning.close


def _agui(text, chunks=1, **kw):
    events, _ = stream_events([text[i : i + chunks] for i in range(0, len(text), chunks)], **kw)
    return AGUIRenderer(message_id="m1").render(events)


def test_agui_event_sequence_for_reasoning_text_and_calls():
    text = "think" + CLOSE + "Hello " + T.section_text([("now", '{"tz": "UTC"}')])
    out = _agui(text, chunks=3)
    types = [e.type for e in out]
    assert types[:2] == [EventType.REASONING_START, EventType.REASONING_MESSAGE_START]
    assert types.index(EventType.REASONING_END) < types.index(EventType.TEXT_MESSAGE_START)
    assert types[-1] == EventType.TEXT_MESSAGE_END
    start = next(e for e in out if e.type == EventType.TOOL_CALL_START)
    assert (start.tool_call_id, start.tool_call_name, start.parent_message_id) == ("call_0", "now", "m1")
    args = "".join(e.delta for e in out if e.type == EventType.TOOL_CALL_ARGS)
    assert args == '{"tz": "UTC"}'
    end = next(e for e in out if e.type == EventType.TOOL_CALL_END)
    assert end.tool_call_id == "call_0" and end.metadata is None
    reasoning = "".join(e.delta for e in out if e.type == EventType.REASONING_MESSAGE_CONTENT)
    assert reasoning == "think"
    # every event serialises as the protocol says
    for e in out:
        e.model_dump_json(by_alias=True)


def test_agui_closes_a_started_call_that_turns_out_invalid():
    text = "t" + CLOSE + T.section_begin + T.call_begin + T.header_text("now") + '{"a": nope}' + T.footer + T.call_end
    out = _agui(text)
    ends = [e for e in out if e.type == EventType.TOOL_CALL_END]
    assert len(ends) == 1 and ends[0].metadata["invalid"] is True
    # its text is the invalid call's (the message's invalid_tool_calls), not answer text as well
    assert not [e for e in out if e.type == EventType.TEXT_MESSAGE_CONTENT]


def test_openai_deltas_merge_by_kind_and_call():
    p = StreamParser(call_id=seq_ids)
    text = "ab" + CLOSE + "cd" + T.section_text([("f", '{"x": 1}'), ("g", "{}")])
    deltas = p.feed(text) + p.finish()
    assert deltas == [
        {"reasoning_content": "ab"},
        {"content": "cd"},
        {"tool_calls": [{"index": 0, "id": "call_0", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}}]},
        {"tool_calls": [{"index": 1, "id": "call_1", "type": "function", "function": {"name": "g", "arguments": "{}"}}]},
    ]
    assert p.finish_reason == "tool_calls"


def test_later_argument_deltas_carry_only_index_and_arguments():
    p = StreamParser(call_id=seq_ids)
    head = "x" + CLOSE + T.section_begin + T.call_begin + T.header_text("f") + '{"a"'
    p.feed(head)
    assert p.feed(': 1') == [{"tool_calls": [{"index": 0, "function": {"arguments": ": 1"}}]}]


def test_chunk_wraps_a_delta():
    c = chunk({"content": "hi"}, finish_reason="stop", model="m", id="x", created=5, error={"message": "e"})
    assert c == {
        "id": "x",
        "object": "chat.completion.chunk",
        "created": 5,
        "model": "m",
        "choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": "stop", "error": {"message": "e"}}],
    }
    assert chunk({})["id"].startswith("chatcmpl-")


def test_render_deltas_both_reasoning_fields():
    from thinkgate.parsing import ReasoningDelta

    assert render_deltas([ReasoningDelta("a")], "both") == [{"reasoning_content": "a", "reasoning": "a"}]


BROKEN_THEN_GOOD = "r" + CLOSE + "Let me look.\n" + T.section_begin + T.call_text("get_weather", '{"city": Paris}') + T.call_text("now", "{}") + T.section_end


def _streamed(text, size, **kw):
    p = StreamParser(call_id=seq_ids, **kw)
    deltas = [d for i in range(0, len(text), size) for d in p.feed(text[i : i + size])] + p.finish()
    return deltas, p


def test_a_stream_rebuilds_the_message_even_when_a_streamed_call_breaks():
    # Issue 15, points 6 and 8: the broken call's start was streamed under index 0; the stream then
    # names index 0 in invalid_tool_calls (an extension, as in the message), and never repeats its
    # text as content, so a client folding the deltas gets the message: same calls in the same
    # order, same content, same invalid calls.
    from thinkgate.parsing import accumulate

    for size in (1, 3, 7, len(BROKEN_THEN_GOOD)):
        deltas, p = _streamed(BROKEN_THEN_GOOD, size)
        message = p.message.to_openai()
        assert accumulate(deltas) == message
        assert message["content"] == "Let me look.\n" and [c["function"]["name"] for c in message["tool_calls"]] == ["now"]
        [invalid] = message["invalid_tool_calls"]
        assert invalid["index"] == 0 and invalid["name"] == "get_weather" and "not valid JSON" in invalid["error"]
        assert [tc["index"] for d in deltas for tc in d.get("tool_calls", ()) if "id" in tc] == [0, 1]
        assert p.finish_reason == "tool_calls"
    # cut off inside the only call: no valid call remains, so finish_reason is length, not tool_calls
    cut = BROKEN_THEN_GOOD[: BROKEN_THEN_GOOD.index("Paris")]
    deltas, p = _streamed(cut, 4)
    assert accumulate(deltas) == p.message.to_openai() and p.finish_reason == "length"
    assert p.message.invalid_tool_calls[0].cut_off


def test_the_content_policy_puts_the_text_in_content_and_the_stream_shows_what_had_started():
    # The policy of the engine plugins (their responses have no invalid_tool_calls): the text is
    # content, once; a client that saw the call's start streamed holds that partial call (the
    # difference the README states).
    from thinkgate.parsing import accumulate

    deltas, p = _streamed(BROKEN_THEN_GOOD, 5, on_invalid_call="content")
    message = p.message.to_openai()
    bad = T.call_text("get_weather", '{"city": Paris}')
    assert message["content"] == "Let me look.\n" + bad and "invalid_tool_calls" not in message
    rebuilt = accumulate(deltas)
    assert rebuilt["content"] == message["content"]
    assert [c["function"]["name"] for c in rebuilt["tool_calls"]] == ["get_weather", "now"]
