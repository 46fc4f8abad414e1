"""Commands over stored records: save, search, forget, stats, last, prune, scrub, export, restore.

Every command works in the current project's and user's scopes unless it says otherwise
(`export --all`, `scrub --all`). Nothing is deleted except by `forget` and `prune`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memory_core.cli._common import iso, parse_when, print_json, service
from memory_core.errors import StoreUnavailable
from memory_core.maintenance import Exported, read_entry

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the record commands."""
    p = subparsers.add_parser("save", help="save a memory on purpose")
    p.add_argument("text", nargs="+", help="what to remember")
    p.add_argument("--scope", choices=("project", "user"), default="project")
    p.set_defaults(func=cmd_save)

    p = subparsers.add_parser("search", help="search memories of this project and user")
    p.add_argument("query", nargs="+")
    p.add_argument("--limit", type=int, default=10)
    p.add_argument("--scope", choices=("project", "user"), default=None)
    p.add_argument("--mine", action="store_true", help="only what I (MEMORY_USER) captured or saved")
    p.add_argument("--author", default=None, help="only what this author captured or saved")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_search)

    p = subparsers.add_parser("forget", help="delete memories by id, session or age")
    p.add_argument("ids", nargs="*")
    p.add_argument("--session", default=None, help="every memory of this harness session")
    p.add_argument("--before", default=None, help="every memory older than this (2026-11-30, 30d)")
    p.set_defaults(func=cmd_forget)

    p = subparsers.add_parser("stats", help="how many memories, and what memory has done")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_stats)

    p = subparsers.add_parser("last", help="what was injected on the last turn, and why")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_last)

    p = subparsers.add_parser("prune", help="delete the oldest memories beyond a cap (MEMORY_MAX_RECORDS)")
    p.add_argument(
        "--keep", type=int, default=None, help="records to keep in this project (default MEMORY_MAX_RECORDS)"
    )
    p.add_argument("--dry-run", action="store_true")
    p.set_defaults(func=cmd_prune)

    p = subparsers.add_parser("scrub", help="run the secret firewall over stored memories")
    p.add_argument("--all", action="store_true", help="every scope in the store, not just this project and user")
    p.add_argument("--dry-run", action="store_true")
    p.set_defaults(func=cmd_scrub)

    p = subparsers.add_parser("export", help="write memories as JSON lines")
    p.add_argument("file", nargs="?", default="-", help="output file (default stdout)")
    p.add_argument("--all", action="store_true", help="every scope in the store")
    p.add_argument(
        "--no-events", action="store_true", help="turns only, without their events (a file older versions restore)"
    )
    p.set_defaults(func=cmd_export)

    p = subparsers.add_parser("restore", help="read memories from JSON lines written by export")
    p.add_argument("file")
    p.set_defaults(func=cmd_restore)


def cmd_save(args: argparse.Namespace) -> int:
    record = service().save(" ".join(args.text), scope=args.scope)
    print(f"saved {record.id} ({record.scope.kind})")
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    svc = service()
    author = svc.config.user if args.mine else args.author
    hits = svc.search(" ".join(args.query), scope=args.scope, limit=args.limit, author=author)
    if args.json:
        print_json(
            [
                {
                    "id": h.record.id,
                    "score": round(h.score, 4),
                    "scope": h.record.scope.kind,
                    "author": h.record.author,
                    "created_at": iso(h.record.created_at),
                    "session": h.record.session_id,
                    "text": h.record.text,
                    "excerpt": h.excerpt,
                }
                for h in hits
            ]
        )
        return 0
    if not hits:
        print("no memories match")
        return 0
    for hit in hits:
        record = hit.record
        print(f"{record.id}  {hit.score:.2f}  {iso(record.created_at)}  {record.scope.kind}  {record.author}")
        for line in hit.excerpt.splitlines():
            print(f"    {line}")
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    if not (args.ids or args.session or args.before):
        raise ValueError("name what to forget: ids, --session ID or --before DATE")
    before = parse_when(args.before) if args.before else None
    deleted = service().forget(args.ids, session_id=args.session, before=before)
    print(f"forgot {deleted} memor{'y' if deleted == 1 else 'ies'}")
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    status = service().status()
    if not status["store"].get("reachable"):
        raise _unreachable(status)
    stats = {
        "records": status["records"]["project"] + status["records"]["user"],
        "by_scope": status["records"],
        "counters": status["counters"],
        "firewall": status["firewall"]["counts"],
        "project": status["project"]["key"],
        "last_recall_at": status["last_recall_at"],
        "last_capture_at": status["last_capture_at"],
    }
    if args.json:
        print_json(stats)
        return 0
    print(f"project   {stats['project']}")
    print(f"records   {stats['records']} (project {status['records']['project']}, user {status['records']['user']})")
    for name, value in sorted(stats["counters"].items()):
        print(f"{name:<24}{value}")
    for kind, value in sorted(stats["firewall"].items()):
        print(f"firewall.{kind:<15}{value}")
    return 0


def _unreachable(status: dict[str, Any]) -> Exception:
    return StoreUnavailable(status["store"].get("error", "the store is unreachable"))


def cmd_last(args: argparse.Namespace) -> int:
    svc = service()
    last = svc.last_recall()
    if args.json:
        print_json(last or {})
        return 0
    if not last:
        print("no recall yet")
        return 0
    print(f"{iso(float(last['at']))}  {last['harness']}  session {last['session']}")
    print(f"query: {last['query']!r}")
    print(f"{len(last['injected'])} injected of {last['candidates']} candidates")
    if not last["injected"] and last.get("why"):
        print(f"nothing injected: {last['why']}")
    decision = last.get("decision") or {}
    if decision.get("mode") == "vectors":
        from memory_core.retrieval.decision import MARGIN  # no numpy: the bank loads only where a model runs

        # Below MARGIN: the store's own bar (retrieval.decision.Bank.bar).
        own = ", this store's own bar" if float(decision.get("margin", MARGIN)) < MARGIN else ""
        print(
            f"decision: similarity {decision.get('similarity')} vs generic prompts {decision.get('generic')}"
            f" (support {decision.get('support')}, needs > {decision.get('margin')}"
            f"{own})"
        )
    elif decision:
        print("decision: BM25 alone (no embedding model or no vectors yet)")
    injected = {item["id"] for item in last["injected"]}
    shown = last["injected"] + [c for c in last.get("ranked", ()) if c["id"] not in injected]
    records = {r.id: r for r in svc.records([item["id"] for item in shown])}
    for item in shown:
        record = records.get(item["id"])
        first = record.text.splitlines()[0][:100] if record else "(since forgotten)"
        mark = "injected" if item["id"] in injected else "not injected"
        print(f"  {item['id']}  {mark}  similarity {item.get('similarity')}  bm25 {item.get('bm25')}  {first}")
    return 0


def cmd_prune(args: argparse.Namespace) -> int:
    report = service().prune(args.keep, dry_run=args.dry_run)
    if not report.keep:
        print("nothing to prune: no cap set (MEMORY_MAX_RECORDS or --keep N)")
    elif report.dry_run:
        print(f"would delete {report.excess} of {report.total} records (keeping the newest {report.keep})")
    else:
        print(f"deleted {report.deleted} of {report.total} records (kept the newest {report.keep})")
    if report.events_turns:
        verb = "would drop" if report.dry_run else "dropped"
        print(
            f"{verb} the events of the {report.events_turns} oldest turn(s) ({report.events_bytes / 1e6:.1f} MB),"
            " keeping the project's events within MEMORY_EVENTS_MAX_BYTES; the turns stay"
        )
    return 0


def cmd_scrub(args: argparse.Namespace) -> int:
    report = service().scrub(every_scope=args.all, dry_run=args.dry_run)
    verb = "would redact" if report.dry_run else "redacted"
    print(f"{verb} secrets in {report.changed} record{'s' if report.changed != 1 else ''}")
    if report.spooled:
        print(f"and in {report.spooled} spooled capture{'s' if report.spooled != 1 else ''} waiting for the store")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    lines = service().export_lines(every_scope=args.all, events=not args.no_events)
    out = sys.stdout if args.file == "-" else open(args.file, "w", encoding="utf-8")  # noqa: SIM115
    records = events = 0
    try:
        for line in lines:
            out.write(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n")
            records += 1
            events += len(line.get("events", ()))
    finally:
        if out is not sys.stdout:
            out.close()
    if args.file != "-":
        print(f"exported {records} records and {events} events to {args.file}")
    return 0


def _read_export(path: str) -> Iterator[Exported]:
    """The records, with their events, of a file `export` wrote.

    Raises `ValueError` naming the line for one it did not write.
    """
    with Path(path).open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                yield read_entry(json.loads(line))
            except (ValueError, KeyError, TypeError) as exc:
                raise ValueError(f"{path}:{number}: not a record written by export ({exc})") from None


def cmd_restore(args: argparse.Namespace) -> int:
    report = service().restore(_read_export(args.file))
    print(f"restored {report.written} records ({report.skipped} already present) and {report.events} events")
    if report.events_left:
        print(f"left out {report.events_left} events: MEMORY_EVENTS=0 keeps no events")
    return 0
