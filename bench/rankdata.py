"""Records, questions and passages of a LoCoMo-layout file as `bench/recall.py` captures them, for
the ranking research (`bench/rank_research.py`) and the embedding warm-up.

    python bench/rankdata.py FILE ...      # embeds every passage of every file into the cache
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from memory_core.embedding.passages import passages
from memory_core.service import turn_text
from recall import evidence_ids, is_coding, sessions_of


@dataclass
class Rec:
    id: str
    text: str
    created_at: float
    session: str
    seq: int


@dataclass
class Question:
    text: str
    evidence: set[str]
    stale: set[str]


@dataclass
class Sample:
    id: str
    coding: bool
    records: list[Rec]
    questions: list[Question]
    prompts: list[tuple[int, str]]
    """Every real user prompt with the number of records captured before its session."""


def load(path: Path) -> list[Sample]:
    out: list[Sample] = []
    for raw in json.loads(path.read_text(encoding="utf-8")):
        out.append(sample_of(raw))
    return out


def sample_of(raw: dict[str, Any]) -> Sample:
    coding = is_coding(raw)
    records: list[Rec] = []
    where: dict[str, str] = {}
    prompts: list[tuple[int, str]] = []
    for session in sessions_of(raw):
        before = len(records)
        for seq, turn in enumerate(session.turns):
            rid = f"{raw['sample_id']}/s{session.number}/{turn.ids[0]}"
            records.append(
                Rec(rid, turn_text(turn.prompt, turn.response), session.start + 60 * seq, f"s{session.number}", seq)
            )
            where.update(dict.fromkeys(turn.ids, rid))
            if turn.prompt.strip():
                prompts.append((before, turn.prompt))
    questions = []
    for qa in raw.get("qa", []):
        if not coding and qa.get("category") == 5:
            continue
        ev = {where[d] for d in evidence_ids(qa.get("evidence", []), set(where))}
        if not ev:
            continue
        st = {where[d] for d in evidence_ids(qa.get("stale", []), set(where))} - ev
        questions.append(Question(str(qa["question"]), ev, st))
    return Sample(str(raw["sample_id"]), coding, records, questions, prompts)


def main() -> int:
    from embedcache import CachedE5

    e5 = CachedE5()
    for name in sys.argv[1:]:
        samples = load(Path(name))
        texts = [p for s in samples for r in s.records for p in passages(r.text)]
        e5.embed_passages(texts)
        e5.embed_queries([q.text for s in samples for q in s.questions])
        print(name, len(texts), "passages,", e5.embedded, "embedded", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
