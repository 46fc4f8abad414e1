"""Write a big distractor store for `bench/recall.py --haystack`: one LoCoMo-layout file.

    python bench/haystack.py --out FILE [--include FILE ...] [--filler TURNS]

The file holds every sample of each `--include` file as it is (LoCoMo conversations, other coding
samples: `bench/recall.py` leaves out the sample it is scoring by its `sample_id`), plus
`--filler` synthetic coding turns from the latency bench's generator (`bench/latency.py`:
project-specific names, paths, errors and commands), in sessions of 24 turns, as coding data
(`speaker_a` is `user`, `speaker_b` is `assistant`), so each turn is captured as one record.
What a store looks like after months of use: mostly other subjects, some words shared.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from latency import _SEED, _TURNS_PER_SESSION, _turn

_FILLER_ID = "synthetic-coding-filler"


def filler(turns: int) -> dict[str, Any]:
    """`turns` synthetic coding turns as one coding sample, `_TURNS_PER_SESSION` to a session."""
    rng = random.Random(_SEED + 7)
    conversation: dict[str, Any] = {"speaker_a": "user", "speaker_b": "assistant"}
    for index in range(turns):
        session, seq = divmod(index, _TURNS_PER_SESSION)
        key = f"session_{session + 1}"
        if key not in conversation:
            day = 1 + session % 28
            conversation[f"{key}_date_time"] = f"10:00 am on {day} January, 2026"
            conversation[key] = []
        prompt, answer, _ = _turn(rng)
        conversation[key] += [
            {"speaker": "user", "dia_id": f"D{session + 1}:{2 * seq + 1}", "text": prompt},
            {"speaker": "assistant", "dia_id": f"D{session + 1}:{2 * seq + 2}", "text": answer},
        ]
    return {"sample_id": _FILLER_ID, "conversation": conversation, "qa": []}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--include", type=Path, action="append", default=[], help="a LoCoMo-layout file to add")
    parser.add_argument("--filler", type=int, default=0, help="synthetic coding turns to add")
    args = parser.parse_args(argv)
    samples: list[dict[str, Any]] = []
    for path in args.include:
        samples.extend(json.loads(path.read_text(encoding="utf-8")))
    if args.filler > 0:
        samples.append(filler(args.filler))
    args.out.write_text(json.dumps(samples, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
