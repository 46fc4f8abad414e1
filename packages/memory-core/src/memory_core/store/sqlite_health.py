"""What state the embedded store's file is in, looked at without creating or changing anything.

`doctor` asks this before it opens the store, because opening creates the file: a missing
database must be reported, not replaced by an empty one. `inspect_file` returns one of:

- `new`: no file and memory never created one here (a fresh install): nothing is wrong.
- `ok`: the file is there, writable, a database, and the one memory created.
- `missing`: memory created a database at this path and it is gone (its folder deleted).
- `replaced`: the file at the path is not the one memory created (`mv` over it, a copy).
- `read-only`: the file, its `-wal`/`-shm` or its folder cannot be written by this user.
- `corrupt`: the file is not a readable SQLite database.

Each state but `new` and `ok` comes with what went wrong and the command that fixes it. The
note of which file memory created (`record_created`) is a small JSON file in the state
folder, written only when the store creates a database. Nothing here raises.
"""

from __future__ import annotations

import json
import os
import shlex
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import quote

__all__ = ["FileHealth", "inspect_file", "record_created", "recorded_identity", "NOTE_NAME"]

NOTE_NAME = "sqlite-files.json"
"""The state folder's note of the database files memory created: path -> [device, inode]."""

State = Literal["new", "ok", "missing", "replaced", "read-only", "corrupt"]


@dataclass(frozen=True, slots=True)
class FileHealth:
    """The file's state; `what` and `fix` are empty for `new` and `ok`."""

    state: State
    what: str = ""
    fix: str = ""

    @property
    def broken(self) -> bool:
        """Whether this state stops memory from working: every state but `new` and `ok`."""
        return self.state not in ("new", "ok")


def _read_note(state_dir: Path) -> dict[str, list[int]]:
    try:
        data = json.loads((state_dir / NOTE_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def recorded_identity(state_dir: Path, path: str) -> tuple[int, int] | None:
    """The (device, inode) of the database memory created at `path`, if it noted one."""
    entry = _read_note(state_dir).get(os.path.abspath(path))
    if isinstance(entry, list) and len(entry) == 2 and all(isinstance(n, int) for n in entry):
        return entry[0], entry[1]
    return None


def record_created(state_dir: Path, path: str, device: int, inode: int) -> None:
    """Note that memory created (or, from `doctor --fix`, adopted) the database at `path`."""
    from memory_core.localstate.atomic import atomic_write

    note = _read_note(state_dir)
    note[os.path.abspath(path)] = [device, inode]
    atomic_write(state_dir / NOTE_NAME, json.dumps(note, sort_keys=True), folder_mode=0o700)


def _quoted(*paths: str) -> str:
    return " ".join(shlex.quote(p) for p in paths)


def inspect_file(path: str, state_dir: Path, *, integrity: bool = True) -> FileHealth:
    """The state of the database file at `path` (see the module docstring). Creates nothing.

    `integrity=False` reads the file's header and schema instead of checking every page
    (`PRAGMA quick_check` reads the whole file: seconds at 100,000 records), for a page that
    shows the facts on every capture (`memory ui`'s Overview).
    """
    recorded = recorded_identity(state_dir, path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        if recorded is None:
            return FileHealth("new")
        return FileHealth(
            "missing",
            f"the database file {path} is gone (memory created it; was its folder deleted?)",
            "restore it from a backup to that path, or run `memory doctor --fix` to start a new file"
            " there and write the spooled turns into it",
        )
    except OSError as exc:
        return FileHealth(
            "read-only",
            f"the database file {path} cannot be looked at: {exc}",
            f"chmod u+rwx {_quoted(os.path.dirname(path) or '.')}",
        )
    unwritable = [p for p in (path, path + "-wal", path + "-shm") if os.path.exists(p) and not os.access(p, os.W_OK)]
    folder = os.path.dirname(path) or "."
    if not os.access(folder, os.W_OK | os.X_OK):
        unwritable.append(folder)
    if unwritable:
        fixes = []
        if any(p != folder for p in unwritable):
            # All of them at once: SQLite re-creates -wal/-shm with the database's permissions,
            # so a database made writable beside a read-only -shm still fails every write.
            present = [p for p in (path, path + "-wal", path + "-shm") if os.path.exists(p)]
            fixes.append(f"chmod u+rw {_quoted(*present)}")
        if folder in unwritable:
            fixes.append(f"chmod u+rwx {_quoted(folder)}")
        return FileHealth(
            "read-only",
            f"the database {path} is read-only for this user ({', '.join(unwritable)}): turns wait in the spool",
            " && ".join(fixes) + " (the spooled turns are written at the next capture)",
        )
    problem = _unreadable(path, integrity=integrity)
    if problem:
        aside = f"{path}.corrupt-{time.strftime('%Y%m%d%H%M%S')}"
        return FileHealth(
            "corrupt",
            f"the database file {path} is not a readable SQLite database ({problem}): turns wait in the spool",
            f"mv {_quoted(path, aside)} and run `memory doctor --fix`: memory starts a new file and writes the"
            " spooled turns into it (the old file stays for recovery)",
        )
    if recorded is not None and recorded != (info.st_dev, info.st_ino):
        return FileHealth(
            "replaced",
            f"the database file {path} is not the one memory created (it was replaced): a process that kept"
            " the old one open wrote there",
            "if this file is the one you want, run `memory doctor --fix` to take it as memory's store",
        )
    return FileHealth("ok")


def _unreadable(path: str, *, integrity: bool = True) -> str:
    """Why SQLite cannot read `path` as a database ("" when it can), opened read-only."""
    try:
        conn = sqlite3.connect(f"file:{quote(os.path.abspath(path))}?mode=ro", uri=True, timeout=1.0)
    except sqlite3.Error as exc:
        return str(exc)
    try:
        if not integrity:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return ""
        row = conn.execute("PRAGMA quick_check(1)").fetchone()
        if row is None or row[0] != "ok":
            return f"integrity check: {row[0] if row else 'no answer'}"
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc).lower() or "busy" in str(exc).lower():
            return ""  # another process is writing: busy, not broken
        return str(exc)
    except sqlite3.Error as exc:
        return str(exc)
    finally:
        conn.close()
    return ""
