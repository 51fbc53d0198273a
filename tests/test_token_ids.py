"""Token-id deltas from the real DeepSeek tokenizer, cut the ways serving engines cut them."""

import json

import pytest

from helpers import detokenize_stream, group, normalise, seq_ids, stream_events
from thinkgate import parse
from thinkgate.formats import DEEPSEEK_R1, DEEPSEEK_V3_1, GPT_OSS, KIMI_K2, MINIMAX_M2, MISTRAL, QWEN3, is_text
from thinkgate.parsing import marker_token_ids

ARGS = [
    json.dumps({"city": "São Paulo", "days": 3, "units": {"temp": "°C", "nested": [1, 2.5, None, True]}}),
    json.dumps({"code": "print('```')\n}", "note": "中文 😀 <｜"}, ensure_ascii=False),
    "{}",
]


def _output(fmt):
    t = fmt.tools
    return (
        "Let me think about São Paulo 😀.\n"
        + fmt.reasoning.close
        + "\n\nSure, calling tools.\n"
        + t.section_text([("get_weather", ARGS[0]), ("run", ARGS[1]), ("now", ARGS[2])])
    )


def _encode(tokenizer, text):
    ids = tokenizer.encode(text, add_special_tokens=False)
    assert tokenizer.decode(ids, skip_special_tokens=False, clean_up_tokenization_spaces=False) == text
    return ids


@pytest.mark.parametrize("fmt", [DEEPSEEK_R1, DEEPSEEK_V3_1, QWEN3, KIMI_K2, MISTRAL, GPT_OSS, MINIMAX_M2], ids=lambda f: f.name)
def test_every_token_chunking_gives_the_text_result(tokenizer_for, fmt):
    tokenizer = tokenizer_for(fmt.name)
    text = _output(fmt)
    ids = _encode(tokenizer, text)
    per_token = detokenize_stream(tokenizer, ids)
    assert "".join(t for t, _ in per_token) == text
    kw = dict(format=fmt, thinking=True, tokenizer=tokenizer)
    expected = parse(text, format=fmt, thinking=True, call_id=seq_ids)
    # (parameters are read back as JSON of their own spelling: compared as values; with no schema
    # and no tag to type them, each is the text written)
    untyped = fmt.tools.xml is not None and not fmt.tools.xml.typed
    as_text = lambda d: {k: v if isinstance(v, str) else json.dumps(v, ensure_ascii=False) for k, v in d.items()}  # noqa: E731
    assert [json.loads(c.arguments) for c in expected.tool_calls] == [as_text(json.loads(a)) if untyped else json.loads(a) for a in ARGS]
    assert expected.content == "\n\nSure, calling tools.\n"  # as written
    ref = None
    # one delta per call: cut before each call-begin token (a text marker: its first token)
    marker = fmt.tools.call_begin
    starts = (lambda piece, _: marker.startswith(piece.strip()) and piece.strip()) if is_text(marker) else (lambda _, ids: marker_token_ids(fmt, tokenizer)[marker] in ids)
    whole_calls = []
    for text_piece, piece_ids in per_token:
        if starts(text_piece, piece_ids) or not whole_calls:
            whole_calls.append((text_piece, list(piece_ids)))
        else:
            whole_calls[-1] = (whole_calls[-1][0] + text_piece, whole_calls[-1][1] + piece_ids)
    chunkings = {
        "one token": per_token,
        "4 tokens": group(per_token, 4),
        "7 tokens": group(per_token, 7),
        "whole calls": whole_calls,
        "whole output": [(text, ids)],
    }
    for name, deltas in chunkings.items():
        events, parser = stream_events(deltas, **kw)
        assert parser.message == expected, name
        if ref is None:
            ref = normalise(events)
        assert normalise(events) == ref, name


def test_marker_spelled_with_ordinary_tokens_is_text(tokenizer):
    fmt = DEEPSEEK_R1
    close = fmt.reasoning.close
    # "</think>" written as ordinary tokens: "</" + "think>" never merge into the special token
    spelled = tokenizer.encode("</", add_special_tokens=False) + tokenizer.encode("think>", add_special_tokens=False)
    assert marker_token_ids(fmt, tokenizer)[close] not in spelled
    before = tokenizer.encode("I could write ", add_special_tokens=False)
    after = tokenizer.encode(" here.", add_special_tokens=False)
    real_close = tokenizer.encode(close, add_special_tokens=False)
    answer = tokenizer.encode("Answer.", add_special_tokens=False)
    ids = before + spelled + after + real_close + answer
    deltas = detokenize_stream(tokenizer, ids)
    text = "".join(t for t, _ in deltas)
    assert text == "I could write " + close + " here." + close + "Answer."
    _, with_ids = stream_events(deltas, format=fmt, thinking=True, tokenizer=tokenizer)
    assert with_ids.message.reasoning_content == "I could write " + close + " here."
    assert with_ids.message.content == "Answer."
    # text alone cannot tell the two apart: the first one ends the reasoning
    assert parse(text, format=fmt, thinking=True).reasoning_content == "I could write "


def test_spelled_call_end_inside_arguments_is_string_text_with_ids(tokenizer):
    fmt = DEEPSEEK_V3_1
    t = fmt.tools
    ids = (
        tokenizer.encode(t.section_begin + t.call_begin + "f" + t.sep, add_special_tokens=False)
        + tokenizer.encode('{"s": "a<', add_special_tokens=False)
        + tokenizer.encode(t.call_end[1:] + '"}', add_special_tokens=False)
        + tokenizer.encode(t.call_end + t.section_end, add_special_tokens=False)
    )
    deltas = detokenize_stream(tokenizer, ids)
    events, parser = stream_events(group(deltas, 2), format=fmt, thinking=False, tokenizer=tokenizer)
    assert [c.arguments for c in parser.message.tool_calls] == ['{"s": "a' + t.call_end + '"}']


def test_real_marker_token_inside_a_string_ends_the_call(tokenizer):
    """Under the grammar a marker token never appears inside arguments; unconstrained, one does
    end the call (it was generated as a marker), and the broken call is kept as text."""
    fmt = DEEPSEEK_V3_1
    t = fmt.tools
    text = t.section_begin + t.call_begin + "f" + t.sep + '{"s": "a' + t.call_end + t.call_begin + "now" + t.sep + "{}" + t.call_end + t.section_end
    ids = _encode(tokenizer, text)
    _, parser = stream_events(detokenize_stream(tokenizer, ids), format=fmt, thinking=False, tokenizer=tokenizer)
    m = parser.message
    assert [(c.name, c.arguments) for c in m.tool_calls] == [("now", "{}")]
    assert "before its arguments" in m.invalid_tool_calls[0].error


def test_think_reopened_as_a_token_at_the_start(tokenizer):
    fmt = DEEPSEEK_V3_1
    text = fmt.reasoning.open + "plan" + fmt.reasoning.close + "done"
    ids = _encode(tokenizer, text)
    _, parser = stream_events(detokenize_stream(tokenizer, ids), format=fmt, thinking="auto", tokenizer=tokenizer)
    assert (parser.message.reasoning_content, parser.message.content) == ("plan", "done")
    spelled = tokenizer.encode("<th", add_special_tokens=False) + tokenizer.encode("ink>plan", add_special_tokens=False)
    _, parser = stream_events(detokenize_stream(tokenizer, spelled), format=fmt, thinking="auto", tokenizer=tokenizer)
    assert parser.message.content == fmt.reasoning.open + "plan"


def test_marker_ids_come_from_the_tokenizer(tokenizer):
    ids = marker_token_ids(DEEPSEEK_R1, tokenizer)
    t = DEEPSEEK_R1.tools
    assert ids[t.call_begin] == tokenizer.convert_tokens_to_ids(t.call_begin)
    assert set(ids) == set(DEEPSEEK_R1.markers)
    # a mapping works in place of a tokenizer
    mapping = {m: i for m, i in ids.items()}
    assert marker_token_ids(DEEPSEEK_R1, mapping) == ids
