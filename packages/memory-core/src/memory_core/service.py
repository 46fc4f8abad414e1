"""`MemoryService`: the one API every harness, the CLI and the MCP server call.

(API contract; the implementation lands in the next commit.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memory_core.config import Config
from memory_core.models import CaptureOutcome, Hit, HookEvent, Outcome, Recall, Record, ScopeKind
from memory_core.store.base import Store

__all__ = ["MemoryService"]


class MemoryService:
    """Recall, capture and the deliberate operations, over one store.

    Args:
        config: The resolved configuration (default: `Config.from_env()`).
        store: An open store (default: opened lazily from `config.url`).
        long_lived: False in a hook process: after one outage every later store call in this
            process is skipped. True in the MCP server or an in-process plugin: retry after a
            back-off instead.
        cwd: The working directory used to resolve the project when a call does not pass one.
    """

    def __init__(
        self,
        config: Config | None = None,
        *,
        store: Store | None = None,
        long_lived: bool = False,
        cwd: str | None = None,
    ) -> None:
        raise NotImplementedError

    def handle(self, event: HookEvent) -> Recall:
        """The hook path in one call: READ assembles, WRITE captures, RESET resets. Never raises."""
        raise NotImplementedError

    def assemble(
        self, prompt: str, *, harness: str, session_id: str, turn_id: str | None = None, cwd: str | None = None
    ) -> Recall:
        """Recall for one prompt; also stashes the prompt for the turn's write event."""
        raise NotImplementedError

    def capture(
        self,
        *,
        harness: str,
        session_id: str,
        turn_id: str | None,
        response: str,
        prompt: str | None = None,
        cwd: str | None = None,
    ) -> CaptureOutcome:
        """Store one turn (prompt taken from the handoff when not given). Spools on an outage."""
        raise NotImplementedError

    def reset_session(self, *, harness: str, session_id: str) -> None:
        """A compaction emptied the live context: clear the injected set."""
        raise NotImplementedError

    def search(
        self,
        query: str,
        *,
        scope: ScopeKind | None = None,
        limit: int = 10,
        author: str | None = None,
        cwd: str | None = None,
    ) -> list[Hit]:
        """Deliberate search (CLI, MCP). Does not touch any session's injected set."""
        raise NotImplementedError

    def save(self, content: str, *, scope: ScopeKind = "project", cwd: str | None = None) -> Record:
        """Save a deliberate note. Raises `FirewallBlocked` if nothing is left after the firewall."""
        raise NotImplementedError

    def feedback(self, record_id: str, outcome: Outcome) -> int:
        """Raise (`acted`) or lower (`contradicted`) a record's standing; returns the new standing."""
        raise NotImplementedError

    def forget(
        self,
        ids: Sequence[str] = (),
        *,
        session_id: str | None = None,
        before: float | None = None,
        cwd: str | None = None,
    ) -> int:
        """Delete records by id, by session or by age (in this project's and user's scopes)."""
        raise NotImplementedError

    def expand(self, record_id: str, *, radius: int = 1) -> list[Record]:
        """A record with the turns just before and after it in its session."""
        raise NotImplementedError

    def status(self) -> dict[str, Any]:
        """The facts `memory doctor --json` prints (documented in docs/doctor.md)."""
        raise NotImplementedError
