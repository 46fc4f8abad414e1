"""The warm service: the one long-lived `MemoryService` a process keeps loaded between requests.

Every long-lived caller holds one: the socket worker (one per adapter), OpenClaw's stdio worker,
Hermes's in-process plugin and the MCP server. What they share, and this promises:

- The service is built on first use, from the caller's factory, and kept until `close`. A
  factory that raises is called again on the next request, so a setting fixed in the meantime
  takes effect without a restart; a caller that would rather give up after one failure (Hermes)
  stops asking.
- Before each request the service is refreshed (`MemoryService.refresh`): a repository whose
  remote changed is seen under its new key, and a session another process wrote to meanwhile
  gets its next position counted afresh.
- The service is long-lived in its own sense (`long_lived=True` is the factories' job): after a
  store outage it backs off and retries instead of giving up, and every call is still bounded
  by the store timeout.
- `tidy` is the housekeeping an idle moment allows (checkpointing the embedded store's log).

Threads: a `WarmService` is not locked. Each caller uses it from one thread: the worker's loop,
or the one `ServiceThread` of the MCP server and of Hermes, so the store connection (SQLite's in
particular) never crosses threads.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TypeVar

from memory_core.harnesses.contract import HookAdapter
from memory_core.hookpath.runner import config_for, run
from memory_core.models import HookEvent
from memory_core.service import MemoryService

__all__ = ["WarmService", "for_adapter"]

_T = TypeVar("_T")


class WarmService:
    """One `MemoryService`, built on first use by `factory` and refreshed before each request.

    Args:
        factory: Builds the service (with `long_lived=True`). Called on the first request, and
            again on the next one if it raised.
    """

    def __init__(self, factory: Callable[[], MemoryService]) -> None:
        self._factory = factory
        self._service: MemoryService | None = None

    def service(self) -> MemoryService:
        """The service, built now if it was not yet. Raises what the factory raised."""
        if self._service is None:
            self._service = self._factory()
        return self._service

    def call(self, work: Callable[[MemoryService], _T]) -> _T:
        """Run `work` over the refreshed service; what either raises propagates unchanged."""
        service = self.service()
        service.refresh()
        return work(service)

    def hook(
        self, adapter: HookAdapter, payload: bytes, *, cwd: str | None = None, handled: list[HookEvent] | None = None
    ) -> str:
        """Handle one hook payload as a hook process would (`memory_core.hookpath.runner.run`). Never raises.

        `cwd` is the folder of the process that sent the payload: a payload without a working
        directory resolves its project there, not in this process's folder. Without a service
        (the factory raised) the payload is handled by a service built for it alone, which
        logs why. `handled` receives the event, as `run` says.
        """
        try:
            service = self.service()
        except Exception:  # noqa: BLE001 - the per-call path below reports the same failure in the log
            return run(adapter, payload)
        service.refresh()
        service.cwd = cwd
        return run(adapter, payload, config=service.config, service=service, handled=handled)

    def tidy(self) -> None:
        """Housekeeping while no request waits; nothing before the service was built. Never raises."""
        if self._service is not None:
            self._service.tidy()

    def close(self) -> None:
        """Close the service (and its store) if it was built. Idempotent; never raises."""
        service, self._service = self._service, None
        if service is not None:
            with contextlib.suppress(Exception):
                service.close()


def for_adapter(adapter: HookAdapter) -> WarmService:
    """The warm service of a hook adapter: the environment's settings with the adapter's token cap."""
    return WarmService(lambda: MemoryService(config_for(adapter), long_lived=True))
