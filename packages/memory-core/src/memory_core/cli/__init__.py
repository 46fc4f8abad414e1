"""The `memory` command line.

Every command is a small module here that adds its parser in `register(subparsers)`;
plugins add theirs through the entry point group `memory.cli` the same way (memory-mcp adds
`memory mcp`). Harness subcommands (`install`, `uninstall`, `hook`, `import`) take the names
of the harness packages that are installed.

Errors print one line, `memory: error: ...`, and exit non-zero (1 for a failure to do what
was asked, 2 for a usage error); no traceback reaches the user.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from memory_core.version import __version__

__all__ = ["main", "build_parser"]

_PLUGIN_GROUP = "memory.cli"


def build_parser() -> argparse.ArgumentParser:
    """The whole command tree, built-ins first, then plugin commands."""
    from memory_core.cli import demo, doctor, harnesses, importing, migrate, records, reindex, switch, ui

    parser = argparse.ArgumentParser(
        prog="memory",
        description="Subconscious memory for coding agents: recall and capture on every turn.",
    )
    parser.add_argument("--version", action="version", version=f"memory {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in (doctor, demo, records, switch, harnesses, importing, migrate, reindex, ui):
        module.register(subparsers)
    _register_plugins(subparsers)
    return parser


def _register_plugins(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from importlib.metadata import entry_points

    for entry in entry_points(group=_PLUGIN_GROUP):
        try:
            entry.load()(subparsers)
        except Exception as exc:  # noqa: BLE001 - a broken plugin never stops the CLI
            logging.getLogger(__name__).warning("memory: plugin command %s failed to load: %s", entry.name, exc)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status (the console script exits with it)."""
    from memory_core.errors import MemoryCoreError

    logging.basicConfig(level=logging.WARNING, format="%(message)s", stream=sys.stderr)
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        sys.stderr.write("memory: interrupted\n")
        return 130
    except (MemoryCoreError, OSError, ValueError) as exc:
        sys.stderr.write(f"memory: error: {exc}\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())
