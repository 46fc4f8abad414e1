"""bench/locomo.py: scores a LoCoMo-format file with recall's own scorer and prints the documented keys."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

_BENCH = Path(__file__).resolve().parents[3] / "bench" / "locomo.py"


def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("locomo_bench", _BENCH)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["locomo_bench"] = module
    spec.loader.exec_module(module)
    return module


def _conversation() -> list[dict[str, object]]:
    turns_1 = [
        {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a greyhound called Pixel last week."},
        {"speaker": "Ben", "dia_id": "D1:2", "text": "Congrats! What does Pixel like to eat?"},
        {"speaker": "Ana", "dia_id": "D1:3", "text": "Mostly salmon kibble.", "blip_caption": "a dog bowl"},
    ]
    turns_2 = [
        {"speaker": "Ben", "dia_id": "D2:1", "text": "I started learning the cello in a community orchestra."},
        {"speaker": "Ana", "dia_id": "D2:2", "text": "Lovely. Which piece are you rehearsing?"},
        {"speaker": "Ben", "dia_id": "D2:3", "text": "Elgar's concerto, slowly."},
    ]
    filler = [
        {"speaker": "Ana" if n % 2 else "Ben", "dia_id": f"D3:{n}", "text": f"Small talk number {n} about the weather."}
        for n in range(1, 30)
    ]
    return [
        {
            "sample_id": "conv-test",
            "conversation": {
                "speaker_a": "Ana",
                "speaker_b": "Ben",
                "session_1_date_time": "1:56 pm on 8 May, 2023",
                "session_1": turns_1,
                "session_2_date_time": "10:00 am on 9 June, 2023",
                "session_2": turns_2,
                "session_3_date_time": "9:00 am on 1 July, 2023",
                "session_3": filler,
            },
            "qa": [
                {
                    "question": "What is the name of Ana's greyhound?",
                    "answer": "Pixel",
                    "evidence": ["D1:1"],
                    "category": 4,
                },
                {
                    "question": "Which instrument is Ben learning?",
                    "answer": "cello",
                    "evidence": ["D2:1"],
                    "category": 4,
                },
                {
                    "question": "What piece is Ben rehearsing on the cello?",
                    "evidence": ["D:2:3", "D2:01"],
                    "category": 1,
                },
                {"question": "What did they say about nothing?", "evidence": ["D9:9"], "category": 4},
                {"question": "Does Pixel play the cello?", "evidence": ["D1:1"], "category": 5},
            ],
        }
    ]


def test_evidence_ids_are_normalised_and_unknown_ones_dropped() -> None:
    locomo = _module()
    known = {"D1:1", "D11:26", "D30:5"}
    assert locomo.evidence_ids(["D:11:26", "D30:05; D1:1", "D99:1"], known) == {"D11:26", "D30:5", "D1:1"}
    assert locomo.evidence_ids([], known) == set()


def test_turns_become_records_with_session_positions_and_captions() -> None:
    locomo = _module()
    from memory_core.models import Scope

    records = list(locomo.turns(_conversation()[0], Scope("project", "x")))
    assert len(records) == 35
    assert records[2].id == "conv-test:D1:3"
    assert records[2].text == "Ana: Mostly salmon kibble. [shared an image: a dog bowl]"
    assert (records[2].session_id, records[2].seq) == ("session_1", 2)
    assert records[3].created_at > records[2].created_at


def test_the_bench_prints_the_documented_json_line(tmp_path: Path) -> None:
    data = tmp_path / "mini.json"
    data.write_text(json.dumps(_conversation()))
    done = subprocess.run(
        [sys.executable, str(_BENCH), "--data", str(data), "--json"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1
    result = json.loads(lines[0])
    assert list(result) == ["n", "r5_all", "r10_all", "r20_all", "ndcg10", "mrr20"]
    # Three scored questions: the one with no known evidence and the adversarial one are not.
    assert result["n"] == 3
    assert result["r5_all"] == 1.0
    assert result["mrr20"] == 1.0


def test_the_bench_can_write_to_a_named_store(tmp_path: Path) -> None:
    data = tmp_path / "mini.json"
    data.write_text(json.dumps(_conversation()))
    url = f"sqlite:///{tmp_path}/kept.db"
    done = subprocess.run(
        [sys.executable, str(_BENCH), "--data", str(data), "--store", url], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "R@10" in done.stdout
    from memory_core.models import Scope
    from memory_core.store.sqlite import SQLiteStore

    store = SQLiteStore.from_url(url)
    assert store.count([Scope("project", "bench-locomo/conv-test")]) == 35
    store.close()
