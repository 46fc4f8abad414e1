"""The environment npm and pip run in when the tests install a harness program.

Two promises:

- npm sees the machine's own configuration whichever node runs it. npm finds its global
  `npmrc` relative to the node binary that runs it, so running the system's npm under another
  node (OpenClaw's install needs Node 24) silently drops the system `npmrc` and the `cafile=`
  a company proxy or a private registry needs. `npm_environment` asks npm, under the node
  installed beside it, where its global config is and which certificate file it trusts, and
  hands both over explicitly (`npm_config_globalconfig`, `npm_config_userconfig` of the
  account, `NODE_EXTRA_CA_CERTS` for install scripts that download with node itself).
- A registry that cannot be reached fails in seconds, not after minutes of silent retries:
  npm gets one fetch retry with short back-off and a one-minute request timeout; pip gets one
  retry and a 30-second socket timeout (`pip_bounded_arguments`).

Settings the caller already made in the environment (any `npm_config_*` / `NPM_CONFIG_*`
variable, `NODE_EXTRA_CA_CERTS`) win: a user with a slow proxy can raise the bounds.
Failure: none here; if npm cannot be asked, its configuration is left as the caller's.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

__all__ = ["NPM_FETCH_BOUNDS", "npm_environment", "pip_bounded_arguments"]

NPM_FETCH_BOUNDS = {
    "fetch_retries": "1",
    "fetch_retry_mintimeout": "2000",
    "fetch_retry_maxtimeout": "5000",
    "fetch_timeout": "60000",
}
"""npm's retry settings for installs (milliseconds); its defaults retry a dead registry over a minute a request."""

_PIP_BOUNDS = ["--retries", "1", "--timeout", "30"]
_ASK_TIMEOUT_S = 60


def pip_bounded_arguments() -> list[str]:
    """`pip install` options that make an unreachable index fail in seconds."""
    return list(_PIP_BOUNDS)


def _is_set(env: Mapping[str, str], npm_key: str) -> bool:
    """Whether `env` configures npm's `npm_key` (npm reads its variables case-insensitively)."""
    wanted = f"npm_config_{npm_key}".lower()
    return any(name.lower() == wanted for name in env)


def _account_npmrc() -> Path:
    # The account's real home, not $HOME: end-to-end tests point HOME at a throwaway folder.
    return Path(pwd.getpwuid(os.getuid()).pw_dir) / ".npmrc"


def _ask_npm(npm: str, key: str, env: Mapping[str, str]) -> str | None:
    """`npm config get key` under the node installed beside `npm` (the node it belongs to)."""
    own_folder = str(Path(npm).parent)
    asking = {**env, "PATH": os.pathsep.join([own_folder, env.get("PATH", "")])}
    try:
        done = subprocess.run(
            [npm, "config", "get", key],
            env=asking,
            capture_output=True,
            text=True,
            timeout=_ASK_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    value = done.stdout.strip()
    return value if done.returncode == 0 and value not in {"", "null", "undefined"} else None


def npm_environment(node: Path | None = None, *, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment to run npm in: `base` (default `os.environ`) plus the machine's npm config and bounded retries.

    `node`, if given, is the node binary npm and its install scripts run under (put first on
    PATH). Needs `npm` on `base`'s PATH to find the machine's configuration; without it the
    configuration part is skipped (the install itself then fails naming npm).
    """
    env = dict(os.environ if base is None else base)
    npm = shutil.which("npm", path=env.get("PATH"))
    if not _is_set(env, "userconfig") and _account_npmrc().is_file():
        env["npm_config_userconfig"] = str(_account_npmrc())
    if npm is not None:
        if not _is_set(env, "globalconfig"):
            globalconfig = _ask_npm(npm, "globalconfig", env)
            if globalconfig is not None and Path(globalconfig).is_file():
                env["npm_config_globalconfig"] = globalconfig
        cafile = _ask_npm(npm, "cafile", env)
        if cafile is not None and Path(cafile).is_file():
            if not _is_set(env, "cafile"):
                env["npm_config_cafile"] = cafile
            env.setdefault("NODE_EXTRA_CA_CERTS", cafile)
    for key, value in NPM_FETCH_BOUNDS.items():
        if not _is_set(env, key):
            env[f"npm_config_{key}"] = value
    if node is not None:
        env["PATH"] = os.pathsep.join([str(node.parent), env.get("PATH", "")])
    return env
