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
    text_content = "".join(e.delta for e in out if e.type == EventType.TEXT_MESSAGE_CONTENT)
    assert text_content.startswith(T.call_begin)


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
