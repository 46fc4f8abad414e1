"""The spool: captures the store could not take, kept until it takes writes again.

Promise: a capture the store did not confirm, for whatever reason (an outage, a read-only,
locked, missing or corrupt file, a refused value), is appended here (already through the
firewall) and written to the store by a later drain, without duplicates (record ids are
derived from the harness's ids and the store's `put` is idempotent). The file is user-only
(0600) JSON lines (the `memory export` format), bounded by `max_bytes`: when full, the
oldest entries are dropped first and counted in `<spool>.dropped`, which `doctor` reports
as a problem until a drain succeeds and `doctor --fix` clears it. Never a silent loss.

A drain stops at an outage (the entry and all after it stay). An entry the store refuses
while it takes the entries around it is one it can never take: it is moved to the
quarantine file (`<spool>.quarantine`, same format, which `memory restore` reads) so it never
blocks the entries behind it, and `doctor` names that file.

Concurrency: every change happens under an exclusive `flock` on a lock file beside the
spool, so a drain's rewrite never loses a concurrent append. A drain does not wait for the
lock: a second process that finds it taken skips draining this time (the first is doing it).
Entries are removed only after the store confirmed them (or after they were quarantined).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any

from memory_core.errors import StoreUnavailable
from memory_core.localstate.atomic import atomic_write
from memory_core.localstate.locks import exclusive_lock
from memory_core.models import Record, Scope

__all__ = ["Spool", "record_to_json", "record_from_json"]

_TRIM_TO = 0.9
"""A full spool drops its oldest entries down to this share of its bound."""
_REFUSALS_BEFORE_STOP = 3
"""Consecutive refused entries after which a drain stops: the store refuses everything (it
went read-only mid-drain), not one entry, so nothing is quarantined."""


def record_to_json(record: Record) -> dict[str, Any]:
    """A record as a JSON-ready dict (the format of the spool and of `memory export`)."""
    data = asdict(record)
    data["scope"] = {"kind": record.scope.kind, "key": record.scope.key}
    return data


def record_from_json(data: dict[str, Any]) -> Record:
    """The inverse of `record_to_json`. Raises `KeyError`/`TypeError`/`ValueError` on a malformed entry."""
    scope = data["scope"]
    kind = scope["kind"]
    if kind not in ("project", "user"):
        raise ValueError(f"unknown scope kind {kind!r}")
    fields = {k: v for k, v in data.items() if k != "scope"}
    return Record(scope=Scope(kind=kind, key=str(scope["key"])), **fields)


def _ends_torn(fd: int) -> bool:
    """Whether the file behind `fd` is non-empty and does not end with a newline."""
    size = os.fstat(fd).st_size
    return size > 0 and os.pread(fd, 1, size - 1) != b"\n"


class Spool:
    """A bounded JSON-lines file of pending records."""

    def __init__(self, path: Path, *, max_bytes: int) -> None:
        self.path = path
        self.max_bytes = max_bytes

    def pending_bytes(self) -> int:
        """Size of the spool file (0 when absent): a cheap check before draining."""
        try:
            return self.path.stat().st_size
        except FileNotFoundError:
            return 0

    @property
    def quarantine_path(self) -> Path:
        """Entries the store refused while it took others: `memory restore` reads this file."""
        return self.path.with_name(self.path.name + ".quarantine")

    @property
    def dropped_path(self) -> Path:
        """The count of turns the bound dropped, kept until `clear_dropped`."""
        return self.path.with_name(self.path.name + ".dropped")

    def dropped(self) -> int:
        """How many turns the bound has dropped since `clear_dropped` (0 when none)."""
        try:
            return int(self.dropped_path.read_text(encoding="ascii").strip() or 0)
        except (OSError, ValueError):
            return 0

    def clear_dropped(self) -> None:
        """Forget the count of dropped turns (`doctor --fix`, once the user has been told)."""
        self.dropped_path.unlink(missing_ok=True)

    def quarantined(self) -> int:
        """How many entries wait in the quarantine file."""
        try:
            with open(self.quarantine_path, "rb") as handle:
                return sum(1 for line in handle if line.strip())
        except OSError:
            return 0

    def append(self, record: Record) -> int:
        """Keep `record` for later. Returns how many old entries were dropped to stay in bounds.

        Raises `OSError` when the spool cannot be written (a full disk): the caller logs it.
        """
        line = (json.dumps(record_to_json(record), ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        with self._lock(blocking=True):
            dropped = 0
            if self.pending_bytes() + len(line) > self.max_bytes:
                # Down to 90%: a full spool is trimmed once per tenth of its bound, not per turn.
                dropped = self._trim(int(self.max_bytes * _TRIM_TO) - len(line))
                if dropped:
                    total = self.dropped() + dropped
                    fd = os.open(self.dropped_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                    with os.fdopen(fd, "w", encoding="ascii") as handle:
                        handle.write(f"{total}\n")
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                if _ends_torn(fd):
                    # A crash mid-append left half a line: end it, so this entry stays whole.
                    line = b"\n" + line
                os.write(fd, line)
            finally:
                os.close(fd)
            return dropped

    def count(self) -> int:
        """How many entries are pending (lines, without parsing them: cheap for `doctor`)."""
        try:
            with open(self.path, "rb") as handle:
                return sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b""))
        except OSError:
            return 0

    def entries(self) -> list[Record]:
        """Every well-formed pending record, oldest first (for `doctor` and draining)."""
        return [record for _, record in self._read()]

    def drain(
        self,
        write: Callable[[Record], object],
        *,
        proven: bool = False,
        on_refused: Callable[[Record, Exception], None] | None = None,
    ) -> int:
        """Hand each pending record to `write`, oldest first, and forget those it accepted.

        `write` raising `StoreUnavailable` stops the drain: that entry and all after it stay.
        Any other exception refuses one entry: it is quarantined once the store takes a write
        after it (or took one just before, `proven`: the caller's own write succeeded), and
        `on_refused` hears of it; `_REFUSALS_BEFORE_STOP` refusals in a row stop the drain
        with nothing quarantined. Returns how many were written. Does nothing if another
        process is draining.
        """
        if self.pending_bytes() == 0:
            return 0
        with self._lock(blocking=False) as locked:
            if not locked:
                return 0
            entries = self._read()
            written = 0
            handled = 0  # entries[:handled] are written or quarantined
            refused: list[tuple[str, Record, Exception]] = []
            quarantine: list[tuple[str, Record, Exception]] = []
            took = proven
            try:
                for index, (line, record) in enumerate(entries):
                    try:
                        write(record)
                    except StoreUnavailable:
                        break
                    except Exception as refusal:  # noqa: BLE001 - a refusal of one entry, judged below
                        refused.append((line, record, refusal))
                        if len(refused) >= _REFUSALS_BEFORE_STOP:
                            break
                        continue
                    written += 1
                    took = True
                    quarantine.extend(refused)
                    refused = []
                    handled = index + 1
                else:
                    if refused and took:
                        quarantine.extend(refused)
                        handled = len(entries)
            finally:
                self._quarantine(quarantine)
                self._rewrite([line for line, _ in entries[handled:]])
            if on_refused is not None:
                for _, record, exc in quarantine:
                    on_refused(record, exc)
            return written

    def rewrite(self, change: Callable[[Record], Record]) -> int:
        """Replace each pending record, and each quarantined one, by `change(record)` (`memory
        scrub` runs the firewall's current rules over turns still waiting). Returns how many
        changed; blocks on the lock. A line that is not a record is kept as it is.
        """
        changed = 0
        with self._lock(blocking=True):
            for path in (self.path, self.quarantine_path):
                changed += self._rewrite_records(path, change)
        return changed

    def _rewrite_records(self, path: Path, change: Callable[[Record], Record]) -> int:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return 0
        lines: list[str] = []
        changed = 0
        for line in text.splitlines():
            try:
                record = record_from_json(json.loads(line))
            except (ValueError, KeyError, TypeError):
                lines.append(line)
                continue
            new = change(record)
            if new != record:
                changed += 1
                line = json.dumps(record_to_json(new), ensure_ascii=False, separators=(",", ":"))
            lines.append(line)
        if changed:
            tmp = path.with_name(path.name + ".tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write("".join(line + "\n" for line in lines))
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        return changed

    def _read(self) -> list[tuple[str, Record]]:
        try:
            text = self.path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return []
        out: list[tuple[str, Record]] = []
        for line in text.splitlines():
            try:
                out.append((line, record_from_json(json.loads(line))))
            except (ValueError, KeyError, TypeError):
                continue  # a torn line from a crash mid-write: nothing recoverable in it
        return out

    def _quarantine(self, entries: list[tuple[str, Record, Exception]]) -> None:
        """Append refused entries to the quarantine file. Caller holds the lock."""
        if not entries:
            return
        fd = os.open(self.quarantine_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, "".join(line + "\n" for line, _, _ in entries).encode("utf-8", "replace"))
        finally:
            os.close(fd)

    def _trim(self, budget: int) -> int:
        """Drop the oldest entries until the file fits `budget` bytes. Caller holds the lock."""
        lines = [line for line, _ in self._read()]
        dropped = 0
        size = sum(len(line.encode()) + 1 for line in lines)
        while lines and size > budget:
            size -= len(lines.pop(0).encode()) + 1
            dropped += 1
        self._rewrite(lines)
        return dropped

    def _rewrite(self, lines: list[str]) -> None:
        if not lines:
            self.path.unlink(missing_ok=True)
            return
        atomic_write(self.path, "".join(line + "\n" for line in lines), folder_mode=0o700)

    @contextmanager
    def _lock(self, *, blocking: bool) -> Iterator[bool]:
        with exclusive_lock(self.path.with_name(self.path.name + ".lock"), blocking=blocking) as fd:
            yield fd is not None
