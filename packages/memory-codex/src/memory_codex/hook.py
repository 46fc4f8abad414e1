"""The hook Codex runs on every turn: `python -m memory_codex.hook` (or `memory-codex-hook`).

Reads one payload on stdin, prints the response once (nothing when there is nothing to
inject) and exits 0 whatever happens; `memory_core.hook` keeps those promises. Imports only
the adapter and the core's light hook runner: interpreter start-up is the floor we are
measured against.
"""

from __future__ import annotations

from memory_codex.adapter import CodexHooks

__all__ = ["main"]


def main() -> None:
    """Run one hook call with the Codex adapter (the `memory-codex-hook` console script)."""
    from memory_core.hook import main as run_hook

    run_hook(CodexHooks())


if __name__ == "__main__":
    main()
