"""Where Hermes keeps its files, and which Python interpreter runs it.

- Hermes's home is `$HERMES_HOME`, else `~/.hermes` (the same on Linux and macOS); its config
  is `<home>/config.yaml` and user plugins live in `<home>/plugins/<name>/`.
- Hermes's interpreter is read from the `hermes` launcher's shebang: `#!<python>`,
  `#!/usr/bin/env python3` (then that name on PATH), or the `/bin/sh` trampoline pip and uv
  write when the interpreter path is too long or has spaces (`'''exec' "<python>" "$0" ...`).
  `MEMORY_HERMES_PYTHON` overrides it, for a launcher that is a wrapper script. A venv's
  `python` is kept as the launcher names it (never resolved through its symlink), because
  resolving it would land outside the venv.

Failure: `HermesNotFound`, saying what was looked for and how to point us at Hermes.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from collections.abc import Mapping
from pathlib import Path

from memory_hermes import PLUGIN_NAME
from memory_hermes.errors import HermesNotFound

__all__ = ["hermes_home", "config_path", "plugin_dir", "find_launcher", "interpreter_from_launcher", "hermes_python"]

_PYTHON_OVERRIDE = "MEMORY_HERMES_PYTHON"
_TRAMPOLINE = re.compile(r"""^'''exec'\s+(?:"(?P<quoted>[^"]+)"|(?P<bare>\S+))""")
_SHEBANG_BYTES = 4096


def hermes_home(environ: Mapping[str, str] = os.environ) -> Path:
    """Hermes's home folder."""
    configured = environ.get("HERMES_HOME", "").strip()
    if configured:
        return Path(os.path.expanduser(configured))
    home = environ.get("HOME") or str(Path.home())
    return Path(home) / ".hermes"


def config_path(environ: Mapping[str, str] = os.environ) -> Path:
    """Hermes's `config.yaml`."""
    return hermes_home(environ) / "config.yaml"


def plugin_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """Where our directory plugin goes: `<home>/plugins/memory-hermes/`."""
    return hermes_home(environ) / "plugins" / PLUGIN_NAME


def find_launcher(environ: Mapping[str, str] = os.environ) -> Path | None:
    """The `hermes` launcher on PATH, or None."""
    found = shutil.which("hermes", path=environ.get("PATH"))
    return Path(found) if found else None


def interpreter_from_launcher(launcher: Path, environ: Mapping[str, str] = os.environ) -> Path:
    """The Python interpreter a console-script launcher runs."""
    try:
        with open(launcher, "rb") as handle:
            head = handle.read(_SHEBANG_BYTES).decode("utf-8", errors="replace")
    except OSError as exc:
        raise HermesNotFound(f"cannot read the hermes launcher {launcher}: {exc}") from exc
    lines = head.splitlines()
    if not lines or not lines[0].startswith("#!"):
        raise HermesNotFound(f"{launcher} has no #! line; set {_PYTHON_OVERRIDE} to Hermes's python")
    try:
        words = shlex.split(lines[0][2:].strip())
    except ValueError:
        words = lines[0][2:].split()
    if not words:
        raise HermesNotFound(f"{launcher} has an empty #! line; set {_PYTHON_OVERRIDE} to Hermes's python")
    program = words[0]
    if Path(program).name == "env":
        names = [word for word in words[1:] if not word.startswith("-")]
        found = shutil.which(names[0], path=environ.get("PATH")) if names else None
        if found is None:
            raise HermesNotFound(f"{launcher} runs `{' '.join(words)}`, which is not on PATH")
        return Path(found)
    if Path(program).name in ("sh", "bash", "dash"):
        for line in lines[1:4]:
            if match := _TRAMPOLINE.match(line):
                return Path(match["quoted"] or match["bare"])
        raise HermesNotFound(f"{launcher} is a shell script, not a Python launcher; set {_PYTHON_OVERRIDE}")
    return Path(program)


def hermes_python(environ: Mapping[str, str] = os.environ) -> Path:
    """Hermes's interpreter: `MEMORY_HERMES_PYTHON`, else the one the `hermes` launcher names."""
    configured = environ.get(_PYTHON_OVERRIDE, "").strip()
    if configured:
        python = Path(os.path.expanduser(configured))
    else:
        launcher = find_launcher(environ)
        if launcher is None:
            raise HermesNotFound(
                "`hermes` is not on PATH; install hermes-agent, or set "
                f"{_PYTHON_OVERRIDE} to the python that runs Hermes"
            )
        python = interpreter_from_launcher(launcher, environ)
    if not os.access(python, os.X_OK):
        raise HermesNotFound(f"Hermes's interpreter {python} does not exist or is not executable")
    return python
