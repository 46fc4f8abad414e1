"""Reading and writing Claude Code's JSON config files without losing anything in them.

`load` parses a file's text into a dict (absent file: empty dict) and refuses anything else,
so a malformed file is reported, never overwritten. `dump` writes the way Claude Code itself
does (two-space indent, non-ASCII kept), keeping the original's trailing newline habit.

`restore_or_dump` is what makes install-then-uninstall leave a file byte for byte as it was:
every install write keeps the previous text in `<file>.bak` (see `memory_core.installing`).
When what is left after removing our entries equals that `.bak` as data, the `.bak` text is
the answer, byte for byte; when nothing is left, the file is removed (we created it, or it held
nothing but ours); otherwise the remainder is dumped (the user changed the file since).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memory_core.installing import read_text_or_none

from memory_claude.errors import SettingsFileError

__all__ = ["load", "dump", "backup_path", "restore_or_dump"]


def load(path: Path, text: str | None) -> dict[str, Any]:
    """The JSON object in `text` (the content of `path`); {} for an absent or blank file.

    Raises:
        SettingsFileError: The text is not JSON, or not a JSON object.
    """
    if text is None or not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise SettingsFileError(f"{path} is not valid JSON ({exc}); fix or move it, then retry") from exc
    if not isinstance(data, dict):
        raise SettingsFileError(f"{path} holds a JSON {type(data).__name__}, not an object; fix or move it, then retry")
    return data


def dump(data: dict[str, Any], *, like: str | None) -> str:
    """`data` as Claude Code writes JSON; ends with a newline when `like` did (or is None)."""
    text = json.dumps(data, indent=2, ensure_ascii=False)
    return text + "\n" if like is None or like.endswith("\n") else text


def backup_path(path: Path) -> Path:
    """Where `apply_plan` keeps the previous content of `path`."""
    return path.with_name(path.name + ".bak")


def restore_or_dump(path: Path, current: str | None, remainder: dict[str, Any]) -> str | None:
    """The text `path` should have once our entries are gone (None: remove the file)."""
    backup = read_text_or_none(backup_path(path))
    if backup is not None:
        try:
            if (json.loads(backup) if backup.strip() else {}) == remainder:
                return backup
        except ValueError:
            pass
    if not remainder:
        return None
    return dump(remainder, like=current)
