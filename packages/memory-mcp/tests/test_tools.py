"""The tools as a model meets them, through the SDK's own client, on an in-process server.

Everything below the MCP layer is real: the service, the firewall and an embedded store in
`tmp_path`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.types import CallToolResult
from memory_core.service import MemoryService
from memory_mcp import TOOL_NAMES
from memory_mcp.runner import ServiceRunner
from memory_mcp.server import INSTRUCTIONS, build_server

_TIMEOUT_S = 60


def drive(runner: ServiceRunner, session: Callable[[Client], Awaitable[Any]]) -> Any:
    """Connect the SDK client to a fresh server over `runner` and run `session` with it, bounded."""

    async def main() -> Any:
        with anyio.fail_after(_TIMEOUT_S):
            async with Client(build_server(runner)) as client:
                return await session(client)

    return anyio.run(main)


def data(result: CallToolResult) -> Any:
    """What a model reads: the one text block, parsed; an object's structured copy must agree."""
    assert not result.is_error, result.content
    assert len(result.content) == 1
    parsed = json.loads(result.content[0].text)  # type: ignore[union-attr]
    structured = result.structured_content
    assert structured == (parsed if isinstance(parsed, dict) else None)
    return parsed


def error_text(result: CallToolResult) -> str:
    assert result.is_error
    text = " ".join(block.text for block in result.content)  # type: ignore[union-attr]
    assert "Traceback" not in text
    return text


def call(runner: ServiceRunner, name: str, arguments: dict[str, Any]) -> CallToolResult:
    return drive(runner, lambda client: client.call_tool(name, arguments))  # type: ignore[no-any-return]


def test_the_tool_names_are_the_frozen_ones(runner: ServiceRunner) -> None:
    listed = drive(runner, lambda client: client.list_tools())
    names = {tool.name for tool in listed.tools}
    assert names == {
        "memory_search",
        "memory_save",
        "memory_feedback",
        "memory_status",
        "memory_forget",
        "memory_expand",
    }
    assert set(TOOL_NAMES) == names


def test_descriptions_tell_the_model_recall_is_already_automatic(runner: ServiceRunner) -> None:
    listed = drive(runner, lambda client: client.list_tools())
    search = next(tool for tool in listed.tools if tool.name == "memory_search")
    assert "automatically on every turn" in (search.description or "")
    assert "automatically on every turn" in INSTRUCTIONS
    feedback = next(tool for tool in listed.tools if tool.name == "memory_feedback")
    assert feedback.input_schema["properties"]["outcome"]["enum"] == ["acted", "contradicted"]


def test_a_saved_note_is_found_with_an_id_the_model_can_pass_back(runner: ServiceRunner) -> None:
    async def session(client: Client) -> tuple[Any, Any, Any]:
        saved = await client.call_tool(
            "memory_save", {"content": "Run the test suite with tox -e py311; plain pytest misses the fixtures."}
        )
        found = await client.call_tool("memory_search", {"query": "tox py311 fixtures"})
        expanded = await client.call_tool("memory_expand", {"id": data(saved)["id"]})
        return data(saved), data(found), data(expanded)

    saved, found, expanded = drive(runner, session)
    assert saved["scope"] == "project"
    assert saved["text"] == "Run the test suite with tox -e py311; plain pytest misses the fixtures."
    assert [hit["id"] for hit in found] == [saved["id"]]
    hit = found[0]
    assert set(hit) == {"id", "text", "score", "scope", "created_at", "session"}
    assert "tox -e py311" in hit["text"]
    assert hit["scope"] == "project"
    assert hit["score"] > 0
    assert hit["created_at"].endswith("Z")
    assert hit["session"] is None
    assert [(r["id"], r["target"]) for r in expanded] == [(saved["id"], True)]


def test_a_user_note_is_saved_in_the_user_scope_and_found_from_another_project(
    workspace: Any, runner: ServiceRunner
) -> None:
    saved = data(call(runner, "memory_save", {"content": "The user prefers ripgrep over grep.", "scope": "user"}))
    assert saved["scope"] == "user"
    elsewhere = ServiceRunner(lambda: workspace.service(workspace.other_project))
    try:
        assert [h["id"] for h in data(call(elsewhere, "memory_search", {"query": "ripgrep grep"}))] == [saved["id"]]
        only_project = data(call(elsewhere, "memory_search", {"query": "ripgrep grep", "scope": "project"}))
        assert only_project == []
    finally:
        elsewhere.close()


def test_a_deliberate_search_neither_counts_as_nor_suppresses_the_turns_recall(
    workspace: Any, runner: ServiceRunner
) -> None:
    saved = data(call(runner, "memory_save", {"content": "Deploys go through the blue-green pipeline in ArgoCD."}))
    for _ in range(2):
        assert saved["id"] in [h["id"] for h in data(call(runner, "memory_search", {"query": "deploy ArgoCD"}))]
    recall = workspace.service().assemble(
        "how do deploys work with ArgoCD here?", harness="claude", session_id="s1", turn_id="t1"
    )
    assert saved["id"] in [hit.record.id for hit in recall.hits]


def test_contradicted_lowers_standing_and_stops_recall_without_deleting(workspace: Any, runner: ServiceRunner) -> None:
    saved = data(call(runner, "memory_save", {"content": "The staging database is called orders_staging_v2."}))
    lowered = data(call(runner, "memory_feedback", {"id": saved["id"], "outcome": "contradicted"}))
    assert lowered == {"id": saved["id"], "outcome": "contradicted", "standing": -1}
    recall = workspace.service().assemble(
        "what is the staging database orders_staging_v2 called?", harness="claude", session_id="s2", turn_id="t1"
    )
    assert saved["id"] not in [hit.record.id for hit in recall.hits]
    assert [r["id"] for r in data(call(runner, "memory_expand", {"id": saved["id"]}))] == [saved["id"]]


def test_acted_raises_standing(runner: ServiceRunner) -> None:
    saved = data(call(runner, "memory_save", {"content": "Format with ruff format, not black."}))
    raised = data(call(runner, "memory_feedback", {"id": saved["id"], "outcome": "acted"}))
    assert raised["standing"] == 1


def test_feedback_on_an_unknown_id_is_a_readable_error(runner: ServiceRunner) -> None:
    text = error_text(call(runner, "memory_feedback", {"id": "nope", "outcome": "acted"}))
    assert "No memory found" in text
    assert "nope" in text


def test_forget_deletes_and_a_second_forget_says_there_is_nothing(runner: ServiceRunner) -> None:
    saved = data(call(runner, "memory_save", {"content": "The cache lives in /var/cache/widgetd."}))
    assert data(call(runner, "memory_forget", {"id": saved["id"]})) == {"id": saved["id"], "forgotten": True}
    assert data(call(runner, "memory_search", {"query": "widgetd cache"})) == []
    assert "No memory found" in error_text(call(runner, "memory_forget", {"id": saved["id"]}))


def test_expand_returns_the_turns_around_a_memory_in_order(workspace: Any, runner: ServiceRunner) -> None:
    hook = workspace.service()
    ids = [
        hook.capture(harness="claude", session_id="sess", turn_id=f"t{n}", prompt=p, response=r).record_id
        for n, (p, r) in enumerate(
            [
                ("which port does the api use?", "It listens on 8080."),
                ("and the metrics endpoint?", "Metrics are on 9090 under /metrics."),
                ("thanks, anything else?", "Set METRICS_TOKEN before scraping."),
            ]
        )
    ]
    turns = data(call(runner, "memory_expand", {"id": ids[1]}))
    assert [t["id"] for t in turns] == ids
    assert [t["target"] for t in turns] == [False, True, False]
    assert "Metrics are on 9090" in turns[1]["text"]
    assert {t["session"] for t in turns} == {"sess"}


def test_expand_shows_what_happened_inside_the_turn_in_order(workspace: Any, runner: ServiceRunner) -> None:
    from memory_core.models import TimelineEvent, TurnTimeline

    hook = workspace.service()
    record_id = hook.capture(
        harness="claude", session_id="sess", turn_id="t1", prompt="fix the login", response="Done."
    ).record_id
    events = (
        TimelineEvent("tool_call", "u1", '{"file_path": "src/auth/session.ts"}', "Edit", "c1"),
        TimelineEvent("tool_result", "u2", "The file was updated.", "Edit", "c1"),
        TimelineEvent("injected", "u3", "a reminder", "system_reminder"),
    )
    hook.add_timeline("claude", [TurnTimeline("sess", "t1", events)])
    [turn] = data(call(runner, "memory_expand", {"id": record_id}))
    assert [(e["kind"], e["name"]) for e in turn["events"]] == [
        ("tool_call", "Edit"),
        ("tool_result", "Edit"),
        ("injected", "system_reminder"),
    ]
    assert "src/auth/session.ts" in turn["events"][0]["text"]
    assert turn["events_left_out"] == 0


def test_a_firewall_block_is_an_error_that_says_so(runner: ServiceRunner) -> None:
    text = error_text(call(runner, "memory_save", {"content": "<private>the acquisition closes in May</private>"}))
    assert "firewall" in text
    assert "acquisition" not in text
    assert data(call(runner, "memory_search", {"query": "acquisition May"})) == []


def test_invalid_arguments_are_readable_errors(runner: ServiceRunner) -> None:
    assert "scope" in error_text(call(runner, "memory_search", {"query": "x", "scope": "team"}))
    assert "outcome" in error_text(call(runner, "memory_feedback", {"id": "x", "outcome": "liked"}))


def test_a_store_that_is_down_is_a_readable_error(workspace: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORY_URL", "redis://127.0.0.1:1/1")  # nothing listens on port 1
    down = ServiceRunner()
    try:
        text = error_text(call(down, "memory_search", {"query": "anything"}))
    finally:
        down.close()
    assert "unavailable" in text


def test_a_store_url_that_would_write_somewhere_unasked_is_a_readable_error(
    workspace: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMORY_URL", "redis://127.0.0.1:6379/0")
    misconfigured = ServiceRunner()
    try:
        text = error_text(call(misconfigured, "memory_save", {"content": "anything"}))
    finally:
        misconfigured.close()
    assert "MEMORY_ALLOW_DB0" in text


def test_status_reports_the_same_facts_as_memory_doctor_json(workspace: Any, runner: ServiceRunner) -> None:
    data(call(runner, "memory_save", {"content": "Counted by the status report."}))
    status = data(call(runner, "memory_status", {}))
    doctor = subprocess.run(
        [sys.executable, "-m", "memory_core.cli", "doctor", "--json"],
        env=workspace.env,
        cwd=workspace.project,
        capture_output=True,
        text=True,
        timeout=_TIMEOUT_S,
        check=False,
    )
    report = json.loads(doctor.stdout)
    assert set(status) == set(report)
    assert status["project"] == report["project"]
    assert status["records"] == report["records"]
    assert [h["harness"] for h in status["harnesses"]] == [h["harness"] for h in report["harnesses"]]


def test_with_memory_switched_off_no_tool_touches_the_store(workspace: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORY_ENABLED", "0")
    off = ServiceRunner()
    try:
        for name, arguments in [
            ("memory_save", {"content": "Should never be stored."}),
            ("memory_search", {"query": "stored"}),
            ("memory_feedback", {"id": "n1", "outcome": "acted"}),
            ("memory_forget", {"id": "n1"}),
            ("memory_expand", {"id": "n1"}),
        ]:
            assert "switched off" in error_text(call(off, name, arguments)), name
    finally:
        off.close()
    assert not (workspace.root / "memory.db").exists()


def test_one_project_cannot_forget_anothers_memory(workspace: Any, runner: ServiceRunner) -> None:
    saved = data(call(runner, "memory_save", {"content": "The release branch is cut on Thursdays."}))
    elsewhere = ServiceRunner(lambda: workspace.service(workspace.other_project))
    try:
        assert "No memory found" in error_text(call(elsewhere, "memory_forget", {"id": saved["id"]}))
    finally:
        elsewhere.close()
    assert [h["id"] for h in data(call(runner, "memory_search", {"query": "release branch Thursdays"}))] == [
        saved["id"]
    ]


@pytest.mark.parametrize("backend", ["sqlite", "redis", "postgres"])
def test_no_id_based_tool_reaches_another_projects_memory(
    workspace: Any, monkeypatch: pytest.MonkeyPatch, backend: str
) -> None:
    from memory_testing.requirements import require
    from memory_testing.servers import (
        drop_schema,
        local_postgres_available,
        new_schema_name,
        redis_server_available,
        throwaway_redis_url,
        with_schema,
    )

    postgres, schema = "postgresql://127.0.0.1:5432/test?user=postgres", new_schema_name("mcpscope")
    if backend == "redis":
        require(redis_server_available(), "redis-server (a throwaway Redis for the tests)")
        monkeypatch.setenv("MEMORY_URL", throwaway_redis_url(12))
    elif backend == "postgres":
        require(local_postgres_available(), "PostgreSQL on 127.0.0.1:5432")
        monkeypatch.setenv("MEMORY_URL", with_schema(postgres, schema))
    opened: list[MemoryService] = []

    def service_in(folder: Any) -> MemoryService:
        opened.append(workspace.service(folder))
        return opened[-1]

    here = ServiceRunner(lambda: service_in(workspace.project))
    elsewhere = ServiceRunner(lambda: service_in(workspace.other_project))
    try:
        saved = data(call(here, "memory_save", {"content": "The staging vault rotates its token on Mondays."}))
        for tool, arguments in (
            ("memory_expand", {"id": saved["id"]}),
            ("memory_feedback", {"id": saved["id"], "outcome": "contradicted"}),
            ("memory_forget", {"id": saved["id"]}),
        ):
            assert "No memory found" in error_text(call(elsewhere, tool, arguments)), tool
        found = data(call(elsewhere, "memory_search", {"query": "staging vault token Mondays"}))
        assert saved["id"] not in [hit["id"] for hit in found]
        [record] = data(call(here, "memory_expand", {"id": saved["id"]}))
        assert record["text"] == "The staging vault rotates its token on Mondays."
        marked = data(call(here, "memory_feedback", {"id": saved["id"], "outcome": "acted"}))
        assert marked["standing"] == 1, "the other project's `contradicted` changed nothing"
    finally:
        here.close()
        elsewhere.close()
        for service in opened:
            service.close()  # the runner stops its thread; the store connections are ours to close
        if backend == "postgres":
            drop_schema(postgres, schema)


def test_search_can_narrow_to_one_author_of_a_shared_store(
    workspace: Any, runner: ServiceRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMORY_USER", "bob")
    bob = workspace.service()
    bob.save("the release branch is cut every Tuesday")
    bob.close()
    monkeypatch.setenv("MEMORY_USER", "tester")

    async def session(client: Client) -> tuple[Any, Any, Any]:
        await client.call_tool("memory_save", {"content": "the release branch needs two approvals"})
        everyone = await client.call_tool("memory_search", {"query": "release branch"})
        bobs = await client.call_tool("memory_search", {"query": "release branch", "author": "bob"})
        mine = await client.call_tool("memory_search", {"query": "release branch", "author": "me"})
        return data(everyone), data(bobs), data(mine)

    everyone, bobs, mine = drive(runner, session)
    assert len(everyone) == 2
    assert [hit["text"] for hit in bobs] == ["the release branch is cut every Tuesday"]
    assert [hit["text"] for hit in mine] == ["the release branch needs two approvals"]


@pytest.mark.parametrize(
    ("url", "secrets"),
    [
        ("redis://Tk7Q9zX2mB4nL6pR8sV1@127.0.0.1:1/2", ("Tk7Q9zX2mB4nL6pR8sV1",)),
        ("rediss://bob:p@ss#w/rd9@127.0.0.1:1/3", ("bob", "p@ss#w/rd9", "ss#w")),
    ],
)
def test_memory_status_never_shows_the_credentials_of_the_store_url(
    monkeypatch: pytest.MonkeyPatch, runner: ServiceRunner, url: str, secrets: tuple[str, ...]
) -> None:
    # The same redact_url as doctor: a lone token, a user and a password holding `@`, `#`, `/`.
    monkeypatch.setenv("MEMORY_URL", url)
    monkeypatch.setenv("MEMORY_TIMEOUT", "0.5")

    result = call(runner, "memory_status", {})
    text = " ".join(block.text for block in result.content)  # type: ignore[union-attr]

    assert "127.0.0.1:1" in text
    assert [s for s in secrets if s in text] == []
