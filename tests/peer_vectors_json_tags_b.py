"""The peers' own test vectors for firefunction-v2, Hunyuan (A13B, Hy3, Hy4), Jamba, xLAM and
InternLM 2 / Intern-S1 (issue 38), as data.

firefunction_v2 (``functools[{"name", "arguments"}, …]`` after the text), hunyuan_a13b
(``<tool_calls>[…]</tool_calls>`` as text), hy_v3_preview and hy_v4 (``<tool_calls><tool_call>NAME
<tool_sep><arg_key>K</arg_key><arg_value>V</arg_value></tool_call></tool_calls>``, Hy4's tags with
``:opensource`` and no ``<tool_sep>``), jamba (``<tool_calls>[…]</tool_calls>`` tokens), xlam (the
answer a bare JSON array), internlm2 and intern_s1 (``<|action_start|><|plugin|>{"name",
"parameters"}<|action_end|>``). The released Hy3 (hy_v3, every tag with ``:opensource``) has no
peer vectors of its own: the peers' Hy3 tests use Hy3-preview's bare tags. Each vector is a model
output from a peer's test (vLLM's tests/tool_parsers, SGLang's test/registered/unit/function_call,
llama.cpp's chat tests), what that test expects of it, the tools it gives, the chunks it streams
it in, and its origin (repository, file, test, commit). They are facts lifted from the peers'
tests, not their code; the conventions are those of ``peer_vectors_newest.py`` (whose ``Vector``,
``ANY`` and schema shorthands this module imports), as ``peer_vectors_pythonic.py`` uses them:

* ``content=None``: the peer expects no content (``None`` or ``""``); ``ANY``: the test does not
  look at it. ``invalid=ANY`` where the peer drops a call it cannot read (an unknown tool, broken
  JSON): the test says the call is not returned, not whether it counts as a broken one.
* vLLM's tool parsers run without a reasoning parser (``thinking=False``).
* vLLM's streaming cases given a whole string are streamed in the deltas of a real tokenizer
  (Jamba-tiny-dev's, Llama-xLAM-2-8B's); those deltas are not recorded (``chunks=None``: the
  ``chars`` path reads them finer). A test that feeds a list of deltas has them as ``chunks``;
  one that feeds the output a character at a time has ``chunks=1``.
* :data:`ARGS_AS_WRITTEN`: the peer's test checks only the names (or only how many calls there
  are); the vector's calls carry the names and the argument values as the call writes them.
* :data:`CONTAINS`: the peer's test checks only that the content holds these substrings.
* SGLang and llama.cpp origins marked ``(stored version, …)`` come from stored versions whose
  path or commit the index does not give.
"""

from __future__ import annotations

from typing import Any

from helpers import fn
from peer_vectors_newest import ANY, A, B, I, N, O, S, Vector  # noqa: F401 - the shorthands, as the sibling modules import them

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


# readings that differ from the peers' on purpose (the vectors hold thinkgate's)
TRAILING_TEXT = ("verbatim: text after the tool block is the answer's text, kept (the peer returns only the text before the "
                 "block as content)")
SPACE_BEFORE = ("whitespace alone before the tool block is framing, dropped (the peer's streamed content keeps the space the "
                "model wrote there)")
UNKNOWN_INVALID = ("a call to a tool the request did not give is reported invalid with its text, not returned (the peer drops "
                   "it)")
CUT_OFF = ("the output stops inside a call: the call is reported invalid (cut off) with its text, not returned as content "
           "(the peer hands the unfinished block back as text at the end)")
NOT_XLAM_MARKUP = ("no xLAM template writes the array there: the output is read as written, the array in the answer's text "
                   "(vLLM's xlam parser looks for it in code blocks, after [TOOL_CALLS] or </think>, between <tool_call> tags)")
BROKEN_KEPT = "a call whose JSON breaks is reported invalid with its text (the peer returns the whole output as content)"


# ============================================================================================
# firefunction_v2: llama.cpp's chat tests (test_firefunction_v2_parser), models/templates/
# fireworks-ai-llama-3-firefunction-v2.jinja; llama.cpp compares the messages it parses back
# ============================================================================================
LC = "ggml-org/llama.cpp tests/test-chat.cpp, split per parser (stored version, path and commit not reported)::"
SPECIAL = fn("special_function", ["arg1"], arg1=I)
put("firefunction_v2/llama.cpp/test_firefunction_v2_parser[message_assist]", "firefunction_v2", "Hello, world!\nWhat's up?", [],
    content="Hello, world!\nWhat's up?", tools=[SPECIAL], origin=LC + "test_firefunction_v2_parser")
put("firefunction_v2/llama.cpp/test_firefunction_v2_parser[message_assist_call]", "firefunction_v2",
    ' functools[{"name": "special_function", "arguments": {"arg1": 1}}]', [("special_function", {"arg1": 1})], content=None,
    tools=[SPECIAL], origin=LC + "test_firefunction_v2_parser")


# ============================================================================================
# hunyuan_a13b: vLLM tests/tool_parsers/test_hunyuan_a13b_tool_parser.py (the tool parser alone)
# ============================================================================================
VA = "vllm-project/vllm tests/tool_parsers/test_hunyuan_a13b_tool_parser.py @10a67515200ceb7bd3f91f6e5aba0c4c13e6ef8f::"
A_SF = ("get_weather", {"city": "San Francisco", "metric": "celsius"})
A_USER = ("register_user", {"name": "John Doe", "age": 37, "address": {"city": "San Francisco", "state": "CA"}, "role": None,
                            "passed_test": True, "aliases": ["John", "Johnny"]})
A_SF_OBJ = '{"name": "get_weather", "arguments": {"city": "San Francisco", "metric": "celsius"}}'
A_USER_OBJ = ('{"name": "register_user", "arguments": {"name": "John Doe", "age": 37, "address": {"city": "San Francisco", '
              '"state": "CA"}, "role": null, "passed_test": true, "aliases": ["John", "Johnny"]}}')
A_NESTED = ("complex_tool", {"level1": {"level2": {"level3": {"value": 123}}}})


def va(test: str, text: str, calls: Any, **kw: Any) -> None:
    put(f"hunyuan_a13b/vllm/{test}", "hunyuan_a13b", text, calls, origin=VA + test.split("[")[0], **kw)


va("test_hunyuan_a13b_tool_parser_extract[no_tool_call]", "How can I help you today?", [], content="How can I help you today?")
va("test_hunyuan_a13b_tool_parser_extract[single]", f"<tool_calls>[{A_SF_OBJ}]</tool_calls>", [A_SF], content=None)
va("test_hunyuan_a13b_tool_parser_extract[multiple]", f"<tool_calls>[{A_SF_OBJ}, {A_USER_OBJ}]</tool_calls>", [A_SF, A_USER], content=None)
va("test_hunyuan_a13b_tool_parser_extract[content_before]",
   'I will call the tool now. <tool_calls>[{"name": "get_weather", "arguments": {"city": "Boston"}}]</tool_calls>',
   [("get_weather", {"city": "Boston"})], content="I will call the tool now. ")
va("test_hunyuan_a13b_tool_parser_extract[content_after]",
   '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Seattle"}}]</tool_calls>\nThank you!',
   [("get_weather", {"city": "Seattle"})], content="\nThank you!", why=TRAILING_TEXT)
va("test_hunyuan_a13b_tool_parser_extract[nested]",
   '<tool_calls>[{"name": "complex_tool", "arguments": {"level1": {"level2": {"level3": {"value": 123}}}}}]</tool_calls>', [A_NESTED],
   content=None)
A_STREAM_SF = ['<tool_calls>[{"name": "get_weather", ', '"arguments": {"city": "San Francisco", ', '"metric": "celsius"}}]', "</tool_calls>"]
A_STREAM_BOSTON = ['<tool_calls>[{"name":', ' "get_weather",', ' "arguments":', ' {"city": "Boston"}', "}]", "</tool_calls>"]
A_STREAM_ANSWER = ["", *A_STREAM_BOSTON, "\n</answer>"]
A_STREAM_NESTED = ['<tool_calls>[{"name": "complex_tool",', ' "arguments": ', ' {"level1": {"level2": ', '{"level3": {"value": 123}}}}}',
                   "]</tool_calls>"]
va("test_hunyuan_a13b_tool_parser_streaming[0]", "".join(A_STREAM_SF), [A_SF], chunks=A_STREAM_SF)
va("test_hunyuan_a13b_tool_parser_streaming[1]", "".join(A_STREAM_BOSTON), [("get_weather", {"city": "Boston"})], chunks=A_STREAM_BOSTON)
# (the model's answer close after the calls: text here, see hunyuan.py; the test looks only at the calls)
va("test_hunyuan_a13b_tool_parser_streaming[2]", "".join(A_STREAM_ANSWER), [("get_weather", {"city": "Boston"})], chunks=A_STREAM_ANSWER)
# vLLM marks this one xfail ("stream parsing not support nested json yet"): thinkgate reads it
va("test_hunyuan_a13b_tool_parser_streaming[3]", "".join(A_STREAM_NESTED), [A_NESTED], chunks=A_STREAM_NESTED)
va("test_hunyuan_a13b_tool_parser_non_ascii", '<tool_calls>[{"name": "get_weather", "arguments": {"city": "北京"}}]</tool_calls>',
   [("get_weather", {"city": "北京"})])
va("test_hunyuan_a13b_tool_parser_streaming_one_empty_args_tool[empty_first]",
   '<tool_calls>[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"x": 42}}]</tool_calls>', [("a", {}), ("b", {"x": 42})],
   chunks=1)
va("test_hunyuan_a13b_tool_parser_streaming_one_empty_args_tool[empty_last]",
   '<tool_calls>[{"name": "a", "arguments": {"x": 42}}, {"name": "b", "arguments": {}}]</tool_calls>', [("a", {"x": 42}), ("b", {})],
   chunks=1)


# ============================================================================================
# hy_v3_preview: vLLM tests/tool_parsers/test_hy_v3_tool_parser.py (tencent/Hy3-preview's
# tokenizer, bare tags) and SGLang's test_hunyuan_detector.py (no tokenizer: the bare tags)
# ============================================================================================
V3 = "vllm-project/vllm tests/tool_parsers/test_hy_v3_tool_parser.py @41c5903d049b80b83a6e570f52f0f55e31316e49::"
HY3_TOOLS = [fn("get_current_date"), fn("get_weather", city=S, date=S)]
HY3_DATE = "<tool_calls>\n<tool_call>get_current_date<tool_sep>\n</tool_call>\n</tool_calls>"


def hy3_call(name: str, *pairs: tuple[str, str], nl: str = "\n") -> str:
    """One Hy3 call as the tests write it, ``nl`` after every tag (or none)."""
    body = "".join(f"<arg_key>{k}</arg_key>{nl}<arg_value>{v}</arg_value>{nl}" for k, v in pairs)
    return f"<tool_call>{name}<tool_sep>{nl}{body}</tool_call>"


def v3(test: str, text: str, calls: Any, **kw: Any) -> None:
    put(f"hy_v3_preview/vllm/{test}", "hy_v3_preview", text, calls, origin=V3 + test, tools=kw.pop("tools", HY3_TOOLS), **kw)


BEIJING = ("get_weather", {"city": "Beijing", "date": "2026-03-30"})
HANGZHOU = ("get_weather", {"city": "Hangzhou", "date": "2026-03-30"})
V3_BEIJING = hy3_call("get_weather", ("city", "Beijing"), ("date", "2026-03-30"))
V3_HANGZHOU = hy3_call("get_weather", ("city", "Hangzhou"), ("date", "2026-03-30"))
v3("TestHYV3ExtractToolCalls::test_no_tool_call", "This is a plain response.", [], content="This is a plain response.")
v3("TestHYV3ExtractToolCalls::test_zero_arg_inline", "<tool_calls><tool_call>get_current_date<tool_sep></tool_call></tool_calls>",
   [("get_current_date", {})], content=None)
v3("TestHYV3ExtractToolCalls::test_zero_arg_newline", HY3_DATE, [("get_current_date", {})])
v3("TestHYV3ExtractToolCalls::test_args_same_line",
   "<tool_calls>" + hy3_call("get_weather", ("city", "Beijing"), ("date", "2026-03-30"), nl="") + "</tool_calls>", [BEIJING])
v3("TestHYV3ExtractToolCalls::test_args_with_newlines", "<tool_calls>\n" + V3_BEIJING + "\n</tool_calls>", [BEIJING])
v3("TestHYV3ExtractToolCalls::test_content_before", "Checking." + HY3_DATE, [("get_current_date", {})], content="Checking.")
v3("TestHYV3ExtractToolCalls::test_multiple", "<tool_calls>\n" + V3_BEIJING + "\n" + V3_HANGZHOU + "\n</tool_calls>", [BEIJING, HANGZHOU])
v3("TestHYV3ExtractToolCalls::test_empty_content_none", HY3_DATE, [("get_current_date", {})], content=None)
V3_PLAIN = ["This is ", "a plain ", "response."]
V3_DATE_DELTAS = ["<tool_calls>", "\n<tool_call>", "get_current_date", "<tool_sep>", "\n</tool_call>", "\n</tool_calls>"]
V3_ARGS_DELTAS = ["<tool_calls>", "\n<tool_call>", "get_weather", "<tool_sep>", "\n<arg_key>city</arg_key>", "\n<arg_value>Beijing</arg_value>",
                  "\n<arg_key>date</arg_key>", "\n<arg_value>2026-03-30</arg_value>", "\n</tool_call>", "\n</tool_calls>"]
V3_MULTI_DELTAS = V3_ARGS_DELTAS[:-1] + ["\n<tool_call>", "get_weather", "<tool_sep>", "\n<arg_key>city</arg_key>",
                                         "\n<arg_value>Hangzhou</arg_value>", "\n<arg_key>date</arg_key>", "\n<arg_value>2026-03-30</arg_value>",
                                         "\n</tool_call>", "\n</tool_calls>"]
v3("TestHYV3ExtractToolCallsStreaming::test_no_tool_call_streaming", "".join(V3_PLAIN), [], content="This is a plain response.", chunks=V3_PLAIN)
v3("TestHYV3ExtractToolCallsStreaming::test_zero_arg_streaming", "".join(V3_DATE_DELTAS), [("get_current_date", {})], chunks=V3_DATE_DELTAS)
v3("TestHYV3ExtractToolCallsStreaming::test_args_streaming", "".join(V3_ARGS_DELTAS), [BEIJING], chunks=V3_ARGS_DELTAS)
v3("TestHYV3ExtractToolCallsStreaming::test_content_before_streaming", "Checking." + "".join(V3_DATE_DELTAS), [("get_current_date", {})],
   chunks=["Checking.", *V3_DATE_DELTAS], content=ANY, contains=("Checking.",))
v3("TestHYV3ExtractToolCallsStreaming::test_multiple_streaming", "".join(V3_MULTI_DELTAS), [BEIJING, HANGZHOU], chunks=V3_MULTI_DELTAS,
   written=True)
v3("TestHYV3ExtractToolCallsStreaming::test_all_in_one_delta_streaming", HY3_DATE, [("get_current_date", {})], chunks=[HY3_DATE])

SG = "sgl-project/sglang test/registered/unit/function_call/test_hunyuan_detector.py @0ff9c986c7d25f30d8bf16c9e1b0ffeab3bcc0cf::"
SG_TOOLS = [fn("get_current_date"), fn("get_weather", ["city"], city=S, date=S), fn("search", ["query"], query=S, count=I),
            fn("calculate", expression=S, precision=N, verbose=B)]


def sg(test: str, fmt: str, text: str, calls: Any, **kw: Any) -> None:
    put(f"{fmt}/sglang/{test}", fmt, text, calls, origin=SG + test, tools=kw.pop("tools", SG_TOOLS), **kw)


HY4_BEIJING = ("<tool_calls:opensource><tool_call:opensource>get_weather<arg_key:opensource>city</arg_key:opensource>"
               "<arg_value:opensource>Beijing</arg_value:opensource></tool_call:opensource></tool_calls:opensource>")
sg("TestHunyuanDetectorDetectAndParse::test_no_tool_call", "hy_v3_preview", "This is a plain response.", [], content="This is a plain response.")
sg("TestHunyuanDetectorDetectAndParse::test_hy4_format_without_tool_separator", "hy_v4", HY4_BEIJING, [("get_weather", {"city": "Beijing"})])
sg("TestHunyuanDetectorDetectAndParse::test_zero_arg_inline", "hy_v3_preview",
   "<tool_calls><tool_call>get_current_date<tool_sep></tool_call></tool_calls>", [("get_current_date", {})])
sg("TestHunyuanDetectorDetectAndParse::test_zero_arg_newline", "hy_v3_preview", HY3_DATE, [("get_current_date", {})])
sg("TestHunyuanDetectorDetectAndParse::test_single_string_arg", "hy_v3_preview",
   "<tool_calls>" + hy3_call("get_weather", ("city", "Beijing"), nl="") + "</tool_calls>", [("get_weather", {"city": "Beijing"})])
sg("TestHunyuanDetectorDetectAndParse::test_args_with_newlines", "hy_v3_preview", "<tool_calls>\n" + V3_BEIJING + "\n</tool_calls>", [BEIJING])
sg("TestHunyuanDetectorDetectAndParse::test_content_before_tool_call", "hy_v3_preview", "Checking." + HY3_DATE, [("get_current_date", {})],
   content="Checking.")
sg("TestHunyuanDetectorDetectAndParse::test_multiple_tool_calls", "hy_v3_preview",
   "<tool_calls>\n" + hy3_call("get_weather", ("city", "Beijing")) + "\n" + hy3_call("get_weather", ("city", "Hangzhou")) + "\n</tool_calls>",
   [("get_weather", {"city": "Beijing"}), ("get_weather", {"city": "Hangzhou"})])
sg("TestHunyuanDetectorDetectAndParse::test_unknown_tool_skipped", "hy_v3_preview",
   "<tool_calls>" + hy3_call("nonexistent_func", ("x", "1"), nl="") + "</tool_calls>", [], invalid=ANY, content=ANY, why=UNKNOWN_INVALID)
sg("TestHunyuanDetectorDetectAndParse::test_mixed_known_and_unknown_tools", "hy_v3_preview",
   "<tool_calls><tool_call>get_current_date<tool_sep></tool_call><tool_call>nonexistent<tool_sep></tool_call>"
   + hy3_call("search", ("query", "test"), nl="") + "</tool_calls>",
   [("get_current_date", {}), ("search", {"query": "test"})], invalid=ANY, content=ANY, why=UNKNOWN_INVALID)
sg("TestHunyuanDetectorDetectAndParse::test_three_parallel_tool_calls", "hy_v3_preview",
   "<tool_calls>" + hy3_call("get_weather", ("city", "Beijing"), nl="") + hy3_call("get_weather", ("city", "Tokyo"), nl="")
   + "<tool_call>get_current_date<tool_sep></tool_call></tool_calls>",
   [("get_weather", {"city": "Beijing"}), ("get_weather", {"city": "Tokyo"}), ("get_current_date", {})])
sg("TestHunyuanDetectorArgDeserialization::test_integer_arg", "hy_v3_preview",
   "<tool_calls>" + hy3_call("search", ("query", "restaurants"), ("count", "5"), nl="") + "</tool_calls>",
   [("search", {"query": "restaurants", "count": 5})])
sg("TestHunyuanDetectorArgDeserialization::test_float_arg", "hy_v3_preview",
   "<tool_calls>" + hy3_call("calculate", ("expression", "1+1"), ("precision", "0.01"), nl="") + "</tool_calls>",
   [("calculate", {"expression": "1+1", "precision": 0.01})])
sg("TestHunyuanDetectorArgDeserialization::test_boolean_arg", "hy_v3_preview",
   "<tool_calls>" + hy3_call("calculate", ("expression", "2+2"), ("verbose", "true"), nl="") + "</tool_calls>",
   [("calculate", {"expression": "2+2", "verbose": True})])
sg("TestHunyuanDetectorArgDeserialization::test_string_arg_not_deserialized", "hy_v3_preview",
   "<tool_calls>" + hy3_call("search", ("query", '{"key": "value"}'), nl="") + "</tool_calls>", [("search", {"query": '{"key": "value"}'})])


# ============================================================================================
# hy_v4: vLLM tests/tool_parsers/test_hy_v4_tool_parser.py (a synthetic vocabulary of
# tencent/Hy4-preview's tags with the ":opensource" suffix; the extractor fed text, no ids)
# ============================================================================================
V4 = "vllm-project/vllm tests/tool_parsers/test_hy_v4_tool_parser.py @212dfd8bfd6c0fe5c87898aeee89efe7df4ec509::"
SUF = ":opensource"
HY4_TOOLS = [fn("get_weather", ["city"], city=S, days=I), fn("get_current_date")]


def hy4_arg(key: str, value: str) -> str:
    return f"<arg_key{SUF}>{key}</arg_key{SUF}><arg_value{SUF}>{value}</arg_value{SUF}>"


def hy4_call(name: str, args: str = "") -> str:
    return f"<tool_call{SUF}>{name}{args}</tool_call{SUF}>"


def hy4_block(body: str) -> str:
    return f"<tool_calls{SUF}>{body}</tool_calls{SUF}>"


def v4(test: str, text: str, calls: Any, **kw: Any) -> None:
    put(f"hy_v4/vllm/{test}", "hy_v4", text, calls, origin=V4 + test.split("[")[0], tools=kw.pop("tools", HY4_TOOLS), **kw)


HY4_TYPED = [{"type": "function", "function": {"name": "typed", "parameters": {"type": "object", "properties": {
    "s": S, "i": I, "b": B, "n": N, "arr": A, "obj": O, "union": {"type": ["string", "object"]},
    "any_of": {"anyOf": [S, A]}, "one_of": {"oneOf": [N]}, "untyped": {}}}}}]
for key, raw, value in (("s", "Beijing", "Beijing"), ("s", "", ""), ("i", "3", 3), ("i", "-7", -7), ("b", "true", True),
                        ("b", "false", False), ("n", "5", 5), ("n", "5.5", 5.5), ("n", "1e3", 1000.0), ("arr", '["a", "b"]', ["a", "b"]),
                        ("obj", '{"k": 1}', {"k": 1}), ("union", '{"a": 1}', {"a": 1}), ("union", "plain", "plain"),
                        ("any_of", '["x"]', ["x"]), ("any_of", "plain", "plain"), ("one_of", "2.5", 2.5), ("untyped", "v", "v")):
    v4(f"TestArgumentValueTypes::test_value_coercion[{key}-{raw}]", hy4_block(hy4_call("typed", hy4_arg(key, raw))), [("typed", {key: value})],
       tools=HY4_TYPED)
v4("TestExtractToolCalls::test_no_tool_call", "A plain response.", [], content="A plain response.")
v4("TestExtractToolCalls::test_values_typed_from_schema", "sure!" + hy4_block(hy4_call("get_weather", hy4_arg("city", "Beijing") + hy4_arg("days", "3"))),
   [("get_weather", {"city": "Beijing", "days": 3})], content="sure!")
v4("TestExtractToolCalls::test_zero_arg_call", hy4_block(hy4_call("get_current_date")), [("get_current_date", {})], content=None)
v4("TestExtractToolCalls::test_multiple_calls_keep_their_order", hy4_block(hy4_call("get_weather", hy4_arg("city", "A")) + hy4_call("get_current_date")),
   [("get_weather", {"city": "A"}), ("get_current_date", {})])
v4("TestExtractToolCalls::test_non_ascii_values_are_not_escaped", hy4_block(hy4_call("get_weather", hy4_arg("city", "北京"))),
   [("get_weather", {"city": "北京"})])
V4_SURE = "sure!" + hy4_block(hy4_call("get_weather", hy4_arg("city", "Beijing") + hy4_arg("days", "3")))
v4("TestExtractToolCallsStreaming::test_matches_non_streaming", V4_SURE, [("get_weather", {"city": "Beijing", "days": 3})], content="sure!", chunks=1)
v4("TestExtractToolCallsStreaming::test_multiple_tool_calls", hy4_block(hy4_call("get_weather", hy4_arg("city", "Beijing")) + hy4_call("get_current_date")),
   [("get_weather", {"city": "Beijing"}), ("get_current_date", {})], chunks=1)
V4_WHOLE = hy4_block(hy4_call("get_weather", hy4_arg("city", "Beijing")))
v4("TestExtractToolCallsStreaming::test_whole_block_in_one_delta", V4_WHOLE, [("get_weather", {"city": "Beijing"})], content=None, chunks=[V4_WHOLE])
V4_SPLIT_HEAD = ["hi", "<tool_call", f"s{SUF}>", "\n ", " <tool_", f"call{SUF}>"]
V4_SPLIT = "hi" + hy4_block("\n  " + hy4_call("get_weather", hy4_arg("city", "Beijing")))
v4("TestExtractToolCallsStreaming::test_structural_tokens_split_across_deltas", V4_SPLIT, [("get_weather", {"city": "Beijing"})], content="hi",
   chunks=V4_SPLIT_HEAD + list(V4_SPLIT[len("".join(V4_SPLIT_HEAD)) :]))
V4_END_SPLIT = [f"<tool_calls{SUF}><tool_call{SUF}>get_weather<arg_key{SUF}>city</arg_key{SUF}><arg_value{SUF}>Beijing", "</arg_",
                f"value{SUF}>", f"</tool_call{SUF}>", f"</tool_calls{SUF}>"]
v4("TestExtractToolCallsStreaming::test_arg_value_end_tag_split_across_deltas", "".join(V4_END_SPLIT), [("get_weather", {"city": "Beijing"})],
   chunks=V4_END_SPLIT)
v4("TestExtractToolCallsStreaming::test_content_only_stream_never_buffers", "Plain answer.", [], content="Plain answer.",
   chunks=["Plain ", "answer."])


# ============================================================================================
# jamba: vLLM tests/tool_parsers/test_jamba_tool_parser.py (Jamba-tiny-dev's tokenizer)
# ============================================================================================
VJ = "vllm-project/vllm tests/tool_parsers/test_jamba_tool_parser.py @045d7575500e01e0f4a7ff84e039a9f7f7dc3bd0::"
DALLAS = ("get_current_weather", {"city": "Dallas", "state": "TX", "unit": "fahrenheit"})
ORLANDO = ("get_current_weather", {"city": "Orlando", "state": "FL", "unit": "fahrenheit"})
J_DALLAS = '{"name": "get_current_weather", "arguments": {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}}'
J_ORLANDO = '{"name": "get_current_weather", "arguments": {"city": "Orlando", "state": "FL", "unit": "fahrenheit"}}'
J_SINGLE = f" <tool_calls>[\n    {J_DALLAS}\n]</tool_calls>"
J_WITH_CONTENT = f" Sure! let me call the tool for you.<tool_calls>[\n    {J_DALLAS}\n]</tool_calls>"
J_PARALLEL = f" <tool_calls>[\n    {J_DALLAS},\n    {J_ORLANDO}\n]</tool_calls>"


def vj(test: str, text: str, calls: Any, **kw: Any) -> None:
    put(f"jamba/vllm/{test}", "jamba", text, calls, origin=VJ + test.split("[")[0], **kw)


vj("test_extract_tool_calls_no_tools", "This is a test", [], content="This is a test")
vj("test_extract_tool_calls[single_tool]", J_SINGLE, [DALLAS], content=None)
vj("test_extract_tool_calls[single_tool_with_content]", J_WITH_CONTENT, [DALLAS], content=" Sure! let me call the tool for you.")
vj("test_extract_tool_calls[parallel_tools]", J_PARALLEL, [DALLAS, ORLANDO], content=None)
vj("test_extract_tool_calls_streaming[no_tools]", "This is a test", [], content="This is a test")
vj("test_extract_tool_calls_streaming[single_tool]", J_SINGLE, [DALLAS], content=None, why=SPACE_BEFORE)
vj("test_extract_tool_calls_streaming[single_tool_with_content]", J_WITH_CONTENT, [DALLAS], content=" Sure! let me call the tool for you.")
vj("test_extract_tool_calls_streaming[parallel_tools]", J_PARALLEL, [DALLAS, ORLANDO], content=None, why=SPACE_BEFORE)
J_COARSE = ['<tool_calls>[{"name": "get_current_weather"', ",", ' "arguments": {"city": "Dallas", "state": "TX"}}]', "</tool_calls>"]
vj("test_extract_tool_calls_streaming_arguments_in_single_delta", "".join(J_COARSE), [("get_current_weather", {"city": "Dallas", "state": "TX"})],
   chunks=J_COARSE)


# ============================================================================================
# xlam: vLLM tests/tool_parsers/test_xlam_tool_parser.py (Llama-xLAM-2-8B-fc-r's tokenizer)
# ============================================================================================
VX = "vllm-project/vllm tests/tool_parsers/test_xlam_tool_parser.py @10a67515200ceb7bd3f91f6e5aba0c4c13e6ef8f::"
X_PARALLEL = f"[{J_DALLAS}, {J_ORLANDO}]"
X_THINK = f"<think>I'll help you with that.</think>[{J_DALLAS}]"
X_FENCED = f"I'll help you with that.\n```json\n[{J_DALLAS}]\n```"
X_TOOL_CALLS = f"I'll check the weather for you.[TOOL_CALLS][{J_DALLAS}]"
X_TOOL_CALL_TAGS = f"I'll help you check the weather.<tool_call>[{J_DALLAS}]</tool_call>"
X_SEATTLE = '[{"name": "get_current_weather", "arguments": {"city": "Seattle", "state": "WA", "unit": "celsius"}}]'


def vx(test: str, text: str, calls: Any, **kw: Any) -> None:
    put(f"xlam/vllm/{test}", "xlam", text, calls, origin=VX + test.split("[")[0], **kw)


vx("test_extract_tool_calls_no_tools", "This is a test", [], content="This is a test")
for mode in ("test_extract_tool_calls", "test_extract_tool_calls_streaming"):
    vx(f"{mode}[parallel_tool_calls]", X_PARALLEL, [DALLAS, ORLANDO], content=None)
    vx(f"{mode}[single_tool_with_think_tag]", X_THINK, [], content=X_THINK, why=NOT_XLAM_MARKUP)
    vx(f"{mode}[single_tool_with_tool_calls_tag]", X_TOOL_CALLS, [], content=X_TOOL_CALLS, why=NOT_XLAM_MARKUP)
    vx(f"{mode}[single_tool_with_tool_call_xml_tags]", X_TOOL_CALL_TAGS, [], content=X_TOOL_CALL_TAGS, why=NOT_XLAM_MARKUP)
vx("test_extract_tool_calls[single_tool_with_json_code_block]", X_FENCED, [], content=X_FENCED, why=NOT_XLAM_MARKUP)
X_FENCED_ONLY = f"```json\n[{J_DALLAS}]\n```"
vx("test_extract_tool_calls_streaming[single_tool_with_json_code_block]", X_FENCED_ONLY, [], content=X_FENCED_ONLY, why=NOT_XLAM_MARKUP)
vx("test_extract_tool_calls_list_structure[list_structured_tool_call]", X_SEATTLE,
   [("get_current_weather", {"city": "Seattle", "state": "WA", "unit": "celsius"})], content=None)
vx("test_streaming_with_list_structure", '[{"name": "get_current_weather", "arguments": {"city": "Seattle"}}]',
   [("get_current_weather", {"city": "Seattle"})], written=True)


# ============================================================================================
# internlm2: vLLM tests/tool_parsers/test_internlm2_tool_parser.py (its common_tests config,
# the default tokenizer with InternLM's three action tokens added)
# ============================================================================================
VI = "vllm-project/vllm tests/tool_parsers/test_internlm2_tool_parser.py @0661799351bff0ebe06a5c4799b0be7a96fa6ff0::"
AS, PL, AE = "<|action_start|>", "<|plugin|>", "<|action_end|>"
TOKYO = AS + PL + '{"name": "get_weather", "parameters": {"city": "Tokyo"}}' + AE
WEATHER_TOOL = [fn("get_weather", city=S)]


def vi(test: str, text: str, calls: Any, **kw: Any) -> None:
    put(f"internlm2/vllm/{test}", "internlm2", text, calls, origin=VI + test.split("[")[0], **kw)


vi("test_extract_unknown_tool_name_not_emitted", AS + PL + '{"name": "delete_everything", "parameters": {"city": "Tokyo"}}' + AE, [],
   tools=WEATHER_TOOL, invalid=ANY, content=ANY, why=UNKNOWN_INVALID)
vi("test_extract_known_tool_name_emitted", TOKYO, [("get_weather", {"city": "Tokyo"})], tools=WEATHER_TOOL)
vi("test_extract_without_tools_not_over_rejected", TOKYO, [("get_weather", {"city": "Tokyo"})])
vi("TestInternLM2ToolParser::test_no_tool_calls", "This is a regular response without any tool calls.", [],
   content="This is a regular response without any tool calls.")
vi("TestInternLM2ToolParser::test_single_tool_call_simple_args", TOKYO, [("get_weather", {"city": "Tokyo"})], content=None)
I_TYPES = (AS + PL + '{\n  "name": "test_function",\n  "parameters": {\n    "string_field": "hello",\n    "int_field": 42,\n'
           '    "float_field": 3.14,\n    "bool_field": true,\n    "null_field": null,\n    "array_field": ["a", "b", "c"],\n'
           '    "object_field": {"nested": "value"},\n    "empty_array": [],\n    "empty_object": {}\n  }\n}' + AE)
vi("TestInternLM2ToolParser::test_various_data_types", I_TYPES, [("test_function", {
    "string_field": "hello", "int_field": 42, "float_field": 3.14, "bool_field": True, "null_field": None, "array_field": ["a", "b", "c"],
    "object_field": {"nested": "value"}, "empty_array": [], "empty_object": {}})])
vi("TestInternLM2ToolParser::test_empty_arguments", AS + PL + '{"name": "refresh", "parameters": {}}' + AE, [("refresh", {})])
vi("TestInternLM2ToolParser::test_surrounding_text", "Let me check the weather for you. " + TOKYO, [("get_weather", {"city": "Tokyo"})],
   content=ANY, contains=("Let me check the weather for you.",))
I_ESCAPED = (AS + PL + '{\n  "name": "test_function",\n  "parameters": {\n    "quoted": "He said \\"hello\\"",\n'
             '    "path": "C:\\\\Users\\\\file.txt",\n    "newline": "line1\\nline2",\n    "unicode": "emoji: 🎉"\n  }\n}' + AE)
vi("TestInternLM2ToolParser::test_escaped_strings", I_ESCAPED, [("test_function", {
    "quoted": 'He said "hello"', "path": "C:\\Users\\file.txt", "newline": "line1\nline2", "unicode": "emoji: 🎉"})])
# the common malformed-input test: the output is no valid call (vLLM's marks xfail: its parser raises)
for k, text in enumerate((AS + PL + '{"name": "func", "parameters": {', AS + PL + '{"name": "func", "parameters": "not a dict"}' + AE,
                          AS + PL + "not json" + AE, AS + PL, AS + '{"name": "func"}')):
    vi(f"TestInternLM2ToolParser::test_malformed_input[{k}]", text, [], invalid=ANY, content=ANY)

# Intern-S1: vLLM tests/tool_parsers/test_intern_s1_tool_parser.py (vLLM's intern-s1 parser, its
# tokens added to the default tokenizer)
VS = "vllm-project/vllm tests/tool_parsers/test_intern_s1_tool_parser.py @2854f617b6f3e125f5cd65d54704d924ede2f44d::"
S1_TOOLS = [fn("get_weather"), fn("get_time")]


def vs(test: str, text: str, calls: Any, **kw: Any) -> None:
    put(f"intern_s1/vllm/{test}", "intern_s1", text, calls, origin=VS + test, tools=S1_TOOLS, **kw)


vs("test_nonstreaming_supports_spaced_special_tokens", AS + " " + PL + '\n{"name": "get_weather", "parameters": {"city": "Tokyo"}}\n' + AE,
   [("get_weather", {"city": "Tokyo"})], content=None)
vs("test_nonstreaming_supports_multiple_action_blocks",
   AS + PL + '{"name": "get_weather", "parameters": {"city": "Tokyo"}}' + AE + "\n"
   + AS + PL + '{"name": "get_time", "parameters": {"timezone": "Asia/Tokyo"}}' + AE + "\nVisible answer.",
   [("get_weather", {"city": "Tokyo"}), ("get_time", {"timezone": "Asia/Tokyo"})], content=ANY, contains=("Visible answer.",))
vs("test_nonstreaming_gracefully_handles_malformed_json", AS + PL + '{"name": "get_weather", "parameters": {' + AE, [], invalid=1,
   content=None, why=BROKEN_KEPT)

# SGLang's InternlmDetector (parser names internlm / interns1): its finish() flush test
SI = "sgl-project/sglang test/registered/unit/function_call/test_internlm_detector.py @4dc7b6d7325341a7521052c64bfd1d9956e69086::"
put("intern_s1/sglang/TestInternlmDetectorFinishFlush::test_partial_tool_call_at_end_is_flushed", "intern_s1",
    "hi " + AS + " " + PL + "get_weather('par", [], content="hi ", invalid=1, origin=SI + "TestInternlmDetectorFinishFlush", why=CUT_OFF)
put("intern_s1/sglang/TestInternlmDetectorFinishFlush::test_clean_stream_finish_is_noop", "intern_s1", "just some text", [],
    content="just some text", origin=SI + "TestInternlmDetectorFinishFlush")
put("intern_s1/sglang/TestInternlmDetectorFinishFlush::test_complete_call_not_duplicated_at_finish", "intern_s1",
    AS + " " + PL + '\n{"name": "get_weather", "arguments": {"city": "Paris"}}' + AE, [("get_weather", {"city": "Paris"})], content=None,
    origin=SI + "TestInternlmDetectorFinishFlush")

# vLLM tests/tool_parsers/test_hy_truncated_stream.py: Hy3-preview's and Hy4-preview's streams
# (mock vocabularies of their tags), a token at a time, the last chunk marked finished. The
# truncated ones expect the arguments streamed so far closed into JSON; thinkgate reports a call
# the output stopped inside as cut off (finish_reason "length"), never as a complete one.
VT = "vllm-project/vllm tests/tool_parsers/test_hy_truncated_stream.py @19fd05f548cc4500baf8d15f0af386c008fd831d::"
T_WEATHER = [fn("get_weather", city=S, date=S)]
T3_ARGS = "<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>"
T3_CALL = "<tool_calls>\n<tool_call>get_weather<tool_sep>\n" + T3_ARGS
T4_ARGS = f"<arg_key{SUF}>city</arg_key{SUF}><arg_value{SUF}>Beijing</arg_value{SUF}>"
T4_CALL = f"<tool_calls{SUF}>\n<tool_call{SUF}>get_weather" + T4_ARGS
CUT_OFF_ARGS = ("the output stops inside a call: the call is reported invalid (cut off), not as a call with the arguments "
                "written so far closed into JSON (vLLM's finalize step closes them)")


def vt(test: str, fmt: str, text: str, calls: Any, **kw: Any) -> None:
    put(f"{fmt}/vllm/truncated::{test}", fmt, text, calls, origin=VT + test.split("[")[0], tools=T_WEATHER, chunks=1, **kw)


vt("test_hy3_complete_stream_is_unchanged", "hy_v3_preview", T3_CALL + "\n</tool_call>\n</tool_calls>", [("get_weather", {"city": "Beijing"})])
for tail in ("", "\n", "\n\n"):
    vt(f"test_hy3_truncated_after_closed_argument[{tail!r}]", "hy_v3_preview", T3_CALL + tail, [], invalid=1, content=None, why=CUT_OFF_ARGS)
vt("test_hy3_truncated_mid_value", "hy_v3_preview", T3_CALL + "\n<arg_key>date</arg_key>\n<arg_value>2026", [], invalid=1, content=None,
   why=CUT_OFF_ARGS)
vt("test_hy4_complete_stream_is_unchanged", "hy_v4", T4_CALL + f"</tool_call{SUF}>\n</tool_calls{SUF}>", [("get_weather", {"city": "Beijing"})])
vt("test_hy4_truncated_with_whitespace_between_tags", "hy_v4",
   f"<tool_calls{SUF}>\n<tool_call{SUF}>get_weather<arg_key{SUF}>city</arg_key{SUF}>\n<arg_value{SUF}>Beijing</arg_value{SUF}>", [],
   invalid=1, content=None, why=CUT_OFF_ARGS)
