"""The real Hermes for tests: hermes-agent (pinned) from the harness cache, seen through an
overlay venv so that installing our packages into "Hermes's interpreter" never touches the
cache other runs share.

The overlay is a fresh venv (with pip) whose `.pth` adds the cached venv's site-packages,
and whose `bin/hermes` is the cached launcher with the overlay's python in its shebang:
exactly the shape `memory install hermes` meets in the wild (a launcher naming a venv).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from memory_testing.harness_programs import HarnessInstallError, pip_package
from memory_testing.requirements import require

__all__ = ["HERMES_VERSION", "cached_hermes", "make_overlay", "site_packages"]

HERMES_VERSION = "0.19.0"
"""The version every recorded call in fixtures/ came from."""
_TIMEOUT_S = 300


def cached_hermes(*, extra: str | None = None) -> Path:
    """The cached hermes-agent venv, with `extra` if given (installed on first use; fails under CI otherwise)."""
    requirement = f"hermes-agent[{extra}]=={HERMES_VERSION}" if extra else f"hermes-agent=={HERMES_VERSION}"
    name = f"hermes-agent-{extra}" if extra else "hermes-agent"
    try:
        venv = pip_package(requirement, HERMES_VERSION, name=name)
    except HarnessInstallError as exc:
        require(False, f"{requirement} ({exc})")
        raise
    require((venv / "bin" / "hermes").exists(), f"the hermes launcher in {venv}")
    return venv


def _python_facts(python: Path) -> dict[str, str]:
    script = (
        "import json, sys, sysconfig; "
        "print(json.dumps({'base': sys._base_executable, 'purelib': sysconfig.get_paths()['purelib']}))"
    )
    done = subprocess.run([str(python), "-c", script], capture_output=True, text=True, check=True, timeout=_TIMEOUT_S)
    facts: dict[str, str] = json.loads(done.stdout)
    return facts


def site_packages(venv: Path) -> Path:
    """A venv's site-packages."""
    return Path(_python_facts(venv / "bin" / "python")["purelib"])


def make_overlay(base: Path, where: Path) -> Path:
    """An overlay venv at `where` over the cached Hermes venv `base`; returns `where`."""
    facts = _python_facts(base / "bin" / "python")
    subprocess.run([facts["base"], "-m", "venv", str(where)], check=True, capture_output=True, timeout=_TIMEOUT_S)
    python = where / "bin" / "python"
    own_site = site_packages(where)
    # `import` lines in a .pth run at start-up; addsitedir also reads the base's own .pth files.
    (own_site / "_hermes_base.pth").write_text(f"import site; site.addsitedir({facts['purelib']!r})\n")
    launcher = (base / "bin" / "hermes").read_text(encoding="utf-8").split("\n", 1)[1]
    hermes = where / "bin" / "hermes"
    hermes.write_text(f"#!{python}\n{launcher}", encoding="utf-8")
    hermes.chmod(0o755)
    return where


def imports(python: Path, module: str) -> bool:
    """Whether `python` can import `module`."""
    done = subprocess.run([str(python), "-c", f"import {module}"], capture_output=True, timeout=_TIMEOUT_S, check=False)
    return done.returncode == 0


if __name__ == "__main__":  # pragma: no cover - a manual helper: python hermes_program.py <where>
    print(make_overlay(cached_hermes(), Path(sys.argv[1])))
