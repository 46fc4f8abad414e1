"""memory-claude: subconscious memory for Claude Code.

`python -m memory_claude.hook` is the hook Claude Code runs on every turn; `ClaudeHarness`
(in `memory_claude.harness`, found by the `memory` CLI through the `memory.harnesses` entry
point) installs it. This module imports nothing else, so the hook path pays only for what it
uses.
"""

from memory_claude.version import __version__

__all__ = ["__version__"]
