"""Reading a session's transcript from where the last read left off (Claude Code, Codex).

The worker calls `read_new` after a turn's capture, never the hook client. Where each
transcript was last read is a small JSON file per (harness, session, transcript) under
`<state dir>/timeline/`, written atomically (`atomic_write`) and only after the events it
covers were stored (`commit`), so:

- a lost, corrupt or stale offset (the file was replaced: another inode, or it shrank) costs
  a re-read from the start, never a second copy: events are named by the transcript's own ids;
- a transcript that is missing or unreadable costs this read's events, never the turn, and is
  tried again next turn; a malformed line is the reader's to pass over; a line still being
  written stays for the next read (`TimelineChunk.end` stops before it);
- a transcript with more than `MAX_UNREAD_BYTES` not yet read (a huge session met for the first
  time) is skipped to its end: the hook path's worker does not spend seconds on history, which
  `memory import` brings instead.

Never raises: every failure is returned as a reason for the log.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from memory_core.harnesses.contract import ReadsTimeline
from memory_core.localstate.atomic import atomic_write
from memory_core.models import TurnTimeline

__all__ = ["MAX_UNREAD_BYTES", "Followed", "read_new", "commit"]

MAX_UNREAD_BYTES = 32 * 1024 * 1024
"""Unread transcript the worker reads in one go at most. A 5,000-entry Claude Code transcript of
turns with 20 tool calls each is 4.4 MB and is read and stored in about 2 s (bench/timeline.py,
docs/performance.md): this bound keeps one read under about 15 s of a worker's time."""


@dataclass(frozen=True, slots=True)
class Followed:
    """One read: the turns found, the offset to keep once they are stored, and why nothing was
    read when nothing was (`reason`; `broken` when the reader itself failed, a bug to report).
    """

    turns: tuple[TurnTimeline, ...]
    mark: Path | None
    end: int
    identity: tuple[int, int]
    reason: str = ""
    broken: bool = False


def _mark_path(state_dir: Path, harness: str, session_id: str, transcript: Path) -> Path:
    digest = hashlib.sha256(f"{harness}\0{session_id}\0{transcript}".encode()).hexdigest()[:32]
    return state_dir / "timeline" / f"{digest}.json"


def _last_offset(mark: Path, identity: tuple[int, int], size: int) -> int:
    try:
        saved = json.loads(mark.read_text(encoding="utf-8"))
        offset, device, inode = int(saved["offset"]), int(saved["device"]), int(saved["inode"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0
    if (device, inode) != identity or not 0 <= offset <= size:
        return 0  # another file under the same name, or it shrank: read it again from the start
    return offset


def read_new(
    reader: ReadsTimeline, state_dir: Path, *, harness: str, session_id: str, transcript_path: str
) -> Followed:
    """The turns of `transcript_path` written since the last committed read."""
    path = Path(transcript_path)
    empty = Followed((), None, 0, (0, 0))
    try:
        info = os.stat(path)
    except OSError as exc:
        return Followed((), None, 0, (0, 0), reason=f"transcript unreadable: {type(exc).__name__}")
    identity = (info.st_dev, info.st_ino)
    mark = _mark_path(state_dir, harness, session_id, path)
    offset = _last_offset(mark, identity, info.st_size)
    if info.st_size - offset > MAX_UNREAD_BYTES:
        return Followed((), mark, info.st_size, identity, reason=f"transcript has {info.st_size - offset} unread bytes")
    if info.st_size == offset:
        return empty
    try:
        chunk = reader.timeline(path, offset)
    except Exception as exc:  # noqa: BLE001 - a reader's failure costs the events, never the turn
        return Followed((), None, 0, identity, reason=f"transcript not read: {type(exc).__name__}: {exc}", broken=True)
    return Followed(chunk.turns, mark, max(offset, chunk.end), identity)


def commit(followed: Followed) -> str:
    """Keep `followed`'s end as the transcript's offset, now that its events are stored.

    Returns "" or why the offset could not be written (the next read then starts earlier).
    """
    if followed.mark is None:
        return ""
    state = {"offset": followed.end, "device": followed.identity[0], "inode": followed.identity[1]}
    try:
        atomic_write(followed.mark, json.dumps(state), folder_mode=0o700)
    except OSError as exc:
        return f"transcript offset not kept: {exc}"
    return ""
