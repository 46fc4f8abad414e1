"""What Hermes's interpreter has installed, asked of the interpreter itself.

One short subprocess (`<python> -c <script>`, the standard library only) reports Hermes's
version, every installed distribution's version, how memory-core and memory-hermes were
installed there (`direct_url.json`), and which of the optional modules we care about it can
import. The installer and `doctor` decide from this; nothing is imported into our process.

Failure: `HermesNotFound` when the interpreter does not run, answers garbage, or has no
hermes-agent (then it is not Hermes's interpreter).
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory_hermes.errors import HermesNotFound

__all__ = ["Probe", "probe_interpreter", "OUR_DISTS"]

OUR_DISTS = ("memory-core", "memory-hermes")
_TIMEOUT_S = 60
_MODULES = ("pip", "mcp", "redis", "psycopg", "memory_hermes.callbacks")
_SCRIPT = f"""
import json, sys
from importlib import metadata, util
def spec(name):
    try:
        return util.find_spec(name) is not None
    except Exception:
        return False
dists = {{}}
urls = {{}}
for dist in metadata.distributions():
    name = (dist.metadata["Name"] or "").lower().replace("_", "-")
    if not name or name in dists:
        continue
    dists[name] = dist.version
    if name in {OUR_DISTS!r}:
        urls[name] = dist.read_text("direct_url.json")
print(json.dumps({{
    "executable": sys.executable,
    "prefix": sys.prefix,
    "version": list(sys.version_info[:3]),
    "dists": dists,
    "direct_urls": urls,
    "modules": {{name: spec(name) for name in {_MODULES!r}}},
}}))
"""


@dataclass(frozen=True, slots=True)
class Probe:
    """Hermes's interpreter, as it described itself.

    Attributes:
        python: The interpreter asked.
        prefix: Its `sys.prefix` (the venv).
        hermes_version: hermes-agent's version there.
        dists: Every installed distribution, by normalised name, with its version.
        direct_urls: `direct_url.json` text of memory-core and memory-hermes there (None when
            installed from an index).
        modules: Whether `pip`, `mcp`, `redis`, `psycopg` and `memory_hermes.callbacks` import.
    """

    python: Path
    prefix: str
    hermes_version: str
    dists: dict[str, str]
    direct_urls: dict[str, str | None]
    modules: dict[str, bool]

    def has(self, module: str) -> bool:
        """Whether `module` (one of those probed) is importable there."""
        return self.modules.get(module, False)


def probe_interpreter(python: Path) -> Probe:
    """Ask `python` what it has installed."""
    try:
        done = subprocess.run(
            [str(python), "-c", _SCRIPT],
            # Run as Hermes runs (its environment, its user site), from a folder holding no
            # packages that could shadow the ones asked about.
            cwd=python.parent,
            capture_output=True,
            text=True,
            timeout=_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise HermesNotFound(f"Hermes's interpreter {python} did not run: {exc}") from exc
    try:
        data: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError) as exc:
        tail = " ".join((done.stdout + done.stderr).split())[-300:]
        raise HermesNotFound(f"{python} did not describe itself (exit {done.returncode}): {tail}") from exc
    dists = {str(k): str(v) for k, v in data.get("dists", {}).items()}
    hermes_version = dists.get("hermes-agent")
    if hermes_version is None:
        raise HermesNotFound(f"{python} has no hermes-agent installed: it is not Hermes's interpreter")
    return Probe(
        python=python,
        prefix=str(data.get("prefix", "")),
        hermes_version=hermes_version,
        dists=dists,
        direct_urls={str(k): (str(v) if v is not None else None) for k, v in data.get("direct_urls", {}).items()},
        modules={str(k): bool(v) for k, v in data.get("modules", {}).items()},
    )
