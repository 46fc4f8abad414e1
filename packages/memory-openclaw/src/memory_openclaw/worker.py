"""`python -m memory_openclaw.worker`: one long-lived hook process per OpenClaw process.

Why not a process per hook call, as the other harnesses do: OpenClaw runs plugins inside its
own process, 0.7-1.4 GB, and starting a child from it (`fork`) holds OpenClaw's event loop
while the OS copies that process, 15-90 ms measured here, on every call. The plugin starts
this worker once, ahead of the first prompt, and then only writes to a pipe. The engine is
imported before the first request arrives.

Protocol, one JSON object per line each way: `{"id": n, "payload": {...}}` in (a payload as
`memory_openclaw.adapter` documents it), `{"id": n, "out": "..."}` out, in order, for every
request (`out` is exactly what `python -m memory_openclaw.hook` would print: "" or
`{"appendContext": ...}`). Each payload is handled by `memory_core.hookpath.runner.run`, as a hook
process handles one, over one long-lived `MemoryService` (the engine and the store connection
stay open; after a store outage it backs off and reconnects instead of giving up, and every
call is still bounded by the store timeout), refreshed before each request. `run` never raises.
The configuration is read once, from the environment OpenClaw gave the worker.

Lifetime: the worker reads until stdin closes, answers what it read, and exits 0. When
OpenClaw exits first (an `openclaw agent --local` run ends right after its capture), the
requests already in the pipe are still handled; answers that can no longer be delivered are
dropped. A line that is not a request is skipped.
"""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING, BinaryIO

from memory_core.config import Config
from memory_core.hookpath.runner import run

from memory_openclaw.adapter import OpenClawHooks

if TYPE_CHECKING:
    from memory_core.service import MemoryService

__all__ = ["serve", "main"]

_ENGINE = ("memory_core.service", "memory_core.store", "memory_core.firewall", "memory_core.retrieval.retriever")


def _service() -> MemoryService | None:
    try:
        from memory_core.service import MemoryService

        return MemoryService(Config.from_env(), long_lived=True)
    except Exception:  # noqa: BLE001 - then each request builds its own, and logs why
        return None


def serve(requests: BinaryIO, answers: BinaryIO) -> None:
    """Answer each request line of `requests` on `answers` until end of input."""
    adapter = OpenClawHooks()
    service = _service()
    deliver = True
    try:
        for line in requests:
            try:
                request = json.loads(line)
                request_id, payload = request["id"], request["payload"]
            except (ValueError, TypeError, KeyError):
                continue
            raw = json.dumps(payload).encode("utf-8")
            if service is None:
                out = run(adapter, raw)
            else:
                service.refresh()
                out = run(adapter, raw, config=service.config, service=service)
            if not deliver:
                continue
            try:
                answers.write(json.dumps({"id": request_id, "out": out}).encode("utf-8") + b"\n")
                answers.flush()
            except OSError:
                deliver = False  # OpenClaw is gone: keep handling the captures it sent, quietly
    finally:
        if service is not None:
            service.close()


def _warm_up() -> None:
    """Import the engine before the first request: the plugin starts us ahead of the turn."""
    import importlib

    for module in _ENGINE:
        try:
            importlib.import_module(module)
        except Exception:  # noqa: BLE001, S112 - a module that fails here fails again, logged, in run()
            continue


def main() -> None:
    """Serve stdin/stdout; exit 0 whatever happens."""
    answers = sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print anywhere must not corrupt the protocol
    try:
        _warm_up()
        serve(sys.stdin.buffer, answers)
    except BaseException:  # noqa: BLE001, S110 - exit 0 is the contract, even on Ctrl-C
        pass
    os._exit(0)


if __name__ == "__main__":
    main()
