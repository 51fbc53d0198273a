"""The peers' own test vectors for this group's families (issue 38), as data.

apertus (``<|tools_prefix|>[{"NAME": {…}}, …]<|tools_suffix|>``), apriel (``<tool_calls>[…]</tool_calls>``
after reasoning that ends at ``[BEGIN FINAL RESPONSE]``), cohere_command (``<|START_ACTION|>[{"tool_call_id",
"tool_name", "parameters"}, …]<|END_ACTION|>`` or ``<|START_RESPONSE|>text<|END_RESPONSE|>``, plans in
``<|START_THINKING|>``), granite3 (``<|tool_call|>[…]``), granite_20b_fc (``<function_call> {…}`` per call)
and phi4_mini (``functools[…]``). Each vector is a model output from a peer's test (vLLM's
tests/tool_parsers, SGLang's test/registered/unit/function_call, llama.cpp's tests/test-chat.cpp), what
that test expects of it, the tools it gives, the chunks it streams it in, and its origin (repository,
file, test, commit): facts lifted from the peers' tests, not their code. The conventions are those of
``peer_vectors_pythonic.py`` (``ANY``; ``content=None`` for no content; ``invalid=ANY`` where the peer
drops a call it cannot read; :data:`ARGS_AS_WRITTEN` where the test checks only names or counts;
:data:`CONTAINS` where it checks only substrings of the content; :data:`EVERY_TWO_CHUNK_SPLIT` where it
streams at every cut point), with these notes:

* vLLM's ``ToolParserTests`` (tests/tool_parsers/common_tests.py, shared by the granite,
  granite-20b-fc and phi4_mini tests) run each case streamed (``[True]``, in a tokenizer's deltas: not
  recorded, ``chunks=None``) and whole (``[False]``); a case's checks are the common test's (a test
  that checks only that the parser does not raise has every part ``ANY``).
* The Cohere parser of vLLM (``cohere_command3`` / ``cohere_command4``) reads the reasoning itself:
  its vectors are read from the format's own start (``thinking=None``). Its ``TOOL_CALL_CASES`` are
  checked by five tests each (streamed calls, reasoning and content, whole, both agree): one vector
  a case holds all of those checks.
* llama.cpp's PEG tests (test-chat.cpp @0042e207) feed every prefix of the output, a character at a
  time (``chunks=1``), and compare the content with surrounding whitespace stripped; their
  continuation cases (a prefilled assistant turn) are left out.
* SGLang drops calls to tools not in the request; thinkgate reports them invalid (``invalid=ANY``).
"""

from __future__ import annotations

import json
from typing import Any

from helpers import fn
from peer_vectors_newest import ANY, I, O, S, Vector

VECTORS: dict[str, Vector] = {}
ARGS_AS_WRITTEN: set[str] = set()  # the test checks only names or counts: the arguments are the call's as written
CONTAINS: dict[str, tuple[str, ...]] = {}  # the test checks only these substrings of the content
EVERY_TWO_CHUNK_SPLIT: set[str] = set()  # the test streams whole, by characters and at every single cut


def add(v: Vector, *, written: bool = False, contains: tuple[str, ...] = (), every_split: bool = False) -> None:
    assert v.id not in VECTORS, v.id
    assert v.id.startswith(v.fmt + "/"), v.id
    if isinstance(v.chunks, list):
        assert "".join(v.chunks) == v.text, v.id
    assert not contains or v.content is ANY, v.id
    VECTORS[v.id] = v
    if written:
        ARGS_AS_WRITTEN.add(v.id)
    if contains:
        CONTAINS[v.id] = contains
    if every_split:
        EVERY_TWO_CHUNK_SPLIT.add(v.id)


def _v(fmt: str, peer: str, test: str, text: str, calls: Any, origin: str, *, written: bool = False, contains: tuple[str, ...] = (),
       every_split: bool = False, **kw: Any) -> None:
    add(Vector(f"{fmt}/{peer}::{test}", fmt, text, calls, origin=origin + test.split("[")[0].split("/")[0], **kw), written=written,
        contains=contains, every_split=every_split)


# ============================================================================================
# apertus
# ============================================================================================
PREFIX, SUFFIX = "<|tools_prefix|>", "<|tools_suffix|>"


def tools_block(calls: str) -> str:
    return PREFIX + calls + SUFFIX


# --------------------------------------------------------------------------------------------
# vLLM tests/tool_parsers/test_apertus_tool_parser.py (a mocked request with no tools)
# --------------------------------------------------------------------------------------------
VAP = "vllm-project/vllm tests/tool_parsers/test_apertus_tool_parser.py @266c3ccc1d53a28e59a1ea6fc49ab9918d4fb693::"


def vap(test: str, text: str, calls: Any, **kw: Any) -> None:
    _v("apertus", "vllm/apertus", test, text, calls, VAP, **kw)


LONDON = ("get_weather", {"location": "London"})
vap("TestExtractToolCalls::test_no_tool_calls", "Hello, how can I help you today?", [], content="Hello, how can I help you today?")
vap("TestExtractToolCalls::test_single_tool_call", tools_block('[{"get_weather": {"location": "London"}}]'), [LONDON])
vap("TestExtractToolCalls::test_multiple_arguments", tools_block('[{"get_weather": {"location": "San Francisco", "unit": "celsius"}}]'),
    [("get_weather", {"location": "San Francisco", "unit": "celsius"})])
vap("TestExtractToolCalls::test_text_before_tool_call", "Let me check the weather for you. " + tools_block('[{"get_weather": {"location": "Paris"}}]'),
    [("get_weather", {"location": "Paris"})], content="Let me check the weather for you.", written=True)
vap("TestExtractToolCalls::test_multiple_tool_calls", tools_block('[{"get_weather": {"location": "London"}}, {"get_time": {"location": "London"}}]'),
    [LONDON, ("get_time", {"location": "London"})], written=True)
vap("TestExtractToolCalls::test_nested_arguments", tools_block('[{"complex_function": {"nested": {"inner": "value"}, "list": ["a", "b"]}}]'),
    [("complex_function", {"nested": {"inner": "value"}, "list": ["a", "b"]})])
vap("TestExtractToolCalls::test_incomplete_tool_call", PREFIX + '[{"get_weather": {"location": "London"}', [LONDON])
vap("TestExtractToolCalls::test_missing_tool_suffix", PREFIX + '[{"get_weather": {"location": "San Francisco", "unit": "celsius"}}]',
    [("get_weather", {"location": "San Francisco", "unit": "celsius"})])
PARIS_FRANCE = ("get_weather", {"location": "Paris, France"})
for test, chunks, calls, kw in (
    ("test_basic_streaming_single_tool", [PREFIX, '[{"get_weather": ', '{"location": "Paris, ', 'France"}}]', SUFFIX], [PARIS_FRANCE], {}),
    ("test_streaming_missing_tool_suffix", [PREFIX, '[{"get_weather": ', '{"location": "Paris, ', 'France"}}]'], [PARIS_FRANCE], {}),
    ("test_streaming_partial_tag_buffering_missing_tool_suffix", ["Content", "<|tools_", "prefix|>", '[{"f": ', '{"a": 1}}]'],
     [("f", {"a": 1})], {"contains": ("Content",)}),
    ("test_streaming_multi_tool", [PREFIX, '[{"get_weather": {"location": "Tokyo"}}', ', {"get_time": {"location": "Tokyo"}}]', SUFFIX],
     [("get_weather", {"location": "Tokyo"}), ("get_time", {"location": "Tokyo"})], {}),
    ("test_streaming_text_before_tool_call", ["Let me check ", "the weather. ", PREFIX, '[{"get_weather": {"location": "London"}}]', SUFFIX],
     [LONDON], {"content": "Let me check the weather. "}),  # (the test strips the content)
    ("test_streaming_partial_tag_buffering", ["Content", "<|tools_", "prefix|>", '[{"f": {"a": 1}}]', "<|tools_suf", "fix|>"],
     [("f", {"a": 1})], {"contains": ("Content",)}),
    ("test_mtp_streaming_massive_chunk", ["Sure! " + tools_block('[{"get_weather": {"location": "London"}}]')], [LONDON], {"contains": ("Sure! ",)}),
    ("test_mtp_streaming_multiple_tools_burst", [tools_block('[{"get_weather": {"location": "London"}}, {"get_time": {"location": "Paris"}}]')],
     [LONDON, ("get_time", {"location": "Paris"})], {}),
    ("test_mtp_streaming_skip_and_catch_up", [PREFIX + '[{"t1": {"a": 1}', '}, {"t2": {"b": 2}}, {"t3": {"c": 3', "}}]" + SUFFIX],
     [("t1", {"a": 1}), ("t2", {"b": 2}), ("t3", {"c": 3})], {}),
    ("test_vllm_streaming_character_by_character", list("Hi " + tools_block('[{"get_weather": {"location": "London"}}]') + " "), [LONDON],
     {"contains": ("Hi",)}),
    ("test_vllm_streaming_empty_deltas", ["Wait", "", PREFIX, "", '[{"get_weather": ', "", '{"location": "London"}}]', SUFFIX], [LONDON],
     {"content": "Wait"}),
):
    vap("TestStreamingExtraction::" + test, "".join(chunks), calls, chunks=chunks, **kw)

# --------------------------------------------------------------------------------------------
# SGLang test/registered/unit/function_call/test_apertus2509_detector.py: two stored versions of
# the file differ, each is lifted (has_tool_call and the detector's buffer are internals)
# --------------------------------------------------------------------------------------------
SGL = "sgl-project/sglang test/registered/unit/function_call/"
SAP = SGL + "test_apertus2509_detector.py @9e47d32ac6e95b40b66a7e08a5b2c4138d5717d8::"
AP_TOOLS = [fn("get_weather", city=S), fn("now")]
PARIS = ("get_weather", {"city": "Paris"})
AP_TWO = tools_block('[{"get_weather": {"city": "Paris"}}, {"now": {}}]')


def sap(test: str, text: str, calls: Any, **kw: Any) -> None:
    _v("apertus", "sglang/apertus2509_detector", test, text, calls, SAP, tools=AP_TOOLS, **kw)


sap("TestApertus2509Detector::test_nonstream_parses_multiple_calls_and_preserves_normal_text", "before" + AP_TWO + "after", [PARIS, ("now", {})],
    content="beforeafter")
sap("TestApertus2509Detector::test_no_tool_call", "The weather is nice today.", [], content="The weather is nice today.")
sap("TestApertus2509Detector::test_incomplete_block_falls_back_to_plaintext", PREFIX + '[{"get_weather": {"city": "Paris"}}]', [],
    content=PREFIX + '[{"get_weather": {"city": "Paris"}}]')
sap("TestApertus2509Detector::test_has_tool_call_true_but_detect_and_parse_requires_suffix", PREFIX + "[", [], content=PREFIX + "[")
sap("TestApertus2509Detector::test_malformed_and_null_args_items_are_skipped_or_defaulted",
    tools_block('[{"get_weather": {"city": "Paris"}}, {}, {"now": null}]'), [PARIS, ("now", {})])
sap("TestApertus2509Detector::test_unknown_tool_dropped_by_default_and_forwarded_with_override", tools_block('[{"missing_tool": {"value": 1}}]'), [],
    invalid=ANY)
sap("TestApertus2509Detector::test_streaming_name_arrives_before_params", tools_block('[{"get_weather": {"city": "Paris"}}]'), [PARIS])
sap("TestApertus2509Detector::test_streaming_leading_text_and_full_marker_arrive_in_one_chunk", "hello " + tools_block('[{"get_weather": {"city": "Paris"}}]'),
    [PARIS], content="hello ")
sap("TestApertus2509Detector::test_streaming_invalid_json_with_suffix_present_is_flushed_as_text", PREFIX + "[invalid json " + SUFFIX, [],
    content=PREFIX + "[invalid json " + SUFFIX)
B1, B2 = tools_block('[{"get_weather": {"city": "Paris"}}]'), tools_block('[{"now": {}}]')
sap("TestApertus2509Detector::test_streaming_second_block_found_after_flushing_first_block/full_marker", B1 + "middle" + B2, [PARIS, ("now", {})],
    content="middle", chunks=[B1 + "middle" + B2])
sap("TestApertus2509Detector::test_streaming_second_block_found_after_flushing_first_block/split_marker", B1 + "middle" + B2, [PARIS, ("now", {})],
    content="middle", chunks=[B1 + "middle<|tools_", B2[len("<|tools_"):]])
sap("TestApertus2509Detector::test_streaming_whitespace_between_json_and_suffix_is_skipped", PREFIX + '[{"get_weather": {"city": "Paris"}}]  ' + SUFFIX,
    [PARIS])
sap("TestApertus2509Detector::test_streaming_partial_bot_token_buffered_across_chunks", "hi " + B1, [PARIS], content="hi ",
    chunks=["hi <|tools_", B1[len("<|tools_"):]])
sap("TestApertus2509Detector::test_streaming_unknown_tool_dropped_by_default_and_forwarded_with_override", tools_block('[{"missing_tool": {"value": 1}}]'),
    [], invalid=ANY, chunks=[tools_block('[{"missing_tool": {"value": 1}}]')])
sap("TestApertus2509Detector::test_streaming_char_by_char_matches_nonstream_result", "before" + AP_TWO + "after", [PARIS, ("now", {})],
    content="beforeafter", chunks=1)
sap("TestApertus2509Detector::test_structure_info_matches_the_markers_the_parser_scans_for",
    '<|tools_prefix|>[{"get_weather": ' + '{"city": "Paris"}' + "}]<|tools_suffix|>", [PARIS])

SAPS = SGL + "test_apertus2509_detector.py @8d240b18f5a62aec773facd0e02045ac39f00893::"
AP_STREAM_TOOLS = [fn("get_weather"), fn("get_time")]


def saps(test: str, text: str, calls: Any, **kw: Any) -> None:
    add(Vector(f"apertus/sglang/apertus2509_detector::{test}/v8d240b18", "apertus", text, calls, origin=SAPS + test.split("/")[0],
               tools=AP_STREAM_TOOLS, **kw))


# json.dumps as the test writes the blocks (ensure_ascii: Zürich as \u00fc)
CHUNKED = "before" + tools_block(json.dumps([{"get_weather": {"city": "Zürich"}}])) + "between" + \
    tools_block(json.dumps([{"get_time": {}}, {"get_weather": {"city": "Tokyo"}}])) + "done"
saps("TestApertus2509Streaming::test_chunk_invariance_for_multiple_blocks_and_trailing_text", CHUNKED,
     [("get_weather", {"city": "Zürich"}), ("get_time", {}), ("get_weather", {"city": "Tokyo"})], content="beforebetweendone", chunks=7)
FIRST, SECOND = tools_block(json.dumps([{"get_weather": {}}])), tools_block(json.dumps([{"get_time": {"zone": "UTC"}}]))
for split in (1, len(SECOND) // 2, len(SECOND) - 1):
    saps(f"TestApertus2509Streaming::test_second_incomplete_block_stays_buffered/split{split}", FIRST + "between" + SECOND + "done",
         [("get_weather", {}), ("get_time", {"zone": "UTC"})], content="betweendone",
         chunks=[FIRST + "between" + SECOND[:split], SECOND[split:] + "done"])
PARTIAL = '<|tools_prefix|>[{"get_time": {"zone":'
# (the cut second block is not emitted: thinkgate reports it cut off, which the test does not look at)
saps("TestApertus2509Streaming::test_truncated_second_block_is_not_emitted_by_finish", FIRST + PARTIAL, [("get_weather", {})], content=None,
     invalid=ANY, chunks=[FIRST + PARTIAL])
saps("TestApertus2509Streaming::test_plain_text_and_single_block_controls/plain", "hello", [], content="hello", chunks=["hello"])
saps("TestApertus2509Streaming::test_plain_text_and_single_block_controls/block", tools_block(json.dumps([{"get_time": {}}])) + "done",
     [("get_time", {})], content="done", chunks=[tools_block(json.dumps([{"get_time": {}}])) + "done"])

# --------------------------------------------------------------------------------------------
# llama.cpp tests/test-chat.cpp @0042e207, the Apertus-8B-Instruct PEG test
# --------------------------------------------------------------------------------------------
LCPP = "ggml-org/llama.cpp tests/test-chat.cpp @0042e2079d3428ba7af410df553202aa7fdf8d7a::"
SPECIAL = fn("special_function", ["arg1"], arg1=I)
add(Vector("apertus/llamacpp/test-chat::Apertus-8B-Instruct/tool_call", "apertus", tools_block('[{"special_function": {"arg1": 1}}]'),
           [("special_function", {"arg1": 1})], content=None, tools=[SPECIAL], chunks=1,
           origin=LCPP + "test_template_output_peg_parsers(models/templates/Apertus-8B-Instruct.jinja)"))


# ============================================================================================
# apriel: llama.cpp tests/test-chat.cpp @0042e207 (no other peer parses it)
# ============================================================================================
LAPR = LCPP + "test_template_output_peg_parsers(models/templates/"
APRIEL_CALL = '<tool_calls>[{"name": "special_function", "arguments": {"arg1": 1}}]</tool_calls>'
# Apriel 1.5's generation prompt opens no reasoning: the output is read from the answer on (the
# format's "auto"; detect names that format apriel:detected)
add(Vector("apriel/llamacpp/test-chat::unsloth-Apriel-1.5/content", "apriel", "Hello, world!\nWhat's up?", [], content="Hello, world!\nWhat's up?",
           thinking="auto", chunks=1, origin=LAPR + "unsloth-Apriel-1.5.jinja)"))
add(Vector("apriel/llamacpp/test-chat::unsloth-Apriel-1.5/tool_call", "apriel", APRIEL_CALL, [("special_function", {"arg1": 1})], content=None,
           thinking="auto", tools=[SPECIAL], chunks=1, origin=LAPR + "unsloth-Apriel-1.5.jinja)"))
# Apriel 1.6's generation prompt ends in "Here are my reasoning steps:\n": the output starts inside it
add(Vector("apriel/llamacpp/test-chat::Apriel-1.6-15b-Thinker-fixed/reasoning_content", "apriel",
           "I'm\nthinking\n[BEGIN FINAL RESPONSE]\nHello, world!\nWhat's up?", [], content="Hello, world!\nWhat's up?",
           reasoning="Here are my reasoning steps:\nI'm\nthinking", thinking=True, chunks=1, origin=LAPR + "Apriel-1.6-15b-Thinker-fixed.jinja)"))
add(Vector("apriel/llamacpp/test-chat::Apriel-1.6-15b-Thinker-fixed/reasoning_tool_call", "apriel",
           "I'm\nthinking\n[BEGIN FINAL RESPONSE]\n" + APRIEL_CALL, [("special_function", {"arg1": 1})], content=None,
           reasoning="Here are my reasoning steps:\nI'm\nthinking", thinking=True, tools=[SPECIAL], chunks=1,
           origin=LAPR + "Apriel-1.6-15b-Thinker-fixed.jinja)"))


# ============================================================================================
# cohere_command
# ============================================================================================
START_ACTION, END_ACTION = "<|START_ACTION|>", "<|END_ACTION|>"

# --------------------------------------------------------------------------------------------
# vLLM tests/tool_parsers/test_cohere_command_tool_parser.py (byte-level deltas of a mock
# tokenizer: one character at a time here, the output being ASCII but for an emoji)
# --------------------------------------------------------------------------------------------
VCO = "vllm-project/vllm tests/tool_parsers/test_cohere_command_tool_parser.py @6bcd488866e07589f62d793e513368a4eb5818f9::"
CO_SINGLE = (
    "<|START_THINKING|> i will call foo with query1<|END_THINKING|><|START_ACTION|>\n[\n"
    '    {"tool_call_id": "0", "tool_name": "foo", "parameters": {"query": "query1"}}\n]\n<|END_ACTION|>'
)
CO_CITATIONS = (
    "<|START_THINKING|>This is a rainbow <co>emoji: 🌈</co: 0:[1]><|END_THINKING|>\n"
    "<|START_RESPONSE|>foo <co>bar</co: 0:[1,2],1:[3,4]><|END_RESPONSE|>"
)
CO_MULTIPLE = (
    "<|START_THINKING|>first I think about foo<|END_THINKING|><|START_ACTION|>\n[\n"
    '    {"tool_call_id": "0", "tool_name": "foo", "parameters": {"query": "query1"}},\n'
    '    {"tool_call_id": "1", "tool_name": "bar", "parameters": {"x": 42}}\n]\n<|END_ACTION|>'
)
CO_REASONING_ONLY = "<|START_THINKING|>just think, no response<|END_THINKING|>"
for preset in ("cmd3", "cmd4"):
    for case, text, calls, reasoning, content in (
        ("single_tool_call", CO_SINGLE, [("foo", {"query": "query1"})], "i will call foo with query1", None),
        ("citations_no_tool_calls", CO_CITATIONS, [], "This is a rainbow emoji: 🌈", "foo bar"),
        ("multiple_tool_calls", CO_MULTIPLE, [("foo", {"query": "query1"}), ("bar", {"x": 42})], "first I think about foo", None),
        ("reasoning_only", CO_REASONING_ONLY, [], "just think, no response", None),
    ):
        add(Vector(f"cohere_command/vllm/cohere_command::TestExtractToolCalls[{preset}-{case}]", "cohere_command", text, calls, content=content,
                   reasoning=reasoning, thinking=None, chunks=1, origin=VCO + "TestExtractToolCalls"))
CO_MTP = (
    "<|START_THINKING|> i will call foo with query1<|END_THINKING|><|START_ACTION|>\n"
    '[\n    {"tool_call_id": "0", "tool_name": "foo", "parameters": {"query": "query1"}}\n]\n<|END_ACTION|>'
)
for preset in ("cmd3", "cmd4"):
    for size in (2, 3, 4, 6):
        # (no marker leaks into a delta: the content is none, the reasoning the plan)
        add(Vector(f"cohere_command/vllm/cohere_command::TestSpeculativeDecodingMultiTokenDelta[{preset}-{size}]", "cohere_command", CO_MTP,
                   [("foo", {"query": "query1"})], content=None, thinking=None, chunks=size,
                   origin=VCO + "TestSpeculativeDecodingMultiTokenDelta::test_multi_token_chunks_still_produce_correct_tool_call"))
    add(Vector(f"cohere_command/vllm/cohere_command::TestStreamingDeltaShape::test_reasoning_and_tool_calls_are_separate_deltas[{preset}]",
               "cohere_command", CO_MTP, [("foo", {"query": "query1"})], thinking=None, chunks=1,
               origin=VCO + "TestStreamingDeltaShape::test_reasoning_and_tool_calls_are_separate_deltas"))

# --------------------------------------------------------------------------------------------
# SGLang test/registered/unit/function_call/test_cohere_command4_detector.py and
# test_cohere_command4_streaming_blocks.py (has_tool_call and _normalize_calls are internals)
# --------------------------------------------------------------------------------------------
SCO = SGL + "test_cohere_command4_detector.py @30a32393b32212785f05d620bd265452ef505054::"
CO_TOOLS = [fn("get_weather", ["city"], city=S), fn("search", ["query"], query=S)]


def co_action(name: str, params: dict) -> str:
    return json.dumps({"tool_call_id": "0", "tool_name": name, "parameters": params})


def co_block(*actions: str) -> str:
    return START_ACTION + "[" + ", ".join(actions) + "]" + END_ACTION


def sco(test: str, text: str, calls: Any, **kw: Any) -> None:
    _v("cohere_command", "sglang/cohere_command4_detector", test, text, calls, SCO, tools=CO_TOOLS, **kw)


sco("TestCohereCommand4Detector::test_single_tool_call", co_block(co_action("get_weather", {"city": "Beijing"})), [("get_weather", {"city": "Beijing"})],
    content=None)
sco("TestCohereCommand4Detector::test_parallel_tool_calls_with_leading_text",
    "Sure! " + co_block(co_action("get_weather", {"city": "Tokyo"}), co_action("search", {"query": "ramen"})),
    [("get_weather", {"city": "Tokyo"}), ("search", {"query": "ramen"})], content="Sure! ", written=True)
sco("TestCohereCommand4Detector::test_truncated_body_uses_partial_fallback",
    START_ACTION + '[{"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris"', [("get_weather", {"city": "Paris"})],
    written=True)
sco("TestCohereCommand4Detector::test_malformed_body_returns_normal_text", "prefix " + START_ACTION + "[not valid json" + END_ACTION, [],
    content="prefix ")
sco("TestCohereCommand4Detector::test_no_tool_call", "Just a plain answer.", [], content="Just a plain answer.")
BERLIN = co_block(co_action("get_weather", {"city": "Berlin"}))
sco("TestCohereCommand4Detector::test_streaming_text_then_block", "Let me check. " + BERLIN, [("get_weather", {"city": "Berlin"})],
    content="Let me check. ", chunks=["Let me check. ", BERLIN[: len(START_ACTION)], BERLIN[len(START_ACTION):]])
WAITS = [START_ACTION + '[{"tool_call_id":"0","tool_name":"search","parameters":{"query":"x"}}]', END_ACTION]
sco("TestCohereCommand4Detector::test_streaming_waits_for_end_token", "".join(WAITS), [("search", {"query": "x"})], chunks=WAITS, written=True)

SCB = SGL + "test_cohere_command4_streaming_blocks.py @7644f7466a1cf98ef2713cda5af1ef09b05f02bb::"
SF_BLOCK = START_ACTION + '[{"tool_call_id":"0","tool_name":"get_weather","parameters":{"city":"SF"}}]' + END_ACTION
SF = ("get_weather", {"city": "SF"})


def scb(test: str, text: str, calls: Any, **kw: Any) -> None:
    _v("cohere_command", "sglang/cohere_command4_streaming_blocks", test, text, calls, SCB, tools=[fn("get_weather", city=S)], **kw)


scb("TestCohereCommand4StreamingBlocks::test_leading_text_and_complete_call_in_final_chunk", "Let me check." + SF_BLOCK, [SF], content="Let me check.",
    chunks=["Let me check." + SF_BLOCK])
scb("TestCohereCommand4StreamingBlocks::test_every_two_chunk_split_matches_non_streaming", "Let me check." + SF_BLOCK, [SF], content="Let me check.",
    every_split=True)
scb("TestCohereCommand4StreamingBlocks::test_character_chunks", "Let me check." + SF_BLOCK, [SF], content="Let me check.", chunks=1)
scb("TestCohereCommand4StreamingBlocks::test_trailing_text_is_preserved_for_next_increment", "Let me check." + SF_BLOCK + "All set.", [SF],
    content="Let me check.All set.", chunks=["Let me check." + SF_BLOCK + "All set.", ""])
SF_TWICE = START_ACTION + json.dumps(json.loads(SF_BLOCK[len(START_ACTION):-len(END_ACTION)]) * 2) + END_ACTION
scb("TestCohereCommand4StreamingBlocks::test_multiple_calls_in_one_action_block", "Let me check." + SF_TWICE, [SF, SF], content="Let me check.",
    chunks=["Let me check." + SF_TWICE])
scb("TestCohereCommand4StreamingBlocks::test_complete_call_without_leading_text", SF_BLOCK, [SF], content=None, chunks=[SF_BLOCK])
scb("TestCohereCommand4StreamingBlocks::test_unknown_tool_is_dropped", "Let me check." + SF_BLOCK.replace("get_weather", "unknown_tool"), [],
    content="Let me check.", invalid=ANY, chunks=["Let me check." + SF_BLOCK.replace("get_weather", "unknown_tool")])
scb("TestCohereCommand4StreamingBlocks::test_incomplete_block_waits_for_closing_marker", "Let me check." + SF_BLOCK, [SF], content="Let me check.",
    chunks=["Let me check." + SF_BLOCK[:-1], SF_BLOCK[-1:]])
scb("TestCohereCommand4StreamingBlocks::test_plain_text", "Hello world.", [], content="Hello world.", chunks=["Hello", " world."])

# --------------------------------------------------------------------------------------------
# llama.cpp tests/test-chat.cpp @0042e207, the Command R7B PEG tests (message_assist_thoughts_call_idx:
# the call's id is its tool_call_id, which llama.cpp returns; thinkgate's ids are its own)
# --------------------------------------------------------------------------------------------
LCO = LCPP + "test_template_output_peg_parsers(models/templates/CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja)"
add(Vector("cohere_command/llamacpp/test-chat::CohereForAI-c4ai-command-r7b-12-2024-tool_use/response", "cohere_command",
           "<|START_RESPONSE|>Hello, world!\nWhat's up?<|END_RESPONSE|>", [], content="Hello, world!\nWhat's up?", thinking=None, chunks=1, origin=LCO))
add(Vector("cohere_command/llamacpp/test-chat::CohereForAI-c4ai-command-r7b-12-2024-tool_use/thoughts_call", "cohere_command",
           "<|START_THINKING|>I'm\nthinking<|END_THINKING|><|START_ACTION|>[\n"
           '    {"tool_call_id": "0", "tool_name": "special_function", "parameters": {"arg1": 1}}\n]<|END_ACTION|>',
           [("special_function", {"arg1": 1})], content=None, reasoning="I'm\nthinking", thinking=None, tools=[SPECIAL], chunks=1, origin=LCO))


# ============================================================================================
# vLLM's ToolParserTests (tests/tool_parsers/common_tests.py @1b6b3ec1): granite3, granite_20b_fc,
# phi4_mini. Each test_config's outputs, run streamed and whole.
# ============================================================================================
def common_tests(fmt: str, peer: str, origin: str, config: dict) -> None:
    """The common tests of one parser's ``ToolParserTestConfig``: each test as the common test
    checks it (content only where the config expects one)."""
    tokyo = [("get_weather", {"city": "Tokyo"})]
    # (test, output, calls, whether the test checks only names or counts, what else it checks)
    cases = (
        ("test_no_tool_calls", config["no_tool_calls"], [], False, {"content": config["no_tool_calls"]}),
        ("test_single_tool_call_simple_args", config["single"], tokyo, False, {}),
        ("test_parallel_tool_calls", config["parallel"], [*tokyo, ("get_time", {"timezone": "Asia/Tokyo"})], True, {}),
        ("test_various_data_types", config["various"], [("test_function", VARIOUS_ARGS)], False, {}),
        ("test_empty_arguments", config["empty"], [("refresh", {})], False, {}),
        ("test_surrounding_text", config["surrounding"], tokyo, True, {}),  # (at least one call)
        ("test_escaped_strings", config["escaped"], [("test_function", ESCAPED_ARGS)], True, {}),
        ("test_streaming_reconstruction", config["single"], tokyo, False, {}),
    )
    for test, text, calls, loose, kw in cases:
        modes = ("True",) if test == "test_streaming_reconstruction" else ("True", "False")
        for mode in modes:
            add(Vector(f"{fmt}/vllm/{peer}::{test}[{mode}]", fmt, text, calls, origin=origin + test, **kw), written=loose)
    for k, text in enumerate(config["malformed"]):
        for mode in ("True", "False"):
            # "should not raise": nothing more is checked
            add(Vector(f"{fmt}/vllm/{peer}::test_malformed_input[{mode}]/{k}", fmt, text, ANY, invalid=ANY, origin=origin + "test_malformed_input"))


VARIOUS_ARGS = {"string_field": "hello", "int_field": 42, "float_field": 3.14, "bool_field": True, "null_field": None,
                "array_field": ["a", "b", "c"], "object_field": {"nested": "value"}, "empty_array": [], "empty_object": {}}
ESCAPED_ARGS = {"quoted": 'He said "hello"', "path": "C:\\Users\\file.txt", "newline": "line1\nline2", "unicode": "emoji: 🎉"}
VARIOUS_BODY = """{
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
}"""
ESCAPED_BODY = """{
  "name": "test_function",
  "arguments": {
    "quoted": "He said \\"hello\\"",
    "path": "C:\\\\Users\\\\file.txt",
    "newline": "line1\\nline2",
    "unicode": "emoji: 🎉"
  }
}"""

# --------------------------------------------------------------------------------------------
# granite3: vLLM tests/tool_parsers/test_granite_tool_parser.py
# --------------------------------------------------------------------------------------------
VGR = "vllm-project/vllm tests/tool_parsers/test_granite_tool_parser.py @2ab4733ef9fc3c039a5868e0141fee3b7fd95890::"
TC = "<|tool_call|>"
common_tests("granite3", "granite", VGR + "TestGraniteToolParser::", {
    "no_tool_calls": "This is a regular response without any tool calls.",
    "single": TC + ' [{"name": "get_weather", "arguments": {"city": "Tokyo"}}]',
    "parallel": TC + ' [\n  {"name": "get_weather", "arguments": {"city": "Tokyo"}},\n  {"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}\n]',
    "various": "<tool_call> [" + VARIOUS_BODY + "]",
    "empty": TC + ' [{"name": "refresh", "arguments": {}}]',
    "surrounding": "Let me check the weather for you.\n" + TC + ' [{"name": "get_weather", "arguments": {"city": "Tokyo"}}]\nI\'ll get that information.',
    "escaped": "<tool_call> [" + ESCAPED_BODY + "]",
    "malformed": [TC + ' [{"name": "func", "arguments": {', TC + ' {"name": "func", "arguments": {}}', '[{"name": "func", "arguments": "not a dict"}]',
                  'Some text [{"name": "func"}]'],
})
for mode in ("True", "False"):
    add(Vector(f"granite3/vllm/granite::TestGraniteToolParser::test_granite_token_prefix_format[{mode}]", "granite3",
               TC + ' [{"name": "get_weather", "arguments": {"city": "Tokyo"}}]', [("get_weather", {"city": "Tokyo"})],
               origin=VGR + "TestGraniteToolParser::test_granite_token_prefix_format"), written=True)
    add(Vector(f"granite3/vllm/granite::TestGraniteToolParser::test_granite_string_prefix_format[{mode}]", "granite3",
               '<tool_call> [{"name": "get_weather", "arguments": {"city": "Tokyo"}}]', [("get_weather", {"city": "Tokyo"})],
               origin=VGR + "TestGraniteToolParser::test_granite_string_prefix_format"), written=True)
# arguments written before the name, streamed in batched token deltas of Granite 3.1's tokenizer (not recorded)
for size in (2, 3, 4, 5):
    add(Vector(f"granite3/vllm/granite::test_streaming_parallel_calls_batched_deltas[{size}]", "granite3",
               TC + ' [{"arguments": {"city": "Tokyo"}, "name": "get_weather"}, {"arguments": {"timezone": "Asia/Tokyo"}, "name": "get_time"}]',
               [("get_weather", {"city": "Tokyo"}), ("get_time", {"timezone": "Asia/Tokyo"})], origin=VGR + "test_streaming_parallel_calls_batched_deltas"),
        written=True)
ONE_DELTA = TC + '[{"name": "get_weather", "arguments": {"x": 42}}, {"name": "b", "arguments": {"y": 7}}]'
add(Vector("granite3/vllm/granite::test_streaming_parallel_calls_single_delta", "granite3", ONE_DELTA, [("get_weather", {"x": 42}), ("b", {"y": 7})],
           chunks=[ONE_DELTA], origin=VGR + "test_streaming_parallel_calls_single_delta"))

# --------------------------------------------------------------------------------------------
# granite_20b_fc: vLLM tests/tool_parsers/test_granite_20b_fc_tool_parser.py
# --------------------------------------------------------------------------------------------
VG20 = "vllm-project/vllm tests/tool_parsers/test_granite_20b_fc_tool_parser.py @41c5903d049b80b83a6e570f52f0f55e31316e49::TestGranite20bFcToolParser::"
FC = "<function_call> "
common_tests("granite_20b_fc", "granite_20b_fc", VG20, {
    "no_tool_calls": "This is a regular response without any tool calls.",
    "single": FC + '{"name": "get_weather", "arguments": {"city": "Tokyo"}}',
    "parallel": FC + '{"name": "get_weather", "arguments": {"city": "Tokyo"}}\n' + FC + '{"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}',
    "various": FC + VARIOUS_BODY,
    "empty": FC + '{"name": "refresh", "arguments": {}}',
    "surrounding": "Let me check the weather for you.\n" + FC + '{"name": "get_weather", "arguments": {"city": "Tokyo"}}',
    "escaped": FC + ESCAPED_BODY,
    "malformed": [FC + '{"name": "func", "arguments": {', FC + '[{"name": "func", "arguments": {}}]', '{"name": "func", "arguments": {}}',
                  FC + '{"name": 123}'],
})

# --------------------------------------------------------------------------------------------
# phi4_mini: vLLM tests/tool_parsers/test_phi4mini_tool_parser.py (its streaming is not
# implemented: every streamed case is xfail there; the cases hold all the same)
# --------------------------------------------------------------------------------------------
VPHI = "vllm-project/vllm tests/tool_parsers/test_phi4mini_tool_parser.py @2471a1c1430e2a066029bc743562eee6db2feab0::TestPhi4MiniToolParser::"
FT = "functools"
common_tests("phi4_mini", "phi4mini", VPHI, {
    "no_tool_calls": "This is a regular response without any tool calls.",
    "single": FT + '[{"name": "get_weather", "arguments": {"city": "Tokyo"}}]',
    "parallel": FT + '[\n  {"name": "get_weather", "arguments": {"city": "Tokyo"}},\n  {"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}\n]',
    "various": FT + "[" + VARIOUS_BODY + "]",
    "empty": FT + '[{"name": "refresh", "arguments": {}}]',
    "surrounding": "Let me check the weather for you.\n" + FT + '[{"name": "get_weather", "arguments": {"city": "Tokyo"}}]\nWould you like to know more?',
    "escaped": FT + "[" + ESCAPED_BODY + "]",
    "malformed": [FT + '[{"name": "func", "arguments": {', FT + '[{"name": "func", "arguments": "not a dict"}]', FT + '{"name": "func"}',
                  FT + '[{"name": "func"}]', FT + "[] This is just text", FT + "[ This is just text ]"],
})


# ============================================================================================
# Where thinkgate reads a vector otherwise on purpose: the vector holds thinkgate's reading and
# says why (``why``), as in peer_vectors_newest.py.
# ============================================================================================
VERBATIM = "verbatim: the whitespace the model wrote beside the tool block stays with the answer's text (the peer strips it)"
CUT_OFF = ("an output that ends inside a call: the call is reported cut off (finish_reason length) with its text, never "
           "presented as a complete call (the peer completes the JSON)")
REPORTED = "a call that cannot be read is reported invalid with its text, never repaired nor dropped"
NOTHING_LOST = "nothing lost: a tool block with no call in it is the text it was, markers and all (the peer drops it)"


def _ours(vid: str, why: str, **reading: Any) -> None:
    v = VECTORS[vid]
    VECTORS[vid] = v._replace(why=why, **reading)


_ours("apertus/vllm/apertus::TestExtractToolCalls::test_text_before_tool_call", VERBATIM, content="Let me check the weather for you. ")
_ours("apertus/vllm/apertus::TestExtractToolCalls::test_incomplete_tool_call", CUT_OFF, calls=[], invalid=1, content=None)
_ours("apertus/sglang/apertus2509_detector::TestApertus2509Detector::test_incomplete_block_falls_back_to_plaintext",
      "the array closed: its call is complete, the section's end marker aside (Apertus' generation config stops at "
      "<|tools_suffix|>, and a grammar writes it; SGLang returns the block as text)", calls=[PARIS], content=None)
_ours("apertus/sglang/apertus2509_detector::TestApertus2509Detector::test_malformed_and_null_args_items_are_skipped_or_defaulted",
      REPORTED + ": {} names no tool, and the array's items after a broken one are its text up to the block's end (SGLang "
      "skips {} and reads null arguments as {})", calls=[PARIS], invalid=1)
for vid in ("apriel/llamacpp/test-chat::Apriel-1.6-15b-Thinker-fixed/reasoning_content",
            "apriel/llamacpp/test-chat::Apriel-1.6-15b-Thinker-fixed/reasoning_tool_call"):
    _ours(vid, "the reasoning is what the model wrote: the opening phrase is the prompt's (llama.cpp counts its generation "
               "prompt as reasoning), and the newline before the close stays the reasoning's", reasoning="I'm\nthinking\n")
for preset in ("cmd3", "cmd4"):
    _ours(f"cohere_command/vllm/cohere_command::TestExtractToolCalls[{preset}-single_tool_call]",
          "verbatim: the reasoning keeps the space the model wrote after <|START_THINKING|> (vLLM's melody strips it)",
          reasoning=" i will call foo with query1")
    _ours(f"cohere_command/vllm/cohere_command::TestExtractToolCalls[{preset}-citations_no_tool_calls]",
          "verbatim: the citation markup (<co>…</co: 0:[1]>) stays in the text it was written in (vLLM's melody takes the "
          "citations out into their own field)",
          reasoning="This is a rainbow <co>emoji: 🌈</co: 0:[1]>", content="foo <co>bar</co: 0:[1,2],1:[3,4]>")
_ours("cohere_command/sglang/cohere_command4_detector::TestCohereCommand4Detector::test_truncated_body_uses_partial_fallback", CUT_OFF,
      calls=[], invalid=1, content=None)
_ours("cohere_command/sglang/cohere_command4_detector::TestCohereCommand4Detector::test_malformed_body_returns_normal_text", NOTHING_LOST,
      content="prefix " + START_ACTION + "[not valid json" + END_ACTION)
STRING_TAG = ("<tool_call> is no marker of Granite 3: its tokenizer and template have the special token <|tool_call|>, and "
              "the text '<tool_call>' stays the answer's (vLLM reads both)")
for mode in ("True", "False"):
    _ours(f"granite3/vllm/granite::TestGraniteToolParser::test_granite_string_prefix_format[{mode}]", STRING_TAG, calls=[],
          content='<tool_call> [{"name": "get_weather", "arguments": {"city": "Tokyo"}}]')
    for test, body in (("test_various_data_types", VARIOUS_BODY), ("test_escaped_strings", ESCAPED_BODY)):
        _ours(f"granite3/vllm/granite::{test}[{mode}]", STRING_TAG, calls=[], content="<tool_call> [" + body + "]")
