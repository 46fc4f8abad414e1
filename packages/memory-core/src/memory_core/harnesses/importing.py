"""Transcript import: turns a harness kept in its own session files become memory.

A harness package supplies a `TranscriptSource` (where its session files are, and how one is
read into turns); this module does the rest, the same way for every harness:

- Each turn is stored through `MemoryService.capture` with the harness's own session and turn
  ids, so it gets the record id the hook gives the same turn: import after capture, or capture
  after import, stores nothing twice. The firewall runs exactly as on the hook path.
- Progress per file is a byte offset in a state file under `config.state_dir/import/`, one
  per harness and store, written atomically (temp file, fsync, `os.replace`). The offset moves
  only past turns the store confirmed (stored, already stored, or deliberately dropped by the
  firewall or a switched-off project); a turn the store could not take stops the run there.
- A line still being written (no trailing newline yet) is never read: `read_lines` stops
  before it, so a live session is picked up where its last complete turn ended.
- A file that shrank or was replaced (another inode) is read again from its start; dedupe
  makes that safe.

Nothing here runs on the hook path. Failure: a store error other than an outage propagates
(the CLI prints it); the state already saved stays valid, since it only ever names turns the
store confirmed. A concurrent import of the same harness into the same store is refused
(`ImportBusy`) rather than interleaved.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from memory_core.config import Config
from memory_core.errors import MemoryCoreError
from memory_core.harnesses.contract import ReadsTimeline
from memory_core.harnesses.transcripts import Consumed, TranscriptSource, TranscriptTurn
from memory_core.localstate.atomic import atomic_write
from memory_core.localstate.locks import exclusive_lock
from memory_core.models import CaptureOutcome, TurnTimeline
from memory_core.retrieval.render import HEADER
from memory_core.urls import redact_url

__all__ = [
    "TranscriptTurn",
    "Consumed",
    "TranscriptSource",
    "Capturing",
    "ImportReport",
    "ImportBusy",
    "Line",
    "read_lines",
    "json_lines",
    "strip_injected",
    "parse_timestamp",
    "state_path",
    "load_state",
    "run_import",
    "import_since_last",
    "SETTLE_SECONDS",
]

SETTLE_SECONDS = 600.0
"""A file untouched this long is finished: its last turn counts as complete even with no closing marker."""

_SAVE_EVERY_TURNS = 200
_SAVE_EVERY_S = 2.0
"""How often a long file's progress is written while it is read: a crash re-reads at most this
much, and dedupe makes the re-read store nothing twice."""

_STATE_VERSION = 1


class Capturing(Protocol):
    """What an import needs of `MemoryService`: its settings, `capture` and `add_timeline`.

    A protocol, not the class: the service reaches this module (`doctor --fix` imports what hooks
    missed), so importing sits below it and never imports it.
    """

    config: Config

    def capture(
        self,
        *,
        harness: str,
        session_id: str,
        turn_id: str | None,
        response: str,
        prompt: str | None = None,
        cwd: str | None = None,
        created_at: float | None = None,
    ) -> CaptureOutcome:
        """Store one turn (see `MemoryService.capture`)."""
        ...

    def add_timeline(self, harness: str, turns: Sequence[TurnTimeline], *, cwd: str | None = None) -> int:
        """Keep turns' events behind their records (see `MemoryService.add_timeline`)."""
        ...


class ImportBusy(MemoryCoreError):
    """Another import of the same harness into the same store is running."""


@dataclass(slots=True)
class ImportReport:
    """What one import run did."""

    harness: str
    files: int = 0
    files_read: int = 0
    stored: int = 0
    duplicates: int = 0
    dropped: int = 0
    bytes_read: int = 0
    seconds: float = 0.0
    stopped: str = ""
    """Why the run stopped early ("" when it read everything)."""
    drop_reasons: dict[str, int] = field(default_factory=dict)
    events: int = 0
    """Timeline events stored behind the turns (tool calls, results, injected text)."""
    events_lost: int = 0
    """Transcripts whose events could not be read or stored (their turns are not affected)."""

    def summary(self) -> str:
        """One line for a person."""
        line = (
            f"{self.harness}: {self.stored} turn(s) stored, {self.duplicates} already stored, {self.dropped} dropped"
            f" from {self.files_read} of {self.files} transcript(s) ({self.bytes_read / 1e6:.1f} MB in"
            f" {self.seconds:.1f} s)"
        )
        if self.events or self.events_lost:
            line += f", {self.events} event(s) kept behind them"
            line += f" ({self.events_lost} transcript(s) lost theirs)" if self.events_lost else ""
        return f"{line}; stopped: {self.stopped}" if self.stopped else line

    def as_dict(self) -> dict[str, Any]:
        """The report as JSON-ready values."""
        return {
            "harness": self.harness,
            "files": self.files,
            "files_read": self.files_read,
            "stored": self.stored,
            "duplicates": self.duplicates,
            "dropped": self.dropped,
            "drop_reasons": dict(sorted(self.drop_reasons.items())),
            "bytes_read": self.bytes_read,
            "seconds": round(self.seconds, 3),
            "stopped": self.stopped,
            "events": self.events,
            "events_lost": self.events_lost,
        }


# -- reading ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Line:
    """One complete line of a file: its bytes (newline included) and where it starts and ends."""

    start: int
    end: int
    raw: bytes


def read_lines(path: Path, start: int = 0) -> Iterator[Line]:
    """Every complete line from byte `start`. A last line without its newline is still being
    written and is never yielded.
    """
    with path.open("rb") as handle:
        handle.seek(start)
        offset = start
        for raw in handle:
            if not raw.endswith(b"\n"):
                return
            yield Line(offset, offset + len(raw), raw)
            offset += len(raw)


def json_lines(path: Path, start: int, markers: Sequence[bytes]) -> Iterator[tuple[Line, dict[str, Any] | None]]:
    """Each complete line with its JSON object, or None when it holds none of `markers` (not
    worth decoding) or is not a JSON object (a damaged line is passed over, never fatal).
    """
    for line in read_lines(path, start):
        obj: dict[str, Any] | None = None
        if any(marker in line.raw for marker in markers):
            try:
                decoded = json.loads(line.raw)
            except ValueError:
                decoded = None
            obj = decoded if isinstance(decoded, dict) else None
        yield line, obj


_SYSTEM_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>\s*", re.DOTALL)
_HOOK_TAGS = re.compile(r"<user-prompt-submit-hook>.*?</user-prompt-submit-hook>\s*", re.DOTALL)


def strip_injected(text: str) -> str:
    """The user's own words: without text a harness or a hook added to the message.

    Removes `<system-reminder>` and `<user-prompt-submit-hook>` spans, and memory's own recalled
    block (its header line and the `- [id] date: ...` items under it), so what we injected is
    never stored again as something the user said.
    """
    text = _HOOK_TAGS.sub("", _SYSTEM_REMINDER.sub("", text))
    if HEADER not in text:
        return text.strip()
    kept: list[str] = []
    in_block = False
    for line in text.splitlines():
        if HEADER in line:
            before = line.split(HEADER, 1)[0]
            # "UserPromptSubmit hook additional context: <header>" keeps nothing of the prefix either.
            if before.strip() and not before.rstrip().endswith(":"):
                kept.append(before)
            in_block = True
            continue
        if in_block and line.startswith("- ["):
            continue
        in_block = False
        kept.append(line)
    return "\n".join(kept).strip()


def parse_timestamp(value: object) -> float | None:
    """An ISO 8601 time (`2026-11-30T04:32:29.691Z`) or epoch seconds as epoch seconds; None if neither."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.timestamp()


# -- progress state --------------------------------------------------------------------------


def state_path(service: Capturing, harness: str) -> Path:
    """The progress file of `harness` imports into this service's store.

    One per store: switching `MEMORY_URL` to another store starts every offset from zero.
    """
    store = hashlib.sha256(redact_url(service.config.url).encode()).hexdigest()[:12]
    return service.config.state_dir / "import" / f"{harness}-{store}.json"


def load_state(path: Path) -> dict[str, dict[str, Any]]:
    """The per-file progress in `path` (empty when missing or unreadable: everything is read again)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, dict):
        return {}
    return {k: v for k, v in files.items() if isinstance(v, dict) and isinstance(v.get("offset"), int)}


def _save_state(path: Path, files: dict[str, dict[str, Any]]) -> None:
    state = json.dumps({"version": _STATE_VERSION, "files": files}, sort_keys=True)
    atomic_write(path, state, folder_mode=0o700)


@contextmanager
def _only_import(state_file: Path) -> Iterator[None]:
    """Hold the lock beside the state file for the import; `ImportBusy` when another import holds it."""
    lock = state_file.with_suffix(".lock")
    with exclusive_lock(lock) as fd:
        if fd is None:
            raise ImportBusy(f"another import is running (lock {lock}); wait for it to finish")
        yield


# -- the run ---------------------------------------------------------------------------------

Progress = Callable[[int, int, int], None]
"""`progress(bytes_done, bytes_total, turns_stored)`, called as the import moves on."""


def run_import(
    service: Capturing,
    source: TranscriptSource,
    paths: Iterable[Path],
    *,
    from_start: bool = False,
    progress: Progress | None = None,
    settle_seconds: float = SETTLE_SECONDS,
    timeline: ReadsTimeline | None = None,
) -> ImportReport:
    """Import the turns of `paths` past each file's stored offset (from byte 0 with `from_start`).

    With the harness's `timeline` reader, each file's events from the same offset are kept behind
    the turns just stored (`MemoryService.add_timeline`: the same events as the hook's, stored once).

    Returns what was done; `report.stopped` says why a run ended early (the store became
    unreachable: the turn that could not be stored is read again next time).
    Raises `ImportBusy` when another import of this harness into this store is running.
    """
    began = time.monotonic()
    state_file = state_path(service, source.harness)
    with _only_import(state_file):
        run = _Run(service, source, state_file, progress, timeline if service.config.events else None)
        plan = _plan(paths, run.files, from_start=from_start)
        run.report.files = len(plan)
        run.total = sum(size - start for _, _, start, size in plan)
        try:
            for path, info, start, size in plan:
                if start >= size:
                    run.files[str(path)] = info | {"offset": start}
                    continue
                settled = time.time() - info["mtime"] >= settle_seconds
                run.import_file(path, info, start, settled=settled)
                if run.report.stopped:
                    break
        finally:
            _save_state(state_file, run.files)
    run.report.seconds = time.monotonic() - began
    return run.report


def _plan(
    paths: Iterable[Path], files: dict[str, dict[str, Any]], *, from_start: bool
) -> list[tuple[Path, dict[str, Any], int, int]]:
    """(path, identity, start offset, size) for each readable file, duplicates dropped."""
    plan: list[tuple[Path, dict[str, Any], int, int]] = []
    seen: set[str] = set()
    for given in paths:
        path = given.absolute()
        if str(path) in seen:
            continue
        seen.add(str(path))
        try:
            stat = path.stat()
        except OSError:
            continue
        info = {"size": stat.st_size, "mtime": stat.st_mtime, "inode": stat.st_ino}
        known = files.get(str(path))
        start = 0
        if known is not None and not from_start:
            replaced = known.get("inode") != stat.st_ino or known["offset"] > stat.st_size
            start = 0 if replaced else int(known["offset"])
        plan.append((path, info, start, stat.st_size))
    return plan


class _Run:
    """One import run: the progress it keeps, the report it fills, the state it saves."""

    def __init__(
        self,
        service: Capturing,
        source: TranscriptSource,
        state_file: Path,
        progress: Progress | None,
        timeline: ReadsTimeline | None = None,
    ) -> None:
        self.service = service
        self.timeline = timeline
        self.source = source
        self.state_file = state_file
        self.progress = progress
        self.files = load_state(state_file)
        self.report = ImportReport(source.harness)
        self.total = 0
        self.done = 0
        self.unsaved = 0
        self.saved_at = time.monotonic()

    def import_file(self, path: Path, info: dict[str, Any], start: int, *, settled: bool) -> None:
        """Import one file from `start`, saving the confirmed offset as it goes."""
        self.report.files_read += 1
        key = str(path)
        offset = start
        cwd: str | None = None
        for item in self.source.parse(path, start, settled=settled):
            if isinstance(item, TranscriptTurn):
                if not self._store(item):
                    self.report.stopped = f"the store became unreachable while reading {path}"
                    break
                self.unsaved += 1
                cwd = cwd or item.cwd
            self.done += item.end - offset
            self.report.bytes_read += item.end - offset
            offset = item.end
            self.files[key] = info | {"offset": offset}
            self.save_now_and_then()
            if self.progress is not None:
                self.progress(self.done, self.total, self.report.stored)
        self.files[key] = info | {"offset": offset}
        if self.timeline is not None and offset > start:
            self._keep_events(path, start, cwd)
        # Bytes past the last complete turn are not done, but they are no longer to do either.
        self.done += max(0, info["size"] - offset)
        if self.progress is not None:
            self.progress(self.done, self.total, self.report.stored)

    def _keep_events(self, path: Path, start: int, cwd: str | None) -> None:
        """The events of the turns just read, from the same offset; a failure costs them only."""
        assert self.timeline is not None
        try:
            chunk = self.timeline.timeline(path, start)
            self.report.events += self.service.add_timeline(self.source.harness, chunk.turns, cwd=cwd)
        except Exception:  # noqa: BLE001 - a transcript's events are never worth its turns
            self.report.events_lost += 1

    def save_now_and_then(self) -> None:
        """Write the state every few hundred turns or seconds, across files as within one."""
        if self.unsaved >= _SAVE_EVERY_TURNS or (self.unsaved and time.monotonic() - self.saved_at >= _SAVE_EVERY_S):
            _save_state(self.state_file, self.files)
            self.unsaved, self.saved_at = 0, time.monotonic()

    def _store(self, turn: TranscriptTurn) -> bool:
        """Capture one turn; False when the store did not confirm it (it was spooled)."""
        outcome = self.service.capture(
            harness=self.source.harness,
            session_id=turn.session_id,
            turn_id=turn.turn_id,
            response=turn.response,
            prompt=turn.prompt,
            cwd=turn.cwd,
            created_at=turn.created_at,
        )
        if outcome.status == "spooled":
            # The offset stays before this turn. The spooled copy is written on the next
            # capture, and the re-read then finds it already stored.
            return False
        if outcome.status == "stored":
            self.report.stored += 1
        elif outcome.status == "duplicate":
            self.report.duplicates += 1
        else:
            self.report.dropped += 1
            reasons = self.report.drop_reasons
            reasons[outcome.reason] = reasons.get(outcome.reason, 0) + 1
        return True


def import_since_last(
    service: Capturing,
    source: TranscriptSource,
    *,
    progress: Progress | None = None,
    timeline: ReadsTimeline | None = None,
) -> int:
    """Every known transcript from its stored offset (a new one from its start); returns turns stored.

    What `memory import <harness> --since-last` and `memory doctor --fix` run: it picks up the
    turns a hook missed (a failed hook, a session run with hooks off) and nothing twice, with
    their events when the harness reads timelines.
    """
    return run_import(service, source, source.find(), progress=progress, timeline=timeline).stored
