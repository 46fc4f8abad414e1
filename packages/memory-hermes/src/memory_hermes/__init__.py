"""memory-hermes: subconscious memory for Hermes Agent, as an in-process Hermes plugin.

The plugin (`memory_hermes.plugin`, a Hermes `plugin.yaml` plus `register(ctx)`) recalls
memories of this project into each turn through `pre_llm_call` and captures each finished
turn through `post_llm_call`; `memory install hermes` makes it importable in Hermes's own
interpreter, copies it into `~/.hermes/plugins/`, enables it and registers the MCP server.

Importing this package costs nothing beyond its version: every module is loaded on use.
"""

from __future__ import annotations

from memory_hermes.version import __version__

__all__ = ["__version__", "PLUGIN_NAME"]

PLUGIN_NAME = "memory-hermes"
"""The plugin's name in Hermes: its folder under `~/.hermes/plugins/`, its `plugins.enabled`
entry and its `hermes_agent.plugins` entry point, all the same so Hermes loads it once."""
