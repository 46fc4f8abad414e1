"""`memory ui [--port N] [--no-open]`: the local web page over this store (the `ui` extra)."""

from __future__ import annotations

import argparse
import os

from memory_core.cli._common import service

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `memory ui`."""
    p = subparsers.add_parser("ui", help="browse, search and correct memory in a local web page (prints its URL first)")
    p.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: any free port)")
    p.add_argument("--no-open", action="store_true", help="print the URL but do not open a browser")
    p.set_defaults(func=cmd_ui)


def cmd_ui(args: argparse.Namespace) -> int:
    from memory_core.ui import MISSING_EXTRA

    try:
        from memory_core.ui.server import serve
    except ImportError as exc:
        raise ValueError(f"{MISSING_EXTRA} ({exc.name or exc} is missing)") from None
    svc = service()
    svc.cwd = os.getcwd()
    try:
        serve(svc, port=args.port, open_browser=not args.no_open)
    except KeyboardInterrupt:
        pass
    return 0
