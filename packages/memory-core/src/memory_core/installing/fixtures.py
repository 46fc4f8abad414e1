"""The recorded payloads a harness package ships, found and loaded the same way for all four.

Each harness distribution keeps what the real program sent in `fixtures/` at its root, and its
wheel carries that folder inside the package as `<package>/fixtures/` (a `force-include` in the
distribution's `pyproject.toml`). So a source checkout (editable install) and an installed
wheel both find them: `bench/latency.py` and `bench_payloads()` run wherever the package is.

A recorded payload is a JSON object in a `*.json` file; folders whose name starts with `_` or
`.`, and `configs/` and `transcripts/` (config files and session logs, not payloads), are not
payloads. Failure: `FileNotFoundError` naming the package when neither place has its fixtures
(a broken install), `ValueError` for a named file that is not a JSON object.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

__all__ = ["fixtures_dir", "load_fixture", "load_fixtures", "NOT_PAYLOADS"]

NOT_PAYLOADS = frozenset({"configs", "transcripts"})
"""Fixture folders that hold recorded config files and session logs, not hook payloads."""


def _package_dir(package: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(f"{package} is not an installed package")
    return Path(next(iter(spec.submodule_search_locations))).resolve()


def fixtures_dir(package: str) -> Path:
    """The folder of `package`'s recorded payloads: in its wheel, or at its distribution's root."""
    here = _package_dir(package)
    for candidate in (here / "fixtures", here.parent.parent / "fixtures"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"no recorded payloads (fixtures/) beside {here}; reinstall {package}")


def load_fixture(package: str, name: str) -> dict[str, Any]:
    """One recorded payload of `package` by its path under `fixtures/`, e.g. `Stop.json`."""
    path = fixtures_dir(package) / name
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path} is not a recorded payload (a JSON object)")
    return data


def load_fixtures(package: str) -> dict[str, dict[str, Any]]:
    """Every recorded payload of `package`, by its path under `fixtures/` (`http/Stop.json`), sorted."""
    root = fixtures_dir(package)
    found: dict[str, dict[str, Any]] = {}
    for path in sorted(root.rglob("*.json")):
        parts = path.relative_to(root).parts
        if any(part.startswith(("_", ".")) or part in NOT_PAYLOADS for part in parts):
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            continue
        if isinstance(data, dict):
            found[path.relative_to(root).as_posix()] = data
    return found
