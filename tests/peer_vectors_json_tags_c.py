"""The peers' own test vectors for ERNIE 4.5, MiMo, dots, Poolside v1 and FunctionGemma (issue 38), as data.

ernie4_5 (ERNIE-4.5 Thinking: Hermes' ``<tool_call>\\n{"name", "arguments"}\\n</tool_call>`` after
``</think>``), mimo (MiMo-V2-Flash / V2.6: ``<tool_call><function=NAME><parameter=K>V</parameter>
</function></tool_call>``, values verbatim), dots (``<dots_function_call><invoke name="NAME">
<parameter name="K">V</parameter></invoke></dots_function_call>``), poolside_v1 (Laguna: GLM-4.5's
``<tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></tool_call>``) and functiongemma
(``<start_function_call>call:NAME{key:<escape>text<escape>}<end_function_call>``). SmolLM3 (smollm3)
has no parser of its own in the peers (it is Qwen3's Hermes markup, whose vectors
tests/test_peer_cases.py holds), so none here.

Each vector is a model output from a peer's test (vLLM's tests/tool_parsers and tests/reasoning,
SGLang's test/registered/unit/function_call), what that test expects of it, the tools it gives,
the chunks it streams it in, and its origin (repository, file, test, commit). They are facts
lifted from the peers' tests, not their code; the conventions are those of
``peer_vectors_newest.py`` (whose ``Vector``, ``ANY`` and schema shorthands this module imports),
as ``peer_vectors_pythonic.py`` uses them:

* ``content=None``: the peer expects no content (``None`` or ``""``); ``ANY``: the test does not
  look at it. ``invalid=ANY`` where the peer drops a call it cannot read (an unknown tool, a
  block with no function in it): the test says the call is not returned, not whether it counts
  as a broken one.
* vLLM's tool parsers run without a reasoning parser (``thinking=False``); ERNIE's reasoning
  parser's vectors are read as the format starts (``thinking=None``: inside the reasoning).
* vLLM's ERNIE streaming cases stream in the deltas of ERNIE's own tokenizer, which are not
  recorded (``chunks=None``; the ``chars`` path reads them finer).
* :data:`ARGS_AS_WRITTEN`: the peer's test checks only the names (or only how many calls there
  are); the vector's calls carry the names and the argument values as the call writes them.
* :data:`CONTAINS`: the peer's test checks only that the content holds these substrings.
"""

from __future__ import annotations

from typing import Any

from helpers import fn
from peer_vectors_newest import ANY, B, I, O, S, Vector

VECTORS: dict[str, Vector] = {}
ARGS_AS_WRITTEN: set[str] = set()  # the test checks only names or counts: the arguments are the call's as written
CONTAINS: dict[str, tuple[str, ...]] = {}  # the test checks only these substrings of the content


def add(v: Vector, *, written: bool = False, contains: tuple[str, ...] = ()) -> None:
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


def put(vid: str, fmt: str, text: str, calls: Any, **kw: Any) -> None:
    """A vector, the module's own marks (``written``, ``contains``) taken from ``kw``."""
    written, contains = kw.pop("written", False), kw.pop("contains", ())
    add(Vector(vid, fmt, text, calls, **kw), written=written, contains=contains)


UNKNOWN_INVALID = ("a call to a tool the request did not give is reported invalid with its text, not as the content's text "
                   "(the peer hands the block back as content)")

# ============================================================================================
# ernie4_5: vLLM tests/tool_parsers/test_ernie45_moe_tool_parser.py and
# tests/reasoning/test_ernie45_reasoning_parser.py
# ============================================================================================
VE = "vllm-project/vllm tests/tool_parsers/test_ernie45_moe_tool_parser.py @0a26f84cc20c2dae0b6af221007a9a26d507a417::"
VER = "vllm-project/vllm tests/reasoning/test_ernie45_reasoning_parser.py @0fed8908ced25e6eb8d29e222515cee2ce5b2e37::"
E_BEIJING = ("get_current_temperature", {"location": "Beijing"})
E_GUANGZHOU = ("get_temperature_unit", {"location": "Guangzhou", "unit": "c"})
E_ONE = '<tool_call>\n{"name": "get_current_temperature", "arguments": {"location": "Beijing"}}\n</tool_call>\n'
E_TWO = E_ONE + '<tool_call>\n{"name": "get_temperature_unit", "arguments": {"location": "Guangzhou", "unit": "c"}}\n</tool_call>\n'
E_THINK = "I need to call two tools to handle these two issues separately.\n</think>\n\n"
E_REASONING_SPLIT = ("the reasoning is read as reasoning, as the format starts (ERNIE's template opens it): the text before "
                     "</think> is the reasoning, not content holding the marker (vLLM's tool parser runs without its reasoning "
                     "parser and keeps '…\\n</think>' as content)")


def ve(test: str, text: str, calls: Any, **kw: Any) -> None:
    put(f"ernie4_5/vllm/ernie45::{test}", "ernie4_5", text, calls, origin=VE + test.split("[")[0], **kw)


ve("test_extract_tool_calls_no_tools", "This is a test", [], content="This is a test")
for test in ("test_extract_tool_calls", "test_extract_tool_calls_streaming_incremental"):
    ve(f"{test}[single_tool_call]", E_ONE, [E_BEIJING], content=None)
    ve(f"{test}[multiple_tool_calls]", E_TWO, [E_BEIJING, E_GUANGZHOU], content=None)
    ve(f"{test}[tool_call_with_content_before]", E_THINK + E_TWO, [E_BEIJING, E_GUANGZHOU], content=None,
       reasoning="I need to call two tools to handle these two issues separately.\n", thinking=None, why=E_REASONING_SPLIT)


def ver(test: str, text: str, reasoning: Any, content: Any) -> None:
    put(f"ernie4_5/vllm/ernie45_reasoning::{test}", "ernie4_5", text, [], content=content, reasoning=reasoning,
        thinking=None, origin=VER + test.split("[")[0])


for case, text, reasoning, content in (
    ("with_think", "abc</think>def", "abc", "def"),
    ("with_think_stream", "abc</think>def", "abc", "def"),
    ("without_think", "abc", "abc", None),
    ("without_think_stream", "abc", "abc", None),
    ("complete_reasoning", "abc</think>", "abc", None),
    ("complete_reasoning_stream", "abc</think>", "abc", None),
    ("multiline_reasoning", "abc\nABC</think>def\nDEF", "abc\nABC", "def\nDEF"),
    ("multiline_reasoning_stream", "abc\nABC</think>def\nDEF", "abc\nABC", "def\nDEF"),
):
    ver(f"test_reasoning[{case}]", text, reasoning, content)

# ============================================================================================
# mimo: vLLM tests/tool_parsers/test_mimov2_flash_tool_parser.py (MiMo-V2-Flash), SGLang
# test_mimo_detector.py and test_mimo_detector_streaming.py
# ============================================================================================
VM = "vllm-project/vllm tests/tool_parsers/test_mimov2_flash_tool_parser.py @e3a512615bae49398676131dc250b12a9b34f899::"
SM = "sgl-project/sglang test/registered/unit/function_call/test_mimo_detector.py @3e91946d0878333391557b2b0ffbc03d183ac83f::"
SMS = "sgl-project/sglang test/registered/unit/function_call/test_mimo_detector_streaming.py @55fde98abe98178340bfc2395cd5d5f798f199c4::"


def mimo_call(name: str, *params: tuple[str, str], newlines: bool = True) -> str:
    nl = "\n" if newlines else ""
    body = "".join(f"<parameter={k}>{v}</parameter>{nl}" for k, v in params)
    return f"<tool_call>{nl}<function={name}>{nl}{body}</function>{nl}</tool_call>"


def vm(test: str, text: str, calls: Any, **kw: Any) -> None:
    put(f"mimo/vllm/mimov2_flash::{test}", "mimo", text, calls, origin=VM + test, **kw)


vm("test_extract_basic_tool_call", "Here is the result:\n" + mimo_call("execute_bash", ("command", "pwd && ls")),
   [("execute_bash", {"command": "pwd && ls"})], content=ANY)
vm("test_extract_multiple_tool_calls",
   "Here is the result:\n" + mimo_call("execute_bash", ("command", "pwd")) + "\n"
   "<tool_call>\n<parameter=command>ls -la</parameter>\n<function=list_files>\n</function>\n</tool_call>",
   [("execute_bash", {"command": "pwd"})], content="Here is the result:\n", invalid=1,
   why=("a parameter written before the call's <function=NAME> header is no call of the layout: that block is reported "
        "invalid with its text, the call before it stands (vLLM's test counts two calls by name only)"))
vm("test_extract_tool_call_with_multiple_parameters",
   mimo_call("execute_code", ("language", "python"), ("code", 'print("hello")')),
   [("execute_code", {"language": "python", "code": 'print("hello")'})], content=None)
vm("test_extract_no_tool_calls", "This is just regular text without any tool calls.", [],
   content="This is just regular text without any tool calls.")
vm("test_extract_content_before_tool_call", "Let me execute that command for you.\n" + mimo_call("execute_bash", ("command", "echo hello")),
   [("execute_bash", {"command": "echo hello"})], content="Let me execute that command for you.\n",
   why="verbatim: the content keeps the newline the model wrote before the call (vLLM's test strips it)")
vm("test_extract_tool_call_empty_arguments", mimo_call("noop"), [("noop", {})], content=None)
vm("test_extract_tool_call_multiline_parameter",
   mimo_call("example_function_name", ("example_parameter_1", "value_1"),
             ("example_parameter_2", "This is the value for the second parameter\nthat can span\nmultiple lines")),
   [("example_function_name", {"example_parameter_1": "value_1",
                               "example_parameter_2": "This is the value for the second parameter\nthat can span\nmultiple lines"})],
   content=None)
vm("test_streaming_basic", "Hello " + mimo_call("execute_bash", ("command", "ls")), [("execute_bash", {"command": "ls"})],
   content=ANY, contains=("Hello",))
vm("test_streaming_tool_with_args", mimo_call("execute_bash", ("command", "pwd")), [("execute_bash", {"command": "pwd"})], content=None)
MIMO_STAGES = ["<tool_call>\n<function=test>", "\n<parameter=arg1>", "value1", "</parameter>\n</function>\n</tool_call>"]
vm("test_streaming_incremental", "".join(MIMO_STAGES), [("test", {"arg1": "value1"})], content=None, chunks=MIMO_STAGES, written=True)
vm("test_streaming_no_tool_calls", "This is just regular text.", [], content=ANY, chunks=["This is just", " regular text."],
   contains=("regular text.",))

M_TOOLS = [fn("execute_bash", ["command"], command=S), fn("get_weather", city=S, days=I, verbose=B)]


def sm(test: str, text: str, calls: Any, **kw: Any) -> None:
    put(f"mimo/sglang/mimo::{test}", "mimo", text, calls, tools=M_TOOLS, origin=SM + test, **kw)


sm("TestMiMoDetectorDetectAndParse::test_single_call_is_parsed", mimo_call("execute_bash", ("command", "pwd && ls")),
   [("execute_bash", {"command": "pwd && ls"})])
sm("TestMiMoDetectorDetectAndParse::test_multiple_calls_accumulate",
   mimo_call("execute_bash", ("command", "ls"), newlines=False) + mimo_call("get_weather", ("city", "Tokyo"), newlines=False),
   [("execute_bash", {"command": "ls"}), ("get_weather", {"city": "Tokyo"})], written=True)
sm("TestMiMoDetectorDetectAndParse::test_leading_normal_text_preserved",
   "Sure, running now. " + mimo_call("execute_bash", ("command", "ls"), newlines=False), [("execute_bash", {"command": "ls"})],
   content="Sure, running now. ")
sm("TestMiMoDetectorDetectAndParse::test_plain_text_yields_no_calls", "Just prose.", [], content="Just prose.")
sm("TestMiMoDetectorDetectAndParse::test_parameter_types_are_coerced_per_schema",
   mimo_call("get_weather", ("city", "Berlin"), ("days", "5"), ("verbose", "true"), newlines=False),
   [("get_weather", {"city": "Berlin", "days": 5, "verbose": True})])
sm("TestMiMoDetectorDetectAndParse::test_unknown_function_is_dropped_from_calls_by_default",
   mimo_call("unknown_fn", ("x", "1"), newlines=False), [], invalid=ANY)
sm("TestMiMoDetectorDetectAndParse::test_function_tag_missing_yields_no_call", "<tool_call>no function here</tool_call>", [],
   invalid=ANY)
sm("TestMiMoDetectorDetectAndParse::test_parameterless_function_call", mimo_call("execute_bash", newlines=False), [], invalid=1,
   why=("the test's execute_bash requires 'command': a call without it breaks the tool's schema and is reported invalid with "
        "its text (SGLang returns it with empty arguments)"))

MS_TOOLS = [fn("search", query=S)]
MS_CALL = mimo_call("search", ("query", "ls"))


def sms(test: str, text: str, calls: Any, **kw: Any) -> None:
    put(f"mimo/sglang/mimo_streaming::{test}", "mimo", text, calls, tools=MS_TOOLS, origin=SMS + test, **kw)


sms("TestMiMoStreamingRegression::test_text_after_last_tool_call_is_flushed", MS_CALL + "Done, files are listed.",
    [("search", {"query": "ls"})], content="Done, files are listed.", chunks=[MS_CALL, "Done, files are listed."])
sms("TestMiMoStreamingRegression::test_split_bot_token_across_increments_still_parses", "I will run it.\n" + MS_CALL,
    [("search", {"query": "ls"})], content="I will run it.\n", chunks=["I will run it.\n<tool", MS_CALL[len("<tool"):]])
sms("TestMiMoStreamingRegression::test_char_level_streaming_matches_one_shot", "Let me check.\n" + MS_CALL,
    [("search", {"query": "ls"})], content="Let me check.\n", chunks=1)
sms("TestMiMoStreamingRegression::test_text_between_two_calls_is_preserved", MS_CALL + "\nand also\n" + MS_CALL,
    [("search", {"query": "ls"}), ("search", {"query": "ls"})], content=ANY, chunks=7, contains=("and also",))

# ============================================================================================
# dots: vLLM tests/tool_parsers/test_dots_tool_parser.py, SGLang test_dots_detector.py
# ============================================================================================
VD = "vllm-project/vllm tests/tool_parsers/test_dots_tool_parser.py @42955d4cf0fe76f6f8fde6eda78283eae3b03c05::"
SD = "sgl-project/sglang test/registered/unit/function_call/test_dots_detector.py @04b26f569ffc7035355fd22742692bea2a9c8dc1::"
D_OPEN, D_CLOSE = "<dots_function_call>", "</dots_function_call>"
SET_LOCATION = fn("set_location", location={"$ref": "#/$defs/Location"}, days=I, include_weather=B)
SET_LOCATION["function"]["parameters"]["$defs"] = {"Location": {"type": "object", "properties": {"city": S}}}
D_SET_LOCATION = (D_OPEN + '<invoke name="set_location">' '<parameter name="location">{"city": "Shanghai"}</parameter>'
                  '<parameter name="days">3</parameter>' '<parameter name="include_weather">true</parameter>' "</invoke>" + D_CLOSE)
D_SET_LOCATION_ARGS = ("set_location", {"location": {"city": "Shanghai"}, "days": 3, "include_weather": True})
D_SEARCH = [fn("search", query=S)]
D_SEARCH_OPEN = [fn("search", query=S), fn("open", id=I)]


def invoke(name: str, key: str, value: str) -> str:
    return f'<invoke name="{name}"><parameter name="{key}">{value}</parameter></invoke>'


D_TWO_BLOCKS_JSON = (D_OPEN + invoke("search", "query", "chairs") + invoke("open", "id", "7") + D_CLOSE
                     + D_OPEN + '{"name":"search","arguments":{"query":"tables"}}' + D_CLOSE)
D_JSON_WHY = ("a JSON call object inside <dots_function_call> is not the template's <invoke> body: that block holds no call and "
              "stays the content's text, markers and all; the calls before it stand (the peers read it as a fallback)")
D_JSON_BLOCK = D_OPEN + '{"name":"search","arguments":{"query":"tables"}}' + D_CLOSE
D_GHOST = D_OPEN + invoke("ghost", "query", "chairs") + D_CLOSE
D_CHAIRS_TABLES = [D_OPEN + invoke("search", "query", "chairs") + D_CLOSE, D_OPEN + invoke("search", "query", "tables") + D_CLOSE]
D_GARBAGE_WHY = ("a <dots_function_call> block with no <invoke> in it is no tool block: its text, markers and all, stays in the content "
                 "(the peers drop the markers and keep 'garbage')")
D_STRAY_END_WHY = "a closing </dots_function_call> with no block open is the content's text, kept verbatim (the peers strip it)"
D_JSON_STREAM = ["<dots_function_call>", '{"name":"search","arguments":{"query":"chairs"}}', "</dots_function_call>"]


def vd(test: str, text: str, calls: Any, **kw: Any) -> None:
    put(f"dots/vllm/dots::{test}", "dots", text, calls, origin=VD + test, **kw)


def sd(test: str, text: str, calls: Any, **kw: Any) -> None:
    put(f"dots/sglang/dots::{test}", "dots", text, calls, origin=SD + test, **kw)


for each, prefix in ((vd, ""), (sd, "TestDotsToolDetector::")):
    each(prefix + "test_non_stream_xml_converts_schema_types_and_resolves_ref", "ok" + D_SET_LOCATION, [D_SET_LOCATION_ARGS],
        content="ok", tools=[SET_LOCATION])
    each(prefix + "test_non_stream_supports_multiple_invokes_and_json_fallback", D_TWO_BLOCKS_JSON,
        [("search", {"query": "chairs"}), ("open", {"id": 7})], content=D_JSON_BLOCK, tools=D_SEARCH_OPEN, why=D_JSON_WHY)
    each(prefix + "test_streaming_buffers_partial_marker_and_emits_all_complete_calls", "visible" + "".join(D_CHAIRS_TABLES),
        [("search", {"query": "chairs"}), ("search", {"query": "tables"})], content="visible", tools=D_SEARCH,
        chunks=["visible<dots_func", "".join(D_CHAIRS_TABLES)[len("<dots_func"):]])
    each(prefix + "test_streaming_strips_stray_end_marker" + ("_from_normal_text" if prefix else ""), "some text </dots_function_call>", [],
        content="some text </dots_function_call>", tools=D_SEARCH if not prefix else [], why=D_STRAY_END_WHY)
    each(prefix + "test_streaming_flushes_partial_opening_marker_at_eof", "answer <dots_func", [], content="answer <dots_func", tools=D_SEARCH)
    each(prefix + ("test_streaming_emits_complete_json_body_before_end_marker_without_duplication" if prefix
                  else "test_streaming_emits_complete_json_before_end_marker_without_duplication"), "".join(D_JSON_STREAM), [],
        content="".join(D_JSON_STREAM), tools=D_SEARCH, chunks=D_JSON_STREAM, why=D_JSON_WHY)
    each(prefix + "test_streaming_malformed_block_does_not_block_" + ("a_" if prefix else "") + "later_valid_call",
        D_OPEN + "garbage" + D_CLOSE + D_CHAIRS_TABLES[0], [("search", {"query": "chairs"})], content=D_OPEN + "garbage" + D_CLOSE,
        tools=D_SEARCH, chunks=[D_OPEN + "garbage" + D_CLOSE, D_CHAIRS_TABLES[0]], why=D_GARBAGE_WHY)
vd("test_non_stream_unknown_tool_is_left_as_content", D_GHOST, [], content=None, invalid=1, tools=D_SEARCH, why=UNKNOWN_INVALID)
vd("test_streaming_filters_unknown_tools_and_surfaces_content", D_GHOST, [], content=None, invalid=1, tools=D_SEARCH, why=UNKNOWN_INVALID)
vd("test_non_stream_extract_with_parser_tools_and_none_request_tools", D_CHAIRS_TABLES[0], [("search", {"query": "chairs"})])
vd("test_non_stream_with_function_tool", D_CHAIRS_TABLES[0], [("search", {"query": "chairs"})], tools=D_SEARCH)
D_TABLE_STREAM = [D_OPEN, invoke("search", "query", "table"), D_CLOSE]
vd("test_streaming_with_function_tool_and_parser_tools", "".join(D_TABLE_STREAM), [("search", {"query": "table"})], tools=D_SEARCH,
   chunks=D_TABLE_STREAM)
sd("TestDotsToolDetector::test_dots_reasoning_uses_qwen3_format", "Need to inspect inputs.</think>Final answer", [],
   reasoning="Need to inspect inputs.", content="Final answer", thinking=True)
sd("TestDotsToolDetector::test_non_stream_keeps_text_between_and_after_tool_calls",
   "before" + D_CHAIRS_TABLES[0] + "middle" + D_CHAIRS_TABLES[1] + "after",
   [("search", {"query": "chairs"}), ("search", {"query": "tables"})], content="beforemiddleafter", tools=D_SEARCH)
sd("TestDotsToolDetector::test_streaming_filters_unknown_tools_and_surfaces_the_content", D_GHOST, [], content=None, invalid=1,
   tools=D_SEARCH, why=UNKNOWN_INVALID)

# ============================================================================================
# poolside_v1: vLLM tests/tool_parsers/test_poolside_v1_tool_parser.py, SGLang
# test_poolside_v1_detector.py
# ============================================================================================
VP = "vllm-project/vllm tests/tool_parsers/test_poolside_v1_tool_parser.py @2a8137f637c3827eff3dd1a61223274e67fb8851::"
SP = "sgl-project/sglang test/registered/unit/function_call/test_poolside_v1_detector.py @199614ee743d0dd65722d6362d26f88c795a91b4::"
WRITE_FILE = [fn("write_file", ["content"], content=S, mode=I)]
P_WEATHER = [fn("get_weather", ["city"], city=S)]
P_CODE = "    def f():\n        return 1\n"


def vp(test: str, text: str, calls: Any, **kw: Any) -> None:
    put(f"poolside_v1/vllm/poolside_v1::{test}", "poolside_v1", text, calls, origin=VP + test, **kw)


vp("test_string_arg_preserves_whitespace", f"<tool_call>write_file\n<arg_key>content</arg_key>\n<arg_value>{P_CODE}</arg_value>\n</tool_call>",
   [("write_file", {"content": P_CODE})], tools=WRITE_FILE)
vp("test_non_string_arg_still_deserialized",
   "<tool_call>write_file\n<arg_key>content</arg_key>\n<arg_value>hi</arg_value>\n<arg_key>mode</arg_key>\n<arg_value> 420 </arg_value>\n</tool_call>",
   [("write_file", {"content": "hi", "mode": 420})], tools=WRITE_FILE)
vp("test_responses_extract_tool_calls_with_flat_tools",
   "<tool_call>write_file\n<arg_key>content</arg_key>\n<arg_value>  x = 1\n</arg_value>\n</tool_call>",
   [("write_file", {"content": "  x = 1\n"})], tools=WRITE_FILE)
P_PARIS_TIGHT = "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>"
vp("test_no_newline_after_name_non_streaming", P_PARIS_TIGHT, [("get_weather", {"city": "Paris"})], tools=P_WEATHER)
vp("test_newline_after_name_still_parses_non_streaming",
   "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>", [("get_weather", {"city": "Paris"})],
   tools=P_WEATHER)
vp("test_no_newline_after_name_streaming", P_PARIS_TIGHT, [("get_weather", {"city": "Paris"})], tools=P_WEATHER, chunks=1)
vp("test_whitespace_padded_tool_call_is_not_quadratic", "<tool_call>" + " " * 4096 + "<x</tool_call>", [], invalid=ANY, tools=P_WEATHER)
vp("test_whitespace_only_tool_call_name_is_rejected", "<tool_call>   </tool_call>", [], invalid=ANY, tools=P_WEATHER)
vp("test_function_name_with_internal_whitespace_still_parses",
   "<tool_call>  get weather  <arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>", [], invalid=1, tools=P_WEATHER,
   why=("a tool's name holds no whitespace in thinkgate's reading of the header (a name is one word): the call is reported invalid "
        "with its text, where vLLM returns a call to 'get weather'"))

P_TOOLS = [fn("get_weather", ["location"], location=S, count=I, options=O), fn("search", ["query"], query=S), fn("now")]


def kv(key: str, value: str) -> str:
    return f"<arg_key>{key}</arg_key>\n<arg_value>{value}</arg_value>\n"


def sp(test: str, text: str, calls: Any, **kw: Any) -> None:
    put(f"poolside_v1/sglang/poolside_v1::{test}", "poolside_v1", text, calls, tools=P_TOOLS,
        origin=SP + "TestPoolsideV1Detector::" + test, **kw)


P_NYC = "<tool_call>get_weather\n" + kv("location", "NYC") + "</tool_call>"
P_PIZZA = "<tool_call>search\n" + kv("query", "pizza") + "</tool_call>"
sp("test_single_tool_call_string_arg", "<tool_call>get_weather\n" + kv("location", "San Francisco") + "</tool_call>",
   [("get_weather", {"location": "San Francisco"})])
sp("test_single_tool_call_mixed_types",
   "<tool_call>get_weather\n" + kv("location", "London") + kv("count", "3") + kv("options", '{"verbose": true}') + "</tool_call>",
   [("get_weather", {"location": "London", "count": 3, "options": {"verbose": True}})])
sp("test_multiple_tool_calls", P_NYC + "\n" + P_PIZZA, [("get_weather", {"location": "NYC"}), ("search", {"query": "pizza"})])
sp("test_leading_text_extracted_as_normal", "Sure, checking now. <tool_call>search\n" + kv("query", "tacos") + "</tool_call>",
   [("search", {"query": "tacos"})], content="Sure, checking now. ")
sp("test_unknown_tool_dropped", "<tool_call>nonexistent_fn\n" + kv("x", "1") + "</tool_call>", [], invalid=ANY)
sp("test_malformed_value_falls_back_to_string", "<tool_call>get_weather\n" + kv("options", "not_json") + "</tool_call>", [],
   invalid=1, why=("a value that is not JSON for an object parameter is a broken call, reported invalid with its text "
                   "(thinkgate never turns it into a string the schema does not allow; SGLang falls back to the string)"))
sp("test_zero_arg_call", "<tool_call>now\n</tool_call>", [("now", {})])
sp("test_zero_arg_call_no_newline", "<tool_call>now</tool_call>", [("now", {})])
sp("test_truncated_pre_value_emits_no_calls", "<tool_call>get_weather\n<arg_key>location</arg_key>\n<arg_value>San Fr", [], invalid=ANY)
sp("test_truncated_post_value_emits_no_calls", "<tool_call>get_weather\n" + kv("location", "SF"), [], invalid=ANY)
sp("test_set_literal_falls_back_to_raw_string", "<tool_call>get_weather\n" + kv("options", "{1, 2, 3}") + "</tool_call>", [], invalid=1,
   why="'{1, 2, 3}' is no JSON object: the call is reported invalid with its text, where SGLang keeps the raw string")
sp("test_truncated_after_complete_call_keeps_complete", P_NYC + "\n<tool_call>search\n<arg_key>q", [("get_weather", {"location": "NYC"})],
   invalid=ANY)
sp("test_arg_key_without_value_emits_empty_call", "<tool_call>get_weather\n<arg_key>location</arg_key></tool_call>", [], invalid=1,
   why="a key with no value is a broken parameter: the call is reported invalid with its text, where SGLang drops the key")
P_ORPHAN = "<tool_call>get_weather\n<arg_key>location</arg_key></tool_call>" "<tool_call>search\n" + kv("query", "tacos") + "</tool_call>"
sp("test_streaming_arg_key_without_value_closes_call", P_ORPHAN, [("search", {"query": "tacos"})], invalid=1, chunks=8,
   why="the first call's key has no value: that call is reported invalid with its text, the next one stands (SGLang drops the key)")
P_TWO_KEYS = "<tool_call>get_weather\n<arg_key>location</arg_key><arg_key>count</arg_key><arg_value>3</arg_value>\n</tool_call>"
for test, chunks in (("test_orphan_key_followed_by_new_key_uses_new_key", None), ("test_streaming_orphan_key_followed_by_new_key_uses_new_key", 8)):
    sp(test, P_TWO_KEYS, [], invalid=1, chunks=chunks,
       why="a key followed by another key is a broken parameter: the call is reported invalid with its text (SGLang keeps the second)")
sp("test_streaming_malformed_no_name_does_not_hang", "<tool_call><arg_key>k</arg_key><arg_value>v</arg_value></tool_call>", [], invalid=ANY)
sp("test_streaming_arg_tags_without_tool_call_wrapper", "<arg_key>k</arg_key><arg_value>v</arg_value>", [])
sp("test_streaming_single_call_chunked", "<tool_call>get_weather\n" + kv("location", "San Francisco") + "</tool_call>",
   [("get_weather", {"location": "San Francisco"})],
   chunks=["<tool_", "call>get_weather\n<arg_key>", "location</arg_key>\n<arg_value>San Fr", "ancisco</arg_value>\n</tool_call>"])
sp("test_streaming_char_by_char_robustness", "<tool_call>get_weather\n" + kv("location", "hello world") + "</tool_call>",
   [("get_weather", {"location": "hello world"})], chunks=1)
sp("test_streaming_index_is_sequential_not_tools_slot", "<tool_call>search\n" + kv("query", "tacos") + "</tool_call>",
   [("search", {"query": "tacos"})], chunks=1)
sp("test_streaming_multiple_calls", P_NYC + "\n" + P_PIZZA, [("get_weather", {"location": "NYC"}), ("search", {"query": "pizza"})], chunks=16)
sp("test_streaming_zero_arg_call", "<tool_call>now\n</tool_call>", [("now", {})], chunks=1)
P_FOO = ["Let me check. ", "<tool_call>search\n<arg_key>query</arg_key>\n", "<arg_value>foo</arg_value>\n</tool_call>"]
sp("test_streaming_text_before_tool_call", "".join(P_FOO), [("search", {"query": "foo"})], content="Let me check. ", chunks=P_FOO, written=True)

# ============================================================================================
# functiongemma: vLLM tests/tool_parsers/test_functiongemma_tool_parser.py (its
# TestParseArguments cases are argument strings, not outputs: left out)
# ============================================================================================
VFG = "vllm-project/vllm tests/tool_parsers/test_functiongemma_tool_parser.py @26c3628ca8265f4f5007ed8e3e28ac66dd23c8ae::"
FG_OPEN, FG_CLOSE, FG_ESC = "<start_function_call>", "<end_function_call>", "<escape>"
FG_NO_COMMA = ("the template writes a comma between two arguments: 'city:<escape>NYC<escape>unit:…' with none is no literal of the "
               "format, and the call is reported invalid with its text (vLLM's regex picks the pairs out wherever they stand)")


def fg_call(name: str, body: str) -> str:
    return f"{FG_OPEN}call:{name}{{{body}}}{FG_CLOSE}"


def vfg(test: str, text: str, calls: Any, **kw: Any) -> None:
    put(f"functiongemma/vllm/functiongemma::{test}", "functiongemma", text, calls, origin=VFG + test, **kw)


vfg("TestExtractToolCalls::test_no_tool_calls", "Hello, how can I help you today?", [], content="Hello, how can I help you today?")
vfg("TestExtractToolCalls::test_single_tool_call", fg_call("get_weather", "location:<escape>London<escape>"),
    [("get_weather", {"location": "London"})], content=None)
vfg("TestExtractToolCalls::test_multiple_arguments", fg_call("get_weather", "location:<escape>San Francisco<escape>,unit:<escape>celsius<escape>"),
    [("get_weather", {"location": "San Francisco", "unit": "celsius"})], content=None, written=True)
vfg("TestExtractToolCalls::test_text_before_tool_call",
    "Let me check the weather for you. " + fg_call("get_weather", "location:<escape>Paris<escape>"), [("get_weather", {"location": "Paris"})],
    content="Let me check the weather for you. ",
    why="verbatim: the content keeps the space the model wrote before the call (vLLM's test strips it)")
vfg("TestExtractToolCalls::test_multiple_tool_calls",
    fg_call("get_weather", "location:<escape>London<escape>") + fg_call("get_time", "timezone:<escape>UTC<escape>"),
    [("get_weather", {"location": "London"}), ("get_time", {"timezone": "UTC"})], content=None, written=True)
FG_TWO = [FG_OPEN + "call:get_weather{", "ci", "ty:<escape>NYC<escape>", "unit:<escape>celsius<escape>", "}" + FG_CLOSE]
vfg("TestExtractToolCallsStreaming::test_streamed_arguments_form_valid_json_with_two_keys", "".join(FG_TWO), [], invalid=1, chunks=FG_TWO,
    why=FG_NO_COMMA)
FG_THREE = [FG_OPEN + "call:search{", "query:<escape>python<escape>", "limit:<escape>10<escape>", "sort:<escape>relevance<escape>", "}" + FG_CLOSE]
vfg("TestExtractToolCallsStreaming::test_streamed_arguments_form_valid_json_with_three_keys", "".join(FG_THREE), [], invalid=1, chunks=FG_THREE,
    why=FG_NO_COMMA)
