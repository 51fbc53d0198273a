"""The peers' own test vectors for the XML / parameters families of issue 38, group xml_a, as data.

deepseek_v4_1 (DeepSeek V4.1's spaced DSML, ``<｜DSML｜ calls>``), gigachat3 / gigachat3_1 /
gigachat3_5 (GigaChat's ``function call<|role_sep|>`` turn, its ``<|function_call|>`` call object
and its GCML), step3 (StepTML in DeepSeek-style tokens), step3_5 (Step 3.5 / 3.7 / 5: Qwen3-Coder's
calls, thinking forced open), ling3 (GLM-4.7's calls) and minicpm5 (``<function name=…><param
name=…>``). Each vector is a model output from a peer's test (vLLM's tests/tool_parsers and
tests/parser/engine, SGLang's test/registered/unit/function_call), what that test expects of it,
the tools the test gives, the chunks the test streams it in, and its origin (repository, file,
test, commit). They are facts lifted from the peers' tests, not their code; the conventions are
those of ``peer_vectors_newest.py`` and ``peer_vectors_pythonic.py`` (``content=None``: no content
expected; ``ANY``: the test does not look; ``invalid=ANY`` where the peer drops a call without
saying whether it counts as broken; ``why`` where thinkgate reads the output differently on
purpose, the vector then holding thinkgate's reading). Tool parsers tested alone see reasoning as
content: those vectors are read with ``thinking=False``.

:data:`ARGS_AS_WRITTEN`: the peer's test checks only the names or a few keys; the vector's calls
carry the arguments as the call writes them. :data:`CONTAINS`: the test checks only that the
content holds these substrings (the vector's content is ``ANY``).
"""

from __future__ import annotations

import json
from typing import Any

from helpers import fn
from peer_vectors_newest import ANY, A, B, I, N, O, S, Vector  # noqa: F401 - the shorthands

VECTORS: dict[str, Vector] = {}
ARGS_AS_WRITTEN: set[str] = set()
CONTAINS: dict[str, tuple[str, ...]] = {}


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


def ours(vid: str, why: str, **reading: Any) -> None:
    """Vector ``vid`` read as thinkgate reads it, on purpose (``why``)."""
    VECTORS[vid] = VECTORS[vid]._replace(why=why, **reading)


VERBATIM = "verbatim: the answer keeps the whitespace the model wrote beside the tool markup (the peer strips it)"
TEXT_KEPT = "nothing lost: the text the model wrote after its calls is the answer's too (the peer drops it)"
UNKNOWN_TOOL = ("a call to a tool the request does not offer is reported invalid with its text (the peer returns no call and "
                "keeps the text as content)")


# ============================================================================================
# deepseek_v4_1
# ============================================================================================
DS = "｜DSML｜ "
CALLS = (f"<{DS}calls>", f"</{DS}calls>")


def v41_param(key: str, value: Any, string: bool = True) -> str:
    return f'<{DS}parameter name="{key}" string="{"true" if string else "false"}">{value}</{DS}parameter>'


def v41_invoke(name: str, *params: str) -> str:
    return f'<{DS}invoke name="{name}">\n' + "".join(p + "\n" for p in params) + f"</{DS}invoke>\n"


def v41_block(*invokes: str) -> str:
    return CALLS[0] + "\n" + "".join(invokes) + CALLS[1]


VE41 = "vllm-project/vllm tests/parser/engine/test_deepseek_v41.py @02579a5f38c5ed5211c01da7207a5c6fbc921423::"
V41_CALLS = "\n\n" + v41_block(
    v41_invoke("get_weather", v41_param("city", "杭州"), v41_param("count", 42, False)),
    v41_invoke("add", v41_param("x", 1.5, False), v41_param("y", 2.25, False)),
)
V41_TWO = [("get_weather", {"city": "杭州", "count": 42}), ("add", {"x": 1.5, "y": 2.25})]
DUMMY = [fn("get_weather", city=S, count=I), fn("add", x=N, y=N)]


def ve41(test: str, text: str, calls: Any, **kw: Any) -> None:
    add(Vector(f"deepseek_v4_1/vllm/{test}", "deepseek_v4_1", text, calls, origin=VE41 + test.split("[")[0], **kw))


for thinking in (False, True):
    for chunk in (1, 7, 10000):
        text = ("Plan.</think>" if thinking else "") + "Checking." + V41_CALLS
        ve41(f"test_registered_adapters_parse_parallel_calls_across_chunks[{chunk}-{thinking}]", text, V41_TWO, tools=DUMMY,
             thinking=thinking, reasoning="Plan." if thinking else None, content="Checking.\n\n", chunks=chunk,
             why=VERBATIM + " (vLLM's test compares the content stripped)")
    ve41(f"test_registered_adapters_parse_complete_output[{thinking}]", ("Plan.</think>" if thinking else "") + V41_CALLS, V41_TWO,
         tools=DUMMY, thinking=thinking, reasoning="Plan." if thinking else None, content=None)
for controls, text, reasoning, thinking in (
    ("thinking-False", "12", None, False),
    ("enable_thinking-False", "12", None, False),
    ("effort-none", "12", None, False),
    ("default-empty", "</think>12", None, True),
    ("default", "Plan.</think>12", "Plan.", True),
):
    ve41(f"test_reasoning_adapter_controls_and_usage[{controls}]", text, [], reasoning=reasoning, content="12", thinking=thinking, chunks=1)
ve41("test_python_argument_conversion_and_partial_values",
     v41_block(v41_invoke("convert", v41_param("object", '{"a": [true, null]}', False), v41_param("bad", "[broken", False),
                          f'<{DS}parameter name="bare">7</{DS}parameter>', v41_param("text", "  a<b"))),
     [("convert", {"object": {"a": [True, None]}, "bad": "[broken", "bare": 7, "text": "  a<b"})], content=None)

SG41 = "sgl-project/sglang test/registered/unit/function_call/test_deepseekv41_detector.py @075fa350ee478ed477230c6cf29693f7a2780fc4::"
LOOKUP_ARGS = {"query": '{"a": 1}', "limit": 2, "flags": [1, True, None]}
LOOKUP = [fn("get_weather", ["city"], city=S), fn("lookup", query=S, limit=I, flags=A)]
# encoding_dsv41.render_message of the assistant turn, after the "<think>" the test prepends
RENDERED_V41 = ("<think>reason</think>summary\n\n" + v41_block(v41_invoke("lookup", v41_param("query", '{"a": 1}'), v41_param("limit", 2, False),
                                                                          v41_param("flags", "[1, true, null]", False)))
                + "<｜end▁of▁sentence｜>")
for chunk in (None, 1, 2, 3, 5, 7, 11, 23, 1000):
    test = "TestDeepSeekV41RoundTrip::" + ("test_one_shot" if chunk is None else f"test_streaming_at_every_chunk_size[{chunk}]")
    add(Vector(f"deepseek_v4_1/sglang/{test}", "deepseek_v4_1", RENDERED_V41, [("lookup", LOOKUP_ARGS)], tools=LOOKUP, thinking=False,
               reasoning="reason", content="summary\n\n", chunks=chunk, origin=SG41 + test.split("[")[0],
               why=VERBATIM + " (SGLang's test compares the content stripped); the <think> the output opens with is markup"))


# ============================================================================================
# gigachat3 / gigachat3_1: vLLM tests/tool_parsers/test_gigachat3_tool_parser.py
# ============================================================================================
MSG_SEP = "<|message_sep|>\n\n"
ROLE_SEP = "<|role_sep|>\n"
FC3 = f"function call{ROLE_SEP}"
FC31 = "<|function_call|>"
G_SIMPLE = {"action": "create", "id": "preferences"}
G_COMPLEX = {"action": "create", "id": "preferences",
             "content": {"short_answers": True, "hate_emojis": True, "english_ui": False, "russian_math_explanations": True}}


def gjson(args: dict) -> str:
    return json.dumps({"name": "manage_user_memory", "arguments": args}, ensure_ascii=False)


VG3 = "vllm-project/vllm tests/tool_parsers/test_gigachat3_tool_parser.py @102ebe1158710d3d09835e7887904042ed770264::"


def vg3(fmt: str, test: str, text: str, calls: Any, **kw: Any) -> None:
    add(Vector(f"{fmt}/vllm/gigachat3::{test}", fmt, text, calls, origin=VG3 + test.split("[")[0], **kw))


for fmt in ("gigachat3", "gigachat3_1"):
    for mode in ("True", "False"):
        vg3(fmt, f"test_no_tool_call[{mode}]", "How can I help you today?", [], content="How can I help you today?")
for fmt, head, suffix in (("gigachat3", MSG_SEP + FC3, "gigachat3"), ("gigachat3_1", FC31, "gigachat31")):
    for case, args in (("simple", G_SIMPLE), ("parameterless", {}), ("complex", G_COMPLEX)):
        for mode in ("streaming", "nonstreaming"):
            vg3(fmt, f"test_tool_call[{case}_{mode}_{suffix}]", head + gjson(args), [("manage_user_memory", args)], content=None)
    for mode in ("streaming", "nonstreaming"):
        vg3(fmt, f"test_tool_call[mixed_content_{mode}_{suffix}]", "I'll check that for you." + head + gjson(G_SIMPLE),
            [("manage_user_memory", G_SIMPLE)], content="I'll check that for you.")
        vg3(fmt, f"test_tool_call[mixed_content_{mode}_with_eos_{suffix}]", "I'll check that for you." + head + gjson(G_SIMPLE) + "</s>",
            [("manage_user_memory", G_SIMPLE)], content="I'll check that for you.")
    steps = ["I'l", "l ", "check that for you.", *([MSG_SEP, FC3] if fmt == "gigachat3" else [FC31]),
             gjson(G_COMPLEX)[:40], gjson(G_COMPLEX)[40:-1], gjson(G_COMPLEX)[-1]]
    vg3(fmt, f"test_streaming_tool_call_with_large_steps[{suffix}]", "".join(steps), [("manage_user_memory", G_COMPLEX)], chunks=steps)
for fmt, head, case in (("gigachat3", MSG_SEP + FC3, "gigachat3"), ("gigachat3_1", FC31, "gigachat31")):
    vg3(fmt, f"test_streaming_split_special_tokens[{case}]", "I'll check that for you." + head + gjson(G_SIMPLE),
        [("manage_user_memory", G_SIMPLE)], content="I'll check that for you.", chunks=3)
    vg3(fmt, f"test_streaming_split_special_tokens[{case}_no_content]", head + gjson(G_SIMPLE), [("manage_user_memory", G_SIMPLE)],
        content=None, chunks=3)
vg3("gigachat3_1", "test_streaming_split_special_tokens[gigachat31_eos]", "I'll check that for you." + FC31 + gjson(G_SIMPLE) + "</s>",
    [("manage_user_memory", G_SIMPLE)], content="I'll check that for you.", chunks=3)
vg3("gigachat3_1", "test_streaming_split_special_tokens[gigachat31_parameterless]", FC31 + gjson({}), [("manage_user_memory", {})],
    content=None, chunks=3)

# gigachat3: SGLang test/registered/unit/function_call/test_gigachat3_detector.py
SGG = "sgl-project/sglang test/registered/unit/function_call/test_gigachat3_detector.py @5c57d4c3bcd7b2f9d5478c7a76e557c014211b7d::TestGigaChat3Detector::"
MEMORY = {"type": "function", "function": {"name": "manage_user_memory", "parameters": {"type": "object", "properties": {
    "content": {"anyOf": [S, {"type": "null"}], "default": None}, "action": {"type": "string", "enum": ["create", "update", "delete"]},
    "id": {"anyOf": [{"type": "string", "format": "uuid"}, {"type": "null"}], "default": None}}}}}
G_TOOLS = [MEMORY, fn("get_weather", ["city"], city=S, unit={"type": "string", "enum": ["celsius", "fahrenheit"]})]
G3 = MSG_SEP + FC3


def sgg(test: str, text: str, calls: Any, contains: tuple[str, ...] = (), **kw: Any) -> None:
    add(Vector(f"gigachat3/sglang/{test}", "gigachat3", text, calls, tools=G_TOOLS, origin=SGG + test, **kw), contains=contains)


sgg("test_detect_and_parse_no_tool_call", "How can I help you today?", [], content="How can I help you today?")
sgg("test_detect_and_parse_simple_tool_call", G3 + gjson(G_SIMPLE), [("manage_user_memory", G_SIMPLE)], content=None)
sgg("test_detect_and_parse_parameterless_tool_call", G3 + gjson({}), [("manage_user_memory", {})], content=None)
sgg("test_detect_and_parse_complex_tool_call", G3 + gjson(G_COMPLEX), [("manage_user_memory", G_COMPLEX)], content=None)
sgg("test_detect_and_parse_with_content_and_eos", "I'll remember that." + G3 + gjson({"action": "create", "id": "test"}) + "</s>",
    [("manage_user_memory", {"action": "create", "id": "test"})], content="I'll remember that.")
sgg("test_detect_and_parse_invalid_json", G3 + '{"name": "manage_user_memory", "arguments": {invalid json}}', [], invalid=ANY,
    content=ANY, contains=("function call",))
sgg("test_detect_and_parse_missing_name", G3 + '{"arguments": {"action": "create"}}', [], invalid=ANY)
sgg("test_detect_and_parse_missing_arguments", G3 + '{"name": "manage_user_memory"}', [], invalid=ANY)
sgg("test_detect_and_parse_arguments_not_dict", G3 + '{"name": "manage_user_memory", "arguments": "string_args"}', [], invalid=ANY)
sgg("test_streaming_no_tool_call", "How can I help you?", [], content="How can I help you?", chunks=["How ", "can ", "I ", "help ", "you?"])
SIMPLE_STEPS = [MSG_SEP, "function call", ROLE_SEP, '{"name": "manage_user_memory", ', '"arguments": {"action": "create"', ', "id": "preferences"}}']
sgg("test_streaming_simple_tool_call", "".join(SIMPLE_STEPS), [("manage_user_memory", G_SIMPLE)], chunks=SIMPLE_STEPS)
BEFORE_STEPS = ["I'll ", "help ", "you.", MSG_SEP, "function call", ROLE_SEP, '{"name": "get_weather", ', '"arguments": {"city": "Tokyo"}}']
sgg("test_streaming_with_content_before", "".join(BEFORE_STEPS), [("get_weather", {"city": "Tokyo"})], content="I'll help you.", chunks=BEFORE_STEPS)
COMPLEX_STEPS = [MSG_SEP, "functi", "on call<|role_sep|>\n", '{"name": "manage_user_memory", "arguments": ', '{"action": "create", "id": "prefs", ',
                 '"content": {"likes": ["short", "clear"], ', '"dislikes": ["emojis", "verbose"]}', "}}"]
sgg("test_streaming_complex_arguments", "".join(COMPLEX_STEPS),
    [("manage_user_memory", {"action": "create", "id": "prefs", "content": {"likes": ["short", "clear"], "dislikes": ["emojis", "verbose"]}})],
    chunks=COMPLEX_STEPS)
EOS_STEPS = [MSG_SEP, "function c", "all<|role_sep|>\n", '{"name": "get_weather", ', '"arguments": {"city": "Paris"}}', "</s>"]
sgg("test_streaming_with_eos_token", "".join(EOS_STEPS), [("get_weather", {"city": "Paris"})], chunks=EOS_STEPS)
CUT_STEPS = [MSG_SEP, "fun", "ction call<|role_sep|>\n", '{"name": "get_weather", ', '"arguments": {"city": "London"']
sgg("test_streaming_incomplete_json", "".join(CUT_STEPS), [], invalid=1, content=None, chunks=CUT_STEPS,
    why="the output stops inside the call: the cut call is reported invalid with its text (SGLang streams its name and the "
        "arguments so far)")
LARGE_STEPS = ["I'll remember that.", MSG_SEP + "functi", "on call<|role_sep|>\n",
               '{"name": "manage_user_memory", "arguments": {"action": "create", "id": "preferences", "content": {"short_answers": true, "hate_emojis": true, ',
               '"english_ui": false, "russian_math_explanations": true}', "}}"]
sgg("test_streaming_large_steps", "".join(LARGE_STEPS), [("manage_user_memory", G_COMPLEX)], content="I'll remember that.", chunks=LARGE_STEPS)


# ============================================================================================
# gigachat3_5: vLLM tests/tool_parsers/test_gigachat35_tool_parser.py (the common ToolParserTests)
# ============================================================================================
GC = "｜GCML｜"


def gcml_invoke(name: str, *params: tuple[str, str, bool]) -> str:
    body = "".join(f'<{GC}parameter name="{k}" string="{str(s).lower()}">{v}</{GC}parameter>' for k, v, s in params)
    return f'<{GC}invoke name="{name}">{body}</{GC}invoke>'


def gcml_calls(*calls: str) -> str:
    return f"<{GC}tool_calls>" + "".join(calls) + f"</{GC}tool_calls>"


VG35 = "vllm-project/vllm tests/tool_parsers/test_gigachat35_tool_parser.py @053521db5e1807004c5e89d03c75b93b3974c7c7::"
TOKYO = gcml_calls(gcml_invoke("get_weather", ("city", "Tokyo", True)))
TYPED = gcml_calls(gcml_invoke("typed_args", ("string_field", '"hello"', False), ("int_field", "7", False), ("float_field", "3.5", False),
                               ("bool_field", "true", False), ("null_field", "null", False), ("array_field", "[1, 2, 3]", False),
                               ("object_field", '{"nested": true}', False)))


def vg35(test: str, text: str, calls: Any, **kw: Any) -> None:
    add(Vector(f"gigachat3_5/vllm/{test}", "gigachat3_5", text, calls, thinking=False, origin=VG35 + test.split("[")[0], **kw))


for mode in ("True", "False"):
    common = "TestGigaChat35ToolParser::"
    vg35(f"{common}test_no_tool_calls[{mode}]", "Plain answer without a tool call.", [], content="Plain answer without a tool call.")
    vg35(f"{common}test_single_tool_call_simple_args[{mode}]", TOKYO, [("get_weather", {"city": "Tokyo"})], content=None)
    vg35(f"{common}test_parallel_tool_calls[{mode}]", gcml_calls(gcml_invoke("get_weather", ("city", "Tokyo", True)),
                                                               gcml_invoke("get_time", ("timezone", "Asia/Tokyo", True))),
         [("get_weather", {"city": "Tokyo"}), ("get_time", {"timezone": "Asia/Tokyo"})], content=None)
    vg35(f"{common}test_various_data_types[{mode}]", TYPED, [("typed_args", {"string_field": "hello", "int_field": 7, "float_field": 3.5,
                                                                            "bool_field": True, "null_field": None, "array_field": [1, 2, 3],
                                                                            "object_field": {"nested": True}})])
    vg35(f"{common}test_empty_arguments[{mode}]", gcml_calls(gcml_invoke("empty_args")), [("empty_args", {})])
    vg35(f"{common}test_surrounding_text[{mode}]", "I will check." + TOKYO, [("get_weather", {"city": "Tokyo"})], content="I will check.")
    vg35(f"{common}test_escaped_strings[{mode}]", gcml_calls(gcml_invoke("escaped", ("text", 'line 1\\n"quoted"', True))),
         [("escaped", {"text": 'line 1\\n"quoted"'})])
    for k, bad in enumerate((f'<{GC}tool_calls><{GC}invoke name="broken">', f'<{GC}tool_calls><{GC}parameter name="x">1</{GC}parameter>',
                             f"<{GC}tool_calls></{GC}tool_calls>")):
        vg35(f"{common}test_malformed_input[{mode}-{k}]", bad, [], invalid=ANY, content=ANY)
vg35("test_parser_aliases[gigachat35]", gcml_calls(gcml_invoke("lookup", ("query", "vLLM", True))), [("lookup", {"query": "vLLM"})], content=None)
vg35("test_string_false_json_object", gcml_calls(gcml_invoke("store", ("payload", '{"a": 1}', False))), [("store", {"payload": {"a": 1}})])


# ============================================================================================
# step3: SGLang test/registered/unit/function_call/test_step3_detector.py (the template's layout)
# ============================================================================================
TCS = ("<｜tool_calls_begin｜>", "<｜tool_calls_end｜>")
TC = ("<｜tool_call_begin｜>", "<｜tool_call_end｜>")
TSEP = "<｜tool_sep｜>"


def step_block(name: str, params: str = "") -> str:
    return f'{TC[0]}function{TSEP}<steptml:invoke name="{name}">{params}</steptml:invoke>{TC[1]}'


def step_param(name: str, value: Any) -> str:
    return f'<steptml:parameter name="{name}">{value}</steptml:parameter>'


def step_wrap(*blocks: str) -> str:
    return TCS[0] + "".join(blocks) + TCS[1]


SGS = "sgl-project/sglang test/registered/unit/function_call/test_step3_detector.py @253dc42b2d74ac25517ae3361dbd60ec29ad0cc8::TestStep3Detector::"
STEP_TOOLS = [fn("get_weather", city=S, days=I), fn("noop")]
W = "get_weather"


def sgs(test: str, text: str, calls: Any, **kw: Any) -> None:
    add(Vector(f"step3/sglang/{test}", "step3", text, calls, tools=STEP_TOOLS, thinking=False, origin=SGS + test.split("[")[0], **kw))


sgs("test_parses_call_without_parameters", step_wrap(step_block(W)), [(W, {})], content=None)
sgs("test_parses_mix_of_parameterless_and_parameterized_calls", step_wrap(step_block(W), step_block(W, step_param("city", "Beijing"))),
    [(W, {}), (W, {"city": "Beijing"})], content=None)
for case, text, calls, content in (
    ("single_call_no_parameters", step_wrap(step_block(W)), [(W, {})], None),
    ("single_call_one_parameter", step_wrap(step_block(W, step_param("city", "Beijing"))), [(W, {"city": "Beijing"})], None),
    ("single_call_two_parameters", step_wrap(step_block(W, step_param("city", "Beijing") + step_param("days", "3"))), [(W, {"city": "Beijing", "days": 3})], None),
    ("integer_parameter_keeps_type", step_wrap(step_block(W, step_param("days", "7"))), [(W, {"days": 7})], None),
    ("unicode_parameter", step_wrap(step_block(W, step_param("city", "北京"))), [(W, {"city": "北京"})], None),
    ("tool_with_empty_schema", step_wrap(step_block("noop")), [("noop", {})], None),
    ("two_parameterless_calls", step_wrap(step_block(W), step_block(W)), [(W, {}), (W, {})], None),
    ("two_parameterless_calls_different_tools", step_wrap(step_block(W), step_block("noop")), [(W, {}), ("noop", {})], None),
    ("parameterless_then_parameterized", step_wrap(step_block(W), step_block(W, step_param("city", "x"))), [(W, {}), (W, {"city": "x"})], None),
    ("parameterized_then_parameterless", step_wrap(step_block(W, step_param("city", "x")), step_block(W)), [(W, {"city": "x"}), (W, {})], None),
    ("two_calls_distinct_parameters", step_wrap(step_block(W, step_param("city", "a")), step_block(W, step_param("city", "b"))),
     [(W, {"city": "a"}), (W, {"city": "b"})], None),
    ("three_mixed_calls", step_wrap(step_block(W), step_block(W, step_param("city", "a")), step_block("noop")), [(W, {}), (W, {"city": "a"}), ("noop", {})], None),
    ("normal_text_before_tool_block", "Sure. " + step_wrap(step_block(W)), [(W, {})], "Sure. "),
    ("plain_text_without_tool_call", "The weather is nice today.", [], "The weather is nice today."),
):
    for chunking, chunks in (("char", 1), ("whole", None), ("halves", [text[: len(text) // 2], text[len(text) // 2 :]])):
        sgs(f"test_stream_{case}[{chunking}]", text, calls, content=content, chunks=chunks)
# (SGLang compares the content stripped: "Sure. " keeps its space as written, as the peer's own non-streaming reading does)

# step3: vLLM tests/tool_parsers/test_step3_tool_parser.py: its common cases write no "function<｜tool_sep｜>" header (the
# test xfails its parser on them); its whitespace cases write the name again after the separator
VS3 = "vllm-project/vllm tests/tool_parsers/test_step3_tool_parser.py @04b590e613452c30240e574e66102b4838570054::"
WS_TOOLS = [fn("edit_file", old_string=S, indent=I, enabled=B)]
NO_HEADER = ("the test writes <｜tool_call_begin｜><steptml:invoke …> with no function<｜tool_sep｜> header, which Step 3's calls have (vLLM "
             "xfails its parser on these): the call is malformed, reported invalid with its text")
NAME_AGAIN = ("the test writes function<｜tool_sep｜>edit_file then a newline before <steptml:invoke name=\"edit_file\">, a header "
              "Step 3's calls do not have: the call is malformed, reported invalid with its text")
for mode in ("True", "False"):
    add(Vector(f"step3/vllm/TestStep3ToolParser::test_no_tool_calls[{mode}]", "step3", "This is a regular response without any tool calls.", [],
               content="This is a regular response without any tool calls.", thinking=False, origin=VS3 + "TestStep3ToolParser::test_no_tool_calls"))
    add(Vector(f"step3/vllm/TestStep3ToolParser::test_single_tool_call_simple_args[{mode}]", "step3",
               f'{TCS[0]}{TC[0]}<steptml:invoke name="get_weather">{step_param("city", "Tokyo")}</steptml:invoke>{TC[1]}{TCS[1]}',
               [], invalid=1, thinking=False, why=NO_HEADER, origin=VS3 + "TestStep3ToolParser::test_single_tool_call_simple_args"))
for value in ("    if x:", "return 1\n", "    if x:\n        return 1\n", "hello ", "hello\u00a0", "hello"):
    text = (f"{TCS[0]}{TC[0]}function{TSEP}edit_file\n" f'<steptml:invoke name="edit_file">{step_param("old_string", value)}'
            f'{step_param("indent", " 4 ")}{step_param("enabled", " true ")}</steptml:invoke>{TC[1]}{TCS[1]}')
    add(Vector(f"step3/vllm/TestStep3ParameterWhitespace::test_string_value_preserved[{value!r}]", "step3", text, [], invalid=1,
               tools=WS_TOOLS, thinking=False, why=NAME_AGAIN,
               origin=VS3 + "TestStep3ParameterWhitespace::test_string_value_preserved"))


# ============================================================================================
# step3_5: vLLM tests/parser/engine/test_step3p5.py, SGLang test_step3p5_detector.py
# ============================================================================================
VE35 = "vllm-project/vllm tests/parser/engine/test_step3p5.py @a1a98284a4c35209af8dedfd46fff852625330d7::"
add(Vector("step3_5/vllm/test_enable_thinking_false_is_ignored", "step3_5", "plan</think>answer", [], thinking=True, reasoning="plan",
           content="answer", origin=VE35 + "test_enable_thinking_false_is_ignored"))
add(Vector("step3_5/vllm/test_newline_before_think_end_dropped", "step3_5", "Line one.\nLine two.\n</think>\nThe answer.", [], thinking=True,
           reasoning="Line one.\nLine two.", content="\nThe answer.", origin=VE35 + "test_newline_before_think_end_dropped"))
STREAM35 = ["Line one.\n", "Line two.\n", "</think>", "\nThe answer."]
add(Vector("step3_5/vllm/test_newline_before_think_end_dropped_streaming", "step3_5", "".join(STREAM35), [], thinking=True,
           reasoning="Line one.\nLine two.", content="\nThe answer.", chunks=STREAM35, origin=VE35 + "test_newline_before_think_end_dropped_streaming"))
add(Vector("step3_5/vllm/test_reasoning_then_tool_call", "step3_5",
           "Need the weather.\n</think>\n<tool_call>\n<function=get_weather>\n<parameter=city>\nTokyo\n</parameter>\n</function>\n</tool_call>",
           [("get_weather", {"city": "Tokyo"})], thinking=True, reasoning="Need the weather.", content=None, origin=VE35 + "test_reasoning_then_tool_call"))

SG35 = "sgl-project/sglang test/registered/unit/function_call/test_step3p5_detector.py @df758f476f27b65811ec800db143a4a003fa493d::TestStep3p5Detector::"
BASH_TOOLS = [fn("bash", command=S, items=A, options=O, timeout=I), fn("weather", city=S, state=S)]
PWD = "<tool_call><function=bash><parameter=command>pwd</parameter></function></tool_call>"
PARIS = "<tool_call><function=weather><parameter=city>Paris</parameter></function></tool_call>"
BASH_PWD = ("bash", {"command": "pwd"})


def sg35(test: str, text: str, calls: Any, **kw: Any) -> None:
    add(Vector(f"step3_5/sglang/{test}", "step3_5", text, calls, tools=BASH_TOOLS, thinking=False, origin=SG35 + test.split("[")[0], **kw))


for chunking, chunks in (("whole", None), ("chars", 1)):
    sg35(f"test_canonical_xml_matches_qwen_parser[{chunking}]",
         "prefix<tool_call><function=bash><parameter=command>pwd</parameter><parameter=timeout>5</parameter></function></tool_call>",
         [("bash", {"command": "pwd", "timeout": 5})], content="prefix", chunks=chunks)
    sg35(f"test_adjacent_calls_in_one_mtp_chunk[{chunking}]", PWD + PARIS, [BASH_PWD, ("weather", {"city": "Paris"})], content=None, chunks=chunks)
    sg35(f"test_interleaved_text_is_preserved_in_both_modes[{chunking}]", f"hello{PWD}between{PARIS}bye", [BASH_PWD, ("weather", {"city": "Paris"})],
         content="hellobetweenbye", chunks=chunks)
    sg35(f"test_missing_outer_tool_call_wrapper[{chunking}]", "<function=bash><parameter=command>pwd</parameter></function>", [BASH_PWD],
         content=None, chunks=chunks)
    sg35(f"test_python_literal_container_parameters_remain_supported[{chunking}]",
         "<tool_call><function=bash><parameter=options>{'check': True}</parameter><parameter=items>[1, 2]</parameter></function></tool_call>",
         [("bash", {"options": {"check": True}, "items": [1, 2]})], content=None, chunks=chunks)
    sg35(f"test_xml_like_prose_does_not_block_a_later_real_call[{chunking}]",
         "intro<functions>x</functions><function_name>y</function_name>" + PWD, [BASH_PWD],
         content="intro<functions>x</functions><function_name>y</function_name>", chunks=chunks)
    sg35(f"test_unmatched_closing_tags_are_preserved_as_text[{chunking}]", "a</function>b</parameter>c</tool_call>d", [],
         content="a</function>b</parameter>c</tool_call>d", chunks=chunks)
    sg35(f"test_literal_and_parser_segments_do_not_reorder_text[{chunking}]", "a<</function>b" + PWD, [BASH_PWD], content="a<</function>b",
         chunks=chunks)
    sg35(f"test_missing_parameter_close_before_next_parameter[{chunking}]",
         "<tool_call><function=weather><parameter=city>Dallas<parameter=state>TX</parameter></function></tool_call>",
         [("weather", {"city": "Dallas", "state": "TX"})], content=None, chunks=chunks)
    sg35(f"test_missing_equals_in_known_function_tag[{chunking}]",
         "<tool_call><function bash><parameter=command>pwd</parameter></function></tool_call>", [BASH_PWD], content=None, chunks=chunks)
    sg35(f"test_tool_close_repairs_open_parameter_and_function[{chunking}]",
         "<tool_call><function=bash><parameter=command>pwd</tool_call>", [BASH_PWD], content=None, chunks=chunks)
for source in ("This uses <functionality in prose", "This uses <functionbashful in prose", "This uses <function unknown in prose",
               "This discusses <parameterization forever"):
    sg35(f"test_partial_function_words_are_plain_stream_content[{source}]", source, [], content=source)
sg35("test_bare_unknown_function_is_preserved_as_text", "prefix<function=unknown><parameter=command>pwd</parameter></function>suffix", [],
     content="prefix<function=unknown><parameter=command>pwd</parameter></function>suffix")
sg35("test_non_stream_partial_second_call_keeps_completed_first_call", PWD + "<tool_call><function=weather", [BASH_PWD],
     content="<tool_call><function=weather")
sg35("test_non_stream_conversion_error_falls_back_to_text",
     "<tool_call><function=bash><parameter=options>{1, 2}</parameter></function></tool_call>", [], invalid=ANY, content=ANY)


# ============================================================================================
# ling3: vLLM tests/parser/engine/test_ling3.py
# ============================================================================================
VL3 = "vllm-project/vllm tests/parser/engine/test_ling3.py @24e11f559a3376b8253037830e5384a3e0deb58b::"
add(Vector("ling3/vllm/test_ling3_defaults_thinking_on", "ling3", "<think>reason</think>answer", [], thinking=None, reasoning="reason",
           content="answer", origin=VL3 + "test_ling3_defaults_thinking_on"))
add(Vector("ling3/vllm/test_ling3_disable_thinking_keeps_reasoning_as_content", "ling3", "<think>reason</think>answer", [], thinking=False,
           reasoning=None, content="<think>reason</think>answer", origin=VL3 + "test_ling3_disable_thinking_keeps_reasoning_as_content"))
for output in ("only reasoning", "<think>only reasoning"):
    add(Vector(f"ling3/vllm/test_ling3_truncated_reasoning_stays_reasoning[{output}]", "ling3", output, [], thinking=True,
               reasoning="only reasoning", content=None, origin=VL3 + "test_ling3_truncated_reasoning_stays_reasoning"))
add(Vector("ling3/vllm/test_ling3_tool_call_without_newline", "ling3",
           "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call>", [("get_weather", {"city": "Beijing"})],
           thinking=False, content=None, origin=VL3 + "test_ling3_tool_call_without_newline"))
add(Vector("ling3/vllm/test_ling3_tool_call_without_args", "ling3", "<tool_call>ping</tool_call>", [("ping", {})], thinking=False,
           content=None, origin=VL3 + "test_ling3_tool_call_without_args"))


# ============================================================================================
# minicpm5: vLLM tests/tool_parsers/test_minicpm5xml_tool_parser.py, SGLang test_minicpm5_detector.py
# ============================================================================================
WEATHER5 = [fn("get_weather", ["city"], city=S, date=S)]
SUM5 = [fn("sum_values", ["nums"], nums=A, exact=B)]
NOOP5 = [fn("noop", [], note=S)]
SH = ("get_weather", {"city": "上海", "date": "2024-06-27"})
VM5 = "vllm-project/vllm tests/tool_parsers/test_minicpm5xml_tool_parser.py @08eaf4cf001acb35879237aa5bf4d504a4a1925d::"
SM5 = "sgl-project/sglang test/registered/unit/function_call/test_minicpm5_detector.py @032cfb6f206222145c6d0b377a90b89d05a3c170::"
SH_CALL = '<function name="get_weather"><param name="city">上海</param><param name="date">2024-06-27</param></function>'
INTRO = "Intro before.\n" + SH_CALL + "\nOutro after.\n"
CDATA = '<function name="get_weather"><param name="city"><![CDATA[北\n京]]></param><param name="date">2024-06-27</param></function>\n'
TYPES5 = '<function name="sum_values"><param name="nums">[1, 2, 3]</param><param name="exact">true</param></function>\n'
MIXED5 = ('Head\n<function name="get_weather"><param name="city">北京</param></function>\nTXT\n'
          '<function name="sum_values"><param name="nums">[7,8,9]</param><param name="exact">false</param></function>\nTail\n')
MIXED5_CALLS = [("get_weather", {"city": "北京"}), ("sum_values", {"nums": [7, 8, 9], "exact": False})]
CUT5 = '<function name="get_weather"><param name="city">北京</param>'
NONAME5 = '<function name="get_weather"><param>北京</param><param name="date">2024-06-27</param></function>\n'
DUP5 = '<function name="get_weather"><param name="city">北京</param><param name="city">上海</param></function>\n'
CASE5 = '<function name="get_weather"><param name="City">北京</param></function>\n'
UNKNOWN5 = '<function name="unknown"><param name="x">1</param></function>\n'


def m5(peer: str, test: str, text: str, calls: Any, tools: list, **kw: Any) -> None:
    origin = (VM5 if peer == "vllm" else SM5) + test.split("[")[0]
    add(Vector(f"minicpm5/{peer}/{test}", "minicpm5", text, calls, tools=tools, thinking=False, origin=origin, **kw))


m5("vllm", "test_no_tool_call", "How can I help you?", [], WEATHER5, content="How can I help you?")
m5("vllm", "test_single_call_with_surrounding_text", INTRO, [SH], WEATHER5, content=None)
m5("sglang", "test_detect_and_parse_single_call_v3", INTRO, [SH], WEATHER5, content=ANY)
CONTAINS["minicpm5/sglang/test_detect_and_parse_single_call_v3"] = ("Intro before.", "Outro after.")
for peer, test in (("vllm", "test_cdata_multiline"), ("sglang", "test_detect_and_parse_cdata_multiline_v3")):
    m5(peer, test, CDATA, [("get_weather", {"city": "北\n京", "date": "2024-06-27"})], WEATHER5)
m5("vllm", "test_tokenizer_space_marker", '<function\u0120name="get_weather"><param\u0120name="city">上海</param><param\u0120name="date">2024-06-27</param></function>\n',
   [SH], WEATHER5)
COLLAPSED = '<functionname="get_weather"><paramname="city">上海</param><paramname="date">2024-06-27</param></function>\n'
m5("vllm", "test_collapsed_function_and_param_tags", COLLAPSED, [SH], WEATHER5)
PARTIAL5 = ['<function name="get_weather">', '<param name="city">', '上海</param><param name="date">2024-06-27</param></function>\n']
m5("vllm", "test_extract_tool_calls_streaming_partial_chunks", "".join(PARTIAL5), [SH], WEATHER5, chunks=PARTIAL5)
DALLAS = '<function name="get_current_weather"><param name="city">Dallas</param><param name="state">TX</param><param name="unit">fahrenheit</param></function>'
DALLAS_TOOLS = [fn("get_current_weather", ["city", "state", "unit"], city=S, state=S, unit=S)]
m5("vllm", "test_extract_tool_calls_streaming_incremental_arguments", DALLAS, [("get_current_weather", {"city": "Dallas", "state": "TX", "unit": "fahrenheit"})],
   DALLAS_TOOLS, chunks=[DALLAS[:37], DALLAS[37:70], DALLAS[70:]])
for peer, test in (("vllm", "test_unknown_tool_block_preserved"), ("sglang", "test_unknown_tool_block_preserved_v3")):
    m5(peer, test, UNKNOWN5, [], WEATHER5, content=ANY, invalid=ANY)
    CONTAINS[f"minicpm5/{peer}/{test}"] = ("unknown",)
for peer, test in (("vllm", "test_non_string_types"), ("sglang", "test_non_string_types_v3")):
    m5(peer, test, TYPES5, [("sum_values", {"nums": [1, 2, 3], "exact": True})], SUM5)
m5("vllm", "test_multiple_calls_interleaved_text", MIXED5, MIXED5_CALLS, WEATHER5 + SUM5, content=None)
m5("sglang", "test_multiple_calls_interleaved_text_v3", MIXED5, MIXED5_CALLS, WEATHER5 + SUM5, content=ANY)
CONTAINS["minicpm5/sglang/test_multiple_calls_interleaved_text_v3"] = ("Head", "TXT", "Tail")
for peer, test in (("vllm", "test_incomplete_missing_function_end"), ("sglang", "test_incomplete_missing_function_end_v3")):
    m5(peer, test, CUT5, [], WEATHER5, content=ANY, invalid=ANY)
for peer, test in (("vllm", "test_param_missing_name_invalid"), ("sglang", "test_param_missing_name_invalid_v3")):
    m5(peer, test, NONAME5, [], WEATHER5, content=ANY, invalid=ANY)
for peer, test in (("vllm", "test_duplicate_param_names_invalid"), ("sglang", "test_duplicate_param_names_invalid_v3")):
    m5(peer, test, DUP5, [], WEATHER5, content=ANY, invalid=ANY)
for peer, test in (("vllm", "test_case_sensitive_param_name_invalid"), ("sglang", "test_case_sensitive_param_name_invalid_v3")):
    m5(peer, test, CASE5, [], WEATHER5, content=ANY, invalid=ANY)
for peer, test in (("vllm", "test_no_required_and_zero_param_valid"), ("sglang", "test_no_required_and_zero_param_valid_v3")):
    m5(peer, test, '<function name="noop"></function>\n', [("noop", {})], NOOP5)
STREAM5 = ['Hello\n<function name="get_weather">\n  <param name="city">', '北京</param>\n  <param name="date">2024-06-27</param>\n</function>\n']
m5("sglang", "test_streaming_increment_v3", "".join(STREAM5), [("get_weather", {"city": "北京", "date": "2024-06-27"})], WEATHER5,
   content="Hello\n", chunks=STREAM5)
SPLIT5 = '<function name="get_weather"><param name="city">北京</param></function>'
m5("sglang", "test_streaming_split_bot_token", SPLIT5, [("get_weather", {"city": "北京"})], WEATHER5, content=None, chunks=["<", SPLIT5[1:]])
m5("sglang", "test_streaming_multiple_complete_blocks_in_one_delta",
   '<function name="get_weather"><param name="city">北京</param></function><function name="sum_values"><param name="nums">[1,2]</param></function>',
   [("get_weather", {"city": "北京"}), ("sum_values", {"nums": [1, 2]})], WEATHER5 + SUM5)
m5("sglang", "test_malformed_xml_with_unescaped_ampersand_falls_back_to_regex",
   '<function name="get_weather"><param name="city">A & B</param></function>', [("get_weather", {"city": "A & B"})], WEATHER5)


# ============================================================================================
# thinkgate's own readings, each saying why
# ============================================================================================
REPORTED = "a malformed call is reported invalid with its text, markers included (the peer returns no call and keeps the text as content)"
for chunk in (None, 1, 2, 3, 5, 7, 11, 23, 1000):
    test = "TestDeepSeekV41RoundTrip::" + ("test_one_shot" if chunk is None else f"test_streaming_at_every_chunk_size[{chunk}]")
    # (the test runs SGLang's reasoning parser too: the output starts inside the reasoning, as V4.1's default)
    VECTORS[f"deepseek_v4_1/sglang/{test}"] = VECTORS[f"deepseek_v4_1/sglang/{test}"]._replace(thinking=None)

NOT_UUID = ("the tool's schema says id is a uuid (or null): a call whose id is {!r} breaks its schema and is reported invalid with "
            "its text (SGLang returns it)")
for test, value in (("test_detect_and_parse_simple_tool_call", "preferences"), ("test_detect_and_parse_complex_tool_call", "preferences"),
                    ("test_streaming_simple_tool_call", "preferences"), ("test_streaming_complex_arguments", "prefs"),
                    ("test_streaming_large_steps", "preferences"), ("test_detect_and_parse_with_content_and_eos", "test")):
    ours(f"gigachat3/sglang/{test}", NOT_UUID.format(value), calls=[], invalid=1)
CONTAINS.pop("gigachat3/sglang/test_detect_and_parse_invalid_json")
ours("gigachat3/sglang/test_detect_and_parse_invalid_json", REPORTED + "; SGLang's test asks that the content hold 'function call'",
     content=None, invalid=1)

for mode in ("True", "False"):
    ours(f"gigachat3_5/vllm/TestGigaChat35ToolParser::test_various_data_types[{mode}]",
         'a value tagged string="false" is no string: the JSON string the test writes there ("hello") is kept as its text, quotes '
         "and all (vLLM decodes it)",
         calls=[("typed_args", {"string_field": '"hello"', "int_field": 7, "float_field": 3.5, "bool_field": True, "null_field": None,
                                "array_field": [1, 2, 3], "object_field": {"nested": True}})])

REASONING_KEPT = "verbatim: the reasoning keeps the newline the model wrote before </think> (vLLM's Step-3.5 parser drops it)"
ours("step3_5/vllm/test_newline_before_think_end_dropped", REASONING_KEPT, reasoning="Line one.\nLine two.\n")
ours("step3_5/vllm/test_newline_before_think_end_dropped_streaming", REASONING_KEPT, reasoning="Line one.\nLine two.\n")
ours("step3_5/vllm/test_reasoning_then_tool_call", REASONING_KEPT, reasoning="Need the weather.\n")
REPAIRED = "malformed markup ({}): the call is reported invalid with its text (SGLang's Step-3.5 detector repairs it)"
for chunking in ("whole", "chars"):
    ours(f"step3_5/sglang/test_python_literal_container_parameters_remain_supported[{chunking}]",
         "a Python dict literal is no JSON object: the value breaks the tool's schema (an object) and the call is reported invalid "
         "with its text (SGLang evaluates the literal)", calls=[], invalid=1)
    ours(f"step3_5/sglang/test_missing_parameter_close_before_next_parameter[{chunking}]", REPAIRED.format("a parameter with no closing tag"),
         calls=[], invalid=1)
    ours(f"step3_5/sglang/test_missing_equals_in_known_function_tag[{chunking}]", REPAIRED.format("<function bash> for <function=bash>"),
         calls=[], invalid=1)
    ours(f"step3_5/sglang/test_tool_close_repairs_open_parameter_and_function[{chunking}]",
         REPAIRED.format("</tool_call> with the parameter and the function left open"), calls=[], invalid=1)
ours("step3_5/sglang/test_non_stream_partial_second_call_keeps_completed_first_call",
     "the output stops inside the second call: it is reported cut off with its text (SGLang gives its text back as content)",
     content=None, invalid=1)

ours("minicpm5/vllm/test_single_call_with_surrounding_text", TEXT_KEPT, content="Intro before.\n\nOutro after.\n")
ours("minicpm5/vllm/test_multiple_calls_interleaved_text", TEXT_KEPT, content="Head\n\nTXT\n\nTail\n")
ours("minicpm5/vllm/test_tokenizer_space_marker",
     "the text holds the byte-level tokenizer's Ġ for each space, undecoded (vLLM turns it back into spaces): no engine hands a "
     "parser text its tokenizer did not decode, and as written it is no call",
     calls=[], content='<function\u0120name="get_weather"><param\u0120name="city">上海</param><param\u0120name="date">2024-06-27</param></function>\n')
ours("minicpm5/vllm/test_collapsed_function_and_param_tags",
     "<functionname=…> is read as the call's opening (a text marker's space may be left out), but <paramname=…> is no parameter "
     "tag: the call is reported invalid with its text (vLLM respells both)", calls=[], invalid=1, content=None)
for peer, test in (("vllm", "test_unknown_tool_block_preserved"), ("sglang", "test_unknown_tool_block_preserved_v3")):
    CONTAINS.pop(f"minicpm5/{peer}/{test}")
    ours(f"minicpm5/{peer}/{test}", UNKNOWN_TOOL + "; the test asks that the content hold 'unknown'", content=None, invalid=1)
