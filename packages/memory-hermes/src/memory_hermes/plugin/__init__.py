"""The Hermes plugin: `register(ctx)` hooks memory recall and capture into Hermes's agent loop.

This one file serves both routes Hermes loads plugins by: the directory plugin
(`~/.hermes/plugins/memory-hermes/`, a copy `memory install hermes` makes, imported by Hermes
as `hermes_plugins.memory_hermes`) and the `hermes_agent.plugins` entry point
`memory-hermes = memory_hermes.plugin`. Both carry the same name, so Hermes loads it once.

It runs in Hermes's own interpreter and only imports `memory_hermes` from there; when that is
missing (the copy outlived the package), it logs one warning through Hermes's logging and
registers nothing, so Hermes runs on without memory.
"""

from __future__ import annotations

import logging
from typing import Any

__all__ = ["register"]


def register(ctx: Any) -> None:
    """Register `pre_llm_call` (recall) and `post_llm_call` (capture) with Hermes."""
    try:
        from memory_hermes.callbacks import register as register_hooks
    except ImportError as exc:
        logging.getLogger(__name__).warning(
            "memory-hermes is not importable in this interpreter (%s); run `memory install hermes`", exc
        )
        return
    register_hooks(ctx)
