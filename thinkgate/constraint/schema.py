"""Tool schemas, checked and prepared for xgrammar.

Every keyword of a tool's parameter schema is either enforced (by xgrammar, or by thinkgate's
run-time guard), an annotation with no effect on validity, or refused: a schema that uses a
keyword thinkgate cannot enforce is rejected with an error naming the keyword and where it is,
unless ``unsupported="relax"`` asks for it to be dropped (then calls are valid JSON of the right
shape, but may break that keyword).
"""

from __future__ import annotations

import copy
import logging
from dataclasses import dataclass
from typing import Any

import jsonschema

from .schema_nodes import Node, build_nodes

log = logging.getLogger("thinkgate.constraint")

# Enforced by xgrammar.
STRUCTURAL = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "prefixItems",
        "minItems",
        "maxItems",
        "enum",
        "const",
        "anyOf",
        "$ref",
        "$defs",
        "definitions",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "pattern",
        "format",
    }
)
# Enforced by the run-time guard (xgrammar gets a plain string).
GUARDED = frozenset({"minLength", "maxLength"})
# No effect on which instances are valid.
ANNOTATIONS = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "$schema",
        "$id",
        "$comment",
        "deprecated",
        "readOnly",
        "writeOnly",
        "strict",
        "contentMediaType",
        "contentEncoding",
    }
)
SUPPORTED = STRUCTURAL | GUARDED | ANNOTATIONS

# String formats xgrammar enforces as the JSON Schema checker reads them.
FORMATS: dict[str, str | None] = {
    "date-time": None,
    "date": None,
    "time": None,
    "email": None,
    "uuid": None,
    "ipv4": None,
    "ipv6": None,
    "uri": None,
    "hostname": None,
}

_SUBSCHEMA_MAPS = ("properties", "$defs", "definitions")
_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SUBSCHEMA_ONE = ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "additionalItems", "unevaluatedProperties", "unevaluatedItems")


@dataclass
class PreparedSchema:
    """A tool's schema as xgrammar gets it, and the bounds the guard keeps."""

    xgrammar_schema: dict | bool
    nodes: Node


def prepare(schema: Any, where: str, unsupported: str = "error") -> PreparedSchema:
    """Check ``schema`` and split it into what xgrammar enforces and what the guard enforces.

    ``where`` names the schema in errors (e.g. ``"tool 'get_weather'"``)."""
    if unsupported not in ("error", "relax"):
        raise ValueError(f"unsupported must be 'error' or 'relax', not {unsupported!r}")
    if schema is None:
        schema = {"type": "object", "properties": {}}
    if not isinstance(schema, dict):
        raise ValueError(f"{where}: parameters must be a JSON schema object, not {type(schema).__name__}")
    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as e:
        path = "/".join(str(p) for p in e.absolute_path) or "(root)"
        raise ValueError(f"{where}: invalid JSON schema at {path}: {e.message}") from None
    if schema.get("type", "object") != "object" and "type" in schema:
        raise ValueError(f"{where}: parameters must describe an object, not type {schema['type']!r}")
    out = copy.deepcopy(schema)
    _walk(out, where, "#", unsupported)
    try:
        nodes = build_nodes(schema)
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None
    return PreparedSchema(out, nodes)


def _walk(node: Any, where: str, path: str, unsupported: str) -> None:
    if not isinstance(node, dict):
        return
    for key in list(node):
        if key in ANNOTATIONS:
            node.pop(key)
        elif key in GUARDED:
            node.pop(key)  # the guard enforces it; xgrammar gets a plain string
        elif key == "format":
            fmt = node["format"]
            if fmt not in FORMATS:
                _refuse(node, key, where, path, unsupported, f"string format {fmt!r}")
            elif FORMATS[fmt] is not None:
                node.pop("format")
                node["pattern"] = FORMATS[fmt]
        elif key not in SUPPORTED:
            _refuse(node, key, where, path, unsupported, f"keyword {key!r}")
    for key in _SUBSCHEMA_MAPS:
        for name, sub in (node.get(key) or {}).items():
            _walk(sub, where, f"{path}/{key}/{name}", unsupported)
    for key in _SUBSCHEMA_LISTS:
        for i, sub in enumerate(node.get(key) or ()):
            _walk(sub, where, f"{path}/{key}/{i}", unsupported)
    for key in _SUBSCHEMA_ONE:
        if isinstance(node.get(key), dict):
            _walk(node[key], where, f"{path}/{key}", unsupported)


def _refuse(node: dict, key: str, where: str, path: str, unsupported: str, what: str) -> None:
    if unsupported == "relax":
        log.warning("%s: %s at %s is not enforced (dropped, unsupported='relax')", where, what, path)
        node.pop(key)
        return
    raise ValueError(
        f"{where}: {what} at {path} cannot be enforced by thinkgate; "
        "remove it, or pass unsupported='relax' to drop it"
    )
