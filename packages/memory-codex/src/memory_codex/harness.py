"""`CodexHarness`: the whole Codex integration the `memory` CLI finds through its entry point.

The hook adapter (`CodexHooks`) plus the installer (`install.py`), the install status that
`memory doctor` prints, what `bench/latency.py` needs (`hook_argv`, `bench_payloads`), and the timeline
of each turn read from its rollout (`ReadsTimeline`, `memory_codex.timeline`).
Loaded by the CLI only; the hook process imports `memory_codex.hook` and never this module.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory_core import installing
from memory_core.harnesses.contract import InstallStatus
from memory_core.installing import InstallPlan, load_fixture
from memory_core.models import TimelineChunk

from memory_codex import install
from memory_codex.adapter import CodexHooks

if TYPE_CHECKING:
    from memory_codex.rollout import CodexRollouts

__all__ = ["CodexHarness", "BENCH_READ", "BENCH_WRITE"]

BENCH_READ = "UserPromptSubmit.json"
BENCH_WRITE = "Stop.json"
"""One recorded turn: the two payloads share a `turn_id`."""


class CodexHarness(CodexHooks):
    """Codex: recall and capture on every turn, installed and trusted in one command."""

    display_name = "Codex"
    scopes: tuple[str, ...] = install.SCOPES

    def plan_install(self, scope: str, *, project_dir: Path) -> InstallPlan:
        """Everything `memory install codex` would change (see `memory_codex.install`)."""
        return install.plan_install(scope, project_dir=project_dir)

    def plan_uninstall(self, scope: str, *, project_dir: Path) -> InstallPlan:
        """Everything `memory uninstall codex` would change."""
        return install.plan_uninstall(scope, project_dir=project_dir)

    def status(self, *, project_dir: Path) -> list[InstallStatus]:
        """Each scope: installed or not, whether the hook command runs, whether Codex trusts it."""
        return install.status(project_dir=project_dir)

    def hook_argv(self) -> list[str] | None:
        """The hook as Codex runs it (user scope), payload on stdin."""
        return installing.hook_argv(install.HOOK_MODULE)

    def bench_payloads(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The recorded `UserPromptSubmit` and its `Stop` (same `turn_id`)."""
        return load_fixture("memory_codex", BENCH_READ), load_fixture("memory_codex", BENCH_WRITE)

    def transcripts(self) -> CodexRollouts:
        """The rollouts `memory import codex` reads (`$CODEX_HOME/sessions/**/rollout-*.jsonl`)."""
        from memory_codex.rollout import CodexRollouts

        return CodexRollouts()

    def timeline(self, transcript_path: Path, offset: int) -> TimelineChunk:
        """The tool calls, results and injected text of the turns in a rollout file, from byte `offset` on."""
        from memory_codex.timeline import read_timeline

        return read_timeline(transcript_path, offset)
