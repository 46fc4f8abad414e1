"""`memory import <harness> (--all | --session ID | --transcript PATH | --since-last) [--json]`.

Reads a harness's own session files and stores their turns (see `memory_core.harnesses.importing` and
docs/import.md). `--since-last` and `--session` continue from each file's stored offset;
`--all` and `--transcript` read from the start (dedupe keeps that from storing anything
twice). A progress bar goes to stderr when it is a terminal; the summary line to stdout.

Exit 0 when everything was read, 1 when the run stopped early (the store became unreachable)
or the harness cannot import.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TextIO

from memory_core.cli._common import print_json, service

__all__ = ["register", "ProgressBar"]

_BAR_WIDTH = 30
_REDRAW_S = 0.1


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `memory import`."""
    p = subparsers.add_parser("import", help="store the turns of past sessions from a harness's transcripts")
    p.add_argument("harness", help="claude or codex")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--all", action="store_true", help="every transcript, read from its start")
    which.add_argument("--session", metavar="ID", help="the transcripts of one session")
    which.add_argument("--transcript", metavar="PATH", help="one transcript file, read from its start")
    which.add_argument("--since-last", action="store_true", help="what was added since the last import (doctor --fix)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=cmd_import)


class ProgressBar:
    """A one-line bar redrawn in place on a terminal, at most ten times a second; silent otherwise."""

    def __init__(self, label: str, stream: TextIO | None = None) -> None:
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty()
        self._drawn_at = 0.0
        self._drawn = False

    def __call__(self, done: int, total: int, stored: int) -> None:
        """Redraw for `done` of `total` bytes read and `stored` turns stored."""
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._drawn_at < _REDRAW_S and done < total:
            return
        self._drawn_at = now
        fraction = done / total if total else 1.0
        filled = int(fraction * _BAR_WIDTH)
        bar = "#" * filled + "-" * (_BAR_WIDTH - filled)
        self.stream.write(
            f"\r{self.label} [{bar}] {fraction:4.0%} {done / 1e6:.1f}/{total / 1e6:.1f} MB, {stored} stored"
        )
        self.stream.flush()
        self._drawn = True

    def close(self) -> None:
        """End the bar's line, if one was drawn."""
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()


def cmd_import(args: argparse.Namespace) -> int:
    from memory_core.cli.harnesses import load
    from memory_core.harnesses.contract import HasTranscripts, ReadsTimeline
    from memory_core.harnesses.importing import TranscriptSource, run_import

    harness = load(args.harness)
    source = harness.transcripts() if isinstance(harness, HasTranscripts) else None
    if not isinstance(source, TranscriptSource):
        raise ValueError(f"{harness.display_name} keeps no transcripts memory can import")
    svc = service()
    if not svc.config.enabled:
        raise ValueError("memory is switched off (MEMORY_ENABLED=0); nothing was imported")
    if args.transcript:
        path = Path(args.transcript).expanduser()
        if not path.is_file():
            raise ValueError(f"no transcript at {path}")
        paths = [path]
    else:
        paths = source.find(session=args.session)
        if args.session and not paths:
            raise ValueError(f"no {harness.display_name} transcript of session {args.session!r} was found")
    bar = ProgressBar(f"{args.harness}:")
    try:
        report = run_import(
            svc,
            source,
            paths,
            from_start=bool(args.all or args.transcript),
            progress=bar,
            timeline=harness if isinstance(harness, ReadsTimeline) else None,
        )
    finally:
        bar.close()
    if args.json:
        print_json(report.as_dict())
    else:
        print(report.summary())
    return 1 if report.stopped else 0
