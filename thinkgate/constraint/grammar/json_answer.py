"""The answer after thinking held to JSON: OpenAI's ``response_format``.

The shapes OpenAI's chat API takes::

    {"type": "text"}                      the answer is free (tools decide what else may come)
    {"type": "json_object"}               the answer is one JSON object
    {"type": "json_schema", "json_schema": {"name": "...", "schema": {...}, "strict": true}}

Under a JSON format the answer (the content after ``</think>``) is one JSON object, after at
most a little whitespace, and then the output ends; thinking stays free. The schema is prepared
as a tool's parameters are (:func:`~thinkgate.constraint.schemas.schema.prepare`: the same checks, the
same ``unsupported`` policy, string lengths held by the run-time guard), and must describe an
object, as OpenAI's structured outputs require: the guard finds the answer by its ``{``.
``strict`` is read and not needed: the answer is always held to the schema.

With tools, ``tool_choice`` decides: ``none`` (or no tools): the JSON answer; ``auto``: the JSON
answer or the tool calls, as the model chooses (an OpenAI model may call tools, else answers in
the schema); ``required`` or a named tool: calls only, and ``response_format`` holds no text
(there is none). A format whose answer is read as calls when it starts with ``{`` (Llama 3.x's
bare JSON calls) cannot tell a JSON answer from a call: there ``auto`` with a JSON format is
refused.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Optional

from ..schemas.schema import PreparedSchema, prepare
from .tag_elements import LEADING_WHITESPACE, Element, TagRequest, either, json_schema, regex, seq

WHERE = "response_format"
_KINDS = ("text", "json_object", "json_schema")
_KEYS = {"text": {"type"}, "json_object": {"type"}, "json_schema": {"type", "json_schema"}}
_SCHEMA_KEYS = {"name", "description", "schema", "strict"}
# json_object: any object (free keys; the guard still refuses a key written twice)
ANY_OBJECT = {"type": "object"}


def answer_schema(response_format: Any) -> Optional[dict]:
    """The JSON schema the answer is held to (``None``: the answer is free). A shape OpenAI
    would not take is a ``ValueError`` naming the field."""
    if response_format is None:
        return None
    if not isinstance(response_format, dict):
        raise ValueError(f"{WHERE} must be an object such as {{'type': 'json_object'}}, not {type(response_format).__name__}")
    kind = response_format.get("type")
    if kind not in _KINDS:
        raise ValueError(f"{WHERE}.type must be one of {', '.join(map(repr, _KINDS))}, not {kind!r}")
    unknown = sorted(set(response_format) - _KEYS[kind])
    if unknown:
        raise ValueError(f"{WHERE} of type {kind!r} has unknown field(s) {', '.join(map(repr, unknown))}")
    if kind == "text":
        return None
    if kind == "json_object":
        return dict(ANY_OBJECT)
    spec = response_format.get("json_schema")
    if not isinstance(spec, dict):
        raise ValueError(f"{WHERE}.json_schema must be an object with 'name' and 'schema', not {spec!r}")
    unknown = sorted(set(spec) - _SCHEMA_KEYS)
    if unknown:
        raise ValueError(f"{WHERE}.json_schema has unknown field(s) {', '.join(map(repr, unknown))} (known: {', '.join(sorted(_SCHEMA_KEYS))})")
    name = spec.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError(f"{WHERE}.json_schema.name must be a non-empty string, not {name!r}")
    if spec.get("strict") not in (None, True, False):
        raise ValueError(f"{WHERE}.json_schema.strict must be true or false, not {spec['strict']!r}")
    schema = spec.get("schema")
    if not isinstance(schema, dict):
        raise ValueError(f"{WHERE}.json_schema.schema must be a JSON schema object, not {schema!r}")
    if schema.get("type", "object") != "object":
        raise ValueError(
            f"{WHERE}.json_schema.schema must describe an object (type 'object', as OpenAI's structured outputs "
            f"require), not type {schema['type']!r}"
        )
    return schema


def prepare_answer(response_format: Any, unsupported: str = "error", ask_xgrammar: bool = True) -> Optional[PreparedSchema]:
    """The answer's schema, checked and prepared as a tool's parameters are; ``None``: free."""
    schema = answer_schema(response_format)
    if schema is None:
        return None
    where = f"{WHERE} {response_format['json_schema']['name']!r}" if response_format["type"] == "json_schema" else WHERE
    return prepare(schema, where, unsupported, ask_xgrammar)


def holds_answer(choice: str) -> bool:
    """Whether under this tool_choice the output may be an answer (``required`` and a named
    tool leave only calls)."""
    return choice in ("none", "auto")


def answer_tag(req: TagRequest, layout: Any, answer: PreparedSchema) -> Element:
    """The tag after thinking with the answer held to ``answer``: the JSON answer alone, or
    under ``auto`` the JSON answer or the calls (as ``required`` writes them).

    ``layout`` is the grammar module of the format's layout: its ``answer_element`` puts the
    JSON where the layout writes an answer (harmony: in the final channel's message)."""
    fmt = req.format
    element = layout.answer_element(req, json_schema(answer.xgrammar_schema, req.json_whitespace))
    if req.choice == "none":
        return element
    if fmt.tools.holds_calls("{"):
        raise ValueError(
            f"format {fmt.name!r} reads an answer that starts with '{{' as tool calls, so a JSON answer cannot be told "
            f"from a call under tool_choice 'auto'; use tool_choice 'none' (the JSON answer) or 'required' (calls)"
        )
    return either([element, layout.layout_tag(replace(req, choice="required"))])


def answer_at_start(json: Element) -> Element:
    """The JSON answer where the answer is the text after thinking: a little whitespace (R1
    writes ``\\n\\n`` after ``</think>``), then the JSON."""
    return seq([regex(LEADING_WHITESPACE), json])
