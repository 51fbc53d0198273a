"""The key-value MCP server of ``mcp_servers.py`` over Streamable HTTP, answering only requests
that carry ``Authorization: Bearer TOKEN`` (401 otherwise), as a hosted server with a key does:
``python tests/mcp_header_server.py TOKEN PORT``. Its calls are logged to ``MCP_TEST_LOG``."""

import sys

import uvicorn

from mcp_servers import kv_store


def guarded(app, token: str):
    expected = f"Bearer {token}".encode()

    async def asgi(scope, receive, send):
        if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != expected:
            await send({"type": "http.response.start", "status": 401, "headers": [(b"content-type", b"text/plain")]})
            await send({"type": "http.response.body", "body": b"a bearer token is required"})
            return
        await app(scope, receive, send)

    return asgi


if __name__ == "__main__":
    token, port = sys.argv[1], int(sys.argv[2])
    uvicorn.run(guarded(kv_store().streamable_http_app(), token), host="127.0.0.1", port=port, log_level="warning")
