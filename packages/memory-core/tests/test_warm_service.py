"""The warm service every long-lived process keeps: built once, refreshed per request, never failing a turn."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from memory_core.config import Config
from memory_core.errors import ConfigError
from memory_core.hookpath.warm import WarmService
from memory_core.models import EventKind, HookEvent, Recall
from memory_core.service import MemoryService


class _Hooks:
    """A command-hook adapter in the shape of Claude Code's, without a harness package."""

    name = "testharness"

    def parse(self, payload: Mapping[str, Any]) -> HookEvent:
        return HookEvent(
            EventKind.WRITE,
            self.name,
            payload["session"],
            payload["turn"],
            payload.get("cwd"),
            response=payload["text"],
        )

    def render(self, event: HookEvent, recall: Recall) -> str:
        return json.dumps({"context": recall.text}) if recall.text else ""


def _turn(turn: str, text: str, cwd: Path | None = None) -> bytes:
    payload = {"session": "s1", "turn": turn, "text": text, **({"cwd": str(cwd)} if cwd else {})}
    return json.dumps(payload).encode()


def _repo(folder: Path, remote: str) -> Path:
    (folder / ".git").mkdir(parents=True, exist_ok=True)
    (folder / ".git" / "config").write_text(f'[remote "origin"]\n\turl = {remote}\n')
    return folder


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Config:
    for name in ("MEMORY_PROJECT", "MEMORY_CONFIG", "MEMORY_ENABLED"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MEMORY_URL", f"sqlite:///{tmp_path / 'memory.db'}")
    monkeypatch.setenv("MEMORY_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("MEMORY_CONFIG", str(tmp_path / "none.toml"))
    return Config.from_env()


def _stored(config: Config, project: str) -> list[str]:
    reader = MemoryService(config)
    try:
        return [r.text for r in reader.export(every_scope=True) if r.scope.key == project]
    finally:
        reader.close()


def test_a_factory_that_failed_is_tried_again_and_the_turn_meanwhile_is_still_stored(
    env: Config, tmp_path: Path
) -> None:
    repo = _repo(tmp_path / "repo", "https://example.com/acme/warm.git")
    calls: list[str] = []

    def factory() -> MemoryService:
        calls.append("build")
        if len(calls) == 1:
            raise ConfigError("not yet")
        return MemoryService(env, long_lived=True)

    warm = WarmService(factory)
    try:
        assert warm.hook(_Hooks(), _turn("t1", "first answer", repo)) == ""
        assert warm.hook(_Hooks(), _turn("t2", "second answer", repo)) == ""
        assert warm.hook(_Hooks(), _turn("t3", "third answer", repo)) == ""
    finally:
        warm.close()
    assert calls == ["build", "build"]
    assert _stored(env, "git:example.com/acme/warm") == [
        "Assistant: first answer",
        "Assistant: second answer",
        "Assistant: third answer",
    ]


def test_each_request_sees_a_changed_remote_under_its_new_key(env: Config, tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo", "https://example.com/acme/old-name.git")
    warm = WarmService(lambda: MemoryService(env, long_lived=True))
    try:
        warm.hook(_Hooks(), _turn("t1", "before the rename", repo))
        _repo(repo, "https://example.com/acme/new-name.git")
        warm.hook(_Hooks(), _turn("t2", "after the rename", repo))
    finally:
        warm.close()
    assert _stored(env, "git:example.com/acme/old-name") == ["Assistant: before the rename"]
    assert _stored(env, "git:example.com/acme/new-name") == ["Assistant: after the rename"]
