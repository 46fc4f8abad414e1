"""The install and uninstall steps that go through the `openclaw` CLI when it is on PATH.

`openclaw plugins install --link` records the plugin as installed from a local path (with the
capability consent `--accept-capabilities` gives), besides writing the load path and
`enabled: true`; `openclaw plugins uninstall` drops that record, without which OpenClaw keeps
loading the plugin even after its config entries are gone. Uninstall leaves
`plugins.entries.<id> = {"enabled": false}` behind; the step removes that leftover, so an
uninstall leaves no trace of ours in `openclaw.json`.

Failure: `OpenClawInstallError` with the command's last output lines. An uninstall of a
plugin OpenClaw has no install record for (installed by config edits) is not a failure.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

from memory_core.installing import Step, atomic_write, read_text_or_none
from memory_core.installing.jsonedit import planned_text

from memory_openclaw import PLUGIN_ID
from memory_openclaw import openclaw_json as oj
from memory_openclaw.errors import OpenClawInstallError

__all__ = ["install_step", "uninstall_step"]

_CLI_TIMEOUT_S = 300
_NO_RECORD = "not associated with a tracked package install"


def _run(argv: list[str], environ: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            argv, env=dict(environ), capture_output=True, text=True, timeout=_CLI_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise OpenClawInstallError(f"{' '.join(argv)}: {exc}") from exc


def _tail(done: subprocess.CompletedProcess[str]) -> str:
    return "\n".join((done.stdout + done.stderr).strip().splitlines()[-8:])


def install_step(openclaw: str, plugin_dir: Path, environ: Mapping[str, str] = os.environ) -> Step:
    """`openclaw plugins install --link <plugin_dir> --force --accept-capabilities`."""
    argv = [openclaw, "plugins", "install", "--link", str(plugin_dir), "--force", "--accept-capabilities"]

    def run() -> None:
        done = _run(argv, environ)
        if done.returncode != 0:
            raise OpenClawInstallError(f"`openclaw plugins install` exited {done.returncode}:\n{_tail(done)}")

    return Step(description=" ".join(["openclaw", *argv[1:]]), run=run)


def uninstall_step(openclaw: str, config_path: Path, environ: Mapping[str, str] = os.environ) -> Step:
    """`openclaw plugins uninstall <id> --force --keep-files`, then drop the entry it leaves.

    `--keep-files`: the folder is ours (inside the Python package), not OpenClaw's to delete.
    """
    argv = [openclaw, "plugins", "uninstall", PLUGIN_ID, "--force", "--keep-files"]

    def run() -> None:
        done = _run(argv, environ)
        if done.returncode != 0 and _NO_RECORD not in done.stdout + done.stderr:
            raise OpenClawInstallError(f"`openclaw plugins uninstall` exited {done.returncode}:\n{_tail(done)}")
        text = read_text_or_none(config_path)
        data = oj.load(text, config_path)
        if oj.entry(data) == {"enabled": False}:
            after = planned_text(config_path, text, data, oj.without_memory(data))
            if after is None:
                config_path.unlink(missing_ok=True)
            elif after != text:
                atomic_write(config_path, after)

    return Step(description=" ".join(["openclaw", *argv[1:]]), run=run)
