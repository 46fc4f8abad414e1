"""The plugin's two hooks, and the one memory service they share in a Hermes process.

Promise:
- `pre_llm_call` returns `{"context": text}` when recall found something relevant and None
  otherwise, within `RECALL_WAIT_S` (+ a few ms) whatever the store does.
- `post_llm_call` hands the finished turn to the service, which stores it, or spools it when
  the store is unreachable; it returns within `CAPTURE_WAIT_S`, and a capture still running
  then completes in the background (and gets `EXIT_GRACE_S` at exit).
- Neither ever raises. Every swallowed error is one line in the memory log and one counter
  `doctor` reads.

The service is memory-core's warm service (`memory_core.hookpath.warm`), built once per
process, lazily, on the core's service thread (`memory_core.hookpath.service_thread`), as a
long-lived service: after a store outage it skips the store and retries after a back-off,
instead of paying a timeout on every turn; it is refreshed before each job. A session whose history shrank since its
previous turn was compacted by Hermes: its injected set is reset before recall (see
`memory_hermes.protocol`). Hermes sends no working directory, so
the project is resolved once, from the folder the process was in when Hermes loaded the
plugin (or `MEMORY_PROJECT`), and recorded for `doctor` (`memory_hermes.whereabouts`).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from dataclasses import replace
from typing import Any

from memory_core.config import Config
from memory_core.hookpath.service_thread import ServiceThread
from memory_core.hookpath.warm import WarmService
from memory_core.localstate.logbook import Logbook
from memory_core.models import EventKind, HookEvent, Recall
from memory_core.service import MemoryService

from memory_hermes import whereabouts
from memory_hermes.protocol import (
    MAX_CONTEXT_TOKENS,
    READ_HOOK,
    WRITE_HOOK,
    compacted,
    history_length,
    hook_return,
    parse_call,
    render_context,
    reset_event,
)

__all__ = ["register", "pre_llm_call", "post_llm_call", "RECALL_WAIT_S", "CAPTURE_WAIT_S", "EXIT_GRACE_S"]

RECALL_WAIT_S = 1.4
"""How long a turn waits for recall: Hermes's turn must go on within 1.5 s even if the store hangs."""
CAPTURE_WAIT_S = 1.4
"""How long the end of a turn waits for its capture before letting it finish in the background."""
EXIT_GRACE_S = 3.0
"""How long a Hermes process that is exiting waits for captures still queued."""
_SESSIONS_TRACKED = 256
"""Sessions whose history length is remembered (a gateway serves many; the oldest is forgotten)."""


class _Runtime:
    """One per process: the service thread, the configuration, and the warm service it runs."""

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd
        self.worker = ServiceThread("memory-hermes", exit_grace=EXIT_GRACE_S)
        self._config: Config | None = None
        self._logbook: Logbook | None = None
        self._warm = WarmService(self._build)
        self._broken = False
        self._history: OrderedDict[str, int] = OrderedDict()
        self._history_lock = threading.Lock()
        try:
            self._config = _capped(Config.from_env())
            self._logbook = Logbook(self._config.log_path, self._config.state_dir)
        except Exception:  # noqa: BLE001, S110 - without a config the service build reports it below
            pass

    def warm_up(self) -> None:
        """Build the service in the background now, so the first turn does not pay for it."""
        self.worker.submit(self._service_or_none)

    def handle(self, event: HookEvent, *, timeout: float) -> Recall | None:
        """Run `event` through the service on the worker; None when memory is unavailable here.

        A recall not started within `timeout` is dropped; a capture always runs.
        """

        def job() -> Recall | None:
            service = self._service_or_none()
            return service.handle(event) if service is not None else None

        return self.worker.run(job, timeout=timeout, drop_if_late=event.kind is EventKind.READ)

    def history_shrank(self, session_id: str, length: int | None) -> bool:
        """Remember `session_id`'s history length; whether it shrank since its last turn."""
        if length is None:
            return False
        with self._history_lock:
            previous = self._history.pop(session_id, None)
            self._history[session_id] = length
            while len(self._history) > _SESSIONS_TRACKED:
                self._history.popitem(last=False)
        return compacted(previous, length)

    def reset(self, event: HookEvent) -> None:
        """Queue a reset of `event`'s session ahead of its next job, without waiting for it."""

        def job() -> None:
            service = self._service_or_none()
            if service is not None:
                service.handle(reset_event(event))

        self.worker.submit(job)

    def error(self, where: str, exc: BaseException | str) -> None:
        """Log one swallowed error and bump its counter (never raises)."""
        if self._logbook is not None:
            self._logbook.error(where, exc)

    def _service_or_none(self) -> MemoryService | None:
        # Service thread only: the service and its store connection never cross threads.
        if self._broken:
            return None
        try:
            service = self._warm.service()
        except Exception as exc:  # noqa: BLE001 - a setting that cannot work will not fix itself in this process
            self._broken = True
            self.error("hermes.service", exc)
            return None
        service.refresh()
        return service

    def _build(self) -> MemoryService:
        config = self._config or _capped(Config.from_env())
        service = MemoryService(config, long_lived=True, cwd=self.cwd)
        project = service.project()
        whereabouts.record(config.state_dir, key=project.key, source=project.source, cwd=self.cwd)
        self._logbook = service.logbook  # the service's logbook scrubs secrets out of messages
        return service


def _capped(config: Config) -> Config:
    """The configuration with the injected block held to Hermes's budget."""
    if config.max_tokens <= MAX_CONTEXT_TOKENS:
        return config
    return replace(config, max_tokens=MAX_CONTEXT_TOKENS)


_runtime: _Runtime | None = None
_runtime_lock = threading.Lock()


def _start_folder() -> str:
    """The folder Hermes runs in; when it was deleted under us, the one the shell said, else home."""
    try:
        return os.getcwd()
    except OSError:
        return os.environ.get("PWD") or os.path.expanduser("~")


def _get_runtime() -> _Runtime:
    global _runtime
    if _runtime is None:
        with _runtime_lock:
            if _runtime is None:
                _runtime = _Runtime(_start_folder())
    return _runtime


def register(ctx: Any) -> None:
    """Hermes's plugin entry: hook recall and capture into the agent loop."""
    runtime = _get_runtime()
    ctx.register_hook(READ_HOOK, pre_llm_call)
    ctx.register_hook(WRITE_HOOK, post_llm_call)
    runtime.warm_up()


def pre_llm_call(**kwargs: Any) -> dict[str, str] | None:
    """Recall for the turn about to reach the model: `{"context": ...}` or None."""
    try:
        runtime = _get_runtime()
        event = parse_call({"hook": READ_HOOK, "kwargs": kwargs})
        if event.kind is not EventKind.READ:
            return None
        if runtime.history_shrank(event.session_id, history_length(kwargs)):
            runtime.reset(event)
        try:
            recall = runtime.handle(event, timeout=RECALL_WAIT_S)
        except TimeoutError:
            runtime.error("hermes.recall_timeout", f"no recall within {RECALL_WAIT_S} s; the turn went on without it")
            return None
        return hook_return(render_context(event, recall)) if recall is not None else None
    except Exception as exc:  # noqa: BLE001 - a memory failure never shows in a turn
        _log_swallowed("hermes.pre_llm_call", exc)
        return None


def post_llm_call(**kwargs: Any) -> None:
    """Capture the turn that just completed (stored, or spooled on an outage)."""
    try:
        runtime = _get_runtime()
        event = parse_call({"hook": WRITE_HOOK, "kwargs": kwargs})
        if event.kind is not EventKind.WRITE:
            return
        try:
            runtime.handle(event, timeout=CAPTURE_WAIT_S)
        except TimeoutError:
            runtime.error("hermes.capture_slow", f"capture still running after {CAPTURE_WAIT_S} s; finishing it later")
    except Exception as exc:  # noqa: BLE001 - a memory failure never shows in a turn
        _log_swallowed("hermes.post_llm_call", exc)


def _log_swallowed(where: str, exc: BaseException) -> None:
    try:
        _get_runtime().error(where, exc)
    except Exception:  # noqa: BLE001, S110 - the last resort: nothing left to report to
        pass
