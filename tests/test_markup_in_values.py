"""A parameter's value that holds the call markup itself (a file whose text is a parser fixture
or a chat template): the value ends only at a closing tag that pairs with no parameter tag
opened inside it and is followed by what can follow a parameter (the next parameter, of a key
the tool takes and has not been given, or the end of the call). The reading is the same however
the output is cut into deltas, and the grammar never writes a value that reads otherwise."""

import json

import pytest
import xgrammar as xgr
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xgrammar.testing import _is_grammar_accept_string as accepts

from helpers import every_split_agrees, normalise, seq_ids, stream_events
from thinkgate import parse
from thinkgate.constraint.grammar.arguments import parameters_grammar
from thinkgate.formats import get_format

FORMATS = ["qwen3_coder", "qwen3_5", "seed_oss", "glm47", "minimax_m2", "deepseek_v3_2"]
SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}, "required": ["path", "content"]}
TOOLS = [{"type": "function", "function": {"name": "write_file", "parameters": SCHEMA}}]


def _pieces(fmt):
    """Markup a file's text may hold, spelled by the format: parameter tags (paired, as a file
    that shows a call pairs them: a tag opened and never closed inside a value is read as the
    value's own end missing), a closing tag followed by text, the call's own markers."""
    t, x = fmt.tools, fmt.tools.xml
    nested = st.builds(
        lambda key, text: x.key_tag(key, text) + x.between + x.value_open + x.padding + text + x.padding + x.value_close,
        st.sampled_from(["path", "content", "new_string"]), st.text("ab \n", max_size=4))
    markers = [m for m in (t.call_begin, t.call_end, t.footer, t.header_text("write_file"), "<") if m.strip()]
    return st.one_of(st.text("ab <>/=\n", max_size=5), nested, st.just(x.value_close + "x"), st.sampled_from(markers))


def _call(fmt, content):
    return fmt.tools.section_text([("write_file", json.dumps({"path": "a.py", "content": content}))])


@pytest.mark.parametrize("name", FORMATS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_value_holding_markup_reads_back_whole_in_any_chunking(name, data):
    fmt = get_format(name)
    content = "".join(data.draw(st.lists(_pieces(fmt), max_size=6))).strip() or "x"
    text = _call(fmt, content)
    whole = parse(text, format=fmt, tools=TOOLS, thinking=False, call_id=seq_ids)
    assert [(c.name, json.loads(c.arguments)) for c in whole.tool_calls] == [("write_file", {"path": "a.py", "content": content})]
    assert not whole.invalid_tool_calls and not whole.content
    cuts = sorted(data.draw(st.sets(st.integers(1, len(text) - 1), max_size=12)))
    chunks = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]
    events, parser = stream_events(chunks, format=fmt, tools=TOOLS, thinking=False)
    ref, _ = stream_events(list(text), format=fmt, tools=TOOLS, thinking=False)
    assert parser.message.tool_calls == whole.tool_calls and normalise(events) == normalise(ref)


@pytest.mark.parametrize("name", FORMATS)
def test_a_closing_tag_before_a_parameter_the_tool_does_not_take_is_the_values_text(name):
    fmt = get_format(name)
    x = fmt.tools.xml
    content = "x" + x.value_close + "\n" + x.key_tag("new_string", "") + x.between + x.value_open + "y"
    m = every_split_agrees(_call(fmt, content + x.value_close), format=fmt, tools=TOOLS, thinking=False)
    assert json.loads(m.tool_calls[0].arguments)["content"] == content + x.value_close
    # without the tool's schema any key may follow: the same text is read as two parameters
    m = every_split_agrees(_call(fmt, content + x.value_close), format=fmt, thinking=False)
    assert m.tool_calls and set(json.loads(m.tool_calls[0].arguments)) == {"path", "content", "new_string"}


@pytest.mark.parametrize("name", FORMATS)
def test_a_value_that_never_closes_makes_the_call_invalid_and_names_why(name):
    fmt = get_format(name)
    x, t = fmt.tools.xml, fmt.tools
    # the closing tag is followed by the parameter already given: the value goes on, and never ends
    body = x.parameter("path", "a.py") + x.key_tag("content", "") + x.value_open + "x" + x.value_close + "\n" + x.parameter("path", "b.py")
    bad = t.call_begin + t.header_text("write_file") + body + t.footer + t.call_end
    m = every_split_agrees(t.section_around(bad) + "\nDone.", format=fmt, tools=TOOLS, thinking=False)
    assert m.tool_calls == [] and m.invalid_tool_calls[0].error == "the parameter 'path' is given twice"
    assert m.content.strip() == "Done."


def _grammar(fmt, schema):
    return xgr.Grammar.from_ebnf(parameters_grammar(schema, fmt.tools.xml, 4)["grammar"])


@pytest.mark.parametrize("name", FORMATS)
def test_the_grammar_writes_no_value_the_parser_reads_otherwise(name):
    fmt = get_format(name)
    x = fmt.tools.xml
    g = _grammar(fmt, SCHEMA)

    def params(content):
        return x.parameter("path", "a.py") + x.parameter("content", content)

    assert accepts(g, params("a <b> c"))
    # a plain string holds neither the closing tag (xgrammar's style) nor a parameter tag's opening
    assert not accepts(g, params("a" + x.value_close + "b"))
    assert not accepts(g, params("see " + x.key_tag("path", "") + "q"))
    # a pattern's string may hold the closing tag: followed by text, it is read back whole
    loose = {"type": "object", "properties": {"path": {"type": "string", "pattern": "^.*$"}}, "required": ["path"]}
    value = "a" + x.value_close + "b"
    assert accepts(_grammar(fmt, loose), x.parameter("path", value))
    tools = [{"type": "function", "function": {"name": "write_file", "parameters": loose}}]
    text = fmt.tools.section_text([("write_file", json.dumps({"path": value}))])
    m = every_split_agrees(text, format=fmt, tools=tools, thinking=False)
    assert json.loads(m.tool_calls[0].arguments) == {"path": value}
