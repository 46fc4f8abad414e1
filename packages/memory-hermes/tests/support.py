"""Test helpers: the recorded Hermes 0.19.0 calls, and a stand-in for Hermes's plugin context."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memory_core.installing import load_fixture


def recorded(name: str) -> dict[str, Any]:
    """A recorded Hermes 0.19.0 call from fixtures/: `{"hook", "kwargs", ...}`."""
    return load_fixture("memory_hermes", name)


class HookRegistry:
    """Hermes's `PluginContext.register_hook` surface, keeping what was registered.

    Hermes itself is exercised in the end-to-end tests; here the callbacks are called the
    way Hermes's `invoke_hook` calls them: `callback(**kwargs)`, synchronously.
    """

    def __init__(self) -> None:
        self.hooks: dict[str, list[Callable[..., Any]]] = {}

    def register_hook(self, name: str, callback: Callable[..., Any]) -> None:
        self.hooks.setdefault(name, []).append(callback)

    def invoke(self, name: str, **kwargs: Any) -> list[Any]:
        results = []
        for callback in self.hooks.get(name, []):
            result = callback(**kwargs)
            if result is not None:
                results.append(result)
        return results
