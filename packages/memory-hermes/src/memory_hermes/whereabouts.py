"""Which project the Hermes plugin writes to, recorded where `memory doctor` can read it.

Hermes sends no working directory with any hook, so the plugin resolves the project once per
process, from the folder Hermes was started in (or `MEMORY_PROJECT`), and records the answer
in `<state dir>/hermes-project.json` (atomically; the last Hermes process to start wins).
`HermesHarness.status()` turns it into the line `doctor` shows.

Failure: `record` never raises (a missing record only costs doctor's line); `read` returns
None for a missing or unreadable record.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path

__all__ = ["ProjectNote", "note_path", "record", "read"]

_FILE_NAME = "hermes-project.json"


@dataclass(frozen=True, slots=True)
class ProjectNote:
    """The project one Hermes process writes to.

    Attributes:
        key: The project key its records are scoped by.
        source: How the key was found (`MEMORY_PROJECT`, `git-remote`, `git-root`, `directory`).
        cwd: The folder Hermes was started in.
        pid: The Hermes process.
        at: When the plugin resolved it, seconds since the epoch.
    """

    key: str
    source: str
    cwd: str
    pid: int
    at: float


def note_path(state_dir: Path) -> Path:
    """Where the note lives."""
    return state_dir / _FILE_NAME


def record(state_dir: Path, *, key: str, source: str, cwd: str) -> ProjectNote | None:
    """Write the note for this process; returns it, or None when it could not be written."""
    note = ProjectNote(key=key, source=source, cwd=cwd, pid=os.getpid(), at=time.time())
    path = note_path(state_dir)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(asdict(note), handle, sort_keys=True)
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
        return None
    return note


def read(state_dir: Path) -> ProjectNote | None:
    """The last note written, if any."""
    try:
        data = json.loads(note_path(state_dir).read_text(encoding="utf-8"))
        return ProjectNote(
            key=str(data["key"]),
            source=str(data["source"]),
            cwd=str(data["cwd"]),
            pid=int(data["pid"]),
            at=float(data["at"]),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None
