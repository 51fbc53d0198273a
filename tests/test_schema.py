"""Tool schemas are rewritten into what xgrammar enforces exactly; what it cannot is refused.

Each case compiles the prepared schema with xgrammar and checks instances against jsonschema:
an instance the grammar accepts must be valid."""

import json
import re

import jsonschema
import pytest
import xgrammar as xgr

from thinkgate.constraint.schemas.schema import FORMATS, optional_groups_as_ranges, prepare
from thinkgate.constraint.runtime.vocabulary import vocabulary_for

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
        ({"type": "object", "properties": {"a": {"allOf": [{"type": "string"}, {"type": "integer"}]}}, "required": ["a"]}, "no value has both"),
        ({"type": "object", "properties": {"a": {"type": "string", "minLength": 5, "maxLength": 2}}, "required": ["a"]}, "'minLength' 5 is greater than 'maxLength' 2 at #/properties/a"),
        ({"type": "object", "properties": {"a": {"anyOf": [{"type": "string", "minLength": 5}, {"type": "string", "maxLength": 2}]}}}, "bounds that apply together at #/properties/a conflict"),
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


def test_nodes_follow_refs_patterns_items_and_alternatives():
    from thinkgate.constraint.schemas.schema_nodes import build_nodes

    schema = {
        "type": "object",
        "$defs": {"short": {"type": "string", "maxLength": 4}, "tree": {"type": "object", "properties": {"label": {"$ref": "#/$defs/short"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/tree"}}}}},
        "properties": {
            "t": {"$ref": "#/$defs/tree"},
            "pair": {"type": "array", "prefixItems": [{"type": "string", "minLength": 2}, {"type": "string", "maxLength": 1}], "items": {"type": "string", "maxLength": 9}},
            "either": {"anyOf": [{"type": "string", "maxLength": 5, "minLength": 1}, {"type": "string", "maxLength": 3}]},
            "free": {"type": "object", "patternProperties": {"^x": {"type": "string", "maxLength": 2}, "y$": {"type": "string", "minLength": 1}}, "additionalProperties": {"type": "string", "maxLength": 7}},
        },
    }
    root = build_nodes(schema)
    tree = root.child("t", 0)
    assert tree.child("label", 0).max_len == 4
    assert tree.child("kids", 0).child(None, 3).child("kids", 0).child(None, 0).child("label", 0).max_len == 4
    pair = root.child("pair", 0)
    assert (pair.child(None, 0).min_len, pair.child(None, 1).max_len, pair.child(None, 5).max_len) == (2, 1, 9)
    either = root.child("either", 0)
    assert (either.min_len, either.max_len) == (1, 3)
    free = root.child("free", 0)
    assert free.child("xa", 0).max_len == 2
    both = free.child("xy", 0)
    assert (both.min_len, both.max_len) == (1, 2) and free.child("xy", 0) is both  # merged once
    assert free.child("other", 0).max_len == 7
    with pytest.raises(ValueError, match="only local"):
        build_nodes({"$ref": "http://x/y"})
    with pytest.raises(ValueError, match="points nowhere"):
        build_nodes({"$ref": "#/$defs/nope"})


def test_refs_with_siblings_are_inlined_and_recursive_ones_refused(compiler):
    schema = {"type": "object", "$defs": {"n": {"type": "integer", "minimum": 0}}, "properties": {"a": {"$ref": "#/$defs/n", "maximum": 3}}, "required": ["a"]}
    assert agrees(compiler, schema, [{"a": 2}, {"a": 5}, {"a": -1}]) == [{"a": 2}]
    recursive = {"type": "object", "$defs": {"t": {"type": "object", "properties": {"k": {"$ref": "#/$defs/t"}}}}, "properties": {"a": {"$ref": "#/$defs/t", "minProperties": 1}}}
    with pytest.raises(ValueError, match="recursive"):
        prepare(recursive, "tool 't'")


def test_all_of_with_any_of_inside_is_distributed(compiler):
    schema = {"type": "object", "properties": {"v": {"allOf": [{"anyOf": [{"type": "integer"}, {"type": "string", "pattern": "^a.$"}]}, {"type": ["integer", "string"], "minimum": 10}]}}, "required": ["v"]}
    got = agrees(compiler, schema, [{"v": 12}, {"v": 3}, {"v": "ab"}, {"v": "ba"}])
    assert got == [{"v": 12}, {"v": "ab"}]
    with pytest.raises(ValueError, match="two anyOf lists"):
        prepare({"type": "object", "allOf": [{"anyOf": [{"required": ["a"]}]}, {"anyOf": [{"required": ["b"]}]}]}, "tool 't'")
    with pytest.raises(ValueError, match="two different 'pattern'"):
        prepare({"type": "object", "properties": {"s": {"allOf": [{"type": "string", "pattern": "^a"}, {"pattern": "^b"}]}}}, "tool 't'")


def test_one_of_kinds_of_disjoint_branches():
    by_enum = {"type": "object", "properties": {"a": {"oneOf": [{"enum": ["x", "y"]}, {"enum": [1, 2]}]}}}
    assert "oneOf" in json.dumps(prepare(by_enum, "tool 't'").xgrammar_schema)
    same_tag = {"type": "object", "properties": {"a": {"oneOf": [{"type": "object", "properties": {"k": {"const": "x"}}, "required": ["k"]}, {"type": "object", "properties": {"k": {"enum": ["x", "z"]}}, "required": ["k"]}]}}}
    with pytest.raises(ValueError, match="may overlap"):
        prepare(same_tag, "tool 't'")
    relaxed = prepare(same_tag, "tool 't'", unsupported="relax").xgrammar_schema
    assert "anyOf" in json.dumps(relaxed)


def test_bad_parameters_and_options():
    with pytest.raises(ValueError, match="unsupported must be"):
        prepare({"type": "object"}, "t", unsupported="maybe")
    with pytest.raises(ValueError, match="must be a JSON schema object"):
        prepare([1], "t")
    assert prepare(None, "t").xgrammar_schema == {"type": "object", "properties": {}}
    with pytest.raises(ValueError, match="no arguments can satisfy the schema: the schema false at #/properties/a/allOf/1"):
        prepare({"type": "object", "properties": {"a": {"allOf": [{"type": "string"}, False]}}, "required": ["a"]}, "t")
    with pytest.raises(ValueError, match="enum/const that no value"):
        prepare({"type": "object", "properties": {"a": {"type": "string", "enum": [1, 2]}}, "required": ["a"]}, "t")
    # a format on a non-string constrains nothing and goes; an unknown format is refused
    assert "pattern" not in json.dumps(prepare({"type": "object", "properties": {"a": {"type": "integer", "format": "date"}}}, "t").xgrammar_schema)
    out = prepare({"type": "object", "properties": {"a": {"type": "string", "format": "hostname"}}}, "t", unsupported="relax").xgrammar_schema
    assert out["properties"]["a"] == {"type": "string"}


def test_example_values_validate():
    from schemas import REALISTIC

    from thinkgate.constraint.schemas.examples import example_value

    extra = {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "number", "minimum": 2.5}, "minItems": 2}, "b": {"anyOf": [{"type": "null"}, {"type": "string"}]}, "c": {"type": "string", "pattern": "^[^@]+@[^@]+$"}, "d": {"type": "string", "minLength": 10, "maxLength": 12}, "e": {"$ref": "#/$defs/x"}, "f": {"type": ["null", "boolean"]}}, "required": ["a", "b", "c", "d", "e", "f"], "$defs": {"x": {"const": 3}}}
    for schema in [t["function"]["parameters"] for t in REALISTIC] + [extra]:
        jsonschema.validate(example_value(schema), schema, format_checker=CHECKER)


def _required(schema):
    return {"type": "object", "properties": {"a": schema}, "required": ["a"]}


@pytest.mark.parametrize(
    "schema, message",
    [
        ({"type": "integer", "minimum": 5, "maximum": 3}, "no integer lies between 'minimum' 5 and 'maximum' 3 at #/properties/a"),
        ({"type": "integer", "minimum": 1.5, "maximum": 1.7}, "no integer lies between 'minimum' 1.5 and 'maximum' 1.7 at #/properties/a"),
        ({"type": "integer", "exclusiveMinimum": 5, "exclusiveMaximum": 6}, "no integer lies between 'exclusiveMinimum' 5 and 'exclusiveMaximum' 6"),
        ({"type": "number", "exclusiveMinimum": 5, "maximum": 5}, "no number lies between 'exclusiveMinimum' 5 and 'maximum' 5"),
        ({"type": "array", "minItems": 5, "maxItems": 3}, "'minItems' 5 is greater than 'maxItems' 3 at #/properties/a"),
        ({"type": "array", "items": False, "minItems": 1}, "'minItems' 1 asks for more items than the 0"),
        ({"type": "object", "minProperties": 5, "maxProperties": 3}, "'minProperties' 5 is greater than 'maxProperties' 3 at #/properties/a"),
        ({"type": "object", "properties": {"x": {}}, "additionalProperties": False, "minProperties": 2}, "'minProperties' 2 asks for more properties than the 1"),
        ({"type": "object", "required": ["x", "y"], "maxProperties": 1}, "2 'required' properties are more than 'maxProperties' 1"),
        ({"type": "string", "pattern": "^[0-9]{4}$", "maxLength": 3}, "matches nothing as short as 'maxLength' 3"),
        ({"type": "boolean", "enum": ["True", "False"]}, "an enum/const that no value of its siblings' constraints can take"),
        ({"enum": []}, "an enum/const that no value"),
        ({"anyOf": [{"type": "integer", "minimum": 3, "maximum": 1}, False]}, "no branch that some value satisfies"),
        ({"$ref": "#/$defs/never"}, "$ref '#/$defs/never' to a schema that no value can satisfy"),
        ({"type": "integer", "minimum": 10**19}, "integer bounds past ±10^18"),
        ({"exclusiveMaximum": -(10**20)}, "number bounds past ±10^15 ('exclusiveMaximum' -100000000000000000000)"),
        ({"type": "string", "format": "email", "minLength": 60, "maxLength": 64}, "'format' 'email' together with 'minLength' and 'maxLength'"),
    ],
)
def test_bounds_no_value_satisfies_are_refused_by_name(schema, message):
    """An impossible required place is a ValueError naming the keyword and the place, found
    before xgrammar (whose compile would fail inside an engine step)."""
    parameters = _required(schema)
    if "$ref" in schema:
        parameters["$defs"] = {"never": {"type": "string", "minLength": 3, "maxLength": 1}}
    with pytest.raises(ValueError, match=re.escape(message)):
        prepare(parameters, "tool 't'")


def test_impossible_optional_places_are_never_written(compiler, caplog):
    # the Berkeley Function Calling Leaderboard's boolean "enum": ["True", "False", "dontcare"]
    schema = {"type": "object", "properties": {"flag": {"type": "boolean", "enum": ["True", "False", "dontcare"]}, "n": {"type": "integer", "minimum": 3, "maximum": 1}, "ok": {"type": "integer"}}, "required": ["ok"]}
    out = prepare(schema, "tool 't'").xgrammar_schema
    assert set(out["properties"]) == {"ok"} and "never written" in caplog.text
    assert agrees(compiler, schema, [{"ok": 1}, {"ok": 1, "flag": True}, {"ok": 1, "n": 2}]) == [{"ok": 1}]
    # an impossible item type leaves only the empty array; an impossible anyOf branch goes
    arr = {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string", "minLength": 2, "maxLength": 1}}, "b": {"anyOf": [{"type": "integer"}, {"type": "string", "enum": [1]}]}}, "required": ["a", "b"]}
    assert agrees(compiler, arr, [{"a": [], "b": 1}, {"a": ["x"], "b": 1}, {"a": [], "b": "x"}]) == [{"a": [], "b": 1}]
    # unless something else would still let the key be written
    with pytest.raises(ValueError, match="additionalProperties or patternProperties would let it be written"):
        prepare({"type": "object", "properties": {"n": {"type": "integer", "minimum": 3, "maximum": 1}}, "additionalProperties": True}, "tool 't'")


@pytest.mark.parametrize("parameters", [None, {}, {"properties": {}}, {"type": "object"}])
def test_no_arguments_mean_an_object(compiler, parameters):
    """"parameters": {} (the usual "no arguments") was any JSON value to xgrammar: a model wrote a
    bare number where the arguments object belongs."""
    out = prepare(parameters, "tool 't'").xgrammar_schema
    assert out["type"] == "object"
    assert accepts(compiler, out, "{}") and not accepts(compiler, out, "55058304")


def test_keywords_without_a_type_constrain_their_type(compiler):
    """xgrammar ignores maxItems, pattern or minimum on a schema without "type" (it accepted 3 for
    {"minimum": 5}); thinkgate reads the type from the keywords (narrower, never wider)."""
    schema = {"type": "object", "properties": {"l": {"maxItems": 1}, "s": {"pattern": "^a+$"}, "n": {"minimum": 5}}, "required": ["l", "s", "n"]}
    out = prepare(schema, "tool 't'").xgrammar_schema["properties"]
    assert (out["l"]["type"], out["s"]["type"], out["n"]["type"]) == ("array", "string", "number")
    assert agrees(compiler, schema, [{"l": [1], "s": "aa", "n": 7}, {"l": [1, 2], "s": "aa", "n": 7}, {"l": [], "s": "b", "n": 7}, {"l": [], "s": "a", "n": 3}]) == [{"l": [1], "s": "aa", "n": 7}]


def test_a_type_whose_bounds_hold_nothing_is_taken_out(compiler):
    schema = _required({"type": ["integer", "string"], "minimum": 5, "maximum": 3, "maxLength": 2})
    assert prepare(schema, "tool 't'").xgrammar_schema["properties"]["a"] == {"type": "string"}


def test_bounds_of_any_size_compile(compiler):
    schema = {"type": "object", "properties": {"s": {"type": "string", "minLength": 500000, "maxLength": 10**6}, "l": {"type": "array", "items": {"type": "integer"}, "minItems": 10**4, "maxItems": 10**4}, "big": {"type": "integer", "minimum": -(10**30), "maximum": 10**30}, "m": {"type": "object", "minProperties": 1000}}}
    out = prepare(schema, "tool 't'")
    assert out.nodes.child("s", 0).max_len == 10**6
    assert out.xgrammar_schema["properties"]["big"] == {"type": "integer", "minimum": -(10**18), "maximum": 10**18}
    wide = prepare(_required({"type": "number", "exclusiveMinimum": -1e20, "maximum": 1e300}), "t").xgrammar_schema["properties"]["a"]
    assert wide == {"type": "number", "minimum": -(10**15), "maximum": 10**15}  # doubles hold integers to 2^53
    assert out.xgrammar_schema["properties"]["m"]["additionalProperties"] is True  # JSON Schema's default
    compiler.compile_json_schema(out.xgrammar_schema)


def test_nesting_compiles_to_the_limit_and_is_refused_by_name_past_it():
    from schema_fuzz import nested

    prepare({"type": "object", "properties": {"d": nested(63)}}, "tool 't'")
    with pytest.raises(ValueError, match=r"tool 't': the schema nests more than 128 levels deep \(at #/properties/d/properties/x"):
        prepare({"type": "object", "properties": {"d": nested(64)}}, "tool 't'")
    with pytest.raises(ValueError, match="nests more than 128 levels"):
        prepare({"type": "object", "properties": {"d": nested(5000)}}, "tool 't'")


def test_a_pattern_with_lengths_is_one_pattern(compiler):
    """A pattern and length bounds are enforced as one (xgrammar the pattern, the guard the
    lengths could leave a string the pattern began that no string within the lengths ends)."""
    out = prepare(_required({"type": "string", "pattern": "^[a-z]+$", "minLength": 2, "maxLength": 4}), "tool 't'")
    assert out.xgrammar_schema["properties"]["a"] == {"type": "string", "pattern": "^[a-z]{2,4}$"}
    assert prepare(_required({"type": "string", "pattern": "^[A-Z]{3}$", "maxLength": 9}), "t").bounded_schema["properties"]["a"] == {"type": "string", "pattern": "^[A-Z]{3}$"}
    with pytest.raises(ValueError, match=re.escape("'pattern' '^(ab|cd)*$' together with 'maxLength'")):
        prepare(_required({"type": "string", "pattern": "^(ab|cd)*$", "maxLength": 1}), "t")


def test_pattern_properties_mean_what_json_schema_means(compiler):
    schema = {"type": "object", "patternProperties": {"^x": {"type": "integer"}}, "properties": {"xa": {"minimum": 3}}, "required": ["xa"]}
    out = prepare(schema, "tool 't'").xgrammar_schema
    assert out["properties"]["xa"] == {"minimum": 3, "type": "integer"}  # the pattern's schema applies too
    assert agrees(compiler, schema, [{"xa": 4, "xyz": 1}, {"xa": 2}, {"xa": 4, "xb": "s"}, {"xa": 4, "y": 1}]) == [{"xa": 4, "xyz": 1}]
    # a pattern whose schema no value satisfies takes the properties it matches with it
    never = {"type": "object", "properties": {"xa": {"type": "string"}, "b": {"type": "string"}}, "patternProperties": {"^x": {"type": "boolean", "enum": ["True"]}}}
    assert set(prepare(never, "t").xgrammar_schema["properties"]) == {"b"}
    with pytest.raises(ValueError, match="property 'xa' is required"):
        prepare(dict(never, required=["xa"]), "t")
    with pytest.raises(ValueError, match="admits only a few keys"):
        prepare({"type": "object", "patternProperties": {"^(a|b)$": {}}}, "tool 't'")
    required = {"type": "object", "required": ["a"], "additionalProperties": {"type": "string", "maxLength": 2}}
    assert prepare(required, "t").nodes.child("a", 0).max_len == 2
    assert agrees(compiler, required, [{"a": "x"}, {"a": 1}]) == [{"a": "x"}]


def test_one_of_narrowed_branches_stay_exclusive():
    """Reading a typeless branch as its keywords' type narrows it; under oneOf that would admit a
    value the unnarrowed branches both match, so the branches are compared as written."""
    with pytest.raises(ValueError, match="may overlap"):
        prepare(_required({"oneOf": [{"pattern": "^[a-z]+$"}, {"properties": {}, "additionalProperties": False}]}), "t")


def test_all_of_merges_items_past_each_prefix(compiler):
    schema = _required({"allOf": [{"type": "array", "items": {"type": "boolean"}}, {"type": "array", "prefixItems": [{"type": ["string", "boolean"]}]}]})
    assert agrees(compiler, schema, [{"a": [True, False]}, {"a": ["x"]}, {"a": []}]) == [{"a": [True, False]}, {"a": []}]


def test_xgrammar_faults_are_refused_with_their_place(monkeypatch):
    real = xgr.Grammar.from_json_schema

    def picky(text, **kw):
        if '"minimum": 42' in text:
            raise RuntimeError("[12:00:00] /project/cpp/json_schema_converter.cc:1: some fault")
        return real(text, **kw)

    monkeypatch.setattr(xgr.Grammar, "from_json_schema", staticmethod(picky))  # schema_checks imports xgrammar when it checks
    with pytest.raises(ValueError, match=re.escape("tool 't': the schema at #/properties/a/items cannot be compiled (some fault); its keywords: 'minimum', 'type'")):
        prepare(_required({"type": "array", "items": {"minimum": 42, "type": "integer"}}), "tool 't'")


def test_a_pattern_no_value_satisfies_is_refused_where_minproperties_would_free_other_keys():
    # Found by the 10,000-schema fuzz (Qwen3 layout): minProperties made the other keys free
    # after the pattern whose schema holds nothing was dropped, so a key "x…" got a number.
    dead = {"type": "string", "minLength": 5, "pattern": "^[0-9]{2,4}$"}
    with pytest.raises(ValueError, match=re.escape("whose keys the other properties 'minProperties' 1 asks for could match at #/patternProperties/^x")):
        prepare({"properties": {}, "patternProperties": {"^x": dead}, "minProperties": 1}, "tool 't'")
    # with a declared property to take the place, the dead pattern's keys simply never come
    ok = prepare({"properties": {"a": {"type": "integer"}}, "patternProperties": {"^x": dead}, "minProperties": 1}, "tool 't'")
    assert ok.xgrammar_schema.get("additionalProperties", False) is False and not ok.xgrammar_schema["patternProperties"]
