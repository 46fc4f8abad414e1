"""memory-openclaw: subconscious memory for OpenClaw.

An OpenClaw plugin (`plugin/`: `openclaw.plugin.json`, `package.json`, `index.ts`) recalls
this project's memories before each turn and captures each turn after it, through one
`python -m memory_openclaw.worker` per OpenClaw process; `memory install openclaw` links and
enables it. The harness
itself (`memory_openclaw.harness.OpenClawHarness`) is found by memory-core through the entry
point group `memory.harnesses`.
"""

from __future__ import annotations

from memory_openclaw.version import __version__

__all__ = ["__version__", "PLUGIN_ID"]

PLUGIN_ID = "memory-openclaw"
"""The plugin's id in `openclaw.plugin.json` and the key under `plugins.entries`."""
