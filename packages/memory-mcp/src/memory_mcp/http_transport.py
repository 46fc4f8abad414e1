"""Streamable HTTP transport: the bearer-token gate and the server loop.

Rules (DESIGN.md): off loopback the server requires the bearer token from `MEMORY_MCP_TOKEN`
and refuses to start without one (`HttpRefused`, raised before anything is bound). When a
token is set, every HTTP request must carry `Authorization: Bearer <token>`, on loopback too;
a missing or wrong token gets `401` and never reaches the MCP layer. On loopback the SDK's
DNS-rebinding protection is on (Host and Origin must be loopback names).

The server listens on a socket bound here, before uvicorn starts, so port 0 works: the
address actually bound is announced on stderr (one line) and connections made after that
line are queued, never refused.
"""

from __future__ import annotations

import hmac
import json
import socket
import sys
from typing import Any, TextIO

import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp, Receive, Scope, Send

from memory_mcp.address import is_loopback, refusal, url_host

__all__ = ["HttpRefused", "BearerTokenGate", "MCP_PATH", "serve_http"]

MCP_PATH = "/mcp"
_BACKLOG = 128
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


class HttpRefused(Exception):
    """The HTTP server will not start with these settings; the message says what to change."""


class BearerTokenGate:
    """ASGI middleware: pass an HTTP request on only if it carries `Authorization: Bearer <token>`."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self._app = app
        self._token = token.encode("utf-8")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer `401` to an HTTP request without the token; hand everything else (lifespan) on."""
        if scope["type"] in ("http", "websocket") and not self._authorised(scope):
            await self._refuse(send)
            return
        await self._app(scope, receive, send)

    def _authorised(self, scope: Scope) -> bool:
        for name, value in scope.get("headers", ()):
            if name.lower() == b"authorization":
                scheme, _, given = bytes(value).strip().partition(b" ")
                # compare_digest: the time taken must not tell how much of a guess was right.
                return scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(), self._token)
        return False

    @staticmethod
    async def _refuse(send: Send) -> None:
        body = json.dumps(
            {"error": "unauthorized", "error_description": "send the MEMORY_MCP_TOKEN as 'Authorization: Bearer ...'"}
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", b'Bearer realm="memory"'),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def _listen(host: str, port: int) -> socket.socket:
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(_BACKLOG)
    except OSError:
        sock.close()
        raise
    return sock


def _security(host: str) -> TransportSecuritySettings | None:
    if not is_loopback(host):
        return None
    hosts = {*_LOOPBACK_NAMES, url_host(host)}
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=sorted(f"{name}:*" for name in hosts),
        allowed_origins=sorted(f"http://{name}:*" for name in hosts),
    )


def serve_http(
    server: MCPServer[Any], host: str, port: int, *, token: str | None, announce: TextIO = sys.stderr
) -> None:
    """Serve `server` at `http://host:port/mcp` until interrupted.

    Raises:
        HttpRefused: `host` is not loopback and there is no token.
        OSError: The address cannot be bound (in use, not local, ...).
    """
    if reason := refusal(host, token):
        raise HttpRefused(reason)
    app: ASGIApp = server.streamable_http_app(streamable_http_path=MCP_PATH, transport_security=_security(host))
    if token:
        app = BearerTokenGate(app, token)
    sock = _listen(host, port)
    bound_port = sock.getsockname()[1]
    guard = "bearer token required" if token else "loopback only, no token"
    announce.write(f"memory-mcp: serving MCP at http://{url_host(host)}:{bound_port}{MCP_PATH} ({guard})\n")
    announce.flush()
    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
