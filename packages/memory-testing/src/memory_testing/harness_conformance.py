"""The conformance suite every harness adapter passes against its recorded payloads.

Use it from a harness package's tests:

    from memory_testing.harness_conformance import HarnessConformance

    class TestClaudeConformance(HarnessConformance):
        harness_factory = ClaudeHarness
        package = "memory_claude"

It pins what the core relies on from every adapter, whatever its harness: the `Harness` shape
and the optional capabilities it declares (`memory_core.harnesses.contract`) hold; every recorded
payload parses to an event or is refused with `ValueError` (never another exception); an
adapter renders nothing for an empty recall or a non-read event; a rendered answer is the same
bytes every time and, when it looks like JSON, is one JSON document; the recorded read/write
pair used by the benchmarks is one turn; and the hook command the installer writes runs.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest
from memory_core.harnesses.contract import CapsContext, Harness, HasTranscripts, ShipsPlugin
from memory_core.installing import fixtures_dir, load_fixtures
from memory_core.models import EventKind, Hit, HookEvent, Recall, Record, Scope

__all__ = ["HarnessConformance"]

_SAMPLE = Recall(
    text="Memories recalled from earlier sessions (may be outdated):\n- [t1] the build uses tox\n",
    hits=(Hit(Record(id="t1", scope=Scope("project", "p"), text="the build uses tox"), 1.0, "the build uses tox"),),
)


class HarnessConformance:
    """Subclass with `harness_factory` and `package` (the import name whose `fixtures/` holds the recordings)."""

    harness_factory: ClassVar[Callable[[], Harness]]
    package: ClassVar[str]

    @pytest.fixture
    def harness(self) -> Harness:
        return type(self).harness_factory()

    def recorded(self) -> list[tuple[str, dict[str, Any]]]:
        found = list(load_fixtures(self.package).items())
        assert found, f"no recorded payloads under {fixtures_dir(self.package)}"
        return found

    def test_the_harness_has_the_contracts_shape_and_declared_capabilities(self, harness: Harness) -> None:
        assert isinstance(harness, Harness)
        assert harness.scopes, "a harness has at least one install scope"
        if isinstance(harness, CapsContext):
            assert harness.max_context_tokens > 0
        if isinstance(harness, ShipsPlugin):
            assert harness.plugin_dir().is_dir()
        if isinstance(harness, HasTranscripts):
            assert callable(harness.transcripts().find)

    def test_every_recorded_payload_parses_or_is_refused_with_value_error(self, harness: Harness) -> None:
        for name, payload in self.recorded():
            try:
                event = harness.parse(payload)
            except ValueError:
                continue
            assert isinstance(event, HookEvent), name
            assert event.harness == harness.name, name
            if event.kind is EventKind.READ:
                assert event.prompt is not None, name
            if event.kind is EventKind.WRITE:
                assert event.response is not None, name

    def test_nothing_is_rendered_when_there_is_nothing_to_inject(self, harness: Harness) -> None:
        for name, payload in self.recorded():
            try:
                event = harness.parse(payload)
            except ValueError:
                continue
            assert harness.render(event, Recall("")) == "", name
            if event.kind is not EventKind.READ:
                assert harness.render(event, _SAMPLE) == "", f"{name}: only a read event injects"

    def test_a_read_renders_the_same_bytes_every_time_as_one_document(self, harness: Harness) -> None:
        reads = []
        for _, payload in self.recorded():
            try:
                event = harness.parse(payload)
            except ValueError:
                continue
            if event.kind is EventKind.READ:
                reads.append(event)
        assert reads, "no recorded payload is a read event"
        for event in reads:
            first = harness.render(event, _SAMPLE)
            assert first
            assert first == harness.render(event, _SAMPLE)
            if first.lstrip().startswith("{"):
                # A harness that reads JSON fails the hook on stdout that starts with `{` and
                # does not parse: it must be exactly one document.
                json.loads(first)
            assert "the build uses tox" in first

    def test_the_bench_payloads_are_one_recorded_turn(self, harness: Harness) -> None:
        read, write = harness.bench_payloads()
        first, second = harness.parse(read), harness.parse(write)
        assert (first.kind, second.kind) == (EventKind.READ, EventKind.WRITE)
        assert first.session_id == second.session_id
        assert first.turn_id == second.turn_id

    def test_the_hook_command_runs_and_exits_0_on_garbage(self, harness: Harness, tmp_path: Path) -> None:
        argv = harness.hook_argv()
        if argv is None:
            pytest.skip(f"{harness.display_name} runs in-process: it has no hook command")
        env = {**os.environ, "MEMORY_STATE_DIR": str(tmp_path / "state"), "MEMORY_WORKER": "0"}
        for raw in (b"", b"not json", b"[]", b'{"hook_event_name": 7}'):
            done = subprocess.run(argv, input=raw, capture_output=True, timeout=60, env=env, check=False)
            assert done.returncode == 0, done.stderr
            assert done.stdout == b"", raw
