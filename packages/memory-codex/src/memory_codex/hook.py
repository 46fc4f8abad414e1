"""The hook Codex runs on every turn: `python -m memory_codex.hook` (or `memory-codex-hook`).

Reads one payload on stdin, prints the response once (nothing when there is nothing to
inject) and exits 0 whatever happens; `memory_core.hookpath.client` keeps those promises. It hands
the payload to the per-user memory worker and imports the adapter only when it must handle
the turn itself: interpreter start-up is the floor we are measured against.
"""

from __future__ import annotations

__all__ = ["main"]


def main() -> None:
    """Run one hook call with the Codex adapter (the `memory-codex-hook` console script)."""
    from memory_core.hookpath.client import main as run_hook

    run_hook("memory_codex.adapter:CodexHooks")


if __name__ == "__main__":
    main()
