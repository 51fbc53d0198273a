"""What every engine's glue does alike: tools as plain dicts (the Responses API's flat shapes
read as Chat Completions' nested ones), and one class per format."""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Optional

from ..formats import ChatFormat, get_format

# An engine's response has no field for a call that could not be read: its text goes back to
# the content, so nothing the model wrote is lost.
ENGINE_INVALID_CALLS = "content"


def plain_tools(tools: Any) -> Optional[list]:
    """An engine's tools (pydantic models or dicts) as Chat Completions dicts; None for none. A
    Responses API function tool (``{"type": "function", "name", "parameters", "strict"}``) is
    nested under ``function`` as Chat Completions has it."""
    if not tools:
        return None
    return [chat_tool(t.model_dump(exclude_none=True) if hasattr(t, "model_dump") else dict(t)) for t in tools]


def chat_tool(tool: dict) -> dict:
    """One tool in Chat Completions' shape (a Responses API function tool is flat)."""
    if tool.get("type", "function") == "function" and "function" not in tool and "name" in tool:
        return {"type": "function", "function": {k: v for k, v in tool.items() if k != "type"}}
    return tool


# The Responses API's tool_choice types that name a function the model is shown: vLLM, as
# OpenAI, shows a custom tool as a function of one string.
_FUNCTION_CHOICES = ("function", "custom")


def chat_tool_choice(choice: Any) -> Any:
    """A tool_choice in Chat Completions' shape: the Responses API names a function flat
    (``{"type": "function", "name": "f"}``) and lists allowed tools at the top
    (``{"type": "allowed_tools", "mode", "tools": [{"type": "function", "name"}]}``). A built-in
    tool (web search, MCP, ...) is no function the grammar can hold: refused by name."""
    if not isinstance(choice, dict):
        return choice
    kind = choice.get("type")
    if kind in _FUNCTION_CHOICES and "function" not in choice:
        return {"type": "function", "function": {"name": choice.get("name")}}
    if kind == "allowed_tools" and "allowed_tools" not in choice:
        refs = [{"type": "function", "function": {"name": t.get("name")}} for t in choice.get("tools") or () if isinstance(t, dict) and t.get("type") in _FUNCTION_CHOICES]
        return {"type": "allowed_tools", "allowed_tools": {"mode": choice.get("mode", "auto"), "tools": refs}}
    if kind not in ("function", "allowed_tools"):
        raise ValueError(
            f"tool_choice {choice!r} names a built-in tool; thinkgate holds calls of function tools: "
            "use 'auto', 'required', 'none', a function or allowed_tools"
        )
    return choice


def chat_response_format(fmt: Any) -> Any:
    """A Responses API ``text.format`` as Chat Completions' ``response_format``: its JSON
    schema's name, schema and strict flag are flat there, nested under ``json_schema`` here."""
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema" and "json_schema" not in fmt:
        return {"type": "json_schema", "json_schema": {k: v for k, v in fmt.items() if k != "type"}}
    return fmt


@dataclass(frozen=True)
class Relaxed:
    """What a grammar built under ``unsupported="relax"`` holds a request's tools to, where that
    is less than their schemas say."""

    schemas: dict  # tool name -> the schema its calls were held to (the tools at strict level 2)
    dropped: tuple  # what was not enforced, each as thinkgate's warning names it


def relaxed_tools(format: str, tools: Optional[list], tool_choice: Any, strict: int, exported: bool = False) -> Relaxed:
    """The schemas a grammar built under ``unsupported="relax"`` holds each tool's calls to (the
    prepared schema: the keywords thinkgate cannot enforce dropped), for the parser to check
    calls against, and what was dropped. ``exported``: the grammar is the exported structural
    tag alone (an engine's own structured output), which drops more (see
    :mod:`thinkgate.constraint.schemas.schema_exact`)."""
    return _relaxed(format, json.dumps(tools, sort_keys=True, ensure_ascii=False), json.dumps(tool_choice, sort_keys=True), strict, exported)


def enforced_schemas(format: str, tools: Optional[list], tool_choice: Any, strict: int, unsupported: Optional[str]) -> Optional[dict]:
    """What a parser checks calls against where a grammar built under ``unsupported="relax"``
    held them to less than their schemas (None: the schemas themselves), so that a call the
    grammar wrote is never refused for a keyword it did not hold."""
    if unsupported != "relax" or not tools:
        return None
    try:
        return relaxed_tools(format, tools, "auto" if tool_choice is None else tool_choice, strict).schemas
    except ValueError:  # (a request whose grammar failed: it has no calls to check)
        return None


@functools.lru_cache(maxsize=256)
def _relaxed(format: str, tools_json: str, choice_json: str, strict: int, exported: bool) -> Relaxed:
    from ..constraint.schemas.schema import prepare
    from ..constraint.schemas.schema_exact import exact_schema
    from ..constraint.grammar.structural_tag import resolve_tool_choice, tool_declarations, tool_levels

    t = get_format(format).tools
    choice, declared = resolve_tool_choice(json.loads(choice_json), tool_declarations(json.loads(tools_json)))
    levels = tool_levels(declared, choice, strict) or {}
    schemas = {}
    with _warnings("thinkgate.constraint") as dropped:
        for d in declared:
            if levels.get(d.name, 0) < 2:
                continue
            where = f"tool {d.name!r}"
            schema = prepare(d.parameters, where, "relax", ask_xgrammar=False).bounded_schema
            if exported and t.literal is None:
                schema = exact_schema(schema, where, "relax", json=t.xml is None)
            schemas[d.name] = schema
    return Relaxed(schemas, tuple(dropped))


@contextlib.contextmanager
def _warnings(logger: str) -> Iterator[list]:
    """The warnings ``logger`` gives in this thread meanwhile (thinkgate's schema rewriting says
    what it drops only so). They are still logged."""
    said: list = []
    me = threading.get_ident()

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.thread == me and record.levelno >= logging.WARNING:
                said.append(record.getMessage())

    log = logging.getLogger(logger)
    handler, level = Collect(), log.level
    log.addHandler(handler)
    if not log.isEnabledFor(logging.WARNING):
        log.setLevel(logging.WARNING)  # (a server may have raised its root logger's level)
    try:
        yield said
    finally:
        log.removeHandler(handler)
        log.setLevel(level)


def format_class(base: type, fmt: ChatFormat, kind: str, namespace: dict) -> type:
    """``base`` bound to ``fmt`` (``Thinkgate<Format><kind>``), added to ``namespace`` (a module's
    globals) so that it can be found by its qualified name, as engines load plugins."""
    cls = type(f"Thinkgate{fmt.name.title().replace('_', '')}{kind}", (base,), {"format": fmt})
    cls.__module__ = namespace["__name__"]
    namespace[cls.__name__] = cls
    return cls
