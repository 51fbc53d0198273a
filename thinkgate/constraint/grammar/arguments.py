"""The arguments styles as grammar: the schema a call object is held to (the name a constant,
the arguments the tool's schema) and the schema of arguments written as parameters."""

from __future__ import annotations

import copy
import json
import logging
import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Optional

from ...formats.base import admits_free_keys
from ..schemas.schema_checks import subschemas
from ..schemas.schema_nodes import call_object_node

if TYPE_CHECKING:
    from .structural_tag import ToolSpec

log = logging.getLogger("thinkgate.constraint")


def parameters_schema(spec: ToolSpec, xml: Any, format_name: str) -> Any:
    """A tool's schema for arguments written as parameters: every key the grammar can write must
    be a name the parser reads. Declared names are checked; free keys get identifier names."""
    schema = spec.schema.bounded_schema
    if not isinstance(schema, dict):
        return schema
    where = f"tool {spec.name!r}"
    unreadable = [k for k in schema.get("properties", {}) if not xml.readable_name(k)]
    if unreadable:
        raise ValueError(
            f"{where}: the property name {unreadable[0]!r} at #/properties/{unreadable[0]} cannot be a parameter's "
            f"name in format {format_name!r} (a name matches {xml.name_pattern}, at most {xml.name_length} characters)"
        )
    _warn_of_lengths(schema, where, format_name)
    # xgrammar reads an object that says nothing but its type as any object (its keys any
    # identifiers of any length), though its absent additionalProperties is false elsewhere
    free = admits_free_keys(schema)
    if schema.get("patternProperties") or (free and "propertyNames" in schema):
        keyword = "patternProperties" if schema.get("patternProperties") else "propertyNames"
        raise ValueError(f"{where}: {keyword!r} at # cannot be enforced on parameter names in format {format_name!r}; declare the parameters in 'properties'")
    if free:
        # names the parser reads: no longer than its bound (said explicitly, or the added
        # keyword would make xgrammar's bare object a closed one)
        schema = {**schema, "additionalProperties": schema.get("additionalProperties", True), "propertyNames": {"pattern": xml.free_name_pattern}}
    return schema


_WARNED: set[tuple[str, str, str]] = set()


def _warn_of_lengths(schema: dict, where: str, format_name: str) -> None:
    """Say once per tool that a string length bound in a parameter format is costly: the guard
    does not follow parameter values, so xgrammar holds the bound as a bounded repetition of any
    character, after which it checks the vocabulary token by token (up to ~45 ms a row at such a
    step, measured in ``benchmarks/step_overhead.py``)."""
    path = next((p for p, sub, _ in subschemas(schema, "#", 0) if isinstance(sub, dict) and ("minLength" in sub or "maxLength" in sub)), None)
    if path is not None and (where, format_name, path) not in _WARNED:
        _WARNED.add((where, format_name, path))
        log.warning(
            "%s: the string length bound at %s is held by xgrammar's grammar in format %r, whose mask then costs up to "
            "tens of milliseconds a row at the steps after such a value; leave string lengths out of tools served in "
            "this format where step time matters",
            where,
            path,
            format_name,
        )


def parameters_grammar(schema: Any, xml: Any, max_whitespace: Optional[int]) -> dict:
    """The grammar of a tool's parameters (``schema`` from :func:`parameters_schema`): xgrammar's
    XML style, with two changes. Its style lets any whitespace stand around a value whose text is
    not the bare string (an enum, a length, a pattern), and the parser returns a value verbatim
    but for the format's ``padding`` once on each side; so around every value only that padding
    may stand, and what the parser returns is what the grammar held to the schema. And a plain
    string value, which the style already keeps free of the value's closing tag, is kept free of
    a parameter tag's opening too (the parser pairs such a tag with the next closing tag)."""
    return {"type": "grammar", "grammar": _padded_values(json.dumps(schema), xml, max_whitespace)}


# A run of whitespace as xgrammar writes it in a grammar's text: unbounded, or up to a count.
_WHITESPACE = r"(?:\[ \\n\\r\\t\]\*|whitespace(?:_\d+)?\{0, \d+\})"


@lru_cache(maxsize=1024)
def _padded_values(schema_json: str, xml: Any, max_whitespace: Optional[int]) -> str:
    import xgrammar as xgr  # only XML styles need it to build a tag

    tag = {"type": "structural_tag", "format": {"type": "json_schema", "json_schema": json.loads(schema_json), "style": xml.style, "max_whitespace_cnt": max_whitespace}}
    ebnf = _respelled(str(xgr.Grammar.from_structural_tag(json.dumps(tag))), xml)
    # the text before a value as the style writes it: the value's opening tag, or the key's
    # close (a typed tag's: the text after its type, or the whole close with a type's word)
    openings = xml.value_openings
    closing = json.dumps(xml.value_close)
    padding = f"({json.dumps(xml.padding)})?" if xml.padding else '""'
    opening = "(" + "|".join(re.escape(json.dumps(o)) for o in openings) + ")"
    site = re.compile(opening + " " + _WHITESPACE + r" (\S+) " + _WHITESPACE + " " + re.escape(closing))
    ebnf = site.sub(lambda m: f"{m.group(1)} {padding} {m.group(2)} {padding} {closing}", ebnf)
    # A plain string value holds no parameter tag's opening either: the parser counts one as a
    # parameter written inside the value, whose closing tag then is not the value's own.
    excludes = "excludes=(" + closing + ")"
    ebnf = ebnf.replace(excludes, "excludes=(" + closing + ", " + json.dumps(xml.key_open) + ")")
    if re.search(_WHITESPACE + " " + re.escape(closing), ebnf):
        # a value site of a shape this rewrite does not know: refuse rather than let the parser
        # and the grammar disagree on a value
        raise RuntimeError(f"xgrammar's {xml.style!r} grammar has a value this version of thinkgate cannot pad: {ebnf}")
    return ebnf


# The tags each of xgrammar's XML styles writes: a parameter's opening up to its name, the text
# after the name, the value's opening and its closing tag.
_STYLE_TAGS = {
    "qwen_xml": ("<parameter=", ">", "", "</parameter>"),
    "minimax_xml": ('<parameter name="', '">', "", "</parameter>"),
    "deepseek_xml": ('<｜DSML｜parameter name="', '" string="{type}">', "", "</｜DSML｜parameter>"),
    "deepseek_v4_1_xml": ('<｜DSML｜ parameter name="', '" string="{type}">', "", "</｜DSML｜ parameter>"),
    "glm_xml": ("<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>"),
}
# Styles whose name's closing tag and value's opening tag are literals of their own, which may be
# spelled otherwise too.
_TAGS_OF_THEIR_OWN = frozenset({"glm_xml"})


def _respelled(ebnf: str, xml: Any) -> str:
    """The style's grammar with its parameter's opening and closing tags written as the format
    spells them, where the format's tags are another spelling of the style's (MiniCPM 5's
    ``<param name="K">V</param>`` for MiniMax-M2's ``<parameter name="K">V</parameter>``): each
    tag is a literal of the grammar (the opening one begins the literal that holds the name)."""
    own = _STYLE_TAGS.get(xml.style)
    if own is None or (xml.key_open, xml.key_close, xml.value_open, xml.value_close) == own:
        return ebnf
    inner = lambda text: json.dumps(text)[1:-1]  # noqa: E731 - as the grammar's literals escape it
    if xml.style in _TAGS_OF_THEIR_OWN and (xml.key_close, xml.value_open) != (own[1], own[2]):
        # (Hy3's and Hy4's "</arg_key:opensource>", "<arg_value:opensource>": literals of their own)
        for mine, theirs in ((own[1], xml.key_close), (own[2], xml.value_open)):
            ebnf = re.sub(r'(?<!\\)' + re.escape(json.dumps(mine)), lambda m, t=theirs: json.dumps(t), ebnf)
    elif (xml.key_close, xml.value_open) != (own[1], own[2]):
        raise ValueError(
            f"xgrammar's {xml.style!r} style closes a parameter's name with {own[1]!r} and opens its value with {own[2]!r}: "
            f"it cannot write parameters spelled {xml.key_open!r}…{xml.key_close!r}{xml.value_open!r}…{xml.value_close!r}"
        )
    ebnf = re.sub(r'(?<!\\)"' + re.escape(inner(own[0])), lambda m: '"' + inner(xml.key_open), ebnf)
    return re.sub(r'(?<!\\)' + re.escape(json.dumps(own[3])), lambda m: json.dumps(xml.value_close), ebnf)


def call_object_schema(t: Any, spec: ToolSpec) -> dict:
    """json_object layout: the schema of the whole call object, the name a constant and the
    arguments the tool's schema (its ``$defs`` lifted to the new root, its references moved)."""
    arguments = copy.deepcopy(spec.schema.xgrammar_schema)
    defs = {k: arguments.pop(k) for k in ("$defs", "definitions") if isinstance(arguments, dict) and k in arguments}
    key = spec.name if t.name_as_key else t.arguments_key
    here = "#/properties/" + key.replace("~", "~0").replace("/", "~1")
    _move_refs(arguments, here)
    for group in defs.values():
        _move_refs(group, here)
    return {
        "type": "object",
        "properties": {**_named_by(t, {"const": spec.name}), key: arguments},
        "required": [*_named_by(t, None), key],
        "additionalProperties": False,
        **defs,
    }


def _named_by(t: Any, name: Any) -> dict:
    """The properties before the arguments that name the call's tool (with ``name`` for the
    name's schema), in the order the template writes them: none where the name is the
    arguments' key; the call's number first where the template writes one (digits)."""
    if t.name_as_key:
        return {}
    lead = {t.index_key: {"type": "string", "pattern": "^(0|[1-9][0-9]{0,3})$"}} if t.index_key else {}
    return {**lead, t.name_key: name}


def router_call_object_schema(t: Any, names: list[str], arguments: Any) -> dict:
    """A routed grammar's router (see ``routed``): one call object whose name is any of
    ``names`` and whose arguments are ``arguments`` (any object), written as
    :func:`call_object_schema` writes each tool's (the name first), so that the two admit the
    same text but for the arguments' value."""
    if t.name_as_key:
        return {"anyOf": [{"type": "object", "properties": {n: arguments}, "required": [n], "additionalProperties": False} for n in names]}
    return {
        "type": "object",
        "properties": {**_named_by(t, {"enum": list(names)}), t.arguments_key: arguments},
        "required": [*_named_by(t, None), t.arguments_key],
        "additionalProperties": False,
    }


def _move_refs(node: Any, here: str) -> None:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#") and not ref.startswith(("#/$defs", "#/definitions")):
            node["$ref"] = here + ref[1:]
        for v in node.values():
            _move_refs(v, here)
    elif isinstance(node, list):
        for v in node:
            _move_refs(v, here)


def call_object_headers(t: Any, tools: list) -> dict:
    """What the guard follows in a call-object style: the one header, then the whole call
    object (its name picks the tool whose arguments' bounds apply)."""
    # (the header as written: its separator marker's text in place of the placeholder)
    return {t.header_pattern(""): call_object_node(t.name_key, t.arguments_key, {s.name: s.schema.nodes for s in tools}, t.name_as_key)}
