"""MCP servers as the agent reaches them: in-process (a server object), stdio (a command line,
run as a child process) or Streamable HTTP (a URL), named one by one or by an ``mcpServers``
config file as Claude Desktop and Cursor read it. Each becomes an ``mcp.Client``.

A stdio server's environment is the SDK's safe variables (``HOME``, ``LOGNAME``, ``PATH``,
``SHELL``, ``TERM``, ``USER``) and the ``env`` it is given, nothing else of this process's."""

from __future__ import annotations

import json
import re
import shlex
import sys
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, AsyncIterator, Mapping, Optional, TextIO

_LABEL_FORBIDDEN = re.compile(r"[^A-Za-z0-9_-]+")


@dataclass
class ServerSpec:
    """One server: what ``mcp.Client`` connects to, and a label for messages and tool names.
    ``headers``: sent with every request to an HTTP server. ``named``: the label is the user's
    (a config file's key), kept over the name the server gives itself."""

    target: Any
    label: str
    headers: Optional[dict[str, str]] = None
    named: bool = False

    def client(self, read_timeout: Optional[float] = None, errlog: Optional[TextIO] = None) -> Any:
        from mcp import Client, StdioServerParameters

        target = self.target
        if isinstance(target, StdioServerParameters) and errlog is not None:
            from mcp.client.stdio import stdio_client

            target = stdio_client(target, errlog=errlog)  # a Transport: the child's stderr goes there
        elif isinstance(target, str) and self.headers:
            target = _http_with_headers(target, self.headers)
        return Client(target, read_timeout_seconds=read_timeout)


@asynccontextmanager
async def _http_with_headers(url: str, headers: dict[str, str]) -> AsyncIterator[Any]:
    """Streamable HTTP whose every request carries ``headers`` (the SDK's client with its own timeouts)."""
    from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

    async with create_mcp_http_client(headers=headers) as http:
        async with streamable_http_client(url, http_client=http) as streams:
            yield streams


def server_spec(server: Any, *, env: Optional[Mapping[str, str]] = None, headers: Optional[Mapping[str, str]] = None) -> ServerSpec:
    """A server as the caller names it: an ``http(s)://`` URL (Streamable HTTP; ``headers`` go
    with each request), a command line (a string, split as a shell would, or a list: run over
    stdio with ``env`` over the SDK's safe variables), an ``mcp.StdioServerParameters``, an
    in-process server object (``MCPServer`` or the low-level ``Server``), or a ``ServerSpec``."""
    from mcp import StdioServerParameters

    if isinstance(server, ServerSpec):
        return server
    if isinstance(server, str) and re.match(r"https?://", server):
        return ServerSpec(server, _label_of_url(server), dict(headers) if headers else None)
    if isinstance(server, (str, list, tuple)):
        words = shlex.split(server) if isinstance(server, str) else [str(w) for w in server]
        if not words:
            raise ValueError("an MCP server's command line is empty")
        return server_spec(StdioServerParameters(command=words[0], args=words[1:], env=dict(env) if env else None))
    if isinstance(server, StdioServerParameters):
        return ServerSpec(server, _label_of_command(server.command, server.args))
    name = getattr(server, "name", None)
    if not callable(getattr(server, "lifespan", None)) and not hasattr(server, "_lowlevel_server"):
        raise ValueError(
            f"not an MCP server: {server!r} (give a URL, a command line, StdioServerParameters, or an MCPServer/Server object)"
        )
    return ServerSpec(server, clean_label(name if isinstance(name, str) else "server"))


def servers_from_config(config: Any) -> list[ServerSpec]:
    """The servers of an ``mcpServers`` config, as Claude Desktop, Cursor and the SDK's examples
    write it (a dict, or the path of its JSON file): each entry's key names it, and it holds
    ``command`` (with ``args``, ``env``, ``cwd``: stdio) or ``url`` (with ``headers``:
    Streamable HTTP). An entry with ``"disabled": true`` is left out; keys another client reads
    (``autoApprove``, ...) are ignored. A ``ValueError`` names the entry and field at fault."""
    where = "the MCP config"
    if not isinstance(config, Mapping):
        where = str(config)
        with open(config, encoding="utf-8") as f:
            try:
                config = json.load(f)
            except ValueError as e:
                raise ValueError(f"{where} is not JSON: {e}") from None
    entries = config.get("mcpServers") if isinstance(config, Mapping) else None
    if not isinstance(entries, Mapping):
        raise ValueError(f'{where} has no "mcpServers" object ({{"mcpServers": {{"NAME": {{"command": ..., "args": [...]}}}}}})')
    specs = []
    for name, entry in entries.items():
        if not isinstance(entry, Mapping):
            raise ValueError(f"{where}: mcpServers.{name} must be an object")
        if entry.get("disabled") is True:
            continue
        spec = _config_entry(entry, f"{where}: mcpServers.{name}")
        spec.label, spec.named = clean_label(name), True
        specs.append(spec)
    return specs


def _config_entry(entry: Mapping[str, Any], where: str) -> ServerSpec:
    from mcp import StdioServerParameters

    kind = entry.get("type", "http" if "url" in entry else "stdio")
    if kind == "sse" or ("url" in entry and "command" in entry):
        raise ValueError(f"{where}: {'the SSE transport is not supported (Streamable HTTP is)' if kind == 'sse' else 'give command or url, not both'}")
    if kind in ("http", "streamable-http", "streamable_http", "streamableHttp"):
        url = entry.get("url")
        if not isinstance(url, str) or not re.match(r"https?://", url):
            raise ValueError(f"{where}.url must be an http(s):// URL, not {url!r}")
        return server_spec(url, headers=_strings(entry.get("headers"), f"{where}.headers"))
    if kind != "stdio":
        raise ValueError(f"{where}.type {kind!r} is not stdio or http")
    command, args = entry.get("command"), entry.get("args", [])
    if not isinstance(command, str) or not command:
        raise ValueError(f"{where}.command must be a program to run, not {command!r}")
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise ValueError(f"{where}.args must be a list of strings")
    cwd = entry.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise ValueError(f"{where}.cwd must be a directory's path")
    return server_spec(StdioServerParameters(command=command, args=args, env=_strings(entry.get("env"), f"{where}.env"), cwd=cwd))


def _strings(value: Any, where: str) -> Optional[dict[str, str]]:
    if value is None:
        return None
    if not isinstance(value, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise ValueError(f"{where} must be an object of strings")
    return dict(value)


def clean_label(text: str) -> str:
    """A label usable inside a tool name (letters, digits, ``_`` and ``-``)."""
    return _LABEL_FORBIDDEN.sub("_", text).strip("_") or "server"


def _label_of_command(command: str, args: list[str]) -> str:
    # "python -m calc_server" -> calc_server; "python tools/kv.py" -> kv; "kv-server --x" -> kv-server
    words = [command, *args]
    if "-m" in words[:-1]:
        return clean_label(words[words.index("-m") + 1].rsplit(".", 1)[-1])
    scripts = [w for w in args if not w.startswith("-")]
    base = (scripts[0] if scripts and re.search(r"python[0-9.]*$", command.replace(sys.executable, "python")) else command)
    return clean_label(re.split(r"[\\/]", base)[-1].rsplit(".", 1)[0])


def _label_of_url(url: str) -> str:
    host = re.sub(r"^https?://", "", url).split("/", 1)[0]
    return clean_label(host.replace(".", "_").replace(":", "_"))
