"""The hook Claude Code runs: `python -m memory_claude.hook` (or the `memory-claude-hook` script).

Reads one payload from stdin, hands it to memory-core's hook runner with the Claude Code
adapter, writes the runner's answer to stdout once, exits 0. Never raises and never fails a
turn: every error is the runner's to log. Imports only the adapter and the runner, since
interpreter start-up is the floor this hook is measured against.

`memory-claude-hook --plugin-dir` prints the plugin marketplace folder shipped in this
package instead (for `claude plugin marketplace add`).
"""

from __future__ import annotations

import os
import sys

from memory_core.hook import main as _run_hook

from memory_claude.adapter import ClaudeHooks

__all__ = ["main", "plugin_dir"]


def plugin_dir() -> str:
    """The marketplace folder holding the `memory` plugin."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "plugin")


def main() -> None:
    """Run one Claude Code hook call (stdin payload, stdout answer, exit 0)."""
    if sys.argv[1:] == ["--plugin-dir"]:
        sys.stdout.write(plugin_dir() + "\n")
        return
    _run_hook(ClaudeHooks())


if __name__ == "__main__":
    main()
