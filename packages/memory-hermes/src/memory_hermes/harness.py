"""`HermesHarness`: the memory-core harness contract for Hermes Agent.

Hermes runs memory in-process, as a plugin (`memory_hermes.plugin`), not as a hook command:
`hook_argv()` is None. `parse` and `render` still implement the shared contract over the
plugin's call envelope `{"hook": <name>, "kwargs": {...}}`, so the core's harness
conformance suite and the benchmarks run against the recorded Hermes calls in `fixtures/`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memory_core.harnesses.contract import InstallStatus
from memory_core.installing import InstallPlan
from memory_core.models import HookEvent, Recall

from memory_hermes.protocol import HARNESS, MAX_CONTEXT_TOKENS, parse_call, render_context

__all__ = ["HermesHarness", "fixtures_dir"]


def fixtures_dir() -> Path:
    """The recorded Hermes 0.19.0 calls (in a source checkout, beside `src/`)."""
    return Path(__file__).resolve().parents[2] / "fixtures"


def _recorded_call(name: str) -> dict[str, Any]:
    path = fixtures_dir() / name
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise FileNotFoundError(f"{path}: the recorded payloads ship with the source checkout, not the wheel") from exc
    return {"hook": data["hook"], "kwargs": data["kwargs"]}


class HermesHarness:
    """Hermes Agent: recall via `pre_llm_call`, capture via `post_llm_call`, in-process."""

    name = HARNESS
    display_name = "Hermes"
    scopes: tuple[str, ...] = ("user",)
    max_context_tokens = MAX_CONTEXT_TOKENS
    """Hermes replays injected context into every later turn: the block stays small."""

    def parse(self, payload: Mapping[str, Any]) -> HookEvent:
        """Parse one plugin call envelope."""
        return parse_call(payload)

    def render(self, event: HookEvent, recall: Recall) -> str:
        """The context text `pre_llm_call` returns ("" when nothing is injected)."""
        return render_context(event, recall)

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
        return _recorded_call("pre_llm_call.turn1.json"), _recorded_call("post_llm_call.turn1.json")
