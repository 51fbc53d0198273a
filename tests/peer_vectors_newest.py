"""The peers' own test vectors for the newest families (issue 35's measurement), as data.

deepseek_v3_2 (DSML), deepseek_v4, minimax_m2, qwen3_5, gemma4 and kimi_k3: each vector is a
model output from a peer's test (vLLM's tests/tool_parsers and tests/reasoning, SGLang's
test/registered unit tests, llama.cpp's tests/test-chat.cpp), what that test expects of it
(reasoning, content, calls by name and arguments, how many calls are broken), the tools the test
gives, the chunks the test streams it in, and its origin (repository, file, test, commit). They
are facts lifted from the peers' tests, not their code.

Every vector is read on three paths (:data:`PATHS`): whole, in the peer's own chunks and one
character at a time. :func:`failures` says, per path, where thinkgate's reading differs from the
expectation; ``tests/test_peer_cases_newest.py`` asserts it is empty and
``benchmarks/peer_vectors.py`` counts the vectors that pass.

Conventions (as in ``tests/test_peer_cases.py``):

* ``content=None``: the peer expects no content (``None`` or ``""``); ``ANY``: the test does not
  look at it.
* ``why``: thinkgate differs from the peer on purpose (verbatim text, reasoning split from the
  answer, a broken call reported rather than repaired); the vector then holds thinkgate's reading.
* ``xfail``: ``"issue 35 point N: ..."``, where thinkgate fails today and issue 35 says it should
  read the output as the peer does. The lead flips these as the points land. ``"not in issue 35:
  ..."``: thinkgate's reading is wrong in a way no point of the issue names.
* vLLM's tool parsers run without their reasoning parser: they see the reasoning as content, so
  their vectors are read with ``thinking=False`` unless the test gives a reasoning parser.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from helpers import fn
from thinkgate.formats.deepseek import DSML, THINK_CLOSE, THINK_OPEN
from thinkgate.parsing import StreamParser

ANY = object()  # the peer's test does not check this part
PATHS = ("whole", "chunks", "chars")


class Vector(NamedTuple):
    id: str  # format/peer/test
    fmt: str
    text: str
    calls: Any  # [(name, arguments as a dict)], or ANY
    content: Any = ANY
    reasoning: Any = ANY
    invalid: Any = 0  # how many calls are reported invalid, or ANY
    thinking: Any = False  # None: the format's default
    tools: list | None = None
    chunks: Any = None  # the peer's chunks: a list, "lines" (each ending in its newline), or a size
    origin: str = ""  # repository, file, test, commit
    why: str = ""  # thinkgate differs from the peer on purpose
    xfail: str = ""  # "issue 35 point N: ..." where thinkgate fails today


VECTORS: dict[str, Vector] = {}
# an xfail no point of issue 35 covers: thinkgate's reading is wrong in a way the issue does not name
NOT_IN_ISSUE = "not in issue 35: "


def add(v: Vector) -> None:
    assert v.id not in VECTORS, v.id
    assert v.id.startswith(v.fmt + "/"), v.id
    assert not (v.why and v.xfail), v.id  # a difference on purpose is asserted, never xfail
    assert not v.xfail or v.xfail.startswith(("issue 35 point ", NOT_IN_ISSUE)), v.id
    VECTORS[v.id] = v


S = {"type": "string"}
I = {"type": "integer"}
N = {"type": "number"}
B = {"type": "boolean"}
O = {"type": "object"}
A = {"type": "array"}



# --------------------------------------------------------------------------------------------
# running a vector
# --------------------------------------------------------------------------------------------
def peer_chunks(v: Vector) -> list[str]:
    if v.chunks is None:
        return [v.text]
    if v.chunks == "lines":
        return v.text.splitlines(keepends=True) or [""]
    if isinstance(v.chunks, int):
        return [v.text[i : i + v.chunks] for i in range(0, len(v.text), v.chunks)] or [""]
    assert "".join(v.chunks) == v.text, v.id
    return list(v.chunks)


def path_chunks(v: Vector, path: str) -> list[str]:
    return {"whole": lambda: [v.text], "chunks": lambda: peer_chunks(v), "chars": lambda: list(v.text)}[path]()


def read(v: Vector, path: str):
    """The message thinkgate reads from ``v`` fed in the chunks of ``path``."""
    parser = StreamParser(v.fmt, v.thinking, v.tools)
    for chunk in path_chunks(v, path):
        parser.feed_events(chunk)
    parser.finish_events()
    return parser.message


def _calls(message) -> list:
    out = []
    for c in message.tool_calls:
        try:
            out.append((c.name, json.loads(c.arguments)))
        except ValueError:
            out.append((c.name, c.arguments))
    return out


def mismatches(v: Vector, message) -> list[str]:
    """What in ``message`` differs from ``v``'s expectation (empty: it passes)."""
    out = []
    if v.calls is not ANY and _calls(message) != v.calls:
        out.append(f"calls {_calls(message)!r} != {v.calls!r}")
    if v.invalid is not ANY and len(message.invalid_tool_calls) != v.invalid:
        out.append(f"{len(message.invalid_tool_calls)} invalid calls != {v.invalid}: {[c.text for c in message.invalid_tool_calls]!r}")
    if v.content is not ANY and (message.content or None) != v.content:
        out.append(f"content {message.content!r} != {v.content!r}")
    if v.reasoning is not ANY and (message.reasoning_content or None) != v.reasoning:
        out.append(f"reasoning {message.reasoning_content!r} != {v.reasoning!r}")
    return out


def failures(v: Vector) -> dict[str, list[str]]:
    """Per path, what differs from the expectation (a path that passes is left out); a parser
    that raises fails that path with the error's line."""
    out = {}
    for path in PATHS:
        try:
            bad = mismatches(v, read(v, path))
        except Exception as e:  # noqa: BLE001 - a crash is one more way to fail a vector
            bad = [f"{type(e).__name__}: {e}"]
        if bad:
            out[path] = bad
    return out


# --------------------------------------------------------------------------------------------
# deepseek_v3_2 (DSML): vLLM tests/tool_parsers/test_deepseekv32_tool_parser.py
# --------------------------------------------------------------------------------------------
FC = ("<｜DSML｜function_calls>", "</｜DSML｜function_calls>")
INV = '<｜DSML｜invoke name="'
INV_END = "</｜DSML｜invoke>"
PAR = '<｜DSML｜parameter name="'
PAR_END = "</｜DSML｜parameter>"


def dsml_param(key: str, value: Any, string: bool = True) -> str:
    return f'{PAR}{key}" string="{"true" if string else "false"}">{value}{PAR_END}'


def dsml_invoke(name: str, params: str, sep: str = "\n") -> str:
    """One invoke as the tests write it: ``params`` is the joined parameter text."""
    return f'{INV}{name}">\n{params}{sep}{INV_END}\n'


def dsml_block(*invokes: str, block=FC) -> str:
    return block[0] + "\n" + "".join(invokes) + block[1]


def vllm32_call(name: str, params: dict) -> str:
    """vLLM's ``build_tool_call``: string parameters back to back, then a newline."""
    return dsml_block(dsml_invoke(name, "".join(dsml_param(k, v) for k, v in params.items())))


def dsml_lines(name: str, *params: str, block=FC) -> str:
    """A call as most of the tests write it: each parameter on its own line."""
    return dsml_block(f'{INV}{name}">\n' + "".join(p + "\n" for p in params) + INV_END + "\n", block=block)


# readings that differ from vLLM's tests on purpose (the vectors hold thinkgate's)
REASONING_KEPT = "verbatim: the reasoning keeps the whitespace the model wrote before the tool block or the close (vLLM's test strips it)"
DUP_KEPT = ("verbatim: the reasoning and the answer keep the newlines the model wrote (vLLM's test checks only that the reasoning holds "
            "'Some reasoning')")
MALFORMED_PARAM = ("a parameter with no closing tag is malformed markup: the call is reported invalid with its text (vLLM closes the "
                   "value at the next parameter)")
WRAPPER_KEPT = ("the model wrote one parameter named arguments, its value the arguments' object: thinkgate returns the call as written "
                "(the schema leaves the key free), vLLM unwraps the object into the arguments where its keys are the tool's")
V32 = "vllm-project/vllm tests/tool_parsers/test_deepseekv32_tool_parser.py @00816550e740a13736f7ef9921097d51a3f01ede::"


def v32(test: str, text: str, calls: list, **kw: Any) -> None:
    add(Vector(f"deepseek_v3_2/vllm/{test}", "deepseek_v3_2", text, calls, origin=V32 + test, **kw))


WEATHER_LOC = fn("get_weather", location=S)
v32("test_no_tool_call", "just some text", [], content="just some text")
v32("test_single_tool_no_params", dsml_block(dsml_invoke("get_time", "", sep="")), [("get_time", {})])
v32("test_single_tool_with_params", vllm32_call("get_weather", {"location": "SF", "date": "2024-01-16"}),
    [("get_weather", {"location": "SF", "date": "2024-01-16"})])
v32("test_content_before_tool_call", "Sure, let me check! " + vllm32_call("get_weather", {"location": "NYC"}),
    [("get_weather", {"location": "NYC"})], content="Sure, let me check! ")
v32("test_no_content_prefix_returns_none", vllm32_call("get_weather", {"location": "NYC"}), [("get_weather", {"location": "NYC"})], content=None)
v32("test_multiple_tools", dsml_block(
    dsml_invoke("get_weather", dsml_param("location", "SF")), dsml_invoke("get_weather", dsml_param("location", "NYC"))),
    [("get_weather", {"location": "SF"}), ("get_weather", {"location": "NYC"})])
TOGGLE = [fn("toggle", enabled=B, count=I)]
TOGGLE_TEXT = dsml_lines("toggle", dsml_param("enabled", "true", False), dsml_param("count", 42, False))
v32("test_type_conversion_in_non_streaming", TOGGLE_TEXT, [("toggle", {"enabled": True, "count": 42})], tools=TOGGLE)
SCORE = [fn("score", value=I)]
v32("test_string_attr_true_coerced_by_schema", dsml_lines("score", dsml_param("value", 42)), [("score", {"value": 42})], tools=SCORE)
v32("test_string_attr_false_allows_schema_conversion", dsml_lines("score", dsml_param("value", 42, False)), [("score", {"value": 42})], tools=SCORE)
TIMER_SCHEMA = {
    "wait": {"anyOf": [
        {"type": "object", "properties": {"type": {"const": "until"}, "date": S}},
        {"type": "object", "properties": {"type": {"const": "for"}, "minutes": N}},
    ]},
    "patches": {"oneOf": [{"type": "array", "items": O}, {"type": "null"}]},
}
WAIT = '{"type":"for","minutes":2880}'
PATCHES = '[{"op":"replace","path":"/schedule","value":"quiet"}]'
TIMER_ARGS = {"wait": {"type": "for", "minutes": 2880}, "patches": [{"op": "replace", "path": "/schedule", "value": "quiet"}]}
v32("test_composed_schema_converts_object_and_array_params",
    dsml_lines("set_timer", dsml_param("wait", WAIT, False), dsml_param("patches", PATCHES, False)),
    [("set_timer", TIMER_ARGS)], tools=[fn("set_timer", **TIMER_SCHEMA)])
v32("test_string_attr_true_coerced_by_composed_schema", dsml_lines("set_timer", dsml_param("wait", WAIT)),
    [("set_timer", {"wait": {"type": "for", "minutes": 2880}})], tools=[fn("set_timer", wait={"anyOf": [O, {"type": "null"}]})])
v32("test_arguments_wrapper_repaired", dsml_lines("get_weather", dsml_param("arguments", '{"location":"Beijing"}', False)),
    [("get_weather", {"arguments": {"location": "Beijing"}})], tools=[WEATHER_LOC],
    why="the model wrote a parameter named arguments: thinkgate keeps what it wrote (the schema leaves other keys free), "
    "where vLLM unwraps it")
v32("test_input_wrapper_repaired", dsml_lines("get_weather", dsml_param("input", '{"location":"Beijing"}')),
    [("get_weather", {"input": '{"location":"Beijing"}'})], tools=[WEATHER_LOC],
    why="the model wrote a string parameter named input: thinkgate keeps what it wrote, where vLLM unwraps it")
UPDATE = [fn("update", tags=A, meta=O)]
UPDATE_TEXT = dsml_lines("update", dsml_param("tags", '["a", "b"]', False), dsml_param("meta", '{"k": 1}', False))
v32("test_object_and_array_params", UPDATE_TEXT, [("update", {"tags": ["a", "b"], "meta": {"k": 1}})], tools=UPDATE)
v32("test_number_param", dsml_lines("measure", dsml_param("ratio", 3.14, False), dsml_param("whole", "5.0", False)),
    [("measure", {"ratio": 3.14, "whole": 5.0})], tools=[fn("measure", ratio=N, whole=N)])
v32("test_multi_typed_schema", dsml_lines("set_val", dsml_param("count", 42, False), dsml_param("label", "hello", False)),
    [("set_val", {"count": 42, "label": "hello"})], tools=[fn("set_val", count={"type": ["integer", "null"]}, label={"type": ["string", "null"]})])
CLEAR = [fn("clear", value={"type": ["integer", "null"]})]
v32("test_multi_typed_null_value", dsml_lines("clear", dsml_param("value", "null", False)), [("clear", {"value": None})], tools=CLEAR)
v32("test_null_coerced_back_to_string_by_schema", dsml_lines("echo", dsml_param("text", "null", False)), [("echo", {"text": "null"})],
    tools=[fn("echo", text=S)])
v32("test_no_schema_parses_json", dsml_lines("unknown_fn", dsml_param("count", 42, False), dsml_param("flag", "true", False)),
    [("unknown_fn", {"count": 42, "flag": True})])
# streaming: the test feeds the output line by line (or in fixed-size pieces)
v32("test_plain_content_no_tool", "Hello, world!", [], content="Hello, world!", chunks="lines")
v32("test_single_tool_streaming", vllm32_call("get_weather", {"location": "SF"}), [("get_weather", {"location": "SF"})], chunks="lines")
v32("test_tool_name_emitted", vllm32_call("my_func", {"x": "1"}), [("my_func", {"x": "1"})], chunks="lines")
v32("test_content_before_tool_call_streaming", "Thinking... " + vllm32_call("fn", {"a": "b"}), [("fn", {"a": "b"})],
    content="Thinking... ", chunks="lines")
v32("test_type_conversion_in_streaming", dsml_lines("add", dsml_param("x", 3, False), dsml_param("y", 4, False)),
    [("add", {"x": 3, "y": 4})], tools=[fn("add", x=I, y=I)], chunks="lines")
v32("test_string_attr_true_coerced_by_schema_streaming", dsml_lines("score", dsml_param("value", 42)), [("score", {"value": 42})],
    tools=SCORE, chunks="lines")
v32("test_composed_schema_conversion_in_streaming",
    dsml_lines("set_timer", dsml_param("wait", WAIT, False), dsml_param("patches", PATCHES, False)),
    [("set_timer", TIMER_ARGS)], tools=[fn("set_timer", wait={"anyOf": [O, {"type": "null"}]}, patches=TIMER_SCHEMA["patches"])], chunks="lines")
v32("test_responses_function_tool_schema_in_streaming", TOGGLE_TEXT, [("toggle", {"enabled": True, "count": 42})], tools=TOGGLE, chunks="lines")
COERCE = [fn("coerce", union_value={"type": ["null", "string"]}, bad_int=I, nullable_string={"type": ["null", "string"]},
             null_string=S, whole_number=N)]
v32("test_streaming_matches_non_streaming_conversion_fallbacks", dsml_lines(
    "coerce", dsml_param("union_value", "hello", False), dsml_param("bad_int", "abc", False), dsml_param("nullable_string", "null", False),
    dsml_param("null_string", "null", False), dsml_param("whole_number", "3.0", False)), [], invalid=1, tools=COERCE, chunks="lines",
    why='string="false" values that are not JSON (hello, abc) or break the schema (null for a string) make the call invalid; '
    "vLLM falls back to their text")
TWO_FUNCS = dsml_block(dsml_invoke("func_a", dsml_param("p", "v1")), dsml_invoke("func_b", dsml_param("q", "v2")))
v32("test_multiple_tools_streaming", TWO_FUNCS, [("func_a", {"p": "v1"}), ("func_b", {"q": "v2"})], chunks="lines")
v32("test_state_reset_on_new_stream", vllm32_call("fn", {"k": "v"}), [("fn", {"k": "v"})], chunks="lines")
v32("test_empty_arguments_streaming", dsml_block(dsml_invoke("get_time", "", sep="")), [("get_time", {})], chunks="lines")
v32("test_unique_tool_call_ids", dsml_block(dsml_invoke("fn_a", dsml_param("x", "1")), dsml_invoke("fn_b", dsml_param("y", "2"))),
    [("fn_a", {"x": "1"}), ("fn_b", {"y": "2"})], chunks="lines")
v32("test_streaming_matches_non_streaming", vllm32_call("get_weather", {"location": "SF", "date": "2024-01-16"}),
    [("get_weather", {"location": "SF", "date": "2024-01-16"})], chunks="lines")
v32("test_single_tool_chunked_stream_interval", vllm32_call("get_weather", {"location": "SF"}), [("get_weather", {"location": "SF"})], chunks=5)
v32("test_content_before_tool_chunked", "Thinking... " + vllm32_call("fn", {"a": "b"}), [("fn", {"a": "b"})], content="Thinking... ", chunks=7)
v32("test_multiple_tools_chunked", TWO_FUNCS, [("func_a", {"p": "v1"}), ("func_b", {"q": "v2"})], chunks=10)
v32("test_emits_arguments_before_invoke_completes", FC[0] + "\n" + dsml_param("k", "val").join([f'{INV}fn">\n', "\n"]), [], invalid=1,
    chunks="lines", why="the output stops inside the call: the cut call is reported invalid (vLLM's test only checks the "
    "argument deltas streamed before the cut, which thinkgate streams too)")
BODY = "A" * 4096
v32("test_long_string_argument_streams_before_close", vllm32_call("emit", {"text": BODY}), [("emit", {"text": BODY})],
    tools=[fn("emit", text=S)], chunks=[f'{FC[0]}\n{INV}emit">\n{PAR}text" string="true">', *(BODY[i : i + 32] for i in range(0, 4096, 32)),
                                       f"{PAR_END}\n{INV_END}\n{FC[1]}"])
v32("test_no_marker_leak_chunked", vllm32_call("fn", {"k": "v"}), [("fn", {"k": "v"})], content=None, chunks=5)
v32("test_no_marker_leak_with_prefix_chunked", "Hello!" + vllm32_call("fn", {"a": "b"}), [("fn", {"a": "b"})], content="Hello!", chunks=5)
v32("test_no_marker_leak_char_by_char", vllm32_call("fn", {"k": "v"}), [("fn", {"k": "v"})], content=None, chunks=1)
for size in range(1, len(FC[0]) + 2):
    v32(f"test_no_marker_leak_all_split_points[{size}]", vllm32_call("fn", {"k": "v"}), [("fn", {"k": "v"})], content=None, chunks=size)
v32("test_false_partial_marker_emitted", "<｜DSM some regular text", [], content="<｜DSM some regular text", chunks=3)
v32("test_object_and_array_params_streaming", UPDATE_TEXT, [("update", {"tags": ["a", "b"], "meta": {"k": 1}})], tools=UPDATE, chunks="lines")
v32("test_multi_typed_schema_streaming", dsml_lines("set_val", dsml_param("count", 42, False)), [("set_val", {"count": 42})],
    tools=[fn("set_val", count={"type": ["integer", "null"]})], chunks="lines")
v32("test_multi_typed_null_streaming", dsml_lines("clear", dsml_param("value", "null", False)), [("clear", {"value": None})], tools=CLEAR, chunks="lines")
v32("test_number_param_streaming", dsml_lines("measure", dsml_param("ratio", 3.14, False)), [("measure", {"ratio": 3.14})],
    tools=[fn("measure", ratio=N)], chunks="lines")
TOKYO = dsml_lines("get_weather", dsml_param("location", "Tokyo"))
v32("test_delimiter_preserved_fast_detokenization", TOKYO, [("get_weather", {"location": "Tokyo"})], content=None)
v32("test_delimiter_preserved_fast_detokenization[prefixed]", "Here is the weather: " + TOKYO, [("get_weather", {"location": "Tokyo"})],
    content="Here is the weather: ")
v32("test_tool_detection_skip_special_tokens_false", vllm32_call("search", {"query": "vllm documentation"}),
    [("search", {"query": "vllm documentation"})], tools=[fn("search", query=S)], chunks="lines")

# --------------------------------------------------------------------------------------------
# deepseek_v3_2 and deepseek_v4: SGLang test/registered/unit/function_call/test_deepseekv32_detector.py
# (one mixin run on both DSML detectors): calls written with no newline between the tags
# --------------------------------------------------------------------------------------------
SGL_DSML = "sgl-project/sglang test/registered/unit/function_call/test_deepseekv32_detector.py @2bbf6f5db35c1bd18ddcb7361da777cb99eb07c9::"
PREAMBLE = "Let me look up the weather in Beijing for you."
CITY = [fn("get_weather", ["city"], city=S)]


def sgl_invoke(city: str) -> str:
    return f'{INV}get_weather">' + dsml_param("city", city) + INV_END


def sgl_block(block, *cities: str) -> str:
    return block[0] + "".join(sgl_invoke(c) for c in cities) + block[1]


for fmt, cls, block in (("deepseek_v4", "TestDeepSeekV4StreamingPreamble", ("<｜DSML｜tool_calls>", "</｜DSML｜tool_calls>")),
                        ("deepseek_v3_2", "TestDeepSeekV32StreamingPreamble", FC)):
    def sgl(test: str, text: str, calls: list, fmt=fmt, cls=cls, **kw: Any) -> None:
        add(Vector(f"{fmt}/sglang/{test}", fmt, text, calls, tools=CITY, origin=SGL_DSML + cls + "::" + test.split("[")[0], **kw))

    wrapped = PREAMBLE + sgl_block(block, "Beijing")
    bare = PREAMBLE + sgl_invoke("Beijing")
    one = [("get_weather", {"city": "Beijing"})]
    inside = len(PREAMBLE) + 3  # a split inside the opener: the test splits at every point
    sgl("test_prose_and_wrapped_opener_in_one_delta", wrapped, one, content=PREAMBLE)
    sgl("test_prose_and_bare_invoke_in_one_delta", bare, one, content=PREAMBLE)
    sgl("test_prose_emitted_once_at_every_split_point", wrapped, one, content=PREAMBLE, chunks=[wrapped[:inside], wrapped[inside:]])
    sgl("test_bare_invoke_prose_at_every_split_point", bare, one, content=PREAMBLE, chunks=[bare[:inside], bare[inside:]])
    for size in (1, 3, 7):
        sgl(f"test_fixed_size_chunkings[{size}]", wrapped, one, content=PREAMBLE, chunks=size)
    for prefix in ("<", "<｜"):
        sgl(f"test_partial_tag_prefix_held_back[{prefix}]", wrapped, one, content=PREAMBLE,
            chunks=[PREAMBLE + prefix, wrapped[len(PREAMBLE + prefix):]])
    sgl("test_literal_angle_bracket_without_tool_call", "The check 3 < 5 held, done.", [], content="The check 3 < 5 held, done.",
        chunks=["The check 3 <", " 5 held, done."])
    prose = "Since 3 < 5 holds, calling the tool. "
    sgl("test_literal_angle_bracket_before_tool_call", prose + sgl_block(block, "Beijing"), one, content=prose)
    two = PREAMBLE + sgl_block(block, "Beijing", "Tokyo")
    for size in (None, 8):
        sgl(f"test_multiple_invokes_after_prose[{size or 'one'}]", two, [("get_weather", {"city": "Beijing"}), ("get_weather", {"city": "Tokyo"})],
            content=PREAMBLE, chunks=size)
    sgl("test_streaming_matches_detect_and_parse", wrapped, one, content=PREAMBLE, chunks=[wrapped[:inside + 5], wrapped[inside + 5:]])

# --------------------------------------------------------------------------------------------
# deepseek_v4: vLLM tests/tool_parsers/test_deepseekv4_tool_parser.py
# --------------------------------------------------------------------------------------------
TC = ("<｜DSML｜tool_calls>", "</｜DSML｜tool_calls>")
V4 = "vllm-project/vllm tests/tool_parsers/test_deepseekv4_tool_parser.py @023f36c62e71a247a9bacb7eb4cea5d55505cb63::"


def v4_call(name: str, params: dict) -> str:
    """vLLM's V4 ``build_tool_call``: each string parameter on its own line."""
    return dsml_lines(name, *(dsml_param(k, v) for k, v in params.items()), block=TC)


def v4(test: str, text: str, calls: list, **kw: Any) -> None:
    add(Vector(f"deepseek_v4/vllm/{test}", "deepseek_v4", text, calls, origin=V4 + test, **kw))


v4("test_extract_tool_calls", "Let me check. " + v4_call("get_weather", {"location": "Beijing", "unit": "celsius"}),
   [("get_weather", {"location": "Beijing", "unit": "celsius"})], content="Let me check. ")
V32_BLOCK_IN_V4 = v4_call("search", {"query": "vllm"}).replace("tool_calls", "function_calls")
v4("test_function_calls_block_is_not_accepted", V32_BLOCK_IN_V4, [("search", {"query": "vllm"})],
   content=FC[0] + "\n" + FC[1],
   why="an invoke outside V4's block is read as the call it is (the slip issue 35 point 2 names; SGLang reads a bare invoke "
   "too), and the V3.2 wrapper around it, which V4 has no marker for, stays in the content verbatim; vLLM keeps it all as content")
v4("test_streaming_extracts_complete_invokes", v4_call("search", {"query": "deepseek v4"}), [("search", {"query": "deepseek v4"})], chunks=5)

# --------------------------------------------------------------------------------------------
# deepseek_v3_2: vLLM tests/parser/engine/test_deepseek_v32.py (the parser engine's V3.2 parser)
# --------------------------------------------------------------------------------------------
ENG32 = "vllm-project/vllm tests/parser/engine/test_deepseek_v32.py @0114e8484da27e4fedcac873fec05d480a494204::"
UNWRAP = ("the model wrote a parameter named arguments: thinkgate keeps what it wrote (the schema leaves other keys free), "
          "where vLLM unwraps it")


def eng_invoke(name: str, *params: str) -> str:
    """The engine tests' invoke: parameters joined by newlines, no newline after the closing tag."""
    return f'{INV}{name}">\n' + "\n".join(params) + "\n" + INV_END


def eng_block(*invokes: str, block=FC) -> str:
    return block[0] + "\n" + "\n".join(invokes) + "\n" + block[1]


def e32(test: str, text: str, calls: list, **kw: Any) -> None:
    add(Vector(f"deepseek_v3_2/vllm-engine/{test}", "deepseek_v3_2", text, calls, origin=ENG32 + test, **kw))


e32("TestNonStreaming::test_no_tool_call", "Hello world", [], content="Hello world")
e32("TestNonStreaming::test_single_tool", eng_block(eng_invoke("get_weather", dsml_param("city", "SF"))), [("get_weather", {"city": "SF"})])
PAR_SF_NYC = eng_block(eng_invoke("get_weather", dsml_param("city", "SF")), eng_invoke("get_weather", dsml_param("city", "NYC")))
e32("TestNonStreaming::test_parallel_tools", PAR_SF_NYC, [("get_weather", {"city": "SF"}), ("get_weather", {"city": "NYC"})])
e32("TestNonStreaming::test_content_before_tool_call", "Let me check. " + eng_block(eng_invoke("search", dsml_param("q", "vllm"))),
    [("search", {"q": "vllm"})], content="Let me check. ")
e32("TestNonStreaming::test_non_string_params_json_parsed",
    eng_block(eng_invoke("toggle", dsml_param("enabled", "true", False), dsml_param("count", "42", False))), [("toggle", {"enabled": True, "count": 42})])
e32("TestNonStreaming::test_wrapper_unwrapping", eng_block(eng_invoke("get_weather", dsml_param("arguments", '{"location":"Beijing"}', False))),
    [("get_weather", {"arguments": {"location": "Beijing"}})], tools=[WEATHER_LOC], why=UNWRAP)
SPLIT_PARAM = [FC[0], f'{INV}edit">', dsml_param("expr", "a<b>")[: -len(PAR_END)] + "<｜DSML｜parameter", ' name="date" string="true">tomorrow',
               PAR_END, INV_END, FC[1]]
e32("TestStreaming::test_split_parameter_start_is_buffered", "".join(SPLIT_PARAM), [], invalid=1, chunks=SPLIT_PARAM, why=MALFORMED_PARAM)
e32("TestStreaming::test_single_tool_streaming", eng_block(eng_invoke("get_weather", dsml_param("city", "SF"))), [("get_weather", {"city": "SF"})], chunks=1)
e32("TestStreaming::test_content_before_tool_streaming", "Checking... " + eng_block(eng_invoke("fn", dsml_param("k", "v"))), [("fn", {"k": "v"})],
    content="Checking... ", chunks=1)
e32("TestStreaming::test_parallel_tools_streaming", eng_block(eng_invoke("fn_a", dsml_param("x", "1")), eng_invoke("fn_b", dsml_param("y", "2"))),
    [("fn_a", {"x": "1"}), ("fn_b", {"y": "2"})], chunks=1)
e32("TestStreaming::test_no_tool_content_only", "Just some text, no tools.", [], content="Just some text, no tools.", chunks=1)
UNWRAP_NYC = [FC[0], eng_invoke("get_weather", dsml_param("arguments", '{"location": "NYC"}', False)), FC[1]]
e32("TestStreaming::test_streaming_wrapper_unwrap_consistency", "".join(UNWRAP_NYC), [("get_weather", {"arguments": {"location": "NYC"}})],
    tools=[WEATHER_LOC], chunks=UNWRAP_NYC, why=WRAPPER_KEPT)
e32("TestStreaming::test_missing_invoke_end", f'{FC[0]}\n{INV}fn">\n{dsml_param("k", "v")}\n{FC[1]}', [("fn", {"k": "v"})], chunks=1)
LONG_HEAD = f'{FC[0]}\n{INV}emit_text">\n{PAR}text" string="true">'
LONG_TAIL = f"{PAR_END}\n{INV_END}\n{FC[1]}"
e32("TestLongStringParameterStreaming::test_long_string_parameter_incremental_streaming", LONG_HEAD + BODY + LONG_TAIL,
    [("emit_text", {"text": BODY})], tools=[fn("emit_text", text=S)], chunks=[LONG_HEAD, *(BODY[i : i + 32] for i in range(0, 4096, 32)), LONG_TAIL])
CODE_LINE = 'def foo():\n    msg = "hello \\ world"\t# comment\x00\n'
CODE_BODY = CODE_LINE * 2048
CODE_HEAD = f'{FC[0]}\n{INV}emit_code">\n{PAR}code" string="true">'
e32("TestLongStringParameterStreaming::test_multiline_string_parameter_performance_and_escaping", CODE_HEAD + CODE_BODY + LONG_TAIL,
    [("emit_code", {"code": CODE_BODY})], tools=[fn("emit_code", code=S)],
    chunks=[CODE_HEAD, *(CODE_BODY[i : i + 32] for i in range(0, len(CODE_BODY), 32)), LONG_TAIL])
NULLABLE_HEAD = f'{FC[0]}\n{INV}search">\n{PAR}query" string="true">'
NULLABLE_CHUNKS = [NULLABLE_HEAD, "not-null", " query text", LONG_TAIL]
e32("TestLongStringParameterStreaming::test_nullable_union_string_parameter_not_streaming_prematurely", "".join(NULLABLE_CHUNKS),
    [("search", {"query": "not-null query text"})], tools=[fn("search", query={"type": ["string", "null"]})], chunks=NULLABLE_CHUNKS)

# --------------------------------------------------------------------------------------------
# deepseek_v4: vLLM tests/parser/engine/test_deepseek_v4.py (the parser engine's V4 parser;
# with no chat_template_kwargs it starts in reasoning, as thinkgate's deepseek_v4 does)
# --------------------------------------------------------------------------------------------
ENG4 = "vllm-project/vllm tests/parser/engine/test_deepseek_v4.py @0114e8484da27e4fedcac873fec05d480a494204::"


def e4(test: str, text: str, calls: Any, **kw: Any) -> None:
    add(Vector(f"deepseek_v4/vllm-engine/{test}", "deepseek_v4", text, calls, origin=ENG4 + test, **kw))


def e4_tight(*invokes: str) -> str:
    """The engine tests' ``_tool_calls``: invokes joined by newlines, no newline inside the block's tags."""
    return TC[0] + "\n".join(invokes) + TC[1]


def e4_invoke(name: str, *params: tuple) -> str:
    return eng_invoke(name, *(dsml_param(k, v, s == "true") for k, s, v in params))


# TestArgConverter: the converter's input is an invoke's body; here each sits in a call as V4's template writes it
for test, params, args in (
    ("test_string_param", [("city", "true", "杭州")], {"city": "杭州"}),
    ("test_string_with_spaces_and_quotes", [("msg", "true", 'He said "hello world"')], {"msg": 'He said "hello world"'}),
    ("test_integer_param", [("count", "false", "42")], {"count": 42}),
    ("test_float_param", [("ratio", "false", "3.14")], {"ratio": 3.14}),
    ("test_bool_param", [("flag", "false", "true")], {"flag": True}),
    ("test_array_param", [("items", "false", '["a", "b", "c"]')], {"items": ["a", "b", "c"]}),
    ("test_object_param", [("opts", "false", '{"key": "val"}')], {"opts": {"key": "val"}}),
    ("test_mixed_types", [("location", "true", "Tokyo"), ("limit", "false", "10"), ("active", "false", "false")],
     {"location": "Tokyo", "limit": 10, "active": False}),
    ("test_empty_args", [], {}),
    ("test_chinese_chars_preserved_in_json", [("query", "true", "你好世界")], {"query": "你好世界"}),
    ("test_null_string_false", [("val", "false", "null")], {"val": None}),
    ("test_string_true_not_json_parsed", [("n", "true", "42")], {"n": "42"}),
):
    e4("TestArgConverter::" + test, dsml_lines("f", *(dsml_param(k, v, s == "true") for k, s, v in params), block=TC), [("f", args)])
e4("TestArgConverter::test_invalid_json_fallback", dsml_lines("f", dsml_param("data", "[broken", False), block=TC), [("f", {"data": "[broken"})])
e4("TestArgConverter::test_implicit_close_preserves_malformed_text",
   dsml_lines("f", PAR + 'city" string="true">Tokyo</｜DSML｜parameter\n' + dsml_param("unit", "celsius"), block=TC), [], invalid=1,
   why="a parameter whose closing tag is broken is malformed markup: the call is reported invalid with its text (vLLM reads on to the "
   "next parameter and keeps the broken tag in the value)")
e4("TestImplicitParameterClose::test_non_streaming_recovers_next_parameter",
   f'{TC[0]}{INV}get_weather">\n{PAR}location" string="true">Paris {dsml_param("date", "tomorrow")}{INV_END}{TC[1]}', [], invalid=1, why=MALFORMED_PARAM)
SPLIT_V4 = [TC[0], f'{INV}get_weather">\n', f'{PAR}location" string="true">Paris a<b><｜DSML｜parameter', ' name="date" string="true">tomorrow',
            PAR_END, INV_END, TC[1]]
e4("TestImplicitParameterClose::test_streaming_split_next_parameter_tag_is_buffered", "".join(SPLIT_V4), [], invalid=1, chunks=SPLIT_V4,
   why=MALFORMED_PARAM)
e4("TestThinkTagAbsorption::test_bare_think_end_not_leaked", THINK_CLOSE + "Here is the direct answer.", [], reasoning=None,
   content="Here is the direct answer.", thinking=None, chunks=[THINK_CLOSE, "Here is the direct answer."])
DUP = [THINK_OPEN + "\n", "Some reasoning.\n", THINK_CLOSE + "\n", "Answer."]
e4("TestThinkTagAbsorption::test_duplicate_think_start_absorbed", "".join(DUP), [], reasoning="\nSome reasoning.\n", content="\nAnswer.",
   thinking=True, chunks=DUP, why=DUP_KEPT)
NYC_INVOKE = e4_invoke("get_weather", ("location", "true", "NYC"))
e4("TestMissingInvokeEnd::test_non_streaming", f'{TC[0]}{INV}get_weather">\n{dsml_param("location", "NYC")}\n{TC[1]}',
   [("get_weather", {"location": "NYC"})])
MISSING_END = [TC[0], f'{INV}get_weather">\n{dsml_param("location", "NYC")}\n', TC[1], "Done."]
e4("TestMissingInvokeEnd::test_streaming_with_trailing_content", "".join(MISSING_END), [("get_weather", {"location": "NYC"})], content="Done.",
   chunks=MISSING_END)
NO_TAGS = ["\n\nLet me consider ", "this carefully.\n", THINK_CLOSE + "\n", "Here is the result."]
e4("TestThinkingModeConfig::test_thinking_mode_reasoning_without_tags", "".join(NO_TAGS), [], reasoning="\n\nLet me consider this carefully.\n",
   content="\nHere is the result.", thinking=True, chunks=NO_TAGS, why=REASONING_KEPT)
e4("TestThinkingModeConfig::test_thinking_mode_all_reasoning_no_end_tag", "I'll review the PR.", [], reasoning="I'll review the PR.", content=None,
   thinking=True, chunks=["I'll review ", "the PR."])
IMPLICIT = "Let me look up the weather.\n\n" + e4_tight(NYC_INVOKE)
NYC = [("get_weather", {"location": "NYC"})]
e4("TestImplicitReasoningEnd::test_non_streaming_extract_reasoning_implicit_end", IMPLICIT, ANY, reasoning="Let me look up the weather.\n\n",
   content=None, thinking=True, why=REASONING_KEPT)
e4("TestImplicitReasoningEnd::test_non_streaming_extract_tool_calls_implicit_end", IMPLICIT, NYC, thinking=True)
e4("TestImplicitReasoningEnd::test_non_streaming_parse_implicit_end", IMPLICIT, NYC, reasoning="Let me look up the weather.\n\n", content=None,
   thinking=True, why=REASONING_KEPT)
CUT = ["Let me look up the weather.\n\n", TC[0], f'{INV}get_weather">']
e4("TestImplicitReasoningEnd::test_streaming_reasoning_implicit_end", "".join(CUT), ANY, reasoning="Let me look up the weather.\n\n", invalid=ANY,
   thinking=True, chunks=CUT, why=REASONING_KEPT)
CHECK = ["Let me check.\n\n", TC[0], f'{INV}get_weather">\n{dsml_param("location", "NYC")}\n{INV_END}', TC[1]]
e4("TestImplicitReasoningEnd::test_streaming_tool_extraction_implicit_end", "".join(CHECK), NYC, thinking=True, chunks=CHECK)
EXPLICIT = [THINK_OPEN, "Let me check the weather.", TC[0], f'{INV}get_weather">']
e4("TestImplicitReasoningEnd::test_thinking_false_explicit_think_then_tool_call", "".join(EXPLICIT), ANY, reasoning="Let me check the weather.",
   invalid=ANY, thinking=None, chunks=EXPLICIT)
e4("TestImplicitReasoningEnd::test_non_streaming_parallel_tools_after_implicit_end",
   "I need both.\n\n" + e4_tight(NYC_INVOKE, e4_invoke("get_time", ("timezone", "true", "EST"))),
   [("get_weather", {"location": "NYC"}), ("get_time", {"timezone": "EST"})], thinking=True)
TRAIL = ["Reasoning.\n\n\n", TC[0], f'{INV}func">']
e4("TestImplicitReasoningEnd::test_streaming_implicit_end_trailing_whitespace_stripped", "".join(TRAIL), ANY, reasoning="Reasoning.\n\n\n",
   invalid=ANY, thinking=True, chunks=TRAIL, why=REASONING_KEPT)
W_TOOLS = [fn("get_weather", location=S, unit=S), fn("get_time", timezone=S)]
EST = e4_invoke("get_time", ("timezone", "true", "EST"))
for pid, wargs in (("all_props", '{"location": "NYC", "unit": "celsius"}'), ("subset_props", '{"location": "NYC"}')):
    e4(f"TestParallelUnwrapping::test_unwrap_parallel_uses_correct_schema[{pid}]",
       e4_tight(e4_invoke("get_weather", ("arguments", "false", wargs)), EST),
       [("get_weather", {"arguments": json.loads(wargs)}), ("get_time", {"timezone": "EST"})], tools=W_TOOLS, why=WRAPPER_KEPT)
PAR_STREAM = [TC[0], e4_invoke("get_weather", ("arguments", "false", '{"location": "NYC"}')), EST, TC[1]]
e4("TestParallelUnwrapping::test_unwrap_parallel_streaming", "".join(PAR_STREAM),
   [("get_weather", {"arguments": {"location": "NYC"}}), ("get_time", {"timezone": "EST"})], tools=W_TOOLS, chunks=PAR_STREAM, why=WRAPPER_KEPT)
e4("TestParallelUnwrapping::test_no_unwrap_parallel_when_no_match",
   e4_tight(e4_invoke("get_weather", ("arguments", "false", '{"unknown_key": "val"}')), EST),
   [("get_weather", {"arguments": {"unknown_key": "val"}}), ("get_time", {"timezone": "EST"})], tools=W_TOOLS)
e4("TestParallelUnwrapping::test_unwrap_single_tool_still_works", e4_tight(e4_invoke("get_weather", ("arguments", "false", '{"location": "Beijing"}'))),
   [("get_weather", {"arguments": {"location": "Beijing"}})], tools=[WEATHER_LOC], why=WRAPPER_KEPT)
CONSIST = [TC[0], e4_invoke("get_weather", ("arguments", "false", '{"location": "NYC"}')), TC[1]]
e4("TestStreamingWrapperConsistency::test_streaming_wrapper_unwrap_consistency", "".join(CONSIST), [("get_weather", {"arguments": {"location": "NYC"}})],
   tools=[WEATHER_LOC], chunks=CONSIST, why=WRAPPER_KEPT)


def berlin_tokens(close: bool = True) -> list[str]:
    """The text of each token of ``_dsv4_tokens``: the reasoning word by word, then the block."""
    words = "The user wants the current weather in Berlin.".split(" ")
    toks = [words[0], *(" " + w for w in words[1:])]
    toks += [THINK_CLOSE] if close else []
    toks += ["\n\n", TC[0], "\n", f'{INV}get_weather">', "\n", dsml_param("location", "Berlin"), "\n", dsml_param("units", "celsius"), "\n",
             INV_END, "\n", TC[1]]
    return toks


def grouped(tokens: list[str], size: int | None) -> list[str]:
    return ["".join(tokens)] if size is None else ["".join(tokens[i : i + size]) for i in range(0, len(tokens), size)]


BERLIN = [("get_weather", {"location": "Berlin", "units": "celsius"})]
for size in (1, 2, 3, 5, None):
    e4(f"TestDelegatingParserLargeDelta::test_tool_calls_extracted_at_all_chunk_sizes[chunk={size}]", "".join(berlin_tokens()), BERLIN,
       reasoning="The user wants the current weather in Berlin.", thinking=True, chunks=grouped(berlin_tokens(), size))
e4("TestDelegatingParserLargeDelta::test_default_thinking_extracts_tool_call_without_think_end", "".join(berlin_tokens(False)), BERLIN,
   reasoning="The user wants the current weather in Berlin.\n\n", content=None, thinking=True, chunks=berlin_tokens(False), why=REASONING_KEPT)
EOS_BLOCK = "\n\n" + dsml_lines("get_weather", dsml_param("location", "Berlin"), block=TC)
e4("TestDelegatingParserLargeDelta::test_eos_drop_token_does_not_swallow_tool_calls", "The user wants weather." + THINK_CLOSE + EOS_BLOCK,
   [("get_weather", {"location": "Berlin"})], reasoning="The user wants weather.", thinking=True)
MORNING = "Good morning! How can I help you today?".split(" ")
MORNING_TOKENS = [MORNING[0], *(" " + w for w in MORNING[1:]), "<｜end▁of▁sentence｜>"]
for size in (1, 2, 3, 5, None):
    e4(f"TestDelegatingParserLargeDelta::test_eos_not_leaked_when_reasoning_never_ends[chunk={size}]", "".join(MORNING_TOKENS), [],
       reasoning="Good morning! How can I help you today?", content=None, thinking=True, chunks=grouped(MORNING_TOKENS, size))
V4_LONG_HEAD = f'{TC[0]}\n{INV}emit_text">\n{PAR}text" string="true">'
V4_TAIL = f"{PAR_END}\n{INV_END}\n{TC[1]}"
EMIT = [fn("emit_text", ["text"], text=S)]
e4("TestLongStringParameterStreaming::test_long_string_parameter_incremental_streaming", V4_LONG_HEAD + BODY + V4_TAIL, [("emit_text", {"text": BODY})],
   tools=EMIT, chunks=[V4_LONG_HEAD, *(BODY[i : i + 32] for i in range(0, 4096, 32)), V4_TAIL])
V4_CODE_HEAD = f'{TC[0]}\n{INV}emit_code">\n{PAR}code" string="true">'
e4("TestLongStringParameterStreaming::test_multiline_string_parameter_performance_and_escaping", V4_CODE_HEAD + CODE_BODY + V4_TAIL,
   [("emit_code", {"code": CODE_BODY})], tools=[fn("emit_code", ["code"], code=S)],
   chunks=[V4_CODE_HEAD, *(CODE_BODY[i : i + 32] for i in range(0, len(CODE_BODY), 32)), V4_TAIL])
V4_NULLABLE = [f'{TC[0]}\n{INV}search">\n{PAR}query" string="true">', "not-null", " query text", V4_TAIL]
e4("TestLongStringParameterStreaming::test_nullable_union_string_parameter_not_streaming_prematurely", "".join(V4_NULLABLE),
   [("search", {"query": "not-null query text"})], tools=[fn("search", query={"type": ["string", "null"]})], chunks=V4_NULLABLE)

# --------------------------------------------------------------------------------------------
# deepseek_v4: SGLang test/registered/unit/function_call/test_deepseekv4_detector.py
# (TestDeepSeekV4Streaming; one vector per test or sub-case, at one of the widths it streams in)
# --------------------------------------------------------------------------------------------
SGL4 = "sgl-project/sglang test/registered/unit/function_call/test_deepseekv4_detector.py @0461b9e3fcab1c01a556513de67d406005645f07::TestDeepSeekV4Streaming::"


def s4_invoke(name: str, params: str = "") -> str:
    return f'{INV}{name}">\n{params}\n{INV_END}'


def s4_wrapped(invoke: str, block=TC) -> str:
    return f"{block[0]}\n{invoke}\n{block[1]}"


def s4_weather(city: str = "SF") -> str:
    return s4_wrapped(s4_invoke("get_weather", dsml_param("city", city)))


def s4(test: str, text: str, calls: Any, tools: Any = CITY, **kw: Any) -> None:
    add(Vector(f"deepseek_v4/sglang/{test}", "deepseek_v4", text, calls, tools=tools, origin=SGL4 + test.split("[")[0], **kw))


SF = [("get_weather", {"city": "SF"})]
LITERAL_THINK = f"Example:\n{THINK_OPEN}keep this{THINK_CLOSE}"
BOUNDARY = f"Inspect.{THINK_CLOSE}Now call.\n{THINK_CLOSE}\n" + s4_weather(LITERAL_THINK)
s4("test_strict_reasoning_boundary_preserves_tool_argument_literals", BOUNDARY, [("get_weather", {"city": LITERAL_THINK})],
   reasoning="Inspect.", content="Now call.\n", thinking=True, chunks=7)
s4("test_preamble_in_same_delta_as_tool_call", "Let me check.\n" + s4_weather(), SF, content="Let me check.\n")
s4("test_preamble_before_bare_invoke_without_wrapper", "Checking.\n" + s4_invoke("get_weather", dsml_param("city", "SF")), SF,
   content="Checking.\n")
s4("test_no_dsml_markers_leak_into_normal_text", "Prose.\n" + s4_weather(), SF, content="Prose.\n", chunks=4)
s4("test_malformed_partial_json_falls_back_to_raw_value", f'{TC[0]}\n{INV}get_weather">\n{PAR}city" string="false">{{"a"', [], invalid=1,
   why="the output stops inside the call: the cut call is reported invalid (SGLang's test only checks that the name streams before "
   "the cut, which thinkgate does too)")
s4("test_non_streaming_parses_every_tool_calls_section", s4_weather("SF") + "\n" + s4_weather("NY"), [("get_weather", {"city": "SF"}), ("get_weather", {"city": "NY"})])
SET_CONFIG = [fn("set_config", value={}, label=S)]
for i, value in enumerate(["12345e-3", '{"ratio":12345e-3,"enabled":true}', '[{"step":"write code","ratio":12345e-3},null,false]']):
    config = s4_wrapped(s4_invoke("set_config", dsml_param("value", value, False) + dsml_param("label", "complete")))
    expected = [("set_config", {"value": json.loads(value), "label": "complete"})]
    s4(f"test_non_string_parameter_is_not_rewritten_after_streaming[{i}]", config, expected, tools=SET_CONFIG, chunks=7)
    add(Vector(f"deepseek_v3_2/sglang/test_non_string_parameter_is_not_rewritten_after_streaming[{i}]", "deepseek_v3_2",
               config.replace("tool_calls", "function_calls"), expected, tools=SET_CONFIG, chunks=7,
               origin=SGL4 + "test_non_string_parameter_is_not_rewritten_after_streaming (DeepSeekV32Detector)"))
INCOMPLETE = [f'{TC[0]}{INV}get_weather">{PAR}city" string="false">', "123", "45", "e-", "3", f"{PAR_END}{INV_END}{TC[1]}"]
s4("test_incomplete_non_string_parameter_does_not_emit_a_guessed_value", "".join(INCOMPLETE), [("get_weather", {"city": "12345e-3"})], chunks=INCOMPLETE,
   why='string="false" gives way to the schema, which types city as a string: the value is its text as written (SGLang passes the '
   "number 12.345 on)")
SAN_FRAN = [f'{TC[0]}{INV}get_weather">{PAR}city" string="true">San Fran', "cisco", f"{PAR_END}{INV_END}{TC[1]}"]
s4("test_string_parameter_still_streams_incrementally", "".join(SAN_FRAN), [("get_weather", {"city": "San Francisco"})], chunks=SAN_FRAN)
s4("test_truncated_non_string_parameter_is_an_explicit_error", f'{TC[0]}{INV}get_weather">{PAR}city" string="false">[1,2', [], invalid=1)
DAMAGED = {
    f"\n\n<{DSML}toolcalls>\n\n": None,
    f"\n\n<{DSML}tool_calls\n": "",
    f"\n\n<{DSML}tool_calls<tool_calls>\n\n": "",
    f"Checking files.\n\n<{DSML} SugarPanel>\n": "",
    f"\n\n<{DSML}tool_calls...\n\n": "",
    f"Final scan:\n\n<{DSML}tool_calls-ok Let's scan the outputs.\n": "",
}
DAMAGED_KEPT = ("a damaged opener that is no marker of V4's (nor a slip issue 35 names) is text the model wrote: kept in the content "
                "verbatim, and the call after it read (SGLang drops the damaged text)")
for i, prefix in enumerate(DAMAGED):
    slip = DAMAGED[prefix] is None  # <｜DSML｜toolcalls>: DeepSeek-V4-Flash's misspelled wrapper (issue 35 point 2)
    s4(f"test_damaged_wrappers_do_not_become_assistant_preamble[{i}-wrapped]", prefix + s4_weather(), SF, content=None if slip else prefix,
       chunks=7, **({} if slip else {"why": DAMAGED_KEPT}))
    s4(f"test_damaged_wrappers_do_not_become_assistant_preamble[{i}-bare]", prefix + s4_invoke("get_weather", dsml_param("city", "SF")), SF,
       content=None if slip else prefix, chunks=7)
QUOTES = [
    f"Example:\n```xml\n{s4_weather('literal')}\n```\n",
    f"Example:\n~~~xml\n{s4_weather('literal')}\n~~~\n",
    f"Example: `{s4_weather('literal')}`\n",
    f"Example: '<{DSML}toolcalls>'\n",
    f"Example: “<{DSML}toolcalls>”\n",
]
QUOTED = ("issue 35 point 3: DSML quoted in a code fence or backticks in the answer is text for the peers; thinkgate reads the "
          "markup wherever the answer has it: the grammar lets a call follow any answer text, an open backtick included, and a "
          "parser reading that call as prose would lose a call the constrained output holds (the property suite's counterexample)")
QUOTED_SLIP = ("issue 35 point 3: V4-Flash's misspelled opener quoted in the answer is text: thinkgate reads it as the block's opener "
               "(it reads the block's markers wherever the answer has them) and the quoted text after it as content")
for i, quote in enumerate(QUOTES):
    fenced = i < 3
    s4(f"test_quoted_dsml_is_not_executed_or_removed[{i}]", quote + s4_weather(), SF, content=quote, chunks=11, **({"xfail": QUOTED if fenced else QUOTED_SLIP}))
    s4(f"test_quoted_dsml_is_not_executed_or_removed[{i}-quoted_only]", quote, [], content=quote, **({"xfail": QUOTED} if fenced else {}))
for i, text in enumerate(["Literal `</parameter>`.", "Example:\n```xml\n</parameter>\n</invoke>\n```",
                          'XML:\n<parameter description="a > b">\nvalue\n</parameter>', "</parameter>",
                          "Text with an unrelated SGML fragment: <![unexpected[."]):
    s4(f"test_strict_mode_preserves_literal_markup_and_balanced_xml[{i}]", text, [], content=text, chunks=1)
s4("test_strict_mode_keeps_tool_argument_streaming", "".join(SAN_FRAN), [("get_weather", {"city": "San Francisco"})], chunks=SAN_FRAN)
s4("test_incomplete_dsml_invocation_is_an_explicit_error", f'{TC[0]}{INV}get_weather">', [], invalid=1)
ECHO = f"Echo `<{DSML}tool_calls>` without interpreting it"
INDENTED = "Checking.\n" + "\n".join("        " + line for line in (s4_weather(ECHO) + "\n" + s4_weather("NY")).splitlines())
s4("test_indented_native_calls_and_parameter_literals_are_preserved", INDENTED, [("get_weather", {"city": ECHO}), ("get_weather", {"city": "NY"})],
   chunks=13)
MARKER = f"</{DSML}parameter |"
for i, value in enumerate([f'print("{MARKER}")', f"Example: `{MARKER}`", f"```xml\n{MARKER}\n```", f"cat <<'EOF'\n{MARKER}\nEOF",
                           f"cat <<EOF\n{MARKER}\nEOF", f"cat <<-EOF\n\t{MARKER}\n\tEOF", f"cat <<'A' <<'B'\n{MARKER}\nA\n{MARKER}\nB",
                           f"# Literal example: {MARKER}\nprint(1)", f"echo \\{MARKER}"]):
    s4(f"test_string_parameter_preserves_quoted_heredoc_and_escaped_marker_literals[{i}]", s4_weather(value), [("get_weather", {"city": value})], chunks=13)
GUARD = f'echo "created"</{DSML}parameter |\nprintf done'
s4("test_new_parameter_guard_does_not_change_non_strict_behavior", s4_weather(GUARD), [("get_weather", {"city": GUARD})])
DIRECT = [f'{TC[0]}{INV}get_weather">' + '{"city":', '"SF"}', f"{INV_END}{TC[1]}"]
s4("test_strict_direct_json_waits_for_complete_validated_invoke", "".join(DIRECT), SF, chunks=DIRECT)
UNCLOSED = s4_wrapped(f'{INV}get_weather">{PAR}city" string="true">SF{INV_END}')
s4("test_strict_rejects_unclosed_string_parameter_at_invoke_end", UNCLOSED, [], invalid=1, chunks=7)
s4("test_strict_incomplete_later_call_does_not_rewrite_previous_calls", s4_weather("SF") + s4_weather("NY") + UNCLOSED.replace(">SF<", ">LA<"),
   [("get_weather", {"city": "SF"}), ("get_weather", {"city": "NY"})], invalid=1, chunks=[s4_weather("SF"), s4_weather("NY"), UNCLOSED.replace(">SF<", ">LA<")])
s4("test_strict_rejects_duplicate_xml_parameters_and_invalid_string_flags[flag]", s4_weather("SF").replace('string="true">SF', 'string="maybe">"SF"'),
   [], invalid=1, chunks=5)
DUPLICATE = s4_wrapped(s4_invoke("get_weather", dsml_param("city", "SF") + dsml_param("city", "NY")))
s4("test_non_strict_duplicate_parameters_retain_legacy_behavior", DUPLICATE, [], invalid=1,
   why="a parameter written twice is reported invalid with its text, as SGLang's strict mode rejects it (its default keeps the last)")
CLOSED = [fn("get_weather", ["city"], city=S)]
CLOSED[0]["function"]["parameters"]["additionalProperties"] = False
for i, arguments in enumerate([{}, {"city": "SF", "other": 1}, {"city": 7}]):
    body = "".join(dsml_param(k, json.dumps(v), False) for k, v in arguments.items())
    typed = i == 2  # the schema types city as a string: its text is read as one
    s4(f"test_optional_schema_validation_rejects_missing_unknown_and_wrong_types[{i}]", s4_wrapped(s4_invoke("get_weather", body)),
       [("get_weather", {"city": "7"})] if typed else [], invalid=0 if typed else 1, tools=CLOSED, chunks=7,
       why='the schema types city as a string, so the text 7 is read as the string "7" (as the tag\'s type gives way to the schema '
       "everywhere in DSML): a valid call, where SGLang's opt-in schema validation rejects the number" if typed else "")
s4("test_optional_schema_validation_keeps_valid_arguments_unchanged[params]", s4_weather("SF"), SF, chunks=1)
s4("test_optional_schema_validation_keeps_valid_arguments_unchanged[json]", s4_wrapped(s4_invoke("get_weather", '{"city": "SF"}')), SF, chunks=1)
REF = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"$ref": "#/$defs/city"}}, "$defs": {"city": {"type": "string", "enum": ["SF"]}}, "required": ["city"]}}}]
s4("test_optional_schema_validation_supports_local_references[SF]", s4_weather("SF"), SF, tools=REF)
s4("test_optional_schema_validation_supports_local_references[NY]", s4_weather("NY"), [], invalid=1, tools=REF)
s4("test_optional_schema_validation_reuses_normalization_without_mutation", s4_weather(), SF, tools=[fn("get_weather", ["city"], city={"type": "varchar"})])
HEREDOC = "python3 <<'PY'\ntext = \"\"\"Notes." + THINK_CLOSE + "\"\"\"\nprint(text)\nPY"
s4("test_opt_in_marker_policy_rejects_quoted_document_payload_without_rewriting", s4_weather(HEREDOC), [("get_weather", {"city": HEREDOC})], chunks=7)
LITERAL_TAGS = f"Literal `{THINK_OPEN}` and `{THINK_CLOSE}` in an explanation."
s4("test_opt_in_marker_policy_does_not_filter_ordinary_text", LITERAL_TAGS, [], content=LITERAL_TAGS)

# --------------------------------------------------------------------------------------------
# minimax_m2: vLLM tests/tool_parsers/test_minimax_m2_tool_parser.py (the tags back to back,
# no tools unless the test gives them)
# --------------------------------------------------------------------------------------------
MM = ("<minimax:tool_call>", "</minimax:tool_call>")
VMM = "vllm-project/vllm tests/tool_parsers/test_minimax_m2_tool_parser.py @0c927c3451653f28e60cd552cff13ddc3c9ff49e::"
MM_TIGHT = "issue 35 point 1: MiniMax-M2's block, invoke and parameter tags written back to back (no newlines) are not read as a call"


def mm_param(key: str, value: Any) -> str:
    return f'<parameter name="{key}">{value}</parameter>'


def mm_invoke(name: str, *params: str) -> str:
    return f'<invoke name="{name}">' + "".join(params) + "</invoke>"


def mm(test: str, text: str, calls: Any, **kw: Any) -> None:
    add(Vector(f"minimax_m2/vllm/{test}", "minimax_m2", text, calls, origin=VMM + test, **kw))


SEATTLE = mm_invoke("get_weather", mm_param("city", "Seattle"))
mm("TestContentStreaming::test_plain_content", "Hello world", [], content="Hello world", chunks=["Hello ", "world"])
mm("TestContentStreaming::test_content_before_tool_call", "Let me check. " + MM[0] + SEATTLE + MM[1], [("get_weather", {"city": "Seattle"})],
   content="Let me check. ", chunks=["Let me check. ", MM[0] + SEATTLE + MM[1]])
mm("TestContentStreaming::test_empty_delta_no_crash", "", [], content=None, chunks=[""])
mm("TestSingleInvoke::test_incremental_chunks", MM[0] + SEATTLE + MM[1], [("get_weather", {"city": "Seattle"})],
   chunks=[MM[0], '<invoke name="get_weather">', mm_param("city", "Seattle"), "</invoke>" + MM[1]])
mm("TestSingleInvoke::test_single_chunk_complete", MM[0] + SEATTLE + MM[1], [("get_weather", {"city": "Seattle"})])
mm("TestSingleInvoke::test_multiple_params", MM[0] + mm_invoke("get_weather", mm_param("city", "Seattle"), mm_param("days", 5)) + MM[1],
   [("get_weather", {"city": "Seattle", "days": "5"})],
   chunks=[MM[0], '<invoke name="get_weather">', mm_param("city", "Seattle"), mm_param("days", 5), "</invoke>" + MM[1]])
OPENAI_GEMINI = [MM[0], mm_invoke("search_web", mm_param("query", "OpenAI")), mm_invoke("search_web", mm_param("query", "Gemini")), MM[1]]
mm("TestMultipleInvokes::test_two_invokes_incremental", "".join(OPENAI_GEMINI),
   [("search_web", {"query": "OpenAI"}), ("search_web", {"query": "Gemini"})], chunks=OPENAI_GEMINI)
AB = [MM[0], mm_invoke("fn_a", mm_param("x", 1)) + mm_invoke("fn_b", mm_param("y", 2)), MM[1]]
mm("TestMultipleInvokes::test_two_invokes_in_single_delta", "".join(AB), [("fn_a", {"x": "1"}), ("fn_b", {"y": "2"})], chunks=AB)
DIFF = [MM[0], mm_invoke("get_weather", mm_param("city", "NYC")), mm_invoke("get_stock", mm_param("ticker", "AAPL")), MM[1]]
mm("TestMultipleInvokes::test_different_functions", "".join(DIFF), [("get_weather", {"city": "NYC"}), ("get_stock", {"ticker": "AAPL"})],
   chunks=DIFF)
mm("TestInternalState::test_prev_tool_call_arr_single", MM[0] + mm_invoke("fn", mm_param("a", 1)) + MM[1], [("fn", {"a": "1"})])
HW = [MM[0], mm_invoke("search", mm_param("q", "hello")), mm_invoke("search", mm_param("q", "world")), MM[1]]
mm("TestInternalState::test_prev_tool_call_arr_multiple", "".join(HW), [("search", {"q": "hello"}), ("search", {"q": "world"})], chunks=HW)
mm("TestDeltaMessageFormat::test_tool_call_fields", MM[0] + mm_invoke("fn", mm_param("k", "v")) + MM[1], [("fn", {"k": "v"})])
AB2 = [MM[0], mm_invoke("a", mm_param("x", 1)), mm_invoke("b", mm_param("x", 2)), MM[1]]
mm("TestDeltaMessageFormat::test_multi_invoke_indices", "".join(AB2), [("a", {"x": "1"}), ("b", {"x": "2"})], chunks=AB2)
EOS = [MM[0], mm_invoke("fn", mm_param("k", "v")), MM[1], ""]
mm("TestEOSHandling::test_eos_after_tool_calls", "".join(EOS), [("fn", {"k": "v"})], content=None, chunks=EOS)
# the block's closing tag came as a special token whose text the detokenizer left out
mm("TestEOSHandling::test_end_token_ignored", MM[0] + mm_invoke("fn", mm_param("k", "v")), [("fn", {"k": "v"})],
   chunks=[MM[0], mm_invoke("fn", mm_param("k", "v")), ""])
LARGE = [MM[0] + '<invoke name="get_weather">', mm_param("city", "Seattle") + mm_param("days", 5) + "</invoke>" + MM[1], ""]
mm("TestLargeChunks::test_header_and_params_in_separate_chunks", "".join(LARGE), [("get_weather", {"city": "Seattle", "days": "5"})],
   chunks=LARGE)
PROFILE = [fn("update_profile", nickname={"anyOf": [S, {"type": "null"}]})]
mm("TestAnyOfNullableParam::test_anyof_nullable_param_non_null_value", MM[0] + mm_invoke("update_profile", mm_param("nickname", "Alice")) + MM[1],
   [("update_profile", {"nickname": "Alice"})], tools=PROFILE)
mm("TestAnyOfNullableParam::test_anyof_nullable_param_null_value", MM[0] + mm_invoke("update_profile", mm_param("nickname", "null")) + MM[1],
   [("update_profile", {"nickname": None})], tools=PROFILE)
mm("TestAnyOfNullableParam::test_anyof_nullable_param_object_value",
   MM[0] + mm_invoke("update_settings", mm_param("config", '{"theme": "dark", "fontSize": 14}')) + MM[1],
   [("update_settings", {"config": {"theme": "dark", "fontSize": 14}})], tools=[fn("update_settings", config={"anyOf": [O, {"type": "null"}]})])

# --------------------------------------------------------------------------------------------
# minimax_m2: SGLang test/registered/unit/function_call/test_minimax_m2_detector.py (calls written
# as the template writes them)
# --------------------------------------------------------------------------------------------
SMM = "sgl-project/sglang test/registered/unit/function_call/test_minimax_m2_detector.py @5b170337aae0efa3f1e615d96fc430beb0d711c8::"
MM_TOOLS = [
    fn("get_weather", ["city"], city=S, unit={"type": "string", "enum": ["celsius", "fahrenheit"]}),
    fn("search", ["query"], query=S),
    fn("calculate", value=N, count=I, verbose=B, tags=A, meta=O),
]
UNKNOWN_TOOL = "a call to a tool not among the request's is reported invalid with its text (SGLang drops it)"


def smm_call(name: str, params: dict) -> str:
    return f'{MM[0]}\n<invoke name="{name}">' + "".join(f"\n{mm_param(k, v)}" for k, v in params.items()) + f"\n</invoke>\n{MM[1]}"


def smm(test: str, text: str, calls: Any, tools: Any = MM_TOOLS, **kw: Any) -> None:
    add(Vector(f"minimax_m2/sglang/{test}", "minimax_m2", text, calls, tools=tools, origin=SMM + test.split("[")[0], **kw))


smm("TestDetectAndParse::test_single_call_single_param", smm_call("get_weather", {"city": "Beijing"}), [("get_weather", {"city": "Beijing"})], content=None)
smm("TestDetectAndParse::test_single_call_multiple_params", smm_call("get_weather", {"city": "London", "unit": "celsius"}),
    [("get_weather", {"city": "London", "unit": "celsius"})])
smm("TestDetectAndParse::test_leading_normal_text_is_preserved", "Let me look that up. " + smm_call("search", {"query": "sglang"}),
    [("search", {"query": "sglang"})], content="Let me look that up. ")
smm("TestDetectAndParse::test_no_tool_call_returns_text_unchanged", "The weather is nice today.", [], content="The weather is nice today.")
smm("TestDetectAndParse::test_multiple_sequential_calls", smm_call("get_weather", {"city": "Tokyo"}) + smm_call("search", {"query": "restaurants"}),
    [("get_weather", {"city": "Tokyo"}), ("search", {"query": "restaurants"})])
smm("TestDetectAndParse::test_unknown_function_name_is_dropped", smm_call("nonexistent_func", {"x": "1"}), [], invalid=1, why=UNKNOWN_TOOL)
smm("TestDetectAndParse::test_incomplete_block_no_closing_tag", f'{MM[0]}\n<invoke name="get_weather">\n{mm_param("city", "Beijing")}', [],
    invalid=1, content=None, why="the output stops inside the block: the cut call is reported invalid with its text, markers included "
    "(SGLang gives the text back as content)")
smm("TestDetectAndParse::test_typed_params_integer_and_boolean", smm_call("calculate", {"count": "7", "verbose": "true"}),
    [("calculate", {"count": 7, "verbose": True})])
BEIJING_MM = smm_call("get_weather", {"city": "Beijing"})
smm("TestStreamingIncrement::test_streaming_complete_call_delivered_in_chunks", BEIJING_MM, [("get_weather", {"city": "Beijing"})],
    chunks=[BEIJING_MM[: BEIJING_MM.index(">") + 1], BEIJING_MM[BEIJING_MM.index(">") + 1 :]])
smm("TestStreamingIncrement::test_streaming_normal_text_before_tool_call", "Here is the info: ", [], content="Here is the info: ")
smm("TestStreamingIncrement::test_streaming_invalid_function_name_resets_state", smm_call("no_such_func", {"x": "1"}), [], invalid=1, why=UNKNOWN_TOOL)
smm("TestStreamingIncrement::test_streaming_multiple_params_incremental", smm_call("get_weather", {"city": "London", "unit": "celsius"}),
    [("get_weather", {"city": "London", "unit": "celsius"})], chunks=1)
for i, (func, raw, args) in enumerate([("get_weather", {"city": "Tokyo"}, {"city": "Tokyo"}),
                                      ("get_weather", {"city": "Paris", "unit": "fahrenheit"}, {"city": "Paris", "unit": "fahrenheit"}),
                                      ("calculate", {"count": "3", "verbose": "false"}, {"count": 3, "verbose": False})]):
    smm(f"TestStreamingIncrement::test_streaming_matches_non_streaming[{i}]", smm_call(func, raw), [(func, args)], chunks=1)
smm("TestStreamingIncrement::test_streaming_sequential_tool_calls_tool_index", smm_call("get_weather", {"city": "Berlin"}) + smm_call("calculate", {"count": "5"}),
    [("get_weather", {"city": "Berlin"}), ("calculate", {"count": 5})], chunks=1)

# --------------------------------------------------------------------------------------------
# minimax_m2: vLLM tests/parser/engine/test_minimax_m2.py (tools with "properties": {} where given)
# --------------------------------------------------------------------------------------------
EMM = "vllm-project/vllm tests/parser/engine/test_minimax_m2.py @2f662099d76b0749dd0427b5f2660df58ac3afac::"
SEARCH_FREE = [{"type": "function", "function": {"name": "search", "parameters": {"type": "object", "properties": {}}}}]
UNCLOSED_MM = ("a parameter with no closing tag is malformed markup: the call is reported invalid with its text (vLLM closes the "
               "value at </invoke>)")


def emm(test: str, text: str, calls: Any, **kw: Any) -> None:
    add(Vector(f"minimax_m2/vllm-engine/{test}", "minimax_m2", text, calls, origin=EMM + test, **kw))


emm("TestNonStreaming::test_no_tool_calls", THINK_CLOSE + "This is a regular response without tool calls.", [], reasoning=None,
    content="This is a regular response without tool calls.", thinking=True)
emm("TestNonStreaming::test_single_tool_call", MM[0] + SEATTLE + MM[1], [("get_weather", {"city": "Seattle"})])
UNCLOSED_UNIT = MM[0] + '<invoke name="get_weather">' + mm_param("city", "Seattle") + '<parameter name="unit">celsius</invoke>' + MM[1]
emm("TestNonStreaming::test_unclosed_last_parameter_is_preserved", UNCLOSED_UNIT, [], invalid=1, why=UNCLOSED_MM)
emm("TestNonStreaming::test_multiple_invokes", MM[0] + mm_invoke("search", mm_param("q", "OpenAI")) + mm_invoke("search", mm_param("q", "vLLM")) + MM[1],
    [("search", {"q": "OpenAI"}), ("search", {"q": "vLLM"})])
emm("TestNonStreaming::test_schema_type_coercion", MM[0] + mm_invoke("forecast", mm_param("days", 5), mm_param("include_hourly", "true")) + MM[1],
    [("forecast", {"days": 5, "include_hourly": True})], tools=[fn("forecast", days=I, include_hourly=B)])
emm("TestNonStreaming::test_invalid_tool_name_is_rejected", MM[0] + mm_invoke("img_gen", mm_param("prompt", "a cat")) + MM[1], [], invalid=1,
    tools=SEARCH_FREE, why=UNKNOWN_TOOL.replace("SGLang", "vLLM"))
emm("TestNonStreaming::test_mixed_tool_names_only_return_valid",
    MM[0] + mm_invoke("img_gen", mm_param("prompt", "cat")) + mm_invoke("search", mm_param("query", "news")) + MM[1],
    [("search", {"query": "news"})], invalid=1, tools=SEARCH_FREE)
emm("TestStreaming::test_streaming_single_tool_call", MM[0] + SEATTLE + MM[1], [("get_weather", {"city": "Seattle"})],
    chunks=[MM[0], '<invoke name="get_weather">', mm_param("city", "Seattle"), "</invoke>" + MM[1]])
emm("TestStreaming::test_streaming_unclosed_last_parameter_is_preserved", UNCLOSED_UNIT, [], invalid=1,
    chunks=[MM[0], '<invoke name="get_weather">', mm_param("city", "Seattle"), '<parameter name="unit">celsius', "</invoke>" + MM[1]], why=UNCLOSED_MM)
AB3 = [MM[0], mm_invoke("a", mm_param("x", 1)), mm_invoke("b", mm_param("y", 2)), MM[1]]
emm("TestStreaming::test_streaming_multiple_invokes", "".join(AB3), ANY, chunks=AB3)
SPLIT_QUOTE = [MM[0], "<invoke name=", '"get_weather">', mm_param("city", "Seattle"), "</invoke>" + MM[1]]
emm("TestStreaming::test_streaming_invoke_prefix_split_before_quote", "".join(SPLIT_QUOTE), [("get_weather", {"city": "Seattle"})], chunks=SPLIT_QUOTE)
IMG = [MM[0], '<invoke name="img_gen">', mm_param("prompt", "cat"), "</invoke>" + MM[1]]
emm("TestStreaming::test_streaming_invalid_tool_name_is_rejected", "".join(IMG), [], invalid=1, tools=SEARCH_FREE, chunks=IMG,
    why=UNKNOWN_TOOL.replace("SGLang", "vLLM"))
emm("TestReasoning::test_extract_reasoning_without_start_token", "This is reasoning" + THINK_CLOSE + "This is content", [],
    reasoning="This is reasoning", content="This is content", thinking=True)
emm("TestReasoning::test_extract_reasoning_without_end_token", "This is still reasoning", [], reasoning="This is still reasoning", content=None,
    thinking=True)

# --------------------------------------------------------------------------------------------
# minimax_m2: SGLang test_minimax_m2_nullable.py, test_minimax_m2_tool_index.py,
# test_minimax_m2_detector_finish.py (test/registered/unit/function_call/)
# --------------------------------------------------------------------------------------------
SMM_DIR = "sgl-project/sglang test/registered/unit/function_call/"
NULLABLE_ORIGIN = SMM_DIR + "test_minimax_m2_nullable.py @2c941e79797b6bb94aa241071a110d8c5608b21e::TestMinimaxM2NullableParameters::"
NULLABLE_CASES = [
    *((f"test_nullable_type_arrays_preserve_non_null_values[{k}]", {"type": [k, "null"]}, raw, exp)
      for k, raw, exp in (("integer", "42", 42), ("number", "2.5", 2.5), ("string", "hello", "hello"), ("boolean", "false", False),
                          ("array", "[1,2]", [1, 2]), ("object", '{"a":1}', {"a": 1}))),
    *((f"test_nullable_compositions_preserve_non_null_values[{k}]", {k: [I, {"type": "null"}]}, "42", 42) for k in ("anyOf", "oneOf")),
    ("test_nullable_enum_preserves_non_null_values", {"enum": ["low", "high", None]}, "high", "high"),
    *((f"test_explicit_null_and_legacy_aliases_are_unchanged[{raw}]", {"type": ["integer", "null"]}, raw, None) for raw in ("null", "none", "nil")),
    ("test_non_nullable_values_are_unchanged[integer]", I, "42", 42),
    ("test_non_nullable_values_are_unchanged[string]", S, "hello", "hello"),
]
for test, schema, raw, expected in NULLABLE_CASES:
    pieces = [MM[0], '<invoke name="lookup">', mm_param("value", raw), "</invoke>", MM[1]]
    alias = raw in ("none", "nil")
    add(Vector(f"minimax_m2/sglang/{test}", "minimax_m2", "".join(pieces), [] if alias else [("lookup", {"value": expected})], content=None,
               invalid=1 if alias else 0, tools=[fn("lookup", value=schema)], chunks=pieces, origin=NULLABLE_ORIGIN + test.split("[")[0]))
INDEX_ORIGIN = SMM_DIR + "test_minimax_m2_tool_index.py @9d805840064d9fb600e8688c99599652ae12bfdd::TestMinimaxM2ToolIndex::"
INDEX_TOOLS = [fn("get_weather", city=S), fn("search_web", query=S), fn("calculate", expr=S)]


def index_message(*calls: tuple) -> str:
    parts = [MM[0]]
    for name, params in calls:
        parts += [f'<invoke name="{name}">', *(mm_param(k, v) for k, v in params.items()), "</invoke>"]
    return "\n".join(parts + [MM[1]])


def sidx(test: str, text: str, calls: Any, **kw: Any) -> None:
    add(Vector(f"minimax_m2/sglang/{test}", "minimax_m2", text, calls, tools=INDEX_TOOLS, origin=INDEX_ORIGIN + test, **kw))


TOKYO_PARIS = index_message(("get_weather", {"city": "Tokyo"}), ("get_weather", {"city": "Paris"}))
sidx("test_parallel_same_tool_indices_single_shot", TOKYO_PARIS, [("get_weather", {"city": "Tokyo"}), ("get_weather", {"city": "Paris"})])
sidx("test_index_is_ordinal_not_registry_slot", index_message(("calculate", {"expr": "2+2"})), [("calculate", {"expr": "2+2"})])
WITH_UNKNOWN = index_message(("get_weather", {"city": "Tokyo"}), ("unknown_tool", {"city": "Paris"}), ("calculate", {"expr": "2+2"}))
sidx("test_indices_are_dense_when_unknown_tool_is_dropped", WITH_UNKNOWN, [("get_weather", {"city": "Tokyo"}), ("calculate", {"expr": "2+2"})],
     invalid=1, why=UNKNOWN_TOOL)
sidx("test_forwarded_unknown_tool_gets_ordinal_index", WITH_UNKNOWN, [("get_weather", {"city": "Tokyo"}), ("calculate", {"expr": "2+2"})],
     invalid=1, why="a call to a tool not among the request's is reported invalid with its text (SGLang, told to forward unknown tools, "
     "returns it as a call)")
sidx("test_single_shot_matches_streaming_indices", TOKYO_PARIS, [("get_weather", {"city": "Tokyo"}), ("get_weather", {"city": "Paris"})])
FINISH_ORIGIN = SMM_DIR + "test_minimax_m2_detector_finish.py @f571114314df8e3126bd68bd0d48ea13bdc8e1ca::TestMinimaxM2DetectorFinishFlush::"
FINISH_TOOL = [fn("get_weather", city=S)]
add(Vector("minimax_m2/sglang/test_partial_tool_call_at_end_is_flushed", "minimax_m2",
           "hi " + MM[0] + '<invoke name="get_weather"><parameter name="city">P', [], content="hi ", invalid=1, tools=FINISH_TOOL,
           origin=FINISH_ORIGIN + "test_partial_tool_call_at_end_is_flushed"))
add(Vector("minimax_m2/sglang/test_clean_stream_finish_is_noop", "minimax_m2", "just some text", [], content="just some text", tools=FINISH_TOOL,
           origin=FINISH_ORIGIN + "test_clean_stream_finish_is_noop"))
add(Vector("minimax_m2/sglang/test_complete_call_not_duplicated_at_finish", "minimax_m2",
           MM[0] + mm_invoke("get_weather", mm_param("city", "Paris")) + MM[1], [("get_weather", {"city": "Paris"})], content=None, tools=FINISH_TOOL,
           origin=FINISH_ORIGIN + "test_complete_call_not_duplicated_at_finish"))

# --------------------------------------------------------------------------------------------
# gemma4: vLLM tests/tool_parsers/test_gemma4_tool_parser.py
# --------------------------------------------------------------------------------------------
G = ("<|tool_call>", "<tool_call|>")
Q = '<|"|>'
VG = "vllm-project/vllm tests/tool_parsers/test_gemma4_tool_parser.py @027004de3715411197be51ced325705abcf740a7::"


def gq(s: str) -> str:
    return Q + s + Q


def gcall(name: str, args: str) -> str:
    return f"{G[0]}call:{name}{{{args}}}{G[1]}"


def vg(test: str, text: str, calls: Any, **kw: Any) -> None:
    add(Vector(f"gemma4/vllm/{test}", "gemma4", text, calls, origin=VG + test, **kw))


# TestParseGemma4Args / TestParseGemma4Array: the parsers' input is a call's arguments (or an array's
# inside); here each sits in a call as Gemma 4 writes it
for test, args, expected in (
    ("test_empty_string", "", {}),
    ("test_whitespace_only", "   ", {}),
    ("test_single_string_value", "location:" + gq("Paris"), {"location": "Paris"}),
    ("test_string_value_with_comma", "location:" + gq("Paris, France"), {"location": "Paris, France"}),
    ("test_multiple_string_values", f"location:{gq('San Francisco')},unit:{gq('celsius')}", {"location": "San Francisco", "unit": "celsius"}),
    ("test_integer_value", "count:42", {"count": 42}),
    ("test_float_value", "score:3.14", {"score": 3.14}),
    ("test_boolean_true", "flag:true", {"flag": True}),
    ("test_boolean_false", "flag:false", {"flag": False}),
    ("test_null_value", "param:null", {"param": None}),
    ("test_mixed_types", f"name:{gq('test')},count:42,active:true,score:3.14", {"name": "test", "count": 42, "active": True, "score": 3.14}),
    ("test_nested_object", f"nested:{{inner:{gq('value')}}}", {"nested": {"inner": "value"}}),
    ("test_string_delimited_dict_key", f"record_map:{{{gq('3')}:{gq('new text')}}}", {"record_map": {"3": "new text"}}),
    ("test_nested_string_delimited_dict_key", f"outer:{{inner:{{{gq('3')}:{gq('new text')}}}}}", {"outer": {"inner": {"3": "new text"}}}),
    ("test_array_of_strings", f"items:[{gq('a')},{gq('b')}]", {"items": ["a", "b"]}),
):
    vg("TestParseGemma4Args::" + test, gcall("f", args), [("f", expected)])
vg("TestParseGemma4Args::test_trailing_dot_float_partial_withheld[not partial]", gcall("f", "left:108.,right:22.8"), [], invalid=1,
   why="108. is no number of JSON's, whose numbers Gemma 4's template writes: the call is reported invalid with its text (vLLM reads 108.0)")
vg("TestParseGemma4Args::test_empty_value", gcall("f", "key:"), [], invalid=1,
   why="a key with no value is no value of Gemma 4's syntax: the call is reported invalid with its text (vLLM reads an empty string)")
for test, inner, expected in (
    ("test_string_array", f"{gq('a')},{gq('b')}", ["a", "b"]),
    ("test_empty_array", "", []),
    ("test_bare_values", "42,true,3.14", [42, True, 3.14]),
    ("test_string_element_with_closing_bracket", f"[{gq('a]b')},{gq('c')}],{gq('tail')}", [["a]b", "c"], "tail"]),
):
    vg("TestParseGemma4Array::" + test, gcall("f", f"items:[{inner}]"), [("f", {"items": expected})])
LONDON = gcall("get_weather", "location:" + gq("London"))
vg("TestExtractToolCalls::test_no_tool_calls", "Hello, how can I help you today?", [], content="Hello, how can I help you today?")
vg("TestExtractToolCalls::test_single_tool_call", LONDON, [("get_weather", {"location": "London"})])
vg("TestExtractToolCalls::test_multiple_arguments", gcall("get_weather", f"location:{gq('San Francisco')},unit:{gq('celsius')}"),
   [("get_weather", {"location": "San Francisco", "unit": "celsius"})])
vg("TestExtractToolCalls::test_text_before_tool_call", "Let me check the weather for you. " + gcall("get_weather", "location:" + gq("Paris")),
   [("get_weather", {"location": "Paris"})], content="Let me check the weather for you. ",
   why="verbatim: the content keeps the space the model wrote before the call (vLLM strips it)")
vg("TestExtractToolCalls::test_multiple_tool_calls", LONDON + gcall("get_time", "location:" + gq("London")),
   [("get_weather", {"location": "London"}), ("get_time", {"location": "London"})])
vg("TestExtractToolCalls::test_nested_arguments", gcall("complex_function", f"nested:{{inner:{gq('value')}}},list:[{gq('a')},{gq('b')}]"),
   [("complex_function", {"nested": {"inner": "value"}, "list": ["a", "b"]})])
vg("TestExtractToolCalls::test_tool_call_with_number_and_boolean", gcall("set_status", "is_active:true,count:42,score:3.14"),
   [("set_status", {"is_active": True, "count": 42, "score": 3.14})])
vg("TestExtractToolCalls::test_incomplete_tool_call", f"{G[0]}call:get_weather{{location:{Q}London", [], content=None, invalid=1,
   why="the output stops inside the call: the cut call is reported invalid with its text (vLLM gives the text back as content)")
vg("TestExtractToolCalls::test_hyphenated_function_name", gcall("get-weather", "location:" + gq("London")), [("get-weather", {"location": "London"})])
vg("TestExtractToolCalls::test_dotted_function_name", gcall("weather.get", "location:" + gq("London")), [("weather.get", {"location": "London"})])
vg("TestExtractToolCalls::test_no_arguments", gcall("get_status", ""), [("get_status", {})])


def vgs(test: str, chunks: list, calls: Any, **kw: Any) -> None:
    vg("TestStreamingExtraction::" + test, "".join(chunks), calls, chunks=chunks, **kw)


vgs("test_basic_streaming_single_tool", [G[0], "call:get_weather{", f"location:{Q}Paris", ", France", Q + "}", G[1]],
    [("get_weather", {"location": "Paris, France"})])
vgs("test_streaming_multi_arg", [G[0], "call:get_weather{", f"location:{gq('Tokyo')},", f"unit:{gq('celsius')}}}", G[1]],
    [("get_weather", {"location": "Tokyo", "unit": "celsius"})])
for test in ("test_streaming_no_extra_brace", "test_streaming_no_unquoted_keys", "test_streaming_name_no_call_prefix"):
    city = "London" if test == "test_streaming_no_extra_brace" else "Paris"
    vgs(test, [G[0], "call:get_weather{", f"location:{gq(city)}}}", G[1]], [("get_weather", {"location": city})])
vgs("test_streaming_text_before_tool_call", ["Let me check ", "the weather. ", G[0], "call:get_weather{", f"location:{gq('London')}}}", G[1]],
    [("get_weather", {"location": "London"})], content="Let me check the weather. ")
vgs("test_streaming_numeric_args", [G[0], "call:set_config{", "count:42,", "active:true}", G[1]], [("set_config", {"count": 42, "active": True})])
vgs("test_streaming_boolean_split_across_chunks", [G[0], "call:search{input:{all:tru", "e}}", G[1]], [("search", {"input": {"all": True}})])
vgs("test_streaming_false_split_across_chunks", [G[0], "call:set{flag:fals", "e}", G[1]], [("set", {"flag": False})])
vgs("test_streaming_number_split_across_chunks", [G[0], "call:set{count:4", "2}", G[1]], [("set", {"count": 42})])
vgs("test_streaming_empty_args", [G[0], "call:get_status{}", G[1]], [("get_status", {})])
vgs("test_streaming_split_delimiter_no_invalid_json", [G[0], "call:todowrite{", f"content:{Q}Buy milk<|", '"|>}', G[1]], [("todowrite", {"content": "Buy milk"})])
vgs("test_streaming_does_not_duplicate_plain_text_after_tool_call", [G[0], "call:get_weather{", f"location:{gq('Paris')}}}", G[1] + "<", "div>"],
    [("get_weather", {"location": "Paris"})], content="<div>")
HTML_CHUNKS = [G[0], "call:write_file{", f"path:{gq('index.html')},", f"content:{Q}<!DOCTYPE html>\n<", 'html lang="zh-CN">\n<', "head>\n    <",
               'meta charset="UTF-8">\n    <', 'meta name="viewport" content="width=device-width">\n', Q + "}", G[1]]
vgs("test_streaming_html_argument_does_not_duplicate_tag_prefixes", HTML_CHUNKS, [("write_file", {
    "path": "index.html",
    "content": '<!DOCTYPE html>\n<html lang="zh-CN">\n<head>\n    <meta charset="UTF-8">\n    <meta name="viewport" content="width=device-width">\n'})])
vgs("test_streaming_trailing_bare_bool_not_duplicated",
    [G[0], "call:Edit{", f"file_path:{gq('src/env.py')},", f"old_string:{gq('old_val')},", f"new_string:{gq('new_val')},", "replace_all:", "false}", G[1]],
    [("Edit", {"file_path": "src/env.py", "old_string": "old_val", "new_string": "new_val", "replace_all": False})])

# --------------------------------------------------------------------------------------------
# gemma4: vLLM tests/tool_parsers/test_gemma4_regex_and_bare_calls.py (vLLM's offline
# parse_tool_calls and its engine tool parser on the calls Gemma 4 writes wrong)
# --------------------------------------------------------------------------------------------
VGB = "vllm-project/vllm tests/tool_parsers/test_gemma4_regex_and_bare_calls.py @33a7f0986ab85b31a5af305eb7e7b0b6ec03f406::"
CH = ("<|channel>", "<channel|>")
GEMMA_SLIP = "issue 35 point 2: Gemma 4's slip is not read as the call it is: "
BARE_PROSE = ("a bare call in the answer's text, with no tool-call token and not right where the reasoning closed, is text: reading "
              "it would turn prose into a call, and the model's text is kept verbatim (vLLM's offline fallback reads it)")


def vgb(test: str, text: str, calls: Any, **kw: Any) -> None:
    kw.setdefault("thinking", None)
    add(Vector(f"gemma4/vllm/{test}", "gemma4", text, calls, origin=VGB + test, **kw))


vgb("TestGemma4CanonicalFormats::test_canonical_tag_wrapped_call", gcall("bash", "command:" + gq("ls -la /work")), [("bash", {"command": "ls -la /work"})])
vgb("TestGemma4CanonicalFormats::test_turn_end_closure_instead_of_tool_call_end", f"{G[0]}call:gdb{{args:{gq('-batch -ex run /tmp/poc')}}}<turn|>",
    [("gdb", {"args": "-batch -ex run /tmp/poc"})])
vgb("TestGemma4CanonicalFormats::test_multiple_sequential_canonical_calls",
    gcall("read_file", "path:" + gq("/work/Makefile")) + "\n" + gcall("bash", "command:" + gq("make -j8")),
    [("read_file", {"path": "/work/Makefile"}), ("bash", {"command": "make -j8"})])
vgb("TestGemma4CanonicalFormats::test_strict_mode_ignores_fallback_formats", CH[1] + "call:bash{command:" + gq("ls") + "}", [("bash", {"command": "ls"})],
    thinking=True)
THOUGHT_BARE = f"{CH[0]}thought\nI need to read the entry source file to inspect the crash point.\n{CH[1]}call:bash{{command:{gq('cat /work/src/entry.c')}}}"
vgb("TestGemma4FallbackFormats::test_bare_call_after_thought_channel", THOUGHT_BARE, [("bash", {"command": "cat /work/src/entry.c"})])
vgb("TestGemma4FallbackFormats::test_colon_prefixed_tool_call", f"{G[0]}:call:bash{{command:{gq('pytest')}}}", [("bash", {"command": "pytest"})])
vgb("TestGemma4FallbackFormats::test_bare_call_with_leading_whitespace", "some prose\ncall:bash{command:" + gq("make -j8") + "}", [],
    content="some prose\ncall:bash{command:" + gq("make -j8") + "}", why=BARE_PROSE)
vgb("TestGemma4FallbackFormats::test_fragmented_call_tag_from_multimodal", "<call>get_weather{city:" + gq("Paris") + "}",
    [("get_weather", {"city": "Paris"})], xfail=GEMMA_SLIP + "<call>NAME{…}, the tool-call token broken up by multimodal input")
vgb("TestGemma4FallbackFormats::test_hyphenated_tool_name", "call:web-search{query:" + gq("gemma 4 release") + "}", [],
    content="call:web-search{query:" + gq("gemma 4 release") + "}", why=BARE_PROSE)
vgb("TestGemma4FallbackFormats::test_dotted_tool_name", "call:fs.read_file{path:" + gq("/work/Makefile") + "}", [],
    content="call:fs.read_file{path:" + gq("/work/Makefile") + "}", why=BARE_PROSE)
vgb("TestGemma4FallbackFormats::test_no_tool_call_returns_empty", "Just some reasoning text with no call in it.", [],
    content="Just some reasoning text with no call in it.")
vgb("TestGemma4EngineBareCallIntegration::test_offline_utils_bare_call_after_channel",
    f"{CH[0]}thought\nI need to read the entry source file.\n{CH[1]}call:bash{{command:{gq('cat /work/src/entry.c')}}}",
    [("bash", {"command": "cat /work/src/entry.c"})])
vgb("TestGemma4EngineBareCallIntegration::test_engine_tool_parser_bare_call_extraction",
    f"{CH[0]}thought\nListing directory files.\n{CH[1]}call:bash{{command:{gq('ls -la /work')}}}", [("bash", {"command": "ls -la /work"})],
    tools=[fn("bash", command=S)])

# --------------------------------------------------------------------------------------------
# gemma4: SGLang test/registered/unit/function_call/test_gemma4_detector.py and
# test_gemma4_detector_string_delimiters.py
# --------------------------------------------------------------------------------------------
SG_ARRAY = "sgl-project/sglang test/registered/unit/function_call/test_gemma4_detector.py @1def55250d322723e39c49c14ef987c7fa119fb4::TestGemma4ArrayParser::"
for i, (payload, expected) in enumerate([(f"[{gq('a]b')},{gq('c')}],{gq('tail')}", [["a]b", "c"], "tail"]),
                                         (f"[{gq('a[b')},{gq('c')}],{gq('tail')}", [["a[b", "c"], "tail"]),
                                         (f"[{gq('a[b]c')},{gq('d')}]", [["a[b]c", "d"]])]):
    add(Vector(f"gemma4/sglang/test_nested_array_string_elements_with_brackets[{i}]", "gemma4", gcall("f", f"items:[{payload}]"),
               [("f", {"items": expected})], origin=SG_ARRAY + "test_nested_array_string_elements_with_brackets"))
SG_DELIM = ("sgl-project/sglang test/registered/unit/function_call/test_gemma4_detector_string_delimiters.py "
            "@206d16683c5812977e01f2e08b54a6210c00cfe2::TestGemma4StringDelimiters::")
WEB_SEARCH = [fn("web_search", ["query"], query=S, limit=I)]


def sgd(test: str, text: str, calls: Any, **kw: Any) -> None:
    add(Vector(f"gemma4/sglang/{test}", "gemma4", text, calls, tools=WEB_SEARCH, origin=SG_DELIM + test, **kw))


sgd("test_well_formed_string", gcall("web_search", f"query:{gq('weather in Tokyo')}"), [("web_search", {"query": "weather in Tokyo"})])
sgd("test_omitted_opening_delimiter", gcall("web_search", f"query:weather in Tokyo{Q}"), [("web_search", {"query": "weather in Tokyo"})])
sgd("test_omitted_opening_delimiter_with_comma", gcall("web_search", f"query:Paris, France{Q},limit:5"),
    [("web_search", {"query": "Paris, France", "limit": 5})])
sgd("test_omitted_opening_delimiter_in_nested_object", gcall("web_search", f"filters:{{city:Tokyo{Q}}},query:{gq('x')}"),
    [("web_search", {"filters": {"city": "Tokyo"}, "query": "x"})])
sgd("test_omitted_opening_delimiter_in_array", gcall("web_search", f"query:[{gq('a')},b{Q}]"), [], invalid=1,
    why="an array for query breaks the tool's string schema: the call is reported invalid whatever the slip (SGLang returns it)")
sgd("test_other_values_unchanged", gcall("web_search", f"limit:5,exact:true,query:{gq('Note: a, b')}"),
    [("web_search", {"limit": 5, "exact": True, "query": "Note: a, b"})])
sgd("test_malformed_array_terminates", gcall("web_search", f"query:[ k:{Q}1]]"), [], invalid=1,
    why="a malformed value is reported invalid with its text (SGLang returns a call with what it salvaged; its test checks only the name)")
sgd("test_streaming_omitted_opening_delimiter", gcall("web_search", f"query:weather in Tokyo{Q}"), [("web_search", {"query": "weather in Tokyo"})],
    chunks=[G[0], "call", ":", "web", "_", "search", "{", "query", ":", "weather", " in", " Tokyo", Q, "}", G[1]])
sgd("test_streaming_well_formed", gcall("web_search", f"query:{gq('weather in Tokyo')}"), [("web_search", {"query": "weather in Tokyo"})],
    chunks=[G[0], "call", ":", "web", "_", "search", "{", "query", ":", Q, "weather", " in", " Tokyo", Q, "}", G[1]])

# --------------------------------------------------------------------------------------------
# gemma4: vLLM tests/reasoning/test_gemma4_reasoning_parser.py (the non-streaming cases; the
# streaming ids stream the same outputs token by token, which the chars path covers; the two
# "invalid_*_streaming" ids expect the opposite of their non-streaming twins and are left out)
# --------------------------------------------------------------------------------------------
VGR = "vllm-project/vllm tests/reasoning/test_gemma4_reasoning_parser.py @0c4966200aec186cd256a14f02c2151571f0ad0e::test_gemma4_reasoning"
for pid, text, reasoning, content, thinking, extra in (
    ("invalid_simple", f"This is a reasoning section{CH[1]}This is the rest", "This is a reasoning section", "This is the rest", True, {}),
    ("invalid_complete", f"This is a reasoning section{CH[1]}", "This is a reasoning section", None, True, {}),
    ("no_content", f"{CH[0]}This is reasoning", "This is reasoning", None, None, {}),
    ("no_reasoning", "This is content", None, "This is content", None, {}),
    ("reasoning", f"{CH[0]}This is a reasoning section{CH[1]}This is the rest", "This is a reasoning section", "This is the rest", None, {}),
    ("complete_reasoning", f"{CH[0]}This is a reasoning section{CH[1]}", "This is a reasoning section", None, None, {}),
    ("multiple_lines", f"{CH[0]}This\nThat{CH[1]}This is the rest\nThat", "This\nThat", "This is the rest\nThat", None, {}),
    ("no_end", f"{CH[0]}This is a reasoning section", "This is a reasoning section", None, None, {}),
    ("empty", "", None, None, None, {}),
    ("new_line", f"Before\n{CH[0]}This is a reasoning section{CH[1]}\nThis is the rest", "This is a reasoning section", "Before\n\nThis is the rest", None, {}),
    ("thought_prefix", f"{CH[0]}thought\nActual reasoning here{CH[1]}Final answer", "Actual reasoning here", "Final answer", None, {}),
    ("thought_prefix_only", f"{CH[0]}thought\n{CH[1]}", None, None, None, {}),
    ("thought_prefix_multiline", f"{CH[0]}thought\nLine1\nLine2{CH[1]}Answer", "Line1\nLine2", "Answer", None, {}),
    ("thought_prefix_diverge", f"{CH[0]}thousand reasons{CH[1]}Done", "thousand reasons", "Done", None, {}),
):
    add(Vector(f"gemma4/vllm-reasoning/{pid}", "gemma4", text, [], reasoning=reasoning, content=content, thinking=thinking,
               origin=VGR + f"[{pid}]", **extra))
add(Vector("gemma4/vllm-reasoning/tool_call_started", "gemma4", G[0], [], reasoning=None, content=None, invalid=1, thinking=None,
           origin=VGR + "[tool_call_started]",
           why="the output stops right after the tool-call token: the cut call is reported invalid with its text, not put in the "
           "content (vLLM's reasoning parser alone passes the token on as content)"))

# --------------------------------------------------------------------------------------------
# gemma4: vLLM tests/reasoning/test_gemma4_reasoning_with_tool_call.py (reasoning and tool parser
# together, token by token or in one delta)
# --------------------------------------------------------------------------------------------
VGRT = "vllm-project/vllm tests/reasoning/test_gemma4_reasoning_with_tool_call.py @109eefd646368f8aa282b251a815c04fd5922975::"
FIND_TOKENS = [CH[0], "thought", "\n", "I", " need", " to", " find", " files", CH[1], G[0], "call", ":", "find", "{", "path", ":", Q, "research", Q, "}", G[1]]
FIND = [("find", {"path": "research"})]
add(Vector("gemma4/vllm-reasoning/test_reasoning_then_tool_call_token_by_token", "gemma4", "".join(FIND_TOKENS), FIND,
           reasoning="I need to find files", thinking=None, chunks=FIND_TOKENS, origin=VGRT + "test_reasoning_then_tool_call_token_by_token"))
add(Vector("gemma4/vllm-reasoning/test_reasoning_then_tool_call_single_delta", "gemma4", "".join(FIND_TOKENS), FIND,
           reasoning="I need to find files", thinking=None, origin=VGRT + "test_reasoning_then_tool_call_single_delta"))
ANSWER_TOKENS = [CH[0], "thought", "\n", "I", " need", " to", " answer", CH[1], "The", " answer", " is", " 42"]
add(Vector("gemma4/vllm-reasoning/test_reasoning_after_tool_response", "gemma4", "".join(ANSWER_TOKENS), [], reasoning="I need to answer",
           content="The answer is 42", thinking=None, chunks=ANSWER_TOKENS, origin=VGRT + "test_reasoning_after_tool_response"))
THINK_TOKENS = [CH[0], "thought", "\n", "Let", " me", " think", CH[1], "The", " answer", " is", " 42"]
add(Vector("gemma4/vllm-reasoning/test_reasoning_only_no_tool_call", "gemma4", "".join(THINK_TOKENS), [], reasoning="Let me think",
           content="The answer is 42", thinking=None, chunks=THINK_TOKENS, origin=VGRT + "test_reasoning_only_no_tool_call"))

# --------------------------------------------------------------------------------------------
# gemma4: vLLM tests/parser/engine/test_gemma4_streaming_reasoning.py (the parser engine's Gemma 4
# parser; token streams in batches of 10 or 1 as the tests feed them)
# --------------------------------------------------------------------------------------------
EG = "vllm-project/vllm tests/parser/engine/test_gemma4_streaming_reasoning.py @089b890a3086ebafa81bfd738ca6104eda1a5c04::"
GEMMA_TYPED = ("Gemma 4's syntax types a bare value itself (a string is written between <|\"|>): 42 is a number and true a "
               "boolean (vLLM's engine parser keeps the text where no schema types it; its tool parser reads them typed)")


def eg(test: str, text: str, calls: Any, **kw: Any) -> None:
    add(Vector(f"gemma4/vllm-engine/{test}", "gemma4", text, calls, origin=EG + test.split("[")[0], **kw))


def words(text: str) -> list[str]:
    w = text.split(" ")
    return [w[0], *(" " + x for x in w[1:])]


for term in ("<turn|>", "<eos>"):
    eg(f"TestGemma4DroppedTerminalText::test_terminal_text_without_token_id_is_dropped[{term}]", "The answer is 4." + term, [],
       content="The answer is 4.", thinking=None)
DALLAS_REASONING = ("The user is asking for the current weather in Dallas, Texas, and specifically requests the temperature in Fahrenheit. "
                    "I have a tool `get_current_weather` that can provide this information. I should call this tool with `city='Dallas'`, "
                    "`state='TX'`, and `unit='fahrenheit'`.")
DALLAS_TOKENS = [CH[0], "thought", "\n", *words(DALLAS_REASONING), CH[1], G[0], "call", ":", "get_current_weather", "{", "city", ":", Q, "Dallas", Q,
                 ",", "state", ":", Q, "TX", Q, ",", "unit", ":", Q, "fahrenheit", Q, "}", G[1]]
DALLAS_G = [("get_current_weather", {"city": "Dallas", "state": "TX", "unit": "fahrenheit"})]
for test in ("test_tool_call_extracted", "test_tool_call_text_not_in_content", "test_reasoning_extracted"):
    eg("TestGemma4StreamingReasoningThenToolCall::" + test, "".join(DALLAS_TOKENS), DALLAS_G, reasoning=DALLAS_REASONING, content=None,
       thinking=None, chunks=grouped(DALLAS_TOKENS, 10))
OPEN_TOKENS = ["Sure", ",", " the", " answer", " is", " 42", CH[1], "Hello", " world"]
for test in ("test_reasoning_not_leaked_into_content", "test_post_reasoning_text_in_content"):
    eg("TestGemma4PromptOpenReasoning::" + test, "".join(OPEN_TOKENS), [], reasoning="Sure, the answer is 42", content="Hello world",
       thinking=True, chunks=OPEN_TOKENS)
eg("TestGemma4PromptOpenReasoning::test_new_turn_prompt_unchanged", "".join(DALLAS_TOKENS), DALLAS_G, reasoning=DALLAS_REASONING, thinking=None,
   chunks=grouped(DALLAS_TOKENS, 10))
PRE_INIT = [CH[0], "thought", "\n", "Reason", "ing", " body", CH[1], "Final", " content"]
for test in ("test_redundant_channel_open_swallowed_after_new_turn", "test_redundant_channel_open_swallowed_after_open_channel_prompt"):
    eg("TestGemma4PreInitReasoningRobustness::" + test, "".join(PRE_INIT), [], reasoning="Reasoning body", content="Final content",
       thinking=True, chunks=PRE_INIT)
HOST_REASONING = ("The user wants me to:\n1. Perform some reasoning.\n2. Call a tool to fetch the hostname.\n3. Call a tool to fetch the current "
                  "date.\n\nSince I am an AI assistant (opencode), I can use the `bash` tool to execute commands.\nTo get the hostname, I can run "
                  "`hostname`.\nTo get the current date, I can run `date`.\n\nI should do this in a single response with multiple tool calls for "
                  "efficiency.")


def bash_tokens(command: str, description: str) -> list[str]:
    return [G[0], "call", ":", "bash", "{", "command", ":", Q, command, Q, ",", "description", ":", Q, description, Q, "}", G[1]]


HOST_TOKENS = [CH[0], "thought", "\n", *words(HOST_REASONING), CH[1], *bash_tokens("hostname", "Fetch the hostname of the system."),
               *bash_tokens("date", "Fetch the current system date and time.")]


def holdback(tokens: list[str], batch: int = 10, held: int = 12) -> list[str]:
    """The test's detokenizer: each batch of tokens sent but its last ``held`` characters, which the next batch sends."""
    out, sent = [], 0
    for end in range(batch, len(tokens) + batch, batch):
        text = "".join(tokens[:end])
        safe = len(text) if end >= len(tokens) else max(0, len(text) - held)
        out.append(text[sent:safe])
        sent = safe
    return out


HOST_CALLS = [("bash", {"command": "hostname", "description": "Fetch the hostname of the system."}),
              ("bash", {"command": "date", "description": "Fetch the current system date and time."})]
for test in ("test_reasoning_not_truncated", "test_both_tool_calls_extracted", "test_tool_call_text_not_in_content"):
    eg("TestGemma4ReasoningTruncationWithHoldback::" + test, "".join(HOST_TOKENS), HOST_CALLS, reasoning=HOST_REASONING, content=None,
       thinking=None, chunks=holdback(HOST_TOKENS))
eg("TestNonStreamingToolCalls::test_no_tool_calls", "Hello, how can I help you today?", [], content="Hello, how can I help you today?")
eg("TestNonStreamingToolCalls::test_single_tool_call", LONDON, [("get_weather", {"location": "London"})])
eg("TestNonStreamingToolCalls::test_multiple_arguments", gcall("get_weather", f"location:{gq('San Francisco')},unit:{gq('celsius')}"),
   [("get_weather", {"location": "San Francisco", "unit": "celsius"})])
eg("TestNonStreamingToolCalls::test_text_before_tool_call", "Let me check the weather for you. " + gcall("get_weather", "location:" + gq("Paris")),
   [("get_weather", {"location": "Paris"})], content="Let me check the weather for you. ")
eg("TestNonStreamingToolCalls::test_multiple_tool_calls", LONDON + gcall("get_time", "location:" + gq("London")),
   [("get_weather", {"location": "London"}), ("get_time", {"location": "London"})])
eg("TestNonStreamingToolCalls::test_nested_arguments", gcall("complex_function", f"nested:{{inner:{gq('value')}}},list:[{gq('a')},{gq('b')}]"),
   [("complex_function", {"nested": {"inner": "value"}, "list": ["a", "b"]})])
eg("TestNonStreamingToolCalls::test_number_and_boolean", gcall("set_status", "is_active:true,count:42,score:3.14"),
   [("set_status", {"is_active": True, "count": 42, "score": 3.14})], why=GEMMA_TYPED)
eg("TestNonStreamingToolCalls::test_no_arguments", gcall("get_status", ""), [("get_status", {})])
eg("TestNonStreamingToolCalls::test_hyphenated_function_name", gcall("get-weather", "location:" + gq("London")), [("get-weather", {"location": "London"})])
eg("TestNonStreamingToolCalls::test_dotted_function_name", gcall("weather.get", "location:" + gq("London")), [("weather.get", {"location": "London"})])


def egs(test: str, chunks: list, calls: Any, **kw: Any) -> None:
    eg("TestStreamingToolCallEdgeCases::" + test, "".join(chunks), calls, chunks=chunks, **kw)


egs("test_basic_streaming", [G[0], "call:get_weather{", f"location:{Q}Paris", ", France", Q + "}", G[1]], [("get_weather", {"location": "Paris, France"})])
egs("test_streaming_multi_arg", [G[0], "call:get_weather{", f"location:{gq('Tokyo')},", f"unit:{gq('celsius')}}}", G[1]],
    [("get_weather", {"location": "Tokyo", "unit": "celsius"})])
egs("test_streaming_no_extra_brace", [G[0], "call:get_weather{", f"location:{gq('London')}}}", G[1]], [("get_weather", {"location": "London"})])
egs("test_streaming_text_before_tool", ["Let me check ", "the weather. ", G[0], "call:get_weather{", f"location:{gq('London')}}}", G[1]],
    [("get_weather", {"location": "London"})], content="Let me check the weather. ")
egs("test_streaming_numeric_args", [G[0], "call:set_config{", "count:42,", "active:true}", G[1]], [("set_config", {"count": 42, "active": True})],
    why=GEMMA_TYPED)
egs("test_streaming_empty_args", [G[0], "call:get_status{}", G[1]], [("get_status", {})])

# --------------------------------------------------------------------------------------------
# kimi_k3: vLLM tests/tool_parsers/test_kimi_k3_tool_parser.py (the answer after a prompt that
# opened the response element: not thinking)
# --------------------------------------------------------------------------------------------
VK3 = "vllm-project/vllm tests/tool_parsers/test_kimi_k3_tool_parser.py @b635426178304eb2cfc58d9ef606778f5a58cb20::"
XO, XC, XS = "<|open|>", "<|close|>", "<|sep|>"
MESSAGE_CLOSE = f"{XC}message{XS}"
add(Vector("kimi_k3/vllm/test_streaming_content_stops_at_message_close", "kimi_k3", "Hello" + MESSAGE_CLOSE, [], content="Hello",
           origin=VK3 + "test_streaming_content_stops_at_message_close"))
for size in (1, 3, 7):
    add(Vector(f"kimi_k3/vllm/test_streaming_content_holds_split_message_close[{size}]", "kimi_k3", "Hello" + MESSAGE_CLOSE, [], content="Hello",
               chunks=size, origin=VK3 + "test_streaming_content_holds_split_message_close"))

# --------------------------------------------------------------------------------------------
# kimi_k3: SGLang test/registered/unit/function_call/test_kimik3_detector.py (the tool detector
# alone: its outputs hold no reasoning)
# --------------------------------------------------------------------------------------------
SK3 = "sgl-project/sglang test/registered/unit/function_call/test_kimik3_detector.py @5c57d4c3bcd7b2f9d5478c7a76e557c014211b7d::"
K3_RESPONSE = (f"{XO}response{XS}", f"{XC}response{XS}")
K3_TOOLS = (f"{XO}tools{XS}", f"{XC}tools{XS}")
PYTHON_K3 = [fn("python", code=S)]


def k3_call(tool: str, index: int, args: dict) -> str:
    parts = [f'{XO}call tool="{tool}" index="{index}"{XS}']
    parts += [f'{XO}argument key="{k}" type="{t}"{XS}{v}{XC}argument{XS}' for k, (t, v) in args.items()]
    return "".join(parts) + f"{XC}call{XS}"


K3_UNLISTED = ("issue 35 point 5: disputed: where the schema lists its keys, a closing tag followed by a key it does not list is the value's "
    "text (a file that holds the tool's markup: tests/test_markup_in_values.py), as the grammar never writes an unlisted key (xgrammar's "
    "reading, admits_free_keys); a schema that lists none (\"properties\": {}) takes any key, point 5's case, which is read")


def sk3(test: str, text: str, calls: Any, **kw: Any) -> None:
    kw.setdefault("tools", PYTHON_K3)
    add(Vector(f"kimi_k3/sglang/{test}", "kimi_k3", text, calls, origin=SK3 + test.split("[")[0], **kw))


sk3("test_detect_and_parse_single_call",
    f"{K3_RESPONSE[0]}Let me run it.{K3_RESPONSE[1]}{K3_TOOLS[0]}" + k3_call("python", 1, {"code": ("string", "print(1)"), "opts": ("object", '{"a": 1}')})
    + K3_TOOLS[1], [("python", {"code": "print(1)", "opts": {"a": 1}})], content="Let me run it.",
    xfail=K3_UNLISTED)
sk3("test_detect_and_parse_no_tools_channel", f"{K3_RESPONSE[0]}hi there{K3_RESPONSE[1]}{MESSAGE_CLOSE}", [], content="hi there")
AB_K3 = K3_TOOLS[0] + k3_call("python", 1, {"code": ("string", "a")}) + k3_call("python", 2, {"code": ("string", "b")}) + K3_TOOLS[1]
sk3("test_detect_and_parse_multiple_calls", AB_K3, [("python", {"code": "a"}), ("python", {"code": "b"})])
sk3("test_detect_and_parse_unclosed_tools_section", K3_TOOLS[0] + k3_call("python", 1, {"code": ("string", "x")}), [("python", {"code": "x"})])
sk3("test_attr_unescaping_and_raw_string_args",
    f'{K3_TOOLS[0]}{XO}call tool="a&amp;b" index="1"{XS}{XO}argument key="q" type="string"{XS}say &quot;hi&quot;{XC}argument{XS}{XC}call{XS}{K3_TOOLS[1]}',
    [("a&b", {"q": "say &quot;hi&quot;"})], tools=None)
sk3("test_non_string_arg_json_decoding",
    K3_TOOLS[0] + k3_call("python", 1, {"n": ("number", "42"), "flag": ("boolean", "true"), "bad": ("object", "{not json")}) + K3_TOOLS[1], [],
    invalid=1, why='a value typed "object" that is not JSON is reported invalid with the call\'s text (SGLang passes "{not json" on as a string)')
for size in (1, 7, 23):
    sk3(f"test_streaming_split_markers[{size}]",
        f"{K3_RESPONSE[0]}Hello!{K3_RESPONSE[1]}{K3_TOOLS[0]}" + k3_call("python", 1, {"code": ("string", "print(2)")}) + K3_TOOLS[1],
        [("python", {"code": "print(2)"})], content="Hello!", chunks=size)
sk3("test_streaming_two_calls", AB_K3, [("python", {"code": "a"}), ("python", {"code": "b"})], chunks=7)
sk3("test_streaming_plain_text_only", "just a plain reply", [], content="just a plain reply", chunks=["just a ", "plain ", "reply"])
sk3("test_streaming_bookkeeping_for_serving_layer", K3_TOOLS[0] + k3_call("python", 1, {"code": ("string", "a")}) + K3_TOOLS[1],
    [("python", {"code": "a"})], chunks=9)
sk3("test_stream_end_reports_truncated_tools_section", K3_TOOLS[0] + f'{XO}call tool="python" index="1"{XS}', [], content=None, invalid=1, chunks=7)
sk3("test_stream_end_releases_held_back_text", "all done<", [], content="all done<", chunks=["all done", "<"])
sk3("test_stream_end_drops_truncated_marker", "all done" + XO, [], content="all done", chunks=["all done", XO])

# --------------------------------------------------------------------------------------------
# kimi_k3: vLLM tests/reasoning/test_kimi_k3_reasoning_parser.py
# --------------------------------------------------------------------------------------------
VK3R = "vllm-project/vllm tests/reasoning/test_kimi_k3_reasoning_parser.py @0ad0a4635e6fe4ec751cd0bdd8f9ece7898a88ec::"
K3_THINK = (f"{XO}think{XS}", f"{XC}think{XS}")
RESPONSE_MARKUP = ("the response element's opener is markup: the content is its text (vLLM's reasoning parser alone hands the opener "
                   "on, for its tool parser to strip)")


def vk3r(test: str, text: str, **kw: Any) -> None:
    kw.setdefault("thinking", None)
    add(Vector(f"kimi_k3/vllm-reasoning/{test}", "kimi_k3", text, [], origin=VK3R + test, **kw))


STEP_ANSWER = f"{K3_THINK[0]}step{K3_THINK[1]}{K3_RESPONSE[0]}answer"
vk3r("test_extract_reasoning_with_xtml_tags", STEP_ANSWER, reasoning="step", content="answer")
vk3r("test_extract_reasoning_with_generation_prefix_consumed", f"step{K3_THINK[1]}{K3_RESPONSE[0]}answer", reasoning="step", content="answer")
vk3r("test_extract_reasoning_truncated_before_close_marker", "unfinished reasoning", reasoning="unfinished reasoning", content=None)
vk3r("test_extract_markerless_output_with_thinking_disabled", "answer", reasoning=None, content="answer", thinking=False)
vk3r("test_delegating_parser_strips_response_wrapper_without_tool_parser", STEP_ANSWER, reasoning="step", content="answer")
vk3r("test_streaming_split_open_marker_is_held_back", K3_THINK[0] + "step", reasoning="step", chunks=[XO, "think", XS + "step"])
vk3r("test_streaming_split_close_marker_hands_content_downstream", STEP_ANSWER, reasoning="step", content="answer",
     chunks=[K3_THINK[0] + "step", XC, f"think{XS}{K3_RESPONSE[0]}answer"], why=RESPONSE_MARKUP)
vk3r("test_thinking_disabled_streams_content", K3_RESPONSE[0] + "answer", reasoning=None, content="answer", thinking=False, why=RESPONSE_MARKUP)
vk3r("test_delegating_parser_thinking_false_streams_response_content", f"OK{K3_RESPONSE[1]}", reasoning=None, content="OK", thinking=False,
     chunks=["OK", XC, f"response{XS}"])

# --------------------------------------------------------------------------------------------
# qwen3_5: vLLM tests/parser/engine/test_qwen3.py (the engine's Qwen3 XML parser, thinking off,
# no tools: every value unchecked by a schema)
# --------------------------------------------------------------------------------------------
EQ = "vllm-project/vllm tests/parser/engine/test_qwen3.py @049d8df27dda4fd0caffa289ea12bfe5a47ac794::"
TC_Q = ("<tool_call>", "</tool_call>")


def eq(test: str, text: str, calls: Any, **kw: Any) -> None:
    add(Vector(f"qwen3_5/vllm-engine/{test}", "qwen3_5", text, calls, origin=EQ + test, **kw))


def qcall(name: str, *params: str) -> str:
    return f"{TC_Q[0]}\n<function={name}>\n" + "".join(p + "\n" for p in params) + f"</function>\n{TC_Q[1]}"


def qp(key: str, value: Any) -> str:
    return f"<parameter={key}>{value}</parameter>"


TOKYO_Q = qcall("get_weather", qp("city", "Tokyo"))
eq("TestNonStreaming::test_no_tool_calls", "This is a regular response without any tool calls.", [],
   content="This is a regular response without any tool calls.")
eq("TestNonStreaming::test_single_tool_call", TOKYO_Q, [("get_weather", {"city": "Tokyo"})])
eq("TestNonStreaming::test_parallel_tool_calls", TOKYO_Q + qcall("get_time", qp("timezone", "Asia/Tokyo")),
   [("get_weather", {"city": "Tokyo"}), ("get_time", {"timezone": "Asia/Tokyo"})])
eq("TestNonStreaming::test_various_data_types", qcall("test_function", qp("string_field", "hello"), qp("int_field", 42), qp("float_field", 3.14),
                                                     qp("bool_field", "true"), qp("null_field", "null"), qp("array_field", '["a", "b", "c"]'),
                                                     qp("object_field", '{"nested": "value"}')),
   [("test_function", {"string_field": "hello", "int_field": "42", "float_field": "3.14", "bool_field": "true", "null_field": "null",
                       "array_field": '["a", "b", "c"]', "object_field": '{"nested": "value"}'})])
eq("TestNonStreaming::test_empty_arguments", f"{TC_Q[0]}\n<function=refresh>\n</function>\n{TC_Q[1]}", [("refresh", {})])
eq("TestNonStreaming::test_surrounding_text", "Let me check the weather for you.\n\n" + TOKYO_Q + "\n\nI will get that information.",
   [("get_weather", {"city": "Tokyo"})], content="Let me check the weather for you.\n\n\n\nI will get that information.")
ESCAPED = {"quoted": 'He said "hello"', "path": "C:\\Users\\file.txt", "newline": "line1\nline2"}
eq("TestNonStreaming::test_escaped_strings", qcall("test_function", *(qp(k, v) for k, v in ESCAPED.items())), [("test_function", ESCAPED)])
eq("TestNonStreaming::test_multiple_parameters", qcall("search", qp("query", "vllm parsing"), qp("limit", 10), qp("exact_match", "false")),
   [("search", {"query": "vllm parsing", "limit": "10", "exact_match": "false"})])
BASH_Q = qcall("Bash", "<parameter=command>\nls -la /tmp\n</parameter>", "<parameter=description>\nList files in /tmp directory\n</parameter>")
eq("TestNonStreaming::test_multiline_param_values", BASH_Q, [("Bash", {"command": "ls -la /tmp", "description": "List files in /tmp directory"})])
TWO_Q = (qcall("Bash", "<parameter=command>\nfind /workspace -name '*.py' | head -20\n</parameter>", "<parameter=description>\nFind Python files\n</parameter>")
         + qcall("Read", "<parameter=file_path>\n/workspace/main.py\n</parameter>"))
eq("TestNonStreaming::test_multiline_two_tool_calls", TWO_Q,
   [("Bash", {"command": "find /workspace -name '*.py' | head -20", "description": "Find Python files"}), ("Read", {"file_path": "/workspace/main.py"})])
eq("TestNonStreaming::test_consecutive_tool_calls_without_tool_end",
   f"{TC_Q[0]}\n<function=get_weather>\n{qp('city', 'Tokyo')}\n</function>\n" + qcall("get_weather", qp("city", "Paris")),
   [("get_weather", {"city": "Tokyo"}), ("get_weather", {"city": "Paris"})])
QUESTIONS = '[{"question": "Pick a color", "multiSelect": false, "answer": null}]'
eq("TestNonStreaming::test_nested_json_array_parameter", f"{TC_Q[0]}\n<function=AskUserQuestion>\n{qp('questions', QUESTIONS)}\n</function>\n{TC_Q[1]}",
   [("AskUserQuestion", {"questions": QUESTIONS})])


def eqs(test: str, chunks: list, calls: Any, **kw: Any) -> None:
    eq("TestStreaming::" + test, "".join(chunks), calls, chunks=chunks, **kw)


eqs("test_basic_streaming", [TC_Q[0] + "\n", "<function=get_weather>\n", "<parameter=city>Tokyo", "</parameter>\n", "</function>\n", TC_Q[1]],
    [("get_weather", {"city": "Tokyo"})])
eqs("test_streaming_multi_param", [TC_Q[0] + "\n", "<function=get_weather>\n", qp("city", "Tokyo") + "\n", qp("unit", "celsius") + "\n", "</function>\n", TC_Q[1]],
    [("get_weather", {"city": "Tokyo", "unit": "celsius"})])
eqs("test_streaming_text_before_tool", ["Let me check ", "the weather. ", TC_Q[0] + "\n", "<function=get_weather>\n", qp("city", "Tokyo") + "\n",
                                        "</function>\n", TC_Q[1]], [("get_weather", {"city": "Tokyo"})], content="Let me check the weather. ")
eqs("test_streaming_empty_args", [TC_Q[0] + "\n", "<function=refresh>\n", "</function>\n", TC_Q[1]], [("refresh", {})])
eqs("test_streaming_split_parameter_tag", [TC_Q[0] + "\n", "<function=test>\n", "<parameter=", "name>Alice", "</parameter>\n", "</function>\n", TC_Q[1]],
    [("test", {"name": "Alice"})])
eqs("test_streaming_numeric_values", [TC_Q[0] + "\n", "<function=set_config>\n", qp("count", 42) + "\n", qp("active", "true") + "\n", "</function>\n", TC_Q[1]],
    [("set_config", {"count": "42", "active": "true"})])
eqs("test_streaming_parallel_calls", [TC_Q[0] + "\n", "<function=get_weather>\n", qp("city", "Tokyo") + "\n", "</function>\n", TC_Q[1],
                                      TC_Q[0] + "\n", "<function=get_time>\n", qp("tz", "JST") + "\n", "</function>\n", TC_Q[1]],
    [("get_weather", {"city": "Tokyo"}), ("get_time", {"tz": "JST"})])
eqs("test_streaming_value_split_across_chunks", [TC_Q[0] + "\n", "<function=search>\n", "<parameter=query>hello ", "world", " test</parameter>\n",
                                                 "</function>\n", TC_Q[1]], [("search", {"query": "hello world test"})])
eqs("test_streaming_split_tool_call_tag", [TC_Q[0] + "\n", "<function=test>\n", "<parameter=x>1", "</parameter>\n", "</function>\n", TC_Q[1]],
    [("test", {"x": "1"})])
ECHO_Q = qcall("echo", qp("msg", "hi"))
eq("TestStreaming::test_char_by_char_streaming", ECHO_Q, [("echo", {"msg": "hi"})], chunks=1)
ML = [TC_Q[0] + "\n", "<function=Bash>\n", "<parameter=command>\n", "ls -la /tmp\n", "</parameter>\n", "<parameter=description>\n", "List files\n",
      "</parameter>\n", "</function>\n", TC_Q[1]]
eqs("test_streaming_multiline_param_values", ML, [("Bash", {"command": "ls -la /tmp", "description": "List files"})])
ML2 = [TC_Q[0] + "\n", "<function=Bash>\n", "<parameter=command>\n", "find /workspace -name '*.py' | head -20\n", "</parameter>\n",
       "<parameter=description>\n", "Find Python files\n", "</parameter>\n", "</function>\n", TC_Q[1], TC_Q[0] + "\n", "<function=Read>\n",
       "<parameter=file_path>\n", "/workspace/main.py\n", "</parameter>\n", "</function>\n", TC_Q[1]]
eqs("test_streaming_multiline_two_tool_calls", ML2,
    [("Bash", {"command": "find /workspace -name '*.py' | head -20", "description": "Find Python files"}), ("Read", {"file_path": "/workspace/main.py"})])
# TestArgConverter: the converter's input is a call's parameters; here they sit in a call
eq("TestArgConverter::test_multiline_param_values", qcall("f", "<parameter=command>\nls -la /tmp\n</parameter>", "<parameter=description>\nList files\n</parameter>"),
   [("f", {"command": "ls -la /tmp", "description": "List files"})])
eq("TestArgConverter::test_two_multiline_params", qcall("f", "<parameter=a>\nfoo\nbar\n</parameter>", "<parameter=b>\nbaz\nqux\n</parameter>"),
   [("f", {"a": "foo\nbar", "b": "baz\nqux"})])
TASK = [fn("TaskUpdate", taskId=S, count=I, ratio=N, flag=S)]
eq("TestSchemaAwareTypeCoercion::test_string_param_not_coerced_to_int", qcall("TaskUpdate", qp("taskId", 1)), [("TaskUpdate", {"taskId": "1"})], tools=TASK)
eq("TestSchemaAwareTypeCoercion::test_string_param_not_coerced_to_bool", qcall("TaskUpdate", qp("flag", "true")), [("TaskUpdate", {"flag": "true"})], tools=TASK)
eq("TestSchemaAwareTypeCoercion::test_int_param_still_coerced", qcall("TaskUpdate", qp("count", 42)), [("TaskUpdate", {"count": 42})], tools=TASK)
eq("TestSchemaAwareTypeCoercion::test_no_tools_keeps_strings", qcall("TaskUpdate", qp("taskId", 1)), [("TaskUpdate", {"taskId": "1"})])
eqs("test_streaming_string_param_not_coerced", [TC_Q[0] + "\n", "<function=TaskUpdate>\n", qp("taskId", 1) + "\n", "</function>\n", TC_Q[1]],
    [("TaskUpdate", {"taskId": "1"})], tools=TASK)
eq("TestAnyOfTypeCoercion::test_anyof_string_param_not_coerced", qcall("set_config", qp("port", 8080)), [("set_config", {"port": "8080"})],
   tools=[fn("set_config", port={"anyOf": [S, {"type": "null"}]}, count=I)])
CONFIGURE = [fn("configure", enabled=B, ratio=N, count=I, value={"type": ["integer", "null"]}, label=S)]
for test, param, value, expected in (("test_bool_param_coerced", "enabled", "true", True), ("test_number_param_whole_normalized", "ratio", "5.0", 5),
                                     ("test_number_param_fractional", "ratio", "3.14", 3.14), ("test_null_coerced_when_in_schema", "value", "null", None),
                                     ("test_null_stays_string_without_null_schema", "label", "null", "null")):
    eq("TestSchemaCoercionBoolNumberNull::" + test, qcall("configure", qp(param, value)), [("configure", {param: expected})], tools=CONFIGURE)
for test, param, value, expected in (("test_streaming_bool_param_coerced", "enabled", "true", True), ("test_streaming_number_param_coerced", "ratio", "3.14", 3.14)):
    eq("TestSchemaCoercionBoolNumberNull::" + test, qcall("configure", qp(param, value)), [("configure", {param: expected})], tools=CONFIGURE,
       chunks=[TC_Q[0] + "\n", "<function=configure>\n", qp(param, value) + "\n", "</function>\n", TC_Q[1]])
COMPREHENSIVE = qcall("configure", qp("enabled", "true"), qp("ratio", "5.0"), qp("count", 42), qp("value", "null"), qp("label", "hello"))
eq("TestSchemaCoercionBoolNumberNull::test_streaming_matches_non_streaming_comprehensive", COMPREHENSIVE + "\n",
   [("configure", {"enabled": True, "ratio": 5, "count": 42, "value": None, "label": "hello"})], tools=CONFIGURE,
   chunks=[line + "\n" for line in COMPREHENSIVE.split("\n") if line])
NESTED_TOOLS = [
    fn("search", query=S, filters={"type": "object", "properties": {"language": S, "min_stars": I}}, tags={"type": "array", "items": S},
       limits={"type": "array", "items": I}, verbose=B),
    fn("AskUserQuestion", questions={"type": "array", "items": {"type": "object", "properties": {
        "question": S, "multiSelect": B, "answer": {"type": ["string", "null"]}}}}),
]
QUESTIONS_ARGS = {"questions": [{"question": "Pick a color", "multiSelect": False, "answer": None}]}
eq("TestNestedSchemaCoercion::test_nested_object_coerced", qcall("search", qp("filters", '{"language": "python", "min_stars": 100}')),
   [("search", {"filters": {"language": "python", "min_stars": 100}})], tools=NESTED_TOOLS)
eq("TestNestedSchemaCoercion::test_nested_array_items_coerced", qcall("search", qp("limits", "[10, 20, 30]")), [("search", {"limits": [10, 20, 30]})],
   tools=NESTED_TOOLS)
eq("TestNestedSchemaCoercion::test_nested_string_array_not_coerced", qcall("search", qp("tags", '["ml", "42"]')), [("search", {"tags": ["ml", "42"]})],
   tools=NESTED_TOOLS)
eq("TestNestedSchemaCoercion::test_array_of_objects_with_bool_and_null_coerced", qcall("AskUserQuestion", qp("questions", QUESTIONS)),
   [("AskUserQuestion", QUESTIONS_ARGS)], tools=NESTED_TOOLS)
ASK = [TC_Q[0] + "\n", "<function=AskUserQuestion>\n", '<parameter=questions>[{"question": "Pick a color",', ' "multiSelect": false, "answer": null}]',
       "</parameter>\n", "</function>\n", TC_Q[1]]
eq("TestNestedSchemaCoercion::test_streaming_array_of_objects_with_bool_and_null_coerced", "".join(ASK), [("AskUserQuestion", QUESTIONS_ARGS)],
   tools=NESTED_TOOLS, chunks=ASK)

# --------------------------------------------------------------------------------------------
# qwen3_5: vLLM tests/parser/engine/test_qwen3_reasoning.py (the prompt opens <think> unless the
# test turns thinking off)
# --------------------------------------------------------------------------------------------
EQR = "vllm-project/vllm tests/parser/engine/test_qwen3_reasoning.py @08be72be742254fdbabbbbe4a5b944867ba620e3::"
QUOTED_Q = ("issue 35 point 3: a <tool_call> quoted in backticks inside the reasoning is text for vLLM, not a call that ends the reasoning; "
            "thinkgate reads the marker's token (its text, where no ids say otherwise) as the grammar does: the call follows it wherever "
            "it stands, and a parser reading it as prose would lose a call the constrained output holds")


def eqr(test: str, text: str, calls: Any = (), **kw: Any) -> None:
    kw.setdefault("thinking", True)
    add(Vector(f"qwen3_5/vllm-engine/{test}", "qwen3_5", text, [] if calls == () else calls, origin=EQR + test.split("[")[0], **kw))


PREAMBLE_Q = f"Quoted `{TC_Q[0]}` prose {TC_Q[1]} still visible."
eqr("test_malformed_tool_preamble_is_lossless_across_chunks[thinking]", PREAMBLE_Q, reasoning=PREAMBLE_Q, content=None, chunks=7, xfail=QUOTED_Q)
eqr("test_malformed_tool_preamble_is_lossless_across_chunks[not thinking]", PREAMBLE_Q, reasoning=None, content=PREAMBLE_Q, thinking=False, chunks=7,
    xfail="issue 35 point 3: a <tool_call> quoted in backticks in the answer is text for vLLM, not a call; thinkgate reads it as the grammar does (see QUOTED_Q)")
PWD_Q = [TC_Q[0], "` quoted marker. ", TC_Q[0], "\n<function=bash><parameter=cmd>pwd</parameter>", f"</function>{TC_Q[1]}"]
eqr("test_malformed_special_token_then_real_tool_preserves_tool_index", "".join(PWD_Q), [("bash", {"cmd": "pwd"})],
    reasoning=f"{TC_Q[0]}` quoted marker. ", chunks=PWD_Q,
    xfail=QUOTED_Q + " (here written first; the real call after it has its tags back to back)")
for i, reasoning in enumerate([f"The literal marker is `{TC_Q[0]}` in prose.", f"The wrapper is `{TC_Q[0]}quoted{TC_Q[1]}` in prose."]):
    eqr(f"test_quoted_tool_marker_preserves_following_final_answer[{i}]", reasoning + "</think>The answer is 42.", reasoning=reasoning,
        content="The answer is 42.", chunks=7, xfail=QUOTED_Q)
QUOTED_SPECIAL = ["The literal marker is `", TC_Q[0], "` in prose.", "</think>", "The answer is 42."]
eqr("test_quoted_special_token_preserves_following_final_answer", "".join(QUOTED_SPECIAL), reasoning=f"The literal marker is `{TC_Q[0]}` in prose.",
    content="The answer is 42.", chunks=QUOTED_SPECIAL, xfail=QUOTED_Q)
eqr("TestNonStreaming::test_quoted_tool_marker_preserves_following_final_answer", f"The literal marker is `{TC_Q[0]}` in prose.</think>The answer is 42.",
    reasoning=f"The literal marker is `{TC_Q[0]}` in prose.", content="The answer is 42.", xfail=QUOTED_Q)
for i, candidate in enumerate([f"{TC_Q[0]}` ordinary prose continues", f"{TC_Q[0]}quoted text{TC_Q[1]}"]):
    eqr(f"TestNonStreaming::test_malformed_tool_preamble_preserves_reasoning[{i}]", "The literal marker is `" + candidate,
        reasoning="The literal marker is `" + candidate, content=None, xfail=QUOTED_Q)
eqr("TestNonStreaming::test_reasoning_then_content", "<think>Let me analyze.</think>The answer is 42.", reasoning="Let me analyze.", content="The answer is 42.")
eqr("TestNonStreaming::test_no_start_token_in_output", "Let me think about this.</think>The answer is 42.", reasoning="Let me think about this.",
    content="The answer is 42.")
eqr("TestNonStreaming::test_reasoning_only", "<think>Still thinking...</think>", reasoning="Still thinking...", content=None)
eqr("TestNonStreaming::test_no_end_tag_all_reasoning", "Hello, no reasoning here.", reasoning="Hello, no reasoning here.", content=None)
eqr("TestNonStreaming::test_multiline_reasoning", "<think>Step 1: parse.\nStep 2: compute.\nStep 3: output.</think>Result: 7.",
    reasoning="Step 1: parse.\nStep 2: compute.\nStep 3: output.", content="Result: 7.")
LS_CALL = f"{TC_Q[0]}\n<function=bash>\n<parameter=cmd>ls</parameter>\n</function>\n{TC_Q[1]}"
eqr("TestNonStreaming::test_tool_call_implicit_end", "<think>I need to read the file.\n\n" + LS_CALL, [("bash", {"cmd": "ls"})],
    reasoning="I need to read the file.\n\n")
eqr("TestNonStreaming::test_tool_call_implicit_end_no_think", "I need to read the file.\n\n" + LS_CALL, [("bash", {"cmd": "ls"})],
    reasoning="I need to read the file.\n\n")
LIVE = ("The user wants to see what files are in the current directory and their contents. Let me start by listing the directory.")
eqr("TestNonStreaming::test_live_scenario_think_end_before_tool_call",
    LIVE + f"</think>{TC_Q[0]}<function=read><parameter=filePath>/Users/test/demo</parameter></function>{TC_Q[1]}", ANY, reasoning=LIVE, invalid=ANY)
eqr("TestNonStreaming::test_no_terminal_text_in_reasoning", "Reasoning here.</think>Content here.", reasoning="Reasoning here.", content="Content here.")
eqr("TestNonStreaming::test_no_terminal_text_in_content", "Reasoning here.</think>Content here.", reasoning="Reasoning here.", content="Content here.")
eqr("TestNonStreaming::test_duplicate_think_end_absorbed", "Reasoning here.</think>Content here.</think>More content.", reasoning="Reasoning here.",
    content="Content here.More content.")

# --------------------------------------------------------------------------------------------
# deepseek_v4: SGLang test/registered/unit/function_call/test_deepseekv4_streaming_robustness.py
# (the BPE-token splits of TestTokenizerLevelSplitting need V4's tokenizer: the chars path cuts
# finer than any of them)
# --------------------------------------------------------------------------------------------
SR4 = "sgl-project/sglang test/registered/unit/function_call/test_deepseekv4_streaming_robustness.py @30db1b20ff322f9bc8e86c4575d44a68dec02af1::"
ROBUST_TOOLS = [fn("get_weather", ["city"], city=S, unit={"type": "string", "enum": ["celsius", "fahrenheit"]}),
                fn("search", ["query"], query=S, topn={"type": "integer", "default": 10}), fn("submit")]


def sr4(test: str, text: str, calls: Any, **kw: Any) -> None:
    kw.setdefault("tools", ROBUST_TOOLS)
    add(Vector(f"deepseek_v4/sglang/{test}", "deepseek_v4", text, calls, origin=SR4 + test.split("[")[0], **kw))


PROSE4 = "Let me check the weather for you.\n\n"
SF_BODY = dsml_param("city", "SF")
WRAPPED4 = s4_wrapped(s4_invoke("get_weather", SF_BODY))
BARE4 = s4_invoke("get_weather", SF_BODY)
sr4("TestPreamblePreservation::test_prose_and_tool_call_one_delta_wrapped", PROSE4 + WRAPPED4, SF, content=PROSE4)
sr4("TestPreamblePreservation::test_prose_and_tool_call_one_delta_bare", PROSE4 + BARE4, SF, content=PROSE4, chunks=[PROSE4, BARE4])
sr4("TestPreamblePreservation::test_prose_and_tool_call_separate_deltas", PROSE4 + WRAPPED4, SF, content=PROSE4, chunks=[PROSE4, WRAPPED4])
cut = len(PROSE4) + 5
sr4("TestPreamblePreservation::test_boundary_sweep_wrapped", PROSE4 + WRAPPED4, SF, content=PROSE4,
    chunks=[(PROSE4 + WRAPPED4)[:cut], (PROSE4 + WRAPPED4)[cut:]])
for size in (1, 3, 7):
    sr4(f"TestPreamblePreservation::test_fixed_size_chunking[{size}]", PROSE4 + WRAPPED4, SF, content=PROSE4, chunks=size)
sr4("TestPreamblePreservation::test_literal_less_than_not_swallowed", "Is 3 < 5? Yes.\n", [], content="Is 3 < 5? Yes.\n")
COMPARE = "Compare 3 < 5.\n"
sr4("TestPreamblePreservation::test_literal_less_than_before_tool_call", COMPARE + WRAPPED4, SF, content=COMPARE, chunks=[COMPARE, WRAPPED4])
# TestParameterTypeConversion: the parser's input is an invoke's body; here it sits in a call (no tools: the tag types the value)
for test, body, args in (
    ("test_string_true_is_string", dsml_param("city", "42"), {"city": "42"}),
    ("test_string_false_int", dsml_param("topn", "10", False), {"topn": 10}),
    ("test_string_false_bool", dsml_param("flag", "true", False), {"flag": True}),
    ("test_string_false_array", dsml_param("items", "[1, 2, 3]", False), {"items": [1, 2, 3]}),
    ("test_string_false_nested_object", dsml_param("obj", '{"name": "John", "age": 30}', False), {"obj": {"name": "John", "age": 30}}),
    ("test_anyof_null_accepts_null", dsml_param("opt", "null", False), {"opt": None}),
    ("test_malformed_json_fallback", dsml_param("bad", '{"key": "val', False), {"bad": '{"key": "val'}),
):
    sr4("TestParameterTypeConversion::" + test, s4_wrapped(s4_invoke("f", body)), [("f", args)], tools=None)
sr4("TestParameterTypeConversion::test_direct_json_body", s4_wrapped(s4_invoke("f", '{"city": "SF", "topn": 5}')), [("f", {"city": "SF", "topn": 5})],
    tools=None)
SEQ = s4_wrapped(s4_invoke("get_weather", SF_BODY) + "\n" + s4_invoke("search", dsml_param("query", "weather SF")))
sr4("TestMultipleSequentialCalls::test_two_sequential_invokes_distinct_tool_index", SEQ, [("get_weather", {"city": "SF"}), ("search", {"query": "weather SF"})])
sr4("TestMultipleSequentialCalls::test_name_delta_before_arg_deltas", s4_wrapped(s4_invoke("get_weather", SF_BODY) + "\n" + s4_invoke("search", SF_BODY)),
    [("get_weather", {"city": "SF"})], invalid=1, chunks=3,
    why="the search call's city argument is not among search's parameters and its required query is missing: reported invalid (the "
    "peer's test checks only the two names)")
sr4("TestMultipleSequentialCalls::test_self_closing_and_long_form_mix",
    s4_wrapped(s4_invoke("get_weather", SF_BODY) + "\n" + f'{INV}submit"/>'), [("get_weather", {"city": "SF"}), ("submit", {})])
sr4("TestFalsePositiveDSMLDetection::test_less_than_then_dsml_without_invoke", "Hello <｜DSML｜test more text", [], content="Hello <｜DSML｜test more text",
    chunks=["Hello <", "｜DSML｜test more text"])
sr4("TestFalsePositiveDSMLDetection::test_partial_dsml_prefix_then_non_invoke", "<｜DSML｜random> stuff here", [], content="<｜DSML｜random> stuff here",
    chunks=["<｜DSML｜", "random> stuff here"])
sr4("TestFalsePositiveDSMLDetection::test_dsml_prefix_without_invoke_across_deltas", "Text < ｜DSML｜ not_invoke text", [],
    content="Text < ｜DSML｜ not_invoke text", chunks=["Text < ", "｜DSML｜", " not_invoke text"])
PARTIAL_OPENER = ["Let me check the weather.\n", f"<{DSML}invoke", ' name="ba']
sr4("TestStreamEndPartialOpener::test_partial_opener_remains_in_buffer", "".join(PARTIAL_OPENER), [], content="Let me check the weather.\n",
    invalid=ANY, chunks=PARTIAL_OPENER)
sr4("TestStreamEndPartialOpener::test_has_tool_calls_false_and_tool_id_minus_one", f'Prose.\n{INV}ba', [], content="Prose.\n", invalid=ANY)
CUT_CALL = f'{TC[0]}\n{INV}get_weather">\n{SF_BODY}'
CUT_NAMED = ("the output stops inside the call: the cut call is reported invalid (its name was streamed, as the peer's test "
             "expects; a cut call is never presented as complete)")
sr4("TestFinishReasonViaRealCodePath::test_name_bearing_toolcall_sets_has_tool_calls", WRAPPED4, SF, chunks=5)
sr4("TestFinishReasonViaRealCodePath::test_truncated_tool_call_has_tool_calls_true", CUT_CALL, [], invalid=1, chunks=5, why=CUT_NAMED)
OPENER4 = f'{INV}get_weather">'
for pos in (1, 8, len(OPENER4) - 1):
    cut = pos < len(OPENER4) - 1  # (the opener but its last character: a call cut before its name ended)
    sr4(f"TestOpenerTruncationMidOpener::test_all_truncation_positions[{pos}]", "Prose.\n" + OPENER4[:pos], [],
        content="Prose.\n" + OPENER4[:pos] if cut else "Prose.\n", invalid=ANY,
        why="verbatim: the start of a marker the output ends in ('<', '<｜DSML｜i') is no marker: it is the model's text, kept (SGLang drops it)"
        if cut else "")
HELP = "Let me help.\n"
sr4("TestPreambleLossRegression::test_non_streaming_preserves_preamble", HELP + WRAPPED4, SF, content=HELP)
sr4("TestPreambleLossRegression::test_streaming_same_delta_currently_drops_preamble", HELP + WRAPPED4, SF, content=HELP,
    why="the preamble is kept: SGLang's test pins its own bug (#33813), which drops prose that shares a delta with the call")
sr4("TestPreambleLossRegression::test_streaming_separate_deltas_preserves_preamble", HELP + WRAPPED4, SF, content=HELP, chunks=[HELP, WRAPPED4])
sr4("TestFenceLeak::test_no_dsml_markers_in_normal_text", "Prose here.\n" + WRAPPED4, SF, content="Prose here.\n", chunks=4)
sr4("TestMaxTokensTruncation::test_partial_tool_call_emitted_on_truncation", CUT_CALL, [], invalid=1, why=CUT_NAMED)
sr4("TestBareInvokeWithoutWrapper::test_streaming_detects_bare_invoke", "Prose.\n" + BARE4, SF, content="Prose.\n")
sr4("TestBareInvokeWithoutWrapper::test_streaming_bare_invoke_chunked", "Prose.\n" + BARE4, SF, content="Prose.\n", chunks=5)
sr4("TestEmptyContentDeltaBeforeTool::test_no_empty_content_sse_chunk", WRAPPED4, SF, content=None, chunks=["", WRAPPED4])

# --------------------------------------------------------------------------------------------
# deepseek_v4: vLLM tests/reasoning/test_deepseekv4_reasoning_parser.py
# --------------------------------------------------------------------------------------------
VR4 = "vllm-project/vllm tests/reasoning/test_deepseekv4_reasoning_parser.py @3e10d2f2431d88c8e7e99a4d8d11aa49e32100f5::"
READ_FILE_CALL = dsml_lines("read_file", dsml_param("path", "/tmp/example.lean"), block=TC)
add(Vector("deepseek_v4/vllm-reasoning/test_tool_call_start_implicitly_ends_reasoning", "deepseek_v4", "Let me search.\n\n" + READ_FILE_CALL, ANY,
           reasoning="Let me search.\n\n", content=None, thinking=True, origin=VR4 + "test_tool_call_start_implicitly_ends_reasoning", why=REASONING_KEPT))
add(Vector("deepseek_v4/vllm-reasoning/test_implicit_content_is_parseable_as_tool_call", "deepseek_v4", "Let me search.\n\n" + READ_FILE_CALL,
           [("read_file", {"path": "/tmp/example.lean"})], thinking=True, origin=VR4 + "test_implicit_content_is_parseable_as_tool_call"))

# --------------------------------------------------------------------------------------------
# deepseek_v3_2 and deepseek_v4: SGLang test/registered/unit/function_call/test_deepseekv32_strict_dsml.py
# (SGLANG_ENABLE_STRICT_DSML_TOOL_CALLS: a malformed invoke comes back as text, never as a call)
# --------------------------------------------------------------------------------------------
SSD = "sgl-project/sglang test/registered/unit/function_call/test_deepseekv32_strict_dsml.py @71c9f28eeb360f7f9d92a210aa4b623b2b8c0547::"
STRICT_TOOLS = [fn("set_flag", enabled=B), fn("lookup_fixture", key=S), fn("search", query=S, topn=I, ratio=N), fn("submit")]
FLAVOUR = {"v4": ("deepseek_v4", TC), "v32": ("deepseek_v3_2", FC)}
MALFORMED_KEPT = ("a malformed invoke is reported invalid with its text, markers included, and the text around it stays content "
                  "(SGLang's strict mode returns the whole block as content)")


def strict_invoke(name: str, body: str) -> str:
    return f'{INV}{name}">{body}{INV_END}'


def strict_block(block, *invokes: str, preamble: str = "") -> str:
    return f"{preamble}{block[0]}\n" + "\n".join(invokes) + f"\n{block[1]}"


def ssd(flavour: str, test: str, text: str, calls: Any, **kw: Any) -> None:
    fmt = FLAVOUR[flavour][0]
    kw.setdefault("tools", STRICT_TOOLS)
    add(Vector(f"{fmt}/sglang-strict/{test}", fmt, text, calls, origin=SSD + test.split("[")[0], **kw))


MALFORMED_TURN = ("I'll call the `set_flag` function to enable the flag.\n\n" + strict_block(TC, f'{INV}set_flag">\n<parameter name="enabled">true{PAR_END}\n{INV_END}'))
ssd("v4", "TestMalformedBodiesAreDropped::test_malformed_turn_is_dropped_and_forwarded", MALFORMED_TURN, [], invalid=1,
    content="I'll call the `set_flag` function to enable the flag.\n\n", why=MALFORMED_KEPT)
MALFORMED_BODIES = {
    "param_missing_dsml_marker_and_string_attr": f'\n<parameter name="key">alpha{PAR_END}\n',
    "param_missing_string_attr_only": f'{PAR}key">alpha{PAR_END}',
    "param_missing_dsml_marker_only": f'<parameter name="key" string="true">alpha{PAR_END}',
    "unterminated_param_tag": f'{PAR}key" string="true">alpha',
    "truncated_json_body": '{"key": "alpha"',
    "invalid_json_body": '{"key": alpha}',
    "non_object_json_body": '["alpha"]',
    "good_param_then_stray_tag": dsml_param("key", "alpha") + f'\n<parameter name="x">1{PAR_END}',
    "prose_in_body": "\nenable it please\n",
}
MALFORMED_READING = {
    "param_missing_string_attr_only": {"calls": [("lookup_fixture", {"key": "alpha"})], "invalid": 0,
                                       "why": "a parameter tag without its string attribute is read (tolerant reading; the schema types key as a "
                                       "string), where SGLang's strict mode rejects the body"},
    "unterminated_param_tag": {"why": MALFORMED_KEPT},
    # (a body that begins as the arguments' JSON object and is none: the call is reported invalid with its text)
    "truncated_json_body": {},
    "invalid_json_body": {},
    "good_param_then_stray_tag": {"xfail": NOT_IN_ISSUE + "disputed: a closing tag followed by text that begins no parameter is the "
                                  "value's text (key = 'alpha</｜DSML｜parameter>\\n<parameter name=\"x\">1'), as a file that holds the "
                                  "markup is read (tests/test_markup_in_values.py: the grammar writes such values); reading the tag as the "
                                  "value's end would cut a constrained call's file short"},
}
for flavour, (fmt, block) in FLAVOUR.items():
    for label, body in MALFORMED_BODIES.items():
        reading = {"calls": [], "invalid": 1, "why": MALFORMED_KEPT, **MALFORMED_READING.get(label, {})}
        if "xfail" in reading or label in ("truncated_json_body", "invalid_json_body"):
            reading.pop("why")
        ssd(flavour, f"TestMalformedBodiesAreDropped::test_every_malformed_body_in_every_flavour[{label}]",
            strict_block(block, strict_invoke("lookup_fixture", body), preamble="Sure.\n\n"), reading.pop("calls"), content="Sure.\n\n", **reading)
ssd("v4", "TestMalformedBodiesAreDropped::test_a_block_with_one_malformed_member_yields_no_call",
    strict_block(TC, strict_invoke("lookup_fixture", dsml_param("key", "alpha")), strict_invoke("set_flag", f'<parameter name="enabled">true{PAR_END}')),
    [("lookup_fixture", {"key": "alpha"})], invalid=1,
    why="each invoke stands or falls alone: the valid call beside the malformed one is read (SGLang's strict mode drops the whole block into content)")
SHAPES = {
    "str": ("lookup_fixture", [("key", "true", "alpha")], {"key": "alpha"}),
    "two str": ("search", [("query", "true", "a b"), ("topn", "false", "3")], {"query": "a b", "topn": 3}),
    "numbers": ("search", [("topn", "false", "10"), ("ratio", "false", "3.5")], {"topn": 10, "ratio": 3.5}),
    "bool true": ("set_flag", [("enabled", "false", "true")], {"enabled": True}),
    "bool false": ("set_flag", [("enabled", "false", "false")], {"enabled": False}),
    "nested": ("search", [("query", "true", 'He said "hi" <b>&</b>\nnext'), ("topn", "false", '{"name": "John", "age": 30}')], None),
    "empty string value": ("lookup_fixture", [("key", "true", "")], {"key": ""}),
}
LOOK = "Let me look.\n\n"
LOOK_KEPT = "verbatim: the content keeps the newlines the model wrote before the block (SGLang strips them)"
for flavour, (fmt, block) in FLAVOUR.items():
    for label, (name, params, expected) in SHAPES.items():
        body = "\n" + "\n".join(dsml_param(k, v, s == "true") for k, s, v in params) + "\n"
        text = strict_block(block, strict_invoke(name, body), preamble=LOOK)
        if expected is None:  # topn is an integer in the schema; the object breaks it
            ssd(flavour, f"TestWellFormedBodiesUnchanged::test_parameter_shapes[{label}]", text, [], invalid=1, content=LOOK,
                why="an object for topn breaks the tool's integer schema: the call is reported invalid (SGLang checks no schema here)")
        else:
            ssd(flavour, f"TestWellFormedBodiesUnchanged::test_parameter_shapes[{label}]", text, [(name, expected)], content=LOOK, why=LOOK_KEPT)
    ssd(flavour, "TestWellFormedBodiesUnchanged::test_zero_argument_forms[empty]", strict_block(block, strict_invoke("submit", ""), preamble=LOOK),
        [("submit", {})], content=LOOK, why=LOOK_KEPT)
    ssd(flavour, "TestWellFormedBodiesUnchanged::test_zero_argument_forms[blank]", strict_block(block, strict_invoke("submit", "\n   \n"), preamble=LOOK),
        [("submit", {})], content=LOOK, why=LOOK_KEPT)
    ssd(flavour, "TestWellFormedBodiesUnchanged::test_zero_argument_forms[self-closing]", strict_block(block, f'{INV}submit"/>'), [("submit", {})])
ssd("v4", "TestWellFormedBodiesUnchanged::test_json_body_and_several_blocks[json]", strict_block(TC, strict_invoke("lookup_fixture", '\n{"key": "alpha"}\n'),
                                                                                                    preamble=LOOK),
    [("lookup_fixture", {"key": "alpha"})], content=LOOK)
ssd("v4", "TestWellFormedBodiesUnchanged::test_json_body_and_several_blocks[blocks]",
    strict_block(TC, strict_invoke("lookup_fixture", dsml_param("key", "a"))) + "\n" + strict_block(TC, strict_invoke("lookup_fixture", dsml_param("key", "b"))),
    [("lookup_fixture", {"key": "a"}), ("lookup_fixture", {"key": "b"})])
ssd("v4", "TestWellFormedBodiesUnchanged::test_unknown_tool_is_still_dropped_by_parse_base_json", strict_block(TC, strict_invoke("nope", dsml_param("key", "a"))),
    [], invalid=1, why=UNKNOWN_TOOL)

# --------------------------------------------------------------------------------------------
# deepseek_v4: vLLM tests/parser/engine/test_deepseek_v4_malformed_recovery.py (the tool
# extraction: the answer, not thinking)
# --------------------------------------------------------------------------------------------
EMR = "vllm-project/vllm tests/parser/engine/test_deepseek_v4_malformed_recovery.py @a842eebffaaeba9d6458b37e1a9dbd2739905bad::"
SEOUL_TOOL = [fn("get_weather", ["city"], city=S)]
CUT_KEPT = "the output stops inside the call: the cut call is reported invalid with its text (vLLM gives the text back as content)"


def emr(test: str, text: str, calls: Any, **kw: Any) -> None:
    kw.setdefault("tools", SEOUL_TOOL)
    add(Vector(f"deepseek_v4/vllm-engine/{test}", "deepseek_v4", text, calls, origin=EMR + test, **kw))


def seoul(name: str = "get_weather") -> str:
    return f'{INV}{name}">\n{dsml_param("city", "Seoul")}\n{INV_END}'


SEOUL = [("get_weather", {"city": "Seoul"})]
emr("test_missing_start_wrapper_recovers_declared_tool", seoul() + TC[1], SEOUL)
emr("test_corrupted_start_wrapper_still_recovers_invoke", f"<{DSML}toolcalls>\n" + seoul() + "\n" + TC[1], SEOUL, content=None)
emr("test_undeclared_orphan_invoke_stays_content", seoul("not_declared") + TC[1], [], invalid=1, why=UNKNOWN_TOOL.replace("SGLang drops it", "vLLM keeps it as content"))
emr("test_orphan_invoke_without_tools_stays_content", seoul() + TC[1], [], invalid=1, tools=[],
    why="a request with no tools admits no call: the call is reported invalid with its text (vLLM keeps it as content)")
emr("test_truncated_recovery_candidate_flushes_as_content", f"Docs quote {INV}get_wea", [], content="Docs quote ", invalid=1, why=CUT_KEPT)
emr("test_valid_name_without_invoke_end_stays_content", f'{INV}get_weather">\n{dsml_param("city", "Seoul")}', [], content=None, invalid=1, why=CUT_KEPT)
ORPHAN = ["Checking.\n", f"<{DSML[:-1]}", f'｜invoke name="get_weather">', f'\n{dsml_param("city", "Seoul")}\n', INV_END, TC[1]]
emr("test_streaming_orphan_invoke_recovers_after_split_marker", "".join(ORPHAN), SEOUL, content="Checking.\n", chunks=ORPHAN)

# --------------------------------------------------------------------------------------------
# deepseek_v4 and deepseek_v3_2: vLLM tests/parser/engine/test_dsml_finite.py (tags back to back)
# --------------------------------------------------------------------------------------------
EDF = "vllm-project/vllm tests/parser/engine/test_dsml_finite.py @c1867e8c4bcaaa0a9690a5984bbbebd79732b039::"
FINITE_CASES = [("overflow", "1e999", "number"), ("negative", "-1e999", "number"), ("nan", "NaN", "number"), ("array", "[1e999]", "array"),
                ("object", '{"label":">","x":NaN}', "object"), ("finite", "1.5", "number"), ("large", "123456789012345678901234567890", "integer"),
                ("quoted", '"Infinity"', "string")]
for fmt, block in (("deepseek_v4", TC), ("deepseek_v3_2", FC)):
    body = "".join(f'{PAR}{name}" string="false">{value}{PAR_END}' for name, value, _ in FINITE_CASES)
    add(Vector(f"{fmt}/vllm-engine/test_nonfinite_parameters_preserve_literals[seven]", fmt, f'{block[0]}{INV}emit">{body}{INV_END}{block[1]}', [],
               invalid=1, tools=[fn("emit", **{name: {"type": kind} for name, _, kind in FINITE_CASES})], chunks=7,
               origin=EDF + "test_nonfinite_parameters_preserve_literals",
               why="1e999 and NaN are no JSON numbers, and their text breaks the number schema too: the call is reported invalid "
               "(vLLM passes the literals on as strings)"))
WRAPPED_JSON = '{"x":[1e999]}'
add(Vector("deepseek_v4/vllm-engine/test_string_wrapper_does_not_reintroduce_nonfinite_json[true]", "deepseek_v4",
           f'{TC[0]}{INV}emit">{dsml_param("arguments", WRAPPED_JSON)}{INV_END}{TC[1]}', [("emit", {"arguments": WRAPPED_JSON})],
           tools=[fn("emit", x=A)], chunks=7, origin=EDF + "test_string_wrapper_does_not_reintroduce_nonfinite_json"))

# --------------------------------------------------------------------------------------------
# minimax_m2: vLLM tests/reasoning/test_minimax_m2_reasoning_parser.py (the prompt opens <think>;
# one vector per case, the streaming ids streaming the same output token by token)
# --------------------------------------------------------------------------------------------
VMR = "vllm-project/vllm tests/reasoning/test_minimax_m2_reasoning_parser.py @3f9d440b5aa288be6c1f52bc038dbfe303b9cb58::test_reasoning"
for pid, text, reasoning, content, extra in (
    ("simple_reasoning", f"This is a reasoning section{THINK_CLOSE}This is the rest", "This is a reasoning section", "This is the rest", {}),
    ("complete_reasoning", f"This is a reasoning section{THINK_CLOSE}", "This is a reasoning section", None, {}),
    ("no_end_token", "This is reasoning in progress", "This is reasoning in progress", None, {}),
    ("multiple_lines", f"First line\nSecond line{THINK_CLOSE}Response first line\nResponse second", "First line\nSecond line",
     "Response first line\nResponse second", {}),
    ("shortest_reasoning", f"{THINK_CLOSE}This is the response", None, "This is the response", {}),
    ("empty", "", None, None, {}),
    ("special_chars", f"Let me think... 1+1=2, right?{THINK_CLOSE}Yes, 1+1=2.", "Let me think... 1+1=2, right?", "Yes, 1+1=2.", {}),
    ("code_in_reasoning", f"```python\nprint('hello')\n```{THINK_CLOSE}Here is the code.", "```python\nprint('hello')\n```", "Here is the code.", {}),
    ("double_end_token", f"reasoning{THINK_CLOSE}content A{THINK_CLOSE}content B", "reasoning", "content Acontent B", {}),
):
    add(Vector(f"minimax_m2/vllm-reasoning/{pid}", "minimax_m2", text, [], reasoning=reasoning, content=content, thinking=True,
               origin=VMR + f"[{pid}]", **extra))
egs("test_streaming_split_delimiter", [G[0], "call:todowrite{", f"content:{Q}Buy milk<|", '"|>}', G[1]], [("todowrite", {"content": "Buy milk"})])
egs("test_streaming_bool_split", [G[0], "call:search{input:{all:t", "rue}}", G[1]], [("search", {"input": {"all": True}})], why=GEMMA_TYPED)
egs("test_streaming_number_split", [G[0], "call:set{count:4", "2}", G[1]], [("set", {"count": 42})], why=GEMMA_TYPED)
egs("test_streaming_trailing_bare_bool",
    [G[0], "call:Edit{", f"file_path:{gq('src/env.py')},", f"old_string:{gq('old_val')},", f"new_string:{gq('new_val')},", "replace_all:", "false}", G[1]],
    [("Edit", {"file_path": "src/env.py", "old_string": "old_val", "new_string": "new_val", "replace_all": False})], why=GEMMA_TYPED)
eg("TestNonStreamingReasoningPlusToolCalls::test_extract_tool_calls_from_full_text", "".join(DALLAS_TOKENS), DALLAS_G, thinking=None)
eg("TestNonStreamingReasoningPlusToolCalls::test_extract_reasoning_from_full_text", "".join(DALLAS_TOKENS), ANY, reasoning=DALLAS_REASONING, thinking=None)
RALEIGH_REASONING = 'The user wants to get the weather for "Raleigh". I should use the `get_weather` tool and pass "Raleigh" as the `city` argument.'
eg("TestNonStreamingReasoningPlusToolCalls::test_bug_report_scenario", f"{CH[0]}thought\n{RALEIGH_REASONING}{CH[1]}" + gcall("get_weather", "city:" + gq("Raleigh")),
   [("get_weather", {"city": "Raleigh"})], reasoning=RALEIGH_REASONING, thinking=None)
eg("TestNonStreamingReasoningPlusToolCalls::test_both_extractions_independent", "".join(DALLAS_TOKENS), DALLAS_G, reasoning=DALLAS_REASONING, thinking=None)
eg("TestAdapterExtractReasoning::test_no_reasoning_returns_none", "Hello world, no thinking here.", [], reasoning=None, content="Hello world, no thinking here.",
   thinking=None)
RECORD = [fn("update_record", zipcode=S, count=I)]
BARE_SCHEMA = ("a bare 12345 is Gemma 4's number, not a string: for a string parameter the call breaks its schema and is reported "
               "invalid (vLLM turns the number into the string \"12345\")")
eg("TestGemma4SchemaAwareTypeCoercion::test_streaming_string_param_not_coerced", gcall("update_record", "zipcode:12345"), [], invalid=1, tools=RECORD,
   chunks=[G[0], "call:update_record{", "zipcode:12345}", G[1]], why=BARE_SCHEMA)
eg("TestGemma4SchemaAwareTypeCoercion::test_streaming_mixed_types", gcall("update_record", "zipcode:90210,count:42"), [], invalid=1, tools=RECORD,
   chunks=[G[0], "call:update_record{", "zipcode:90210,", "count:42}", G[1]], why=BARE_SCHEMA)
eg("TestGemma4SchemaAwareTypeCoercion::test_streaming_matches_non_streaming", gcall("update_record", "zipcode:12345"), [], invalid=1, tools=RECORD,
   chunks=[G[0], "call:update_record{", "zipcode:1234", "5}", G[1]], why=BARE_SCHEMA)
CONFIGURE_G = [fn("configure", enabled=B, ratio=N, label=S, value={"type": ["string", "null"]})]
eg("TestGemma4SchemaCoercionBoolNumberNull::test_bool_param_coerced", gcall("configure", "enabled:true"), [("configure", {"enabled": True})], tools=CONFIGURE_G)
eg("TestGemma4SchemaCoercionBoolNumberNull::test_number_whole_normalized", gcall("configure", "ratio:5.0"), [("configure", {"ratio": 5})], tools=CONFIGURE_G)
eg("TestGemma4SchemaCoercionBoolNumberNull::test_null_coerced_when_nullable", gcall("configure", "value:null"), [("configure", {"value": None})], tools=CONFIGURE_G)
eg("TestGemma4SchemaCoercionBoolNumberNull::test_null_stays_string_without_null_schema", gcall("configure", "label:null"), [], invalid=1, tools=CONFIGURE_G,
   why="a bare null is Gemma 4's null, not a string: for a string parameter the call breaks its schema and is reported invalid (vLLM "
   "turns it into the string \"null\")")
eg("TestGemma4SchemaCoercionBoolNumberNull::test_streaming_type_stability", gcall("configure", "enabled:true,ratio:3.14,label:hello"), [], invalid=1,
   tools=CONFIGURE_G, chunks=[G[0], "call:configure{", "enabled:true,", "ratio:3.14,", "label:hello}", G[1]],
   why="a bare word (hello) is no value of Gemma 4's syntax, where a string is written between <|\"|>: the call is reported invalid "
   "(vLLM reads the bare word as a string)")
eg("TestGemma4NestedSchemaCoercion::test_nested_object_coerced", gcall("search", f"query:{gq('vllm')},filters:{{language:python,min_stars:100}}"), [],
   invalid=1, tools=[fn("search", query=S, filters={"type": "object", "properties": {"language": S, "min_stars": I}})],
   why="a bare word (python) is no value of Gemma 4's syntax, where a string is written between <|\"|>: the call is reported invalid "
   "(vLLM reads the bare word as a string)")
BARE_THOUGHT = ["thought", "\n", *words(DALLAS_REASONING), CH[1], G[0], "call", ":", "get_current_weather", "{", "city", ":", Q, "Dallas", Q, "}", G[1]]
for test, size in (("test_bare_thought_reasoning_then_tool_call", 1), ("test_bare_thought_larger_batches", 10)):
    eg("TestBareThoughtWithoutChannelOpener::" + test, "".join(BARE_THOUGHT), [("get_current_weather", {"city": "Dallas"})], reasoning=DALLAS_REASONING,
       content=None, thinking=None, chunks=grouped(BARE_THOUGHT, size),
       xfail="issue 35 point 2: Gemma 4's slip: a thought channel written without its <|channel> opener (\"thought\\n…<channel|>\") is not read as reasoning")
eg("TestBareThoughtWithoutChannelOpener::test_normal_content_not_classified_as_reasoning", "The answer is 42.", [], reasoning=None,
   content="The answer is 42.", thinking=None, chunks=grouped(["The", " answer", " is", " 42."], 2))
eg("TestBareThoughtWithoutChannelOpener::test_bare_thought_token_at_end_of_stream", CH[0] + "thought", [], reasoning=None, content=None, thinking=None,
   chunks=[CH[0], "thought"])
COMMA = [G[0], "call", ":", "get_weather", "{", "location", ":", Q, "San Francisco", ", CA", Q, ",", "unit", ":", Q, "celsius", Q, "}", G[1]]
MULTI_COMMA = [G[0], "call", ":", "send_message", "{", "destination", ":", Q, "456 Oakwood Avenue", ", Rivermist", ", 83214", Q, "}", G[1]]
for test, tokens, calls in (("test_batched_streaming_comma_in_value", COMMA, [("get_weather", {"location": "San Francisco, CA", "unit": "celsius"})]),
                            ("test_batched_streaming_multiple_commas", MULTI_COMMA, [("send_message", {"destination": "456 Oakwood Avenue, Rivermist, 83214"})])):
    eg("TestCommaInStringValueRegression::" + test, "".join(tokens), calls, chunks=tokens)
    eg("TestCommaInStringValueRegression::" + test.replace("batched_streaming", "non_streaming"), "".join(tokens), calls)

# gemma4: SGLang test/registered/unit/function_call/test_gemma4_detector_finish.py
SGF = "sgl-project/sglang test/registered/unit/function_call/test_gemma4_detector_finish.py @c94b6b38b2cafbd16175730af564fce6f0e505f3::TestGemma4DetectorFinishFlush::"
add(Vector("gemma4/sglang/test_partial_tool_call_at_end_is_flushed", "gemma4", f"hi {G[0]}call:get_weather{{city:", [], content="hi ", invalid=1, tools=[],
           origin=SGF + "test_partial_tool_call_at_end_is_flushed",
           why="the output stops inside the call: the cut call is reported invalid with its text (SGLang flushes it back as content)"))
add(Vector("gemma4/sglang/test_clean_stream_finish_is_noop", "gemma4", "just some text", [], content="just some text", tools=[],
           origin=SGF + "test_clean_stream_finish_is_noop"))
add(Vector("gemma4/sglang/test_complete_call_not_duplicated_at_finish", "gemma4", gcall("get_weather", "city: 'Paris'"), [], content=None, invalid=1,
           tools=[], origin=SGF + "test_complete_call_not_duplicated_at_finish",
           why="'Paris' in single quotes is no string of Gemma 4's, and the request has no tools: the call is reported invalid with its "
           "text (SGLang's test checks only that nothing is flushed twice)"))

# --------------------------------------------------------------------------------------------
# qwen3_5: vLLM tests/reasoning/test_qwen3_reasoning_parser.py (the Qwen3.5 tokenizer among
# the test's three; one vector per case, the streaming ids streaming the same output by token)
# --------------------------------------------------------------------------------------------
VQR = "vllm-project/vllm tests/reasoning/test_qwen3_reasoning_parser.py @049d8df27dda4fd0caffa289ea12bfe5a47ac794::"
HOSTS_Q = f"{TC_Q[0]}\n<function=bash>\n<parameter=command>\ncat /etc/hosts\n</parameter>\n</function>\n{TC_Q[1]}"
CAT = [("bash", {"command": "cat /etc/hosts"})]
CALL_NOT_CONTENT = ("the call is read as a call: vLLM's reasoning parser alone hands its text on as content, for its tool parser to read")


def vqr(test: str, text: str, calls: Any = (), **kw: Any) -> None:
    kw.setdefault("thinking", True)
    add(Vector(f"qwen3_5/vllm-reasoning/{test}", "qwen3_5", text, [] if calls == () else calls, origin=VQR + test, **kw))


for pid, text, reasoning, content in (
    ("without_start_token", "This is a reasoning section</think>This is the rest", "This is a reasoning section", "This is the rest"),
    ("without_start_token_complete_reasoning", "This is a reasoning section</think>", "This is a reasoning section", None),
    ("with_think", "<think>This is a reasoning section</think>This is the rest", "This is a reasoning section", "This is the rest"),
    ("without_think", "This is the rest", "This is the rest", None),
    ("complete_reasoning", "<think>This is a reasoning section</think>", "This is a reasoning section", None),
    ("multiline_reasoning", "<think>This is a reasoning\nsection</think>This is the rest\nThat", "This is a reasoning\nsection", "This is the rest\nThat"),
    ("only_open_tag", "<think>This is a reasoning section", "This is a reasoning section", None),
    ("truncated_no_start_token", "This is a reasoning section", "This is a reasoning section", None),
):
    vqr(f"test_reasoning[{pid}]", text, reasoning=reasoning, content=content)
vqr("test_reasoning[tool_call_no_think_end]", "I need to read the file.\n\n" + HOSTS_Q, CAT, reasoning="I need to read the file.\n\n", content=None,
    why=CALL_NOT_CONTENT)
vqr("test_reasoning[tool_call_with_think_no_end]", "<think>I need to read the file.\n\n" + HOSTS_Q, CAT, reasoning="I need to read the file.\n\n", content=None,
    why=CALL_NOT_CONTENT)
for pid, deltas, reasoning, content in (
    ("start_token_grouped_with_text", ["<think>This is a reasoning section", "</think>", "This is the rest"], "This is a reasoning section", "This is the rest"),
    ("end_token_grouped_with_content", ["reasoning section", "</think>This is the rest"], "reasoning section", "This is the rest"),
    ("start_and_end_in_one_delta_no_content", ["<think>reasoning</think>"], "reasoning", None),
    ("no_start_end_grouped_with_content", ["reasoning section", "</think>content"], "reasoning section", "content"),
):
    vqr(f"test_reasoning_streaming_multi_token_deltas[{pid}]", "".join(deltas), reasoning=reasoning, content=content, chunks=deltas)
vqr("test_reasoning_streaming_multi_token_deltas[tool_call_implicit_reasoning_end]", "I need to read the file.\n\n" + TC_Q[0] + "\n<function=bash>", [],
    reasoning="I need to read the file.\n\n", content=None, invalid=1, chunks=["I need to read the file.\n\n", TC_Q[0] + "\n<function=bash>"],
    why="the output stops inside the call: the cut call is reported invalid with its text (vLLM's reasoning parser alone hands it on as content)")
for pid, text in (("thinking_disabled_plain_content", "This is plain content"), ("thinking_disabled_no_think_tokens", "Some output without think tokens")):
    vqr(f"test_reasoning_thinking_disabled[{pid}]", text, reasoning=None, content=text, thinking=False)
vqr("test_reasoning_thinking_disabled[thinking_disabled_with_tool_call]", "I need to read the file.\n\n" + HOSTS_Q, CAT, reasoning=None,
    content="I need to read the file.\n\n", thinking=False, why=CALL_NOT_CONTENT)

# --------------------------------------------------------------------------------------------
# deepseek_v3_2 and deepseek_v4: SGLang test/registered/unit/function_call/test_deepseek_detectors.py
# (invokes whose body is the arguments' JSON object, tags back to back)
# --------------------------------------------------------------------------------------------
SDD = "sgl-project/sglang test/registered/unit/function_call/test_deepseek_detectors.py @f9a05041a9aa3b95a00a3ecb28447398b54af92a::TestDeepSeekStreamingContent::"
NAVIGATE = [fn("navigate", ["destination"], destination=S)]
NAVIGATE_PREFIX = "I'll navigate there now."
for fmt, block in (("deepseek_v3_2", FC), ("deepseek_v4", TC)):
    def wire(*destinations: str, block=block) -> str:
        invokes = "".join(f'{INV}navigate">{{"destination":"{d}"}}{INV_END}' for d in destinations)
        return f"{NAVIGATE_PREFIX}{block[0]}{invokes}{block[1]}"

    def sdd(test: str, text: str, calls: list, fmt=fmt, **kw: Any) -> None:
        add(Vector(f"{fmt}/sglang/{test}", fmt, text, calls, content=NAVIGATE_PREFIX, tools=NAVIGATE, origin=SDD + test.split("[")[0], **kw))

    LIBRARY = [("navigate", {"destination": "library"})]
    sdd("test_content_and_complete_tool_call_in_single_increment", wire("library"), LIBRARY)
    at = wire("library").index(block[0]) + 3
    sdd("test_content_is_invariant_across_opener_split_boundaries", wire("library"), LIBRARY, chunks=[wire("library")[:at], wire("library")[at:]])
    sdd("test_content_prefix_with_consecutive_tool_calls", wire("library", "museum"), [("navigate", {"destination": "library"}), ("navigate", {"destination": "museum"})])

# --------------------------------------------------------------------------------------------
# minimax_m2: llama.cpp tests/test-chat.cpp, the MiniMax-M2.jinja block (its parse and streaming
# tests, and the outputs its template tests render)
# --------------------------------------------------------------------------------------------
LCPP = "ggml-org/llama.cpp tests/test-chat.cpp @e7e21164bdf5434e3453777fd27e68cdc0ebfe94::MiniMax-M2.jinja "
SPECIAL = [fn("special_function", ["arg1"], arg1=I), fn("special_function_with_opt", ["arg1"], arg1=I, arg2=I)]
HELLO = "Hello, world!\nWhat's up?"
SF_CALL = [("special_function", {"arg1": 1})]
LLAMA_STRIPS = "verbatim: llama.cpp strips the whitespace around reasoning and content"
TIGHT_SF = MM[0] + mm_invoke("special_function", mm_param("arg1", 1)) + MM[1]
SPACED_SF = f'{MM[0]}\n<invoke name="special_function">\n{mm_param("arg1", 1)}\n</invoke>\n{MM[1]}'
SPACED_OPT = f'{MM[0]}\n<invoke name="special_function_with_opt">\n{mm_param("arg1", 1)}\n{mm_param("arg2", 2)}\n</invoke>\n{MM[1]}'
SPACED_NOOPT = f'{MM[0]}\n<invoke name="special_function_with_opt">\n{mm_param("arg1", 1)}\n</invoke>\n{MM[1]}'
THOUGHTS = f"{THINK_OPEN}I'm\nthinking{THINK_CLOSE}"


def lmm(test: str, text: str, calls: list, **kw: Any) -> None:
    kw.setdefault("thinking", "auto")
    add(Vector(f"minimax_m2/llama.cpp/{test}", "minimax_m2", text, calls, tools=SPECIAL, origin=LCPP + test, **kw))


lmm("parse_content", HELLO, [], content=HELLO, reasoning=None)
lmm("parse_content_with_thinking", THOUGHTS + HELLO, [], content=HELLO, reasoning="I'm\nthinking")
lmm("parse_tool_call", TIGHT_SF, SF_CALL, content=None)
lmm("parse_tool_call_with_thinking", THOUGHTS + TIGHT_SF, SF_CALL, content=None, reasoning="I'm\nthinking")
lmm("parse_tool_call_then_content", TIGHT_SF + HELLO, SF_CALL, content=HELLO)
lmm("parse_tool_call_then_content_with_thinking", THOUGHTS + TIGHT_SF + HELLO, SF_CALL, content=HELLO, reasoning="I'm\nthinking")
lmm("streaming_thoughts_content_call", f"{THINK_OPEN}I'm\nthinking\n{THINK_CLOSE}{HELLO}\n{TIGHT_SF}", SF_CALL, content=HELLO + "\n",
    reasoning="I'm\nthinking\n")
lmm("streaming_thoughts_content_call_spaced", f"{THINK_OPEN}I'm\nthinking\n{THINK_CLOSE}\n\n{HELLO}\n\n{SPACED_SF}\n", SF_CALL,
    content=f"\n\n{HELLO}\n\n", reasoning="I'm\nthinking\n", why=LLAMA_STRIPS)
lmm("streaming_call_withopt", SPACED_OPT, [("special_function_with_opt", {"arg1": 1, "arg2": 2})], content=None, thinking=False)
lmm("template_call", SPACED_SF, SF_CALL, content=None, thinking=False)
lmm("template_call_noopt", SPACED_NOOPT, [("special_function_with_opt", {"arg1": 1})], content=None, thinking=False)
lmm("template_call_withopt", SPACED_OPT, [("special_function_with_opt", {"arg1": 1, "arg2": 2})], content=None, thinking=False)

# --------------------------------------------------------------------------------------------
# qwen3_5: llama.cpp tests/test-chat.cpp, "Test Qwen3-Coder XML format" (calls indented as the
# test writes them; parsed without tools, with thinking off)
# --------------------------------------------------------------------------------------------
LQX = "ggml-org/llama.cpp tests/test-chat.cpp @e7e21164bdf5434e3453777fd27e68cdc0ebfe94::Test Qwen3-Coder XML format "


def indented(name: str, *params: tuple) -> str:
    """A call as the test writes it: function two spaces in, each parameter four, each value six."""
    body = "".join(f"    <parameter={k}>\n{v}\n    </parameter>\n" for k, v in params)
    return f"{TC_Q[0]}\n  <function={name}>\n{body}  </function>\n{TC_Q[1]}"


def lqx(test: str, text: str, calls: list, **kw: Any) -> None:
    add(Vector(f"qwen3_5/llama.cpp/{test}", "qwen3_5", text, calls, origin=LQX + test, **kw))


LONG_TEXT = "This is a long text parameter that should test the parser's ability to handle larger amounts of text data."
for test, name, params, args in (
    ("basic", "special_function", [("arg1", "      1")], {"arg1": 1}),
    ("multiple_parameters", "complex_function", [("name", "      John Doe"), ("age", "      30"), ("active", "      true"), ("score", "      95.5")],
     {"name": "John Doe", "age": 30, "active": True, "score": 95.5}),
    ("unicode", "unicode_function", [("message", "      Hello 世界! 🌍 Special chars: @#$%^&*()")], {"message": "Hello 世界! 🌍 Special chars: @#$%^&*()"}),
    ("multiline", "code_function", [("code", 'def hello():\n    print("Hello, World!")\n    return True')],
     {"code": 'def hello():\n    print("Hello, World!")\n    return True'}),
    ("json_object", "json_function", [("config", '      {"host": "localhost", "port": 8080, "ssl": false}')],
     {"config": {"host": "localhost", "port": 8080, "ssl": False}}),
    ("array", "array_function", [("items", '      ["apple", "banana", "cherry"]')], {"items": ["apple", "banana", "cherry"]}),
    ("boolean", "boolean_function", [("enabled", "      true"), ("debug", "      false")], {"enabled": True, "debug": False}),
    ("null", "null_function", [("optional_param", "      null")], {"optional_param": None}),
    ("numbers", "math_function", [("negative", "      -42"), ("decimal", "      -3.14"), ("scientific", "      1.23e-4")],
     {"negative": -42, "decimal": -3.14, "scientific": 1.23e-4}),
    ("xml_content", "xml_function", [("xml_content", "      <root><item>value</item></root>")], {"xml_content": "<root><item>value</item></root>"}),
    ("quotes", "quote_function", [("message", '      She said "Hello!" and left.')], {"message": 'She said "Hello!" and left.'}),
    ("long_text", "long_function", [("long_text", "      " + LONG_TEXT)], {"long_text": LONG_TEXT}),
    ("complex_name", "get_user_data_v2", [("user_id", "      12345")], {"user_id": 12345}),
    ("complex_params", "test_function", [("param_1", "      value1"), ("param_2_name", "      value2"), ("param3", "      123")],
     {"param_1": "value1", "param_2_name": "value2", "param3": 123}),
    ("deep_xml", "xml_parser", [("xml", "      <root><level1><level2><level3>deep content</level3></level2></level1></root>")],
     {"xml": "<root><level1><level2><level3>deep content</level3></level2></level1></root>"}),
    ("whitespace_param", "whitespace_function", [("spaces", "      ")], {"spaces": ""}),
    ("mixed_whitespace", "tab_function", [("content", "line1\n\tindented line\n    spaces")], {"content": "line1\n\tindented line\n    spaces"}),
    ("control_chars", "control_function", [("text", "Line1\nLine2\tTabbed\rCarriage return")], {"text": "Line1\nLine2\tTabbed\rCarriage return"}),
    ("emoji", "emoji_function", [("message", "      Hello! 👋 🌟 🚀 Testing emojis: 😀😃😄😁 and symbols: ∑∏∆∇")],
     {"message": "Hello! 👋 🌟 🚀 Testing emojis: 😀😃😄😁 and symbols: ∑∏∆∇"}),
    ("math", "math_function", [("formula", "      E = mc² and ∫f(x)dx = F(x) + C")], {"formula": "E = mc² and ∫f(x)dx = F(x) + C"}),
    ("sql", "sql_function", [("query", "      SELECT * FROM users WHERE id = 1; DROP TABLE users; --")],
     {"query": "SELECT * FROM users WHERE id = 1; DROP TABLE users; --"}),
    ("html", "html_function", [("content", "      <script>alert('xss')</script><img src=x onerror=alert(1)>")],
     {"content": "<script>alert('xss')</script><img src=x onerror=alert(1)>"}),
    ("binary", "binary_function", [("data", "      SGVsbG8gV29ybGQhIFRoaXMgaXMgYmFzZTY0IGVuY29kZWQgdGV4dC4=")],
     {"data": "SGVsbG8gV29ybGQhIFRoaXMgaXMgYmFzZTY0IGVuY29kZWQgdGV4dC4="}),
    ("large_number", "number_function", [("big_int", "      999999999999999999999999999999999999999999999999999999999999")], {"big_int": 1e60}),
):
    # no tools: no schema types a value, so each is the text the model wrote between the tags
    # (its indentation and the closing tag's), as vLLM and SGLang keep it (issue 35, point 4)
    verbatim = {k: raw + "\n    " for k, raw in params}
    why = ("verbatim: with no schema a value is its text as written, indentation included (Qwen3-Coder's template pads a value "
           "with one newline each side, read as framing; vLLM and SGLang keep the text); llama.cpp strips the whitespace and reads "
           "JSON where the text is one")
    lqx(test, indented(name, *params), [(name, verbatim)], content=None, why=why)
lqx("mixed_content", "I'll help you search for products. " + indented("search_function", ("query", "      laptops")),
    [("search_function", {"query": "      laptops\n    "})], content="I'll help you search for products. ",
    why="verbatim: a string value keeps its text as written, indentation included; llama.cpp strips the whitespace")
lqx("compact", f"{TC_Q[0]}<function=compact_function><parameter=param>value</parameter></function>{TC_Q[1]}",
    [("compact_function", {"param": "value"})], content=None)

# --------------------------------------------------------------------------------------------
# vLLM tests/tool_parsers/test_format_conformance.py: each family's documented wire format
# --------------------------------------------------------------------------------------------
VFC = "vllm-project/vllm tests/tool_parsers/test_format_conformance.py @0e4c702aa688590f5d68af44c0dd2d0cf0430b01::test_documented_format_is_extracted"
for fmt, family, text in (
    ("qwen3_5", "qwen3_xml", f"{TC_Q[0]}\n<function=get_weather>\n<parameter=city>\nSF\n</parameter>\n</function>\n{TC_Q[1]}"),
    ("qwen3_5", "qwen3_coder", f"{TC_Q[0]}\n<function=get_weather>\n<parameter=city>\nSF\n</parameter>\n</function>\n{TC_Q[1]}"),
    ("minimax_m2", "minimax_m2", f'{MM[0]}\n<invoke name="get_weather">\n{mm_param("city", "SF")}\n</invoke>\n{MM[1]}'),
    ("deepseek_v4", "deepseek_v4", dsml_lines("get_weather", dsml_param("city", "SF"), block=TC)),
):
    add(Vector(f"{fmt}/vllm/test_documented_format_is_extracted[{family}]", fmt, text, [("get_weather", {"city": "SF"})], origin=VFC + f"[{family}]"))

# --------------------------------------------------------------------------------------------
# kimi_k3: SGLang test/registered/unit/function_call/test_kimik3_structural_tag.py (outputs its
# grammar accepts or refuses: an accepted output reads as valid calls, a refused one, where its
# strict schema refuses a value, as an invalid call)
# --------------------------------------------------------------------------------------------
SKT = "sgl-project/sglang test/registered/unit/function_call/test_kimik3_structural_tag.py @03079f9bd27381d5d87bed9bc76e65cd36919e65::"


def strict_tool(name: str, parameters: dict) -> dict:
    return {"type": "function", "function": {"name": name, "strict": True, "parameters": parameters}}


def weather_tool(name: str = "weather") -> dict:
    return strict_tool(name, {
        "type": "object",
        "properties": {
            "city": {"type": "string", "pattern": "[A-Z][A-Za-z ]+"}, "days": {"type": "integer", "minimum": 1, "maximum": 10},
            "unit": {"type": ["string", "null"], "enum": ["celsius", "fahrenheit", None]},
            "metadata": {"type": "object", "properties": {"source": S}, "required": ["source"], "additionalProperties": False},
            "tags": {"type": "array", "items": S},
        },
        "required": ["city", "days"], "additionalProperties": False,
    })


def k3_tools(*calls: str) -> str:
    return K3_TOOLS[0] + "".join(calls) + K3_TOOLS[1]


def skt(test: str, text: str, calls: list, tools: list, **kw: Any) -> None:
    add(Vector(f"kimi_k3/sglang/{test}", "kimi_k3", text, calls, tools=tools, origin=SKT + test.split("[")[0], **kw))


WEATHER_ARGS = {"city": ("string", "San Francisco"), "days": ("number", "3"), "unit": ("string", "celsius"),
                "metadata": ("object", '{"source":"forecast"}'), "tags": ("array", '["coastal","windy"]')}
WEATHER_READ = {"city": "San Francisco", "days": 3, "unit": "celsius", "metadata": {"source": "forecast"}, "tags": ["coastal", "windy"]}
PARIS_1 = {"city": ("string", "Paris"), "days": ("number", "1")}
skt("test_strict_schema_accepts_native_xtml_values[full]", k3_tools(k3_call("weather", 1, WEATHER_ARGS)), [("weather", WEATHER_READ)], [weather_tool()])
skt("test_strict_schema_accepts_native_xtml_values[paris]", k3_tools(k3_call("weather", 1, PARIS_1)), [("weather", {"city": "Paris", "days": 1})], [weather_tool()])
for i, args in enumerate([
    {"city": ("string", "paris"), "days": ("number", "3")},
    {"city": ("string", "Paris"), "days": ("number", "11")},
    {"city": ("number", "3"), "days": ("number", "3")},
    {"city": ("string", "Paris"), "days": ("number", "3"), "unit": ("string", "kelvin")},
    {"city": ("string", "Paris"), "days": ("number", "3"), "tags": ("array", "[coastal]")},
    {"city": ("string", "Paris"), "days": ("number", "3"), "unknown": ("string", "value")},
]):
    skt(f"test_strict_schema_rejects_invalid_parameters[{i}]", k3_tools(k3_call("weather", 1, args)), [], [weather_tool()], invalid=1)
CHECKING = f"{K3_RESPONSE[0]}Checking.{K3_RESPONSE[1]}"
skt("test_required_allows_response_prefix_but_requires_tools", CHECKING + k3_tools(k3_call("weather", 1, WEATHER_ARGS)), [("weather", WEATHER_READ)],
    [weather_tool()], content="Checking.")
skt("test_auto_allows_plain_response_or_multiple_tool_calls[plain]", f"{K3_RESPONSE[0]}No tool needed.{K3_RESPONSE[1]}{MESSAGE_CLOSE}", [],
    [weather_tool(), weather_tool("forecast")], content="No tool needed.")
skt("test_auto_allows_plain_response_or_multiple_tool_calls[calls]",
    k3_tools(k3_call("weather", 1, WEATHER_ARGS), k3_call("forecast", 2, {"city": ("string", "London"), "days": ("number", "2")})),
    [("weather", WEATHER_READ), ("forecast", {"city": "London", "days": 2})], [weather_tool(), weather_tool("forecast")])
skt("test_non_strict_tool_keeps_xtml_structure_and_loose_parameters",
    k3_tools(k3_call("weather", 1, {"custom": ("array", '["x",1]'), "other": ("string", "raw text")})),
    [("weather", {"custom": ["x", 1], "other": "raw text"})],
    [{"type": "function", "function": {**weather_tool()["function"], "strict": False}}])
CONVERT = [strict_tool("convert", {
    "type": "object", "$defs": {"mode": {"type": "string", "enum": ["fast", "safe"]}},
    "properties": {"mode": {"$ref": "#/$defs/mode"}, "value": {"anyOf": [{"type": "string", "enum": ["auto"]}, {"type": "integer", "minimum": 2, "maximum": 3}]}},
    "required": ["mode", "value"], "additionalProperties": False})]
skt("test_strict_schema_supports_refs_and_mixed_unions[accepted]", k3_tools(k3_call("convert", 1, {"mode": ("string", "fast"), "value": ("number", "2")})),
    [("convert", {"mode": "fast", "value": 2})], CONVERT)
skt("test_strict_schema_supports_refs_and_mixed_unions[refused]", k3_tools(k3_call("convert", 1, {"mode": ("string", "unsafe"), "value": ("number", "1")})),
    [], CONVERT, invalid=1)
SCORE_K3 = [strict_tool("score", {"type": "object", "properties": {"value": {"type": "number", "enum": [1, 1.5]},
                                                                   "count": {"allOf": [{"type": "number"}, {"type": "integer", "minimum": 1}]}},
                                  "required": ["value", "count"], "additionalProperties": False})]
skt("test_strict_schema_handles_number_enums_and_all_of_integer_constraints[accepted]",
    k3_tools(k3_call("score", 1, {"value": ("number", "1"), "count": ("number", "2")})), [("score", {"value": 1, "count": 2})], SCORE_K3)
skt("test_strict_schema_handles_number_enums_and_all_of_integer_constraints[refused]",
    k3_tools(k3_call("score", 1, {"value": ("number", "2"), "count": ("number", "1.5")})), [], SCORE_K3, invalid=1)
SUBMIT_MIN = [strict_tool("submit", {"type": "object", "properties": {"value": {"type": "integer", "minimum": -1000000}}, "required": ["value"],
                                     "additionalProperties": False})]
for value in ("-1000000", "-999999", "-1", "0", "1000001", "-", "-1000001", "1.5"):
    ok = value not in ("-", "-1000001", "1.5")
    skt(f"test_strict_schema_handles_one_sided_negative_integer_minimum[{value}]", k3_tools(k3_call("submit", 1, {"value": ("number", value)})),
        [("submit", {"value": int(value)})] if ok else [], SUBMIT_MIN, invalid=0 if ok else 1)
NON_ASCII = "abc\U0001f60a"
SUBMIT_OBJ = [strict_tool("submit", {"type": "object", "properties": {"value": {"type": "object", "properties": {NON_ASCII: S}, "required": [NON_ASCII],
                                                                                  "additionalProperties": False}},
                                     "required": ["value"], "additionalProperties": False})]
for i, spelling in enumerate([json.dumps({NON_ASCII: ""}), json.dumps({NON_ASCII: ""}, ensure_ascii=False)]):
    skt(f"test_strict_schema_relaxes_non_ascii_property_names[{i}]", k3_tools(k3_call("submit", 1, {"value": ("object", spelling)})),
        [("submit", {"value": {NON_ASCII: ""}})], SUBMIT_OBJ)
skt("test_strict_schema_relaxes_non_ascii_property_names[refused]", k3_tools(k3_call("submit", 1, {"value": ("number", "1")})), [], SUBMIT_OBJ, invalid=1)
MONEY = [strict_tool("submit", {"type": "object", "properties": {"amount": {"$ref": "#/$defs/Money"}}, "required": ["amount"], "additionalProperties": False,
                                "$defs": {"Money": {"type": "integer"}, "Loc": {"type": "object", "properties": {"\u0433\u043e\u0440\u043e\u0434\u0435": S}}}})]
skt("test_unreferenced_definition_does_not_relax_other_arguments[accepted]", k3_tools(k3_call("submit", 1, {"amount": ("number", "5")})),
    [("submit", {"amount": 5})], MONEY)
skt("test_unreferenced_definition_does_not_relax_other_arguments[refused]", k3_tools(k3_call("submit", 1, {"amount": ("string", "five")})), [], MONEY, invalid=1)
ONLY = [strict_tool("submit", {"type": "object", "properties": {"value": {"type": "object", "properties": {"only": S}, "required": ["only"],
                                                                          "additionalProperties": False}},
                               "required": ["value"], "additionalProperties": False})]
skt("test_strict_schema_keeps_ascii_property_names_constrained[accepted]", k3_tools(k3_call("submit", 1, {"value": ("object", '{"only": "x"}')})),
    [("submit", {"value": {"only": "x"}})], ONLY)
skt("test_strict_schema_keeps_ascii_property_names_constrained[refused]", k3_tools(k3_call("submit", 1, {"value": ("object", '{"other": "x"}')})),
    [], ONLY, invalid=1)
ANNOTATE = [strict_tool("annotate", {"type": "object", "properties": {"label": S}, "required": ["label"]})]
skt("test_strict_schema_preserves_additional_properties_default", k3_tools(k3_call("annotate", 1, {"label": ("string", "sample"), "confidence": ("number", "0.9")})),
    [("annotate", {"label": "sample", "confidence": 0.9})], ANNOTATE, xfail=K3_UNLISTED)
skt("test_dynamic_argument_key_compiles_without_xgrammar_unicode_warning", k3_tools(k3_call("annotate", 1, {"置信度": ("number", "0.9")})),
    [("annotate", {"置信度": 0.9})], [strict_tool("annotate", {"type": "object", "properties": {}})])
PING = [strict_tool("ping", {"type": "object", "properties": {}, "additionalProperties": False})]
skt("test_strict_empty_object_accepts_no_arguments_only[accepted]", k3_tools(k3_call("ping", 1, {})), [("ping", {})], PING)
skt("test_strict_empty_object_accepts_no_arguments_only[refused]", k3_tools(k3_call("ping", 1, {"unexpected": ("string", "value")})), [], PING, invalid=1)
LOOSE_WEATHER = [{"type": "function", "function": {**weather_tool()["function"], "strict": False}}]
skt("test_parallel_tool_calls_true_constrains_every_call",
    k3_tools(k3_call("weather", 7, {"city": ("string", "Paris")}), k3_call("weather", 19, {"other": ("array", '["loose"]')})),
    [("weather", {"city": "Paris"}), ("weather", {"other": ["loose"]})], LOOSE_WEATHER)
skt("test_strict_tool_without_parameters_compiles_to_empty_arguments", k3_tools(k3_call("ping", 1, {})), [("ping", {})],
    [{"type": "function", "function": {"name": "ping", "strict": True}}])
SCALE = [strict_tool("scale", {"type": "object", "properties": {"factor": {"allOf": [N], "enum": [1.5, 2]}}, "required": ["factor"],
                               "additionalProperties": False})]
skt("test_all_of_number_branches_do_not_narrow_to_integer[accepted]", k3_tools(k3_call("scale", 1, {"factor": ("number", "1.5")})), [("scale", {"factor": 1.5})], SCALE)
skt("test_all_of_number_branches_do_not_narrow_to_integer[refused]", k3_tools(k3_call("scale", 1, {"factor": ("number", "3")})), [], SCALE, invalid=1)
skt("test_reasoning_prefix_is_owned_by_exactly_one_layer", "reasoning" + K3_THINK[1] + k3_tools(k3_call("weather", 1, WEATHER_ARGS)),
    [("weather", WEATHER_READ)], [weather_tool()], reasoning="reasoning", thinking=True)
