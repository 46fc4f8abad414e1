"""`HermesHooks`: the hook-adapter half of the Hermes harness, the same shape as the others'.

Hermes calls the plugin in-process, so no hook process ever loads this; the plugin's callbacks
(`memory_hermes.callbacks`) and the core's harness conformance suite and benchmarks do, over
the call envelope `{"hook": <name>, "kwargs": {...}}` (see `memory_hermes.protocol`).
Failure: `parse` raises `ValueError` for an envelope without what its hook needs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memory_core.models import HookEvent, Recall

from memory_hermes.protocol import HARNESS, MAX_CONTEXT_TOKENS, parse_call, render_context

__all__ = ["HermesHooks"]


class HermesHooks:
    """Parse a Hermes hook call; render what `pre_llm_call` returns as context."""

    name: str = HARNESS
    max_context_tokens: int = MAX_CONTEXT_TOKENS
    """Hermes replays injected context into every later turn: the block stays small."""

    def parse(self, payload: Mapping[str, Any]) -> HookEvent:
        """Parse one plugin call envelope."""
        return parse_call(payload)

    def render(self, event: HookEvent, recall: Recall) -> str:
        """The context text `pre_llm_call` returns ("" when nothing is injected)."""
        return render_context(event, recall)
