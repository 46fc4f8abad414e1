"""`python -m memory_openclaw.hook`: the process the OpenClaw plugin runs for each hook call.

The plugin writes one JSON payload to stdin (see `memory_openclaw.adapter`); for a recall this
prints `{"appendContext": ...}` or nothing, for anything else nothing. It always exits 0.
Only the adapter and memory-core's light hook modules are imported here.
"""

from __future__ import annotations

from memory_core.hook import main

from memory_openclaw.adapter import OpenClawAdapter

__all__ = ["main_entry"]


def main_entry() -> None:
    """Handle the payload on stdin (exits the process)."""
    main(OpenClawAdapter())


if __name__ == "__main__":
    main_entry()
