"""What `memory doctor` and the MCP `memory_status` tool report: one dict, documented keys.

Two builders, both reached through `MemoryService` (`status()` and `doctor_report()`), so the
CLI, the MCP server and a UI print the same facts:
- `collect_status`: the store, the project, counters, the spool and the log.
- `doctor_report`: that, plus each installed harness (found through entry points) and whether
  its hook command still runs. `repair` is `doctor --fix`: drain the spool into a reachable
  store and import the turns hooks missed.

Promise: collecting status never raises and never waits on a down store longer than the
configured timeout. Each fact that cannot be read is reported as such (`reachable: false`
with the error), and `problems` lists what stops memory from working, each with the command
that fixes it. `ok` is false exactly when `problems` is non-empty. A harness whose status
raises is reported with its error; it never hides the others.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory_core.harnesses.contract import HasTranscripts, discover_harnesses
from memory_core.project import is_disabled
from memory_core.urls import redact_url
from memory_core.version import __version__

if TYPE_CHECKING:
    from memory_core.service import MemoryService

__all__ = ["collect_status", "doctor_report", "repair", "parse_last_recall"]


def _iso(seconds: str | float | None) -> str | None:
    if seconds in (None, ""):
        return None
    try:
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(float(seconds)))
    except (TypeError, ValueError):
        return None


def parse_last_recall(meta: dict[str, str]) -> dict[str, Any] | None:
    """The last recall as the service recorded it in the store's metadata; None if none or unreadable."""
    try:
        last = json.loads(meta["last_recall"]) if meta.get("last_recall") else None
    except ValueError:
        return None
    return last if isinstance(last, dict) else None


def collect_status(service: MemoryService) -> dict[str, Any]:
    """Every fact `doctor --json` prints. See docs/doctor.md for the keys."""
    config = service.config
    project = service.project()
    problems: list[dict[str, str]] = []
    store: dict[str, Any] = {"url": redact_url(config.url), "backend": config.url.split(":", 1)[0], "reachable": False}
    records: dict[str, int | None] = {"project": None, "user": None, "total": None}
    counters: dict[str, int] = {}
    meta: dict[str, str] = {}
    if not config.enabled:
        problems.append({"what": "memory is switched off (MEMORY_ENABLED=0)", "fix": "unset MEMORY_ENABLED"})
    else:
        try:
            opened = service.store
            store["backend"] = opened.backend
            store["url"] = opened.display_url
            store["server_version"] = opened.ping()
            store["reachable"] = True
            scopes = service.scopes()
            records = {
                "project": opened.count(scopes[:1]),
                "user": opened.count(scopes[1:]),
                "total": opened.count(None),
            }
            counters = opened.counters()
            meta = opened.meta()
        except Exception as exc:  # noqa: BLE001 - doctor reports, it does not crash
            store["error"] = f"{type(exc).__name__}: {exc}"
            store["state"] = "UNREACHABLE" if type(exc).__name__ == "StoreUnavailable" else "BROKEN"
            problems.append(
                {
                    "what": f"the {store['backend']} store at {store['url']} is {store['state'].lower()}: {exc}",
                    "fix": "start the server, or point MEMORY_URL at a reachable store "
                    "(unset it for the embedded default)",
                }
            )
    disabled = is_disabled(config.state_dir, project.key)
    if disabled:
        problems.append({"what": f"memory is off for this project ({project.key})", "fix": "memory on"})
    last_recall = parse_last_recall(meta)
    firewall_counts = {k[len("firewall.") :]: v for k, v in sorted(counters.items()) if k.startswith("firewall.")}
    cap = config.max_records
    if cap and records["project"] is not None and records["project"] > cap:
        problems.append(
            {
                "what": f"{records['project']} records in this project, over MEMORY_MAX_RECORDS={cap}",
                "fix": "memory prune",
            }
        )
    return {
        "ok": not problems,
        "version": __version__,
        "enabled": config.enabled,
        "store": store,
        "project": {"key": project.key, "source": project.source, "root": project.root, "disabled": disabled},
        "user": config.user,
        "retrieval": {"mode": "bm25", "max_items": config.max_items, "max_tokens": config.max_tokens},
        "records": records,
        "max_records": cap,
        "firewall": {"enabled": config.firewall, "counts": firewall_counts},
        "counters": {k: v for k, v in sorted(counters.items()) if not k.startswith("firewall.")},
        "last_recall": last_recall,
        "last_recall_at": _iso(meta.get("last_recall_at")),
        "last_capture_at": _iso(meta.get("last_capture_at")),
        "failures": service.logbook.failures(),
        "spool": {"path": str(config.spool_path), "pending": len(service.spool.entries())},
        "log": {"path": str(config.log_path), "tail": service.logbook.tail(10)},
        "warnings": list(config.warnings),
        "problems": problems,
    }


def doctor_report(service: MemoryService, project_dir: Path | None = None) -> dict[str, Any]:
    """The status dict plus each installed harness and whether its hook command still runs."""
    report = collect_status(service)
    harnesses, broken = discover_harnesses()
    entries: list[dict[str, Any]] = []
    for name, harness in sorted(harnesses.items()):
        try:
            places = harness.status(project_dir=project_dir or Path.cwd())
        except Exception as exc:  # noqa: BLE001 - one harness's bug must not hide the others
            entries.append({"harness": name, "error": f"{type(exc).__name__}: {exc}", "installed": []})
            continue
        installed = [
            {
                "scope": p.scope,
                "path": p.path,
                "installed": p.installed,
                "command": p.command,
                "runs": p.runs,
                "detail": p.detail,
            }
            for p in places
        ]
        entries.append({"harness": name, "display_name": harness.display_name, "installed": installed})
        for place in places:
            if place.installed and place.runs is False:
                report["problems"].append(
                    {
                        "what": f"{harness.display_name} ({place.scope}) hook command no longer runs: {place.detail}",
                        "fix": f"memory install {name} --scope {place.scope}",
                    }
                )
    for name, reason in sorted(broken.items()):
        entries.append({"harness": name, "error": reason, "installed": []})
    report["harnesses"] = entries
    report["ok"] = not report["problems"]
    return report


def repair(service: MemoryService, report: dict[str, Any]) -> list[str]:
    """`doctor --fix`: the repairs safe to run unasked, given a fresh `report`; one line per repair done."""
    done: list[str] = []
    if not report["store"].get("reachable"):
        return done
    if report["spool"]["pending"]:
        drained = service.drain_spool()
        done.append(f"wrote {drained} spooled capture(s) to the store")
    harnesses, _ = discover_harnesses()
    for name, harness in sorted(harnesses.items()):
        if isinstance(harness, HasTranscripts):
            from memory_core.harnesses.importing import import_since_last

            count = import_since_last(service, harness.transcripts())
            done.append(f"{name}: imported {count} turn(s) hooks had missed")
    return done
