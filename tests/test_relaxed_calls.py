"""Issue 34, point 5: under ``unsupported="relax"`` the grammar drops what it cannot enforce, and
the parser checks a call against what the grammar held it to, not the tool's own schema: a call
the grammar allowed is never refused. The calls here are ones the real compiled grammar takes."""

import pytest

from helpers import walk
from thinkgate import parse
from thinkgate.constraint import compile_tool_grammar
from thinkgate.formats import get_format
from thinkgate.integrations.common import relaxed_tools

R1 = get_format("deepseek_r1")
# keywords thinkgate cannot enforce, each dropped under "relax", and arguments that break only it
RELAXED = {
    "multipleOf": ({"type": "integer", "multipleOf": 7}, '{"v": 5}'),
    "uniqueItems": ({"type": "array", "items": {"type": "integer"}, "maxItems": 3, "uniqueItems": True}, '{"v": [1, 1]}'),
    "overlapping oneOf": ({"oneOf": [{"type": "integer"}, {"type": "number"}]}, '{"v": 3}'),
    "a format thinkgate cannot write": ({"type": "string", "format": "json-pointer", "maxLength": 8}, '{"v": "no"}'),
}


def _tool(value):
    return [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"v": value}, "required": ["v"]}}}]


@pytest.mark.parametrize("keyword", list(RELAXED))
def test_a_call_the_relaxed_grammar_allowed_is_a_call(tokenizer, keyword):
    value, arguments = RELAXED[keyword]
    tools = _tool(value)
    text = R1.tools.section_text([("f", arguments)])
    grammar = compile_tool_grammar(tokenizer, R1, tools, "required", unsupported="relax")
    assert walk(grammar, tokenizer, text)[1]  # the grammar writes it
    held = relaxed_tools("deepseek_r1", tools, "required", 2)
    assert held.dropped and all("unsupported='relax'" in d for d in held.dropped)
    m = parse(text, R1, thinking=False, tools=tools, enforced_schemas=held.schemas)
    assert [(c.name, c.arguments) for c in m.tool_calls] == [("f", arguments)] and m.finish_reason == "tool_calls"
    # held to the tool's own schema, it breaks the dropped keyword
    refused = parse(text, R1, thinking=False, tools=tools)
    assert not refused.tool_calls and refused.invalid_tool_calls and refused.finish_reason == "stop"


def test_what_the_relaxed_grammar_holds_is_still_held(tokenizer):
    tools = _tool(RELAXED["multipleOf"][0])
    held = relaxed_tools("deepseek_r1", tools, "required", 2).schemas
    text = R1.tools.section_text([("f", '{"v": "seven"}')])
    assert not walk(compile_tool_grammar(tokenizer, R1, tools, "required", unsupported="relax"), tokenizer, text)[1]
    assert not parse(text, R1, thinking=False, tools=tools, enforced_schemas=held).tool_calls


def test_the_exported_tag_drops_more_and_a_tool_below_level_2_needs_no_schema():
    # a length beside a pattern is the guard's on thinkgate's processor, dropped from a tag alone
    tools = _tool({"type": "string", "pattern": "^a+$", "maxLength": 2000})
    assert relaxed_tools("deepseek_r1", tools, "required", 2).schemas["f"]["properties"]["v"]["maxLength"] == 2000
    exported = relaxed_tools("deepseek_r1", tools, "required", 2, exported=True)
    assert "maxLength" not in exported.schemas["f"]["properties"]["v"] and any("exported structural tag" in d for d in exported.dropped)
    text = R1.tools.section_text([("f", '{"v": "' + "a" * 2001 + '"}')])
    assert parse(text, R1, thinking=False, tools=tools, enforced_schemas=exported.schemas).tool_calls
    assert relaxed_tools("deepseek_r1", _tool(RELAXED["multipleOf"][0]), "required", 1) == relaxed_tools("deepseek_r1", None, "none", 2)


def test_what_was_dropped_is_said_whatever_the_root_logger_lets_through(caplog):
    # a server (vLLM's) may raise the root logger's level past warnings
    caplog.set_level("ERROR")
    tools = _tool({"type": "integer", "multipleOf": 11, "minimum": 3})
    assert [d.split(" is not")[0] for d in relaxed_tools("deepseek_r1", tools, "auto", 2).dropped] == ["tool 'f': keyword 'multipleOf' at #/properties/v"]
