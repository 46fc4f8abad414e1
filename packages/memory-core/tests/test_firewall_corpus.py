"""The adversarial corpus: every secret sample is redacted in place, every near-miss is kept
byte for byte, and no secret's bytes reach any file memory writes.

The storage half runs the whole corpus through one real `MemoryService` on the embedded
SQLite store (one store for the module, many samples per turn): with the store down first
(the local prompt handoff, the spool and the log are read right then, before anything drains
them), then with it up (the spool drains, the turns are stored and indexed, a note is
saved). Then every byte under the temporary folders is read.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from memory_core.config import Config
from memory_core.errors import StoreUnavailable
from memory_core.firewall import Firewall
from memory_core.models import Scope
from memory_core.service import MemoryService
from memory_testing.secret_corpus import BENIGN, SECRETS, Sample, families
from memory_testing.secret_generators import generate

_GENERATED_SECRETS, _GENERATED_BENIGN = (tuple(g.sample for g in part) for part in generate())
ALL_BENIGN = BENIGN + _GENERATED_BENIGN
_STORED_SECRETS = SECRETS + _GENERATED_SECRETS
_EVERY_TEXT = tuple(s.text.lower() for s in _STORED_SECRETS + ALL_BENIGN)
ALL_SECRETS = tuple(
    s for s in _STORED_SECRETS if s.kind != "?" or sum(s.secret.lower() in text for text in _EVERY_TEXT) == 1
)
"""The storage check runs the hand-written and the generated corpus (`secret_generators`) alike. A
generated secret (kind `?`) looked for in stored bytes must occur in no other sample: a writer's own
short value (round 13's PIN `4831`) can stand inside another sample's UUID, kept byte for byte; such
a secret is held to leaving its own turn by `test_firewall_generated`, which scrubs each sample alone."""

FIREWALL = Firewall()
_PROJECT = "firewall-corpus-test"
_PER_TURN = 30
"""Samples per turn: the generated corpus is large, and a turn costs a store round trip, not bytes."""


def test_the_corpus_is_as_large_as_promised() -> None:
    assert len(SECRETS) >= 150
    assert len(BENIGN) >= 80
    assert len({s.name for s in SECRETS + BENIGN}) == len(SECRETS) + len(BENIGN)
    assert all(s.text.count(s.secret) == 1 for s in SECRETS)  # each holds its secret once
    assert len(families(SECRETS)) >= 6


@pytest.mark.parametrize("sample", SECRETS, ids=[s.name for s in SECRETS])
def test_each_secret_is_replaced_in_place_and_nothing_else_changes(sample: Sample) -> None:
    result = FIREWALL.scrub(sample.text)

    assert sample.secret not in result.text
    assert result.text == sample.expected
    assert FIREWALL.scrub(result.text).text == result.text


@pytest.mark.parametrize("sample", BENIGN, ids=[s.name for s in BENIGN])
def test_each_near_miss_is_kept_byte_for_byte(sample: Sample) -> None:
    result = FIREWALL.scrub(sample.text)

    assert result.text == sample.text
    assert dict(result.counts) == {}


def test_a_secret_inside_a_json_payload_or_a_repr_is_caught_too() -> None:
    leaked = [
        s.name
        for s in SECRETS
        for quoted in (json.dumps({"output": s.text}), repr(s.text))
        if s.secret in FIREWALL.scrub(quoted).text
    ]
    assert leaked == []


# -- storage ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Stored:
    folder: Path
    homes: tuple[Path, ...]
    while_down: dict[str, bytes]
    texts: list[str]


def _config(folder: Path, url: str) -> Config:
    return Config.from_env(
        {
            "MEMORY_URL": url,
            "MEMORY_STATE_DIR": str(folder / "state"),
            "MEMORY_LOG": str(folder / "state" / "memory.log"),
            "MEMORY_PROJECT": _PROJECT,
            "MEMORY_USER": "tester",
        }
    )


def _files(*roots: Path) -> Iterator[Path]:
    for root in roots:
        if root.is_dir():
            yield from (p for p in root.rglob("*") if p.is_file())


def _batches(samples: tuple[Sample, ...]) -> list[tuple[Sample, ...]]:
    return [samples[i : i + _PER_TURN] for i in range(0, len(samples), _PER_TURN)]


def _turn(batch: tuple[Sample, ...]) -> tuple[str, str]:
    half = len(batch) // 2
    prompt = "Here is what I ran and what it printed:\n\n" + "\n\n".join(s.text for s in batch[:half])
    answer = "I kept these as you wrote them:\n\n" + "\n\n".join(s.text for s in batch[half:])
    return prompt, answer


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_Stored]:
    folder = tmp_path_factory.mktemp("corpus")
    homes = tuple(folder / "xdg" / sub for sub in ("data", "state", "config"))
    with pytest.MonkeyPatch.context() as patch:
        # The workspace's isolation is per test; this store is the module's, so it isolates itself.
        for name in [n for n in os.environ if n.startswith("MEMORY_")]:
            patch.delenv(name)
        for var, home in zip(("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME"), homes, strict=True):
            home.mkdir(parents=True)
            patch.setenv(var, str(home))
        yield from _store_the_corpus(folder, homes)


def _store_the_corpus(folder: Path, homes: tuple[Path, ...]) -> Iterator[_Stored]:
    everything = _STORED_SECRETS + ALL_BENIGN
    down = MemoryService(_config(folder, f"sqlite:///{folder}"), cwd=str(folder))  # a folder: cannot open
    for n, batch in enumerate(_batches(everything)):
        prompt, answer = _turn(batch)
        with pytest.raises(StoreUnavailable):
            down.assemble(prompt, harness="claude", session_id="down", turn_id=f"t{n}")
        assert down.capture(harness="claude", session_id="down", turn_id=f"t{n}", response=answer).status == "spooled"
        down.logbook.error("claude.capture", RuntimeError(f"could not parse {batch[0].text!r}"))
    while_down = {str(p): p.read_bytes() for p in _files(folder / "state")}

    svc = MemoryService(_config(folder, f"sqlite:///{folder / 'data' / 'memory.db'}"), cwd=str(folder))
    for n, batch in enumerate(_batches(everything)):
        prompt, answer = _turn(batch)
        svc.assemble(prompt, harness="claude", session_id="up", turn_id=f"t{n}")
        assert svc.capture(harness="claude", session_id="up", turn_id=f"t{n}", response=answer).status == "stored"
    svc.save("Notes: " + " / ".join(s.text for s in SECRETS[:_PER_TURN]))
    texts = [r.text for r in svc.store.scan([Scope("project", _PROJECT)])]
    yield _Stored(folder, homes, while_down, texts)
    svc.store.close()


def test_no_secret_reaches_the_spool_the_handoff_or_the_log_while_the_store_is_down(stored: _Stored) -> None:
    assert any("spool" in name for name in stored.while_down)  # the spool was written, and read
    leaked = [
        f"{s.name} in {name}"
        for s in ALL_SECRETS
        for name, data in stored.while_down.items()
        if s.secret.encode() in data or s.secret.lower().encode() in data
    ]
    assert leaked == []


def test_no_secret_reaches_the_database_its_index_or_any_other_file(stored: _Stored) -> None:
    blobs = [p.read_bytes() for p in _files(stored.folder, *stored.homes)]
    leaked = [
        s.name for s in ALL_SECRETS if any(s.secret.encode() in b or s.secret.lower().encode() in b for b in blobs)
    ]
    assert leaked == []


def test_every_near_miss_is_stored_byte_for_byte(stored: _Stored) -> None:
    # Both the drained (spooled) and the direct capture of each turn, so twice each.
    # A turn is stored less the blanks around it (`turn_text`), so a sample that ends one is
    # looked for less its own trailing newline; everything else byte for byte.
    lost = [s.name for s in ALL_BENIGN if sum(text.count(s.text.strip()) for text in stored.texts) < 2]
    assert lost == []
