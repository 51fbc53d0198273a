"""JSON Schema 2020-12's metaschema as one document, to check tool schemas quickly.

The published metaschema is eight documents: the root, an ``allOf`` of one metaschema per
vocabulary, all joined by ``$ref`` and by ``$dynamicRef: "#meta"`` for every subschema.
jsonschema resolves each reference through its registry at each subschema, so checking a schema
against it costs about five times what a one-document metaschema (Draft 7's) does: 400 BFCL tool
schemas took 0.55 s, half of a routed tool set's cold compile.

Here the vocabularies' keywords are merged into the root (they describe disjoint keywords, each
for any object or boolean), the references into their definitions are written in place, and
every ``$dynamicRef: "#meta"`` becomes ``$ref: "#"``: validation starts at the root, whose dynamic
anchor is the outermost ``meta`` in scope, so each of those references meant the root anyway.
A schema gets the same verdict and the same errors, each once where ``allOf`` repeated an error
per vocabulary. Built from jsonschema's own copy of the metaschema (``jsonschema_specifications``),
not spelled here; a test compares its errors with the published metaschema's.
"""

from __future__ import annotations

from typing import Any

from jsonschema_specifications import REGISTRY

DRAFT = "https://json-schema.org/draft/2020-12/"
# A vocabulary's keys that name or describe its document; what it holds is in "properties".
_DOCUMENT_KEYS = {"$id", "$schema", "$vocabulary", "$dynamicAnchor", "title", "$comment", "$defs", "allOf"}


def flat_metaschema() -> dict:
    """The 2020-12 metaschema as a single document whose only reference is ``#``."""
    root = REGISTRY.contents(DRAFT + "schema")
    merged: dict[str, Any] = {"$schema": DRAFT + "schema", "type": root["type"], "properties": {}}
    if any(set(part) != {"$ref"} for part in root["allOf"]):
        raise RuntimeError("the 2020-12 metaschema's root is not of the shape this module merges")
    for uri in [DRAFT + "schema"] + [DRAFT + part["$ref"] for part in root["allOf"]]:
        document = REGISTRY.contents(uri)
        unknown = set(document) - _DOCUMENT_KEYS - {"type", "properties"}
        if unknown or document["type"] != root["type"] or set(document["properties"]) & set(merged["properties"]):
            raise RuntimeError(f"the 2020-12 metaschema's {uri} is not of the shape this module merges")
        for key, value in document["properties"].items():
            merged["properties"][key] = _resolved(value, uri)
    return merged


def _resolved(node: Any, uri: str) -> Any:
    """``node`` (a part of the document at ``uri``) with every reference to a definition written
    in place and every reference to the metaschema itself made ``#``."""
    if isinstance(node, list):
        return [_resolved(v, uri) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "$dynamicRef" and value == "#meta":
            out["$ref"] = "#"
        elif key == "$ref":
            target_uri, target = _target(value, uri)
            for k, v in _resolved(target, target_uri).items():  # (a new dict: the registry's stays as it is)
                if k in out or k in node and k != "$ref":
                    raise RuntimeError(f"the 2020-12 metaschema's reference {value!r} in {uri} has siblings this module cannot merge")
                out[k] = v
        else:
            out[key] = _resolved(value, uri)
    return out


def _target(ref: str, uri: str) -> tuple[str, Any]:
    document, _, fragment = ref.partition("#")
    target_uri = uri if not document else DRAFT + document
    if not fragment.startswith("/$defs/") or fragment.count("/") != 2:
        raise RuntimeError(f"the 2020-12 metaschema holds a reference this module does not know: {ref!r} in {uri}")
    return target_uri, REGISTRY.contents(target_uri)["$defs"][fragment.split("/")[2]]
