"""`memory migrate --to URL`: copy every record, counter and firewall count to another store.

Idempotent: running it twice copies nothing twice (records keep their ids; counters are
copied as the difference since the last run from the same source, which the target keeps in
its `migrate.counters:<source URL>` metadata).
"""

from __future__ import annotations

import argparse
import sys

from memory_core.cli._common import service
from memory_core.config import display_url

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `memory migrate`."""
    p = subparsers.add_parser("migrate", help="copy this store's memories into another store")
    p.add_argument("--to", required=True, metavar="URL", help="the target store URL (same schemes as MEMORY_URL)")
    p.set_defaults(func=cmd_migrate)


def cmd_migrate(args: argparse.Namespace) -> int:
    from memory_core.migrate import migrate
    from memory_core.store import open_store

    svc = service()
    target = open_store(args.to, timeout=max(svc.config.timeout, 5.0), allow_db0=svc.config.allow_db0)
    source = svc.store
    if source.display_url == target.display_url:
        raise ValueError("the target is the store MEMORY_URL already names")

    def progress(done: int, total: int) -> None:
        if sys.stderr.isatty():
            sys.stderr.write(f"\r{done}/{total} records")
            sys.stderr.flush()

    report = migrate(source, target, progress=progress)
    if sys.stderr.isatty():
        sys.stderr.write("\n")
    print(f"{display_url(svc.config.url)} -> {target.display_url}: {report}")
    target.close()
    return 0
