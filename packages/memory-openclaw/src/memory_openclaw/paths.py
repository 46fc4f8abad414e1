"""Where OpenClaw keeps its config and its agent workspace, as OpenClaw itself resolves them.

OpenClaw's rules (docs `help/environment.md`, `gateway/config-agents/workspace-and-bootstrap.md`):
the home is `OPENCLAW_HOME`, else `HOME`; the state directory is `OPENCLAW_STATE_DIR`, else
`<home>/.openclaw` (`<home>/.openclaw-<profile>` under `OPENCLAW_PROFILE`); the config file is
`OPENCLAW_CONFIG_PATH`, else `<state>/openclaw.json`; the workspace is
`agents.defaults.workspace`, else `OPENCLAW_WORKSPACE_DIR`, else `<state>/workspace`.

Nothing here touches the file system; nothing raises.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["openclaw_state_dir", "openclaw_config_path", "openclaw_workspace"]


def _set(environ: Mapping[str, str], name: str) -> str | None:
    # OpenClaw treats blank values and the literal strings `undefined`/`null` as unset.
    value = (environ.get(name) or "").strip()
    return value if value and value not in ("undefined", "null") else None


def _home(environ: Mapping[str, str]) -> Path:
    home = _set(environ, "HOME")
    base = Path(home) if home else Path.home()
    override = _set(environ, "OPENCLAW_HOME")
    if override is None:
        return base
    return base / override[2:] if override.startswith("~/") else Path(override)


def _expand(value: str, environ: Mapping[str, str]) -> Path:
    if value == "~" or value.startswith("~/"):
        return _home(environ) / value[2:]
    return Path(value)


def openclaw_state_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """OpenClaw's state directory (`~/.openclaw` by default)."""
    if state := _set(environ, "OPENCLAW_STATE_DIR"):
        return _expand(state, environ)
    profile = _set(environ, "OPENCLAW_PROFILE")
    name = f".openclaw-{profile}" if profile and profile != "default" else ".openclaw"
    return _home(environ) / name


def openclaw_config_path(environ: Mapping[str, str] = os.environ) -> Path:
    """The `openclaw.json` OpenClaw reads (`~/.openclaw/openclaw.json` by default)."""
    if path := _set(environ, "OPENCLAW_CONFIG_PATH"):
        return _expand(path, environ)
    return openclaw_state_dir(environ) / "openclaw.json"


def openclaw_workspace(config: Mapping[str, Any], environ: Mapping[str, str] = os.environ) -> Path:
    """The default agent's workspace: what the plugin sees as `ctx.workspaceDir`."""
    agents = config.get("agents")
    defaults = agents.get("defaults") if isinstance(agents, Mapping) else None
    configured = defaults.get("workspace") if isinstance(defaults, Mapping) else None
    if isinstance(configured, str) and configured.strip():
        return _expand(configured.strip(), environ)
    if workspace := _set(environ, "OPENCLAW_WORKSPACE_DIR"):
        return _expand(workspace, environ)
    return openclaw_state_dir(environ) / "workspace"
