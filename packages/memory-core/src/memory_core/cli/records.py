"""Commands over stored records: save, search, forget, stats, last, prune, scrub, export, restore.

Every command works in the current project's and user's scopes unless it says otherwise
(`export --all`, `scrub --all`). Nothing is deleted except by `forget` and `prune`.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from memory_core.cli._common import iso, parse_when, print_json, service
from memory_core.spool import record_from_json, record_to_json

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
    from memory_core.errors import StoreUnavailable

    return StoreUnavailable(status["store"].get("error", "the store is unreachable"))


def cmd_last(args: argparse.Namespace) -> int:
    svc = service()
    status = svc.status()
    last = status.get("last_recall")
    if args.json:
        print_json(last or {})
        return 0
    if not last:
        print("no recall yet")
        return 0
    print(f"{iso(float(last['at']))}  {last['harness']}  session {last['session']}")
    print(f"query: {last['query']!r}")
    print(f"{len(last['injected'])} injected of {last['candidates']} candidates")
    records = {r.id: r for r in svc.store.get([item["id"] for item in last["injected"]])}
    for item in last["injected"]:
        record = records.get(item["id"])
        first = record.text.splitlines()[0][:100] if record else "(since forgotten)"
        print(f"  {item['id']}  score {item['score']}  {first}")
    return 0


def cmd_prune(args: argparse.Namespace) -> int:
    svc = service()
    keep = args.keep if args.keep is not None else svc.config.max_records
    if not keep:
        print("nothing to prune: no cap set (MEMORY_MAX_RECORDS or --keep N)")
        return 0
    scope = svc.scopes(kind="project")
    records = list(svc.store.scan(scope))
    excess = records[: max(0, len(records) - keep)]  # scan is oldest first
    if args.dry_run:
        print(f"would delete {len(excess)} of {len(records)} records (keeping the newest {keep})")
        return 0
    deleted = svc.store.delete([r.id for r in excess]) if excess else 0
    if deleted:
        svc.purge_log()
    print(f"deleted {deleted} of {len(records)} records (kept the newest {keep})")
    return 0


def cmd_scrub(args: argparse.Namespace) -> int:
    from memory_core.tokenizer import index_terms

    svc = service()
    scopes = None if args.all else svc.scopes()
    changed = 0
    counts: dict[str, int] = {}
    for record in list(svc.store.scan(scopes)):
        scrubbed = svc.firewall.scrub(record.text)
        if scrubbed.text == record.text:
            continue
        changed += 1
        for kind, n in scrubbed.counts.items():
            counts[f"firewall.{kind}"] = counts.get(f"firewall.{kind}", 0) + n
        if not args.dry_run:
            clean = replace(record, text=scrubbed.text)
            svc.store.put(clean, index_terms(clean.text) if clean.searchable else {}, replace=True)
    if not args.dry_run and counts:
        svc.store.bump(counts)
    if not args.dry_run and changed:
        svc.purge_log()
    verb = "would redact" if args.dry_run else "redacted"
    print(f"{verb} secrets in {changed} record{'s' if changed != 1 else ''}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    svc = service()
    scopes = None if args.all else svc.scopes()
    out = sys.stdout if args.file == "-" else open(args.file, "w", encoding="utf-8")  # noqa: SIM115
    count = 0
    try:
        for record in svc.store.scan(scopes):
            out.write(json.dumps(record_to_json(record), ensure_ascii=False, sort_keys=True) + "\n")
            count += 1
    finally:
        if out is not sys.stdout:
            out.close()
    if args.file != "-":
        print(f"exported {count} records to {args.file}")
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    from memory_core.tokenizer import index_terms

    svc = service()
    written = skipped = 0
    with Path(args.file).open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                record = record_from_json(json.loads(line))
            except (ValueError, KeyError, TypeError) as exc:
                raise ValueError(f"{args.file}:{number}: not a record written by export ({exc})") from None
            # Restored text passes the firewall too: an export may predate it, or be edited.
            record = replace(record, text=svc.firewall.scrub(record.text).text)
            if svc.store.put(record, index_terms(record.text) if record.searchable else {}):
                written += 1
            else:
                skipped += 1
    print(f"restored {written} records ({skipped} already present)")
    return 0
