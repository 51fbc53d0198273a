"""Real MCP servers for the agent tests, written with the SDK's server class: a calculator and a
key-value store whose parameters are typed and bounded (integer ranges, enums, string lengths),
a server whose tool always fails, and one that dies on its second call.

Run as a script to serve one of them over stdio (``python tests/mcp_servers.py calc``) or
Streamable HTTP (``python tests/mcp_servers.py calc --http PORT``). Every call a server runs is
appended, as a JSON line, to the file named by ``MCP_TEST_LOG`` (if set), so that a test sees
what a server in another process was asked."""

from __future__ import annotations

import json
import os
import sys
from typing import Annotated, Literal

from pydantic import Field

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

Small = Annotated[int, Field(ge=-50, le=50)]


def _log(server: str, tool: str, arguments: dict) -> None:
    path = os.environ.get("MCP_TEST_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"server": server, "tool": tool, "arguments": arguments}) + "\n")


def calculator(name: str = "calc", seen: list | None = None) -> MCPServer:
    server = MCPServer(name, log_level="WARNING")

    @server.tool()
    def calculate(op: Literal["add", "sub", "mul"], a: Small, b: Small) -> int:
        """Apply op to two small integers."""
        _log(name, "calculate", {"op": op, "a": a, "b": b})
        if seen is not None:
            seen.append(("calculate", {"op": op, "a": a, "b": b}))
        return {"add": a + b, "sub": a - b, "mul": a * b}[op]

    return server


def kv_store(name: str = "kv", seen: list | None = None) -> MCPServer:
    server = MCPServer(name, log_level="WARNING")
    data: dict[str, str] = {}

    @server.tool()
    def put(key: Annotated[str, Field(min_length=1, max_length=6)], value: Annotated[str, Field(max_length=10)]) -> str:
        """Store a value under a key."""
        _log(name, "put", {"key": key, "value": value})
        if seen is not None:
            seen.append(("put", {"key": key, "value": value}))
        data[key] = value
        return f"stored {len(data)} keys"

    @server.tool()
    def count(kind: Literal["keys", "chars"]) -> int:
        """Count the stored keys, or the characters of all values."""
        _log(name, "count", {"kind": kind})
        if seen is not None:
            seen.append(("count", {"kind": kind}))
        return len(data) if kind == "keys" else sum(len(v) for v in data.values())

    return server


def failing(name: str = "flaky") -> MCPServer:
    server = MCPServer(name, log_level="WARNING")

    @server.tool()
    def fetch(page: Annotated[int, Field(ge=1, le=9)]) -> str:
        """Fetch a page (always fails: the network is down)."""
        _log(name, "fetch", {"page": page})
        raise ToolError(f"network unreachable while fetching page {page}")

    return server


def dying(name: str = "dying") -> MCPServer:
    """A calculator whose process exits on its second call."""
    server = MCPServer(name, log_level="WARNING")
    calls = []

    @server.tool()
    def calculate(op: Literal["add", "mul"], a: Small, b: Small) -> int:
        """Apply op to two small integers."""
        calls.append(op)
        _log(name, "calculate", {"op": op, "a": a, "b": b})
        if len(calls) == 2:
            os._exit(3)
        return a + b if op == "add" else a * b

    return server


def meeting(name: str = "meet", wait: float = 5.0) -> MCPServer:
    """Two calls that each wait for the other: both say "met" only if they run at once."""
    import anyio

    server = MCPServer(name, log_level="WARNING")
    arrived: list[str] = []
    both = anyio.Event()

    @server.tool()
    async def meet(who: Literal["ann", "bob"]) -> str:
        """Wait for the other one."""
        arrived.append(who)
        if len(arrived) == 2:
            both.set()
        with anyio.move_on_after(wait):
            await both.wait()
            return "met"
        return "alone"

    return server


def refusing(name: str = "strict") -> MCPServer:
    """A tool that answers its call with a JSON-RPC error (the client raises it), not isError."""
    from mcp.shared.exceptions import MCPError

    server = MCPServer(name, log_level="WARNING")

    @server.tool()
    def lookup(word: Annotated[str, Field(max_length=8)]) -> str:
        """Look a word up (refused: no dictionary is loaded)."""
        raise MCPError(code=-32001, message=f"no dictionary for {word!r}")

    return server


def unenforceable(name: str = "odd") -> MCPServer:
    """A tool whose schema holds a keyword thinkgate cannot enforce (multipleOf)."""
    server = MCPServer(name, log_level="WARNING")

    @server.tool()
    def pick(n: Annotated[int, Field(ge=0, le=100, multiple_of=5)]) -> int:
        """Pick a multiple of five."""
        return n

    return server


SERVERS = {"calc": calculator, "kv": kv_store, "flaky": failing, "dying": dying, "odd": unenforceable, "strict": refusing}

if __name__ == "__main__":
    which = sys.argv[1]
    server = SERVERS[which]()
    if "--http" in sys.argv:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[sys.argv.index("--http") + 1]))
    else:
        server.run()
