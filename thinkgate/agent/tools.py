"""The servers' tools as the model is offered them: each MCP tool (``name``, ``description``,
``inputSchema``) an OpenAI function tool, names made unique across servers, and every schema
checked against what thinkgate's grammar enforces before the first turn."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .errors import ToolSchemaError

# tools/list pages a server may send before the listing is taken as endless
MAX_PAGES = 100


@dataclass(frozen=True)
class Route:
    """Where an offered tool name leads: the server (its index and label) and the tool's own name."""

    server: int
    label: str
    tool: str


@dataclass
class Toolset:
    """The OpenAI tools offered to the model, and the route of each offered name."""

    tools: list[dict]
    routes: dict[str, Route]


async def list_all_tools(client: Any) -> list[Any]:
    """Every tool a server lists, page after page."""
    tools: list[Any] = []
    cursor = None
    for _ in range(MAX_PAGES):
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            return tools
    raise ValueError(f"the tool listing did not end after {MAX_PAGES} pages")


def build_toolset(listings: list[tuple[str, list[Any]]]) -> Toolset:
    """``listings``: each server's label and its MCP tools, in order. A name that one server alone
    lists is offered as it is; a name several servers list is offered as ``LABEL_NAME`` from each
    (a number appended where even that collides), so the model can tell them apart."""
    counts: dict[str, int] = {}
    for _, tools in listings:
        for tool in tools:
            counts[tool.name] = counts.get(tool.name, 0) + 1
    offered: list[dict] = []
    routes: dict[str, Route] = {}
    for index, (label, tools) in enumerate(listings):
        for tool in tools:
            name = tool.name if counts[tool.name] == 1 else f"{label}_{tool.name}"
            unique, n = name, 2
            while unique in routes or (unique != tool.name and counts.get(unique)):
                unique, n = f"{name}_{n}", n + 1
            routes[unique] = Route(index, label, tool.name)
            function: dict[str, Any] = {"name": unique}
            if tool.description:
                function["description"] = tool.description
            function["parameters"] = tool.input_schema or {"type": "object"}
            offered.append({"type": "function", "function": function})
    return Toolset(offered, routes)


def check_toolset(toolset: Toolset, format: Any, unsupported: str = "error", strict: int = 2) -> None:
    """Refuse, before anything is generated, a tool whose schema thinkgate's grammar cannot
    enforce (the tool, its server and the keyword named), with the checks every engine makes at
    admission; ``unsupported="relax"`` drops such keywords (with a warning) instead."""
    from ..requests import RequestOptions, check_options

    for tool in toolset.tools:
        name = tool["function"]["name"]
        route = toolset.routes[name]
        try:
            check_options(RequestOptions(format=format.name, tools=[tool], tool_choice="auto", unsupported=unsupported, strict=strict))
        except ValueError as e:
            renamed = f" (offered as {name!r})" if name != route.tool else ""
            raise ToolSchemaError(f"MCP server {route.label!r}, tool {route.tool!r}{renamed}: {e}") from None
    check_options(RequestOptions(format=format.name, tools=toolset.tools, tool_choice="auto", unsupported=unsupported, strict=strict))


def result_text(result: Any) -> str:
    """A ``CallToolResult`` as a tool message's text: its text blocks joined by line breaks, any
    other block (an image, a resource) as its JSON, and the structured content's JSON where
    there is no block at all."""
    parts = []
    for block in result.content or ():
        if getattr(block, "type", None) == "text":
            parts.append(block.text)
        else:
            parts.append(json.dumps(block.model_dump(mode="json", by_alias=True, exclude_none=True), ensure_ascii=False))
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False))
    return "\n".join(parts)
