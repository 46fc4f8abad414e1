"""Every URL form reaches every place memory shows a URL without its credentials.

The forms: a user and password, a lone token (`redis://TOKEN@host`), credential query
parameters, a percent-encoded password, and a password holding `@`, `#`, `/` and `:`. The
places: `redact_url` itself, `memory doctor` (text and `--json`, which is also what the MCP
`memory_status` tool returns: the same `doctor_report`), a log line quoting the URL, and the
error message of the store the URL names (a ConfigError or an unreachable server). The
secret firewall's URL rule reads the same userinfo, so a turn quoting the URL loses the
same password.

Servers are never reached: the PostgreSQL URLs carry a schema name the store refuses before
connecting, the Redis URLs name port 1 on 127.0.0.1 (refused at once).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from memory_core.config import Config
from memory_core.errors import ConfigError, StoreError
from memory_core.firewall import Firewall
from memory_core.service import MemoryService
from memory_core.store.postgres import PostgresStore
from memory_core.store.redis import RedisStore
from memory_core.urls import find_userinfo, redact_url, redact_urls_in

FORMS: dict[str, tuple[str, tuple[str, ...], str]] = {
    # name: (URL, what must never show, what redact_url shows)
    "user-password": (
        "postgresql://alice:Pw-9xQ2zL@127.0.0.1:1/app",
        ("alice", "Pw-9xQ2zL"),
        "postgresql://***@127.0.0.1:1/app",
    ),
    "token-only": (
        "redis://Tk7Q9zX2mB4nL6pR8sV1@127.0.0.1:1/2",
        ("Tk7Q9zX2mB4nL6pR8sV1",),
        "redis://***@127.0.0.1:1/2",
    ),
    "query-parameters": (
        "postgresql://127.0.0.1:1/app?sslmode=require&password=Qp-3vN8w&sslpassword=Ss-4kM7y",
        ("Qp-3vN8w", "Ss-4kM7y"),
        "postgresql://127.0.0.1:1/app?sslmode=require&password=***&sslpassword=***",
    ),
    "redis-token-parameter": (
        "rediss://default:Rd-5hJ8q@127.0.0.1:1/3?token=Tq-6gH9r",
        ("default:", "Rd-5hJ8q", "Tq-6gH9r"),
        "rediss://***@127.0.0.1:1/3?token=***",
    ),
    "percent-encoded": (
        "postgresql://alice:p%40ss%23w0rd%2Fx@127.0.0.1:1/app",
        ("alice", "p%40ss%23w0rd%2Fx", "p@ss#w0rd/x"),
        "postgresql://***@127.0.0.1:1/app",
    ),
    "at-and-hash-in-password": (
        "postgresql://alice:p@ss#w/rd:9?x@127.0.0.1:1/app",
        ("alice", "p@ss#w/rd:9?x", "ss#w"),
        "postgresql://***@127.0.0.1:1/app",
    ),
}
_PG_FORMS = [name for name, (url, _, _) in FORMS.items() if url.startswith("postgresql")]
_REDIS_FORMS = [name for name, (url, _, _) in FORMS.items() if url.startswith("redis")]


def _shown(text: str, secrets: tuple[str, ...]) -> list[str]:
    return [secret for secret in secrets if secret in text]


@pytest.mark.parametrize("name", FORMS)
def test_redact_url_shows_scheme_host_and_path_and_nothing_of_the_credentials(name: str) -> None:
    url, secrets, shown = FORMS[name]

    assert redact_url(url) == shown
    assert _shown(redact_url(url), secrets) == []
    assert redact_url(shown) == shown  # idempotent
    assert redact_urls_in(f"connecting to {url} failed") == f"connecting to {shown} failed"


@pytest.mark.parametrize("name", FORMS)
def test_the_firewall_reads_the_same_userinfo_as_redact_url(name: str) -> None:
    url, _, _ = FORMS[name]
    userinfo = find_userinfo(url, url.index("://") + 3, len(url))
    scrubbed = Firewall().scrub(f"DATABASE_URL={url}").text

    if userinfo is not None and userinfo.password is not None:
        start, end = userinfo.password
        assert url[start:end] not in scrubbed
        assert "[REDACTED:url-password]@127.0.0.1:1" in scrubbed
    assert "127.0.0.1:1" in scrubbed


def _memory(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "memory_core.cli", *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env=env,
    )
    return done.stdout + done.stderr


def _environment(tmp_path: Path, url: str) -> dict[str, str]:
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env.update(
        {
            "MEMORY_URL": url,
            "MEMORY_STATE_DIR": str(tmp_path / "state"),
            "MEMORY_PROJECT": "url-redaction-test",
            "MEMORY_PG_SCHEMA": "not a schema",  # refused before any connection
            "MEMORY_TIMEOUT": "0.5",
        }
    )
    return env


@pytest.mark.parametrize("name", FORMS)
def test_doctor_text_and_json_show_the_url_without_credentials(tmp_path: Path, name: str) -> None:
    url, secrets, shown = FORMS[name]
    env = _environment(tmp_path, url)

    text = _memory(env, "doctor")
    report = json.loads(_memory(env, "doctor", "--json"))

    assert report["store"]["url"] == shown
    assert report["store"]["reachable"] is False
    assert shown in text
    assert _shown(text, secrets) == []
    assert _shown(json.dumps(report), secrets) == []


@pytest.mark.parametrize("name", FORMS)
def test_the_status_report_mcp_returns_and_the_log_hold_no_credentials(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    url, secrets, shown = FORMS[name]
    for key, value in _environment(tmp_path, url).items():
        if key.startswith("MEMORY_"):
            monkeypatch.setenv(key, value)
    svc = MemoryService(Config.from_env(), cwd=str(tmp_path))

    report = svc.doctor_report(tmp_path)  # what memory_status returns
    svc.logbook.error("doctor", RuntimeError(f"could not reach {url}: timeout"))
    log = Path(svc.config.log_path).read_text(encoding="utf-8")

    assert report["store"]["url"] == shown
    assert _shown(json.dumps(report, default=str), secrets) == []
    assert shown in log
    assert _shown(log, secrets) == []


@pytest.mark.parametrize("name", _PG_FORMS)
def test_the_postgres_store_names_its_url_without_credentials(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    url, secrets, shown = FORMS[name]
    monkeypatch.setenv("MEMORY_PG_SCHEMA", "memory")
    store = PostgresStore.from_url(url, timeout=0.5)
    assert store.display_url == shown

    monkeypatch.setenv("MEMORY_PG_SCHEMA", "not a schema")
    with pytest.raises(ConfigError) as refused:
        PostgresStore.from_url(url)
    assert _shown(str(refused.value), secrets) == []


@pytest.mark.parametrize("name", _REDIS_FORMS)
def test_the_redis_store_error_names_its_url_without_credentials(name: str) -> None:
    url, secrets, shown = FORMS[name]
    try:
        store = RedisStore.from_url(url, timeout=0.5)
    except ConfigError as refused:  # an option memory does not use: refused, quoting the URL
        message = str(refused)
    else:
        assert store.display_url == shown
        with pytest.raises(StoreError) as failed:  # port 1: refused
            store.ping()
        message = str(failed.value)
    assert shown in message
    assert _shown(message, secrets) == []

    without_db = url.split("?", 1)[0].rsplit("/", 1)[0]
    with pytest.raises(ConfigError) as no_db:  # no database number: a ConfigError quoting the URL
        RedisStore.from_url(without_db, timeout=0.5)
    assert _shown(str(no_db.value), secrets) == []
