"""Throughput of `memory import claude` on a generated long session, and how it scales.

    python bench/import_throughput.py --turns 5000 [--store URL] [--json]

Writes a Claude Code session file of N turns (a prompt, hook output, a final answer and a
stop summary per turn, as Claude Code 2.1.332 writes them), imports it into a throwaway
embedded store (or --store), then measures a second run with nothing new (`--since-last`)
and a full re-read where every turn is already stored (`--all`). It also imports a session a
quarter as long into a fresh store: `scaling` is the ratio of the two times, about 4 when the
import is linear in the session's length.

Needs memory-claude installed (the transcript parser is its `ClaudeTranscripts`).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from memory_claude.transcript import ClaudeTranscripts
from memory_core.config import Config
from memory_core.harnesses.importing import run_import
from memory_core.service import MemoryService


def write_session(path: Path, turns: int) -> None:
    """A Claude Code session file of `turns` complete turns."""
    base: dict[str, object] = {"sessionId": path.stem, "cwd": "/home/dev/project", "timestamp": "2026-11-30T04:32:29Z"}
    with path.open("w", encoding="utf-8") as out:
        for n in range(turns):
            prompt = f"question {n}: how does module_{n} handle retries in the payments service?"
            answer = f"module_{n} retries three times with exponential backoff, then gives up. " * 4
            reply = {"id": f"m{n}", "content": [{"type": "text", "text": answer}], "stop_reason": "end_turn"}
            lines: list[dict[str, object]] = [
                {"type": "user", "promptId": f"p{n:07d}", "message": {"role": "user", "content": prompt}},
                {"type": "attachment", "attachment": {"type": "hook_additional_context", "content": ["x" * 200]}},
                {"type": "assistant", "message": reply},
                {"type": "system", "subtype": "stop_hook_summary"},
            ]
            out.writelines(json.dumps(base | line, separators=(",", ":")) + "\n" for line in lines)


def _service(folder: Path, url: str | None) -> MemoryService:
    env = {
        "HOME": str(folder),
        "MEMORY_URL": url or f"sqlite:///{folder / 'memory.db'}",
        "MEMORY_STATE_DIR": str(folder / "state"),
        "MEMORY_PROJECT": f"bench:import:{folder.name}",
    }
    return MemoryService(Config.from_env(env), long_lived=True)


def _timed(folder: Path, turns: int, url: str | None) -> tuple[float, MemoryService, ClaudeTranscripts]:
    projects = folder / "projects" / "x"
    projects.mkdir(parents=True)
    write_session(projects / f"s{turns}.jsonl", turns)
    svc = _service(folder, url)
    source = ClaudeTranscripts(folder / "projects")
    began = time.perf_counter()
    report = run_import(svc, source, source.find())
    elapsed = time.perf_counter() - began
    if report.stored != turns:
        raise SystemExit(f"stored {report.stored} of {turns} turns: {report.summary()}")
    return elapsed, svc, source


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=5000)
    parser.add_argument("--store", default=None, help="a store URL (default: a throwaway embedded store)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-import-") as tmp:
        root = Path(tmp)
        full_s, svc, source = _timed(root / "full", args.turns, args.store)
        size = sum(p.stat().st_size for p in source.find())
        began = time.perf_counter()
        run_import(svc, source, source.find())
        again_s = time.perf_counter() - began
        began = time.perf_counter()
        run_import(svc, source, source.find(), from_start=True)
        reread_s = time.perf_counter() - began
        svc.store.close()
        quarter_s, small, _ = _timed(root / "quarter", max(1, args.turns // 4), args.store)
        small.store.close()
    figures = {
        "turns": args.turns,
        "megabytes": round(size / 1e6, 2),
        "import_s": round(full_s, 3),
        "turns_per_s": round(args.turns / full_s, 1),
        "since_last_nothing_new_s": round(again_s, 3),
        "reread_all_duplicates_s": round(reread_s, 3),
        "scaling_4x_turns": round(full_s / quarter_s, 2),
    }
    if args.json:
        print(json.dumps(figures, sort_keys=True))
    else:
        for key, value in figures.items():
            print(f"{key:26} {value}")


if __name__ == "__main__":
    main()
