"""`memory demo`: the recall/capture loop, narrated, on a throwaway store. No keys, no server.

It plays two sessions of a coding agent through the same `MemoryService` the hooks use, on
an embedded store in a temporary folder that is removed at the end, and shows: a turn being
captured, a secret being redacted before storage, a later session recalling the fact with no
tool call, an unrelated prompt injecting nothing, and a `#nomemory` turn being dropped.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import textwrap
from pathlib import Path

from memory_core.config import Config
from memory_core.service import MemoryService

__all__ = ["register", "run_demo"]

_DEMO_KEY = "AKIA" + "Q7RW2ZT5VN3KD8PX"
"""A key-shaped value for the firewall to redact (AWS's documented `...EXAMPLE` key is kept as an
example since rules v3); built in two pieces so no secret scanner takes the source for a key."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `memory demo`."""
    p = subparsers.add_parser("demo", help="a narrated recall/capture loop on a throwaway store")
    p.add_argument("--keep", action="store_true", help="keep the throwaway store and print where it is")
    p.set_defaults(func=lambda args: run_demo(keep=args.keep))


def _say(text: str) -> None:
    print(textwrap.fill(text, width=96))


def _show(block: str) -> None:
    print(textwrap.indent(block if block else "(nothing: no header, no empty block)", "    | "))


def run_demo(*, keep: bool = False) -> int:
    """Run the demo; returns 0 when every step behaved as narrated, 1 otherwise."""
    folder = Path(tempfile.mkdtemp(prefix="memory-demo-"))
    env = {
        **os.environ,
        "MEMORY_URL": f"sqlite:///{folder / 'memory.db'}",
        "MEMORY_STATE_DIR": str(folder / "state"),
        "MEMORY_PROJECT": "demo:payments-service",
        "MEMORY_USER": "demo",
        "MEMORY_ENABLED": "1",
        "MEMORY_FIREWALL": "1",
    }
    env.pop("MEMORY_CONFIG", None)
    ok = True
    service = MemoryService(Config.from_env(env))
    try:
        print(f"A throwaway embedded store: {folder / 'memory.db'}\n")
        _say(
            "Session 1. The user tells the agent how this project is built. The harness's pre-model hook asks "
            "for recall (nothing is known yet), then its post-model hook hands us the turn to capture."
        )
        prompt = (
            "Remember: we run the test suite with `tox -e py311` and the deploy key lives in AWS "
            f"({_DEMO_KEY}). Never push without running tox."
        )
        first = service.assemble(prompt, harness="demo", session_id="s1", turn_id="t1")
        _show(first.text)
        outcome = service.capture(
            harness="demo",
            session_id="s1",
            turn_id="t1",
            response="Understood: I will run `tox -e py311` before every push.",
        )
        stored = service.records([outcome.record_id or ""])
        print(f"\ncaptured: {outcome.status}, id {outcome.record_id}. What was stored, after the firewall:")
        _show(stored[0].text if stored else "")
        ok &= bool(stored) and _DEMO_KEY not in stored[0].text
        print()
        _say(
            "Session 2, days later, a new session id. The user asks something related; recall runs before the "
            "model sees the prompt and injects the memory, with no tool call:"
        )
        second = service.assemble(
            "how do I run the tests before I push?", harness="demo", session_id="s2", turn_id="t1"
        )
        _show(second.text)
        ok &= bool(second.text) and "tox" in second.text
        print()
        _say("The same session asks about something unrelated. Nothing is relevant, so nothing is injected:")
        unrelated = service.assemble("what's a good name for a cat?", harness="demo", session_id="s2", turn_id="t2")
        _show(unrelated.text)
        ok &= unrelated.text == ""
        print()
        _say("A prompt containing #nomemory is never stored:")
        service.assemble("#nomemory here is my private note", harness="demo", session_id="s2", turn_id="t3")
        dropped = service.capture(harness="demo", session_id="s2", turn_id="t3", response="ok")
        print(f"    capture: {dropped.status} ({dropped.reason})")
        ok &= dropped.status == "dropped"
        print()
        counters = service.counters()
        print(f"counters: {', '.join(f'{k}={v}' for k, v in sorted(counters.items()))}")
        print("\nThe demo " + ("behaved as narrated." if ok else "did NOT behave as narrated: please report it."))
    finally:
        service.close()
        if keep:
            print(f"kept: {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    return 0 if ok else 1
