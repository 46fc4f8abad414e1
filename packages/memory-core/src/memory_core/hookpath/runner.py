"""The hook process: payload on stdin, the harness's response on stdout, exit 0, always.

A harness package's hook module is just:

    from memory_core.hookpath.runner import main
    from memory_claude.adapter import ClaudeHooks

    if __name__ == "__main__":
        main(ClaudeHooks())

Promises (DESIGN.md, rules of the hook path): the response is built as one string and
written once; nothing is written when there is nothing to inject; the exit status is 0
whatever happens; every swallowed error is one log line and a failure counter. Only the
standard library and memory-core's own light modules are imported.

An adapter may declare `max_context_tokens` (`memory_core.harnesses.contract.CapsContext`;
Codex documents a 2,500-token limit on injected context): the block is then capped there
whatever `MEMORY_MAX_TOKENS` says.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace

from memory_core.config import Config
from memory_core.harnesses.contract import CapsContext, HookAdapter
from memory_core.localstate.logbook import Logbook
from memory_core.models import EventKind, HookEvent
from memory_core.service import MemoryService

__all__ = ["run", "main", "config_for"]


def config_for(adapter: HookAdapter) -> Config:
    """The configuration for `adapter`: the environment's, with its `max_context_tokens` cap applied."""
    config = Config.from_env()
    if isinstance(adapter, CapsContext) and adapter.max_context_tokens < config.max_tokens:
        config = replace(config, max_tokens=adapter.max_context_tokens)
    return config


def run(
    adapter: HookAdapter,
    raw: bytes,
    *,
    config: Config | None = None,
    service: MemoryService | None = None,
    handled: list[HookEvent] | None = None,
) -> str:
    """Handle one payload and return the exact text to print ("" for nothing). Never raises.

    A long-lived caller (the worker) passes its `service`, which is then used and left open;
    otherwise a service is built for this one call and closed after it. A caller that does more
    after the answer is sent (the worker reads the transcript) passes `handled`, and the event is
    appended to it once handled.
    """
    try:
        config = config if config is not None else service.config if service is not None else config_for(adapter)
    except Exception as exc:  # noqa: BLE001 - even a broken environment must not fail the turn
        sys.stderr.write(f"memory: {type(exc).__name__}: {exc}\n")
        return ""
    if not config.enabled:
        return ""
    try:
        payload = json.loads(raw.decode("utf-8", errors="replace") or "{}")
        if b"\\u" in raw:
            # Only a `\u` escape can carry a NUL or a lone surrogate into a JSON string: clean
            # them here, before an adapter hashes an id or a path with them.
            from memory_core.textnorm import clean_tree

            payload = clean_tree(payload)
        if not isinstance(payload, dict):
            raise ValueError("the hook payload is not a JSON object")
        event = adapter.parse(payload)
    except Exception as exc:  # noqa: BLE001 - a payload we cannot read is logged, not fatal
        Logbook(config.log_path, config.state_dir).error(f"{adapter.name}.parse", exc)
        return ""
    if event.kind is EventKind.IGNORE:
        return ""
    owned = service is None
    if service is None:
        service = MemoryService(config, cwd=event.cwd)
    recall = service.handle(event)
    if handled is not None:
        handled.append(event)
    try:
        return adapter.render(event, recall) if recall.text else ""
    except Exception as exc:  # noqa: BLE001
        service.logbook.error(f"{adapter.name}.render", exc)
        return ""
    finally:
        if owned:
            service.close()


def main(adapter: HookAdapter) -> None:
    """Read the payload from stdin, print the response once, exit 0."""
    try:
        raw = sys.stdin.buffer.read()
        out = run(adapter, raw)
        if out:
            sys.stdout.write(out)
            sys.stdout.flush()
    except BaseException:  # noqa: BLE001, S110 - exit 0 is the contract, even on Ctrl-C
        pass
    # Skip interpreter teardown (atexit, GC of every module): it is pure cost for a hook.
    os._exit(0)
