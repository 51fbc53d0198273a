"""The peers' own test vectors for the pythonic families (issue 38), as data.

llama4_pythonic (a bare Python list of calls as the answer, ``[f(a=1), g()]``, possibly wrapped in
``<|python_start|>``…``<|python_end|>``; vLLM's generic ``pythonic`` parser and SGLang's
PythonicDetector read it too), lfm2 (LiquidAI LFM2 / LFM2.5:
``<|tool_call_start|>[f(a=1)]<|tool_call_end|>``, text before and after) and olmo3 (OLMo 3:
``<function_calls>f(a=1)\\ng()</function_calls>``, one call a line). Each vector is a model output
from a peer's test (vLLM's tests/tool_parsers, SGLang's test/registered/unit/function_call,
llama.cpp's tests/test-chat.cpp), what that test expects of it (content, calls by name and
arguments, reasoning where the test gives one), the tools the test gives, the chunks the test
streams it in, and its origin (repository, file, test, commit). They are facts lifted from the
peers' tests, not their code; the conventions are those of ``peer_vectors_newest.py`` (whose
``Vector``, ``ANY`` and schema shorthands this module imports), with these additions:

* ``content=None``: the peer expects no content (``None`` or ``""``); ``ANY``: the test does not
  look at it. ``invalid=ANY`` where the peer drops a call it cannot read (a broken literal, an
  unknown tool, a positional argument): the test says the call is not returned, not whether it
  counts as a broken one.
* vLLM's streaming cases given a whole string are streamed by vLLM in the deltas of a real
  tokenizer (gpt2, or LiquidAI/LFM2.5-1.2B-Instruct for lfm2); those deltas are not recorded
  (``chunks=None``), the ``chars`` path reads them finer.
* :data:`ARGS_AS_WRITTEN`: the peer's test checks only the names (or only how many calls there
  are); the vector's calls carry the names and the argument values as the call writes them.
* :data:`CONTAINS`: the peer's test checks only that the content holds these substrings (the
  vector's content is ``ANY``).
* :data:`EVERY_TWO_CHUNK_SPLIT`: the peer streams the output whole, a character at a time and at
  every single cut point (SGLang's test_pythonic_streaming.py).
* SGLang origins marked ``(stored version N, commit not reported)`` come from stored versions of a
  file whose commit the index does not give; their test bodies differ from the dated version.
* llama.cpp's PEG tests (test-chat.cpp @0042e207) feed every prefix of the output, a character at
  a time (``chunks=1``), and compare the content with surrounding whitespace stripped.
"""

from __future__ import annotations

import json
from typing import Any

from helpers import fn
from peer_vectors_newest import ANY, A, B, I, N, O, S, Vector  # noqa: F401 - B kept with the shorthands

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


def J(arguments: str) -> Any:
    """A peer's expected arguments, as the JSON string its test writes."""
    return json.loads(arguments)


def tool(name: str, parameters: dict) -> dict:
    """A function tool whose parameters are exactly ``parameters`` (as the peer's test gives them)."""
    return {"type": "function", "function": {"name": name, "parameters": parameters}}


UNIT = {"type": "string", "enum": ["celsius", "fahrenheit"]}


# ============================================================================================
# vLLM tests/tool_parsers: run_tool_extraction (tests/tool_parsers/utils.py) returns the
# non-streaming content, or the streamed content joined (None when empty); no tools are given.
# ============================================================================================

# --------------------------------------------------------------------------------------------
# llama4_pythonic: vLLM tests/tool_parsers/test_pythonic_tool_parser.py (the generic "pythonic"
# parser: Llama 3.2 / ToolACE style, a bare list)
# --------------------------------------------------------------------------------------------
VPY = "vllm-project/vllm tests/tool_parsers/test_pythonic_tool_parser.py @0716d268c7d81e445bd9ae30205f7bf4cfacd7d5::"
PY_SIMPLE_OUT = "get_weather(city='San Francisco', metric='celsius')"
PY_SIMPLE = ("get_weather", J('{"city": "San Francisco", "metric": "celsius"}'))
PY_MORE_TYPES_OUT = (
    "register_user(name='John Doe', "
    "age=37, "
    "address={'city': 'San Francisco', 'state': 'CA'}, "
    "role=None, "
    "passed_test=True, "
    "aliases=['John', 'Johnny'])"
)
PY_MORE_TYPES = ("register_user", J('{"name": "John Doe", '
                                   '"age": 37, '
                                   '"address": {"city": "San Francisco", "state": "CA"}, '
                                   '"role": null, '
                                   '"passed_test": true, '
                                   '"aliases": ["John", "Johnny"]}'))
PY_PARAMLESS_OUT = "get_weather()"
PY_PARAMLESS = ("get_weather", J("{}"))
PY_EMPTY_DICT_OUT = "do_something_cool(additional_data={})"
PY_EMPTY_DICT = ("do_something_cool", J('{"additional_data": {}}'))
PY_EMPTY_LIST_OUT = "do_something_cool(steps=[])"
PY_EMPTY_LIST = ("do_something_cool", J('{"steps": []}'))
PY_ESCAPED_OUT = r"get_weather(city='Martha\'s Vineyard', metric='\"cool units\"')"
PY_ESCAPED = ("get_weather", J('{"city": "Martha\'s Vineyard", "metric": "\\"cool units\\""}'))


def vpy(test: str, text: str, calls: Any, **kw: Any) -> None:
    add(Vector(f"llama4_pythonic/vllm/pythonic::{test}", "llama4_pythonic", text, calls,
               origin=VPY + test.split("[")[0], **kw))


for mode in ("True", "False"):
    vpy(f"test_no_tool_call[{mode}]", "How can I help you today?", [], content="How can I help you today?")
for case, out, calls in (
    ("simple", f"[{PY_SIMPLE_OUT}]", [PY_SIMPLE]),
    ("more_types", f"[{PY_MORE_TYPES_OUT}]", [PY_MORE_TYPES]),
    ("parameterless", f"[{PY_PARAMLESS_OUT}]", [PY_PARAMLESS]),
    ("empty_dict", f"[{PY_EMPTY_DICT_OUT}]", [PY_EMPTY_DICT]),
    ("empty_list", f"[{PY_EMPTY_LIST_OUT}]", [PY_EMPTY_LIST]),
    ("escaped_string", f"[{PY_ESCAPED_OUT}]", [PY_ESCAPED]),
    ("parallel_calls", f"[{PY_SIMPLE_OUT}, {PY_MORE_TYPES_OUT}]", [PY_SIMPLE, PY_MORE_TYPES]),
):
    for mode in ("streaming", "nonstreaming"):
        vpy(f"test_tool_call[{case}_{mode}]", out, calls, content=None)
PY_LARGE_STEPS = ["[get_weather(city='San", " Francisco', metric='celsius'), " f"{PY_PARAMLESS_OUT}, " f"{PY_EMPTY_LIST_OUT}]"]
vpy("test_streaming_tool_call_with_large_steps", "".join(PY_LARGE_STEPS), [PY_SIMPLE, PY_PARAMLESS, PY_EMPTY_LIST], content=None,
    chunks=PY_LARGE_STEPS)
for mode in ("True", "False"):
    vpy(f"test_bad_sibling_call_does_not_drop_good_calls[{mode}]", f"[bad(x=b'z'), {PY_SIMPLE_OUT}]", [PY_SIMPLE], invalid=ANY)
vpy("test_non_finite_argument_rejected", f"[calc(x=1e999), {PY_SIMPLE_OUT}]", [PY_SIMPLE], invalid=ANY)
vpy("test_good_call_survives_unparsable_sibling", f"[{PY_SIMPLE_OUT}, f(a='x 'y', b='z')]", [PY_SIMPLE], invalid=ANY)
vpy("test_unrecoverable_block_still_reports_no_tool_call", "[f(a='x 'y' 'z), g(b='p 'q' 'r)]", [],
    content="[f(a='x 'y' 'z), g(b='p 'q' 'r)]", invalid=ANY)
vpy("test_streaming_mismatched_brackets_reported_once", "[foo(x=1])]", [], invalid=ANY)

# llama4_pythonic: vLLM tests/tool_parsers/test_format_conformance.py (the "pythonic" fixture)
add(Vector("llama4_pythonic/vllm/format_conformance::test_documented_format_is_extracted[pythonic]", "llama4_pythonic",
           '[get_weather(city="SF", units="metric")]', [("get_weather", {"city": "SF", "units": "metric"})],
           origin="vllm-project/vllm tests/tool_parsers/test_format_conformance.py @0e4c702aa688590f5d68af44c0dd2d0cf0430b01"
                  "::test_documented_format_is_extracted"))

# --------------------------------------------------------------------------------------------
# llama4_pythonic: vLLM tests/tool_parsers/test_llama4_pythonic_tool_parser.py (its test_tool_call
# does not look at the content; two pairs of cases share an id, pytest suffixes them 0 and 1)
# --------------------------------------------------------------------------------------------
VL4 = "vllm-project/vllm tests/tool_parsers/test_llama4_pythonic_tool_parser.py @0716d268c7d81e445bd9ae30205f7bf4cfacd7d5::"
L4_SIMPLE_OUT = "[get_weather(city='LA', metric='C')]"
L4_SIMPLE = ("get_weather", J('{"city": "LA", "metric": "C"}'))
L4_MORE_TYPES_OUT = (
    "[register_user(name='Doe', "
    "age=9, "
    "address={'city': 'LA', 'state': 'CA'}, "
    "role=None, "
    "passed_test=True, "
    "aliases=['John', 'Johnny'])]"
)
L4_MORE_TYPES = ("register_user", J('{"name": "Doe", '
                                   '"age": 9, '
                                   '"address": {"city": "LA", "state": "CA"}, '
                                   '"role": null, '
                                   '"passed_test": true, '
                                   '"aliases": ["John", "Johnny"]}'))
L4_PARAMLESS_OUT = "[get_weather()]"
L4_PARAMLESS = ("get_weather", J("{}"))
L4_EMPTY_DICT_OUT = "[do_something_cool(additional_data={})]"
L4_EMPTY_DICT = ("do_something_cool", J('{"additional_data": {}}'))
L4_EMPTY_LIST_OUT = "[do_something_cool(steps=[])]"
L4_EMPTY_LIST = ("do_something_cool", J('{"steps": []}'))
L4_ESCAPED_OUT = r"[get_weather(city='Martha\'s Vineyard', metric='\"cool units\"')]"
L4_ESCAPED = ("get_weather", J('{"city": "Martha\'s Vineyard", "metric": "\\"cool units\\""}'))
L4_PYTHON_TAG_OUT = "<|python_start|>[get_weather(city='LA', metric='C')]<|python_end|>"
L4_REGISTER_DOE = ("register_user", J('{"name": "Doe", "age": 9}'))
L4_TEST_STR = "<|python_start|>" + "[get_weather(city='LA', metric='C')," + "register_user(name='Doe', age=9)]"


def vl4(test: str, text: str, calls: Any, **kw: Any) -> None:
    add(Vector(f"llama4_pythonic/vllm/llama4_pythonic::{test}", "llama4_pythonic", text, calls,
               origin=VL4 + test.split("[")[0], **kw))


for mode in ("True", "False"):
    vl4(f"test_no_tool_call[{mode}]", "How can I help you today?", [], content="How can I help you today?")
for case, out, calls in (
    ("simple_streaming", L4_ESCAPED_OUT, [L4_ESCAPED]),  # sic: the streaming "simple" case feeds the escaped output
    ("simple_nonstreaming", L4_SIMPLE_OUT, [L4_SIMPLE]),
    ("more_types_streaming", L4_MORE_TYPES_OUT, [L4_MORE_TYPES]),
    ("more_types_nonstreaming", L4_MORE_TYPES_OUT, [L4_MORE_TYPES]),
    ("parameterless_streaming", L4_PARAMLESS_OUT, [L4_PARAMLESS]),
    ("parameterless_nonstreaming", L4_PARAMLESS_OUT, [L4_PARAMLESS]),
    ("empty_dict_streaming", L4_EMPTY_DICT_OUT, [L4_EMPTY_DICT]),
    ("empty_dict_nonstreaming", L4_EMPTY_DICT_OUT, [L4_EMPTY_DICT]),
    ("empty_list_streaming", L4_EMPTY_LIST_OUT, [L4_EMPTY_LIST]),
    ("empty_list_nonstreaming", L4_EMPTY_LIST_OUT, [L4_EMPTY_LIST]),
    ("escaped_string_streaming", L4_ESCAPED_OUT, [L4_ESCAPED]),
    ("escaped_string_nonstreaming", L4_ESCAPED_OUT, [L4_ESCAPED]),
    ("parallel_calls_streaming0", "[get_weather(city='LA',metric='C'),register_user(name='Doe',age=9)]", [L4_SIMPLE, L4_REGISTER_DOE]),
    ("parallel_calls_nonstreaming0", "[get_weather(city='LA',metric='C'),register_user(name='Doe',age=9)]", [L4_SIMPLE, L4_REGISTER_DOE]),
    ("python_tag_streaming", L4_PYTHON_TAG_OUT, [L4_SIMPLE]),
    ("python_tag_nonstreaming", L4_PYTHON_TAG_OUT, [L4_SIMPLE]),
    ("parallel_calls_streaming1", L4_TEST_STR, [L4_SIMPLE, L4_REGISTER_DOE]),
    ("parallel_calls_nonstreaming1", "<|python_start|>[get_weather(city='LA', metric='C'), " "register_user(name='Doe', age=9)]",
     [L4_SIMPLE, L4_REGISTER_DOE]),
):
    vl4(f"test_tool_call[{case}]", out, calls)
L4_LARGE_STEPS = ["<|python_start|>[get_weather(city='LA', metric='C'), " "get_weather(), " "do_something_cool(steps=[])]<|python_end|>"]
vl4("test_streaming_tool_call_with_large_steps", L4_LARGE_STEPS[0], [L4_SIMPLE, L4_PARAMLESS, L4_EMPTY_LIST], content=None, chunks=L4_LARGE_STEPS)
L4_INNER_SIMPLE_OUT = "get_weather(city='LA', metric='C')"
for mode in ("True", "False"):
    vl4(f"test_bad_sibling_call_does_not_drop_good_calls[{mode}]", f"<|python_start|>[bad(x=b'z'), {L4_INNER_SIMPLE_OUT}]<|python_end|>",
        [L4_SIMPLE], invalid=ANY)
vl4("test_non_finite_argument_rejected", f"<|python_start|>[calc(x=1e999), {L4_INNER_SIMPLE_OUT}]<|python_end|>", [L4_SIMPLE], invalid=ANY)
vl4("test_streaming_mismatched_brackets_reported_once", "<|python_start|>[foo(x=1])]<|python_end|>", [], invalid=ANY)

# --------------------------------------------------------------------------------------------
# olmo3: vLLM tests/tool_parsers/test_olmo3_tool_parser.py (calls one a line inside
# <function_calls>…</function_calls>, JSON literals null/true accepted as Python's)
# --------------------------------------------------------------------------------------------
VO3 = "vllm-project/vllm tests/tool_parsers/test_olmo3_tool_parser.py @2aac44dc3f7b41fca0273ff024fa557c4c7ab1ee::"
O3_MORE_TYPES_JSON_OUT = (
    "register_user(name='John Doe', "
    "age=37, "
    "address={'city': 'San Francisco', 'state': 'CA'}, "
    "role=null, "
    "passed_test=true, "
    "aliases=['John', 'Johnny'])"
)


def fc(body: str) -> str:
    return f"<function_calls>{body}</function_calls>"


def vo3(test: str, text: str, calls: Any, **kw: Any) -> None:
    add(Vector(f"olmo3/vllm/olmo3::{test}", "olmo3", text, calls, origin=VO3 + test.split("[")[0], **kw))


for mode in ("True", "False"):
    vo3(f"test_no_tool_call[{mode}]", "How can I help you today?", [], content="How can I help you today?")
for case, body, calls in (
    ("simple", PY_SIMPLE_OUT, [PY_SIMPLE]),
    ("more_types", PY_MORE_TYPES_OUT, [PY_MORE_TYPES]),
    ("more_types_{}_json_literals", O3_MORE_TYPES_JSON_OUT, [PY_MORE_TYPES]),
    ("parameterless", PY_PARAMLESS_OUT, [PY_PARAMLESS]),
    ("empty_dict", PY_EMPTY_DICT_OUT, [PY_EMPTY_DICT]),
    ("empty_list", PY_EMPTY_LIST_OUT, [PY_EMPTY_LIST]),
    ("escaped_string", PY_ESCAPED_OUT, [PY_ESCAPED]),
    ("parallel_calls", f"{PY_SIMPLE_OUT}\n{PY_MORE_TYPES_OUT}", [PY_SIMPLE, PY_MORE_TYPES]),
):
    for mode in ("streaming", "nonstreaming"):
        pid = case.format(mode) if "{}" in case else f"{case}_{mode}"
        vo3(f"test_tool_call[{pid}]", fc(body), calls, content=None)
O3_LARGE_STEPS = ["<function_calls>get_weather(city='San", " Francisco', metric='celsius')\n" f"{PY_PARAMLESS_OUT}\n"
                  f"{PY_EMPTY_LIST_OUT}</function_calls>"]
vo3("test_streaming_tool_call_with_large_steps", "".join(O3_LARGE_STEPS), [PY_SIMPLE, PY_PARAMLESS, PY_EMPTY_LIST], content=None,
    chunks=O3_LARGE_STEPS)
for mode in ("True", "False"):
    vo3(f"test_bad_sibling_call_does_not_drop_good_calls[{mode}]", fc(f"bad(x=b'z')\n{PY_SIMPLE_OUT}"), [PY_SIMPLE], invalid=ANY)
vo3("test_non_finite_argument_rejected", fc(f"calc(x=1e999)\n{PY_SIMPLE_OUT}"), [PY_SIMPLE], invalid=ANY)
vo3("test_streaming_healthy_call_logs_nothing", fc(PY_SIMPLE_OUT), [PY_SIMPLE])
vo3("test_streaming_mismatched_brackets_reported_once", fc("foo(x=1])"), [], invalid=ANY)

# --------------------------------------------------------------------------------------------
# lfm2: vLLM tests/tool_parsers/test_lfm2_tool_parser.py (its test_tool_call checks the content
# only for content_after_tool_call_nonstreaming)
# --------------------------------------------------------------------------------------------
VLF = "vllm-project/vllm tests/tool_parsers/test_lfm2_tool_parser.py @011cde7c177a29bbcb0052d80e5ab7671a70f634::"
TC = ("<|tool_call_start|>", "<|tool_call_end|>")
LF_SIMPLE_OUT = "get_candidate_status(candidate_id='12345')"
LF_SIMPLE = ("get_candidate_status", J('{"candidate_id": "12345"}'))
LF_SET_ARG_OUT = "label(tags={'urgent', 'bug'})"
LF_SET_ARG = ("label", J('{"tags": ["urgent", "bug"]}'))
LF_LEADING_ZERO_OUT = "set_date(month=07, day=05)"
LF_LEADING_ZERO = ("set_date", J('{"month": 7, "day": 5}'))
LF_NESTED_QUOTE_OUT = "bash(command='sed -n '360,450p' /testbed/sympy/matrices/common.py')"
LF_NESTED_QUOTE = ("bash", J('{"command": "sed -n \'360,450p\' /testbed/sympy/matrices/common.py"}'))
LF_NESTED_PYTHON_C_OUT = (
    "bash(command='cd /testbed && python3 -c \"from sympy import latex\n"
    "print(latex(3*x, mul_symbol='\\,'))\"')"
)
LF_NESTED_PYTHON_C = ("bash", J(
    '{"command": "cd /testbed && python3 -c \\"from sympy import latex\\n'
    "print(latex(3*x, mul_symbol='\\\\,'))\\\"\"}"
))
LF_DOTTED_OUT = (
    "grocery.orderIngredients("
    "ingredientList=[{'name': 'Lasagna noodles', 'amount': 250, 'unit': 'g'}], "
    "deliveryAddress='845 Willow Lane, Springfield, IL 62704')"
)
LF_DOTTED = ("grocery.orderIngredients", J(
    '{"ingredientList": ['
    '{"name": "Lasagna noodles", "amount": 250, "unit": "g"}], '
    '"deliveryAddress": "845 Willow Lane, Springfield, IL 62704"}'
))
LF_BRACKET_OUT = "exec(command='grep -F \"]\" log.txt')"
LF_BRACKET = ("exec", J('{"command": "grep -F \\"]\\" log.txt"}'))
LF_MULTILINE_OUT = "exec(command='cat > f.py << EOF\nimport csv\nprint(1)\nEOF')"
LF_MULTILINE = ("exec", J('{"command": "cat > f.py << EOF\\nimport csv\\nprint(1)\\nEOF"}'))
LF_NUL_OUT = "exec(command='printf a\x00b')"
LF_NUL = ("exec", J('{"command": "printf a\\u0000b"}'))


def wrap(tool_text: str, content_after: str = "") -> str:
    """vLLM's ``_wrap``: the pythonic list in LFM2.5's sentinels, content after on a new line."""
    result = f"{TC[0]}[{tool_text}]{TC[1]}"
    if content_after:
        result += f"\n{content_after}"
    return result


def vlf(test: str, text: str, calls: Any, **kw: Any) -> None:
    flags = {k: kw.pop(k) for k in ("written", "contains") if k in kw}
    add(Vector(f"lfm2/vllm/lfm2::{test}", "lfm2", text, calls, origin=VLF + test.split("[")[0], **kw), **flags)


for mode in ("True", "False"):
    vlf(f"test_no_tool_call[{mode}]", "How can I help you today?", [], content="How can I help you today?")
for case, body, calls in (
    ("simple", LF_SIMPLE_OUT, [LF_SIMPLE]),
    ("more_types", PY_MORE_TYPES_OUT, [PY_MORE_TYPES]),
    ("parameterless", PY_PARAMLESS_OUT, [PY_PARAMLESS]),
    ("empty_dict", PY_EMPTY_DICT_OUT, [PY_EMPTY_DICT]),
    ("empty_list", PY_EMPTY_LIST_OUT, [PY_EMPTY_LIST]),
    ("escaped_string", PY_ESCAPED_OUT, [PY_ESCAPED]),
    ("parallel_calls", f"{LF_SIMPLE_OUT}, {PY_MORE_TYPES_OUT}", [LF_SIMPLE, PY_MORE_TYPES]),
    ("dotted_name", LF_DOTTED_OUT, [LF_DOTTED]),
    ("bracket_in_string", LF_BRACKET_OUT, [LF_BRACKET]),
    ("multiline_string_arg", LF_MULTILINE_OUT, [LF_MULTILINE]),
    ("set_arg", LF_SET_ARG_OUT, [LF_SET_ARG]),
    ("nested_quote", LF_NESTED_QUOTE_OUT, [LF_NESTED_QUOTE]),
    ("nested_python_c", LF_NESTED_PYTHON_C_OUT, [LF_NESTED_PYTHON_C]),
    ("leading_zero_int", LF_LEADING_ZERO_OUT, [LF_LEADING_ZERO]),
    ("nul_byte_string_arg", LF_NUL_OUT, [LF_NUL]),
):
    for mode in ("streaming", "nonstreaming"):
        vlf(f"test_tool_call[{case}_{mode}]", wrap(body), calls)
vlf("test_tool_call[content_after_tool_call_nonstreaming]",
    wrap(LF_SIMPLE_OUT, content_after="Checking the current status of candidate ID 12345."), [LF_SIMPLE],
    content="Checking the current status of candidate ID 12345.")
for pid, body in (("body0", ""), ("body1", " ")):  # body "" and " ": vLLM's test runs it whole, then streamed in one delta
    text = f"{TC[0]}[{body}]{TC[1]}"
    vlf(f"test_empty_tool_call_block[{pid}]", text, [], chunks=[text])
for mode in ("True", "False"):
    vlf(f"test_bad_sibling_call_does_not_drop_good_calls[{mode}]", f"{TC[0]}[{LF_SIMPLE_OUT}, bad(x=b'z')]{TC[1]}", [LF_SIMPLE], invalid=ANY)
WS_TEXT = f"{TC[0]} [{LF_SIMPLE_OUT}]{TC[1]}"
vlf("test_whitespace_after_start_token", WS_TEXT, [LF_SIMPLE], chunks=[WS_TEXT])
LF_LARGE_STEPS = [f"{TC[0]}[get_candidate_status(candidate_id='12345'), " f"{PY_PARAMLESS_OUT}, " f"{PY_EMPTY_LIST_OUT}]{TC[1]}"]
vlf("test_streaming_tool_call_with_large_steps", LF_LARGE_STEPS[0], [LF_SIMPLE, PY_PARAMLESS, PY_EMPTY_LIST], chunks=LF_LARGE_STEPS)
T1 = f"{TC[0]}[{LF_SIMPLE_OUT}]{TC[1]}\nDone."
vlf("test_streaming_full_block_and_trailing_in_single_delta", T1, [LF_SIMPLE], chunks=[T1], contains=("Done.",))
T2 = f"Let me check. {TC[0]}[{LF_SIMPLE_OUT}]{TC[1]}"
vlf("test_streaming_leading_content_and_full_block_in_single_delta", T2, [LF_SIMPLE], chunks=[T2], contains=("Let me check.",))
T3 = "Let me check. " f"{TC[0]}[{LF_SIMPLE_OUT}]{TC[1]}\nDone."
vlf("test_streaming_leading_block_and_trailing_in_single_delta", T3, [LF_SIMPLE], chunks=[T3], contains=("Let me check.", "Done."))
ECHO_BODY = ("[grocery.orderIngredients("
             "ingredientList=[{'name': 'apple', 'quantity': '2'}], "
             "deliveryAddress='123 Main St')]")
# the echoed body and its second end marker must not surface as content (whole, and streamed in token deltas)
vlf("test_echoed_tool_call_body_not_leaked_to_content", f"{TC[0]}{ECHO_BODY}{TC[1]}{ECHO_BODY}{TC[1]}",
    [("grocery.orderIngredients", {"ingredientList": [{"name": "apple", "quantity": "2"}], "deliveryAddress": "123 Main St"})],
    content=None, written=True)
CHARS_TEXT = (f"{TC[0]}[grocery.orderIngredients("
              "ingredientList=["
              '{"name": "apple", "quantity": "2"}, '
              '{"name": "bread", "quantity": "1"}'
              f"])]{TC[1]}")
vlf("test_streaming_char_by_char_multi_dict_list", CHARS_TEXT,
    [("grocery.orderIngredients", {"ingredientList": [{"name": "apple", "quantity": "2"}, {"name": "bread", "quantity": "1"}]})],
    chunks=1)
DOT_TEXT = f"{TC[0]}[{LF_DOTTED_OUT}]{TC[1]}"
vlf("test_streaming_dotted_name_in_single_delta", DOT_TEXT, [LF_DOTTED], chunks=[DOT_TEXT])


# ============================================================================================
# SGLang test/registered/unit/function_call: detect_and_parse gives normal_text and calls (the
# content and calls of the whole output); parse_streaming_increment is fed the test's chunks.
# SGLang drops calls to tools not in the request.
# ============================================================================================
SGL = "sgl-project/sglang test/registered/unit/function_call/"
GW = fn("get_weather", ["city"], city=S, unit=UNIT)
SEARCH = fn("search", ["query"], query=S)


def sgl(fmt: str, file: str, test: str, text: str, calls: Any, origin: str, *, version: str = "", written: bool = False,
        contains: tuple[str, ...] = (), every_split: bool = False, **kw: Any) -> None:
    vid = f"{fmt}/sglang/{file}::{test}" + (f"/v{version}" if version else "")
    add(Vector(vid, fmt, text, calls, origin=origin + test.split("[")[0].split("/")[0], **kw), written=written, contains=contains,
        every_split=every_split)


# --------------------------------------------------------------------------------------------
# llama4_pythonic: SGLang test/registered/unit/function_call/test_pythonic_detector.py (the
# PythonicDetector, used for Llama 4 and Llama 3.2 pythonic; several stored versions of the file
# differ, each is lifted; _text_strip, has_tool_call, _find_matching_bracket and structure_info
# checks are internals)
# --------------------------------------------------------------------------------------------
SPD = SGL + "test_pythonic_detector.py @00769caebd82b35bfb6f99ea634bc6de3f1c7a6f::"
PD_TOOLS = [GW, SEARCH]


def spd(test: str, text: str, calls: Any, **kw: Any) -> None:
    kw.setdefault("tools", PD_TOOLS)
    sgl("llama4_pythonic", "pythonic_detector", "TestPythonicDetector::" + test, text, calls, SPD, **kw)


TOKYO = ("get_weather", {"city": "Tokyo"})
spd("test_single_tool_call_string_arg", "[get_weather(city='Tokyo')]", [TOKYO], content=None)
spd("test_single_tool_call_int_arg", "[get_weather(city=123)]", [("get_weather", {"city": 123})], written=True)
spd("test_positional_arguments_ignored", "[get_weather('Tokyo')]", [("get_weather", {})])  # positional arguments are dropped, the call kept
spd("test_multiple_tool_calls", "[get_weather(city='Tokyo'), search(query='restaurants')]", [TOKYO, ("search", {"query": "restaurants"})])
spd("test_tool_call_with_leading_text", "I will check the weather for you. [get_weather(city='Tokyo')]", [TOKYO], written=True,
    contains=("check the weather",))
spd("test_no_tool_call", "The weather is nice today.", [], content="The weather is nice today.")
spd("test_tool_call_with_dict_arg", "[search(query={'key': 'value', 'nested': {'a': 1}})]",
    [("search", {"query": {"key": "value", "nested": {"a": 1}}})], written=True)
spd("test_tool_call_with_list_arg", "[search(query=['a', 'b', 'c'])]", [("search", {"query": ["a", "b", "c"]})], written=True)
spd("test_unknown_tool_name_skipped", "[unknown_func(arg=1)]", [], invalid=ANY)
spd("test_malformed_python_returns_empty_calls", "[get_weather(city=)]", [], invalid=ANY)
spd("test_no_bracket_returns_empty_calls", "get_weather(city='Tokyo')", [])
PD_CHUNKS = ["[get_", "weather(city=", "'Tokyo'", ")]"]
spd("test_streaming_single_tool_call_chunked", "".join(PD_CHUNKS), [TOKYO], chunks=PD_CHUNKS, written=True)
spd("test_streaming_normal_text_before_tool", "Hello! Let me help. ", [], content="Hello! Let me help. ")
PD_TEXT_CHUNKS = ["Sure, let me check. ", "[get_weather(city=", "'Tokyo')]"]
spd("test_streaming_text_then_tool_call", "".join(PD_TEXT_CHUNKS), [TOKYO], chunks=PD_TEXT_CHUNKS, written=True,
    contains=("Sure, let me check. ",))
PD_TAG_CHUNKS = ["<|python_start|>[get_", "weather(city='Tokyo')]<|python_end|>"]
spd("test_streaming_with_python_tokens", "".join(PD_TAG_CHUNKS), [TOKYO], chunks=PD_TAG_CHUNKS, written=True)

# the version with negative-number cases
SPDN = SGL + "test_pythonic_detector.py @b01922ffbb50728994a8d82442e34ffdac582e7f::"
NUM_TOOLS = [fn("set_temperature", ["value"], value=N), fn("move", ["x", "y"], x=N, y=N, deltas=A)]


def spdn(test: str, text: str, calls: Any, **kw: Any) -> None:
    sgl("llama4_pythonic", "pythonic_detector", "TestPythonicDetector::" + test, text, calls, SPDN, tools=NUM_TOOLS, **kw)


spdn("test_positive_number_argument", "[set_temperature(value=5)]", [("set_temperature", {"value": 5})])
spdn("test_negative_integer_argument", "[set_temperature(value=-5)]", [("set_temperature", {"value": -5})])
spdn("test_negative_float_argument", "[move(x=-1.5, y=2.0)]", [("move", {"x": -1.5, "y": 2.0})])
spdn("test_negative_numbers_in_list", "[move(x=0, y=0, deltas=[-1, -2, 3])]", [("move", {"x": 0, "y": 0, "deltas": [-1, -2, 3]})])
spdn("test_negative_does_not_drop_sibling_calls", "[set_temperature(value=-5), move(x=1, y=2)]",
     [("set_temperature", {"value": -5}), ("move", {"x": 1, "y": 2})])
spdn("test_non_numeric_unary_does_not_crash_batch", '[move(x=-"hello", y=0)]', [], invalid=ANY)
spdn("test_bool_unary_does_not_produce_numeric", "[move(x=-True, y=0)]", [], invalid=ANY)

# a stored version with argument-type and quoted-bracket streaming cases
V1 = "54792535247"
SPD1 = SGL + f"test_pythonic_detector.py (stored version {V1}, commit not reported)::"


def spd1(test: str, text: str, calls: Any, **kw: Any) -> None:
    kw.setdefault("tools", PD_TOOLS)
    sgl("llama4_pythonic", "pythonic_detector", "TestPythonicDetector::" + test, text, calls, SPD1, version=V1, **kw)


BEIJING = ("get_weather", {"city": "Beijing"})
spd1("test_single_tool_call", '[get_weather(city="Beijing")]', [BEIJING], content=None)
spd1("test_multiple_tool_calls", '[get_weather(city="Beijing"), search(query="restaurants")]', [BEIJING, ("search", {"query": "restaurants"})],
     written=True)
spd1("test_tool_call_with_multiple_arguments", '[get_weather(city="London", unit="celsius")]', [("get_weather", {"city": "London", "unit": "celsius"})])
spd1("test_python_start_end_tokens_are_stripped", '<|python_start|>[get_weather(city="Tokyo")]<|python_end|>', [TOKYO])
spd1("test_no_tool_call_returns_normal_text", "The weather is nice today.", [], content="The weather is nice today.")
spd1("test_unknown_tool_is_dropped_by_default", '[unknown_func(x="y"), get_weather(city="Paris")]', [("get_weather", {"city": "Paris"})],
     invalid=ANY, written=True)
spd1("test_non_literal_argument_returns_no_calls", "[get_weather(city=some_variable)]", [], invalid=ANY)
spd1("test_argument_types_int_float_bool_none", "[set_config(count=3, ratio=0.5, enabled=True, label=None)]",
     [("set_config", {"count": 3, "ratio": 0.5, "enabled": True, "label": None})], tools=[tool("set_config", {"type": "object", "properties": {}})])
spd1("test_argument_types_list_and_dict", '[batch(items=["a", "b"], meta={"k": 1})]', [("batch", {"items": ["a", "b"], "meta": {"k": 1}})],
     tools=[tool("batch", {"type": "object", "properties": {}})])
V1_CHUNKS = ["[get_weat", 'her(city="Be', 'ijing")]']
spd1("test_streaming_single_tool_call", "".join(V1_CHUNKS), [BEIJING], chunks=V1_CHUNKS)
spd1("test_streaming_normal_text_before_tool", "Let me check the weather. ", [], content="Let me check the weather. ")
V1_TEXT_CHUNKS = ["Sure, here you go: ", '[get_weather(city="Tokyo"', ', unit="celsius")]']
spd1("test_streaming_text_then_tool_call", "".join(V1_TEXT_CHUNKS), [("get_weather", {"city": "Tokyo", "unit": "celsius"})],
     content="Sure, here you go: ", chunks=V1_TEXT_CHUNKS)
for test, text, value in (
    ("test_streaming_bracket_inside_string_argument", '[search(query="hello]world")]', "hello]world"),
    ("test_streaming_balanced_brackets_inside_string_argument", '[search(query="abc[def]ghi")]', "abc[def]ghi"),
    ("test_streaming_escaped_quote_inside_string_argument", r'[search(query="he\"llo]world")]', 'he"llo]world'),
    ("test_streaming_single_quoted_string_argument", "[search(query='single]quotes')]", "single]quotes"),
):
    spd1(test, text, [("search", {"query": value})], chunks=[text])
V1_TAG_CHUNKS = ["<|python_", 'start|>[get_weather(city="Paris")]<|python_end|>']
spd1("test_streaming_partial_python_start_token_held_back", "".join(V1_TAG_CHUNKS), [("get_weather", {"city": "Paris"})], chunks=V1_TAG_CHUNKS,
     written=True)  # the test checks only that no "<|python_" comes out as content after the first chunk

# a stored version with PYTHON_START/PYTHON_END constants
V2 = "54710675570"
SPD2 = SGL + f"test_pythonic_detector.py (stored version {V2}, commit not reported)::"


def spd2(test: str, text: str, calls: Any, **kw: Any) -> None:
    kw.setdefault("tools", PD_TOOLS)
    sgl("llama4_pythonic", "pythonic_detector", "TestPythonicDetector::" + test, text, calls, SPD2, version=V2, **kw)


spd2("test_single_call", '[get_weather(city="Tokyo")]', [TOKYO])
spd2("test_multiple_calls", '[get_weather(city="Tokyo"), search(query="restaurants")]', [TOKYO, ("search", {"query": "restaurants"})],
     written=True)
spd2("test_multiple_args", '[get_weather(city="London", unit="celsius")]', [("get_weather", {"city": "London", "unit": "celsius"})])
spd2("test_no_tool_call", "The weather is fine today.", [], contains=("weather",))
spd2("test_strips_python_tokens", '<|python_start|>[get_weather(city="Paris")]<|python_end|>', [("get_weather", {"city": "Paris"})],
     written=True)
spd2("test_unknown_tool_skipped", '[undefined_func(arg="val")]', [], invalid=ANY)
spd2("test_streaming_plain_text", "Hello world.", [], content="Hello world.")
spd2("test_streaming_complete_call_one_chunk", '[get_weather(city="Tokyo")]', [TOKYO], written=True)
V2_CHUNKS = ['[get_weather(city="', 'Oslo")]']
spd2("test_streaming_split_across_chunks", "".join(V2_CHUNKS), [("get_weather", {"city": "Oslo"})], chunks=V2_CHUNKS)

# a stored version "for PythonicDetector (Llama-4 format)"
V3 = "54952429976"
SPD3 = SGL + f"test_pythonic_detector.py (stored version {V3}, commit not reported)::"


def spd3(test: str, text: str, calls: Any, **kw: Any) -> None:
    sgl("llama4_pythonic", "pythonic_detector", "TestPythonicDetector::" + test, text, calls, SPD3, version=V3, tools=PD_TOOLS, **kw)


spd3("test_single_tool_call", '[get_weather(city="Beijing")]', [BEIJING])
spd3("test_single_tool_call_multiple_args", '[get_weather(city="Beijing", unit="celsius")]',
     [("get_weather", {"city": "Beijing", "unit": "celsius"})])
spd3("test_multiple_tool_calls", '[get_weather(city="Beijing"), search(query="restaurants")]', [BEIJING, ("search", {"query": "restaurants"})],
     written=True)
spd3("test_tool_call_with_preceding_text", 'Let me check that. [get_weather(city="Shanghai")]', [("get_weather", {"city": "Shanghai"})],
     written=True, contains=("check that",))
spd3("test_no_tool_call", "Hello, how can I help you today?", [], content="Hello, how can I help you today?")
spd3("test_python_tags_stripped", '<|python_start|>[get_weather(city="Tokyo")]<|python_end|>', [TOKYO], written=True)

# --------------------------------------------------------------------------------------------
# llama4_pythonic: SGLang test/registered/unit/function_call/test_function_call_parser.py,
# TestPythonicDetector (its tools' parameters have no "type": "object"; an empty chunk the test
# feeds to flush the buffer is left out)
# --------------------------------------------------------------------------------------------
SFP = SGL + "test_function_call_parser.py @01967342ac0b5956e7da91cbce01dcaab9418405::"
FP_TOOLS = [tool("get_weather", {"properties": {"location": S, "unit": UNIT}, "required": ["location"]}),
            tool("search", {"properties": {"query": S}, "required": ["query"]})]


def sfp(test: str, text: str, calls: Any, **kw: Any) -> None:
    sgl("llama4_pythonic", "function_call_parser", "TestPythonicDetector::" + test, text, calls, SFP, tools=FP_TOOLS, **kw)


sfp("test_invalid_escape_sequence_still_parses", '[search(query="\\d+")]', [("search", {"query": "\\d+"})], content=None)
sfp("test_parse_streaming_no_brackets", "This is just normal text without any tool calls.", [],
    content="This is just normal text without any tool calls.")
sfp("test_parse_streaming_complete_tool_call", "Here's a tool call: [get_weather(location='New York', unit='celsius')]",
    [("get_weather", {"location": "New York", "unit": "celsius"})], content="Here's a tool call: ")
FP_PARTIAL = ["Let me check the weather: [get_weather(location=", "'Paris')]"]
sfp("test_parse_streaming_partial_tool_call", "".join(FP_PARTIAL), [("get_weather", {"location": "Paris"})],
    content="Let me check the weather: ", chunks=FP_PARTIAL)
sfp("test_parse_streaming_bracket_without_text_before", "[search(query='python programming')]", [("search", {"query": "python programming"})],
    content=None)
sfp("test_parse_streaming_text_after_tool_call", "[get_weather(location='Tokyo')] Here's the forecast:", [("get_weather", {"location": "Tokyo"})],
    content=" Here's the forecast:", written=True)
sfp("test_parse_streaming_multiple_tool_calls", "[get_weather(location='Berlin')] and [search(query='restaurants')]",
    [("get_weather", {"location": "Berlin"}), ("search", {"query": "restaurants"})], written=True, contains=(" and ",))
sfp("test_parse_streaming_nested_brackets", "[get_weather(location='New York', unit='celsius', data=[1, 2, 3])]",
    [("get_weather", {"location": "New York", "unit": "celsius", "data": [1, 2, 3]})], content=None)
sfp("test_parse_streaming_nested_brackets_dict", "[search(query='test', config={'options': [1, 2], 'nested': {'key': 'value'}})]",
    [("search", {"query": "test", "config": {"options": [1, 2], "nested": {"key": "value"}}})], content=None)
sfp("test_parse_streaming_multiple_tools_with_nested_brackets",
    "[get_weather(location='Paris', data=[10, 20]), search(query='test', filters=['a', 'b'])]",
    [("get_weather", {"location": "Paris", "data": [10, 20]}), ("search", {"query": "test", "filters": ["a", "b"]})], content=None)
FP_NESTED = ["Here's a call: [get_weather(location='Tokyo', data=[1, 2", ", 3])]"]
sfp("test_parse_streaming_partial_nested_brackets", "".join(FP_NESTED), [("get_weather", {"location": "Tokyo", "data": [1, 2, 3]})],
    content="Here's a call: ", chunks=FP_NESTED)
FP_TAGS = ["Here's a call: ", "<|python_", "start|>[get_weather(location=", "'Tokyo', data=[1, 2", ", 3])]<|python_end|>"]
for suffix, chunks in (("chunks", FP_TAGS), ("whole", ["".join(FP_TAGS)])):
    sfp(f"test_parse_streaming_with_python_start_and_end_token/{suffix}", "".join(FP_TAGS),
        [("get_weather", {"location": "Tokyo", "data": [1, 2, 3]})], content="Here's a call: ", chunks=chunks)
sfp("test_detect_and_parse_with_python_start_and_end_token",
    "User wants to get the weather in Mars. <|python_start|>[get_weather(location='Mars', unit='celsius')]<|python_end|> In this way we will get "
    "the weather in Mars.", [("get_weather", {"location": "Mars", "unit": "celsius"})],
    content="User wants to get the weather in Mars.  In this way we will get the weather in Mars.")
sfp("test_non_finite_argument_never_emits_invalid_json", "[get_weather(location='Tokyo', unit=1e999)]", [], invalid=ANY)
sfp("test_unconvertible_argument_skips_only_that_call", "[get_weather(location='Tokyo'), search(query=b'raw')]",
    [("get_weather", {"location": "Tokyo"})], invalid=ANY)

# --------------------------------------------------------------------------------------------
# llama4_pythonic: SGLang test/registered/unit/function_call/test_pythonic_streaming.py (each
# output is checked against detect_and_parse streamed whole, by characters and at every cut; the
# content is the joined normal_text)
# --------------------------------------------------------------------------------------------
SPS = SGL + "test_pythonic_streaming.py @fb200f4f41b384c73036ec0f6393a63ff8768ef1::"
PS_TOOLS = [tool("search", {"type": "object", "properties": {"query": S}})]


def sps(test: str, text: str, calls: Any, content: Any, **kw: Any) -> None:
    sgl("llama4_pythonic", "pythonic_streaming", "TestPythonicStreaming::" + test, text, calls, SPS, tools=PS_TOOLS, content=content,
        every_split=kw.pop("every_split", True), **kw)


# the expected value is detect_and_parse's own reading of the literal (Python's), compared with every chunking
for i, (literal, value) in enumerate((
    ('"hello]world"', "hello]world"),
    ("'an unmatched [ in a query'", "an unmatched [ in a query"),
    (r'"escaped quote: \" ] and backslash: \\"', 'escaped quote: " ] and backslash: \\'),
    (r"'escaped quote: \' ] and backslash: \\'", "escaped quote: ' ] and backslash: \\"),
    ("'''a single ' and ] inside a multiline\nquery'''", "a single ' and ] inside a multiline\nquery"),
    ('"""a double " and [ inside a multiline\nquery"""', 'a double " and [ inside a multiline\nquery'),
)):
    sps(f"test_quoted_brackets_match_non_streaming_for_every_split[{i}]", f"[search(query={literal})]", [("search", {"query": value})], None,
        written=True)
sps("test_nested_containers_preserve_string_brackets", "[search(query={'terms': [']', {'value': '['}]})]",
    [("search", {"query": {"terms": ["]", {"value": "["}]}})], None)
sps("test_trailing_text_is_emitted_with_the_final_tool_call", "Searching. [search(query='hello')] Done.", [("search", {"query": "hello"})],
    "Searching.  Done.")
sps("test_repeated_blocks_have_distinct_indexes_and_drain_final_chunk", "[search(query='one')][search(query='two')] Done.",
    [("search", {"query": "one"}), ("search", {"query": "two"})], " Done.")
sps("test_parallel_calls_and_later_block_keep_order", "[search(query='one'), search(query='two')][search(query='three')]",
    [("search", {"query": v}) for v in ("one", "two", "three")], None)
PS_BUFFERED = ["[search(query='unfinished]')", "] Done."]
sps("test_incomplete_call_stays_buffered_until_outer_bracket", "".join(PS_BUFFERED), [("search", {"query": "unfinished]"})], " Done.",
    chunks=PS_BUFFERED, every_split=False)
sps("test_special_markers_can_split_after_a_complete_call", "<|python_start|>[search(query='hello')]<|python_end|> Done.",
    [("search", {"query": "hello"})], " Done.")
for i, text in enumerate(("[O'Reilly] docs", "[don't panic] done", "[1] and []")):
    sps(f"test_bracketed_prose_with_apostrophes_is_not_a_call[{i}]", text, [], text)
sps("test_bracketed_prose_with_apostrophes_is_not_a_call[3]", '[O\'Reilly] docs [search(query="]")] Done.', [("search", {"query": "]"})],
    "[O'Reilly] docs  Done.")

# --------------------------------------------------------------------------------------------
# llama4_pythonic: SGLang test_pythonic_detector_finish.py (the stream ends inside a call: finish()
# flushes the held text as content; tools=[])
# --------------------------------------------------------------------------------------------
sgl("llama4_pythonic", "pythonic_detector_finish", "TestPythonicDetectorFinishFlush::test_partial_tool_call_at_end_is_flushed",
    "hi [get_weather(city=", ANY, SGL + "test_pythonic_detector_finish.py @d9398b9174b4a5a0f4c8bb0787add6d05ff35a59::",
    tools=[], invalid=ANY, contains=("hi ", "get_weather"))  # "hi " before the cut call, then the held "[get_weather(city=" at finish

# --------------------------------------------------------------------------------------------
# llama4_pythonic: SGLang test_function_call_compatibility.py (a non-literal argument drops the call)
# --------------------------------------------------------------------------------------------
sgl("llama4_pythonic", "function_call_compatibility", "TestJsonDetectorCompatibility::test_pythonic_non_literal_args_dropped_and_recorded",
    "[get_weather(city=some_var)]", [], SGL + "test_function_call_compatibility.py @6255158b1cac12705e43b491dd5cd2dbd165cea9::",
    tools=[fn("get_weather", ["city"], city=S, days=I, location=O)], invalid=ANY)

# --------------------------------------------------------------------------------------------
# lfm2: SGLang test_function_call_parser.py, TestLfm2Detector (the standalone
# test_lfm2_detector.py's newest stored version carries the same cases; LFM2's JSON form inside
# the markers, [{"name": …, "arguments": …}], is read too)
# --------------------------------------------------------------------------------------------
SLF = SGL + "test_function_call_parser.py @01967342ac0b5956e7da91cbce01dcaab9418405::"
LF_TOOLS = [GW, fn("search", ["query"], query=S), fn("calculator", ["expression"], expression=S)]


def tcb(body: str) -> str:
    return f"{TC[0]}{body}{TC[1]}"


def slf(test: str, text: str, calls: Any, **kw: Any) -> None:
    kw.setdefault("tools", LF_TOOLS)
    sgl("lfm2", "function_call_parser", "TestLfm2Detector::" + test, text, calls, SLF, **kw)


PARIS = ("get_weather", {"city": "Paris"})
slf("test_detect_and_parse_pythonic_simple", tcb('[get_weather(city="Paris")]'), [PARIS])
slf("test_detect_and_parse_pythonic_invalid_escape", tcb('[search(query="\\d+")]'), [("search", {"query": "\\d+"})])
slf("test_detect_and_parse_pythonic_multiple_args", tcb('[get_weather(city="London", unit="celsius")]'),
    [("get_weather", {"city": "London", "unit": "celsius"})])
slf("test_detect_and_parse_pythonic_no_args", tcb("[get_time()]"), [("get_time", {})], written=True,
    tools=LF_TOOLS + [tool("get_time", {"type": "object", "properties": {}})])
slf("test_detect_and_parse_pythonic_multiple_calls", tcb('[get_weather(city="Paris"), search(query="restaurants")]'),
    [PARIS, ("search", {"query": "restaurants"})])
slf("test_detect_and_parse_with_normal_text_before", "Let me check the weather for you. " + tcb('[get_weather(city="Tokyo")]'), [TOKYO],
    content="Let me check the weather for you.", written=True)
slf("test_detect_and_parse_special_characters_in_value", tcb('[search(query="what\'s the weather?")]'),
    [("search", {"query": "what's the weather?"})], written=True)
slf("test_detect_and_parse_json_simple", tcb('[{"name": "get_weather", "arguments": {"city": "Berlin"}}]'), [("get_weather", {"city": "Berlin"})])
slf("test_detect_and_parse_json_multiple_calls",
    tcb('[{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "search", "arguments": {"query": "hotels"}}]'),
    [PARIS, ("search", {"query": "hotels"})], written=True)
slf("test_detect_and_parse_json_with_parameters_key", tcb('[{"name": "get_weather", "parameters": {"city": "Madrid"}}]'),
    [("get_weather", {"city": "Madrid"})], written=True)
slf("test_detect_and_parse_no_tool_call", "This is just regular text without any tool calls.", [],
    content="This is just regular text without any tool calls.")
slf("test_detect_and_parse_unknown_function", tcb('[unknown_function(arg="value")]'), [], invalid=ANY)
slf("test_detect_and_parse_empty_content", tcb(""), [], invalid=ANY)
slf("test_detect_and_parse_multiple_blocks", tcb('[get_weather(city="Paris")]') + " Some text " + tcb('[search(query="food")]'),
    [PARIS, ("search", {"query": "food"})], written=True)
LF_JSON_SPLIT = ['<|tool_call_start|>{"name": "get_weather", "arguments": {"city": ', '"Vienna"}}<|tool_call_end|>']
slf("test_streaming_json_split_across_chunks", "".join(LF_JSON_SPLIT), [("get_weather", {"city": "Vienna"})], chunks=LF_JSON_SPLIT, written=True)
LF_JSON_TEXT = ["I'll check the weather. ", '<|tool_call_start|>{"name": "get_weather", "arguments": {"city": "Amsterdam"}}<|tool_call_end|>']
slf("test_streaming_json_normal_text_before_tool_call", "".join(LF_JSON_TEXT), [("get_weather", {"city": "Amsterdam"})], chunks=LF_JSON_TEXT,
    written=True, contains=("check the weather",))
LF_PY_SPLIT = ['<|tool_call_start|>[get_weather(city="', 'Munich")]<|tool_call_end|>']
slf("test_streaming_pythonic_split_across_chunks", "".join(LF_PY_SPLIT), [("get_weather", {"city": "Munich"})], chunks=LF_PY_SPLIT)
LF_PY_MULTI = tcb('[get_weather(city="Paris"), search(query="hotels")]')
slf("test_streaming_pythonic_multiple_calls", LF_PY_MULTI, [PARIS, ("search", {"query": "hotels"})], chunks=[LF_PY_MULTI], written=True)
slf("test_multiline_string_argument_recovered", tcb("[search(query='line one\nline two')]"), [("search", {"query": "line one\nline two"})])
slf("test_nul_byte_in_string_argument_recovered", tcb("[search(query='printf a\x00b')]"), [("search", {"query": "printf a\x00b"})])
slf("test_nested_quotes_recovered", tcb("[search(query='sed -n '360,450p' f.py')]"), [("search", {"query": "sed -n '360,450p' f.py"})])
slf("test_ambiguous_nested_quotes_not_guessed", tcb("[get_weather(city='echo 'hi', unit='celsius')]"), [], invalid=ANY)
slf("test_reserved_keyword_parameter_recovered", tcb("[search(query='M.md', from=1)]"), [("search", {"query": "M.md", "from": 1})])
slf("test_zero_padded_int_recovered", tcb("[get_weather(city='NYC', day=07)]"), [("get_weather", {"city": "NYC", "day": 7})], written=True)
slf("test_explicit_positive_number", tcb("[search(query='x', limit=+7)]"), [("search", {"query": "x", "limit": 7})], written=True)
slf("test_set_argument_decoded_as_list", tcb("[search(query={'a', 'b'})]"), [("search", {"query": ["a", "b"]})])
slf("test_constant_fstring_argument", tcb("[search(query=f'hello')]"), [("search", {"query": "hello"})])
slf("test_bytes_argument_skips_only_that_call", tcb("[get_weather(city='SF'), search(query=b'z')]"), [("get_weather", {"city": "SF"})],
    invalid=ANY, written=True)
slf("test_non_finite_number_never_emits_invalid_json", tcb("[search(query='x', limit=1e999)]"), [], invalid=ANY)
slf("test_kwargs_unpack_merges_dict", tcb("[search(**{'query': 'x'}, limit=2)]"), [("search", {"query": "x", "limit": 2})])
slf("test_kwargs_unpack_merges_dict/bad", tcb("[search(**[1, 2])]"), [], invalid=ANY)
slf("test_positional_argument_call_not_silently_corrupted", tcb("[search(query='x'), get_weather('Paris', unit='celsius')]"),
    [("search", {"query": "x"})], invalid=ANY, written=True)  # the positional call is rejected (the pythonic detector's older test kept it)
slf("test_good_call_survives_unparsable_block", tcb("[search(query='ok'), get_weather(city='x 'y', unit='c')]"), [("search", {"query": "ok"})],
    invalid=ANY)
slf("test_swallowing_reading_rejected", tcb("[search(query='x 'y'), get_weather(city='p 'q')]"),
    [("search", {"query": "x 'y"}), ("get_weather", {"city": "p 'q"})])
slf("test_unrecoverable_block_reports_no_calls", tcb("[search(query='x 'y' 'z), get_weather(city='p 'q' 'r)]"), [], invalid=ANY)
slf("test_streaming_recovers_multiline", tcb("[search(query='line one\nline two')]"), [("search", {"query": "line one\nline two"})], chunks=7,
    written=True)
slf("test_reserved_kwarg_suffix_parameter_not_rewritten", tcb("[search(query='x', in_pyreservedkw_=5)]"),
    [("search", {"query": "x", "in_pyreservedkw_": 5})])
slf("test_reserved_kwarg_with_nested_quote_recovered", tcb("[search(from='sed -n '1,5p' f.py')]"), [("search", {"from": "sed -n '1,5p' f.py"})])

# lfm2: SGLang test/registered/unit/function_call/test_lfm2_detector.py (the dated stored version)
SLD = SGL + "test_lfm2_detector.py @38de5808e13ce232ccd88f1bc2f418e3d879e015::"


def sld(test: str, text: str, calls: Any, **kw: Any) -> None:
    sgl("lfm2", "lfm2_detector", "TestLfm2Detector::" + test, text, calls, SLD, tools=[GW, SEARCH], **kw)


sld("test_single_call_pythonic", tcb('[get_weather(city="Tokyo")]'), [TOKYO])
sld("test_single_call_json", tcb(json.dumps([{"name": "search", "arguments": {"query": "sglang"}}])), [("search", {"query": "sglang"})])
sld("test_multiple_calls_pythonic", tcb('[get_weather(city="Tokyo"), search(query="restaurants")]'), [TOKYO, ("search", {"query": "restaurants"})],
    written=True)
sld("test_multiple_args_pythonic", tcb('[get_weather(city="London", unit="celsius")]'), [("get_weather", {"city": "London", "unit": "celsius"})])
sld("test_no_tool_call", "The weather is fine today.", [], contains=("weather",))
sld("test_normal_text_before_call", "Sure! " + tcb('[get_weather(city="Paris")]'), [PARIS], written=True, contains=("Sure",))
sld("test_streaming_plain_text", "Hello world.", [], content="Hello world.")
LD_ONE = tcb('[get_weather(city="Tokyo")]')
sld("test_streaming_complete_call_pythonic", LD_ONE, [TOKYO], chunks=[LD_ONE], written=True)
LD_SPLIT = [TC[0], '[get_weather(city="Oslo")]', TC[1]]
sld("test_streaming_split_chunks", "".join(LD_SPLIT), [("get_weather", {"city": "Oslo"})], chunks=LD_SPLIT, written=True)
LD_JSON = tcb(json.dumps([{"name": "search", "arguments": {"query": "test"}}]))
sld("test_streaming_json_format", LD_JSON, [("search", {"query": "test"})], chunks=[LD_JSON], written=True)

# lfm2: SGLang test_lfm2_detector_finish.py (finish() releases the held residue of a cut call as content)
LV = "70269465468"
SLFF = SGL + f"test_lfm2_detector_finish.py (stored version {LV}, commit not reported)::"
FIN_TOOLS = [fn("get_weather", ["city"], city=S)]
sgl("lfm2", "lfm2_detector_finish", "TestLfm2FinishFlush::test_finish_releases_partial_tool_call_residue", "hi " + TC[0] + "get_weather('par", [],
    SLFF, version=LV, content="hi " + TC[0] + "get_weather('par", invalid=ANY, tools=FIN_TOOLS)
sgl("lfm2", "lfm2_detector_finish", "TestLfm2FinishFlush::test_finish_empty_when_stream_completed", "plain text, no tool calls", [], SLFF,
    version=LV, content="plain text, no tool calls", tools=FIN_TOOLS)


# ============================================================================================
# llama.cpp tests/test-chat.cpp
# ============================================================================================
SPECIAL = tool("special_function", {"type": "object", "properties": {"arg1": {"type": "integer", "description": "The arg."}},
                                    "required": ["arg1"]})
SPECIAL_OPT = tool("special_function_with_opt", {"type": "object", "properties": {
    "arg1": {"type": "integer", "description": "The arg."}, "arg2": {"type": "integer", "description": "The optional arg."}},
    "required": ["arg1"]})
GET_TIME = tool("get_time", {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}}, "required": ["city"]})
TOGGLE = tool("toggle", {"type": "object", "properties": {"enabled": {"type": "boolean", "description": "Whether to enable the feature"}},
                         "required": ["enabled"]})
NULLABLE = tool("set_nullable", {"type": "object", "properties": {"value": {"type": "null", "description": "A null value"}}, "required": ["value"]})
CONFIG = tool("set_config", {"type": "object", "properties": {"config": {"type": "object", "description": "Configuration dict"}},
                             "required": ["config"]})
CALENDAR = tool("Calendar.create_event", {"type": "object", "properties": {
    "title": {"type": "string"}, "participants": {"type": "array", "items": {"type": "string"}}, "metadata": {"type": "object"}},
    "required": ["title", "participants", "metadata"]})
PYTHON = tool("python", {"type": "object", "properties": {"code": {"type": "string", "description": "Python code to execute."}}, "required": ["code"]})
EMPTY_ARGS = tool("empty_args", {"type": "object", "properties": {}})

# --------------------------------------------------------------------------------------------
# lfm2: llama.cpp tests/test-chat.cpp, test_lfm2_parser (one case list run for the LFM2-8B-A1B,
# LFM2.5-Instruct and LFM2.5-8B-A1B templates; the partial case, is_partial, checks a cut
# output mid-stream and is left out)
# --------------------------------------------------------------------------------------------
LCPP = "ggml-org/llama.cpp tests/test-chat.cpp @0042e2079d3428ba7af410df553202aa7fdf8d7a::"
LFM2_CASES = (
    ("content_only", "Hello, world!\nWhat's up?", [], "Hello, world!\nWhat's up?", None),
    ("single_tool_call", tcb("[special_function(arg1=1)]"), [("special_function", {"arg1": 1})], None, [SPECIAL]),
    ("string_argument", tcb('[get_time(city="XYZCITY")]'), [("get_time", {"city": "XYZCITY"})], None, [GET_TIME]),
    ("python_true", tcb("[toggle(enabled=True)]"), [("toggle", {"enabled": True})], None, [TOGGLE]),
    ("python_none", tcb("[set_nullable(value=None)]"), [("set_nullable", {"value": None})], None, [NULLABLE]),
    ("nested_python_literal", tcb('[set_config(config={"enabled": True, "count": 3})]'),
     [("set_config", {"config": {"enabled": True, "count": 3}})], None, [CONFIG]),
    ("json_literals", tcb('[set_config(config={"enabled": true, "note": null})]'),
     [("set_config", {"config": {"enabled": True, "note": None}})], None, [CONFIG]),
    ("dotted_name", tcb('[Calendar.create_event(title="demo", participants=["Alice", "Bob"], '
                        'metadata={"priority": "high", "reminder": true})]'),
     [("Calendar.create_event", {"title": "demo", "participants": ["Alice", "Bob"], "metadata": {"priority": "high", "reminder": True}})],
     None, [CALENDAR]),
    ("markdown_links", "Use this format: [link text](url). Example: [Wikipedia](https://www.wikipedia.org).", [],
     "Use this format: [link text](url). Example: [Wikipedia](https://www.wikipedia.org).", [GET_TIME]),
    ("multiline_code", tcb('[python(code="def hello():\\n    print(\'hey\')")]'), [("python", {"code": "def hello():\n    print('hey')"})],
     None, [PYTHON]),
    ("escape_sequences", tcb('[python(code="First line\\nSecond line\\tindented")]'),
     [("python", {"code": "First line\nSecond line\tindented"})], None, [PYTHON]),
    ("escaped_quotes", tcb(r'[python(code="print(\"hi\")")]'), [("python", {"code": 'print("hi")'})], None, [PYTHON]),
    ("content_before", "Let me check the time." + tcb('[get_time(city="Paris")]'), [("get_time", {"city": "Paris"})], "Let me check the time.",
     [GET_TIME]),
    ("parallel", tcb("[special_function(arg1=1), special_function_with_opt(arg1=1, arg2=2)]"),
     [("special_function", {"arg1": 1}), ("special_function_with_opt", {"arg1": 1, "arg2": 2})], None, [SPECIAL, SPECIAL_OPT]),
    ("empty_arguments", tcb("[empty_args()]"), [("empty_args", {})], None, [EMPTY_ARGS]),
)
for template in ("LFM2-8B-A1B", "LFM2.5-Instruct", "LFM2.5-8B-A1B"):
    for case, text, calls, content, tools in LFM2_CASES:
        add(Vector(f"lfm2/llamacpp/test-chat::test_lfm2_parser[{template}]/{case}", "lfm2", text, calls, content=content, tools=tools,
                   chunks=1, origin=LCPP + f"test_lfm2_parser(models/templates/{template}.jinja)"))

# lfm2: llama.cpp test-chat.cpp, the LFM2.5-8B-A1B thinking cases (reasoning_format auto: the
# <think> block is read as reasoning whatever enable_thinking says; the continuation cases depend
# on a prefilled assistant turn and are left out)
THINK_CASES = (
    ("tool_call_with_reasoning", "<think>I'm\nthinking</think>" + tcb("[special_function(arg1=1)]"), [("special_function", {"arg1": 1})], None,
     "I'm\nthinking", True, [SPECIAL]),
    ("reasoning_and_content", "<think>I need to call a function</think>Let me check the time." + tcb('[get_time(city="Paris")]'),
     [("get_time", {"city": "Paris"})], "Let me check the time.", "I need to call a function", True, [GET_TIME]),
    ("fake_marker_in_reasoning", "<think>Let me think about " + tcb("[special_function(arg1=1)]") + " hmm</think>" + tcb("[special_function(arg1=1)]"),
     [("special_function", {"arg1": 1})], None, "Let me think about " + tcb("[special_function(arg1=1)]") + " hmm", True, [SPECIAL]),
    ("enable_thinking_false_content", "<think>I'm\nthinking</think>Hello, world!\nWhat's up?", [], "Hello, world!\nWhat's up?", "I'm\nthinking",
     False, None),
    ("enable_thinking_false_tool_call", "<think>I'm\nthinking</think>" + tcb("[special_function(arg1=1)]"), [("special_function", {"arg1": 1})],
     None, "I'm\nthinking", False, [SPECIAL]),
)
for case, text, calls, content, reasoning, thinking, tools in THINK_CASES:
    add(Vector(f"lfm2/llamacpp/test-chat::LFM2.5-8B-A1B thinking/{case}", "lfm2", text, calls, content=content, reasoning=reasoning,
               thinking=thinking, tools=tools, chunks=1, origin=LCPP + "test_template_output_peg_parsers(models/templates/LFM2.5-8B-A1B.jinja)"))

# --------------------------------------------------------------------------------------------
# lfm2: llama.cpp tests/test-chat.cpp @e7e21164, "LFM2 format tests" (the older JSON form,
# COMMON_CHAT_FORMAT_LFM2_WITH_JSON_TOOLS: [{"name": …, "arguments": …}] inside the markers, parsed
# whole; tests/chat-parsers/test-lfm2.cpp @3700b6f7 repeats these cases)
# --------------------------------------------------------------------------------------------
LCPP_OLD = "ggml-org/llama.cpp tests/test-chat.cpp @e7e21164bdf5434e3453777fd27e68cdc0ebfe94::LFM2 format tests "
for case, text, calls, content in (
    ("regular_content", "Hello, world!\nWhat's up?", [], "Hello, world!\nWhat's up?"),
    ("single_tool_call_json", tcb('[{"name": "special_function", "arguments": {"arg1": 1}}]'), [("special_function", {"arg1": 1})], None),
    ("string_argument", tcb('[{"name": "get_weather", "arguments": {"location": "Paris"}}]'), [("get_weather", {"location": "Paris"})], None),
    ("multiple_arguments", tcb('[{"name": "calculate", "arguments": {"x": 10, "y": 20, "operation": "add"}}]'),
     [("calculate", {"x": 10, "y": 20, "operation": "add"})], None),
    ("multiple_tool_calls", tcb('[{"name": "get_weather", "arguments": {"location": "Paris"}}, {"name": "get_time", "arguments": {"timezone": "UTC"}}]'),
     [("get_weather", {"location": "Paris"}), ("get_time", {"timezone": "UTC"})], None),
    ("content_before", "Let me check the weather for you." + tcb('[{"name": "get_weather", "arguments": {"location": "Paris"}}]'),
     [("get_weather", {"location": "Paris"})], "Let me check the weather for you."),
    ("content_after", tcb('[{"name": "get_weather", "arguments": {"location": "Paris"}}]') + "Here's the result.",
     [("get_weather", {"location": "Paris"})], "Here's the result."),
    ("newlines", tcb('[{\n    "name": "get_current_time",\n    "arguments": {\n        "location": "Paris"\n    }\n}]'),
     [("get_current_time", {"location": "Paris"})], None),
):
    add(Vector(f"lfm2/llamacpp/test-chat@e7e21164::LFM2 format tests/{case}", "lfm2", text, calls, content=content,
               origin=LCPP_OLD + case))


# ============================================================================================
# Where thinkgate reads a vector otherwise on purpose: the vector holds thinkgate's reading and
# says why (``why``), as in peer_vectors_newest.py.
# ============================================================================================
VERBATIM = "verbatim: the whitespace the model wrote beside the tool block stays with the answer's text (the peer strips it)"
SCHEMA = "a call whose arguments break its tool's schema is an invalid call, reported with its text (the peer returns it)"
REPORTED = "a call that cannot be read is reported invalid with its text, never repaired nor turned into answer text"


def _ours(vid: str, why: str, **reading: Any) -> None:
    v = VECTORS[vid]
    VECTORS[vid] = v._replace(why=why, **reading)


_ours("llama4_pythonic/vllm/pythonic::test_unrecoverable_block_still_reports_no_tool_call",
      REPORTED + ": both calls, f's string breaking at its second quote and g's likewise (vLLM returns the list as content)",
      content=None, invalid=2)
_ours("lfm2/vllm/lfm2::test_tool_call[content_after_tool_call_nonstreaming]", VERBATIM,
      content="\nChecking the current status of candidate ID 12345.")
_ours("lfm2/sglang/function_call_parser::TestLfm2Detector::test_detect_and_parse_with_normal_text_before", VERBATIM,
      content="Let me check the weather for you. ")
_ours("lfm2/vllm/lfm2::test_echoed_tool_call_body_not_leaked_to_content",
      "nothing lost: the model wrote the call's text again after the block, with a stray end marker; it is the answer's text "
      "as written (vLLM drops it)",
      content="[grocery.orderIngredients(ingredientList=[{'name': 'apple', 'quantity': '2'}], deliveryAddress='123 Main St')]<|tool_call_end|>")
for vid in ("llama4_pythonic/sglang/pythonic_detector::TestPythonicDetector::test_single_tool_call_int_arg",
            "llama4_pythonic/sglang/pythonic_detector::TestPythonicDetector::test_tool_call_with_dict_arg",
            "llama4_pythonic/sglang/pythonic_detector::TestPythonicDetector::test_tool_call_with_list_arg",
            "llama4_pythonic/sglang/pythonic_streaming::TestPythonicStreaming::test_nested_containers_preserve_string_brackets",
            "lfm2/sglang/function_call_parser::TestLfm2Detector::test_set_argument_decoded_as_list",
            "lfm2/sglang/function_call_parser::TestLfm2Detector::test_reserved_kwarg_with_nested_quote_recovered"):
    _ours(vid, SCHEMA, calls=[], invalid=1)
_ours("llama4_pythonic/sglang/pythonic_detector::TestPythonicDetector::test_positional_arguments_ignored",
      REPORTED + ": a positional argument names no parameter (SGLang's older test returns the call with {}, its newer "
      "lfm2 test rejects it)", calls=[], invalid=1)
_ours("lfm2/sglang/function_call_parser::TestLfm2Detector::test_kwargs_unpack_merges_dict",
      REPORTED + ": a dict unpacked into the arguments (**{…}) is Python no chat template writes, and thinkgate evaluates none",
      calls=[], invalid=1)
_ours("lfm2/sglang/function_call_parser::TestLfm2Detector::test_ambiguous_nested_quotes_not_guessed",
      "LFM2's template writes a string's quotes unescaped: thinkgate reads a quote as the string's end only where the "
      "arguments go on after it (', NAME=', or ')' then ',', ']' or a marker), which reads city as \"echo 'hi\" (SGLang "
      "finds the reading ambiguous and returns no call)",
      calls=[("get_weather", {"city": "echo 'hi", "unit": "celsius"})])
_ours("lfm2/sglang/lfm2_detector_finish::TestLfm2FinishFlush::test_finish_releases_partial_tool_call_residue/v70269465468",
      "an output that ends inside a call: the call is reported cut off (finish_reason length), its text with it; the text "
      "before it is the answer's (SGLang returns it all as content)",
      content="hi ", invalid=1)
for case in ("enable_thinking_false_content", "enable_thinking_false_tool_call"):
    vid = f"lfm2/llamacpp/test-chat::LFM2.5-8B-A1B thinking/{case}"
    _ours(vid, "the stage an output starts in is read from the prompt: LFM2.5's template with enable_thinking false writes no "
               "marker, so the model may still open <think> (thinking=None, the format's 'auto'); llama.cpp's flag is no prompt",
          thinking=None)
_PARTIAL = "llama4_pythonic/sglang/pythonic_detector_finish::TestPythonicDetectorFinishFlush::test_partial_tool_call_at_end_is_flushed"
_ours(_PARTIAL, "an output that ends inside a call: the call is reported cut off with its text; the text before it is the answer's "
                "(SGLang flushes the call's text into the content)", invalid=1)
CONTAINS[_PARTIAL] = ("hi ",)
