"""The `memory ui` application without a browser: the guard's refusals, export and the off/on switch.

Driven in-process through Starlette's test client on a fresh embedded store (the browser suite,
`test_ui_browser.py`, covers the pages as a person uses them).
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from memory_core.config import Config
from memory_core.service import MemoryService
from memory_core.ui.guard import LaunchToken
from memory_testing.requirements import require

try:
    from memory_core.ui.app import build_app
    from starlette.testclient import TestClient

    UI_EXTRA = True
except ImportError:  # the extra is missing: `require` below fails under CI, skips elsewhere
    UI_EXTRA = False

PORT = 8765
BASE = f"http://127.0.0.1:{PORT}"


@pytest.fixture
def app(tmp_path: Path) -> Iterator[tuple[TestClient, MemoryService, LaunchToken]]:
    require(UI_EXTRA, "the ui extra (pip install 'memory-core[ui]')")
    env = {
        "HOME": str(tmp_path),
        "MEMORY_URL": f"sqlite:///{tmp_path / 'memory.db'}",
        "MEMORY_STATE_DIR": str(tmp_path / "state"),
        "MEMORY_PROJECT": "git:example.com/acme/shop",
        "MEMORY_USER": "alice",
    }
    service = MemoryService(Config.from_env(env), long_lived=True)
    service.save("The staging database is reset every night.")
    token = LaunchToken()
    with TestClient(build_app(service, token, PORT), base_url=BASE) as client:
        yield client, service, token
    service.close()


def _signed_in(client: TestClient, token: LaunchToken) -> None:
    answer = client.get(f"/memories?token={token.value}&kind=note", follow_redirects=False)
    assert answer.status_code == 303
    assert answer.headers["location"] == "/memories?kind=note"
    cookie = answer.headers["set-cookie"]
    assert "HttpOnly" in cookie
    assert "SameSite=Strict" in cookie


def test_only_this_launchs_page_can_read_or_act(app: tuple[TestClient, MemoryService, LaunchToken]) -> None:
    client, service, token = app
    assert client.get("/").status_code == 403
    assert client.get("/?token=not-it").status_code == 403
    _signed_in(client, token)
    page = client.get("/")
    assert page.status_code == 200
    assert re.search(r"<dt>Vectors</dt><dd>(\d+ records have them, \d+ still lack them|none: )", page.text)
    assert "default-src 'none'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY"
    assert client.get("/", headers={"host": "rebound.example:8765"}).status_code == 400
    form = {"csrf": token.csrf, "text": "a note from a form", "scope": "project"}
    assert client.post("/notes", data={**form, "csrf": "forged"}).status_code == 403
    assert client.post("/notes", data=form, headers={"origin": "https://evil.example"}).status_code == 403
    assert service.search("form") == []
    assert client.post("/notes", data=form, follow_redirects=False).status_code == 303
    assert [h.record.text for h in service.search("form")] == ["a note from a form"]
    voided = client.post("/notes", data={**form, "text": "#nomemory keep this out"})
    assert voided.status_code == 400
    assert "firewall removed everything" in voided.text


def test_export_downloads_the_scope_and_the_switch_turns_memory_off(
    app: tuple[TestClient, MemoryService, LaunchToken],
) -> None:
    client, service, token = app
    _signed_in(client, token)
    answer = client.post("/export", data={"csrf": token.csrf, "scope": "project:git:example.com/acme/shop"})
    assert answer.status_code == 200
    assert "attachment" in answer.headers["content-disposition"]
    [line] = answer.text.splitlines()
    assert json.loads(line)["text"] == "The staging database is reset every night."
    key = "git:example.com/acme/shop"
    switched = client.post("/switch", data={"csrf": token.csrf, "project": key, "state": "off"})
    assert "Memory is off for" in switched.text
    assert not service.active()
    assert service.assemble("staging database reset", harness="claude", session_id="s", turn_id="t").text == ""
    assert re.search(r"Turn memory on here", client.get("/").text)
    client.post("/switch", data={"csrf": token.csrf, "project": key, "state": "on"})
    assert service.active()


_POSTGRES = "postgresql://127.0.0.1:5432/test?user=postgres"


@pytest.mark.parametrize(
    "backend", [pytest.param("redis", marks=pytest.mark.redis), pytest.param("postgres", marks=pytest.mark.postgres)]
)
def test_every_page_renders_over_a_server_store(backend: str, tmp_path: Path) -> None:
    from memory_testing.servers import (
        drop_schema,
        flush_redis,
        local_postgres_available,
        new_schema_name,
        redis_server_available,
        throwaway_redis_url,
        with_schema,
    )

    require(UI_EXTRA, "the ui extra (pip install 'memory-core[ui]')")
    if backend == "redis":
        require(redis_server_available(), "redis-server (a throwaway Redis for the tests)")
        url = throwaway_redis_url(11)
        flush_redis(url)
    else:
        url = _POSTGRES
        require(local_postgres_available(url), "PostgreSQL on 127.0.0.1:5432 with a database `test`")
        schema = new_schema_name("memui")
        url = with_schema(url, schema)
    tag = uuid.uuid4().hex[:10]
    env = {
        "HOME": str(tmp_path),
        "MEMORY_URL": url,
        "MEMORY_STATE_DIR": str(tmp_path / "state"),
        "MEMORY_PROJECT": f"git:example.com/ui-test/{tag}",
        "MEMORY_USER": f"ui-{tag}",
    }
    service = MemoryService(Config.from_env(env), long_lived=True)
    try:
        for n in range(55):
            service.capture(
                harness="codex",
                session_id=f"s{n % 2}",
                turn_id=f"t{n}",
                prompt=f"turn {n} about the {tag} payment gateway",
                response=f"answer {n}",
                created_at=1_790_000_000.0 + n,
            )
        service.assemble(f"the {tag} payment gateway", harness="codex", session_id="later", turn_id="r1")
        token = LaunchToken()
        with TestClient(build_app(service, token, PORT), base_url=BASE) as client:
            _signed_in(client, token)
            listing = client.get("/memories?session=s1")
            assert listing.text.count('class="text"') == 27
            older = re.search(r'href="(/memories\?[^"]*after=[^"]+)"', client.get("/memories").text)
            assert older is not None
            assert client.get(older.group(1).replace("&amp;", "&")).text.count('class="text"') == 5
            found = client.get(f"/search?q={tag}+gateway&mode=search")
            assert 'class="score"' in found.text
            assert "payment gateway" in found.text
            record_id = re.search(r'href="/memories/([^"]+)"', found.text)
            assert record_id is not None
            assert "In its session" in client.get(f"/memories/{record_id.group(1)}").text
            recalls = client.get("/recalls").text
            assert "payment gateway" in recalls
            assert "Decision:" in recalls  # the inject decision's inputs, with or without the model
            assert client.get("/").status_code == 200
    finally:
        service.close()
        if backend == "redis":
            flush_redis(url)
        else:
            drop_schema(_POSTGRES, schema)


def test_a_turns_page_shows_what_happened_in_it_under_the_turn(
    app: tuple[TestClient, MemoryService, LaunchToken],
) -> None:
    from memory_core.models import TimelineEvent, TurnTimeline

    client, service, token = app
    _signed_in(client, token)
    record_id = service.capture(
        harness="claude", session_id="s1", turn_id="t1", prompt="fix the login", response="Done."
    ).record_id
    events = (
        TimelineEvent("tool_call", "u1", '{"file_path": "src/auth/<session>.ts"}', "Edit", "c1"),
        TimelineEvent("tool_result", "u2", "The file was updated.", "Edit", "c1"),
    )
    service.add_timeline("claude", [TurnTimeline("s1", "t1", events)])
    page = client.get(f"/memories/{record_id}").text
    turn_at, events_at = page.index("Done."), page.index("In this turn")
    assert turn_at < events_at < page.index("The file was updated.")
    assert "src/auth/&lt;session&gt;.ts" in page  # shown as text, never as markup
