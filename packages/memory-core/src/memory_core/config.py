"""Configuration, resolved once from the environment and an optional config file.

Precedence: environment variables, then `<config home>/memory/config.toml` (keys are the
variable names without the `MEMORY_` prefix, lower case, in a `[memory]` table), then
defaults. A malformed value falls back to its default and leaves a warning in
`Config.warnings` (the service writes those to the log). The store URL is the exception:
its safety checks live in the store that parses it and raise `ConfigError`, because a silent
fallback there would write memories somewhere the user did not ask for.

`Config` is a frozen pydantic dataclass: its field types and bounds say what a valid value
is, and `dataclasses.replace` revalidates. `setting_env_names()` lists the variable of each setting,
derived from its fields (what installers forward and what keys the worker). Importing this module imports
pydantic: the hook client never does (it reads only `MEMORY_ENABLED`/`MEMORY_WORKER` itself);
the worker and a cold turn's in-process path do.

Paths follow the platform: XDG on Linux and other Unixes, `~/Library/...` on macOS.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated

from pydantic import ConfigDict, Field, ValidationError, field_validator
from pydantic.dataclasses import dataclass
from pydantic_core import ErrorDetails

__all__ = ["Config", "data_home", "state_home", "config_home", "setting_env_names"]

_DEFAULT_MAX_ITEMS = 5
_DEFAULT_MAX_TOKENS = 800
_DEFAULT_TIMEOUT_S = 1.0
_DEFAULT_HANDOFF_TTL_S = 6 * 3600.0
"""A turn's prompt waits this long for its write event (long agentic turns run for hours)."""
_DEFAULT_HANDOFF_KEEP = 16
"""Prompts held per session at most: more than any harness has in flight at once."""
_DEFAULT_SPOOL_MAX_BYTES = 256 * 1024 * 1024
"""30,000 to 130,000 turns (2 to 8 KB each): weeks of heavy use against a store that takes no
writes (docs/reliability.md)."""
_DEFAULT_EVENTS_MAX_BYTES = 256 * 1024 * 1024
"""A project's events before `prune` trims them: at the 8 KiB cap per event and about 20 events a
turn (most far smaller), some thousands of tool-heavy turns; the records themselves are never
touched by this bound."""
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


_SETTINGS = ConfigDict(coerce_numbers_to_str=True)
"""Strings arrive from the environment and the config file; a TOML number given for a text
setting (`user = 42`) is read as its text, as the environment would spell it."""


@dataclass(frozen=True, slots=True, config=_SETTINGS)
class Config:
    """Every setting memory-core reads. Build it with `Config.from_env()`.

    A pydantic dataclass: the field types and bounds below are the one statement of what a
    valid value is; `from_env` turns a value that fails them into its default and a warning.

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
        handoff_ttl: How long a read event's prompt waits for its write event, seconds
            (`MEMORY_HANDOFF_TTL`).
        handoff_keep: Prompts held per session at most (`MEMORY_HANDOFF_KEEP`).
        mcp_token: Bearer token the HTTP MCP server requires off loopback (`MEMORY_MCP_TOKEN`).
        pg_schema: The PostgreSQL schema memory uses (`MEMORY_PG_SCHEMA`; None: `memory`).
        embeddings: Whether the warm engine loads the embedding model (`MEMORY_EMBEDDINGS`);
            off, recall ranks by BM25 alone and no vectors are computed.
        events: Whether a turn's timeline (tool calls, results, injected text) is kept behind it
            (`MEMORY_EVENTS`); off, only the prompt and the answer are stored.
        events_max_bytes: What one project's events may take, in bytes of text, before `prune`
            drops the oldest turns' events (`MEMORY_EVENTS_MAX_BYTES`); 0 means no bound.
        warnings: Malformed values that fell back to their defaults, one line each.
    """

    url: str
    allow_db0: bool = False
    project: str | None = None
    user: str = "unknown"
    max_items: Annotated[int, Field(ge=1)] = _DEFAULT_MAX_ITEMS
    max_tokens: Annotated[int, Field(ge=50)] = _DEFAULT_MAX_TOKENS
    enabled: bool = True
    firewall: bool = True
    log_path: Path = Path("memory.log")
    state_dir: Path = Path(".")
    timeout: Annotated[float, Field(ge=0.05)] = _DEFAULT_TIMEOUT_S
    max_records: Annotated[int, Field(ge=0)] = 0
    spool_max_bytes: Annotated[int, Field(ge=4096)] = _DEFAULT_SPOOL_MAX_BYTES
    handoff_ttl: Annotated[float, Field(ge=1)] = _DEFAULT_HANDOFF_TTL_S
    handoff_keep: Annotated[int, Field(ge=1)] = _DEFAULT_HANDOFF_KEEP
    mcp_token: str | None = None
    pg_schema: str | None = None
    embeddings: bool = True
    events: bool = True
    events_max_bytes: Annotated[int, Field(ge=0)] = _DEFAULT_EVENTS_MAX_BYTES
    warnings: tuple[str, ...] = ()

    @field_validator("allow_db0", "enabled", "firewall", "embeddings", "events", mode="before")
    @classmethod
    def _flag(cls, value: object) -> object:
        """0/1, true/false, yes/no, on/off (any case; empty is off); pydantic's wider set (t, y, ...) is not ours."""
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        raise ValueError("not 0 or 1")

    @property
    def spool_path(self) -> Path:
        """The outage spool: captures that could not reach the store, already firewalled."""
        return self.state_dir / "spool.jsonl"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Config:
        """Resolve the configuration from `environ` (default `os.environ`) and the config file."""
        env = os.environ if environ is None else environ
        raw = dict(_read_config_file(env))
        raw.update({k[len("MEMORY_") :].lower(): v for k, v in env.items() if k.startswith("MEMORY_")})
        values: dict[str, object] = {}
        for name, env_name in _ENV_NAMES.items():
            value = raw.get(env_name[len("MEMORY_") :].lower())
            if value is None or (name not in _FLAGS and str(value).strip() == ""):
                continue  # unset, or set to nothing: the default (an empty flag is off)
            values[name] = value
        state_dir = Path(os.path.expanduser(str(values["state_dir"]))) if "state_dir" in values else state_home(env)
        values["state_dir"] = state_dir
        values["log_path"] = (
            Path(os.path.expanduser(str(values["log_path"]))) if "log_path" in values else (state_dir / "memory.log")
        )
        for name in ("url", "user", "project", "pg_schema"):  # names, not secrets: surrounding spaces are typos
            if name in values:
                values[name] = str(values[name]).strip()
        values.setdefault("url", "sqlite:///" + str(data_home(env) / "memory.db"))
        values["user"] = values.get("user") or _os_user()
        return _with_fallbacks(values)


_FLAGS = frozenset({"allow_db0", "enabled", "firewall", "embeddings", "events"})
_ENV_NAMES: dict[str, str] = {
    f.name: {"log_path": "MEMORY_LOG"}.get(f.name, f"MEMORY_{f.name.upper()}")
    for f in dataclasses.fields(Config)
    if f.name != "warnings"
}
"""Each setting's environment variable, derived from the fields: `MEMORY_<FIELD>`, except `log_path`,
whose variable `MEMORY_LOG` predates the field's name. `warnings` holds what resolving found, not a setting."""


def setting_env_names() -> tuple[str, ...]:
    """The variable that sets each of `Config`'s settings, in field order (`MEMORY_URL`, ...).

    Derived from the fields, so a new setting reaches everything that forwards settings (the
    MCP server entries installers write, `memory_core.installing.memory_env_names`) without a
    second list to update. `MEMORY_CONFIG`, which names the file rather than a setting, is
    not one of them.
    """
    return tuple(_ENV_NAMES.values())


def _with_fallbacks(values: dict[str, object]) -> Config:
    """`Config(**values)`, with each value that fails validation replaced by its default and a warning."""
    try:
        return Config(**values)  # type: ignore[arg-type]
    except ValidationError as exc:
        failed: dict[str, str] = {}
        for error in exc.errors():
            name = str(error["loc"][0]) if error["loc"] else ""
            if name in values and name not in failed:
                failed[name] = _reason(error)
        if not failed:
            raise
    defaults = {f.name: f.default for f in dataclasses.fields(Config)}
    warnings = []
    for name, reason in failed.items():
        default = defaults[name]
        shown = int(default) if isinstance(default, bool) else default
        warnings.append(f"{_ENV_NAMES[name]}={values.pop(name)!r} {reason}; using {shown}")
    return Config(**values, warnings=tuple(warnings))  # type: ignore[arg-type]


def _reason(error: ErrorDetails) -> str:
    kind = error["type"]
    context = error.get("ctx") or {}
    if kind in ("int_parsing", "float_parsing", "int_from_float"):
        return "is not a number"
    if kind == "greater_than_equal":
        return f"is below {context.get('ge')}"
    if kind == "value_error" and "not 0 or 1" in error["msg"]:
        return "is not 0 or 1"
    return f"is not valid ({error['msg']})"


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
