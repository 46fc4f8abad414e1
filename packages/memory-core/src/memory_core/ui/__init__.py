"""`memory ui`: a local web page over the configured store (the `memory-core[ui]` extra).

`serve` starts it; `build_app` is the ASGI application behind it (tests drive it directly).
Nothing on the hook path or in a plain install imports this package: it needs Starlette,
uvicorn and Jinja2, which only the `ui` extra installs. `memory_core.ui.server` states the
launch's safety promises, `memory_core.ui.guard` enforces them per request.
"""

from __future__ import annotations

__all__ = ["serve", "build_app", "MISSING_EXTRA"]

MISSING_EXTRA = "memory ui needs the ui extra: pip install 'memory-core[ui]'"


def __getattr__(name: str) -> object:
    # Lazy, so `import memory_core.ui` alone (for MISSING_EXTRA) never imports Starlette.
    if name == "serve":
        from memory_core.ui.server import serve

        return serve
    if name == "build_app":
        from memory_core.ui.app import build_app

        return build_app
    raise AttributeError(name)
