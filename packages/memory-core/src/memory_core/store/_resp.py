"""A small RESP2 client for one standalone Redis or Valkey server, on the standard library.

Why not redis-py here: importing redis-py costs many times the interpreter's own start-up,
and a hook process pays it on every prompt. The Redis store needs a handful of commands, sent
in pipelines, with replies it parses itself; that is this module. A Redis Cluster (slot maps,
redirections) still goes through redis-py.

Promises: every connect, send and read is bounded by `timeout`; nothing is retried; TLS with
certificate and host-name checks on by default (`rediss://`); `AUTH` and `SELECT` ride in
the first round trip. Bulk replies are decoded as UTF-8.

Failure: `OSError` (refused, reset, timed out, TLS refused) for the network, `RespError` for
an error reply. After any network error the connection is dropped; the next call reconnects.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["RespConnection", "RespError", "Reply", "SSL_OPTIONS", "UNAVAILABLE_CODES", "AUTH_CODES"]

Reply = Any
"""str, int, None, or a list of replies (RESP2)."""

SSL_OPTIONS = frozenset({"ssl_ca_certs", "ssl_certfile", "ssl_keyfile", "ssl_cert_reqs", "ssl_check_hostname"})
"""The TLS settings a `rediss://` URL may carry, named as redis-py names them."""

UNAVAILABLE_CODES = ("LOADING", "READONLY", "MASTERDOWN", "TRYAGAIN", "CLUSTERDOWN", "BUSY")
"""Error replies that mean "not now" (a replica, a load, a failover, a long script): an outage."""
AUTH_CODES = ("NOAUTH", "WRONGPASS", "NOPERM")
"""Error replies that mean the credentials are wrong: the user must act."""

_CRLF = b"\r\n"


class RespError(Exception):
    """The server answered a command with an error reply (the message starts with its code)."""


def _encode(args: Sequence[object]) -> bytes:
    parts = [b"*%d\r\n" % len(args)]
    for arg in args:
        if isinstance(arg, bytes):
            data = arg
        elif isinstance(arg, float):
            data = repr(arg).encode()
        else:
            data = str(arg).encode()
        parts += [b"$%d\r\n" % len(data), data, _CRLF]
    return b"".join(parts)


class RespConnection:
    """One connection to one server, opened on first use. Thread-safe: calls are serialised."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        db: int,
        timeout: float,
        username: str | None = None,
        password: str | None = None,
        tls: bool = False,
        tls_options: Mapping[str, str] | None = None,
    ) -> None:
        self._address = (host, port)
        self._db = db
        self._timeout = timeout
        self._auth = [username, password] if username else [password] if password else []
        self._tls = tls
        self._tls_options = dict(tls_options or {})
        self._sock: socket.socket | None = None
        self._reader: Any = None
        self._lock = threading.Lock()

    def run(self, commands: Sequence[Sequence[object]]) -> list[Reply]:
        """Send `commands` in one write and return their replies, in order.

        Raises the first `RespError` among the replies (after reading them all, so the
        connection stays in step), or `OSError` for a network failure.
        """
        with self._lock:
            try:
                if self._sock is None:
                    self._open()
                assert self._sock is not None
                self._sock.sendall(b"".join(_encode(c) for c in commands))
                replies = [self._read() for _ in commands]
            except BaseException:
                self._close()
                raise
        for reply in replies:
            if isinstance(reply, RespError):
                raise reply
        return replies

    def close(self) -> None:
        """Close the connection. Idempotent."""
        with self._lock:
            self._close()

    def _close(self) -> None:
        sock, self._sock, self._reader = self._sock, None, None
        if sock is not None:
            try:
                sock.close()
            except OSError:
                pass

    def _open(self) -> None:
        sock = socket.create_connection(self._address, timeout=self._timeout)
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self._tls:
                sock = self._wrap(sock)
            self._sock, self._reader = sock, sock.makefile("rb")
            hello: list[list[object]] = []
            if self._auth:
                hello.append(["AUTH", *self._auth])
            if self._db:
                hello.append(["SELECT", self._db])
            if hello:
                sock.sendall(b"".join(_encode(c) for c in hello))
                for reply in [self._read() for _ in hello]:
                    if isinstance(reply, RespError):
                        raise reply
        except BaseException:
            self._sock = sock
            self._close()
            raise

    def _wrap(self, sock: socket.socket) -> socket.socket:
        import ssl  # only for rediss://: ssl costs a few milliseconds to import

        options = self._tls_options
        context = ssl.create_default_context(cafile=options.get("ssl_ca_certs"))
        if options.get("ssl_certfile"):
            context.load_cert_chain(options["ssl_certfile"], options.get("ssl_keyfile"))
        requirement = options.get("ssl_cert_reqs", "required").lower()
        if options.get("ssl_check_hostname", "").lower() in ("false", "0", "no") or requirement != "required":
            context.check_hostname = False
        if requirement == "none":
            context.verify_mode = ssl.CERT_NONE
        elif requirement == "optional":
            context.verify_mode = ssl.CERT_OPTIONAL
        return context.wrap_socket(sock, server_hostname=self._address[0])

    def _read(self) -> Reply:
        line = self._reader.readline()
        if not line.endswith(_CRLF):
            raise ConnectionResetError("the server closed the connection")
        kind, body = line[:1], line[1:-2]
        if kind == b"$":
            size = int(body)
            if size < 0:
                return None
            data = self._reader.read(size + 2)
            if len(data) != size + 2:
                raise ConnectionResetError("the server closed the connection mid-reply")
            return data[:-2].decode()
        if kind == b"*":
            count = int(body)
            return None if count < 0 else [self._read() for _ in range(count)]
        if kind == b":":
            return int(body)
        if kind == b"+":
            return body.decode()
        if kind == b"-":
            return RespError(body.decode(errors="replace"))
        raise ConnectionResetError(f"unexpected reply from the server: {line[:40]!r}")
