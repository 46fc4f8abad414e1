"""`OpenClawHarness`: the OpenClaw integration as memory-core sees it (entry point `openclaw`).

Install (`memory install openclaw`, scope `user`, the only one OpenClaw has): OpenClaw's
`openclaw.json` gets the conversation-access opt-in, the interpreter the plugin runs
memory-core with, and the MCP server; the plugin folder shipped in this package is linked and
enabled by `openclaw plugins install --link` when `openclaw` is on PATH, else by the same
config edits that command makes. `--dry-run` shows the diff and the command and changes
nothing; a second install changes nothing; uninstall removes all of it (see
`memory_openclaw.openclaw_json` for exactly what).

Status (`memory doctor`): whether the plugin is linked, enabled and allowed to see the
conversation, whether its interpreter still runs the hook, and which project OpenClaw's turns
are filed under: `MEMORY_PROJECT` when set, else the OpenClaw workspace (the agent's working
folder, which is not a code repository).
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memory_core import installing
from memory_core.harnesses.contract import InstallStatus
from memory_core.installing import MCP_MODULE, FileEdit, InstallPlan, command_imports, load_fixture, read_text_or_none
from memory_core.installing.jsonedit import planned_text

from memory_openclaw import PLUGIN_ID
from memory_openclaw import openclaw_json as oj
from memory_openclaw.adapter import OpenClawHooks
from memory_openclaw.cli_steps import install_step, uninstall_step
from memory_openclaw.paths import openclaw_config_path, openclaw_workspace

__all__ = ["OpenClawHarness", "plugin_dir", "HOOK_MODULE", "WORKER_MODULE", "BENCH_READ", "BENCH_WRITE"]

HOOK_MODULE = "memory_openclaw.hook"
WORKER_MODULE = "memory_openclaw.worker"
_SCOPE = "user"
_PROBE_TIMEOUT_S = 20
BENCH_READ = "plugin/turn1.before_prompt_build.json"
BENCH_WRITE = "plugin/turn1.agent_end.json"
"""Turn 1 of the recorded `agent --local` run, as the plugin sends it: (recall, capture)."""


def plugin_dir() -> Path:
    """The OpenClaw plugin folder shipped inside this package (what OpenClaw loads)."""
    return Path(__file__).resolve().parent / "plugin"


class OpenClawHarness(OpenClawHooks):
    """OpenClaw: an in-process plugin that runs memory-core's hook as an async child process.

    Args:
        environ: The environment to resolve OpenClaw's paths and find `openclaw` in (default:
            the process's).
        python: The interpreter the plugin and the MCP server run (default: this one).
    """

    display_name = "OpenClaw"
    scopes: tuple[str, ...] = (_SCOPE,)

    def __init__(self, *, environ: Mapping[str, str] | None = None, python: str | None = None) -> None:
        self._environ = os.environ if environ is None else environ
        self._python = python or sys.executable

    # -- install -----------------------------------------------------------------------------

    @property
    def config_path(self) -> Path:
        """The `openclaw.json` this harness edits."""
        return openclaw_config_path(self._environ)

    def _openclaw(self) -> str | None:
        return shutil.which("openclaw", path=self._environ.get("PATH"))

    def _check_scope(self, scope: str) -> None:
        if scope != _SCOPE:
            raise ValueError(f"OpenClaw has one install scope, `user` (not {scope!r})")

    def plan_install(self, scope: str, *, project_dir: Path) -> InstallPlan:
        """Link and enable the plugin, opt it into conversation hooks, register the MCP server."""
        self._check_scope(scope)
        path = self.config_path
        before = read_text_or_none(path)
        data = oj.load(before, path)
        folder = plugin_dir()
        openclaw = self._openclaw()
        through_cli = openclaw is not None and not oj.is_linked(data, folder)
        mcp = self._has_module(MCP_MODULE)
        wanted = oj.with_memory(data, plugin_dir=folder, python=self._python, link=not through_cli, mcp=mcp)
        after = planned_text(path, before, data, wanted)
        plan = InstallPlan(harness=self.name, scope=scope, edits=[FileEdit(path, before, after)])
        if through_cli:
            assert openclaw is not None
            plan.steps.append(install_step(openclaw, folder, self._environ))
        if plan.changes:
            plan.notes.append("OpenClaw loads plugins at start: restart a running gateway (`openclaw gateway restart`)")
        current = oj.lookup(wanted, "mcp", "servers", oj.MCP_SERVER_NAME)
        if not mcp:
            plan.notes.append("no MCP server added: the memory_* tools need memory-mcp (pip install memory-mcp)")
        elif not oj.is_our_mcp_server(current):
            name = oj.MCP_SERVER_NAME
            plan.notes.append(f"`mcp.servers.{name}` in {path} is another server; the memory tools were not added")
        return plan

    def plan_uninstall(self, scope: str, *, project_dir: Path) -> InstallPlan:
        """Remove every entry of ours; with `openclaw` on PATH, also its install record."""
        self._check_scope(scope)
        path = self.config_path
        before = read_text_or_none(path)
        data = oj.load(before, path)
        cleaned = oj.without_memory(data)
        # Removing our entries from a file we created leaves `{}`: the file goes too.
        after = planned_text(path, before, data, cleaned)
        plan = InstallPlan(harness=self.name, scope=scope, edits=[FileEdit(path, before, after)])
        openclaw = self._openclaw()
        if openclaw is not None and (oj.entry(data) is not None or oj.our_load_paths(data)):
            plan.steps.append(uninstall_step(openclaw, path, self._environ))
        return plan

    # -- doctor ------------------------------------------------------------------------------

    def _has_module(self, module: str) -> bool:
        if self._python == sys.executable:
            import importlib.util

            return importlib.util.find_spec(module) is not None
        return self._runs(self._python, module)

    @staticmethod
    def _runs(python: str, module: str) -> bool:
        return command_imports(python, module, timeout=_PROBE_TIMEOUT_S)[0]

    def _project_line(self, data: Mapping[str, Any]) -> str:
        workspace = openclaw_workspace(data, self._environ)
        override = (self._environ.get("MEMORY_PROJECT") or "").strip()
        if override:
            return f"project: MEMORY_PROJECT={override} (OpenClaw's workspace {workspace} is not used)"
        try:
            from memory_core.project import resolve_project

            key = resolve_project(workspace).key
        except Exception:  # noqa: BLE001 - doctor reports, it does not fail on a broken folder
            key = f"path:{workspace}"
        return f"project: the OpenClaw workspace {workspace} ({key}); set MEMORY_PROJECT to file turns elsewhere"

    def status(self, *, project_dir: Path) -> list[InstallStatus]:
        """One line for `openclaw.json`: installed or not, what is wrong, and the project in use."""
        path = self.config_path
        try:
            data = oj.load(read_text_or_none(path), path)
        except Exception as exc:  # noqa: BLE001 - a broken file is a status, not a crash
            return [InstallStatus(_SCOPE, str(path), installed=False, detail=str(exc))]
        found = oj.entry(data) or {}
        config = found.get("config")
        python = config.get("python") if isinstance(config, dict) else None
        command = shlex.join(installing.hook_argv(WORKER_MODULE, python=python)) if isinstance(python, str) else None
        problems: list[str] = []
        paths = oj.our_load_paths(data)
        if not found and not paths:
            return [InstallStatus(_SCOPE, str(path), installed=False, detail="not installed: memory install openclaw")]
        if not paths:
            if self._openclaw() is None:
                problems.append("the plugin folder is not in plugins.load.paths")
        elif any(not Path(p, "openclaw.plugin.json").is_file() for p in paths):
            problems.append(f"the plugin folder is gone ({', '.join(paths)})")
        if found.get("enabled") is False:
            problems.append(f"the plugin is disabled (openclaw plugins enable {PLUGIN_ID})")
        hooks = found.get("hooks")
        if not isinstance(hooks, dict) or hooks.get("allowConversationAccess") is not True:
            problems.append("hooks.allowConversationAccess is not true: OpenClaw drops the memory hooks silently")
        elif hooks.get("allowPromptInjection") is False:
            problems.append("hooks.allowPromptInjection is false: recall cannot add context")
        runs = command is not None and installing.command_runs(command, WORKER_MODULE, timeout=_PROBE_TIMEOUT_S)[0]
        if not runs:
            problems.append(f"the plugin's interpreter cannot run {WORKER_MODULE} ({python or 'not set'})")
        if problems:
            problems.append("fix: memory install openclaw")
        detail = "; ".join([*problems, self._project_line(data)])
        return [InstallStatus(_SCOPE, str(path), installed=True, command=command, runs=runs, detail=detail)]

    # -- bench -------------------------------------------------------------------------------

    def hook_argv(self) -> list[str] | None:
        """The one-shot hook: what the plugin's worker does per call, plus interpreter start-up.

        (The plugin keeps one worker per OpenClaw process; this is its first-call cost.)
        """
        return installing.hook_argv(HOOK_MODULE, python=self._python)

    def bench_payloads(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The plugin's payloads for turn 1 of the recorded `agent --local` run: (recall, capture)."""
        return load_fixture("memory_openclaw", BENCH_READ), load_fixture("memory_openclaw", BENCH_WRITE)

    def plugin_dir(self) -> Path:
        """The OpenClaw plugin folder shipped inside this package (`plugins.load.paths` points here)."""
        return plugin_dir()
