"""`ClaudeHarness`: the whole Claude Code integration, as the `memory` CLI finds it.

Registered under the `memory.harnesses` entry point as `claude`. It is the hook adapter
(`ClaudeHooks`) plus the installer (`memory install|uninstall claude [--scope user|project|local]`),
the install status `memory doctor` prints, what the latency bench runs, and the timeline of each
turn read from its transcript (`ReadsTimeline`, `memory_claude.timeline`). Paths come from
`HOME` (Claude Code's own files) and the project folder the CLI passes; `claude` on PATH decides
whether the MCP server is registered through `claude mcp add` or by a direct edit.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory_core.harnesses.contract import InstallStatus
from memory_core.installing import InstallPlan, load_fixture
from memory_core.models import TimelineChunk

from memory_claude import commands, hook, install, status
from memory_claude.adapter import ClaudeHooks

if TYPE_CHECKING:
    from memory_claude.transcript import ClaudeTranscripts

__all__ = ["ClaudeHarness", "BENCH_READ", "BENCH_WRITE"]

BENCH_READ = "UserPromptSubmit.json"
BENCH_WRITE = "Stop.json"
"""One recorded turn: the two payloads share a `prompt_id`."""


class ClaudeHarness(ClaudeHooks):
    """Claude Code: hooks in `settings.json`, the `memory` MCP server, a plugin as second route."""

    display_name: str = "Claude Code"
    scopes: tuple[str, ...] = install.SCOPES

    def plan_install(self, scope: str, *, project_dir: Path) -> InstallPlan:
        """Everything `memory install claude --scope <scope>` would change."""
        return install.plan_install(scope, home=Path.home(), project_dir=project_dir, claude=shutil.which("claude"))

    def plan_uninstall(self, scope: str, *, project_dir: Path) -> InstallPlan:
        """Everything `memory uninstall claude --scope <scope>` would change."""
        return install.plan_uninstall(scope, home=Path.home(), project_dir=project_dir)

    def status(self, *, project_dir: Path) -> list[InstallStatus]:
        """Each scope's hooks, our MCP entries and the plugin, and whether their commands still run."""
        return status.install_status(home=Path.home(), project_dir=project_dir)

    def hook_argv(self) -> list[str]:
        """The user-scope hook command: this interpreter with `-m memory_claude.hook`."""
        return commands.hook_argv()

    def bench_payloads(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """A recorded (UserPromptSubmit, Stop) pair of one turn."""
        return load_fixture("memory_claude", BENCH_READ), load_fixture("memory_claude", BENCH_WRITE)

    def plugin_dir(self) -> Path:
        """The marketplace folder shipped in this package: `claude plugin marketplace add <this>`."""
        return Path(hook.plugin_dir())

    def transcripts(self) -> ClaudeTranscripts:
        """The session files `memory import claude` reads (`~/.claude/projects/**/*.jsonl`)."""
        from memory_claude.transcript import ClaudeTranscripts

        return ClaudeTranscripts()

    def timeline(self, transcript_path: Path, offset: int) -> TimelineChunk:
        """The tool calls, results and injected text of the turns in a transcript, from byte `offset` on."""
        from memory_claude.timeline import read_timeline

        return read_timeline(transcript_path, offset)
