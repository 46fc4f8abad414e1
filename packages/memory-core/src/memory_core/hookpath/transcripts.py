"""The worker's second job after a turn's capture: the turn's timeline from the harness's transcript.

Claude Code and Codex name their transcript on every hook (`HookEvent.transcript_path`). After
the worker has answered a write event (the hook has its answer and is gone), `TranscriptFollower`
reads what the transcript gained since the last read (`memory_core.timeline.follow`) through the
harness's own reader (the `ReadsTimeline` capability of its adapter, or of the installed harness
of the same name), and stores the events behind their turns (`MemoryService.add_timeline`). The
offset moves only after the store took the events, and only past turns whose write has come: a
turn the transcript already holds beyond the event's own is read again at the next write.

Promises: never raises; a missing reader, transcript or store costs the events of this read (one
log line; the next turn's read tries again from the same offset), never a turn and never the
worker. Nothing happens with `MEMORY_EVENTS=0`, memory off here, or for a harness without a
transcript reader.
"""

from __future__ import annotations

from collections.abc import Sequence

from memory_core.harnesses.contract import HookAdapter, ReadsTimeline
from memory_core.models import EventKind, HookEvent, TurnTimeline
from memory_core.service import MemoryService
from memory_core.timeline.follow import commit, read_new

__all__ = ["TranscriptFollower"]


class TranscriptFollower:
    """Finds each adapter's transcript reader once, and follows transcripts after write events."""

    def __init__(self) -> None:
        self._readers: dict[str, ReadsTimeline | None] = {}

    def reader(self, adapter: HookAdapter) -> ReadsTimeline | None:
        """The adapter itself when it reads timelines, else the installed harness of its name that does."""
        if isinstance(adapter, ReadsTimeline):
            return adapter
        if adapter.name not in self._readers:
            from memory_core.harnesses.contract import discover_harnesses

            harness = discover_harnesses()[0].get(adapter.name)
            self._readers[adapter.name] = harness if isinstance(harness, ReadsTimeline) else None
        return self._readers[adapter.name]

    def follow(self, service: MemoryService, adapter: HookAdapter, event: HookEvent) -> int:
        """Read and store what `event`'s transcript gained; the number of new events. Never raises."""
        if event.kind is not EventKind.WRITE or not event.transcript_path:
            return 0
        where = f"{event.harness}.transcript"
        try:
            if not service.config.events or not service.active(event.cwd):
                return 0
            reader = self.reader(adapter)
            if reader is None:
                return 0
            followed = read_new(
                reader,
                service.config.state_dir,
                harness=event.harness,
                session_id=event.session_id,
                transcript_path=event.transcript_path,
            )
            if followed.broken:
                service.logbook.error(where, followed.reason)  # counted: `memory doctor` shows it
            elif followed.reason:
                service.logbook.warning(where, followed.reason)
            turns, later = _through(followed.turns, event)
            stored = service.add_timeline(event.harness, turns, cwd=event.cwd) if turns else 0
            if later:
                # The transcript already holds a turn whose write has not come (the next prompt was
                # quicker than this read): its record does not exist yet, so its events could not be
                # kept. The offset stays; the next write's read takes them, and what this one stored
                # is named the same then, so nothing is stored twice.
                return stored
            problem = commit(followed)
            if problem:
                service.logbook.warning(where, problem)
            return stored
        except Exception as exc:  # noqa: BLE001 - the events are lost, the turn and the worker are not
            service.logbook.error(where, exc)
            return 0


def _through(turns: Sequence[TurnTimeline], event: HookEvent) -> tuple[list[TurnTimeline], bool]:
    """The turns to store now, and whether the transcript holds a later turn of `event`'s session.

    That is every turn but those of `event`'s session after its own (a subagent's turns, a session
    of their own, are taken whenever they come). When the event's turn is not among them (no turn
    id, or its lines were read before), every turn is taken.
    """
    own = next(
        (at for at, t in enumerate(turns) if t.turn_id == event.turn_id and t.session_id == event.session_id), None
    )
    if own is None:
        return list(turns), False
    after = turns[own + 1 :]
    others = [t for t in after if t.session_id != event.session_id]
    return [*turns[: own + 1], *others], len(others) < len(after)
