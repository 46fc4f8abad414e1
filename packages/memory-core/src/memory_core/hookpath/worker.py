"""The per-user memory worker: keeps the engine loaded so a hook costs about an interpreter start.

    python -m memory_core.hookpath.worker --socket PATH [--idle SECONDS]

Two transports over the same warm service (`memory_core.hookpath.warm`): the Unix socket every
hook client talks to (`serve`), and a pipe of JSON lines for a harness that keeps one worker
per harness process (`serve_stdio`, OpenClaw's). What follows is the socket worker's.

Started by a hook (`memory_core.hookpath.client`) that found none, detached in its own session;
never started by hand. It listens on a Unix socket in a folder only its user can enter,
answers hook requests one at a time with the same `memory_core.hookpath.runner.run` a hook process would
use, and exits after `--idle` seconds without a request (`MEMORY_WORKER_IDLE`, default 600).

Promises:
- One worker per socket: a lock file next to the socket is held for the worker's life, so two
  hooks racing to start one leave exactly one listening.
- A request whose memory settings differ from the worker's is refused (`MISMATCH`), and the
  hook handles it itself: a worker never writes with settings it was not started with.
- Only adapters from memory packages (`memory_*` modules) are loaded.
- The worker is long-lived in the service's sense: after an outage it backs off and retries
  rather than giving up, and every request is still bounded by the store timeout.
- A failure inside a request is logged by the service and answered with nothing: the worker
  keeps serving.
- Housekeeping (checkpointing the embedded store's log) runs only after a second without a
  request, so hooks do not pay for it.
- The embedding model loads in a background thread as the worker starts (a worker starts at a
  session's start or at a cold turn: a prompt is coming), unless `MEMORY_EMBEDDINGS=0`; the
  first request never waits for it unless it needs the model before the load is done. Started
  with `--warm ADAPTER` (as a hook starts it), the worker also loads the vectors of the project
  of its folder (the hook's) for that adapter's service in the background: the turn that
  started it (a SessionStart) was handled in the hook's own process, whose loads die with it.
- After a write event whose harness names its transcript (Claude Code, Codex), the worker reads
  the turn's timeline from it once the hook has its answer and the connection is closed
  (`memory_core.hookpath.transcripts`): the write hook never waits for a transcript.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import select
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterator
from typing import BinaryIO

from memory_core.harnesses.contract import HookAdapter
from memory_core.hookpath.client import PROTOCOL, worker_environment
from memory_core.hookpath.transcripts import TranscriptFollower
from memory_core.hookpath.warm import WarmService, for_adapter
from memory_core.localstate.locks import exclusive_lock
from memory_core.models import EventKind, HookEvent

__all__ = ["serve", "serve_stdio", "main", "stop_worker"]

_DEFAULT_IDLE_S = 600.0
_REQUEST_TIMEOUT_S = 2.0
_TIDY_AFTER_S = 1.0
"""Quiet time after a request before housekeeping runs: a turn's two hooks come closer."""
_MAX_REQUEST_BYTES = 8 * 1024 * 1024
"""A payload larger than this is refused: hook payloads are a few kilobytes."""


class _Worker:
    """The adapters of one worker, and a warm service per adapter, each built on first use."""

    def __init__(self) -> None:
        self.settings = worker_environment()
        self.adapters: dict[str, HookAdapter] = {}
        self.services: dict[str, WarmService] = {}
        self.transcripts = TranscriptFollower()
        self._handled: list[tuple[str, HookEvent]] = []

    def answer(self, request: bytes) -> bytes:
        header, _, body = request.partition(b"\n")
        parts = header.split(b" ")
        if len(parts) != 5 or parts[0] != PROTOCOL:
            return b"BAD\n"
        adapter_ref = parts[1].decode("ascii", "replace")
        settings_len, cwd_len, payload_len = int(parts[2]), int(parts[3]), int(parts[4])
        if len(body) != settings_len + cwd_len + payload_len:
            return b"BAD\n"
        if body[:settings_len] != self.settings:
            return b"MISMATCH\n"
        if not adapter_ref.startswith("memory_") or ":" not in adapter_ref:
            return b"BAD\n"
        adapter = self._adapter(adapter_ref)
        if adapter_ref not in self.services:
            self.services[adapter_ref] = for_adapter(adapter)
        # A payload without a cwd resolves against the hook's folder, not the worker's.
        cwd = os.fsdecode(body[settings_len : settings_len + cwd_len]) or None
        handled: list[HookEvent] = []
        out = self.services[adapter_ref].hook(adapter, body[settings_len + cwd_len :], cwd=cwd, handled=handled)
        self._handled += [(adapter_ref, event) for event in handled if event.transcript_path]
        return b"OK\n" + out.encode("utf-8")

    def after_reply(self) -> None:
        """What a write event leaves for after its hook has the answer: its transcript's new events."""
        handled, self._handled = self._handled, []
        for ref, event in handled:
            warm = self.services.get(ref)
            if warm is not None and event.kind is EventKind.WRITE:
                with contextlib.suppress(Exception):  # the follower never raises; the worker must not die
                    warm.call(
                        lambda service, ref=ref, event=event: self.transcripts.follow(  # type: ignore[misc]
                            service, self.adapters[ref], event
                        )
                    )

    def warm(self, ref: str, cwd: str) -> None:
        """Load the model and the vectors of `cwd`'s project for adapter `ref`'s service, in the
        background (`MemoryService.warm`). Never raises: the first request meets any failure.
        """
        if not ref.startswith("memory_") or ":" not in ref:
            return
        with contextlib.suppress(Exception):
            adapter = self._adapter(ref)
            warm = self.services.setdefault(ref, for_adapter(adapter))
            warm.call(lambda service: service.warm(cwd))

    def _adapter(self, ref: str) -> HookAdapter:
        if ref not in self.adapters:
            module, _, name = ref.partition(":")
            self.adapters[ref] = getattr(importlib.import_module(module), name)()
        return self.adapters[ref]

    def tidy(self) -> None:
        """Housekeeping while no hook waits: checkpoint the embedded store's log."""
        for service in self.services.values():
            service.tidy()

    def close(self) -> None:
        for service in self.services.values():
            service.close()


def _read_request(conn: socket.socket) -> bytes | None:
    conn.settimeout(_REQUEST_TIMEOUT_S)
    chunks: list[bytes] = []
    size = 0
    while size <= _MAX_REQUEST_BYTES:
        chunk = conn.recv(65536)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
    return None


@contextlib.contextmanager
def _exclusive(path: str) -> Iterator[bool]:
    with exclusive_lock(path + ".lock") as fd:
        if fd is None:
            yield False
            return
        # The holder's pid, for whoever must stop it (tests, `memory doctor`).
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        yield True


def serve(path: str, *, idle: float, warm: str | None = None) -> int:
    """Listen on `path` until `idle` seconds pass without a request. Returns the exit status.

    `warm`: an adapter whose service loads the model and this folder's project vectors at once.
    """
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    with _exclusive(path) as mine:
        if not mine:
            return 0  # another worker holds this socket
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)  # a stale socket of a worker that died
        old_umask = os.umask(0o077)
        try:
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            listener.bind(path)
        finally:
            os.umask(old_umask)
        listener.listen(64)
        # SIGTERM ends the loop through `finally`, so the socket file goes with the worker.
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        worker = _Worker()
        threading.Thread(target=_warm_model, name="memory-warm-model", daemon=True).start()
        if warm:
            # Listening already: a hook arriving meanwhile waits in the backlog, not on a refusal.
            worker.warm(warm, os.getcwd())
        last = time.monotonic()
        tidy = False
        try:
            while True:
                wait = max(0.0, idle - (time.monotonic() - last))
                ready, _, _ = select.select([listener], [], [], min(wait, _TIDY_AFTER_S) if tidy else wait)
                if not ready:
                    if tidy:
                        worker.tidy()
                        tidy = False
                    elif time.monotonic() - last >= idle:
                        return 0
                    continue
                conn, _ = listener.accept()
                last = time.monotonic()
                tidy = True
                with conn:
                    try:
                        request = _read_request(conn)
                        reply = worker.answer(request) if request is not None else b"BAD\n"
                        conn.sendall(reply)
                    except (OSError, ValueError, UnicodeError):
                        continue  # that hook times out or reads a bad answer and handles its turn itself
                # The hook has its answer and the connection is closed: the transcript is read now,
                # off the write hook's clock.
                worker.after_reply()
        finally:
            worker.close()
            listener.close()
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)


def _warm_model() -> None:
    """Load the process's embedding model now (`embedding.shared_embedder`), if memory wants it."""
    try:
        from memory_core.config import Config

        config = Config.from_env()
        if config.enabled and config.embeddings:
            from memory_core.embedding import shared_embedder

            shared_embedder()
    except Exception:  # noqa: BLE001, S110 - the first request meets, and logs, the same failure
        pass


def serve_stdio(adapter: HookAdapter, requests: BinaryIO, answers: BinaryIO) -> None:
    """The pipe transport: answer each request line of `requests` on `answers` until end of input.

    For a harness that keeps one worker per harness process and writes to its pipe (OpenClaw,
    whose package documents why). One JSON object per line each way: `{"id": n, "payload":
    {...}}` in, `{"id": n, "out": "..."}` out, in order, `out` being exactly what the hook
    process would print. A line that is not a request is skipped. When the reader goes away,
    the requests already read are still handled (a capture is not lost) and their answers
    dropped. The warm service is built before the first request, so the engine is loaded
    ahead of the turn; it is long-lived and refreshed per request like the socket worker's.
    """
    warm = for_adapter(adapter)
    threading.Thread(target=_warm_model, name="memory-warm-model", daemon=True).start()
    with contextlib.suppress(Exception):  # a failure here is met, and logged, by the first request
        warm.service()
    deliver = True
    try:
        for line in requests:
            try:
                request = json.loads(line)
                request_id, payload = request["id"], request["payload"]
            except (ValueError, TypeError, KeyError):
                continue
            out = warm.hook(adapter, json.dumps(payload).encode("utf-8"))
            if not deliver:
                continue
            try:
                answers.write(json.dumps({"id": request_id, "out": out}).encode("utf-8") + b"\n")
                answers.flush()
            except OSError:
                deliver = False  # the reader is gone: keep handling the captures it sent, quietly
    finally:
        warm.close()


def stop_worker(path: str) -> bool:
    """Ask the worker listening on `path` to exit (SIGTERM); returns whether one was signalled."""
    try:
        with open(path + ".lock", encoding="ascii") as lock:
            text = lock.read().strip()
    except (OSError, UnicodeError):
        return False
    if not text.isdigit() or int(text) <= 1:  # never signal a process group by accident
        return False
    try:
        os.kill(int(text), signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    """Command line of the worker (started by hooks, not by users)."""
    parser = argparse.ArgumentParser(prog="python -m memory_core.hookpath.worker")
    parser.add_argument("--socket", required=True)
    default_idle = os.environ.get("MEMORY_WORKER_IDLE", "")
    try:
        idle = float(default_idle) if default_idle else _DEFAULT_IDLE_S
    except ValueError:
        idle = _DEFAULT_IDLE_S
    parser.add_argument("--idle", type=float, default=idle)
    parser.add_argument("--warm", default=None, help="an adapter (module:Class) to warm this folder's project for")
    args = parser.parse_args(argv)
    return serve(args.socket, idle=max(1.0, args.idle), warm=args.warm)


if __name__ == "__main__":
    sys.exit(main())
