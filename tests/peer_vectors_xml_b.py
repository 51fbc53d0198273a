"""The peers' own test vectors for the families of issue 38's group xml_b, as data.

longcat (Meituan LongCat-Flash: Hermes' JSON call objects in ``<longcat_tool_call>`` tags), trinity
(Arcee Trinity: Qwen2.5's ``<tool_call>`` JSON calls, ``<think>`` reasoning, calls written while
thinking), plamo3 (PFN PLaMo 3: ``<|plamo:begin_tool_requests:plamo|>`` requests of a name and JSON
arguments, ``<|plamo:begin_think:plamo|>`` reasoning) and functionary_v3_1 (MeetKai functionary
v3.1: ``<function=NAME>{…}</function>``). Each vector is a model output from a peer's test (vLLM's
tests/tool_parsers and tests/parser/engine, SGLang's test/registered/unit/function_call,
llama.cpp's tests/test-chat.cpp), what that test expects of it, the tools the test gives, the
chunks the test streams it in, and its origin (repository, file, test, commit). They are facts
lifted from the peers' tests, not their code; the conventions are those of
``peer_vectors_newest.py`` and ``peer_vectors_pythonic.py``:

* ``content=None``: the peer expects no content (``None`` or ``""``); ``ANY``: the test does not
  look at it; ``invalid=ANY``: the test does not say whether a call it does not return counts as
  a broken one.
* ``why``: thinkgate reads the output differently on purpose (verbatim text, reasoning kept apart
  from the answer, a cut or broken call reported with its text rather than presented as a call);
  the vector then holds thinkgate's reading.
* vLLM's common tool-parser tests (``tests/tool_parsers/common_tests.py``, run by the LongCat test
  with streaming on and off) stream the output in the deltas of a real tokenizer; those deltas are
  not recorded (``chunks=None``), the ``chars`` path reads them finer. The common tests check only
  some of the calls' fields: :data:`ARGS_AS_WRITTEN` marks those whose test checks only names or
  counts (the vector's calls carry the arguments as written).
* The vLLM parser-engine tests for PLaMo 3 stream token by token through a mock tokenizer whose
  tags are several ids each; ``chunks=None`` there too. vLLM's tool-parser-only tests see no
  reasoning parser and are read with ``thinking=False``; the engine's tests think by default
  (``thinking=None``: the format's own default, inside the reasoning).
* SGLang origins marked ``(stored version …, commit not reported)`` come from a stored version of a
  file whose commit the index does not give.
* llama.cpp's PEG tests (test-chat.cpp @0042e207) feed every prefix of the output, a character at
  a time (``chunks=1``).
"""

from __future__ import annotations

import json
from typing import Any

from peer_vectors_newest import ANY, Vector

VECTORS: dict[str, Vector] = {}
ARGS_AS_WRITTEN: set[str] = set()  # the test checks only names or counts: the arguments are the call's as written


def add(v: Vector, *, written: bool = False) -> None:
    assert v.id not in VECTORS, v.id
    assert v.id.startswith(v.fmt + "/"), v.id
    if isinstance(v.chunks, list):
        assert "".join(v.chunks) == v.text, v.id
    VECTORS[v.id] = v
    if written:
        ARGS_AS_WRITTEN.add(v.id)


def tool(name: str, parameters: dict) -> dict:
    """A function tool whose parameters are exactly ``parameters`` (as the peer's test gives them)."""
    return {"type": "function", "function": {"name": name, "parameters": parameters}}


REPORTED = "a call that cannot be read is reported invalid with its text, never repaired nor dropped in silence"
UNCLOSED = ("arguments whose JSON closed make a complete call though the output ended before the tags after them (vLLM's parser "
            "engine reads it so too: test_complete_arguments_survive_missing_closers; this older parser's test rejects it)")
CUT = ("the output stops inside a call: the cut call is reported invalid with its text (finish_reason length), not presented as a "
       "complete call")
VERBATIM = "verbatim: every character of the output ends up in the message; text after the end-of-turn marker stays the answer's"

# ============================================================================================
# longcat: vLLM tests/tool_parsers/test_longcat_tool_parser.py, the common tests of
# tests/tool_parsers/common_tests.py (ToolParserTests) on its ToolParserTestConfig; each test runs
# streaming (True) and not (False)
# ============================================================================================
VLC = "vllm-project/vllm tests/tool_parsers/test_longcat_tool_parser.py @41c5903d049b80b83a6e570f52f0f55e31316e49::TestLongCatToolParser::"
LC_BEGIN, LC_END = "<longcat_tool_call>", "</longcat_tool_call>"
LC_WEATHER = LC_BEGIN + '{"name": "get_weather", "arguments": {"city": "Tokyo"}}' + LC_END
LC_PARALLEL = LC_WEATHER + "\n" + LC_BEGIN + '{"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}' + LC_END
LC_TYPES = LC_BEGIN + """{
  "name": "test_function",
  "arguments": {
    "string_field": "hello",
    "int_field": 42,
    "float_field": 3.14,
    "bool_field": true,
    "null_field": null,
    "array_field": ["a", "b", "c"],
    "object_field": {"nested": "value"},
    "empty_array": [],
    "empty_object": {}
  }
}""" + LC_END
LC_TYPES_ARGS = {"string_field": "hello", "int_field": 42, "float_field": 3.14, "bool_field": True, "null_field": None,
                 "array_field": ["a", "b", "c"], "object_field": {"nested": "value"}, "empty_array": [], "empty_object": {}}
LC_EMPTY = LC_BEGIN + '{"name": "refresh", "arguments": {}}' + LC_END
LC_SURROUNDED = "Let me check the weather for you.\n" + LC_WEATHER + "\nHere is the result."
LC_ESCAPED = LC_BEGIN + """{
  "name": "test_function",
  "arguments": {
    "quoted": "He said \\"hello\\"",
    "path": "C:\\\\Users\\\\file.txt",
    "newline": "line1\\nline2",
    "unicode": "emoji: 🎉"
  }
}""" + LC_END
LC_MALFORMED = (
    LC_BEGIN + '{"name": "func", "arguments": {',
    LC_BEGIN + '{"name": "func", "arguments": "not a dict"}' + LC_END,
    "Some text with " + LC_BEGIN + "invalid json",
)


def vlc(test: str, text: str, calls: Any, **kw: Any) -> None:
    add(Vector(f"longcat/vllm/longcat::{test}", "longcat", text, calls, origin=VLC + test.split("[")[0], **kw),
        written=test.startswith(LC_CHECKS_LESS))


# the common tests that check only names, counts, types or that some argument is there
LC_CHECKS_LESS = ("test_parallel_tool_calls", "test_surrounding_text", "test_escaped_strings", "test_various_data_types", "test_streaming_split")


LC_NO_CALLS = "This is a regular response without any tool calls."
for mode in ("True", "False"):
    vlc(f"test_no_tool_calls[{mode}]", LC_NO_CALLS, [], content=LC_NO_CALLS)
    vlc(f"test_single_tool_call_simple_args[{mode}]", LC_WEATHER, [("get_weather", {"city": "Tokyo"})])
    vlc(f"test_parallel_tool_calls[{mode}]", LC_PARALLEL, [("get_weather", {"city": "Tokyo"}), ("get_time", {"timezone": "Asia/Tokyo"})])
    vlc(f"test_various_data_types[{mode}]", LC_TYPES, [("test_function", LC_TYPES_ARGS)])
    vlc(f"test_empty_arguments[{mode}]", LC_EMPTY, [("refresh", {})])
    vlc(f"test_surrounding_text[{mode}]", LC_SURROUNDED, [("get_weather", {"city": "Tokyo"})])
    vlc(f"test_escaped_strings[{mode}]", LC_ESCAPED,
        [("test_function", {"quoted": 'He said "hello"', "path": "C:\\Users\\file.txt", "newline": "line1\nline2", "unicode": "emoji: 🎉"})])
    # test_malformed_input only asserts that no input raises; thinkgate's reading of each is recorded
    for k, text in enumerate(LC_MALFORMED):
        vlc(f"test_malformed_input[{mode}]/{k}", text, [], content=ANY, invalid=ANY)
vlc("test_streaming_reconstruction", LC_WEATHER, [("get_weather", {"city": "Tokyo"})], chunks=1)
for label, text, calls in (("single", LC_WEATHER, [("get_weather", {"city": "Tokyo"})]),
                           ("parallel", LC_PARALLEL, [("get_weather", {"city": "Tokyo"}), ("get_time", {"timezone": "Asia/Tokyo"})])):
    vlc(f"test_streaming_split_invariance[{label}]", text, calls, chunks=3)

# ============================================================================================
# trinity: SGLang test/registered/unit/function_call/test_trinity_detector.py. SGLang's Trinity
# detector is Qwen2.5's with the <think> tags stripped out: the tests count the reasoning as
# normal text. thinkgate reads the reasoning as reasoning (the format's default start: the answer,
# unless the model opens <think>), so those vectors hold thinkgate's reading.
# ============================================================================================
STR = "sgl-project/sglang test/registered/unit/function_call/test_trinity_detector.py @2f4ea05fd5d4d60222cfc25b1cced3c9a3e249fb::TestTrinityDetector::"
STR_OLD = ("sgl-project/sglang test/registered/unit/function_call/test_trinity_detector.py (stored version 67176538468, commit not "
           "reported)::TestTrinityDetector::")
CITY = tool("get_weather", {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}}, "required": ["city"]})
SEARCH = tool("search", {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]})
SPLIT_REASONING = ("reasoning kept apart: what the model wrote inside <think> is the message's reasoning, not its content (SGLang's "
                   "tool detector strips the tags and counts it as normal text)")


def strinity(test: str, text: str, calls: Any, origin: str = STR, **kw: Any) -> None:
    add(Vector(f"trinity/sglang/trinity_detector::{test}", "trinity", text, calls, thinking=None,
               tools=[CITY] if origin == STR else [CITY, SEARCH], origin=origin + test.split("/")[0], **kw))


strinity("test_streaming_whole_think_tag", "<think>reasoning</think>hello", [], content="hello", reasoning="reasoning",
         chunks=["<think>reasoning</think>hello"], why=SPLIT_REASONING)
strinity("test_streaming_split_think_tag", "<think>reasoning</think>hello", [], content="hello", reasoning="reasoning",
         chunks=["<thi", "nk>reasoning</thi", "nk>hello"], why=SPLIT_REASONING)
strinity("test_streaming_char_by_char", "<think>abc</think>hi", [], content="hi", reasoning="abc", chunks=1, why=SPLIT_REASONING)
strinity("test_streaming_tag_lookalike_not_eaten", "<thing>data", [], content="<thing>data", chunks=["<thi", "ng>data"])
TR_INSIDE = ["<thi", 'nk><tool_call>\n{"name": "get_weather", ', '"arguments": {"city": "Paris"}}\n</tool_call></thi', "nk>"]
strinity("test_streaming_tool_call_inside_think_split", "".join(TR_INSIDE), [("get_weather", {"city": "Paris"})], chunks=TR_INSIDE)


def tcall(name: str, args: dict) -> str:
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": args}) + "\n</tool_call>"


strinity("test_parse_tool_call_after_think", "<think>checking weather</think>" + tcall("get_weather", {"city": "Tokyo"}),
         [("get_weather", {"city": "Tokyo"})], origin=STR_OLD, content=None, reasoning="checking weather")
strinity("test_parse_tool_call_inside_think", "<think>" + tcall("search", {"query": "ramen"}) + "</think>", [("search", {"query": "ramen"})],
         origin=STR_OLD)
strinity("test_parse_multiple_tool_calls", "<think>plan</think>" + tcall("get_weather", {"city": "Beijing"}) + "\n" + tcall("search", {"query": "food"}),
         [("get_weather", {"city": "Beijing"}), ("search", {"query": "food"})], origin=STR_OLD, reasoning="plan")
strinity("test_parse_no_tool_call_strips_think", "<think>internal reasoning</think> The weather is nice.", [], origin=STR_OLD,
         content=" The weather is nice.", reasoning="internal reasoning")
TR_THEN = ["<think>let me check</think>", '<tool_call>\n{"name": "get_weather", ', '"arguments": {"city": "Paris"}}\n</tool_call>']
strinity("test_streaming_think_then_tool_call", "".join(TR_THEN), [("get_weather", {"city": "Paris"})], origin=STR_OLD, chunks=TR_THEN,
         content=None, reasoning="let me check")
strinity("test_streaming_reasoning_only_yields_normal_text", "<think>thinking out loud</think>", [], origin=STR_OLD, content=None,
         reasoning="thinking out loud", why=SPLIT_REASONING)

# ============================================================================================
# plamo3: vLLM tests/tool_parsers/test_plamo3_tool_parser.py (the tool parser alone: no reasoning,
# thinking=False) and tests/parser/engine/test_plamo3.py (the parser engine, reasoning on by default)
# ============================================================================================
P_BEGIN, P_END, P_CLOSE = "<|plamo:begin_", "<|plamo:end_", ":plamo|>"
P_REQS, P_REQS_END = P_BEGIN + "tool_requests" + P_CLOSE, P_END + "tool_requests" + P_CLOSE
P_REQ, P_REQ_END = P_BEGIN + "tool_request" + P_CLOSE, P_END + "tool_request" + P_CLOSE
P_NAME, P_NAME_END = P_BEGIN + "tool_name" + P_CLOSE, P_END + "tool_name" + P_CLOSE
P_ARGS = P_BEGIN + "tool_arguments" + P_CLOSE + "<|plamo:constrain|>json<|plamo:msg|>"
P_ARGS_END = P_END + "tool_arguments" + P_CLOSE
P_THINK, P_THINK_END = P_BEGIN + "think" + P_CLOSE, P_END + "think" + P_CLOSE
EOT = "<|plamo:tag|>"


def p_header(name: str = "weather") -> str:
    return P_REQ + P_NAME + name + P_NAME_END + P_ARGS


def p_call(name: str, arguments: str) -> str:
    return p_header(name) + arguments + P_ARGS_END + P_REQ_END


def p_requests(*calls: str) -> str:
    return P_REQS + "".join(calls) + P_REQS_END + EOT


VPL = "vllm-project/vllm tests/tool_parsers/test_plamo3_tool_parser.py @952ecbf0902ba70f3f447d61446280f5febcc4b0::"
EPL = "vllm-project/vllm tests/parser/engine/test_plamo3.py @146ecad76162aaab06f0fb7bedd197059d53f91f::"


def vpl(test: str, text: str, calls: Any, **kw: Any) -> None:
    add(Vector(f"plamo3/vllm/plamo3_tool_parser::{test}", "plamo3", text, calls, origin=VPL + test.split("[")[0], **kw))


def epl(test: str, text: str, calls: Any, **kw: Any) -> None:
    kw.setdefault("thinking", None)
    add(Vector(f"plamo3/vllm-engine/plamo3::{test}", "plamo3", text, calls, origin=EPL + test.split("[")[0], **kw))


AFTER_EOT = VERBATIM + " (the engine stops the generation at <|plamo:tag|>; vLLM's test drops what follows it)"
vpl("test_extract_tool_calls[plain]", "Regular response", [], content="Regular response")
vpl("test_extract_tool_calls[eot]", f"Regular response{EOT}ignored", [], content="Regular responseignored", why=AFTER_EOT)
vpl("test_extract_tool_calls[partial_marker]", "Answer<|plamo:begin_", [], content="Answer")
vpl("test_extract_tool_calls[content_and_call]", "Checking the weather." + p_requests(p_call("get_weather", '{"city": "Tokyo"}')),
    [("get_weather", {"city": "Tokyo"})], content="Checking the weather.")
vpl("test_extract_tool_calls[two_calls]", p_requests(p_call("echo", '{"text": "hi"}'), p_call("sum", '{"a": 1, "b": 2}')),
    [("echo", {"text": "hi"}), ("sum", {"a": 1, "b": 2})], content=None)
# (the requests the test rejects, cut before their arguments, thinkgate reports invalid with their text: invalid=ANY)
P_NAME_PREFIX = P_REQ + P_NAME + "broken"
P_NAMED = P_NAME_PREFIX + P_NAME_END
P_ARGS_PREFIX = P_NAMED + P_ARGS + '{"a": 1}'
for k, (rest, calls, invalid, why) in enumerate((
    ("", [], ANY, ""),
    (P_REQ, [], ANY, ""),
    (P_NAME_PREFIX, [], ANY, ""),
    (P_NAMED, [], ANY, ""),
    (P_ARGS_PREFIX, [("broken", {"a": 1})], 0, UNCLOSED),
    (P_ARGS_PREFIX + P_ARGS_END, [("broken", {"a": 1})], 0, UNCLOSED),
    (p_call("broken", '{"a": 1}'), [("broken", {"a": 1})], 0, UNCLOSED),
)):
    vpl(f"test_extract_tool_calls_rejects_incomplete_request[{k}]", "Before tools." + P_REQS + rest, calls, content="Before tools.",
        invalid=invalid, why=why)
vpl("test_streaming_plain_content[whole]", "Regular response", [], content="Regular response", chunks=["Regular response"])
vpl("test_streaming_plain_content[eot]", f"Regular response{EOT}ignoredlater", [], content="Regular responseignoredlater",
    chunks=[f"Regular response{EOT}ignored", "later"], why=AFTER_EOT)
vpl("test_streaming_delta_messages[text]", "first second", [], content="first second", chunks=["first ", "second"])
vpl("test_streaming_delta_messages[eot_first]", f"{EOT}ignored", [], content="ignored", chunks=[EOT, "ignored"], why=AFTER_EOT)
PL_TWO = "Before tools." + p_requests(p_call("echo", '{"text": "hi"}'), p_call("sum", '{"a": 1, "b": 2}'))
vpl("test_streaming_delta_messages[two_calls]", PL_TWO, [("echo", {"text": "hi"}), ("sum", {"a": 1, "b": 2})], content="Before tools.",
    chunks=[PL_TWO])
PL_STEPS = [P_REQS + p_call("echo", '{"text": "hi"}'), p_call("sum", '{"a": 1}')]
vpl("test_streaming_delta_messages[calls_in_steps]", "".join(PL_STEPS), [("echo", {"text": "hi"}), ("sum", {"a": 1})], content=None,
    chunks=PL_STEPS)
PL_CONTENT_THEN = ["Checking the weather." + P_REQS, P_REQ + P_NAME + "get_weather" + P_NAME_END + P_ARGS + '{"city": "Tokyo"',
                   "}" + P_ARGS_END + P_REQ_END + P_REQS_END + EOT]
vpl("test_streaming_content_then_tool_call", "".join(PL_CONTENT_THEN), [("get_weather", {"city": "Tokyo"})], content="Checking the weather.",
    chunks=PL_CONTENT_THEN)
PL_FRAGMENTED = ["Before tools." + P_REQS[:-1], P_REQS[-1:] + P_REQ + P_NAME + "sum" + P_NAME_END + P_ARGS + '{"a": 1}' + P_ARGS_END[:-1],
                 P_ARGS_END[-1:] + P_REQ_END + P_REQS_END + EOT]
vpl("test_streaming_holds_fragmented_delimiters", "".join(PL_FRAGMENTED), [("sum", {"a": 1})], content="Before tools.", chunks=PL_FRAGMENTED)
P_SUM_PREFIX = P_REQ + P_NAME + "sum"
P_SUM_NAMED = P_SUM_PREFIX + P_NAME_END
P_SUM_ARGS = P_SUM_NAMED + P_ARGS + '{"a": 1}'
STREAMED_CUT = (CUT + " (its header never reached the arguments, so no call began; vLLM returns the name with empty arguments)")
for k, (rest, calls, invalid, why) in enumerate((
    ("", [], ANY, ""),
    (P_REQ, [], ANY, ""),
    (P_SUM_PREFIX, [], ANY, ""),
    (P_SUM_NAMED, [], 1, STREAMED_CUT),
    (P_SUM_ARGS, [("sum", {"a": 1})], 0, ""),
    (P_SUM_ARGS + P_ARGS_END, [("sum", {"a": 1})], 0, ""),
    (p_call("sum", '{"a": 1}'), [("sum", {"a": 1})], 0, ""),
    (p_call("sum", '{"a": 1}') + P_REQS_END, [("sum", {"a": 1})], 0, ""),
)):
    text = "Before tools." + P_REQS + rest
    vpl(f"test_streaming_handles_incomplete_request_boundaries[{k}]", text, calls, content="Before tools.", invalid=invalid, chunks=[text], why=why)

# the parser engine's tests (test_plamo3.py): the mock tokenizer spells each tag in several ids
for thinking in (False, True):
    for with_markers in (False, True):
        text = P_THINK + "Reasoning." + P_THINK_END + "Answer." if with_markers else "Answer."
        if thinking:
            reasoning, content = ("Reasoning.", "Answer.") if with_markers else ("Answer.", None)
        else:
            reasoning, content = None, text
        epl(f"test_reasoning_mode[{with_markers}-{thinking}]", text, [], thinking=thinking, reasoning=reasoning, content=content)
P_HEAD = P_THINK + "Reasoning. " + P_THINK_END + "Before tools. " + P_REQS + p_header() + '{"city":"東京"}'
for closing, calls, invalid, why in (
    ("", [("weather", {"city": "東京"})], 0, ""),
    (P_ARGS_END + P_REQ_END, [("weather", {"city": "東京"})], 0, ""),
    (P_ARGS_END + P_REQ_END + P_REQS_END + EOT, [("weather", {"city": "東京"})], 0, ""),
):
    epl(f"test_complete_arguments_survive_missing_closers[{len(closing)}]", P_HEAD + closing, calls, reasoning="Reasoning. ",
        content="Before tools. ", invalid=invalid, why=why)
for k, (arguments, calls) in enumerate((("{}", [("weather", {})]),
                                         ('{"name":"Alice","arguments":{"x":1},"parameters":true}',
                                          [("weather", {"name": "Alice", "arguments": {"x": 1}, "parameters": True})]),
                                         ('{"text":"literal <|plamo:end_', []))):
    epl(f"test_arguments_are_not_rewritten[{k}]", P_THINK_END + P_REQS + p_header() + arguments, calls, invalid=0 if calls else 1, content=None,
        why="" if calls else CUT + " (the output ends inside the arguments' JSON; vLLM returns the JSON text it has as the arguments)")
P_TWO = P_THINK_END + P_REQS + p_call("weather", '{"city":"東京"}')
epl("test_multiple_calls_keep_indices_ids_and_arguments_separate[complete]", P_TWO + p_call("clock", '{"timezone":"Asia/Tokyo"}') + P_REQS_END,
    [("weather", {"city": "東京"}), ("clock", {"timezone": "Asia/Tokyo"})], content=None)
epl("test_multiple_calls_keep_indices_ids_and_arguments_separate[truncated_second]", P_TWO + P_REQ + P_NAME + "clo",
    [("weather", {"city": "東京"})], content=None, invalid=1, why=CUT + " (vLLM returns the second call as clo with {})")
for k, text in enumerate(("", "a < b", "literal <", "literal <|plamo:unknown", "  text\n")):
    epl(f"test_plain_content_is_preserved[{k}]", P_THINK_END + text + EOT, [], content=text or None)
epl("test_partial_end_think_is_consistent_between_streaming_and_non_streaming[<|plamo:end_]", "visible<|plamo:end_", [], reasoning="visible",
    content=None)
epl("test_partial_end_think_is_consistent_between_streaming_and_non_streaming[<|plamo:end_think]", "visible<|plamo:end_think", [],
    reasoning="visible<|plamo:end_think", content=None,
    why="verbatim: an unfinished tag the output ends in is the text the model wrote, and stays the reasoning's (vLLM strips it)")
epl("test_tool_block_can_end_reasoning_implicitly", "reasoning" + P_REQS + p_call("weather", "{}") + P_REQS_END, [("weather", {})],
    reasoning="reasoning", content=None)
epl("test_tool_choice_uses_the_plamo_format[auto]", P_THINK_END + "Before tools." + P_REQS + p_call("weather", "{}") + P_REQS_END,
    [("weather", {})], content="Before tools.")
epl("test_delayed_text_keeps_split_markers_intact",
    P_THINK + "reasoning" + P_THINK_END + "content" + P_REQS + p_call("weather", "{}") + P_REQS_END + EOT, [("weather", {})],
    reasoning="reasoning", content="content")

# ============================================================================================
# functionary_v3_1: llama.cpp tests/test-chat.cpp, the PEG tests of the functionary v3.1 template
# (the continuation case depends on a prefilled assistant turn and is left out)
# ============================================================================================
LCPP = "ggml-org/llama.cpp tests/test-chat.cpp @0042e2079d3428ba7af410df553202aa7fdf8d7a::"
SPECIAL = tool("special_function", {"type": "object", "properties": {"arg1": {"type": "integer", "description": "The arg."}}, "required": ["arg1"]})
for case, text, calls, content, tools in (
    ("content", "Hello, world!\nWhat's up?", [], "Hello, world!\nWhat's up?", None),
    ("call", '<function=special_function>{"arg1": 1}</function>', [("special_function", {"arg1": 1})], None, [SPECIAL]),
):
    add(Vector(f"functionary_v3_1/llamacpp/test-chat::functionary v3.1/{case}", "functionary_v3_1", text, calls, content=content, tools=tools,
               chunks=1, origin=LCPP + "test_template_output_peg_parsers(models/templates/meetkai-functionary-medium-v3.1.jinja)"))
