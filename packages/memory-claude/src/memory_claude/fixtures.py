"""The recorded Claude Code payloads shipped with this package (`fixtures/` in the source tree).

The wheel carries them as `memory_claude/fixtures/`; a source checkout (editable install) has
them at the distribution's root. `bench_payloads` hands a recorded turn to the latency bench.
Failure: `FileNotFoundError` when neither place has them (a broken install).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["fixtures_dir", "load_fixture", "bench_payloads", "BENCH_READ", "BENCH_WRITE"]

BENCH_READ = "UserPromptSubmit.json"
BENCH_WRITE = "Stop.json"
"""One recorded turn: the two payloads share a `prompt_id`."""


def fixtures_dir() -> Path:
    """The folder of recorded payloads, in the wheel or in the source tree."""
    package = Path(__file__).resolve().parent
    for candidate in (package / "fixtures", package.parent.parent / "fixtures"):
        if (candidate / BENCH_READ).is_file():
            return candidate
    raise FileNotFoundError(f"no recorded Claude Code payloads beside {package}; reinstall memory-claude")


def load_fixture(name: str) -> dict[str, Any]:
    """One recorded payload by file name, e.g. `Stop.json`."""
    data: dict[str, Any] = json.loads((fixtures_dir() / name).read_text(encoding="utf-8"))
    return data


def bench_payloads() -> tuple[dict[str, Any], dict[str, Any]]:
    """A recorded (UserPromptSubmit, Stop) pair of one turn."""
    return load_fixture(BENCH_READ), load_fixture(BENCH_WRITE)
