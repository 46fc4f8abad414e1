"""The hook Claude Code runs: `python -m memory_claude.hook` (or the `memory-claude-hook` script).

Reads one payload from stdin, hands it to memory-core's hook client with the Claude Code
adapter's name, writes the answer to stdout once, exits 0. Never raises and never fails a
turn: every error is the core's to log. The client passes the payload to the per-user memory
worker and imports the adapter only when it must handle the turn itself, since interpreter
start-up is the floor this hook is measured against.

`memory-claude-hook --plugin-dir` prints the plugin marketplace folder shipped in this
package instead (for `claude plugin marketplace add`).
"""

from __future__ import annotations

import os
import sys

from memory_core.hookpath.client import main as _run_hook

__all__ = ["main", "plugin_dir"]


def plugin_dir() -> str:
    """The marketplace folder holding the `memory` plugin."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "plugin")


def main() -> None:
    """Run one Claude Code hook call (stdin payload, stdout answer, exit 0)."""
    if sys.argv[1:] == ["--plugin-dir"]:
        sys.stdout.write(plugin_dir() + "\n")
        return
    _run_hook("memory_claude.adapter:ClaudeHooks")


if __name__ == "__main__":
    main()
