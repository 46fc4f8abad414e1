"""What `memory doctor` and the MCP `memory_status` tool report: one dict, documented keys.

Promise: collecting status never raises and never waits on a down store longer than the
configured timeout. Each fact that cannot be read is reported as such (`reachable: false`
with the error), and `problems` lists what stops memory from working, each with the command
that fixes it. `ok` is false exactly when `problems` is non-empty.
Installed harnesses are added by the CLI (`doctor`), which is where entry points are scanned.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

from memory_core.config import display_url
from memory_core.project import is_disabled
from memory_core.version import __version__

if TYPE_CHECKING:
    from memory_core.service import MemoryService

__all__ = ["collect_status"]


def _iso(seconds: str | float | None) -> str | None:
    if seconds in (None, ""):
        return None
    try:
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(float(seconds)))
    except (TypeError, ValueError):
        return None


def collect_status(service: MemoryService) -> dict[str, Any]:
    """Every fact `doctor --json` prints. See docs/doctor.md for the keys."""
    config = service.config
    project = service.project()
    problems: list[dict[str, str]] = []
    store: dict[str, Any] = {"url": display_url(config.url), "backend": config.url.split(":", 1)[0], "reachable": False}
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
    last_recall: dict[str, Any] | None = None
    if meta.get("last_recall"):
        try:
            last_recall = json.loads(meta["last_recall"])
        except ValueError:
            last_recall = None
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
