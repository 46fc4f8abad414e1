"""`python -m memory_openclaw.hook`: one OpenClaw hook call as a one-shot process.

Reads one plugin payload (see `memory_openclaw.adapter`) from stdin and prints what recall
found (`{"appendContext": ...}`) or nothing; always exits 0. It goes through memory-core's
hook client, like every other harness's hook, so it is what `bench/latency.py` measures and
what you run by hand to check a payload. The plugin itself does not start it per call: it
keeps one `memory_openclaw.worker` per OpenClaw process (see that module for why).
"""

from __future__ import annotations

from memory_core.hookpath.client import main as _run_hook

__all__ = ["main"]


def main() -> None:
    """Run one OpenClaw hook call (stdin payload, stdout answer, exit 0)."""
    _run_hook("memory_openclaw.adapter:OpenClawHooks")


if __name__ == "__main__":
    main()
