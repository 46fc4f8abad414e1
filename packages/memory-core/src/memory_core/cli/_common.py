"""Helpers the CLI commands share: building the service, printing JSON, parsing dates."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from typing import Any

from memory_core.service import MemoryService
from memory_core.utc import MINUTE, utc

__all__ = ["service", "print_json", "parse_when", "iso"]


def service() -> MemoryService:
    """A service for a CLI command: the CLI is short-lived but not a hook, so no skip state matters."""
    return MemoryService(long_lived=True)


def print_json(value: Any) -> None:
    """One JSON document on stdout, keys sorted, for scripts."""
    sys.stdout.write(json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n")


def parse_when(text: str) -> float:
    """`2026-11-30`, `2026-11-30T12:00`, or `30d` / `12h` (that long ago) as epoch seconds."""
    text = text.strip()
    if text and text[-1] in "dh" and text[:-1].isdigit():
        hours = int(text[:-1]) * (24 if text[-1] == "d" else 1)
        return datetime.now(UTC).timestamp() - hours * 3600
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"cannot read {text!r} as a date: use 2026-11-30, 2026-11-30T12:00, 30d or 12h") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.timestamp()


def iso(seconds: float) -> str:
    """Epoch seconds as `2026-11-30 12:00`, UTC."""
    return utc(seconds, MINUTE)
