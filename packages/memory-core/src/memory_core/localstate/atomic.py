"""Whole-file writes that a crash or a concurrent reader never sees half done.

`atomic_write` writes to a temp file in the same folder, flushes it to disk, then renames it
over the target (`os.replace`), so a reader sees the old content or the new, never a mix. An
existing file keeps its permissions; a new one gets `mode` (user-only by default). Failure:
the `OSError` propagates and the temp file is removed; the target is untouched. Callers on the
hook path that must never fail (the log's counters) catch it themselves.

Standard library only. It is part of the warm engine (the hook client never imports it): it
runs on outages, errors, imports and installs, never on a normal turn.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["atomic_write", "atomic_write_bytes"]


def atomic_write(path: Path, text: str, *, mode: int = 0o600, folder_mode: int = 0o777) -> None:
    """Replace `path`'s content with `text` (UTF-8, line ends as given) in one step.

    `folder_mode` applies to the folder when this call creates it (0o700 for memory's own
    state; the umask still applies).
    """
    atomic_write_bytes(path, text.encode("utf-8"), mode=mode, folder_mode=folder_mode)


def atomic_write_bytes(path: Path, data: bytes, *, mode: int = 0o600, folder_mode: int = 0o777) -> None:
    """`atomic_write` for binary content (a cache file a reader maps and must never see half written)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=folder_mode)
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        pass
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
