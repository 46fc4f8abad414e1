"""Launch `memory ui`: bind loopback, print the URL with the token, open the browser, serve.

Promises:
- The server binds 127.0.0.1 only (there is no option to bind anything else) on the port asked
  for, or on one the system picks.
- The first line on standard output is the URL with this launch's token; nothing else ever
  prints or logs the token (uvicorn's access log is off; its other logs never carry a URL).
- The process serves until interrupted, then closes the store.

Failure: a port already in use raises `OSError` (the CLI prints `memory: error: ...`).
"""

from __future__ import annotations

import socket
import sys
import threading
import webbrowser
from typing import TextIO

import uvicorn

from memory_core.service import MemoryService
from memory_core.ui.app import build_app
from memory_core.ui.guard import LaunchToken

__all__ = ["serve", "bind", "launch_url"]

_HOST = "127.0.0.1"


def bind(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1:`port` (0: any free port)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((_HOST, port))
    sock.listen(64)
    sock.set_inheritable(True)
    return sock


def launch_url(port: int, token: str) -> str:
    """The one URL that opens the page: it carries the token the first load trades for a cookie."""
    return f"http://{_HOST}:{port}/?token={token}"


def serve(
    service: MemoryService,
    *,
    port: int = 0,
    open_browser: bool = True,
    out: TextIO | None = None,
    ready: threading.Event | None = None,
) -> None:
    """Serve the page until interrupted. `ready` is set once the server accepts connections."""
    sock = bind(port)
    chosen = sock.getsockname()[1]
    token = LaunchToken()
    app = build_app(service, token, chosen)
    url = launch_url(chosen, token.value)
    stream = out or sys.stdout
    stream.write(url + "\n")
    stream.flush()
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        proxy_headers=False,
        server_header=False,
        lifespan="off",
        timeout_graceful_shutdown=2,
    )
    server = uvicorn.Server(config)

    def when_started() -> None:
        for _ in range(200):
            if server.started:
                break
            threading.Event().wait(0.05)
        if ready is not None:
            ready.set()
        if open_browser:
            webbrowser.open(url)

    threading.Thread(target=when_started, name="memory-ui-open", daemon=True).start()
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
        service.close()
