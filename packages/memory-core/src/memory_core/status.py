"""What `memory doctor` and the MCP `memory_status` tool report: one dict, documented keys.

Two builders, both reached through `MemoryService` (`status()` and `doctor_report()`), so the
CLI, the MCP server and a UI print the same facts:
- `collect_status`: the store, the project, counters, the spool and the log.
- `doctor_report`: that, plus each installed harness (found through entry points) and whether
  its hook command still runs. `repair` is `doctor --fix`: start a new embedded database where
  the old one is gone, take a replaced file as the store, drain the spool into a store that
  takes writes (then clear the dropped-turns notice), and import the turns hooks missed.

Promise: collecting status never raises, never waits on a down store longer than the
configured timeout, and never creates an embedded database it only looks at: the file's state
(`store.sqlite_health`) is checked first, and a missing, corrupt, read-only or replaced file is
a problem with the command that fixes it. Each fact that cannot be read is reported as such (`reachable: false`
with the error), and `problems` lists what stops memory from working, each with the command
that fixes it. `ok` is false exactly when `problems` is non-empty. A harness whose status
raises is reported with its error; it never hides the others.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from memory_core.harnesses.contract import HasTranscripts, ReadsTimeline, discover_harnesses
from memory_core.harnesses.importing import Capturing, import_since_last
from memory_core.project import is_disabled
from memory_core.urls import redact_url
from memory_core.utc import utc_or_none
from memory_core.version import __version__

if TYPE_CHECKING:
    from memory_core.embedding import Embedder
    from memory_core.localstate.logbook import Logbook
    from memory_core.localstate.spool import Spool
    from memory_core.models import Scope, ScopeKind
    from memory_core.project import ProjectIdentity
    from memory_core.store.base import Store
    from memory_core.store.sqlite_health import FileHealth


class MemoryService(Capturing, Protocol):
    """What the reports need of `memory_core.service.MemoryService`, which calls them with itself.

    A protocol, so this module sits below the service rather than in a circle with it.
    """

    logbook: Logbook
    spool: Spool

    @property
    def store(self) -> Store:
        """The open store."""
        ...

    def project(self, cwd: str | None = None) -> ProjectIdentity:
        """The project of a folder."""
        ...

    def scopes(self, cwd: str | None = None, kind: ScopeKind | None = None) -> list[Scope]:
        """The scopes recall reads."""
        ...

    def drain_spool(self) -> int:
        """Write what waits in the spool."""
        ...

    @property
    def embedder(self) -> Embedder | None:
        """The embedding model, or None (BM25 alone)."""
        ...

    @property
    def embedder_problem(self) -> str | None:
        """Why there is no embedding model, or None."""
        ...

    def vector_status(self) -> dict[str, Any]:
        """Records with and without vectors of this process's model."""
        ...


__all__ = ["collect_status", "doctor_report", "repair", "parse_last_recall"]


def parse_last_recall(meta: dict[str, str]) -> dict[str, Any] | None:
    """The last recall as the service recorded it in the store's metadata; None if none or unreadable."""
    try:
        last = json.loads(meta["last_recall"]) if meta.get("last_recall") else None
    except ValueError:
        return None
    return last if isinstance(last, dict) else None


def firewall_rules(meta: dict[str, str], total: int | None) -> dict[str, Any]:
    """Which rule set scrubbed the stored records: `rules` (the current version),
    `scrubbed_with` / `scrubbed_at` (the last `memory scrub`, or None), and `stale`: whether some
    record may have been stored under an older rule set (or with the firewall off) since the
    last scrub with the current one. A store with records from before versions were recorded
    counts as scrubbed by none.
    """
    from memory_core.firewall import RULES_VERSION

    scrubbed_with = int(meta["firewall.scrubbed_rules"]) if meta.get("firewall.scrubbed_rules", "").isdigit() else None
    try:
        scrubbed_at = float(meta.get("firewall.scrubbed_at", ""))
    except ValueError:
        scrubbed_at = None
    covered = scrubbed_at if scrubbed_with is not None and scrubbed_with >= RULES_VERSION else None
    captured = {k[len("firewall.captured.") :]: v for k, v in meta.items() if k.startswith("firewall.captured.")}
    stale = False
    for rules, at in captured.items():
        if rules.isdigit() and int(rules) >= RULES_VERSION:
            continue
        try:
            when = float(at)
        except ValueError:
            when = float("inf")
        stale = stale or covered is None or when > covered
    if not captured and total and covered is None:
        stale = True  # records stored before captures recorded their rule set
    return {
        "rules": RULES_VERSION,
        "scrubbed_with": scrubbed_with,
        "scrubbed_at": utc_or_none(scrubbed_at),
        "scrubbed_scope": meta.get("firewall.scrubbed_scope"),
        "stale": stale,
    }


def collect_status(service: MemoryService, *, integrity: bool = True) -> dict[str, Any]:
    """Every fact `doctor --json` prints. See docs/doctor.md for the keys.

    `integrity=False` skips the embedded file's page-by-page check (see `inspect_file`).
    """
    config = service.config
    project = service.project()
    problems: list[dict[str, str]] = []
    store: dict[str, Any] = {"url": redact_url(config.url), "backend": config.url.split(":", 1)[0], "reachable": False}
    records: dict[str, int | None] = {"project": None, "user": None, "total": None}
    counters: dict[str, int] = {}
    meta: dict[str, str] = {}
    vectors: dict[str, Any] = {"model": None, "with": None, "without": None, "problem": None}
    health = _file_health(service, integrity=integrity)
    if health is not None:
        store["file"] = health.state
        if health.broken:
            store["state"] = health.state.upper()
            problems.append({"what": health.what, "fix": health.fix})
    if not config.enabled:
        problems.append({"what": "memory is switched off (MEMORY_ENABLED=0)", "fix": "unset MEMORY_ENABLED"})
    elif health is not None and health.state in ("new", "missing", "corrupt"):
        # Opening would create the file (or fail on a broken one): report what is there instead.
        if health.state == "new":
            store["state"] = "not created yet (the first capture creates it)"
            store["reachable"] = True
            records = {"project": 0, "user": 0, "total": 0}
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
            if config.enabled:
                vectors = service.vector_status()
        except Exception as exc:  # noqa: BLE001 - doctor reports, it does not crash
            store["error"] = f"{type(exc).__name__}: {exc}"
            if health is not None and health.broken:
                pass  # already reported, with its own fix
            else:
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
    if config.enabled and config.embeddings and service.embedder is None:
        from memory_core.embedding import FIX

        problems.append(
            {"what": f"recall ranks by BM25 alone: {service.embedder_problem}", "fix": f"{FIX}, or MEMORY_EMBEDDINGS=0"}
        )
    vectors["model"], vectors["problem"] = (
        (service.embedder.model_id if service.embedder is not None else None),
        service.embedder_problem,
    )
    spool = _spool_status(service, problems)
    return {
        "ok": not problems,
        "version": __version__,
        "enabled": config.enabled,
        "store": store,
        "project": {"key": project.key, "source": project.source, "root": project.root, "disabled": disabled},
        "user": config.user,
        "retrieval": {
            "mode": "bm25+vectors" if service.embedder is not None else "bm25",
            "max_items": config.max_items,
            "max_tokens": config.max_tokens,
        },
        "vectors": vectors,
        "records": records,
        "max_records": cap,
        "firewall": {"enabled": config.firewall, "counts": firewall_counts, **firewall_rules(meta, records["total"])},
        "counters": {k: v for k, v in sorted(counters.items()) if not k.startswith("firewall.")},
        "last_recall": last_recall,
        "last_recall_at": utc_or_none(meta.get("last_recall_at")),
        "last_capture_at": utc_or_none(meta.get("last_capture_at")),
        "failures": service.logbook.failures(),
        "spool": spool,
        "log": {"path": str(config.log_path), "tail": service.logbook.tail(10)},
        "warnings": list(config.warnings),
        "problems": problems,
    }


def doctor_report(service: MemoryService, project_dir: Path | None = None, *, integrity: bool = True) -> dict[str, Any]:
    """The status dict plus each installed harness and whether its hook command still runs."""
    report = collect_status(service, integrity=integrity)
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
    file_state = report["store"].get("file")
    if file_state == "replaced":
        _adopt_file(service)
        done.append("took the database file now at the path as memory's store")
    if file_state == "missing":
        service.store.ping()  # creates the new file (and notes it as memory's)
        done.append(f"started a new database at {redact_url(service.config.url)}")
    elif not report["store"].get("reachable"):
        return done
    if report["spool"]["pending"]:
        drained = service.drain_spool()
        done.append(f"wrote {drained} spooled capture(s) to the store")
    if report["spool"]["dropped"] and not service.spool.pending_bytes():
        service.spool.clear_dropped()
        done.append("cleared the notice of turns the spool's bound dropped")
    harnesses, _ = discover_harnesses()
    for name, harness in sorted(harnesses.items()):
        if isinstance(harness, HasTranscripts):
            reader = harness if isinstance(harness, ReadsTimeline) else None
            count = import_since_last(service, harness.transcripts(), timeline=reader)
            done.append(f"{name}: imported {count} turn(s) hooks had missed")
    return done


def _file_health(service: MemoryService, *, integrity: bool = True) -> FileHealth | None:
    """The embedded store's file state, looked at without opening the store; None for a server."""
    if not service.config.url.lower().startswith("sqlite:"):
        return None
    try:
        from memory_core.store._sqlite_schema import path_from_url
        from memory_core.store.sqlite_health import inspect_file

        path = path_from_url(service.config.url)
        return None if path == ":memory:" else inspect_file(path, service.config.state_dir, integrity=integrity)
    except Exception:  # noqa: BLE001 - an unusable URL is reported when the store is opened
        return None


def _spool_status(service: MemoryService, problems: list[dict[str, str]]) -> dict[str, Any]:
    """The spool's facts; turns dropped by its bound and refused turns are problems."""
    spool = service.spool
    pending = spool.count()
    dropped = spool.dropped()
    quarantined = spool.quarantined()
    if dropped:
        problems.append(
            {
                "what": f"{dropped} turn(s) were dropped: the spool reached its bound"
                f" ({spool.max_bytes // (1024 * 1024)} MiB, MEMORY_SPOOL_MAX_BYTES) while the store took no writes",
                "fix": "make the store take writes again (see the other problems), then `memory doctor --fix`"
                " to write the spool and clear this notice",
            }
        )
    if quarantined:
        problems.append(
            {
                "what": f"{quarantined} turn(s) the store refused are kept in {spool.quarantine_path}"
                " (the log says why)",
                "fix": f"memory restore {spool.quarantine_path} once the cause is fixed, then delete that file",
            }
        )
    return {
        "path": str(spool.path),
        "pending": pending,
        "bytes": spool.pending_bytes(),
        "max_bytes": spool.max_bytes,
        "dropped": dropped,
        "quarantined": quarantined,
        "quarantine_path": str(spool.quarantine_path),
    }


def _adopt_file(service: MemoryService) -> None:
    import os

    from memory_core.store._sqlite_schema import path_from_url
    from memory_core.store.sqlite_health import record_created

    path = path_from_url(service.config.url)
    info = os.stat(path)
    record_created(service.config.state_dir, path, info.st_dev, info.st_ino)
