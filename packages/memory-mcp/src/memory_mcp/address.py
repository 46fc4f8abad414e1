"""`HOST:PORT` for `--http`, and the loopback rule that decides whether a token is required.

Only the standard library: the CLI parses its arguments, and refuses an unsafe address, before
anything heavy is imported. A malformed address raises `ValueError` with a message that shows
the expected form; `refusal` says why a host may not be served without a token.
"""

from __future__ import annotations

import ipaddress

__all__ = ["parse_address", "is_loopback", "url_host"]

_MAX_PORT = 65535


def parse_address(text: str) -> tuple[str, int]:
    """Split `HOST:PORT` (`[::1]:8765` for IPv6; port 0 picks a free one) into host and port."""
    raw = text.strip()
    if raw.startswith("["):
        host, sep, port_text = raw[1:].partition("]:")
    else:
        host, sep, port_text = raw.rpartition(":")
    if not sep or not host:
        raise ValueError(f"expected HOST:PORT (for example 127.0.0.1:8765 or [::1]:8765), got {text!r}")
    try:
        port = int(port_text)
    except ValueError:
        raise ValueError(f"the port in {text!r} is not a number") from None
    if not 0 <= port <= _MAX_PORT:
        raise ValueError(f"the port in {text!r} is not between 0 and {_MAX_PORT}")
    return host, port


def is_loopback(host: str) -> bool:
    """Whether every address `host` stands for is a loopback one (so only this machine can connect).

    A name is resolved; a name that does not resolve, or resolves to any other address, is not
    loopback. `0.0.0.0` and `::` (every interface) are not loopback.
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    import socket  # only for a name: `memory` loads this module for every command

    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except OSError:
        return False
    addresses = {info[4][0] for info in infos}
    return bool(addresses) and all(ipaddress.ip_address(str(a).split("%")[0]).is_loopback for a in addresses)


def url_host(host: str) -> str:
    """`host` as it appears in a URL: IPv6 literals in brackets."""
    return f"[{host}]" if ":" in host else host


def refusal(host: str, token: str | None) -> str | None:
    """Why the HTTP server must not serve on `host` with `token`, or None when it may.

    Off loopback anyone who can reach the port could read and write memories, so a token is
    required there; on loopback only this machine's users can connect.
    """
    if token or is_loopback(host):
        return None
    return (
        f"refusing to serve on {host}, which is not a loopback address, without a token: set MEMORY_MCP_TOKEN "
        "to a long random secret that clients send as 'Authorization: Bearer <token>', or bind to 127.0.0.1"
    )
