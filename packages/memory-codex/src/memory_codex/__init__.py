"""memory-codex: subconscious memory for Codex.

`python -m memory_codex.hook` is the hook Codex runs on every turn; `CodexHarness` (in
`memory_codex.harness`, found by the `memory` CLI through the `memory.harnesses` entry point)
installs it, registers the MCP server and makes Codex trust the hooks. This module imports
nothing else, so the hook path pays only for what it uses.
"""

from memory_codex.version import __version__

__all__ = ["__version__"]
