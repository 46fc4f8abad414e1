"""Installer plumbing shared by every harness package: plan, show, apply.

A harness computes an `InstallPlan` (whole-file before/after texts plus side-effect steps)
without touching anything; `apply_plan` then either prints the unified diff (`--dry-run`,
writes nothing, runs nothing) or writes each file atomically (temp file then `os.replace`),
keeping the previous content as `<file>.bak` (`backup_path`), and runs the steps in order.

Guarantees: a plan whose edits are all no-ops writes nothing and makes no `.bak` (a second
install changes nothing). A file whose planned `after` is None is removed (an uninstall of a
file we created). Failure: an `OSError` from a write propagates after the files already
written stay written; the CLI reports it as one line.
"""

from __future__ import annotations

import difflib
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from memory_core.localstate.atomic import atomic_write

__all__ = ["FileEdit", "Step", "InstallPlan", "apply_plan", "read_text_or_none", "backup_path"]


@dataclass(frozen=True, slots=True)
class FileEdit:
    """One file's whole content before and after; None means the file is absent."""

    path: Path
    before: str | None
    after: str | None
    mode: int = 0o600
    """Permissions for a file this edit creates (an existing file keeps its own)."""

    @property
    def changes(self) -> bool:
        """Whether applying the edit would change the file."""
        return self.before != self.after

    def diff(self) -> str:
        """A unified diff of the edit ("" when it changes nothing)."""
        if not self.changes:
            return ""
        before = (self.before or "").splitlines(keepends=True)
        after = (self.after or "").splitlines(keepends=True)
        name = str(self.path)
        lines = difflib.unified_diff(
            before,
            after,
            fromfile=name if self.before is not None else "/dev/null",
            tofile=name if self.after is not None else "/dev/null",
        )
        return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


@dataclass(frozen=True, slots=True)
class Step:
    """A side effect that is not a file edit (running `claude mcp add`, trusting Codex hooks)."""

    description: str
    run: Callable[[], None]


@dataclass
class InstallPlan:
    """What an install or uninstall will do. Harnesses build it; `apply_plan` carries it out."""

    harness: str
    scope: str
    edits: list[FileEdit] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """Lines for the user: what each teammate must install, the one manual step left, ..."""

    @property
    def changes(self) -> bool:
        """Whether the plan would change anything."""
        return any(edit.changes for edit in self.edits) or bool(self.steps)


def read_text_or_none(path: Path) -> str | None:
    """A file's text exactly as stored (line ends untouched), or None when it does not exist."""
    try:
        # newline="": a CRLF file must come back CRLF, or restoring it byte for byte fails.
        with open(path, encoding="utf-8", newline="") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def backup_path(path: Path) -> Path:
    """Where `apply_plan` keeps the previous content of `path`: `<file>.bak` beside it."""
    return path.with_name(path.name + ".bak")


def apply_plan(plan: InstallPlan, *, dry_run: bool, out: TextIO) -> bool:
    """Carry out `plan` (or, with `dry_run`, print what it would do). Returns whether anything changed."""
    changed = False
    for edit in plan.edits:
        if not edit.changes:
            continue
        changed = True
        if dry_run:
            out.write(edit.diff())
            continue
        if edit.before is not None:
            shutil.copy2(edit.path, backup_path(edit.path))
        if edit.after is None:
            edit.path.unlink(missing_ok=True)
        else:
            atomic_write(edit.path, edit.after, mode=edit.mode)
    for step in plan.steps:
        changed = True
        if dry_run:
            out.write(f"would run: {step.description}\n")
        else:
            step.run()
    for note in plan.notes:
        out.write(f"note: {note}\n")
    return changed
