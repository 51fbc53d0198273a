"""The peers' own test cases for seed_oss, glm47, qwen3_5, nemotron_v2, granite4, exaone4, kimi_k2, deepseek_v3_1,
llama3_json, glm45 and mistral.

The model outputs and the calls the peers expect come from vLLM's tool-parser tests
(tests/tool_parsers/test_{seed_oss,glm47_moe,glm47_final_delta_bug,qwen3coder,
qwen3_xml_coder_shared,qwen36_bugs,nemotron_nano_v2,nemotron_json,granite4,hermes}_tool_parser.py
and tests/entrypoints/openai/tool_parsers/test_granite4_tool_parser.py), SGLang's
(test/registered/function_call/test_glm47_moe_detector.py and test_qwen3_coder_detector/) and
llama.cpp's tests/test-chat.cpp (the Seed-OSS, GLM-4.7-Flash, Qwen3.5, Nemotron-3-Nano and
Nemotron-Nano-v2 templates); for kimi_k2, deepseek_v3_1, llama3_json, glm45 and mistral, the files named in their
sections. Each case is read whole and streamed (``every_split_agrees``).

A case asserts what the peer expects unless it says ``why``: there thinkgate differs on purpose
and the case asserts thinkgate's documented behaviour. The rules behind those differences:

* text comes back verbatim: reasoning, content and string argument values keep their whitespace
  where a peer strips it (a format's padding, as Qwen3-Coder's newline around a value, is markup);
* reasoning is split from the answer (vLLM's tool parsers run without their reasoning parser, so
  their "content" holds the reasoning text);
* a call that cannot be read is reported in ``invalid_tool_calls`` with its text, never dropped
  and never repaired: a value the schema types as non-string is JSON (not a Python literal, not a
  string to decode twice), an object's arguments are a JSON object, and a tool not among the
  request's tools is invalid.

Where thinkgate is wrong (it loses or invents data, or reads no call where the output holds one)
the case is ``xfail(strict=True)`` with the reason, until the parser is fixed.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

import pytest
from helpers import every_split_agrees, fn

ANY = object()  # the peer's test does not check this part


class Case(NamedTuple):
    fmt: str
    text: str
    calls: list  # [(name, arguments as a dict)]
    content: Any = ANY
    reasoning: Any = ANY
    invalid: int = 0  # how many calls are reported invalid
    thinking: Any = False
    tools: list | None = None
    options: Any = None  # StreamParser options
    why: str = ""  # set where thinkgate differs from the peer on purpose


S = {"type": "string"}
I = {"type": "integer"}
N = {"type": "number"}

CASES: dict[str, Any] = {}


def add(case_id: str, case: Case, xfail: str = "") -> None:
    assert case_id not in CASES, case_id
    CASES[case_id] = pytest.param(case, id=case_id, marks=[pytest.mark.xfail(strict=True, reason=xfail)] if xfail else [])


# --------------------------------------------------------------------------------------------
# seed_oss: vLLM tests/tool_parsers/test_seed_oss_tool_parser.py, llama.cpp ByteDance-Seed-OSS
# --------------------------------------------------------------------------------------------
SEED_WEATHER = [fn("get_weather", ["location"], location=S, unit=S)]
SEED_CALL = "<seed:tool_call>\n<function=get_weather>\n<parameter=location>Barcelona, Spain</parameter>\n</function>\n</seed:tool_call>"
SEED_BARCELONA = [("get_weather", {"location": "Barcelona, Spain"})]
SEED_BUDGET_512 = (
    "The user's current thinking budget is 512.</seed:cot_budget_reflect>\nLet me analyze the question. "
    "The user wants to know the weather in Barcelona, Spain. \n<seed:cot_budget_reflect>I have used 131 tokens, "
    "and there are 381 tokens remaining for use.</seed:cot_budget_reflect>\n Since the unit isn't specified, the "
    "function will default to Celsius, which is fine. \n\nThere's no need to ask for more information.\n"
    "<seed:cot_budget_reflect>I have used 257 tokens, and there are 255 tokens remaining for use."
    "</seed:cot_budget_reflect>\n The unit parameter can be omitted since it's optional."
)
SEED_BUDGET_0 = (
    "\n</seed:cot_budget_reflect>\n</seed:cot_budget_reflect>\n"
    "The current thinking budget is 0, so I will directly start answering the question.\n"
)
SEED_QUOTED_CALL = (
    "<seed:tool_call>\n<function=get_weather>\n<parameter=location>Barcelona, Spain</parameter>\n"
    "<parameter=unit>celsius</parameter>\n</function>\n</seed:tool_call>"
)
SEED_UNLIMITED = (
    "\nGot it, let's see. The user asked for the weather in Barcelona, Spain. Let me format the function call "
    "correctly. The format is " + SEED_QUOTED_CALL + ". Wait, but does the unit parameter accept \"celsius\"? "
    "Let me go with that. Then wait for the result to come back and tell the user the temperature in Celsius."
)
VLLM_SPLITS_NO_REASONING = "vLLM's tool parser runs without its reasoning parser: its content is thinkgate's reasoning"

add("seed_oss/vllm/no_tools", Case("seed_oss", "This is a test response without any tool calls", [], content="This is a test response without any tool calls", thinking="auto"))
add("seed_oss/vllm/zero_budget_call_only", Case("seed_oss", SEED_CALL, SEED_BARCELONA, content=None, thinking="auto", tools=SEED_WEATHER))
add("seed_oss/vllm/budget_512", Case(
    "seed_oss", "<seed:think>" + SEED_BUDGET_512 + "</seed:think>\n" + SEED_CALL, SEED_BARCELONA,
    content=None, reasoning=SEED_BUDGET_512, thinking="auto", tools=SEED_WEATHER, why=VLLM_SPLITS_NO_REASONING))
add("seed_oss/vllm/budget_0_reflections", Case(
    "seed_oss", "<seed:think>" + SEED_BUDGET_0 + "</seed:think>\n" + SEED_CALL, SEED_BARCELONA,
    content=None, reasoning=SEED_BUDGET_0, thinking="auto", tools=SEED_WEATHER, why=VLLM_SPLITS_NO_REASONING))
# Seed-OSS spells a call out while thinking, closes its reasoning, then calls: one call.
add("seed_oss/vllm/unlimited_budget_call_quoted_in_reasoning", Case(
    "seed_oss", "<seed:think>" + SEED_UNLIMITED + "</seed:think>" + SEED_QUOTED_CALL,
    [("get_weather", {"location": "Barcelona, Spain", "unit": "celsius"})],
    content=None, reasoning=SEED_UNLIMITED, thinking="auto", tools=SEED_WEATHER),
    xfail="the call token written while thinking ends the reasoning, so the call the model quotes there is read as a "
    "second call and the rest of its reasoning, </seed:think> included, lands in content")
add("seed_oss/vllm/unlimited_budget_no_recovery", Case(
    "seed_oss", "<seed:think>" + SEED_UNLIMITED + "</seed:think>" + SEED_QUOTED_CALL,
    [("get_weather", {"location": "Barcelona, Spain", "unit": "celsius"})],
    content=None, reasoning=SEED_UNLIMITED, thinking="auto", tools=SEED_WEATHER, options={"recover_calls_in_reasoning": False},
    why="the same output with recover_calls_in_reasoning=False reads as the peer does"))

SF = fn("special_function", ["arg1"], arg1=I)
SFO = fn("special_function_with_opt", ["arg1"], arg1=I, arg2=I)
TODO_LIST = fn("todo_list", ["todos"], todos={"type": "array"})
EDIT = fn("edit", ["filename", "oldString", "newString"], filename=S, oldString=S, newString=S)
PYTHON = fn("python", ["code"], code=S)
HTML = fn("html", ["markup"], markup=S)
RUN = fn("run_in_terminal", ["command"], command=S)
TODOS = [{"item": "Check stuff", "selected": False}, {"item": "Prepare stuff", "selected": True}]
TODOS_JSON = '[{"item": "Check stuff", "selected": false}, {"item": "Prepare stuff", "selected": true}]'

add("seed_oss/llama.cpp/content", Case("seed_oss", "Hello, world!\nWhat's up?", [], content="Hello, world!\nWhat's up?", thinking="auto"))
add("seed_oss/llama.cpp/reasoning_then_content", Case(
    "seed_oss", "<seed:think>I'm thinking about the answer</seed:think>\nHello, world!", [],
    content="\nHello, world!", reasoning="I'm thinking about the answer", thinking="auto",
    why="verbatim: the newline the model wrote after </seed:think> stays in the content"))
add("seed_oss/llama.cpp/call", Case(
    "seed_oss", "<seed:tool_call>\n<function=special_function>\n<parameter=arg1>1</parameter>\n</function>\n</seed:tool_call>",
    [("special_function", {"arg1": 1})], content=None, thinking="auto", tools=[SF]))
add("seed_oss/llama.cpp/parallel", Case(
    "seed_oss",
    "<seed:tool_call>\n<function=special_function>\n<parameter=arg1>1</parameter>\n</function>\n</seed:tool_call>\n"
    "<seed:tool_call>\n<function=special_function_with_opt>\n<parameter=arg1>1</parameter>\n<parameter=arg2>2</parameter>\n"
    "</function>\n</seed:tool_call>",
    [("special_function", {"arg1": 1}), ("special_function_with_opt", {"arg1": 1, "arg2": 2})], content=None, thinking="auto", tools=[SF, SFO]))
add("seed_oss/llama.cpp/array_of_objects", Case(
    "seed_oss", f"<seed:tool_call>\n<function=todo_list>\n<parameter=todos>{TODOS_JSON}</parameter>\n</function>\n</seed:tool_call>",
    [("todo_list", {"todos": TODOS})], content=None, thinking="auto", tools=[TODO_LIST]))
add("seed_oss/llama.cpp/values_with_quotes_and_newlines", Case(
    "seed_oss",
    "<seed:tool_call>\n<function=edit>\n<parameter=filename>\nfoo.cpp\n</parameter>\n"
    "<parameter=oldString>def foo(arg = \"14\"):\n    return arg + \"bar\"\n\n</parameter>\n"
    "<parameter=newString>def foo(arg = \"15\"):\n    pass\n\n</parameter>\n</function>\n</seed:tool_call>",
    [("edit", {"filename": "\nfoo.cpp\n", "oldString": 'def foo(arg = "14"):\n    return arg + "bar"\n\n', "newString": 'def foo(arg = "15"):\n    pass\n\n'})],
    content=None, thinking="auto", tools=[EDIT],
    why="Seed-OSS's template writes a value with no padding, so the newlines around it are the model's and stay "
    "(llama.cpp strips one at each end)"))

# --------------------------------------------------------------------------------------------
# glm47: vLLM test_glm47_moe_tool_parser.py / test_glm47_final_delta_bug.py, SGLang
# test_glm47_moe_detector.py, llama.cpp GLM-4.7-Flash
# --------------------------------------------------------------------------------------------
GLM_TOOLS = [fn("get_current_date"), fn("get_weather", city=S, date=S)]
GLM_WEATHER = [fn("get_weather", ["city", "date"], city=S, date=S)]
BEIJING = '<tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value><arg_key>date</arg_key><arg_value>2024-06-27</arg_value></tool_call>'
SHANGHAI = '<tool_call>get_weather<arg_key>city</arg_key><arg_value>Shanghai</arg_value><arg_key>date</arg_key><arg_value>2024-06-28</arg_value></tool_call>'


def glm(text, calls, tools=GLM_TOOLS, **kw):
    return Case("glm47", text, calls, **kw, tools=tools)


add("glm47/vllm/no_tool_call", glm("This is a plain response.", [], content="This is a plain response."))
add("glm47/vllm/zero_arg_inline", glm("<tool_call>get_current_date</tool_call>", [("get_current_date", {})], content=None))
add("glm47/vllm/zero_arg_newline", glm("<tool_call>get_current_date\n</tool_call>", [("get_current_date", {})]))
add("glm47/vllm/args_same_line", glm("<tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call>", [("get_weather", {"city": "Beijing"})]))
add("glm47/vllm/args_with_newlines", glm("<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n</tool_call>", [("get_weather", {"city": "Beijing"})]))
add("glm47/vllm/content_before", glm("Checking.<tool_call>get_current_date</tool_call>", [("get_current_date", {})], content="Checking."))
add("glm47/vllm/multiple", glm(
    "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call>"
    "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Shanghai</arg_value></tool_call>",
    [("get_weather", {"city": "Beijing"}), ("get_weather", {"city": "Shanghai"})]))
add("glm47/vllm/whitespace_content_none", glm("  \n  <tool_call>get_current_date</tool_call>", [("get_current_date", {})], content=None))
add("glm47/vllm/streamed_arguments", glm(
    "<tool_call>get_weather\n<arg_key>city</arg_key><arg_value>Beijing</arg_value><arg_key>date</arg_key><arg_value>2025-08-01</arg_value></tool_call>",
    [("get_weather", {"city": "Beijing", "date": "2025-08-01"})]))
add("glm47/vllm/prefix_of_a_tool_name", glm(
    "<tool_call>get<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call>", [], invalid=1,
    why="the peer holds back a name that is only a prefix of a tool's; thinkgate reports a call to an unknown tool as invalid"))
add("glm47/vllm/calls_while_thinking", glm(
    "<tool_call>get_current_date</tool_call>", [("get_current_date", {})], content=None, reasoning=None, thinking=True))

add("glm47/sglang/single", glm(BEIJING, [("get_weather", {"city": "Beijing", "date": "2024-06-27"})], content=None, tools=GLM_WEATHER))
add("glm47/sglang/multiple", glm(BEIJING + SHANGHAI, [("get_weather", {"city": "Beijing", "date": "2024-06-27"}), ("get_weather", {"city": "Shanghai", "date": "2024-06-28"})], content=None, tools=GLM_WEATHER))
add("glm47/sglang/no_arg_function", glm("<tool_call>list_filenames</tool_call>", [("list_filenames", {})], tools=[fn("list_filenames")]))
add("glm47/sglang/unknown_function", glm(
    "<tool_call>invalid_func<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call>", [], invalid=1, tools=GLM_WEATHER))
add("glm47/sglang/undefined_tool", glm(
    "<tool_call>nonexistent_function<arg_key>param</arg_key><arg_value>value</arg_value></tool_call>", [], invalid=1, tools=GLM_WEATHER))
TODO_WRITE = [fn("todo_write", ["todos"], todos={"type": "array"})]
TODOS4 = [
    {"id": "1", "task": "Check for hard-coded issues in the backend code", "status": "in_progress"},
    {"id": "2", "task": "Check for hard-coded issues in the frontend code", "status": "pending"},
    {"id": "3", "task": "Check for code violating the Single Responsibility Principle", "status": "pending"},
    {"id": "4", "task": "Generate a rectification proposal report", "status": "pending"},
]
add("glm47/sglang/array_argument", glm(
    f"<tool_call>todo_write<arg_key>todos</arg_key><arg_value>{json.dumps(TODOS4)}</arg_value>\n</tool_call>",
    [("todo_write", {"todos": TODOS4})], tools=TODO_WRITE))
add("glm47/sglang/array_argument_backslash_quotes", glm(
    "<tool_call>todo_write<arg_key>todos</arg_key><arg_value>" + json.dumps(TODOS4).replace('"', '\\"') + "</arg_value>\n</tool_call>",
    [], invalid=1, tools=TODO_WRITE,
    why='an array value written with \\" for every quote is not JSON: thinkgate reports the call invalid where SGLang unescapes it'))
add("glm47/sglang/array_argument_windows_path", glm(
    '<tool_call>todo_write<arg_key>todos</arg_key><arg_value>[{"id": "1", "task": "Check file at C:\\\\\\\\Users\\\\\\\\test.txt", '
    '"status": "pending"}]</arg_value></tool_call>',
    [("todo_write", {"todos": [{"id": "1", "task": "Check file at C:\\\\Users\\\\test.txt", "status": "pending"}]})], tools=TODO_WRITE,
    why="the JSON value is decoded once (four backslashes are two); SGLang expects one, decoding twice"))
add("glm47/sglang/array_argument_backslash_n", glm(
    '<tool_call>todo_write<arg_key>todos</arg_key><arg_value>[{"id": "1", "task": "Print \\\\\\\\n to see newline","status": "pending"}]</arg_value></tool_call>',
    [("todo_write", {"todos": [{"id": "1", "task": "Print \\\\n to see newline", "status": "pending"}]})], tools=TODO_WRITE,
    why="the JSON value is decoded once; SGLang expects it decoded twice"))
add("glm47/sglang/split_name_and_values", glm(
    "I'll create a task.<tool_call>create_task<arg_key>title</arg_key><arg_value>Go to Beijing</arg_value>"
    "<arg_key>location</arg_key><arg_value>San Francisco</arg_value></tool_call>",
    [("create_task", {"title": "Go to Beijing", "location": "San Francisco"})], content="I'll create a task.",
    tools=[fn("create_task", title=S, location=S)]))
add("glm47/sglang/noarg_then_call", glm(
    "<tool_call>list_files</tool_call><tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call>",
    [("list_files", {}), ("get_weather", {"city": "Beijing"})], tools=[fn("list_files"), fn("get_weather", city=S)]))
add("glm47/sglang/numbers_and_json", glm(
    '<tool_call>create_todos<arg_key>priority</arg_key><arg_value>5.5</arg_value><arg_key>count</arg_key><arg_value>10</arg_value>'
    '<arg_key>items</arg_key><arg_value>[{"description": "TestTodo 1"}, {"description": "TestTodo 2"}]</arg_value></tool_call>',
    [("create_todos", {"priority": 5.5, "count": 10, "items": [{"description": "TestTodo 1"}, {"description": "TestTodo 2"}]})],
    tools=[fn("create_todos", priority=N, count=I, items={"type": "array"})]))
for i, prefix in enumerate(["Sure, let me help.", "结构：", "问题。", "Complete!", "说明；"]):
    # the output stops inside the call's name: the text before it is the content
    add(f"glm47/sglang/text_before_call_{i}", glm(
        prefix + "<tool_call>list_dir", [], content=prefix, invalid=1, tools=[fn("list_dir", path=S)]))
add("glm47/sglang/empty_value", glm(
    "<tool_call>create_note<arg_key>title</arg_key><arg_value>Test</arg_value><arg_key>content</arg_key><arg_value></arg_value></tool_call>",
    [("create_note", {"title": "Test", "content": ""})], tools=[fn("create_note", title=S, content=S)]))
add("glm47/sglang/value_split_by_chars", glm(
    "<tool_call>search<arg_key>query</arg_key><arg_value>New York</arg_value></tool_call>", [("search", {"query": "New York"})], tools=[fn("search", query=S)]))
EXEC = [fn("execute_command", command=S)]
add("glm47/sglang/single_quotes", glm(
    "<tool_call>execute_command<arg_key>command</arg_key><arg_value>echo 'Hello World'</arg_value></tool_call>",
    [("execute_command", {"command": "echo 'Hello World'"})], tools=EXEC))
add("glm47/sglang/ampersand", glm(
    "<tool_call>execute_command<arg_key>command</arg_key><arg_value>echo Hello & World</arg_value></tool_call>",
    [("execute_command", {"command": "echo Hello & World"})], tools=EXEC))
NESTED = {"level1": {"level2": {"level3": {"level4": {"value": "deep"}}}}}
add("glm47/sglang/deeply_nested", glm(
    f"<tool_call>process_data<arg_key>data</arg_key><arg_value>{json.dumps(NESTED)}</arg_value></tool_call>",
    [("process_data", {"data": NESTED})], tools=[fn("process_data", data={"type": "object"})]))
add("glm47/sglang/empty_structures", glm(
    "<tool_call>create_structure<arg_key>empty_obj</arg_key><arg_value>{}</arg_value><arg_key>empty_arr</arg_key><arg_value>[]</arg_value></tool_call>",
    [("create_structure", {"empty_obj": {}, "empty_arr": []})], tools=[fn("create_structure", empty_obj={"type": "object"}, empty_arr={"type": "array"})]))
add("glm47/sglang/three_params", glm(
    "<tool_call>multi_param<arg_key>a</arg_key><arg_value>1</arg_value><arg_key>b</arg_key><arg_value>2</arg_value>"
    "<arg_key>c</arg_key><arg_value>3</arg_value></tool_call>",
    [("multi_param", {"a": "1", "b": "2", "c": "3"})], tools=[fn("multi_param", a=S, b=S, c=S)]))
add("glm47/sglang/text_around_call", glm(
    "First I'll do this.<tool_call>action</tool_call>Then I'll do that.", [("action", {})],
    content="First I'll do this.Then I'll do that.", tools=[fn("action")]))
add("glm47/sglang/number_edge_values", glm(
    "<tool_call>calculate<arg_key>zero</arg_key><arg_value>0</arg_value><arg_key>negative</arg_key><arg_value>-42.5</arg_value>"
    "<arg_key>large</arg_key><arg_value>1e10</arg_value></tool_call>",
    [("calculate", {"zero": 0, "negative": -42.5, "large": 1e10})], tools=[fn("calculate", zero=N, negative=N, large=N)]))
add("glm47/sglang/numeric_strings", glm(
    "<tool_call>store_data<arg_key>id</arg_key><arg_value>12345</arg_value><arg_key>code</arg_key><arg_value>67.89</arg_value></tool_call>",
    [("store_data", {"id": "12345", "code": "67.89"})], tools=[fn("store_data", id=S, code=S)]))
add("glm47/sglang/incomplete_at_end", glm(
    "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing", [], invalid=1, tools=GLM_WEATHER))

add("glm47/llama.cpp/content", glm("Hello, world!\nWhat's up?", [], content="Hello, world!\nWhat's up?", tools=None))
add("glm47/llama.cpp/reasoning_then_content", glm(
    "I'm\nthinking</think>Hello, world!\nWhat's up?", [], content="Hello, world!\nWhat's up?", reasoning="I'm\nthinking", thinking=True, tools=None))
add("glm47/llama.cpp/call", glm(
    "<tool_call>special_function<arg_key>arg1</arg_key><arg_value>1</arg_value></tool_call>", [("special_function", {"arg1": 1})], content=None, tools=[SF]))
add("glm47/llama.cpp/reasoning_then_call", glm(
    "I'm\nthinking</think><tool_call>special_function<arg_key>arg1</arg_key><arg_value>1</arg_value></tool_call>",
    [("special_function", {"arg1": 1})], content=None, reasoning="I'm\nthinking", thinking=True, tools=[SF]))
add("glm47/llama.cpp/parallel", glm(
    "<tool_call>special_function<arg_key>arg1</arg_key><arg_value>1</arg_value></tool_call>"
    "<tool_call>special_function_with_opt<arg_key>arg1</arg_key><arg_value>1</arg_value><arg_key>arg2</arg_key><arg_value>2</arg_value></tool_call>",
    [("special_function", {"arg1": 1}), ("special_function_with_opt", {"arg1": 1, "arg2": 2})], tools=[SF, SFO]))
add("glm47/llama.cpp/no_arguments_written", glm(
    "Let me read the diff content.</think><tool_call>read_file_diff_md</tool_call>", [("read_file_diff_md", {})],
    reasoning="Let me read the diff content.", thinking=True, tools=[fn("read_file_diff_md", review_id=S, file_id=S)]))
add("glm47/llama.cpp/trailing_newline", glm(
    "Thinking.\n</think><tool_call>get_weather<arg_key>city</arg_key><arg_value>Tokyo</arg_value></tool_call>\n",
    [("get_weather", {"city": "Tokyo"})], reasoning="Thinking.\n", thinking=True, tools=[fn("get_weather", ["city"], city=S)],
    why="llama.cpp's strict parser rejects this output (the newline after the call); thinkgate reads the call"))

# --------------------------------------------------------------------------------------------
# qwen3_5 (Qwen3-Coder's calls): vLLM test_qwen3coder_tool_parser.py, test_qwen3_xml_coder_shared.py,
# test_qwen36_bugs.py; SGLang test_qwen3_coder_detector/; llama.cpp Qwen3.5, Qwen3-Coder, Nemotron-3-Nano
# --------------------------------------------------------------------------------------------
WEATHER_PARAMS = {"city": S, "state": S, "unit": {"type": "string", "enum": ["fahrenheit", "celsius"]}}
QWEN_TOOLS = [fn("get_current_weather", ["city", "state"], **WEATHER_PARAMS), fn("calculate_area", shape=S, dimensions={"type": "object"}, precision=I)]
DALLAS = (
    "<tool_call>\n<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n<parameter=state>\nTX\n</parameter>\n"
    "<parameter=unit>\nfahrenheit\n</parameter>\n</function>\n</tool_call>"
)
DALLAS_ARGS = ("get_current_weather", {"city": "Dallas", "state": "TX", "unit": "fahrenheit"})
DALLAS_NO_CLOSE = (
    "Let me check the weather for you:\n<tool_call>\n<function=get_current_weather>\n<parameter=city>\nDallas\n<parameter=state>\nTX\n"
    "</parameter>\n<parameter=unit>\nfahrenheit\n</parameter>\n</function>\n</tool_call>"
)


def qwen(text, calls, tools=QWEN_TOOLS, **kw):
    return Case("qwen3_5", text, calls, **kw, tools=tools)


add("qwen3_5/vllm/no_tools", qwen("This is a test response without any tool calls", [], content="This is a test response without any tool calls"))
add("qwen3_5/vllm/single_tool", qwen(DALLAS, [DALLAS_ARGS], content=None))
add("qwen3_5/vllm/single_tool_with_content", qwen("Sure! Let me check the weather for you." + DALLAS, [DALLAS_ARGS], content="Sure! Let me check the weather for you."))
add("qwen3_5/vllm/multiline_param", qwen(
    '<tool_call>\n<function=calculate_area>\n<parameter=shape>\nrectangle\n</parameter>\n<parameter=dimensions>\n{"width": 10, \n "height": 20}\n'
    "</parameter>\n<parameter=precision>\n2\n</parameter>\n</function>\n</tool_call>",
    [("calculate_area", {"shape": "rectangle", "dimensions": {"width": 10, "height": 20}, "precision": 2})], content=None))
add("qwen3_5/vllm/parallel_tools", qwen(
    DALLAS + "\n" + DALLAS.replace("Dallas", "Orlando").replace("TX", "FL").replace("fahrenheit", "celsius"),
    [DALLAS_ARGS, ("get_current_weather", {"city": "Orlando", "state": "FL", "unit": "celsius"})], content=None))
add("qwen3_5/vllm/typed_params_with_content", qwen(
    'Let me calculate that area for you.<tool_call>\n<function=calculate_area>\n<parameter=shape>\ncircle\n</parameter>\n'
    '<parameter=dimensions>\n{"radius": 15.5}\n</parameter>\n<parameter=precision>\n3\n</parameter>\n</function>\n</tool_call>',
    [("calculate_area", {"shape": "circle", "dimensions": {"radius": 15.5}, "precision": 3})], content="Let me calculate that area for you."))
add("qwen3_5/vllm/no_tool_call_tags", qwen(
    "<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n<parameter=state>\nTX\n</parameter>\n</function>",
    [("get_current_weather", {"city": "Dallas", "state": "TX"})]))
add("qwen3_5/vllm/no_opening_tag_after_text", qwen(
    "I'll check the weather for you.\n\n<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n<parameter=state>\nTX\n"
    "</parameter>\n<parameter=unit>\nfahrenheit\n</parameter>\n</function>\n</tool_call>",
    [DALLAS_ARGS], content="I'll check the weather for you.\n\n"))
TEST_TYPES = [fn("test_types", int_param=I, float_param={"type": "float"}, bool_param={"type": "boolean"}, str_param=S, obj_param={"type": "object"})]
add("qwen3_5/vllm/type_conversion", qwen(
    "<tool_call>\n<function=test_types>\n<parameter=int_param>\n42\n</parameter>\n<parameter=float_param>\n3.14\n</parameter>\n"
    "<parameter=bool_param>\ntrue\n</parameter>\n<parameter=str_param>\nhello world\n</parameter>\n<parameter=obj_param>\n"
    '{"key": "value"}\n</parameter>\n</function>\n</tool_call>',
    [("test_types", {"int_param": 42, "float_param": "3.14", "bool_param": True, "str_param": "hello world", "obj_param": {"key": "value"}})],
    tools=TEST_TYPES,
    why='"float" is no JSON Schema type: the schema is not valid, so its value stays the text written (vLLM reads 3.14)'))
add("qwen3_5/vllm/object_as_python_repr", qwen(
    "<tool_call>\n<function=test_types>\n<parameter=obj_param>\n{'key': 'value'}\n</parameter>\n</function>\n</tool_call>",
    [("test_types", {"obj_param": "{'key': 'value'}"})], tools=TEST_TYPES,
    why="a Python literal is not JSON: the value stays text (this tool's schema is not valid, so it is not checked); vLLM evaluates it"))
add("qwen3_5/vllm/object_as_python_repr_checked", qwen(
    "<tool_call>\n<function=test_types>\n<parameter=obj_param>\n{'key': 'value'}\n</parameter>\n</function>\n</tool_call>",
    [], invalid=1, tools=[fn("test_types", obj_param={"type": "object"})],
    why="a Python literal is not JSON: with a valid schema the call breaks it and is reported invalid; vLLM evaluates it"))
ANYOF_TOOLS = [fn(
    "test_anyof",
    anyof_int={"anyOf": [I, {"type": "null"}], "default": 5}, anyof_str={"anyOf": [S, {"type": "null"}]},
    anyof_array={"anyOf": [{"type": "array", "items": S}, {"type": "null"}]}, anyof_obj={"anyOf": [{"type": "object"}, {"type": "null"}]},
    type_as_array={"type": ["integer", "null"]}, multi_non_null={"anyOf": [S, I, {"type": "null"}]},
)]
add("qwen3_5/vllm/anyof_types", qwen(
    "<tool_call>\n<function=test_anyof>\n<parameter=anyof_int>\n5\n</parameter>\n<parameter=anyof_str>\nhello\n</parameter>\n"
    '<parameter=anyof_array>\n["a", "b", "c"]\n</parameter>\n<parameter=anyof_obj>\n{"key": "value"}\n</parameter>\n'
    "<parameter=type_as_array>\n42\n</parameter>\n<parameter=multi_non_null>\nsome text\n</parameter>\n</function>\n</tool_call>",
    [("test_anyof", {"anyof_int": 5, "anyof_str": "hello", "anyof_array": ["a", "b", "c"], "anyof_obj": {"key": "value"}, "type_as_array": 42, "multi_non_null": "some text"})],
    tools=ANYOF_TOOLS))
add("qwen3_5/vllm/anyof_types_streamed", qwen(
    "<tool_call>\n<function=search_web>\n<parameter=query>\nvllm tool parser\n</parameter>\n<parameter=count>\n10\n</parameter>\n"
    "<parameter=verbose>\ntrue\n</parameter>\n</function>\n</tool_call>",
    [("search_web", {"query": "vllm tool parser", "count": 10, "verbose": True})],
    tools=[fn("search_web", query={"anyOf": [S, {"type": "null"}]}, count={"anyOf": [I, {"type": "null"}], "default": 5}, verbose={"anyOf": [{"type": "boolean"}, {"type": "null"}]})]))
add("qwen3_5/vllm/missing_closing_parameter_tag", qwen(
    DALLAS_NO_CLOSE, [], content="Let me check the weather for you:\n", invalid=1,
    why="a parameter with no closing tag is malformed markup: the call is reported invalid with its text (vLLM and SGLang "
    "close the value at the next <parameter=)"))
add("qwen3_5/vllm/incremental", qwen(
    "I'll check the weather.<tool_call>\n<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n<parameter=state>\nTX\n"
    "</parameter>\n</function>\n</tool_call>",
    [("get_current_weather", {"city": "Dallas", "state": "TX"})], content="I'll check the weather."))
add("qwen3_5/vllm/header_without_gt", qwen(
    "<tool_call>\n<function=get_current_weather\n<parameter=city>Dallas</parameter>\n</function>\n</tool_call>", [], invalid=1))
add("qwen3_5/vllm/bad_call_then_good_call", qwen(
    "<tool_call>\n<function=bad_func_no_gt\n</function>\n</tool_call>\n<tool_call>\n<function=get_current_weather>\n"
    "<parameter=city>Dallas</parameter>\n<parameter=state>TX</parameter>\n</function>\n</tool_call>",
    [("get_current_weather", {"city": "Dallas", "state": "TX"})], invalid=1))
UPDATE = [fn("update_record", data={"anyOf": [{"type": "object"}, {"type": "null"}]})]
add("qwen3_5/vllm/anyof_object_not_double_encoded", qwen(
    '<tool_call>\n<function=update_record>\n<parameter=data>{"key": "value", "count": 42}</parameter>\n</function>\n</tool_call>',
    [("update_record", {"data": {"key": "value", "count": 42}})], tools=UPDATE))
add("qwen3_5/vllm/multi_param_one_chunk", qwen(
    "<tool_call>\n<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n<parameter=state>\nTX\n</parameter>\n"
    "<parameter=unit>\nfahrenheit\n</parameter>\n</function>\n</tool_call>", [DALLAS_ARGS]))
add("qwen3_5/vllm/string_not_double_serialized", qwen(
    "<tool_call>\n<function=greet>\n<parameter=message>hello world</parameter>\n</function>\n</tool_call>",
    [("greet", {"message": "hello world"})], tools=[fn("greet", message=S)]))
add("qwen3_5/vllm/params_and_end_in_one_delta", qwen(
    "<tool_call>\n<function=test>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>", [("test", {"city": "Paris"})], tools=None))
add("qwen3_5/vllm/string_null_kept", qwen(
    "<tool_call>\n<function=search>\n<parameter=query>null</parameter>\n</function>\n</tool_call>", [("search", {"query": "null"})], tools=[fn("search", query=S)]))
add("qwen3_5/vllm/anyof_string_null_numeric_text", qwen(
    "<tool_call>\n<function=set_code>\n<parameter=code>42</parameter>\n</function>\n</tool_call>",
    [("set_code", {"code": "42"})], tools=[fn("set_code", code={"anyOf": [S, {"type": "null"}]})]))
NULLABLE_INT = [fn("set_count", count={"anyOf": [I, {"type": "null"}]})]
add("qwen3_5/vllm/anyof_integer_null", qwen(
    "<tool_call>\n<function=set_count>\n<parameter=count>42</parameter>\n</function>\n</tool_call>", [("set_count", {"count": 42})], tools=NULLABLE_INT))
add("qwen3_5/vllm/python_none_for_nullable_int", qwen(
    "<tool_call>\n<function=set_count>\n<parameter=count>None</parameter>\n</function>\n</tool_call>", [("set_count", {"count": None})], tools=NULLABLE_INT))
for literal in ("null", "None"):
    add(f"qwen3_5/vllm/anyof_string_null_{literal}", qwen(
        f"<tool_call>\n<function=set_value>\n<parameter=optional>{literal}</parameter>\n</function>\n</tool_call>",
        [("set_value", {"optional": None})], tools=[fn("set_value", optional={"anyOf": [S, {"type": "null"}]})]))
add("qwen3_5/vllm/object_double_encoded_repr", qwen(
    "<tool_call>\n<function=process>\n<parameter=name>\nhello\n</parameter>\n<parameter=data>\n\"{'key': 'value', 'n': 1}\"\n</parameter>\n"
    "</function>\n</tool_call>\n",
    [], invalid=1, tools=[fn("process", name=S, data={"type": "object"})],
    why="an object written as a JSON string of a Python literal breaks the schema: reported invalid, not decoded twice"))
add("qwen3_5/vllm/array_with_json_bool", qwen(
    '<tool_call>\n<function=pick>\n<parameter=items>\n["a", "b", 1, true]\n</parameter>\n</function>\n</tool_call>',
    [("pick", {"items": ["a", "b", 1, True]})], tools=[fn("pick", items={"type": "array"})]))
GET_WEATHER = [fn("get_weather", city=S)]
TWO_CALLS = (
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>\n"
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nLondon\n</parameter>\n</function>\n</tool_call>"
)
add("qwen3_5/vllm/two_calls_one_chunk", qwen(TWO_CALLS, [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "London"})], tools=GET_WEATHER))
add("qwen3_5/vllm/two_calls_and_trailing_text", qwen(
    TWO_CALLS + "\nAll done!", [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "London"})], content="\nAll done!", tools=GET_WEATHER))
add("qwen3_5/vllm/trailing_text_after_close", qwen(
    "<tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n</function>\n</tool_call>\nI hope this helps!",
    [("get_weather", {"city": "Paris"})], content="\nI hope this helps!", tools=GET_WEATHER))
WRITE_FILE = [fn("write_file", path=S, content=S)]


def write_file(path, content):
    return f"<tool_call>\n<function=write_file>\n<parameter=path>\n{path}\n</parameter>\n<parameter=content>\n{content}</parameter>\n</function>\n</tool_call>"


TAGS_IN_VALUE = 'char_deltas = [\n    "<tool_call>\\n",\n    "<parameter=query>\\n",\n    "\\n</parameter>\\n",\n    "</function>\\n",\n]\n'
PARAM_LINES_IN_VALUE = 'TOOL_CALL_TEMPLATE = """\n</parameter>\n<parameter=new_string>\n#!/usr/bin/env python3\n</parameter>\n"""\n'
SAME_NAME_IN_VALUE = 'doc = """\n<parameter=path>\nliteral/value\n</parameter>\n"""\n'
CALL_IN_VALUE = (
    'doc = """\n<tool_call>\n<function=write_file>\n<parameter=path>\nliteral/value.txt\n</parameter>\n<parameter=content>\nhello\n'
    '</parameter>\n</function>\n</tool_call>\n"""\n'
)
OTHER_CALL_IN_VALUE = 'template = """\n<tool_call>\n<function=foo>\n<parameter=bar>baz</parameter>\n</function>\n</tool_call>\n"""\n'
MARKUP_IN_VALUE = "a file whose text holds the call markup is one call with that text as its value"
add("qwen3_5/vllm/markers_inside_a_value", qwen(
    write_file("test.py", TAGS_IN_VALUE) + "\n", [("write_file", {"path": "test.py", "content": TAGS_IN_VALUE[:-1]})], tools=WRITE_FILE))
add("qwen3_5/vllm/parameter_lines_inside_a_value", qwen(
    write_file("test_template.py", PARAM_LINES_IN_VALUE) + "\n",
    [("write_file", {"path": "test_template.py", "content": PARAM_LINES_IN_VALUE[:-1]})], content=None, tools=WRITE_FILE))
add("qwen3_5/vllm/same_parameter_name_inside_a_value", qwen(
    write_file("fixture.py", SAME_NAME_IN_VALUE), [("write_file", {"path": "fixture.py", "content": SAME_NAME_IN_VALUE[:-1]})], tools=WRITE_FILE))
add("qwen3_5/vllm/whole_call_inside_a_value", qwen(
    write_file("fixture.py", CALL_IN_VALUE), [("write_file", {"path": "fixture.py", "content": CALL_IN_VALUE[:-1]})], content=None, tools=WRITE_FILE))
add("qwen3_5/vllm/call_to_unlisted_tool_then_call_inside_a_value", qwen(
    "<tool_call>\n<function=foo>\n<parameter=bar>baz</parameter>\n</function>\n</tool_call>\n\n" + write_file("fixture.py", OTHER_CALL_IN_VALUE),
    [("write_file", {"path": "fixture.py", "content": OTHER_CALL_IN_VALUE[:-1]})], content=None, invalid=1, tools=WRITE_FILE))
add("qwen3_5/vllm/unrendered_jinja_call_rejected", qwen(
    "<tool_call>\n<function={{ tc.name }}>\n<parameter={{ k }}>\n{{ v }}\n</parameter>\n</function>\n</tool_call>\n\n" + write_file("out.txt", "hello\n"),
    [("write_file", {"path": "out.txt", "content": "hello"})], invalid=1, tools=WRITE_FILE))
add("qwen3_5/vllm/inline_empty_tool_call_keeps_text", qwen(
    "I'll show: <tool_call>example</tool_call>. Now real:\n<tool_call>\n<function=log>\n<parameter=msg>\nhi\n</parameter>\n</function>\n</tool_call>",
    [("log", {"msg": "hi"})], content="I'll show: . Now real:\n", invalid=1, tools=[fn("log", msg=S)],
    why="the text of the empty <tool_call> block is kept in invalid_tool_calls rather than in content"))

SGL_TOOLS = [
    fn("get_current_weather", ["location"], location=S, unit={"type": "string", "enum": ["celsius", "fahrenheit"]}, days=I),
    fn("sql_interpreter", query=S, dry_run={"type": "boolean"}),
    fn("TodoWrite", todos={"type": "array", "items": {"type": "object", "properties": {"content": S, "status": S}, "required": ["content", "status"]}}),
]
BOSTON = "<function=get_current_weather>\n<parameter=location>Boston</parameter>\n<parameter=unit>celsius</parameter>\n<parameter=days>3</parameter>\n</function>"
add("qwen3_5/sglang/plain_text", qwen("This is plain text test", [], content="This is plain text test", tools=SGL_TOOLS))
add("qwen3_5/sglang/single_tool_call", qwen(BOSTON, [("get_current_weather", {"location": "Boston", "unit": "celsius", "days": 3})], content=None, tools=SGL_TOOLS))
add("qwen3_5/sglang/single_tool_call_with_text", qwen(
    "Text prefix + tool call test\n\n" + BOSTON, [("get_current_weather", {"location": "Boston", "unit": "celsius", "days": 3})],
    content="Text prefix + tool call test\n\n", tools=SGL_TOOLS,
    why="verbatim: the content is the text the model wrote (SGLang's expectation adds four spaces)"))
add("qwen3_5/sglang/double_tool_call_python_bool", qwen(
    "Text prefix + double tool call test\n\n<function=get_current_weather>\n<parameter=location>New York</parameter>\n</function>\n"
    "<function=sql_interpreter>\n<parameter=query>SELECT * FROM users</parameter>\n<parameter=dry_run>True</parameter>\n</function>\n",
    [("get_current_weather", {"location": "New York"}), ("sql_interpreter", {"query": "SELECT * FROM users", "dry_run": True})],
    content="Text prefix + double tool call test\n\n", tools=SGL_TOOLS))
add("qwen3_5/sglang/random_fragmentation", qwen(
    "Text prefix + random fragmentation stress test\n\n<function=get_current_weather>\n<parameter=location>San Francisco</parameter>\n</function>",
    [("get_current_weather", {"location": "San Francisco"})], content="Text prefix + random fragmentation stress test\n\n", tools=SGL_TOOLS))
add("qwen3_5/sglang/implicit_parameter_close", qwen(
    "Text prefix + implicit parameter close test\n\n<function=get_current_weather>\n<parameter=location>Paris\n<parameter=unit>celsius\n"
    "<parameter=days>3\n</function>",
    [], content="Text prefix + implicit parameter close test\n\n", invalid=1, tools=SGL_TOOLS,
    why="parameters with no closing tags are malformed markup: the call is reported invalid with its text"))
add("qwen3_5/sglang/python_quotes_in_array", qwen(
    "Text prefix + complex schema tool call test\n\n<function=TodoWrite>\n<parameter=todos>\n[\n {\"content\": \"Buy a new car\", "
    "\"status\": 'pending'},\n {\"content\": \"Buy a new house\", \"status\": \"completed\"}\n]\n</parameter>\n</function>\n\n",
    [], content="Text prefix + complex schema tool call test\n\n", invalid=1, tools=SGL_TOOLS,
    why="'pending' in single quotes is not JSON: the array value breaks the schema and the call is reported invalid"))

C1 = "<tool_call>\n<function=special_function>\n<parameter=arg1>\n1\n</parameter>\n</function>\n</tool_call>"
C2 = "<tool_call>\n<function=special_function_with_opt>\n<parameter=arg1>\n1\n</parameter>\n<parameter=arg2>\n2\n</parameter>\n</function>\n</tool_call>"
CALL1 = [("special_function", {"arg1": 1})]
BOTH = [("special_function", {"arg1": 1}), ("special_function_with_opt", {"arg1": 1, "arg2": 2})]
HELLO_PY = 'def hello():\n    print("Hello, world!")\n\nhello()'
PWD = "<tool_call>\n<function=run_in_terminal>\n<parameter=command>\npwd\n</parameter>\n</function>\n</tool_call>"
LLAMA_STRIPS = "verbatim: llama.cpp strips the whitespace around reasoning and content"
for src in ("llama.cpp-Qwen3.5", "llama.cpp-Nemotron-3-Nano"):
    nl = "\n\n" if src == "llama.cpp-Qwen3.5" else "\n"  # what each template writes after </think>
    tail = "" if src == "llama.cpp-Qwen3.5" else "\n"
    p = f"qwen3_5/{src}/"
    add(p + "reasoning_then_content", qwen(
        f"I'm\nthinking\n</think>{nl}Hello, world!\nWhat's up?", [], content=nl + "Hello, world!\nWhat's up?", reasoning="I'm\nthinking\n",
        thinking=True, tools=None, why=LLAMA_STRIPS))
    add(p + "call", qwen(C1 + tail, CALL1, content=None, tools=[SF]))
    add(p + "reasoning_then_call", qwen(
        f"I'm\nthinking\n</think>{nl[:1]}" + C1 + tail, CALL1, content=None, reasoning="I'm\nthinking\n", thinking=True, tools=[SF], why=LLAMA_STRIPS))
    add(p + "parallel", qwen(C1 + "\n" + C2 + tail, BOTH, tools=[SF, SFO]))
    add(p + "multiline_code", qwen(
        f"<tool_call>\n<function=python>\n<parameter=code>\n{HELLO_PY}\n</parameter>\n</function>\n</tool_call>" + tail,
        [("python", {"code": HELLO_PY})], tools=[PYTHON]))
add("qwen3_5/llama.cpp-Qwen3.5/edit", qwen(
    "<tool_call>\n<function=edit>\n<parameter=filename>\nfoo.c\n</parameter>\n<parameter=oldString>\n#iclunde\n</parameter>\n"
    "<parameter=newString>\n#include\n</parameter>\n</function>\n</tool_call>",
    [("edit", {"filename": "foo.c", "oldString": "#iclunde", "newString": "#include"})], tools=[EDIT]))
add("qwen3_5/llama.cpp-Qwen3.5/value_ending_in_newline", qwen(
    "<tool_call>\n<function=edit>\n<parameter=filename>\nfoo.c\n</parameter>\n<parameter=oldString>\n#iclunde\n</parameter>\n"
    "<parameter=newString>\n#include\n\n</parameter>\n</function>\n</tool_call>",
    [("edit", {"filename": "foo.c", "oldString": "#iclunde", "newString": "#include\n"})], tools=[EDIT]))
add("qwen3_5/llama.cpp-Qwen3.5/code_starting_with_indent", qwen(
    '<tool_call>\n<function=python>\n<parameter=code>\n    print("Hello, world!")\n</parameter>\n</function>\n</tool_call>',
    [("python", {"code": '    print("Hello, world!")'})], tools=[PYTHON]))
add("qwen3_5/llama.cpp-Qwen3.5/call_ends_open_reasoning", qwen(PWD, [("run_in_terminal", {"command": "pwd"})], reasoning=None, thinking=True, tools=[RUN]))
add("qwen3_5/llama.cpp-Qwen3.5/reasoning_then_call_without_close", qwen(
    "Need to inspect the current directory.\n" + PWD, [("run_in_terminal", {"command": "pwd"})],
    reasoning="Need to inspect the current directory.\n", thinking=True, tools=[RUN], why=LLAMA_STRIPS))
add("qwen3_5/llama.cpp-Qwen3.5/no_args", qwen(
    "<tool_call>\n<function=empty_args>\n</function>\n</tool_call>", [("empty_args", {})], tools=[fn("empty_args")]))
add("qwen3_5/llama.cpp-Qwen3.5/no_args_no_properties", qwen(
    "<tool_call>\n<function=empty_args_no_props>\n</function>\n</tool_call>", [("empty_args_no_props", {})],
    tools=[{"type": "function", "function": {"name": "empty_args_no_props", "parameters": {"type": "object"}}}]))
add("qwen3_5/llama.cpp-Qwen3.5/empty_think_block_reopened", qwen(
    "<think>\n\n</think>\n\n" + C1, CALL1, reasoning="\n\n", thinking=True, tools=[SF],
    why="a <think> written inside the reasoning the prompt opened is a marker, not reasoning text (llama.cpp keeps it)"))
add("qwen3_5/llama.cpp-Qwen3.5/empty_reasoning", qwen("</think>\n\n" + C1, CALL1, reasoning=None, thinking=True, tools=[SF]))
add("qwen3_5/llama.cpp-Qwen3.5/empty_reasoning_then_text", qwen(
    "</think>\n\nLet me inspect the current directory.\n" + PWD, [("run_in_terminal", {"command": "pwd"})],
    content="\n\nLet me inspect the current directory.\n", thinking=True, tools=[RUN], why=LLAMA_STRIPS))
add("qwen3_5/llama.cpp-Qwen3.5/reasoning_text_call", qwen(
    "I should inspect the directory.\n</think>\n\nLet me inspect it now.\n" + PWD, [("run_in_terminal", {"command": "pwd"})],
    content="\n\nLet me inspect it now.\n", reasoning="I should inspect the directory.\n", thinking=True, tools=[RUN], why=LLAMA_STRIPS))
add("qwen3_5/llama.cpp-Qwen3.5/json_answer", qwen(
    'I need to output the invoice details in JSON\n</think>\n\n{"amount": 123.45, "date": "2025-12-03"}', [],
    content='\n\n{"amount": 123.45, "date": "2025-12-03"}', reasoning="I need to output the invoice details in JSON\n", thinking=True, tools=None, why=LLAMA_STRIPS))
add("qwen3_5/llama.cpp-Qwen3.5/flashcards_extra_brace", qwen(
    'I will make flashcards.\n</think>\n\n<tool_call>\n<function=flashcards>\n<parameter=flashcards>\n[{"query": "California", "recall": "Los Angeles"}]}\n'
    "</parameter>\n</function>\n</tool_call>",
    [], reasoning="I will make flashcards.\n", invalid=1, thinking=True, tools=[fn("flashcards", ["flashcards"], flashcards={"type": "array"})],
    why="the value is not JSON (an extra }): the call is reported invalid with its text; llama.cpp passes the raw text on as arguments"))
add("qwen3_5/llama.cpp-Qwen3-Coder/unicode", qwen(
    "<tool_call>\n<function=python>\n<parameter=code>\n格\n</parameter>\n</function>\n</tool_call>", [("python", {"code": "格"})], tools=[PYTHON]))
add("qwen3_5/llama.cpp-Qwen3-Coder/html", qwen(
    "<tool_call>\n<function=html>\n<parameter=markup>\n<html>\n <head>\n  <title>Hello!</title>\n </head>\n</html>\n</parameter>\n</function>\n</tool_call>",
    [("html", {"markup": "<html>\n <head>\n  <title>Hello!</title>\n </head>\n</html>"})], tools=[HTML]))
add("qwen3_5/llama.cpp-Qwen3-Coder/array_of_objects", qwen(
    f"<tool_call>\n<function=todo_list>\n<parameter=todos>\n{TODOS_JSON}\n</parameter>\n</function>\n</tool_call>",
    [("todo_list", {"todos": TODOS})], tools=[TODO_LIST]))
OPT = [fn("tool_2req_5opt", ["req1", "req2"], req1=S, req2=I, opt1=S, opt2=I, opt3=S, opt4=I, opt5=S)]
add("qwen3_5/llama.cpp-Qwen3-Coder/optional_arguments_any_order", qwen(
    "<tool_call>\n<function=tool_2req_5opt>\n<parameter=req1>\ntest\n</parameter>\n<parameter=req2>\n99\n</parameter>\n"
    "<parameter=opt3>\nc\n</parameter>\n<parameter=opt1>\na\n</parameter>\n<parameter=opt5>\ne\n</parameter>\n"
    "<parameter=opt4>\n4\n</parameter>\n<parameter=opt2>\n2\n</parameter>\n</function>\n</tool_call>",
    [("tool_2req_5opt", {"req1": "test", "req2": 99, "opt3": "c", "opt1": "a", "opt5": "e", "opt4": 4, "opt2": 2})], tools=OPT))

# --------------------------------------------------------------------------------------------
# nemotron_v2: vLLM test_nemotron_nano_v2_tool_parser.py (test_nemotron_json_tool_parser.py holds
# the same cases), llama.cpp NVIDIA-Nemotron-Nano-v2
# --------------------------------------------------------------------------------------------
def nemo(text, calls, **kw):
    return Case("nemotron_v2", text, calls, **kw)


TOKYO = '<TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Tokyo"}}]</TOOLCALL>'
TWO_TOKYO = '<TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Tokyo"}}, {"name": "lookup_timezone", "arguments": {"city": "Tokyo"}}]</TOOLCALL>'
add("nemotron_v2/vllm/no_tool_call", nemo("No tool call here.", [], content="No tool call here."))
add("nemotron_v2/vllm/array", nemo(
    'Let me check that.<TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Tokyo", "unit": "celsius"}}]</TOOLCALL>',
    [("get_weather", {"city": "Tokyo", "unit": "celsius"})], content="Let me check that."))
add("nemotron_v2/vllm/single_object_without_array", nemo(
    '<TOOLCALL>{"name": "lookup", "arguments": {"query": "vllm"}}</TOOLCALL>', [("lookup", {"query": "vllm"})], content=None))
add("nemotron_v2/vllm/string_arguments", nemo(
    '<TOOLCALL>[{"name": "run_query", "arguments": "{\\"sql\\": \\"select 1\\"}"}]</TOOLCALL>', [], content=None, invalid=1,
    why="arguments written as a JSON string are not an object: the call is reported invalid with its text (the "
    "section's markers and brackets are markup, as every layout's are)"))
add("nemotron_v2/vllm/malformed", nemo(
    '<TOOLCALL>[{"name": "broken", "arguments": {}</TOOLCALL>', [], content=None, invalid=1,
    why="the unclosed call is reported invalid with its text (vLLM gives the whole output back as content)"))
add("nemotron_v2/vllm/content_then_call", nemo(
    'Let me check.<TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Tokyo", "unit": "celsius"}}]</TOOLCALL>',
    [("get_weather", {"city": "Tokyo", "unit": "celsius"})], content="Let me check."))
add("nemotron_v2/vllm/nested_json_arguments", nemo(
    '<TOOLCALL>[{"name": "search", "arguments": {"filters": {"city": "Tokyo"}, "items": [{"name": "rain", "value": true}]}}]</TOOLCALL>',
    [("search", {"filters": {"city": "Tokyo"}, "items": [{"name": "rain", "value": True}]})], content=None))
add("nemotron_v2/vllm/think_block_as_content", nemo(
    "<think>\nI need the weather for Tokyo.\n</think>\n" + TOKYO, [("get_weather", {"city": "Tokyo"})],
    content="<think>\nI need the weather for Tokyo.\n</think>\n"))
add("nemotron_v2/vllm/think_block_as_reasoning", nemo(
    "<think>\nI need the weather for Tokyo.\n</think>\n" + TOKYO, [("get_weather", {"city": "Tokyo"})],
    content=None, reasoning="\nI need the weather for Tokyo.\n", thinking="auto", why=VLLM_SPLITS_NO_REASONING))
add("nemotron_v2/vllm/two_calls", nemo(TWO_TOKYO, [("get_weather", {"city": "Tokyo"}), ("lookup_timezone", {"city": "Tokyo"})], content=None))
add("nemotron_v2/vllm/content_and_call_one_delta", nemo("Let me check." + TOKYO, [("get_weather", {"city": "Tokyo"})], content="Let me check."))
add("nemotron_v2/llama.cpp/reasoning_then_call", nemo(
    'I\'m\nthinking\n</think>\n<TOOLCALL>[{"name": "special_function", "arguments": {"arg1": 1}}]</TOOLCALL>', CALL1,
    content=None, reasoning="I'm\nthinking\n", thinking=True, tools=[SF], why=LLAMA_STRIPS))
add("nemotron_v2/llama.cpp/reasoning_then_call_newlines", nemo(
    'I\'m\nthinking\n</think>\n\n<TOOLCALL>[{"name": "special_function", "arguments": {"arg1": 1}}]</TOOLCALL>\n', CALL1,
    content=None, reasoning="I'm\nthinking\n", thinking=True, tools=[SF], why=LLAMA_STRIPS))

# --------------------------------------------------------------------------------------------
# granite4 and exaone4 (Hermes <tool_call> JSON): vLLM test_granite4_tool_parser.py (both
# directories) and test_hermes_tool_parser.py, llama.cpp's Hermes-format templates
# --------------------------------------------------------------------------------------------
COORD = {"coordinates": [[23.54, 43.1], [-12.2, 54.3], [4, 5]], "coordinate_type": "latlong"}
STOCK = {"symbol": "AAPL", "start_date": "2021-01-01", "end_date": "2021-12-31"}
BETWEEN = ["Here goes the bbox call: \n", " Now the stock price call: \n ", " Now another bbox call: \n ", " See? I'm a helpful assistant."]


def granite_complex(string_args):
    calls = [{"name": "find_bbox", "arguments": COORD}, {"name": "get_stock_price", "arguments": STOCK},
             {"name": "find_bbox", "arguments": json.dumps(COORD) if string_args else COORD}]
    tcs = ["<tool_call> " + json.dumps(c) + " </tool_call>" for c in calls]
    return BETWEEN[0] + tcs[0] + BETWEEN[1] + tcs[1] + BETWEEN[2] + tcs[2] + BETWEEN[3]


STRING_ARGS = {
    # Granite 4's template writes a call's arguments as an object (arguments given as a string in
    # the history are written raw, not quoted) and its prompt asks for "<args-json-object>": a
    # JSON string there is no text the template teaches, and decoding it would read the call twice
    "granite4": "arguments written as a JSON string are not a JSON object: reported invalid (Granite 4's template "
    "writes them as an object, a string from the history unquoted; vLLM passes the string on)",
    "exaone4": "arguments written as a JSON string are not a JSON object: reported invalid (EXAONE 4 is not known to write them so)",
}
for fmt in ("granite4", "exaone4"):
    def herm(text, calls, fmt=fmt, **kw):
        return Case(fmt, text, calls, **kw)

    p = f"{fmt}/vllm/"
    add(p + "granite_complex", herm(granite_complex(False), [("find_bbox", COORD), ("get_stock_price", STOCK), ("find_bbox", COORD)], content="".join(BETWEEN)))
    add(p + "granite_complex_string_arguments", herm(
        granite_complex(True), [("find_bbox", COORD), ("get_stock_price", STOCK)], content="".join(BETWEEN), invalid=1,
        why=STRING_ARGS[fmt]))
    add(p + "content_between_calls", herm(
        '<tool_call> {"name": "find_bbox", "arguments": {}} </tool_call>some explanation <tool_call> {"name": "get_stock_price", "arguments": {}} </tool_call>',
        [("find_bbox", {}), ("get_stock_price", {})], content="some explanation "))
    for i, bad in enumerate(["<tool_call> aaa", "<tool_call> </tool_call>", '<tool_call> {"name": "foo"} </tool_call>', '<tool_call> {"name": "foo", "args": {"a": 1}} </tool_call>']):
        add(p + f"invalid_{i}", herm(bad, [], content=None, invalid=1))
    add(p + "valid", herm('<tool_call> {"name": "foo", "arguments": {"a": 1}} </tool_call>', [("foo", {"a": 1})], content=None))
    add(p + "text_only", herm("Hello my name is ", [], content="Hello my name is "))
    add(p + "hermes_forward_text", herm(
        "This is some prior text that has nothing to do with tool calling.", [], content="This is some prior text that has nothing to do with tool calling."))
    add(p + "hermes_bool_argument", herm('<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}}\n</tool_call>', [("final_answer", {"trigger": True})], content=None))
    add(p + "hermes_no_spaces", herm(
        '<tool_call>{"name": "get_current_temperature","arguments": {"location":"San Francisco, California, United States", "unit": "celsius"}}</tool_call>',
        [("get_current_temperature", {"location": "San Francisco, California, United States", "unit": "celsius"})]))
    add(p + "hermes_content_then_call", herm(
        'Sure, let me check the weather.<tool_call>{"name": "get_weather", "arguments": {"city": "NYC"}}</tool_call>',
        [("get_weather", {"city": "NYC"})], content="Sure, let me check the weather."))
    add(p + "hermes_two_calls", herm(
        '<tool_call>{"name": "search", "arguments": {"q": "cats"}}</tool_call><tool_call>{"name": "search", "arguments": {"q": "dogs"}}</tool_call>',
        [("search", {"q": "cats"}), ("search", {"q": "dogs"})]))
    add(p + "hermes_call_until_eos", herm(
        '<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}}', [("final_answer", {"trigger": True})]))
    add(p + "hermes_invalid_json", herm('<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}', [], invalid=1))
    SERIALIZED = '<tool_call>\n{"name": "get_db_config", "arguments": "{\\"param\\": \\"max_connections\\"}"}\n</tool_call>'
    add(p + "hermes_serialized_arguments", herm(SERIALIZED, [], invalid=1, why=STRING_ARGS[fmt]))
    for j, value in enumerate(["hello", "{hello world}", "[oops", '{"a": 1} tail text']):
        add(p + f"hermes_string_arguments_{j}", herm(
            "<tool_call>" + json.dumps({"name": "f", "arguments": value}) + "</tool_call>", [], invalid=1,
            why="arguments that are a string and not an object are reported invalid (vLLM passes the JSON string on)"))
    add(p + "hermes_content_and_call_one_chunk", herm('Hi!<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>', [("f", {"x": 1})], content="Hi!"))
    add(f"{fmt}/llama.cpp/hermes_call", herm(
        '<tool_call>\n{"name": "special_function", "arguments": {"arg1": 1}}\n</tool_call>', CALL1, content=None, tools=[SF]))
    add(f"{fmt}/llama.cpp/hermes_content", herm("Hello, world!\nWhat's up?", [], content="Hello, world!\nWhat's up?"))
add("exaone4/llama.cpp/reasoning_then_call", Case(
    "exaone4", 'I\'m\nthinking\n</think>\n\n<tool_call>\n{"name": "special_function", "arguments": {"arg1": 1}}</tool_call>', CALL1,
    content=None, reasoning="I'm\nthinking\n", thinking=True, tools=[SF], why=LLAMA_STRIPS))
add("exaone4/llama.cpp/call_quoted_in_reasoning", Case(
    "exaone4",
    'Let me think about <tool_call>\n{"name": "special_function", "arguments": {"arg1": 2}}</tool_call> hmm\n</think>\n\n'
    '<tool_call>\n{"name": "special_function", "arguments": {"arg1": 1}}</tool_call>',
    CALL1, reasoning='Let me think about <tool_call>\n{"name": "special_function", "arguments": {"arg1": 2}}</tool_call> hmm\n',
    thinking=True, tools=[SF], options={"recover_calls_in_reasoning": False},
    why="(llama.cpp's Reka-Edge Hermes template) the quoted call stays reasoning with recover_calls_in_reasoning=False; "
    "by default a <tool_call> written while thinking ends the reasoning"))


# --------------------------------------------------------------------------------------------
# kimi_k2: vLLM tests/tool_parsers/test_kimi_k2_tool_parser.py (commit 0825a6c3), llama.cpp
# tests/test-chat.cpp (the Kimi-K2-Thinking template's cases)
# --------------------------------------------------------------------------------------------
K_SB, K_SE, K_TB, K_TE, K_AB = (
    "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>", "<|tool_call_begin|>", "<|tool_call_end|>", "<|tool_call_argument_begin|>")


def k_call(call_id: str, args: str, end: str = K_TE) -> str:
    return K_TB + call_id + " " + K_AB + args + end


def kimi(text, calls, **kw):
    kw.setdefault("thinking", False)
    return Case("kimi_k2", text, calls, **kw)


KEEPS_TEXT = "verbatim: text the model wrote around its calls is content (vLLM drops it)"
add("kimi_k2/vllm/single_tool_call", kimi("I'll check. " + K_SB + k_call("functions.get_weather:0", '{"city": "Beijing"}') + K_SE,
                                          [("get_weather", {"city": "Beijing"})], content="I'll check. "))
add("kimi_k2/vllm/no_functions_prefix", kimi("No prefix. " + K_SB + k_call("get_weather:0", '{"city": "Tokyo"}') + K_SE,
                                             [("get_weather", {"city": "Tokyo"})], content="No prefix. "))
add("kimi_k2/vllm/noise_between_markers", kimi(
    "Reasoning. " + K_SB + " spurious noise " + k_call("functions.test:0", '{"k": "v"} ') + K_SE,
    [("test", {"k": "v"})], content="Reasoning.  spurious noise ", why=KEEPS_TEXT))
add("kimi_k2/vllm/content_after_tool_section", kimi(
    "Before. " + K_SB + k_call("functions.get_weather:0", '{"city": "Tokyo"} ') + K_SE + " After tools.",
    [("get_weather", {"city": "Tokyo"})], content="Before.  After tools.", why=KEEPS_TEXT))
add("kimi_k2/vllm/empty_tool_section", kimi("Reasoning. " + K_SB + K_SE, [], content="Reasoning. " + K_SB + K_SE,
                                            why="a block that holds no call was no tool block: given back whole, markers and all"))
add("kimi_k2/vllm/invalid_funcall_id", kimi(
    "Help. " + K_SB + k_call("functions.invalid.0", '{"city": "Beijing"}') + k_call("functions.valid:1", '{"city": "Shanghai"}') + K_SE,
    [("valid", {"city": "Shanghai"})], content="Help. ", invalid=1,
    why="a header that cannot be read is reported invalid with its text (vLLM skips it)"))
add("kimi_k2/vllm/invalid_json_still_extracted", kimi(
    "Help. " + K_SB + k_call("functions.bad:0", '{"city": "Beijing"') + k_call("functions.good:1", '{"city": "Shanghai"}') + K_SE,
    [("good", {"city": "Shanghai"})], content="Help. ", invalid=1,
    why="arguments that are no JSON object are reported invalid, not passed on as a call"))
add("kimi_k2/vllm/truncated_tool_call", kimi(
    "I'll check. " + K_SB + k_call("functions.get_weather:0", '{"city": "Bei', end=""), [], content="I'll check. ", invalid=1,
    why="a call the output cut off is not presented as a complete one"))
add("kimi_k2/vllm/bare_counter", kimi(
    "Let me check. " + K_SB + k_call("0", '{"city": "Tokyo", "unit": "celsius"}') + K_SE, [], content="Let me check. ", invalid=1,
    tools=[fn("get_weather", None, city=S, unit=S)],
    why="a header that names no tool is invalid: the tool is not guessed from the request's tools or the arguments"))
KIMI_TWO = [("special_function", {"arg1": 1}), ("python", {"code": "print('hey')"})]
KIMI_TWO_CALLS = (k_call("functions.special_function:0", '{"arg1": 1}').replace(" " + K_AB, K_AB)
                  + k_call("functions.python:1", '{"code": "print(\'hey\')"}').replace(" " + K_AB, K_AB))
add("kimi_k2/llama.cpp/calls_inside_thinking", kimi(
    "<think>I need to call two functions" + K_SB + KIMI_TWO_CALLS + K_SE, KIMI_TWO,
    content=None, reasoning="I need to call two functions", thinking="auto", tools=[SF, PYTHON]))
add("kimi_k2/llama.cpp/calls_inside_thinking_without_section_or_end_markers", kimi(
    "<think>I need to call two functions" + KIMI_TWO_CALLS.replace(K_TE, ""), KIMI_TWO,
    content=None, reasoning="I need to call two functions", thinking="auto", tools=[SF, PYTHON]))
add("kimi_k2/llama.cpp/call_without_any_end", kimi(
    K_TB + "functions.execute_command:0" + K_AB + '{"command": "ls -lah", "cwd": "/home/jarvis/development/exllamav3", "timeout": 10}',
    [("execute_command", {"command": "ls -lah", "cwd": "/home/jarvis/development/exllamav3", "timeout": 10})], content=None, thinking="auto",
    tools=[fn("execute_command", ["command"], command=S, cwd=S, timeout=I)]))


# --------------------------------------------------------------------------------------------
# deepseek_v3_1: llama.cpp tests/test-chat-parser.cpp (test_deepseek_v3_1_tool_calls, thinking
# forced open)
# --------------------------------------------------------------------------------------------
def v31_call(name: str, args: str) -> str:
    return "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>" + name + "<｜tool▁sep｜>" + args + "<｜tool▁call▁end｜><｜tool▁calls▁end｜>"


V31_TOKYO2, V31_TOKYO = v31_call("get_time2", '{"city": "Tokyo2"}'), v31_call("get_time", '{"city": "Tokyo"}')
V31_GO_ON = "REASONING" + V31_TOKYO2 + "REASONING</think>" + V31_TOKYO
add("deepseek_v3_1/llama.cpp/call_in_reasoning_then_more_reasoning", Case(
    "deepseek_v3_1", V31_GO_ON, [("get_time2", {"city": "Tokyo2"}), ("get_time", {"city": "Tokyo"})], content=None,
    reasoning="REASONINGREASONING", thinking=True,
    why="the tool markup's token written while thinking opens the calls (as the grammar switches to them there): get_time2 is a "
    "call, and the text after it up to </think> is reasoning again, never content (llama.cpp keeps that call as reasoning text)"))
add("deepseek_v3_1/llama.cpp/call_in_reasoning_then_more_reasoning_no_recovery", Case(
    "deepseek_v3_1", V31_GO_ON, [("get_time", {"city": "Tokyo"})], content=None,
    reasoning="REASONING" + V31_TOKYO2 + "REASONING", thinking=True, options={"recover_calls_in_reasoning": False},
    why="with recover_calls_in_reasoning=False the same output reads as llama.cpp reads it"))
add("deepseek_v3_1/llama.cpp/call_in_reasoning_without_close", Case(
    "deepseek_v3_1", "REASONING" + V31_TOKYO, [("get_time", {"city": "Tokyo"})], content=None, reasoning="REASONING", thinking=True,
    why="the text before the call was written while thinking: reasoning (llama.cpp makes it content when no </think> follows)"))
add("deepseek_v3_1/llama.cpp/reasoning_then_content", Case(
    "deepseek_v3_1", "REASONING</think>CONTENT", [], content="CONTENT", reasoning="REASONING", thinking=True))

# --------------------------------------------------------------------------------------------
# llama3_json: vLLM tests/tool_parsers/test_llama3_json_tool_parser.py (commit 1e499e36)
# --------------------------------------------------------------------------------------------
def llama(text, calls, **kw):
    return Case("llama3_json", text, calls, **kw)


BROKEN_AS_CONTENT = "a call that cannot be read is reported invalid with its text (vLLM returns the text as content)"
AS_CONTENT = {"on_invalid_call": "content"}
AFTER_TEXT = ("an answer that starts with text is text: Llama 3's calls are the whole answer (Meta's prompt format), and a "
              "call object quoted in prose is not made a call (vLLM reads it as one)")
L_SEARCH, L_INCIDENTS = '{"name": "searchTool", "parameters": {"query": "test1"}}', '{"name": "getOpenIncidentsTool", "parameters": {}}'
L_THREE = [("searchTool", {"query": "test1"}), ("getOpenIncidentsTool", {}), ("searchTool", {"query": "test2"})]
L_SEARCH2 = '{"name": "searchTool", "parameters": {"query": "test2"}}'
add("llama3_json/vllm/with_arguments", llama(
    '{"name": "searchTool", "parameters": {"query": "test query", "limit": 10}}', [("searchTool", {"query": "test query", "limit": 10})], content=None))
add("llama3_json/vllm/arguments_key", llama('{"name": "searchTool", "arguments": {"query": "test"}}', [("searchTool", {"query": "test"})]))
add("llama3_json/vllm/no_json", llama("This is just some text without any tool calls", [], content="This is just some text without any tool calls"))
add("llama3_json/vllm/multiple_json", llama("; ".join((L_SEARCH, L_INCIDENTS, L_SEARCH2)), L_THREE, content=None))
add("llama3_json/vllm/multiple_json_with_whitespace", llama(" ; ".join((L_SEARCH, L_INCIDENTS, L_SEARCH2)), L_THREE, content=None))
for sep_id, sep in (("semicolon_space", "; "), ("semicolon", ";"), ("semicolon_newline", ";\n"), ("newline", "\n")):
    add(f"llama3_json/vllm/streaming_parallel_separator_{sep_id}", llama(
        L_SEARCH + sep + L_INCIDENTS, [("searchTool", {"query": "test1"}), ("getOpenIncidentsTool", {})], content=None))
add("llama3_json/vllm/brace_in_trailing_text", llama(
    '{"name": "searchTool", "parameters": {"query": "test"}} I used {searchTool} for this.', [("searchTool", {"query": "test"})],
    content=" I used {searchTool} for this.", why=KEEPS_TEXT))
for case_id, text in (
    ("invalid_json", '{"name": "invalidTool", "parameters": {invalid json}'),
    ("missing_name_key", '{"parameters": {}}'),
    ("missing_parameters_and_arguments_key", '{"name": "toolWithoutParams"}'),
):
    add(f"llama3_json/vllm/{case_id}", llama(text, [], content=None, invalid=1, why=BROKEN_AS_CONTENT))
    add(f"llama3_json/vllm/{case_id}_as_content", llama(
        text, [], content=text, options=AS_CONTENT, why="with on_invalid_call='content' the broken call's text is content, as vLLM has it"))
add("llama3_json/vllm/call_after_text", llama(
    'Here is the result: {"name": "getOpenIncidentsTool", "parameters": {}} Would you like to know more?', [],
    content='Here is the result: {"name": "getOpenIncidentsTool", "parameters": {}} Would you like to know more?', why=AFTER_TEXT))

# --------------------------------------------------------------------------------------------
# glm45: vLLM tests/tool_parsers/test_glm4_moe_tool_parser.py
# --------------------------------------------------------------------------------------------
GLM45_BEIJING = ("<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n"
                 "<arg_key>date</arg_key>\n<arg_value>2025-08-01</arg_value>\n</tool_call>")
GLM45_MALFORMED = ("<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Seattle</arg_value>\n"
                   "<arg_key>incomplete_arg\n<arg_value>value</arg_value>\n</tool_call>")
add("glm45/vllm/with_thinking_tags", Case(
    "glm45", "<think>I want to get the weather.</think>\n\nI will help you get the weather.\n" + GLM45_BEIJING,
    [("get_weather", {"city": "Beijing", "date": "2025-08-01"})], content="\n\nI will help you get the weather.\n",
    reasoning="I want to get the weather.", thinking="auto", why=VLLM_SPLITS_NO_REASONING))
add("glm45/vllm/malformed_xml", Case("glm45", GLM45_MALFORMED, [], content=None, invalid=1, why=BROKEN_AS_CONTENT))
add("glm45/vllm/malformed_xml_as_content", Case(
    "glm45", GLM45_MALFORMED, [], content=GLM45_MALFORMED, options=AS_CONTENT,
    why="with on_invalid_call='content' the broken call's text is content, as the peers have it"))

# --------------------------------------------------------------------------------------------
# mistral (Magistral): llama.cpp tests/test-chat.cpp, a [TOOL_CALLS] inside [THINK] (the vector as
# downstream projects' tests quote it)
# --------------------------------------------------------------------------------------------
M_FAKE = '[TOOL_CALLS]fake[ARGS]{"x":1}'
M_REAL = '[THINK]Let me think about ' + M_FAKE + ' and more[/THINK][TOOL_CALLS]real_fn[ARGS]{"y":2}'
M_NONE = "[THINK]I might call " + M_FAKE + "[/THINK]Done."
NO_RECOVERY = {"recover_calls_in_reasoning": False}
RECOVERED = ("the tool markup's token written while thinking opens the calls (as the grammar switches to them there): the "
             "fake call is read, and the text after it up to [/THINK] is reasoning again (llama.cpp keeps it all reasoning)")
add("mistral/llama.cpp/call_marker_in_reasoning", Case(
    "mistral", M_REAL, [("fake", {"x": 1}), ("real_fn", {"y": 2})], content=None, reasoning="Let me think about  and more",
    thinking="auto", why=RECOVERED))
add("mistral/llama.cpp/call_marker_in_reasoning_no_recovery", Case(
    "mistral", M_REAL, [("real_fn", {"y": 2})], content=None, reasoning="Let me think about " + M_FAKE + " and more",
    thinking="auto", options=NO_RECOVERY, why="with recover_calls_in_reasoning=False the same output reads as llama.cpp reads it"))
add("mistral/llama.cpp/call_marker_in_reasoning_no_real_call", Case(
    "mistral", M_NONE, [("fake", {"x": 1})], content="Done.", reasoning="I might call ", thinking="auto", why=RECOVERED))
add("mistral/llama.cpp/call_marker_in_reasoning_no_real_call_no_recovery", Case(
    "mistral", M_NONE, [], content="Done.", reasoning="I might call " + M_FAKE, thinking="auto", options=NO_RECOVERY,
    why="with recover_calls_in_reasoning=False the same output reads as llama.cpp reads it"))

def _calls(message):
    return [(c.name, json.loads(c.arguments)) for c in message.tool_calls]


@pytest.mark.parametrize("case", list(CASES.values()))
def test_peer_case(case: Case):
    m = every_split_agrees(case.text, format=case.fmt, thinking=case.thinking, tools=case.tools, **(case.options or {}))
    assert _calls(m) == case.calls
    assert len(m.invalid_tool_calls) == case.invalid
    if case.content is not ANY:
        assert m.content == case.content
    if case.reasoning is not ANY:
        assert m.reasoning_content == case.reasoning


def test_every_format_has_cases_and_a_case_is_one_kind():
    formats = {p.values[0].fmt for p in CASES.values()}
    assert formats == {"seed_oss", "glm47", "qwen3_5", "nemotron_v2", "granite4", "exaone4", "kimi_k2", "deepseek_v3_1", "llama3_json", "glm45", "mistral"}
    for case_id, p in CASES.items():
        assert case_id.startswith(p.values[0].fmt + "/"), case_id
        # a difference on purpose is asserted; a known failure is xfail: never both
        assert not (p.values[0].why and p.marks), case_id
