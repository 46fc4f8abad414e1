"""The error log and the local failure counters: where swallowed errors land.

Promise: every error a hook or plugin swallows appends exactly one line to the log
(`MEMORY_LOG`) and bumps a named counter in `<state>/failures.json`, both readable by
`doctor` even when the store is down (which is when they matter). Lines pass through the
firewall's scrub first, so a secret inside an exception message is never written. The log
is user-only (0600) and bounded: past `_MAX_LOG_BYTES` it is rotated to `<log>.1`.

Failure: writing the log or counters never raises (a full disk must not fail a turn); a
failure to log is itself lost, by design.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from memory_core.localstate.atomic import atomic_write
from memory_core.utc import utc

__all__ = ["Logbook"]

_MAX_LOG_BYTES = 1024 * 1024
_MAX_LINE_CHARS = 2000


class Logbook:
    """Appends one line per swallowed error and counts failures by kind."""

    def __init__(self, log_path: Path, state_dir: Path, *, scrub: Callable[[str], str] | None = None) -> None:
        self.log_path = log_path
        self.counters_path = state_dir / "failures.json"
        self._scrub = scrub

    def error(self, where: str, exc: BaseException | str) -> None:
        """Log one line `<UTC time> ERROR <where>: <message>` and bump `failures[where]`."""
        message = exc if isinstance(exc, str) else f"{type(exc).__name__}: {exc}"
        self._write("ERROR", where, message)
        self._bump(where)

    def warning(self, where: str, message: str) -> None:
        """Log one warning line (no counter): malformed settings, dropped spool entries."""
        self._write("WARN", where, message)

    def failures(self) -> dict[str, int]:
        """Failure counts by kind since the counters were last cleared."""
        try:
            data = json.loads(self.counters_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return {str(k): int(v) for k, v in data.items() if isinstance(v, int)} if isinstance(data, dict) else {}

    def tail(self, lines: int = 10) -> list[str]:
        """The last `lines` lines of the log."""
        try:
            with open(self.log_path, "rb") as handle:
                handle.seek(0, os.SEEK_END)
                size = handle.tell()
                handle.seek(max(0, size - 64 * 1024))
                text = handle.read().decode("utf-8", errors="replace")
        except OSError:
            return []
        return text.splitlines()[-lines:]

    def _write(self, level: str, where: str, message: str) -> None:
        try:
            if self._scrub is not None:
                message = self._scrub(message)
            message = " ".join(message.split())[:_MAX_LINE_CHARS]
            stamp = utc()
            line = f"{stamp} {level} {where}: {message}\n".encode("utf-8", errors="replace")
            self.log_path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            try:
                if self.log_path.stat().st_size > _MAX_LOG_BYTES:
                    os.replace(self.log_path, self.log_path.with_name(self.log_path.name + ".1"))
            except FileNotFoundError:
                pass
            fd = os.open(self.log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, line)
            finally:
                os.close(fd)
        except Exception:  # noqa: BLE001, S110 - logging must never fail a turn
            pass

    def _bump(self, where: str) -> None:
        try:
            counts = self.failures()
            counts[where] = counts.get(where, 0) + 1
            atomic_write(self.counters_path, json.dumps(counts, sort_keys=True), folder_mode=0o700)
        except Exception:  # noqa: BLE001, S110 - counting must never fail a turn
            pass
