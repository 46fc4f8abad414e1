"""`CodexHarness`: the whole Codex integration the `memory` CLI finds through its entry point.

The hook adapter (`CodexHooks`) plus the installer (`install.py`), the install status that
`memory doctor` prints, and what `bench/latency.py` needs (`hook_argv`, `bench_payloads`).
Loaded by the CLI only; the hook process imports `memory_codex.hook` and never this module.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory_core.harnesses.contract import InstallStatus
from memory_core.installing import InstallPlan

from memory_codex import install
from memory_codex.adapter import CodexHooks

if TYPE_CHECKING:
    from memory_core.service import MemoryService

    from memory_codex.rollout import CodexRollouts

__all__ = ["CodexHarness", "fixtures_dir"]


def fixtures_dir() -> Path:
    """The recorded payloads: inside the wheel (`memory_codex/fixtures`) or beside `src/` in a checkout."""
    packaged = Path(__file__).parent / "fixtures"
    return packaged if packaged.is_dir() else Path(__file__).resolve().parents[2] / "fixtures"


class CodexHarness(CodexHooks):
    """Codex: recall and capture on every turn, installed and trusted in one command."""

    display_name = "Codex"
    scopes = install.SCOPES

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
        return [sys.executable, "-m", "memory_codex.hook"]

    def bench_payloads(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The recorded `UserPromptSubmit` and its `Stop` (same `turn_id`)."""
        folder = fixtures_dir()
        read = json.loads((folder / "UserPromptSubmit.json").read_text(encoding="utf-8"))
        write = json.loads((folder / "Stop.json").read_text(encoding="utf-8"))
        return read, write

    def transcripts(self) -> CodexRollouts:
        """The rollouts `memory import codex` reads (`$CODEX_HOME/sessions/**/rollout-*.jsonl`)."""
        from memory_codex.rollout import CodexRollouts

        return CodexRollouts()

    def import_since_last(self, service: MemoryService) -> int:
        """Store the turns the hooks missed since the last import (`memory doctor --fix`); returns how many."""
        from memory_core.harnesses.importing import import_since_last

        return import_since_last(service, self.transcripts())
