"""Latency of recall and capture, as ratios to the interpreter floor measured in the same run.

    python bench/latency.py --records 100000 [--store URL] [--runs 200] [--harness NAME] [--tool-calls N] [--json]

Seeds N realistic coding-turn records into one project (a throwaway embedded store unless
--store names one; a named store gets its own project key, and the seeded records stay
there), then measures, interleaved so that machine noise hits every series alike:

- the interpreter floor: `python -c pass`, as a subprocess;
- in-process `assemble` (recall for a prompt, with a fresh session each time) and `capture`;
- for each installed harness package with a command hook: its read and write hooks as the
  harness runs them (a subprocess, a recorded payload on stdin, fresh session and turn ids),
  in steady state: the per-user worker the first hook call starts is warm before timing;
- and the same hooks on a cold turn, when no worker answers: `MEMORY_WORKER=0`, so the hook
  process imports the engine (pydantic, the store's client) and handles the payload itself,
  which is what the first turn after a log-in, a crash or a settings change costs.

With `--vectors`, every seeded record also has the passage vectors of the product's model (the
embedder is loaded in the bench's process, as in the worker): each record gets one or two vectors
(the development sessions' ~1.5 passages a turn), each a real embedding of one of `_BASES`
synthetic turns of the same generator plus a little noise, so the prompt-to-passage cosines and
the inject decision behave as with real turns while seeding stays minutes, not days (embedding
150,000 passages would take hours here). The scope's vector cache is loaded before timing, and
each timed recall starts once the vectors of the previous run's capture are written (a real next
prompt comes seconds after a turn's capture, whose vectors take ~0.5 s). The run then also times
the prompt's embedding alone (`embed_p95_ms`), the floor of what a recall with vectors can cost.
Without `--vectors`, the service still loads the model but no record has a vector.

With `--tool-calls N`, every Claude Code write hook names a transcript (written for its fresh
session, in Claude Code's format, by `bench/timeline.py`) whose turn made N tool calls: the
worker then reads and stores the turn's timeline after answering the hook, as it does for a real
turn, so the series show whether that work (off the hook's clock) reaches the next hooks.

Before timing, the bench compiles the bytecode of memory-core and of each measured harness
package, as pip does when it installs a wheel: an editable checkout run with
`PYTHONDONTWRITEBYTECODE=1` (this machine's default) never has any, so every cold turn would
also compile about seventy modules from source, a cost no installed package pays. `--no-compile`
measures the checkout as it is.

`--json` prints one line: vectors (whether records had them), bytecode (whether the bench compiled it), floor_p95_ms,
assemble_p50_ms, assemble_p95_ms, capture_p50_ms, capture_p95_ms, per harness
<name>_read_p95_ms, <name>_write_p95_ms, <name>_cold_read_p95_ms and <name>_cold_write_p95_ms,
and each figure's ratio to the floor (`*_x_floor`).
"""

from __future__ import annotations

import argparse
import compileall
import importlib.util
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from memory_core.config import Config
from memory_core.firewall import Firewall
from memory_core.harnesses.contract import discover_harnesses
from memory_core.hookpath.client import socket_path, worker_environment
from memory_core.hookpath.worker import stop_worker
from memory_core.models import Record, Scope
from memory_core.retrieval.tokenizer import index_terms
from memory_core.service import MemoryService, turn_record_id, turn_text
from memory_core.store import open_store
from memory_core.store.base import Vectors
from memory_core.store.sqlite import SQLiteStore
from memory_core.textnorm import clean_text

_SEED = 20261130
_CORPUS_VERSION = 2
_TURNS_PER_SESSION = 24
_BATCH = 5000
_BASES = 256
"""Distinct real embeddings the `--vectors` seed draws from: a cosine of a prompt to its nearest
base is as real as the model makes it; 256 turns take ~30 s to embed once."""
_NOISE = 0.01
"""Per value, on 384 values: each seeded vector keeps a cosine of ~0.98 to its base, so the
compact form's sign bits and pool see distinct rows, not 256 repeated ones."""

_MODULES = ["billing", "auth", "ingest", "search", "export", "scheduler", "gateway", "cache", "metrics", "audit"]
_THINGS = [
    "retry policy",
    "connection pool",
    "migration",
    "feature flag",
    "rate limiter",
    "webhook",
    "index",
    "config loader",
    "test fixture",
    "serializer",
    "queue consumer",
    "session store",
    "CLI flag",
]
_VERBS = ["fix", "refactor", "add", "remove", "rename", "speed up", "document", "test", "debug", "review"]
_ERRORS = [
    "TimeoutError",
    "KeyError: 'tenant_id'",
    "IntegrityError",
    "ConnectionResetError",
    "AssertionError",
    "ValueError: invalid literal",
    "PermissionError",
    "RecursionError",
    "UnicodeDecodeError",
]
_TOOLS = [
    "pytest -k",
    "tox -e py311",
    "ruff check",
    "mypy --strict",
    "docker compose up",
    "make lint",
    "npm test",
    "alembic upgrade head",
    "git bisect",
    "pre-commit run",
]
_QUERIES = [
    "why does the billing retry policy time out?",
    "how do we run the auth tests?",
    "what did we decide about the ingest connection pool size?",
    "where is the rate limiter configured in the gateway?",
    "which command runs the migrations for export?",
    "remind me how the scheduler queue consumer handles KeyError",
    "what's the plan for the cache serializer refactor?",
    "how did we fix the IntegrityError in audit?",
    "what is a good name for a cat?",
    "summarise the weather in Lisbon",
]


_SYLLABLES = ["ka", "zu", "mi", "tor", "len", "vax", "qui", "ro", "bel", "dan", "fio", "gra", "hul", "jex"]
_SYLLABLES += ["kor", "lum", "nep", "pax", "rin", "sol", "tev", "ulm", "vor", "wex", "yal", "zen", "bro", "cha"]


def _vocabulary(size: int) -> list[str]:
    """Project-specific names (modules, functions, classes): what makes a real project's turns
    distinguishable, and what real questions name."""
    rng = random.Random(_SEED - 1)
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 3))))
    return sorted(words)


_NAMES = _vocabulary(6000)


def _turn(rng: random.Random) -> tuple[str, str, str]:
    """One synthetic coding turn: (prompt, answer, the function it is about)."""
    module, thing, verb = rng.choice(_MODULES), rng.choice(_THINGS), rng.choice(_VERBS)
    first, second, third = rng.choice(_NAMES), rng.choice(_NAMES), rng.choice(_NAMES)
    path = f"src/{module}/{first}_{thing.replace(' ', '_')}.py"
    func = f"{verb.replace(' ', '_')}_{first}_{second}"
    cls = f"{second.capitalize()}{third.capitalize()}Handler"
    error, tool = rng.choice(_ERRORS), rng.choice(_TOOLS)
    prompt = rng.choice(
        [
            f"Can you {verb} the {thing} in {module}? It fails with {error} when {func} runs.",
            f"Please {verb} {path}: the {thing} in {cls} is flaky under load.",
            f"Run `{tool}` for {module} and tell me what breaks in {func}.",
            f"What does {module}.{func} do with the {thing}?",
        ]
    )
    answer = (
        f"I looked at `{path}`. The {thing} in {cls} raised {error} because {func} reused a closed handle. "
        f"I changed it to open a fresh one per call and added a regression test; `{tool}` passes now. "
        f"Follow-up: the {rng.choice(_THINGS)} in {rng.choice(_MODULES)} has the same pattern."
    )
    return prompt, answer, func


def seed(url: str, project: str, count: int, *, user: str = "bench") -> list[str]:
    """Write `count` records of synthetic coding turns into `project` (skips ids already there).

    Each record is what `capture` would store for the turn: the firewalled text, the turn's id,
    its position in its session and its index terms. They are written through the store's bulk
    write (`put_many`, one transaction per batch) where the store has one, else one by one:
    the service's per-turn path would take hours for a million records, and what recall then
    reads is the same.

    Returns a sample of the functions the turns are about, for questions that name them.
    """
    rng = random.Random(_SEED)
    firewall = Firewall(enabled=True)
    store = open_store(url, timeout=30.0, allow_db0=False)
    bulk = getattr(store, "put_many", None)
    scope = Scope("project", project)
    start = time.time() - count * 60.0
    about: list[str] = []
    batch: list[tuple[Record, dict[str, int]]] = []

    def flush() -> None:
        if bulk is not None:
            bulk(batch)
        else:
            for record, terms in batch:
                store.put(record, terms)
        batch.clear()

    try:
        for index in range(count):
            session, seq = divmod(index, _TURNS_PER_SESSION)
            prompt, answer, func = _turn(rng)
            if index % 97 == 0:
                about.append(func)
            session_id = f"seed-{session}"
            verdict = firewall.check_turn(clean_text(prompt), clean_text(answer))
            record = Record(
                id=turn_record_id("bench", session_id, str(seq)),
                scope=scope,
                text=turn_text(verdict.prompt, verdict.response),
                author=user,
                created_at=start + index * 60.0,
                harness="bench",
                session_id=session_id,
                turn_id=str(seq),
                seq=seq,
            )
            batch.append((record, index_terms(record.text)))
            if len(batch) >= _BATCH:
                flush()
            if index and index % 50000 == 0:
                sys.stderr.write(f"seeded {index}/{count}\n")
        flush()
        if isinstance(store, SQLiteStore):
            store.checkpoint(truncate=True)
    finally:
        store.close()
    return about


def give_vectors(url: str) -> int:
    """Give every record of the store lacking vectors of the product's model one or two (see the
    module docstring); the count given. Raises `RuntimeError` when the model does not load.
    """
    import numpy as np
    from memory_core.embedding import load_embedder, passages, to_bytes

    embedder, problem = load_embedder()
    if embedder is None:
        raise RuntimeError(f"--vectors needs the embedding model: {problem}")
    rng = random.Random(_SEED + 2)
    texts = [passages(turn_text(*_turn(rng)[:2]))[0] for _ in range(_BASES)]
    bases = embedder.embed_passages(texts)
    noise = np.random.default_rng(_SEED)
    store = open_store(url, timeout=30.0, allow_db0=False)
    given = 0
    try:
        assert isinstance(store, Vectors)
        # Large batches: each call scans past every record already given vectors (newest first).
        while batch := store.unvectored(None, embedder.model_id, limit=10 * _BATCH):
            for record in batch:
                pick = noise.integers(0, _BASES, size=1 + int(noise.random() < 0.5))
                rows = bases[pick] + noise.standard_normal((len(pick), embedder.dim)) * _NOISE
                rows /= np.linalg.norm(rows, axis=1, keepdims=True)
                store.put_vectors(record.id, embedder.model_id, to_bytes(rows.astype(np.float32)))
                given += 1
            sys.stderr.write(f"vectors for {given} records\n")
        if isinstance(store, SQLiteStore):
            store.checkpoint(truncate=True)
    finally:
        store.close()
    return given


def print_timings(result: dict[str, Any]) -> None:
    """Each `*_ms` figure of a result, with its ratio to the floor where it has one."""
    for key in sorted(k for k in result if k.endswith("_ms") and k != "floor_p95_ms"):
        ratio = result.get(key.replace("_ms", "_x_floor"))
        suffix = f"   {ratio:.2f}x floor" if ratio is not None else ""
        print(f"{key:<28}{result[key]:8.2f} ms{suffix}")


def seeded_copy(count: int, workdir: Path, *, vectors: bool = False) -> tuple[str, list[str]]:
    """An embedded store holding the seed, copied from a cache under the temp folder.

    The cache is keyed by the corpus version and the count, built once (into a partial file,
    renamed when complete, so an interrupted seed is never reused); each run measures a copy,
    since the run's captures add to it.
    """
    cache = Path(tempfile.gettempdir()) / f"memory-bench-seed-v{_CORPUS_VERSION}-{count}.db"
    about_file = cache.with_suffix(".about.json")
    if vectors:
        plain, about = seeded_copy(count, workdir)
        cache = cache.with_name(f"{cache.stem}-vectors.db")
        if not cache.exists():
            partial = cache.with_suffix(".partial")
            for leftover in (partial, Path(f"{partial}-wal"), Path(f"{partial}-shm")):
                leftover.unlink(missing_ok=True)
            shutil.copyfile(plain.removeprefix("sqlite:///"), partial)
            give_vectors(f"sqlite:///{partial}")
            os.replace(partial, cache)
        shutil.copyfile(cache, workdir / "bench.db")
        return plain, about
    if not (cache.exists() and about_file.exists()):
        partial = cache.with_suffix(".partial")
        for leftover in (partial, Path(f"{partial}-wal"), Path(f"{partial}-shm")):
            leftover.unlink(missing_ok=True)
        about = seed(f"sqlite:///{partial}", _project(count), count)
        about_file.write_text(json.dumps(about))
        os.replace(partial, cache)
    target = workdir / "bench.db"
    shutil.copyfile(cache, target)
    return f"sqlite:///{target}", json.loads(about_file.read_text())


def compile_bytecode(packages: list[str]) -> None:
    """Write the bytecode of each package's modules (`__pycache__`), as pip's install does.

    An unchanged module's bytecode is kept; a changed one's is rewritten, so a later edit is
    never measured against stale bytecode (Python checks the source's time stamp anyway).
    """
    for name in packages:
        spec = importlib.util.find_spec(name)
        for folder in (spec.submodule_search_locations or []) if spec else []:
            compileall.compile_dir(folder, quiet=1)


def _project(count: int) -> str:
    # The corpus version is in the key: a named store keeps earlier seeds, and records of an
    # older generator under the same ids would silently stand in for this one's.
    return f"bench:latency-v{_CORPUS_VERSION}-{count}"


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))] * 1000.0


def _fresh(payload: dict[str, Any], transcripts: Path | None = None, tool_calls: int = 0) -> dict[str, Any]:
    """A recorded payload with new session and turn ids, so no run is a duplicate of another.

    With `transcripts` and a Claude Code write payload, the payload names a transcript of its
    turn with `tool_calls` tool calls, written there.
    """
    out = dict(payload)
    for key in ("session_id", "prompt_id", "turn_id"):
        if key in out:
            out[key] = str(uuid.uuid4())
    if transcripts is not None and tool_calls and "transcript_path" in out and "prompt_id" in out:
        from timeline import claude_turn_lines  # bench/timeline.py, beside this script

        path = transcripts / f"{out['session_id']}.jsonl"
        lines = claude_turn_lines(out["session_id"], out["prompt_id"], 0, tool_calls)
        path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        out["transcript_path"] = str(path)
    ctx = out.get("ctx")
    if isinstance(ctx, dict):  # OpenClaw carries its ids in the hook's context
        out["ctx"] = {**ctx, **{k: str(uuid.uuid4()) for k in ("sessionId", "runId") if k in ctx}}
    return out


def _time_subprocess(argv: list[str], stdin: bytes, env: dict[str, str]) -> float:
    begin = time.perf_counter()
    subprocess.run(argv, input=stdin, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - begin


def _wait_for_worker(env: dict[str, str]) -> str | None:
    """The socket of the worker the hooks started, once it listens (None if none came up)."""
    path = socket_path(worker_environment(env), env)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if os.path.exists(path):
            return path
        time.sleep(0.05)
    return None


def _query(rng: random.Random, about: list[str]) -> str:
    """Most questions name something the project has talked about; some are generic; some are
    unrelated (and must inject nothing)."""
    roll = rng.random()
    if roll < 0.6 and about:
        func = rng.choice(about)
        return rng.choice([f"why does {func} fail again?", f"what did we change in {func}?", f"is {func} fixed?"])
    return rng.choice(_QUERIES)


def measure(
    url: str,
    project: str,
    runs: int,
    workdir: Path,
    about: list[str],
    only: set[str] | None = None,
    tool_calls: int = 0,
    vectors: bool = False,
) -> dict[str, Any]:
    """Every series of the module docstring, interleaved run by run."""
    transcripts = workdir / "transcripts"
    transcripts.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "MEMORY_URL": url,
        "MEMORY_PROJECT": project,
        "MEMORY_STATE_DIR": str(workdir / "state"),
        "MEMORY_USER": "bench",
    }
    config = Config.from_env(env)
    service = MemoryService(config, long_lived=True)
    rng = random.Random(_SEED + 1)
    series: dict[str, list[float]] = {"floor": [], "assemble": [], "capture": [], "embed": []}
    cold_env = {**env, "MEMORY_WORKER": "0"}
    hooks: list[tuple[str, list[str], dict[str, Any], dict[str, str]]] = []
    harnesses, _ = discover_harnesses()
    for name, harness in sorted(harnesses.items()):
        argv = harness.hook_argv()
        if not argv or (only and name not in only):
            continue
        read, write = harness.bench_payloads()
        for kind, payload in (("read", read), ("write", write)):
            hooks.append((f"{name}_{kind}", argv, payload, env))
            hooks.append((f"{name}_cold_{kind}", argv, payload, cold_env))
    series.update({key: [] for key, *_ in hooks})

    # Warm the page cache, the imports, and each hook's worker (the first hook call starts it).
    service.assemble(_QUERIES[0], harness="bench", session_id="warm", turn_id="w")
    embedder = service.embedder if vectors else None
    if vectors:
        if embedder is None:
            raise RuntimeError(f"--vectors needs the embedding model: {service.embedder_problem}")
        service.store._vectors.wait(3600)  # type: ignore[attr-defined]  # the scope's cache, loaded in the background
        service.assemble(_QUERIES[0], harness="bench", session_id="warm", turn_id="w2")
    for _ in range(3):
        _time_subprocess([sys.executable, "-c", "pass"], b"", env)
    for _key, argv, payload, hook_env in hooks:
        _time_subprocess(argv, json.dumps(_fresh(payload)).encode(), hook_env)
    worker_socket = _wait_for_worker(env) if hooks else None
    injected = 0
    for run in range(runs):
        series["floor"].append(_time_subprocess([sys.executable, "-c", "pass"], b"", env))
        query = _query(rng, about)
        session = f"bench-{run}"
        writer = service._vector_writer
        if vectors and writer is not None:
            writer.idle.wait(30)  # the last capture's vectors are written, as before a real next prompt
        if embedder is not None:
            begin = time.perf_counter()
            embedder.embed_query(query)
            series["embed"].append(time.perf_counter() - begin)
        begin = time.perf_counter()
        recall = service.assemble(query, harness="bench", session_id=session, turn_id="t")
        series["assemble"].append(time.perf_counter() - begin)
        injected += bool(recall.text)
        prompt, answer, _ = _turn(rng)
        begin = time.perf_counter()
        service.capture(harness="bench", session_id=session, turn_id="t", prompt=prompt, response=answer)
        series["capture"].append(time.perf_counter() - begin)
        for key, argv, payload, hook_env in hooks:
            stdin = json.dumps(_fresh(payload, transcripts, tool_calls)).encode()
            series[key].append(_time_subprocess(argv, stdin, hook_env))
    if worker_socket is not None:
        stop_worker(worker_socket)
    if service._store is not None:
        service._store.close()
    floor = _p(series["floor"], 0.95)
    result: dict[str, Any] = {
        "records": None,
        "runs": runs,
        "floor_p95_ms": round(floor, 2),
        "assemble_p50_ms": round(_p(series["assemble"], 0.5), 3),
        "assemble_p95_ms": round(_p(series["assemble"], 0.95), 3),
        "capture_p50_ms": round(_p(series["capture"], 0.5), 3),
        "capture_p95_ms": round(_p(series["capture"], 0.95), 3),
        "assemble_injected_share": round(injected / runs, 3) if runs else 0.0,
        "vectors": vectors,
    }
    if series["embed"]:
        result["embed_p50_ms"] = round(_p(series["embed"], 0.5), 3)
        result["embed_p95_ms"] = round(_p(series["embed"], 0.95), 3)
    for key, *_ in hooks:
        result[f"{key}_p95_ms"] = round(_p(series[key], 0.95), 2)
    for key in [k for k in result if k.endswith("_p95_ms") and k != "floor_p95_ms"]:
        result[key.replace("_p95_ms", "_p95_x_floor")] = round(result[key] / floor, 3) if floor else None
    result["floor_p50_ms"] = round(statistics.median(series["floor"]) * 1000, 2)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=10000)
    parser.add_argument("--store", default=None, help="a store URL (default: a throwaway embedded store)")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--harness", action="append", help="measure only this harness's hooks (repeatable; default: every one)"
    )
    parser.add_argument(
        "--no-compile", action="store_true", help="do not write the packages' bytecode first (see the docstring)"
    )
    parser.add_argument(
        "--vectors", action="store_true", help="every record has vectors of the product's model (see the docstring)"
    )
    parser.add_argument(
        "--tool-calls", type=int, default=0, help="each Claude Code turn made this many tool calls (see the docstring)"
    )
    args = parser.parse_args(argv)
    if not args.no_compile:
        harnesses, _ = discover_harnesses()
        wanted = [h for n, h in sorted(harnesses.items()) if not args.harness or n in args.harness]
        compile_bytecode(["memory_core", *sorted({type(h).__module__.split(".")[0] for h in wanted})])
    workdir = Path(tempfile.mkdtemp(prefix="memory-bench-"))
    project = _project(args.records)
    try:
        began = time.perf_counter()
        if args.store:
            url, about = args.store, seed(args.store, project, args.records)
            if args.vectors:
                give_vectors(args.store)
        else:
            url, about = seeded_copy(args.records, workdir, vectors=args.vectors)
        seeded_s = time.perf_counter() - began
        result = measure(
            url, project, args.runs, workdir, about, set(args.harness or ()), args.tool_calls, args.vectors
        )
        result["tool_calls"] = args.tool_calls
        result["records"] = args.records
        result["store"] = url.split(":", 1)[0] if args.store else "sqlite (throwaway)"
        result["seed_s"] = round(seeded_s, 1)
        result["bytecode"] = not args.no_compile
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if args.json:
        print(json.dumps(result, sort_keys=True))
        return 0
    print(f"{result['records']} records in scope, {result['runs']} runs, store {result['store']}")
    print(f"interpreter floor p95       {result['floor_p95_ms']:8.2f} ms")
    print(f"recalls that injected       {result['assemble_injected_share']:8.0%}")
    print_timings(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
