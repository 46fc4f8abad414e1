"""What `memory doctor` says about Hermes: installed or not, whether it runs, which project.

One `InstallStatus` for the `user` scope. `installed`: our plugin is enabled in Hermes's
config (or disabled there on purpose, which the detail says, with `runs` left unknown).
`runs`: Hermes's interpreter imports memory-hermes at our version (asked of that interpreter,
so it costs one short subprocess). `detail`: what is wrong and the command that fixes it, or,
when all is well, which project Hermes writes to: the one the last Hermes process recorded
(`memory_hermes.whereabouts`), else the one the folder doctor runs in maps to.

Failure: never raises for a missing or broken Hermes; that is what the detail line reports.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from memory_core.config import Config
from memory_core.harnesses.contract import InstallStatus
from memory_core.installing import read_text_or_none
from memory_core.project import resolve_project
from memory_core.utc import MINUTE, utc

from memory_hermes import PLUGIN_NAME, whereabouts
from memory_hermes.errors import MemoryHermesError
from memory_hermes.locations import config_path, hermes_python
from memory_hermes.probe import probe_interpreter
from memory_hermes.version import __version__
from memory_hermes.yamltext import plugin_disabled, plugin_enabled

__all__ = ["install_status", "project_line"]


def project_line(config: Config, project_dir: Path) -> str:
    """Which project Hermes writes to, in one line."""
    note = whereabouts.read(config.state_dir)
    if note is not None:
        when = utc(note.at, MINUTE) + " UTC"
        return f"Hermes writes to project {note.key} (the Hermes started in {note.cwd}, pid {note.pid}, at {when})"
    here = resolve_project(project_dir, override=config.project)
    return f"Hermes writes to the project of the folder it is started in (from {project_dir}: {here.key})"


def install_status(project_dir: Path, *, environ: Mapping[str, str] = os.environ) -> InstallStatus:
    """The Hermes line of `memory doctor`."""
    config = Config.from_env(environ)
    path = config_path(environ)
    try:
        text = read_text_or_none(path)
        enabled, disabled = plugin_enabled(text, PLUGIN_NAME), plugin_disabled(text, PLUGIN_NAME)
    except (MemoryHermesError, OSError, UnicodeDecodeError):
        enabled, disabled = False, False
    if disabled:
        # `hermes plugins disable` was the user's choice: reported, not flagged as a problem.
        detail = f"disabled in Hermes (plugins.disabled): hermes plugins enable {PLUGIN_NAME}"
        return InstallStatus("user", str(path), installed=True, runs=None, detail=detail)
    if not enabled:
        return InstallStatus("user", str(path), installed=False, detail="not installed: run `memory install hermes`")
    try:
        python = hermes_python(environ)
        probe = probe_interpreter(python)
    except MemoryHermesError as exc:
        return InstallStatus("user", str(path), installed=True, runs=False, detail=f"{exc}")
    command = f"{python} (in-process plugin {PLUGIN_NAME})"
    there = probe.dists.get("memory-hermes")
    if not probe.has("memory_hermes.callbacks") or there != __version__:
        found = f"memory-hermes {there}" if there else "no memory-hermes"
        detail = f"Hermes's interpreter has {found}, this is {__version__}: run `memory install hermes`"
        return InstallStatus("user", str(path), installed=True, command=command, runs=False, detail=detail)
    return InstallStatus(
        "user", str(path), installed=True, command=command, runs=True, detail=project_line(config, project_dir)
    )
