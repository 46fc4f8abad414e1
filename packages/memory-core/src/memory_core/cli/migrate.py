"""`memory migrate --to URL`: copy every record, counter and firewall count to another store.

Idempotent: running it twice copies nothing twice (records keep their ids; counters are
copied as the difference since the last run from the same source, which the target keeps in
its `migrate.counters:<source URL>` metadata).
"""

from __future__ import annotations

import argparse
import sys

from memory_core.cli._common import service
from memory_core.urls import redact_url

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `memory migrate`."""
    p = subparsers.add_parser("migrate", help="copy this store's memories into another store")
    p.add_argument("--to", required=True, metavar="URL", help="the target store URL (same schemes as MEMORY_URL)")
    p.set_defaults(func=cmd_migrate)


def cmd_migrate(args: argparse.Namespace) -> int:
    svc = service()

    def progress(done: int, total: int) -> None:
        if sys.stderr.isatty():
            sys.stderr.write(f"\r{done}/{total} records")
            sys.stderr.flush()

    report = svc.migrate_to(args.to, progress=progress)
    if sys.stderr.isatty():
        sys.stderr.write("\n")
    print(f"{redact_url(svc.config.url)} -> {report.target}: {report}")
    return 0
