"""The harness contract, and discovery of harness packages through entry points.

A harness package (memory-claude, memory-codex, ...) is a thin adapter. It registers a
factory under the entry point group `memory.harnesses`:

    [project.entry-points."memory.harnesses"]
    claude = "memory_claude.harness:ClaudeHarness"

and the factory returns an object with the `Harness` shape below. memory-core never imports
a harness package by name. Discovery is for the CLI (`install`, `doctor`, `hook`); the hook
path itself runs `python -m <package>.hook`, which imports only its own harness.

A harness package that fails to import is logged and skipped: it never stops the others.

Beyond the contract, a harness may offer a capability the core uses where it exists, each
declared here as a `Protocol` and asked with `isinstance` (never found by `getattr`):

- `CapsContext`: `max_context_tokens`, a cap on the injected block below `MEMORY_MAX_TOKENS`
  (Codex's documented `additionalContext` limit; Hermes replays context into later turns);
- `HasTranscripts`: `transcripts()`, the session files `memory import <name>` and
  `memory doctor --fix` read;
- `ShipsPlugin`: `plugin_dir()`, a plugin folder the harness program loads itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from memory_core.models import HookEvent, Recall, TimelineChunk

if TYPE_CHECKING:
    # Typing only: the transcript types are no cost, but the installer plumbing costs a cold turn
    # 50-110 ms here (subprocess, difflib, shutil) for plans no hook ever builds.
    from memory_core.harnesses.transcripts import TranscriptSource
    from memory_core.installing import InstallPlan

__all__ = [
    "Harness",
    "HookAdapter",
    "InstallStatus",
    "CapsContext",
    "HasTranscripts",
    "ReadsTimeline",
    "ShipsPlugin",
    "discover_harnesses",
    "ENTRY_POINT_GROUP",
]

ENTRY_POINT_GROUP = "memory.harnesses"


@runtime_checkable
class HookAdapter(Protocol):
    """The part of a harness the hook path needs: payload in, protocol text out."""

    name: str
    """Short name used in record ids, counters and the CLI: `claude`, `codex`, `hermes`, `openclaw`."""

    def parse(self, payload: Mapping[str, Any]) -> HookEvent:
        """Turn one hook payload into a normalised event. Never raises for unknown extra keys;
        raises `ValueError` for a payload that lacks what the event needs.
        """
        ...

    def render(self, event: HookEvent, recall: Recall) -> str:
        """The exact bytes to print for `event` given what recall found: "" when there is
        nothing to inject (then nothing at all is printed).
        """
        ...


@dataclass(frozen=True, slots=True)
class InstallStatus:
    """One place a harness may be installed, as `doctor` reports it.

    Attributes:
        scope: The harness's own scope name (`user`, `project`, `local`).
        path: The file holding our hooks or plugin.
        installed: Whether our entries are there.
        command: The hook command line as written, if any.
        runs: Whether that command still works (its interpreter exists and imports the hook
            module); None when not checked or not applicable.
        detail: One human line: what is wrong and the command that fixes it.
    """

    scope: str
    path: str
    installed: bool
    command: str | None = None
    runs: bool | None = None
    detail: str = ""


@runtime_checkable
class Harness(HookAdapter, Protocol):
    """A whole harness integration: hook adapter plus installer and status."""

    display_name: str
    """`Claude Code`, `Codex`, `Hermes`, `OpenClaw`."""

    scopes: tuple[str, ...]
    """Install scopes this harness understands, the default first."""

    def plan_install(self, scope: str, *, project_dir: Path) -> InstallPlan:
        """Everything `memory install <name>` would change, without changing anything."""
        ...

    def plan_uninstall(self, scope: str, *, project_dir: Path) -> InstallPlan:
        """Everything `memory uninstall <name>` would change, without changing anything."""
        ...

    def status(self, *, project_dir: Path) -> list[InstallStatus]:
        """Where this harness is installed, and whether each hook command still runs."""
        ...

    def hook_argv(self) -> list[str] | None:
        """The hook command as the harness runs it (for `bench/latency.py`), or None for an
        in-process plugin. The payload goes to its stdin.
        """
        ...

    def bench_payloads(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """A recorded (read, write) payload pair from the package's fixtures, for benchmarks."""
        ...


@runtime_checkable
class CapsContext(Protocol):
    """An adapter whose harness limits the injected block: the core's budget never exceeds it."""

    max_context_tokens: int
    """The most approximate tokens one injected block may hold in this harness."""


@runtime_checkable
class HasTranscripts(Protocol):
    """A harness that keeps session transcripts memory can import (`memory import <name>`)."""

    def transcripts(self) -> TranscriptSource:
        """The transcript source: where the session files are and how to read turns from them."""
        ...


@runtime_checkable
class ReadsTimeline(Protocol):
    """A harness whose transcript holds what the agent did in a turn (Claude Code, Codex).

    The worker calls this after a turn's capture, never the hook client: reading a transcript is
    off the write hook's critical path.
    """

    def timeline(self, transcript_path: Path, offset: int) -> TimelineChunk:
        """The turns' events found in `transcript_path` from byte `offset` on, in order.

        A line still being written is not read (`end` stops before it); a malformed line is
        passed over; an offset past the end (the file shrank or was replaced) is read from 0.
        Raises `OSError` when the file cannot be read: the caller loses the events, never the turn.
        """
        ...


@runtime_checkable
class ShipsPlugin(Protocol):
    """A harness package that ships a plugin folder its program loads (`claude plugin marketplace add`)."""

    def plugin_dir(self) -> Path:
        """The folder inside the installed package."""
        ...


@dataclass
class _Discovered:
    harnesses: dict[str, Harness] = field(default_factory=dict)
    broken: dict[str, str] = field(default_factory=dict)


def discover_harnesses() -> tuple[dict[str, Harness], dict[str, str]]:
    """Load every installed harness package.

    Returns the harnesses by name, and the entry points that failed with a one-line reason.
    A broken plugin is logged and skipped, never raised.
    """
    import logging
    from importlib.metadata import entry_points

    found = _Discovered()
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        try:
            factory = entry.load()
            harness = factory()
        except Exception as exc:  # noqa: BLE001 - a broken plugin must never stop the others
            found.broken[entry.name] = f"{type(exc).__name__}: {exc}"
            logging.getLogger(__name__).warning("harness plugin %s failed to load: %s", entry.name, exc)
            continue
        found.harnesses[entry.name] = harness
    return found.harnesses, found.broken
