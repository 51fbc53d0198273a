"""Tool schemas are rewritten into what xgrammar enforces exactly; what it cannot is refused.

Each case compiles the prepared schema with xgrammar and checks instances against jsonschema:
an instance the grammar accepts must be valid."""

import json
import re

import jsonschema
import pytest
import xgrammar as xgr

from thinkgate.constraint.schema import FORMATS, optional_groups_as_ranges, prepare
from thinkgate.constraint.vocabulary import vocabulary_for

CHECKER = jsonschema.Draft202012Validator.FORMAT_CHECKER


@pytest.fixture(scope="module")
def compiler(tokenizer):
    return xgr.GrammarCompiler(vocabulary_for(tokenizer).info, cache_enabled=False)


def accepts(compiler, schema, instance_text):
    m = xgr.GrammarMatcher(compiler.compile_json_schema(schema, any_whitespace=True))
    return m.accept_string(instance_text) and m.is_completed()


def agrees(compiler, schema, instances):
    """The prepared grammar accepts an instance only if jsonschema says it is valid; returns the
    instances it accepts."""
    prepared = prepare(schema, "tool 't'").xgrammar_schema
    validator = jsonschema.Draft202012Validator(schema, format_checker=CHECKER)
    accepted = []
    for inst in instances:
        text = json.dumps(inst, separators=(",", ":"), ensure_ascii=False)
        if accepts(compiler, prepared, text):
            assert validator.is_valid(inst), (schema, inst)
            accepted.append(inst)
    return accepted


def test_enum_is_filtered_by_its_siblings(compiler):
    schema = {"type": "object", "properties": {"a": {"type": "string", "enum": ["x", 1, "yy"], "maxLength": 1}}, "required": ["a"]}
    assert agrees(compiler, schema, [{"a": "x"}, {"a": 1}, {"a": "yy"}]) == [{"a": "x"}]


def test_all_of_is_merged(compiler):
    schema = {"type": "object", "allOf": [{"properties": {"a": {"type": "integer", "minimum": 0}}, "required": ["a"]}, {"properties": {"a": {"maximum": 5}, "b": {"type": "boolean"}}, "required": ["b"]}]}
    got = agrees(compiler, schema, [{"a": 3, "b": True}, {"a": 7, "b": True}, {"a": 3}, {"b": False}, 7])
    assert got == [{"a": 3, "b": True}]


def test_siblings_of_any_of_go_into_each_branch(compiler):
    schema = {"type": "object", "properties": {"n": {"anyOf": [{"type": "integer"}, {"type": "number"}], "maximum": 5}}, "required": ["n"]}
    assert agrees(compiler, schema, [{"n": 3}, {"n": 7}, {"n": 2.5}, {"n": 9.5}]) == [{"n": 3}, {"n": 2.5}]
    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "anyOf": [{"required": ["a"]}, {"required": ["b"]}]}
    assert agrees(compiler, schema, [{"a": 1}, {"b": 2}, {}, 7]) == [{"a": 1}, {"b": 2}]


def test_required_names_missing_from_properties_are_added(compiler):
    schema = {"type": "object", "required": ["a"]}
    assert agrees(compiler, schema, [{}, {"a": [1, {"x": None}]}]) == [{"a": [1, {"x": None}]}]


def test_integer_bounds_are_rounded_inwards(compiler):
    schema = {"type": "object", "properties": {"i": {"type": "integer", "minimum": 0.5, "exclusiveMaximum": 3}}, "required": ["i"]}
    assert agrees(compiler, schema, [{"i": 0}, {"i": 1}, {"i": 2}, {"i": 3}]) == [{"i": 1}, {"i": 2}]


def test_optional_group_bug_is_worked_around(compiler):
    pattern = r"^1(x[0-9]{1,2})?Z$"
    schema = {"type": "object", "properties": {"s": {"type": "string", "pattern": pattern}}, "required": ["s"]}
    assert agrees(compiler, schema, [{"s": "1Z"}, {"s": "1x5Z"}, {"s": "15Z"}]) == [{"s": "1Z"}, {"s": "1x5Z"}]
    assert optional_groups_as_ranges(r"(a(b)?)?[)?]\)?") == r"(a(b){0,1}){0,1}[)?]\)?"


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_format_patterns_admit_only_valid_values(compiler, fmt):
    samples = {
        "date-time": ["2024-02-29T12:00:00Z", "2023-02-29T12:00:00Z", "2024-04-31T00:00:00Z", "2024-01-01T23:59:60Z", "2024-01-01T10:00:00.123+05:30", "2024-01-01t10:00:00z", "0000-01-01T00:00:00Z"],
        "date": ["2024-02-29", "2100-02-29", "2000-02-29", "2024-13-01", "0000-01-01"],
        "time": ["23:59:59Z", "23:59:60Z", "24:00:00Z", "12:00:00.5-01:00", "12:00:00"],
        "uuid": ["123e4567-e89b-12d3-a456-426614174000", "123e4567e89b12d3a456426614174000"],
        "ipv4": ["192.168.0.1", "01.2.3.4", "256.1.1.1", "1.2.3"],
        "ipv6": ["::1", "2001:db8::8a2e:370:7334", "1:2:3:4:5:6:7:8:9", "fe80::"],
        "email": ["a.b@example.com", "nobody", "x@y.z9"],
        "idn-email": ["a.b@example.com", "nobody"],
        "uri": ["https://example.com/a/b?c=d", "ftp://x", "http://", "https://en.wikipedia.org/wiki/Paris"],
        "iri": ["https://example.com/a/b?c=d", "relative/path"],
    }[fmt]
    schema = {"type": "object", "properties": {"v": {"type": "string", "format": fmt}}, "required": ["v"]}
    got = agrees(compiler, schema, [{"v": s} for s in samples])
    assert got  # the pattern is not empty
    for s in samples:
        assert bool(re.fullmatch(FORMATS[fmt], s)) == ({"v": s} in got), s


@pytest.mark.parametrize(
    "schema, message",
    [
        ({"type": "object", "properties": {"a": {"not": {"type": "string"}}}}, "keyword 'not' at #/properties/a"),
        ({"type": "object", "properties": {"a": {"type": "array", "uniqueItems": True}}}, "'uniqueItems'"),
        ({"type": "object", "properties": {"a": {"type": "number", "multipleOf": 0.5}}}, "'multipleOf'"),
        ({"type": "object", "properties": {"a": {"oneOf": [{"type": "integer"}, {"type": "number"}]}}}, "'oneOf' whose branches may overlap"),
        ({"type": "object", "properties": {"a": {"type": "string", "format": "hostname"}}}, "string format 'hostname'"),
        ({"type": "object", "properties": {"a": {"type": "string", "pattern": '^a"b$'}}}, "cannot match inside JSON text"),
        ({"type": "object", "properties": {"a": {"type": "string", "pattern": r"^\s+$"}}}, "cannot match inside JSON text"),
        ({"type": "object", "properties": {"a": {"type": "string", "pattern": r"^(?=a)a$"}}}, "cannot match inside JSON text"),
        ({"type": "object", "properties": {"a": {"type": "string", "pattern": "^(a$"}}}, "is not a 'regex'"),
        ({"type": "object", "properties": {"a": {"type": "string", "format": "date", "pattern": "^2"}}}, "together with a pattern"),
        ({"type": "object", "additionalProperties": False, "required": ["x"]}, "'required' names 'x'"),
        ({"type": "object", "properties": {"a": {"allOf": [{"type": "string"}, {"type": "integer"}]}}}, "no value has both"),
        ({"type": "object", "properties": {"a": {"type": "string", "minLength": 5, "maxLength": 2}}}, "conflict"),
    ],
)
def test_what_cannot_be_enforced_is_refused_by_name(schema, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        prepare(schema, "tool 't'")


def test_relax_drops_with_a_warning(caplog):
    schema = {"type": "object", "properties": {"a": {"type": "array", "uniqueItems": True}}}
    out = prepare(schema, "tool 't'", unsupported="relax").xgrammar_schema
    assert "uniqueItems" not in json.dumps(out)
    assert "not enforced" in caplog.text


def test_disjoint_one_of_is_kept():
    schema = {"type": "object", "properties": {"a": {"oneOf": [{"type": "string"}, {"type": "integer"}]}, "b": {"oneOf": [{"type": "object", "properties": {"kind": {"const": "x"}}, "required": ["kind"]}, {"type": "object", "properties": {"kind": {"const": "y"}}, "required": ["kind"]}]}}}
    out = prepare(schema, "tool 't'").xgrammar_schema
    assert "oneOf" in json.dumps(out)


def test_annotations_are_dropped_and_lengths_left_to_the_guard():
    schema = {"type": "object", "title": "T", "description": "d", "x-extra": 1, "properties": {"maxLength": {"type": "string", "maxLength": 3, "default": "a"}}}
    out = prepare(schema, "tool 't'")
    assert out.xgrammar_schema == {"type": "object", "properties": {"maxLength": {"type": "string"}}}
    assert out.nodes.child("maxLength", 0).max_len == 3
