"""The one-document 2020-12 metaschema (thinkgate.constraint.schemas.metaschema) finds in a schema the
errors the published metaschema finds, at the same places with the same messages."""

from __future__ import annotations

import jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema_specifications import REGISTRY

from schema_fuzz import tool_schemas
from thinkgate.constraint.schemas.metaschema import DRAFT, flat_metaschema
from thinkgate.constraint.schemas.schema import prepare

PUBLISHED = jsonschema.Draft202012Validator(jsonschema.Draft202012Validator.META_SCHEMA, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
FLAT = jsonschema.Draft202012Validator(flat_metaschema(), format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
# Every keyword the metaschema describes, and some it does not.
KEYWORDS = sorted(PUBLISHED.schema.get("properties", {})) + sorted(
    k for part in PUBLISHED.schema["allOf"] for k in REGISTRY.contents(DRAFT + part["$ref"])["properties"]
) + ["x-extra", "nullable"]

_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(-2, 2, allow_nan=False),
    st.sampled_from(["", "string", "object", "integer", "#", "#/$defs/a", "a#b", "(", "^[a-z]+$", "x y", "uri:ok", "1a"]),
)
# Schema-like values: objects of keywords (known and not) whose values are leaves, lists or
# further such objects: mostly broken schemas, broken in every place the metaschema looks.
SCHEMAS = st.recursive(
    _LEAVES,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(KEYWORDS), inner, max_size=4)),
    max_leaves=12,
)


def errors(validator, schema):
    return sorted({(tuple(str(p) for p in e.absolute_path), e.message) for e in validator.iter_errors(schema)})


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SCHEMAS)
def test_the_same_errors_as_the_published_metaschema_on_broken_schemas(schema):
    assert errors(FLAT, schema) == errors(PUBLISHED, schema)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(tool_schemas())
def test_the_same_verdict_on_tool_schemas(schema):
    assert errors(FLAT, schema) == errors(PUBLISHED, schema)


def test_a_broken_schema_is_named_at_its_place():
    for schema, said in (
        ({"type": "object", "properties": {"a": {"type": "strin"}}}, "invalid JSON schema at #/properties/a/type"),
        ({"type": "object", "properties": {"a": {"minLength": -1}}}, "invalid JSON schema at #/properties/a/minLength: -1 is less than the minimum of 0"),
        ({"type": "object", "properties": {"a": {"pattern": "("}}}, "invalid JSON schema at #/properties/a/pattern: '(' is not a 'regex'"),
        ({"type": "object", "$defs": {"a": {"required": ["x", "x"]}}}, "invalid JSON schema at #/$defs/a/required"),
    ):
        try:
            prepare(schema, "tool 'f'")
        except ValueError as e:
            assert str(e).startswith("tool 'f': " + said), e
        else:
            raise AssertionError(f"{schema} was not refused")
