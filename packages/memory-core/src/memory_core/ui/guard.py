"""The gate every request to `memory ui` passes: Host header, launch token, CSRF, response headers.

Promises:
- A request whose Host is not this server's loopback address and port is refused (400): a web
  page that rebinds its own name to 127.0.0.1 still sends its own name, so it never gets in.
- A request without the launch token is refused (403). The token arrives once, in the URL the
  launch line printed; that first load trades it for an HttpOnly, SameSite=Strict cookie and
  redirects to the same address without it, so it does not stay in the address bar.
- A POST must also carry the form field `csrf` (derived from the token, so only a page this
  server rendered knows it) and, when the browser sends one, an Origin of this server.
- Every response forbids framing, scripts and styles from anywhere but this server, caching,
  and sending its address to any other site.
Nothing here logs: the token is never written anywhere but the launch line.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qsl, urlencode

__all__ = ["LaunchToken", "Guard", "CSRF_FIELD"]

CSRF_FIELD = "csrf"
_HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self';"
        b" connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
]

Scope_ = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope_, Receive, Send], Awaitable[None]]


class LaunchToken:
    """The random secret of one launch, and the values derived from it."""

    def __init__(self, value: str | None = None) -> None:
        self.value = value or secrets.token_urlsafe(32)
        self.csrf = hmac.new(self.value.encode(), b"memory-ui csrf", hashlib.sha256).hexdigest()

    def matches(self, candidate: str | None) -> bool:
        """Whether `candidate` is this token (in constant time)."""
        return bool(candidate) and hmac.compare_digest(candidate.encode(), self.value.encode())  # type: ignore[union-attr]

    def csrf_matches(self, candidate: str | None) -> bool:
        """Whether `candidate` is this launch's CSRF value (in constant time)."""
        return bool(candidate) and hmac.compare_digest(candidate.encode(), self.csrf.encode())  # type: ignore[union-attr]


class Guard:
    """ASGI middleware in front of the app: refuses what did not come from this launch's page.

    Args:
        app: The application behind the gate.
        token: This launch's token.
        port: The port the server listens on (the Host header must name it).
    """

    def __init__(self, app: App, *, token: LaunchToken, port: int) -> None:
        self.app = app
        self.token = token
        self.port = port
        self.cookie = f"memory_ui_{port}"
        self.hosts = {f"127.0.0.1:{port}".encode(), f"localhost:{port}".encode()}
        self.origins = {b"http://" + host for host in self.hosts}

    async def __call__(self, scope: Scope_, receive: Receive, send: Send) -> None:
        """Answer a refusal, or pass the request on with the safety headers added."""
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            return
        headers = dict(scope.get("headers") or [])
        if headers.get(b"host", b"") not in self.hosts:
            await _plain(send, 400, "memory ui answers only to its own loopback address")
            return
        query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True))
        if "token" in query and scope["method"] == "GET":
            if not self.token.matches(query.pop("token")):
                await _plain(send, 403, "that launch token is not this server's: use the URL memory ui printed")
                return
            rest = urlencode(query)
            location = scope["path"] + (f"?{rest}" if rest else "")
            cookie = f"{self.cookie}={self.token.value}; HttpOnly; SameSite=Strict; Path=/"
            await _redirect(send, location, cookie)
            return
        if not self.token.matches(_cookie(headers.get(b"cookie", b""), self.cookie)):
            await _plain(send, 403, "no launch token: open the URL memory ui printed")
            return
        if scope["method"] not in ("GET", "HEAD", "POST"):
            await _plain(send, 405, "method not allowed")
            return
        if scope["method"] == "POST":
            origin = headers.get(b"origin")
            if origin is not None and origin not in self.origins:
                await _plain(send, 403, "a form from another site cannot act on memory")
                return
            body = await _read_body(receive)
            fields = dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))
            if not self.token.csrf_matches(fields.get(CSRF_FIELD)):
                await _plain(send, 403, "this form did not come from this memory ui page: reload it")
                return
            receive = _replay(body, receive)

        async def send_with_headers(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *_HEADERS]
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _cookie(header: bytes, name: str) -> str | None:
    for part in header.decode("latin-1").split(";"):
        key, _, value = part.strip().partition("=")
        if key == name:
            return value
    return None


async def _read_body(receive: Receive) -> bytes:
    chunks = []
    more = True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunks.append(message.get("body", b""))
        more = bool(message.get("more_body"))
    return b"".join(chunks)


def _replay(body: bytes, original: Receive) -> Receive:
    """A `receive` that hands the app the body the guard already read, then waits as the original does."""
    sent = False

    async def receive() -> MutableMapping[str, Any]:
        nonlocal sent
        if sent:
            return await original()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


async def _plain(send: Send, status: int, text: str) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"text/plain; charset=utf-8"), *_HEADERS],
        }
    )
    await send({"type": "http.response.body", "body": (text + "\n").encode()})


async def _redirect(send: Send, location: str, cookie: str) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": 303,
            "headers": [(b"location", location.encode("latin-1")), (b"set-cookie", cookie.encode()), *_HEADERS],
        }
    )
    await send({"type": "http.response.body", "body": b""})
