"""`MemoryService` is the one door: the CLI, the UI, the MCP server and the harness packages never reach
the store, the spool or a private part of the service around it.

Read from the source rather than promised in a comment: a new command that calls
`svc.store.scan(...)` fails here and names the line, so the operation gets a service method
(and with it the firewall, the outage handling and the counters every caller shares).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

_PACKAGES = Path(__file__).resolve().parents[2]
_CALLERS = [
    _PACKAGES / "memory-core" / "src" / "memory_core" / "cli",
    _PACKAGES / "memory-core" / "src" / "memory_core" / "ui",
    *(p for p in sorted(_PACKAGES.glob("memory-*/src/memory_*")) if p.name != "memory_core"),
]
_INSIDE = {"store", "_store", "spool", "_put_turn", "_guard", "_drain", "retriever"}
"""Attributes of a service a caller must not touch (its own `self.store` is another object's)."""


def _reaches(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr in _INSIDE:
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id == "self":
                continue
            found.append(f"{path.relative_to(_PACKAGES)}:{node.lineno}: .{node.attr}")
        if (
            isinstance(node, ast.ImportFrom)
            and (node.module or "").startswith("memory_core.cli")
            and "cli" not in path.parts
        ):
            found.append(f"{path.relative_to(_PACKAGES)}:{node.lineno}: imports {node.module}")
    return found


@pytest.mark.parametrize("folder", _CALLERS, ids=lambda p: p.parent.parent.name + "/" + p.name)
def test_callers_use_only_the_service(folder: Path) -> None:
    assert folder.is_dir()
    reaches = [line for path in sorted(folder.rglob("*.py")) for line in _reaches(path)]
    assert reaches == []
