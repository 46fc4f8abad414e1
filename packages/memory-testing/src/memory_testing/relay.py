"""A loopback TCP relay that counts a client's round trips to a real server.

A round trip is the client speaking after the server last spoke (or first): a pipeline of
ten commands sent in one write and answered in one reply is one round trip; ten commands
each waiting for its answer are ten. This is what a user waits for on a remote store, and
it is counted on the wire, so it holds for any client library and any protocol (RESP,
PostgreSQL's).

`round_trip_relay(host, port)` yields a `Relay` listening on a free loopback port and
forwarding every connection to (host, port); `relay.round_trips` is the count so far,
summed over connections, and `relay.connections` how many connections it relayed. The
relay's thread and sockets are closed on the way out; a connection that fails is closed on
both sides, as a network failure would.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

__all__ = ["Relay", "round_trip_relay"]

_CHUNK = 65536
_POLL_S = 0.05
"""How often the relay's thread looks at its stop flag when nothing moves."""


@dataclass
class Relay:
    """Where to connect (`host`, `port`) and how many round trips went through so far."""

    host: str
    port: int
    _count: int = 0
    _connections: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def round_trips(self) -> int:
        """Round trips so far, over every connection."""
        with self._lock:
            return self._count

    @property
    def connections(self) -> int:
        """Connections relayed so far (open or closed)."""
        with self._lock:
            return self._connections

    def _add(self, *, connection: bool = False) -> None:
        with self._lock:
            if connection:
                self._connections += 1
            else:
                self._count += 1


@contextlib.contextmanager
def round_trip_relay(host: str, port: int) -> Iterator[Relay]:
    """Relay loopback connections to (host, port), counting round trips (see the module doc)."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    relay = Relay("127.0.0.1", int(listener.getsockname()[1]))
    stop = threading.Event()
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, None)
    # per client socket: [its server socket, whether the client spoke last]; and server -> client
    peers: dict[socket.socket, socket.socket] = {}
    client_spoke_last: dict[socket.socket, bool] = {}

    def drop(sock: socket.socket) -> None:
        other = peers.pop(sock, None)
        for one in (sock, other):
            if one is not None:
                peers.pop(one, None)
                client_spoke_last.pop(one, None)
                with contextlib.suppress(KeyError, ValueError):
                    selector.unregister(one)
                one.close()

    def serve() -> None:
        while not stop.is_set():
            for key, _ in selector.select(_POLL_S):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                if sock is listener:
                    client, _ = listener.accept()
                    try:
                        server = socket.create_connection((host, port), timeout=5)
                    except OSError:
                        client.close()
                        continue
                    for one in (client, server):
                        one.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                        one.setblocking(True)
                    relay._add(connection=True)
                    peers[client], peers[server] = server, client
                    client_spoke_last[client] = False
                    selector.register(client, selectors.EVENT_READ, True)
                    selector.register(server, selectors.EVENT_READ, False)
                    continue
                is_client = bool(key.data)
                try:
                    data = sock.recv(_CHUNK)
                    if not data:
                        raise ConnectionResetError
                    if is_client and not client_spoke_last.get(sock, False):
                        relay._add()
                    client = sock if is_client else peers[sock]
                    client_spoke_last[client] = is_client
                    peers[sock].sendall(data)
                except (OSError, KeyError):
                    drop(sock)

    thread = threading.Thread(target=serve, name="round-trip-relay", daemon=True)
    thread.start()
    try:
        yield relay
    finally:
        stop.set()
        thread.join(timeout=5)
        for sock in list(peers):
            drop(sock)
        selector.close()
        listener.close()
