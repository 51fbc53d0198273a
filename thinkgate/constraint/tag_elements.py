"""The elements of an xgrammar structural tag, as the plain JSON data xgrammar reads.

A tag is data: built here without importing xgrammar (whose import brings torch), so that
:func:`~thinkgate.constraint.build_structural_tag` serves a client or a server front end that
only passes the tag on; xgrammar reads the same dicts where a grammar is compiled.
"""

from __future__ import annotations

from typing import Any, Optional

Element = dict[str, Any]


def const(value: str) -> Element:
    return {"type": "const_string", "value": value}


def regex(pattern: str) -> Element:
    return {"type": "regex", "pattern": pattern}


def token(token_id: int) -> Element:
    return {"type": "token", "token": token_id}


def json_schema(schema: Any, max_whitespace: Optional[int], style: str = "json") -> Element:
    return {"type": "json_schema", "json_schema": schema, "style": style, "max_whitespace_cnt": max_whitespace}


def seq(elements: list[Element]) -> Element:
    """The elements one after another (one element stands for itself)."""
    return elements[0] if len(elements) == 1 else {"type": "sequence", "elements": list(elements)}


def either(elements: list[Element]) -> Element:
    """One of the elements (one element stands for itself)."""
    return elements[0] if len(elements) == 1 else {"type": "or", "elements": list(elements)}


def star(content: Element) -> Element:
    return {"type": "star", "content": content}


def any_text(excludes: list[str]) -> Element:
    return {"type": "any_text", "excludes": list(excludes)}


def any_tokens(exclude_tokens: list[int]) -> Element:
    return {"type": "any_tokens", "exclude_tokens": list(exclude_tokens)}


def token_dispatch(rules: list[tuple[int, Element]], exclude_tokens: list[int]) -> Element:
    """Free tokens until one of the rules' tokens, then that rule's element (once)."""
    return {"type": "token_dispatch", "rules": [[t, e] for t, e in rules], "loop": False, "exclude_tokens": list(exclude_tokens)}


def triggered_tags(trigger: str, content: Element, end: str, excludes: list[str]) -> Element:
    """Free text until ``trigger``, then ``content`` and ``end`` (once)."""
    tag = {"type": "tag", "begin": trigger, "content": content, "end": end}
    return {"type": "triggered_tags", "triggers": [trigger], "tags": [tag], "excludes": list(excludes), "stop_after_first": True}


def is_const(element: Element) -> bool:
    return element.get("type") == "const_string"


def structural_tag(element: Element) -> dict[str, Any]:
    """The whole tag, as ``xgrammar.Grammar.from_structural_tag`` and vLLM's ``structural_tag``
    option read it."""
    return {"type": "structural_tag", "format": element}
