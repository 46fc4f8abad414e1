"""`python -m memory_openclaw.worker`: one long-lived hook process per OpenClaw process.

Why not a process per hook call, as the other harnesses do: OpenClaw runs plugins inside its
own process, 0.7-1.4 GB, and starting a child from it (`fork`) holds OpenClaw's event loop
while the OS copies that process, 15-90 ms measured here, on every call. The plugin starts
this worker once, ahead of the first prompt, and then only writes to a pipe. The engine is
imported before the first request arrives.

The transport is memory-core's pipe worker (`memory_core.hookpath.worker.serve_stdio`), over the same
warm service as the socket worker: one JSON object per line each way, `{"id": n, "payload":
{...}}` in (a payload as `memory_openclaw.adapter` documents it), `{"id": n, "out": "..."}` out,
in order, for every request (`out` is exactly what `python -m memory_openclaw.hook` would
print: "" or `{"appendContext": ...}`). The engine and the store connection stay open; after a
store outage the service backs off and reconnects instead of giving up, and every call is
still bounded by the store timeout. The configuration is read once, from the environment
OpenClaw gave the worker.

Lifetime: the worker reads until stdin closes, answers what it read, and exits 0. When
OpenClaw exits first (an `openclaw agent --local` run ends right after its capture), the
requests already in the pipe are still handled; answers that can no longer be delivered are
dropped. A line that is not a request is skipped.
"""

from __future__ import annotations

import os
import sys
from typing import BinaryIO

from memory_core.hookpath.worker import serve_stdio

from memory_openclaw.adapter import OpenClawHooks

__all__ = ["serve", "main"]


def serve(requests: BinaryIO, answers: BinaryIO) -> None:
    """Answer each request line of `requests` on `answers` until end of input."""
    serve_stdio(OpenClawHooks(), requests, answers)


def main() -> None:
    """Serve stdin/stdout; exit 0 whatever happens."""
    answers = sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print anywhere must not corrupt the protocol
    try:
        serve(sys.stdin.buffer, answers)
    except BaseException:  # noqa: BLE001, S110 - exit 0 is the contract, even on Ctrl-C
        pass
    os._exit(0)


if __name__ == "__main__":
    main()
