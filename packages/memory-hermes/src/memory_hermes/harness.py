"""`HermesHarness`: the memory-core harness contract for Hermes Agent.

Hermes runs memory in-process, as a plugin (`memory_hermes.plugin`), not as a hook command:
`hook_argv()` is None. `parse` and `render` still implement the shared contract over the
plugin's call envelope `{"hook": <name>, "kwargs": {...}}`, so the core's harness
conformance suite and the benchmarks run against the recorded Hermes calls in `fixtures/`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memory_core.harnesses.contract import InstallStatus
from memory_core.installing import InstallPlan, load_fixture

from memory_hermes.adapter import HermesHooks

__all__ = ["HermesHarness", "BENCH_READ", "BENCH_WRITE"]

BENCH_READ = "pre_llm_call.turn1.json"
BENCH_WRITE = "post_llm_call.turn1.json"
"""The recorded first turn: its `pre_llm_call` and `post_llm_call` envelopes (one `turn_id`)."""


class HermesHarness(HermesHooks):
    """Hermes Agent: recall via `pre_llm_call`, capture via `post_llm_call`, in-process."""

    display_name = "Hermes"
    scopes: tuple[str, ...] = ("user",)

    def plan_install(self, scope: str, *, project_dir: Path) -> InstallPlan:
        """What `memory install hermes` changes (`project_dir` is unused: Hermes has no project scope)."""
        from memory_hermes.install import plan_install

        return plan_install(scope)

    def plan_uninstall(self, scope: str, *, project_dir: Path) -> InstallPlan:
        """What `memory uninstall hermes` changes."""
        from memory_hermes.install import plan_uninstall

        return plan_uninstall(scope)

    def status(self, *, project_dir: Path) -> list[InstallStatus]:
        """One line: installed, whether Hermes's interpreter runs the plugin, which project it writes to."""
        from memory_hermes.status import install_status

        return [install_status(project_dir)]

    def hook_argv(self) -> list[str] | None:
        """None: Hermes calls the plugin in-process, there is no hook command."""
        return None

    def bench_payloads(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The recorded first turn: its `pre_llm_call` and `post_llm_call` envelopes."""
        return load_fixture("memory_hermes", BENCH_READ), load_fixture("memory_hermes", BENCH_WRITE)
