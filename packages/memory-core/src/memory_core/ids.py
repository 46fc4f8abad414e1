"""How a record's id is derived: from the harness's own identifiers, or from a note's text.

Below the service and everything that stores turns (capture, import, the timeline), so each
derives the same id without importing the service. Standard library only.
"""

from __future__ import annotations

import hashlib

from memory_core.models import Scope

__all__ = ["turn_record_id", "note_record_id"]


def turn_record_id(harness: str, session_id: str, turn_id: str) -> str:
    """The id of a captured turn: the same from the hook and from a transcript import."""
    digest = hashlib.sha256(f"turn\0{harness}\0{session_id}\0{turn_id}".encode()).hexdigest()
    return f"t{digest[:19]}"


def note_record_id(scope: Scope, content: str) -> str:
    """The id of a saved note: saving the same text twice in a scope stores it once."""
    digest = hashlib.sha256(f"note\0{scope.kind}\0{scope.key}\0{content}".encode()).hexdigest()
    return f"n{digest[:19]}"
