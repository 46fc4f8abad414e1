"""The commands installers register, and whether a registered command still runs.

Every harness package registers one of two command shapes, for its hook and for the MCP
server alike:

- one person's file on one machine (Claude Code's user and local scopes, Codex's user scope,
  the Hermes and OpenClaw configs): this interpreter's absolute path with `-m <module>`, so
  nothing depends on PATH (`hook_argv`, `hook_command(..., shared=False)`);
- a file teammates share (a project scope): the console script found on each teammate's PATH,
  ending in `|| true` so a teammate without it sees no failed hook on every turn
  (`hook_command(..., shared=True)`).

`command_runs` answers `memory doctor`'s question for both shapes: the interpreter of the
command (the `-m` form's first word, or the interpreter a console script launches, read from
its `#!` line or pip's `/bin/sh` trampoline by `interpreter_of`) exists and imports the module.
Importing a hook module runs no hook, so the check has no side effect.

Failure: nothing here raises for a broken command; `command_runs` returns `(False, reason)`
with one line a user can act on.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys

__all__ = ["hook_argv", "hook_command", "interpreter_of", "command_imports", "command_runs", "SHARED_SUFFIX"]

SHARED_SUFFIX = " || true"
"""Ends a shared (project) command: a teammate without the script gets no failed hook."""
_TRAMPOLINE = "'''exec' "
"""How pip's launcher for a too-long interpreter path starts its second line:
`'''exec' "<python>" "$0" "$@"` under `#!/bin/sh`."""
_IMPORT_TIMEOUT_S = 20.0


def hook_argv(module: str, *, python: str | None = None) -> list[str]:
    """`module` run by `python` (default this interpreter) as an argv: `<python> -m <module>`."""
    return [python or sys.executable, "-m", module]


def hook_command(module: str, script: str, *, shared: bool) -> str:
    """The command line to write: `<this python> -m <module>`, or `<script> || true` in a shared file."""
    if shared:
        return script + SHARED_SUFFIX
    return shlex.join(hook_argv(module))


def interpreter_of(launcher: str, *, path: str | None = None) -> str | None:
    """The interpreter a console script runs, or None when it is not found or not a Python launcher.

    `launcher` is a path or a name looked up on `path` (default the process's PATH). Read from
    its `#!` line, or from the second line of pip's `/bin/sh` trampoline, which pip writes
    when the interpreter's path is too long for a `#!` line.
    """
    found = shutil.which(launcher, path=path)
    if found is None:
        return None
    try:
        with open(found, "rb") as handle:
            first, second = (handle.readline(4096).decode("utf-8", errors="replace") for _ in range(2))
    except OSError:
        return None
    if not first.startswith("#!"):
        return None
    if first.strip() == "#!/bin/sh" and second.startswith(_TRAMPOLINE):
        try:
            words = shlex.split(second[len(_TRAMPOLINE) :])
        except ValueError:
            return None
        return words[0] if words else None
    words = first[2:].strip().split()
    return words[0] if words else None


def command_imports(python: str, module: str, *, timeout: float = _IMPORT_TIMEOUT_S) -> tuple[bool, str]:
    """Whether the interpreter `python` imports `module` (and so everything it needs), and if not, why.

    Runs `python -c "import <module>"` and waits at most `timeout` seconds. Returns
    `(True, "")`, or `(False, reason)` with a one-line reason: the interpreter did not start,
    did not finish in time, or the last line of what it printed.
    """
    try:
        done = subprocess.run([python, "-c", f"import {module}"], capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return False, f"{python} did not import {module} within {timeout:g} s"
    except OSError as exc:
        return False, f"{python} did not run: {exc}"
    if done.returncode == 0:
        return True, ""
    lines = done.stderr.decode(errors="replace").strip().splitlines()
    return False, lines[-1] if lines else f"{python} exited {done.returncode} importing {module}"


def command_runs(
    command: str, module: str, *, path: str | None = None, timeout: float = _IMPORT_TIMEOUT_S
) -> tuple[bool, str]:
    """Whether a registered `command` would run `module` here, and if not, one line on why.

    `command` is either `<python> -m <module> ...` or a console script (`<script> [|| true]`),
    looked up on `path` (default the process's PATH). The reason names what is missing; the
    caller adds the command that fixes it for its harness.
    """
    try:
        argv = shlex.split(command)
    except ValueError:
        return False, f"cannot parse the command {command!r}"
    if not argv:
        return False, "the command is empty"
    if len(argv) >= 3 and argv[1:3] == ["-m", module]:
        python = argv[0]
        if not os.path.isabs(python):
            python = shutil.which(python, path=path) or python
        if not os.access(python, os.X_OK):
            return False, f"{argv[0]} no longer exists"
        if not command_imports(python, module, timeout=timeout)[0]:
            return False, f"{argv[0]} cannot import {module}"
        return True, ""
    if "-m" in argv[1:2]:
        return False, f"unexpected command {command!r}: it runs {argv[2] if len(argv) > 2 else 'nothing'}"
    launched = interpreter_of(argv[0], path=path)
    if launched is None:
        return False, f"`{argv[0]}` is not on PATH here"
    if not command_imports(launched, module, timeout=timeout)[0]:
        return False, f"`{argv[0]}` runs {launched}, which cannot import {module}"
    return True, ""
