"""MCP servers as the agent reaches them: in-process (a server object), stdio (a command line,
run as a child process) or Streamable HTTP (a URL). Each becomes an ``mcp.Client``."""

from __future__ import annotations

import re
import shlex
import sys
from dataclasses import dataclass
from typing import Any, Optional, TextIO

_LABEL_FORBIDDEN = re.compile(r"[^A-Za-z0-9_-]+")


@dataclass
class ServerSpec:
    """One server: what ``mcp.Client`` connects to, and a label for messages and tool names."""

    target: Any
    label: str

    def client(self, read_timeout: Optional[float] = None, errlog: Optional[TextIO] = None) -> Any:
        from mcp import Client, StdioServerParameters

        target = self.target
        if isinstance(target, StdioServerParameters) and errlog is not None:
            from mcp.client.stdio import stdio_client

            target = stdio_client(target, errlog=errlog)  # a Transport: the child's stderr goes there
        return Client(target, read_timeout_seconds=read_timeout)


def server_spec(server: Any) -> ServerSpec:
    """A server as the caller names it: an ``http(s)://`` URL (Streamable HTTP), a command line
    (a string, split as a shell would, or a list: run over stdio), an
    ``mcp.StdioServerParameters``, an in-process server object (``MCPServer`` or the low-level
    ``Server``), or a ``ServerSpec``."""
    from mcp import StdioServerParameters

    if isinstance(server, ServerSpec):
        return server
    if isinstance(server, str) and re.match(r"https?://", server):
        return ServerSpec(server, _label_of_url(server))
    if isinstance(server, (str, list, tuple)):
        words = shlex.split(server) if isinstance(server, str) else [str(w) for w in server]
        if not words:
            raise ValueError("an MCP server's command line is empty")
        return server_spec(StdioServerParameters(command=words[0], args=words[1:]))
    if isinstance(server, StdioServerParameters):
        return ServerSpec(server, _label_of_command(server.command, server.args))
    name = getattr(server, "name", None)
    if not callable(getattr(server, "lifespan", None)) and not hasattr(server, "_lowlevel_server"):
        raise ValueError(
            f"not an MCP server: {server!r} (give a URL, a command line, StdioServerParameters, or an MCPServer/Server object)"
        )
    return ServerSpec(server, clean_label(name if isinstance(name, str) else "server"))


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
