"""`memory reindex`: give every record the vectors of the installed embedding model, now.

The worker does the same in the background; this is for a store imported, migrated or written
by another model version, with a progress bar. Stopped at any point (Ctrl-C, a kill, a store
outage), the next run goes on where this one stopped, and no record gets its vectors twice
(`memory_core.embedding.backfill`). Exits 1 naming the fix when the model cannot be loaded.
"""

from __future__ import annotations

import argparse
import sys
import time

from memory_core.cli._common import service

__all__ = ["register"]

_BAR = 30


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `memory reindex`."""
    p = subparsers.add_parser("reindex", help="compute the vectors records still lack (resumable)")
    p.set_defaults(func=cmd_reindex)


def cmd_reindex(args: argparse.Namespace) -> int:
    svc = service()
    started = time.monotonic()
    show = sys.stderr.isatty()

    def progress(done: int, total: int) -> None:
        if not show:
            return
        filled = _BAR * done // max(total, 1)
        rate = done / max(time.monotonic() - started, 1e-6)
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (_BAR - filled)}] {done}/{total} records, {rate:.1f}/s ")
        sys.stderr.flush()

    try:
        try:
            report = svc.reindex(progress=progress)
        finally:
            if show:
                sys.stderr.write("\n")
        status = svc.vector_status()
    finally:
        svc.close()
    dropped = f", {report.dropped} records of another model dropped" if report.dropped else ""
    print(
        f"{report.embedded} records embedded in {report.seconds:.1f} s{dropped};"
        f" {status['with']} have vectors of {status['model']}, {status['without']} lack them"
    )
    return 0
