"""memory-core: subconscious memory for coding agents.

The public surface is re-exported lazily so that `import memory_core` costs almost nothing on
the hook path: each name is imported on first use.
"""

from memory_core.version import __version__

# Not `typing.TYPE_CHECKING`: importing typing costs a hook a measurable share of its start-up,
# and every hook imports this package. Type checkers treat this name the same way.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from memory_core.config import Config
    from memory_core.errors import ConfigError, FirewallBlocked, MemoryCoreError, NotFound, StoreError, StoreUnavailable
    from memory_core.models import CaptureOutcome, EventKind, Hit, HookEvent, Recall, Record, Scope
    from memory_core.service import MemoryService

__all__ = [
    "__version__",
    "Config",
    "MemoryService",
    "MemoryCoreError",
    "ConfigError",
    "StoreError",
    "StoreUnavailable",
    "FirewallBlocked",
    "NotFound",
    "Record",
    "Scope",
    "Hit",
    "HookEvent",
    "EventKind",
    "Recall",
    "CaptureOutcome",
]

_HOMES = {
    "Config": "memory_core.config",
    "MemoryService": "memory_core.service",
    "MemoryCoreError": "memory_core.errors",
    "ConfigError": "memory_core.errors",
    "StoreError": "memory_core.errors",
    "StoreUnavailable": "memory_core.errors",
    "FirewallBlocked": "memory_core.errors",
    "NotFound": "memory_core.errors",
    "Record": "memory_core.models",
    "Scope": "memory_core.models",
    "Hit": "memory_core.models",
    "HookEvent": "memory_core.models",
    "EventKind": "memory_core.models",
    "Recall": "memory_core.models",
    "CaptureOutcome": "memory_core.models",
}


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'memory_core' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(home), name)
