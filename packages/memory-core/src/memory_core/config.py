"""Configuration, resolved once from the environment and an optional config file.

Precedence: environment variables, then `<config home>/memory/config.toml` (keys are the
variable names without the `MEMORY_` prefix, lower case, in a `[memory]` table), then
defaults. A malformed value falls back to its default and leaves a warning in
`Config.warnings` (the service writes those to the log). The store URL is the exception:
its safety checks live in the store that parses it and raise `ConfigError`, because a silent
fallback there would write memories somewhere the user did not ask for.

Paths follow the platform: XDG on Linux and other Unixes, `~/Library/...` on macOS.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Config", "data_home", "state_home", "config_home", "setting_env_names"]

_DEFAULT_MAX_ITEMS = 5
_DEFAULT_MAX_TOKENS = 800
_DEFAULT_TIMEOUT_S = 1.0
_DEFAULT_HANDOFF_TTL_S = 6 * 3600.0
"""A turn's prompt waits this long for its write event (long agentic turns run for hours)."""
_DEFAULT_HANDOFF_KEEP = 16
"""Prompts held per session at most: more than any harness has in flight at once."""
_DEFAULT_SPOOL_MAX_BYTES = 16 * 1024 * 1024
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def _home(environ: Mapping[str, str]) -> Path:
    return Path(environ.get("HOME") or Path.home())


def _is_macos() -> bool:
    return sys.platform == "darwin"


def data_home(environ: Mapping[str, str] = os.environ) -> Path:
    """Where the embedded store lives by default: `$XDG_DATA_HOME/memory` or the macOS equivalent."""
    if xdg := environ.get("XDG_DATA_HOME"):
        return Path(xdg) / "memory"
    if _is_macos():
        return _home(environ) / "Library" / "Application Support" / "memory"
    return _home(environ) / ".local" / "share" / "memory"


def state_home(environ: Mapping[str, str] = os.environ) -> Path:
    """Where the log, the spool and installer state live: `$XDG_STATE_HOME/memory` or the macOS equivalent."""
    if xdg := environ.get("XDG_STATE_HOME"):
        return Path(xdg) / "memory"
    if _is_macos():
        return _home(environ) / "Library" / "Application Support" / "memory" / "state"
    return _home(environ) / ".local" / "state" / "memory"


def config_home(environ: Mapping[str, str] = os.environ) -> Path:
    """Where the optional `config.toml` lives: `$XDG_CONFIG_HOME/memory` or the macOS equivalent."""
    if xdg := environ.get("XDG_CONFIG_HOME"):
        return Path(xdg) / "memory"
    if _is_macos():
        return _home(environ) / "Library" / "Preferences" / "memory"
    return _home(environ) / ".config" / "memory"


def _os_user() -> str:
    for name in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        if user := os.environ.get(name):
            return user
    try:
        import pwd  # only when no variable names the user: keeps the hook path lean

        return pwd.getpwuid(os.getuid()).pw_name
    except (ImportError, KeyError, OSError):  # no passwd entry in some containers
        return "unknown"


@dataclass(frozen=True, slots=True)
class Config:
    """Every setting memory-core reads. Build it with `Config.from_env()`.

    Attributes:
        url: The store URL (`MEMORY_URL`); the scheme picks the backend.
        allow_db0: Whether Redis database 0 may be written (`MEMORY_ALLOW_DB0`).
        project: A project key that overrides detection (`MEMORY_PROJECT`), or None.
        user: The author of what this user captures (`MEMORY_USER`, default the OS user).
        max_items: Memories injected per turn at most (`MEMORY_MAX_ITEMS`).
        max_tokens: Budget of the injected block in approximate tokens (`MEMORY_MAX_TOKENS`).
        enabled: The kill switch (`MEMORY_ENABLED`); off touches no store at all.
        firewall: Whether the secret firewall runs (`MEMORY_FIREWALL`).
        log_path: Where swallowed errors are logged (`MEMORY_LOG`).
        state_dir: Spool, per-project switches and installer state (`MEMORY_STATE_DIR`).
        timeout: Connect and socket timeout of server stores, seconds (`MEMORY_TIMEOUT`).
        max_records: A cap on records per scope that `prune` enforces; 0 means none
            (`MEMORY_MAX_RECORDS`). Nothing is deleted unless `prune` is run.
        spool_max_bytes: Bound of the outage spool (`MEMORY_SPOOL_MAX_BYTES`).
        handoff_ttl: How long a read event's prompt waits for its write event, seconds.
        handoff_keep: Prompts held per session at most.
        mcp_token: Bearer token the HTTP MCP server requires off loopback (`MEMORY_MCP_TOKEN`).
        pg_schema: The PostgreSQL schema memory uses (`MEMORY_PG_SCHEMA`; None: `memory`).
        warnings: Malformed values that fell back to their defaults, one line each.
    """

    url: str
    allow_db0: bool = False
    project: str | None = None
    user: str = "unknown"
    max_items: int = _DEFAULT_MAX_ITEMS
    max_tokens: int = _DEFAULT_MAX_TOKENS
    enabled: bool = True
    firewall: bool = True
    log_path: Path = Path("memory.log")
    state_dir: Path = Path(".")
    timeout: float = _DEFAULT_TIMEOUT_S
    max_records: int = 0
    spool_max_bytes: int = _DEFAULT_SPOOL_MAX_BYTES
    handoff_ttl: float = _DEFAULT_HANDOFF_TTL_S
    handoff_keep: int = _DEFAULT_HANDOFF_KEEP
    mcp_token: str | None = None
    pg_schema: str | None = None
    warnings: tuple[str, ...] = field(default_factory=tuple)

    @property
    def spool_path(self) -> Path:
        """The outage spool: captures that could not reach the store, already firewalled."""
        return self.state_dir / "spool.jsonl"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Config:
        """Resolve the configuration from `environ` (default `os.environ`) and the config file."""
        env = os.environ if environ is None else environ
        values = dict(_read_config_file(env))
        values.update({k[len("MEMORY_") :].lower(): v for k, v in env.items() if k.startswith("MEMORY_")})
        warnings: list[str] = []

        def flag(name: str, default: bool) -> bool:
            raw = values.get(name)
            if raw is None:
                return default
            text = str(raw).strip().lower()
            if text in _TRUE:
                return True
            if text in _FALSE:
                return False
            warnings.append(f"MEMORY_{name.upper()}={raw!r} is not 0 or 1; using {int(default)}")
            return default

        def number(name: str, default: float, *, minimum: float, kind: type[int] | type[float] = int) -> float:
            raw = values.get(name)
            if raw is None or str(raw).strip() == "":
                return default
            try:
                value = kind(str(raw).strip())
            except ValueError:
                warnings.append(f"MEMORY_{name.upper()}={raw!r} is not a number; using {default}")
                return default
            if value < minimum:
                warnings.append(f"MEMORY_{name.upper()}={raw!r} is below {minimum}; using {default}")
                return default
            return value

        state_dir = Path(os.path.expanduser(str(values["state_dir"]))) if values.get("state_dir") else state_home(env)
        default_url = "sqlite:///" + str(data_home(env) / "memory.db")
        project = str(values["project"]).strip() if values.get("project") else None
        token = str(values["mcp_token"]) if values.get("mcp_token") else None
        return cls(
            url=str(values.get("url") or default_url).strip(),
            allow_db0=flag("allow_db0", False),
            project=project or None,
            user=str(values.get("user") or "").strip() or _os_user(),
            max_items=int(number("max_items", _DEFAULT_MAX_ITEMS, minimum=1)),
            max_tokens=int(number("max_tokens", _DEFAULT_MAX_TOKENS, minimum=50)),
            enabled=flag("enabled", True),
            firewall=flag("firewall", True),
            log_path=Path(os.path.expanduser(str(values["log"]))) if values.get("log") else state_dir / "memory.log",
            state_dir=state_dir,
            timeout=float(number("timeout", _DEFAULT_TIMEOUT_S, minimum=0.05, kind=float)),
            max_records=int(number("max_records", 0, minimum=0)),
            spool_max_bytes=int(number("spool_max_bytes", _DEFAULT_SPOOL_MAX_BYTES, minimum=4096)),
            handoff_ttl=float(number("handoff_ttl", _DEFAULT_HANDOFF_TTL_S, minimum=1, kind=float)),
            handoff_keep=int(number("handoff_keep", _DEFAULT_HANDOFF_KEEP, minimum=1)),
            mcp_token=token,
            pg_schema=str(values["pg_schema"]).strip() or None if values.get("pg_schema") else None,
            warnings=tuple(warnings),
        )


def _read_config_file(environ: Mapping[str, str]) -> Mapping[str, object]:
    """The `[memory]` table of the config file, or nothing. A broken file is ignored here and
    reported by `doctor`; the hook path must not fail on it. Reading it costs a stat when absent.
    """
    path = Path(environ["MEMORY_CONFIG"]) if environ.get("MEMORY_CONFIG") else config_home(environ) / "config.toml"
    try:
        raw = path.read_bytes()
    except OSError:
        return {}
    import tomllib  # only when a config file exists: keeps the hook path lean

    try:
        table = tomllib.loads(raw.decode("utf-8")).get("memory", {})
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return {}
    return {str(k).lower(): v for k, v in table.items()} if isinstance(table, dict) else {}


_ENV_NAME_OF_FIELD = {"log_path": "MEMORY_LOG"}
"""Fields whose variable is not `MEMORY_<FIELD>` (the variable predates the field's name)."""
_NOT_SETTINGS = frozenset({"warnings"})
"""Fields that hold what resolving found, not a setting anyone sets."""


def setting_env_names() -> tuple[str, ...]:
    """The variable that sets each of `Config`'s settings, in field order (`MEMORY_URL`, ...).

    Derived from the fields themselves (a dataclass's or a pydantic model's), so a new setting
    reaches everything that forwards settings (the MCP server entries installers write) without
    a second list to update. `MEMORY_CONFIG`, which names the file rather than a setting, is
    not one of them.
    """
    fields = getattr(Config, "model_fields", None)
    if fields is not None:
        names = list(fields)
    else:
        import dataclasses

        names = [spec.name for spec in dataclasses.fields(Config)]
    return tuple(_ENV_NAME_OF_FIELD.get(name, f"MEMORY_{name.upper()}") for name in names if name not in _NOT_SETTINGS)
