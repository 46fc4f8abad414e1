"""`memory doctor [--json] [--fix]`: is memory working here, and if not, what fixes it.

Exit 0 when memory can work, 1 when it cannot (an unreachable store; an embedded database
that is missing, replaced, read-only or corrupt; turns dropped by the spool's bound or
refused by the store; memory switched off; a hook command that no longer runs), with the
command that fixes each problem. Doctor never creates a database it only looks at. `--fix`
runs the repairs that are safe to run unasked: starting a new embedded database where the
old one is gone, taking a replaced file as the store, draining the spool into a store that
takes writes (then clearing the dropped-turns notice), and importing turns a hook missed
from transcripts (for harnesses that can import).
"""

from __future__ import annotations

import argparse
from typing import Any

from memory_core.cli._common import print_json, service

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `memory doctor`."""
    p = subparsers.add_parser("doctor", help="check that memory works here, and say how to fix it if not")
    p.add_argument("--json", action="store_true", help="print the facts as JSON (keys: docs/doctor.md)")
    p.add_argument("--fix", action="store_true", help="drain the spool and import turns hooks missed")
    p.set_defaults(func=cmd_doctor)


def _rules_line(firewall: dict[str, Any]) -> str:
    """The rule set, and when stored records were last scrubbed with which one."""
    current = f"v{firewall['rules']}"
    if firewall["scrubbed_with"] is None:
        scrubbed = "stored records never scrubbed"
    else:
        scope = " (this project)" if firewall.get("scrubbed_scope") == "project" else ""
        scrubbed = f"stored records last scrubbed with v{firewall['scrubbed_with']} at {firewall['scrubbed_at']}{scope}"
    if firewall["stale"]:
        return f"{current}; {scrubbed}, some were stored under an older rule set: run `memory scrub --all`"
    if firewall["scrubbed_with"] is None:
        return f"{current}; every stored record was scrubbed by it at capture"
    return f"{current}; {scrubbed}, none stored under an older rule set since"


def cmd_doctor(args: argparse.Namespace) -> int:
    svc = service()
    report = svc.doctor_report()
    if args.fix:
        fixed = svc.repair(report)
        report = svc.doctor_report()  # what is still wrong after the repairs
        report["fixed"] = fixed
    if args.json:
        print_json(report)
        return 0 if report["ok"] else 1
    store = report["store"]
    state = store.get("state") or ("reachable" if store.get("reachable") else "UNREACHABLE")
    lines = [
        f"memory {report['version']}  ({'enabled' if report['enabled'] else 'DISABLED'})",
        f"store      {store['backend']}  {store['url']}  {state}"
        + (f"  (server {store['server_version']})" if store.get("server_version") else ""),
        f"project    {report['project']['key']}  (from {report['project']['source']})"
        + ("  OFF" if report["project"]["disabled"] else ""),
        f"user       {report['user']}",
        f"retrieval  {report['retrieval']['mode']}, up to {report['retrieval']['max_items']} items"
        f" / {report['retrieval']['max_tokens']} tokens per turn",
    ]
    records = report["records"]
    if records["total"] is not None:
        cap = f", cap {report['max_records']}" if report["max_records"] else ""
        lines.append(f"records    project {records['project']}, user {records['user']}, store {records['total']}{cap}")
    vectors = report["vectors"]
    if vectors["model"] is None:
        lines.append(f"vectors    none: {vectors['problem']}")
    elif vectors["with"] is not None:
        lines.append(
            f"vectors    {vectors['model']}: {vectors['with']} records have them, {vectors['without']} still lack them"
            + (" (the worker fills them in; `memory reindex` does it now)" if vectors["without"] else "")
        )
    counts = report["firewall"]["counts"]
    firewall = ", ".join(f"{k} {v}" for k, v in counts.items()) or "nothing redacted yet"
    lines.append(f"firewall   {'on' if report['firewall']['enabled'] else 'OFF'}: {firewall}")
    lines.append("rules      " + _rules_line(report["firewall"]))
    counters = report["counters"]
    lines.append(
        f"activity   {counters.get('recalls', 0)} recalls ({counters.get('recalls.injected', 0)} injected),"
        f" {counters.get('captures', 0)} captures"
    )
    lines.append(
        f"last       recall {report['last_recall_at'] or 'never'}, capture {report['last_capture_at'] or 'never'}"
    )
    failures = report["failures"]
    lines.append("failures   " + (", ".join(f"{k} {v}" for k, v in sorted(failures.items())) or "none"))
    if report["spool"]["pending"]:
        lines.append(f"spool      {report['spool']['pending']} capture(s) waiting in {report['spool']['path']}")
    if report["spool"]["quarantined"]:
        lines.append(
            f"quarantine {report['spool']['quarantined']} refused capture(s) in {report['spool']['quarantine_path']}"
        )
    for entry in report["harnesses"]:
        if "error" in entry:
            lines.append(f"harness    {entry['harness']}: BROKEN ({entry['error']})")
            continue
        places = [p for p in entry["installed"] if p["installed"]]
        if not places:
            lines.append(f"harness    {entry['display_name']}: not installed (memory install {entry['harness']})")
        for place in places:
            ok = {True: "hook runs", False: "HOOK BROKEN", None: "installed"}[place["runs"]]
            detail = f"  {place['detail']}" if place["detail"] else ""
            lines.append(f"harness    {entry['display_name']} ({place['scope']}): {ok}  {place['path']}{detail}")
    if report["log"]["tail"]:
        lines.append(f"log        {report['log']['path']} (last lines):")
        lines.extend(f"           {line}" for line in report["log"]["tail"][-5:])
    for done in report.get("fixed", []):
        lines.append(f"fixed      {done}")
    for problem in report["problems"]:
        lines.append(f"PROBLEM    {problem['what']}")
        lines.append(f"  fix:     {problem['fix']}")
    print("\n".join(lines))
    return 0 if report["ok"] else 1
