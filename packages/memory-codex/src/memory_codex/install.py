"""What `memory install codex` and `memory uninstall codex` change, computed without changing it.

Install, scope `user` (default): our hook groups (`UserPromptSubmit` recall, `Stop` capture,
`SessionStart`: warm-up on a new or resumed session, reset after a compaction) go into
`$CODEX_HOME/hooks.json` (default `~/.codex`),
after the user's own groups so their trust keys keep their positions; `config.toml` gains
`[mcp_servers.memory]` (when memory-mcp is installed) and one `[hooks.state."<key>"]`
`trusted_hash` per hook, computed as Codex does, so Codex runs the hooks on the next turn
with no review step. When `codex` is on PATH a step then asks Codex's own `codex app-server`
(`hooks/list`) whether it trusts them, and records its hash through `config/batchWrite` where
it disagrees (a newer Codex hashing differently); nothing is left for the user to do.

Scope `project`: the hooks go into `<project>/.codex/hooks.json`, a file teammates share, with
a command every teammate's machine runs (`memory-codex-hook || true`, from `pip install
memory-codex`; without it the hook does nothing rather than fail every turn);
trust stays per machine, in each user's own `config.toml`, so each teammate runs
`memory install codex --scope project` once. Codex also reads a project's `.codex/` only once
the project itself is trusted; the plan's notes say so when it is not.

Every edit keeps every byte it does not own (`hooksfile`, on the one JSON-edit policy of
`memory_core.installing.jsonedit`; `_tomledit`); every
`config.toml` result is re-parsed with `tomllib` and must equal the old configuration with
only our entries changed, or the plan fails before anything is written. Uninstall takes out
exactly what install put in, so the two leave each file byte for byte as it was (a file we
created is removed).

Failure: `HooksFileError`, `ConfigFileError` (the user must fix or rename something the
message names); an app-server that cannot be reached during the step is a warning on stderr,
since the entries we wrote already carry the hash Codex 0.171.0 computes.
"""

from __future__ import annotations

import copy
import os
import shutil
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from memory_core import installing
from memory_core.harnesses.contract import InstallStatus
from memory_core.installing import FileEdit, InstallPlan, Step, forwarded_env_names, is_our_mcp_entry, read_text_or_none

from memory_codex import _tomledit, hooksfile
from memory_codex.errors import ConfigFileError, MemoryCodexError
from memory_codex.trust import AppServer, AppServerError, hook_hash, hook_key

__all__ = [
    "SCOPES",
    "MCP_SERVER",
    "HOOK_MODULE",
    "HOOK_SCRIPT",
    "Layout",
    "layout",
    "hook_command",
    "hook_groups",
    "plan_install",
    "plan_uninstall",
    "status",
]

SCOPES = ("user", "project")
MCP_SERVER = "memory"
HOOK_MODULE = "memory_codex.hook"
HOOK_SCRIPT = "memory-codex-hook"
_HOOK_TIMEOUT_S = 30
"""Codex kills a hook after this. Ours answers in well under a second; the store's own
timeouts (1 s) bound it long before."""
_SESSION_START_MATCHER = "startup|resume|clear|compact"
"""Every `SessionStart` source: a new or resumed session warms the worker and its model; after a
compaction or `/clear` the live context no longer holds what we injected."""
_TRUSTED = frozenset({"trusted", "managed"})
_IMPORT_CHECK_TIMEOUT_S = 20


@dataclass(frozen=True, slots=True)
class Layout:
    """Where one scope's files are.

    Attributes:
        scope: `user` or `project`.
        codex_home: `$CODEX_HOME`, default `~/.codex`.
        config_file: The user's `config.toml`: MCP server and hook trust live there in both scopes.
        hooks_file: The `hooks.json` that holds our hooks.
        project_root: The project whose `.codex/` holds the hooks (project scope), else None.
    """

    scope: str
    codex_home: Path
    config_file: Path
    hooks_file: Path
    project_root: Path | None


def _codex_home(environ: Mapping[str, str]) -> Path:
    configured = environ.get("CODEX_HOME")
    home = Path(configured).expanduser() if configured else Path(environ.get("HOME") or Path.home()) / ".codex"
    return Path(os.path.abspath(home))


def _project_root(project_dir: Path) -> Path:
    """The repository root holding `project_dir` (Codex's default project marker is `.git`)."""
    start = Path(os.path.abspath(project_dir))
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return start


def layout(scope: str, *, project_dir: Path, environ: Mapping[str, str] | None = None) -> Layout:
    """The files of `scope`. Raises `MemoryCodexError` for a scope Codex does not have."""
    env = os.environ if environ is None else environ
    if scope not in SCOPES:
        raise MemoryCodexError(f"Codex has no scope {scope!r}; use one of: {', '.join(SCOPES)}")
    home = _codex_home(env)
    if scope == "user":
        return Layout(scope, home, home / "config.toml", home / "hooks.json", None)
    root = _project_root(project_dir)
    return Layout(scope, home, home / "config.toml", root / ".codex" / "hooks.json", root)


def hook_command(scope: str) -> str:
    """The hook command line: this interpreter for `user`; the console script every teammate has for `project`."""
    # Codex runs hooks through a shell: `|| true` spares a teammate without the script a failed hook each turn.
    return installing.hook_command(HOOK_MODULE, HOOK_SCRIPT, shared=scope == "project")


def hook_groups(command: str) -> dict[str, dict[str, Any]]:
    """Our hook groups by event, exactly as written into `hooks.json`."""
    handler = {"type": "command", "command": command, "timeout": _HOOK_TIMEOUT_S}
    return {
        "UserPromptSubmit": {"hooks": [dict(handler)]},
        "Stop": {"hooks": [dict(handler)]},
        "SessionStart": {"matcher": _SESSION_START_MATCHER, "hooks": [dict(handler)]},
    }


def _mcp_entry() -> dict[str, Any]:
    # `approve`: under `approval_policy = "never"` Codex refuses every MCP call that is not
    # pre-approved, and the memory tools only read and write the user's own memory.
    command, *args = installing.mcp_argv()
    return {
        "command": command,
        "args": args,
        "default_tools_approval_mode": "approve",
        # Codex gives an MCP server only a short list of variables plus those named here: without
        # them a user's MEMORY_URL would reach the hooks but not the server.
        "env_vars": list(forwarded_env_names()),
    }


def _toml(value: str | list[str]) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_tomledit.basic_string(item) for item in value) + "]"
    return _tomledit.basic_string(value)


def _mcp_chunk(entry: Mapping[str, Any]) -> str:
    lines = [_tomledit.header(("mcp_servers", MCP_SERVER))]
    lines += [f"{name} = {_toml(value)}" for name, value in entry.items()]
    return "\n".join(lines)


def _parse_config(text: str | None, path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(text or "")
    except tomllib.TOMLDecodeError as exc:
        raise ConfigFileError(f"{path} does not parse as TOML ({exc}); fix it, then run the install again") from exc


def _our_trust(data: Mapping[str, Any], where: Layout) -> dict[str, str]:
    """Trust key to the hash Codex 0.171.0 computes, for each of our groups in `data` (hooks.json's)."""
    found: dict[str, str] = {}
    for event, positions in hooksfile.find_groups(data).items():
        for position in positions:
            group = data["hooks"][event][position]
            found[hook_key(where.hooks_file, event, position)] = hook_hash(event, group)
    return found


def _state(config: Mapping[str, Any]) -> dict[str, Any]:
    hooks = config.get("hooks")
    state = hooks.get("state") if isinstance(hooks, dict) else None
    return state if isinstance(state, dict) else {}


def _trusted_in(state: Mapping[str, Any], key: str, value: str) -> bool:
    entry = state.get(key)
    return isinstance(entry, dict) and entry.get("trusted_hash") == value


def _trust_chunk(key: str, value: str) -> str:
    return f"{_tomledit.header(('hooks', 'state', key))}\ntrusted_hash = {_tomledit.basic_string(value)}"


def _find(text: str, key: tuple[str, ...]) -> _tomledit.Table | None:
    for table in _tomledit.tables(text):
        if table.key == key and not table.array:
            return table
    return None


def _drop_empty(config: dict[str, Any]) -> dict[str, Any]:
    """`config` without the containers our removals may leave empty, for comparisons."""
    hooks = config.get("hooks")
    if isinstance(hooks, dict):
        if hooks.get("state") == {}:
            del hooks["state"]
        if not hooks:
            del config["hooks"]
    if config.get("mcp_servers") == {}:
        del config["mcp_servers"]
    return config


def _verify(after: str | None, expected: dict[str, Any], path: Path) -> None:
    try:
        actual = tomllib.loads(after or "")
    except tomllib.TOMLDecodeError:
        actual = None
    if actual is None or _drop_empty(copy.deepcopy(actual)) != _drop_empty(copy.deepcopy(expected)):
        raise ConfigFileError(
            f"{path}: the edit would change more than memory's own entries (our entries may already be "
            "written in a form we do not rewrite, such as inline tables); nothing was written"
        )


def _codex_hashes(codex: str | None, where: Layout, cwd: Path, keys: list[str]) -> dict[str, str]:
    """What Codex itself says the current hashes are (empty when it cannot be asked)."""
    if codex is None or not keys:
        return {}
    try:
        with AppServer(codex, codex_home=where.codex_home) as server:
            listed = server.hooks(cwd)
    except AppServerError:
        return {}
    return {key: str(listed[key]["currentHash"]) for key in keys if key in listed and "currentHash" in listed[key]}


def _config_after_install(
    before: str | None, where: Layout, trust: Mapping[str, str], notes: list[str]
) -> tuple[str | None, dict[str, Any]]:
    parsed = _parse_config(before, where.config_file)
    expected = copy.deepcopy(parsed)
    text = before
    chunks: list[str] = []
    if find_spec("memory_mcp") is None:
        notes.append(
            "memory-mcp is not installed for this Python, so the MCP tools (memory_search, memory_save, ...) "
            "were not registered: `pip install 'memory-codex[mcp]'`, then run `memory install codex` again"
        )
    else:
        entry = _mcp_entry()
        servers = parsed.get("mcp_servers")
        current = servers.get(MCP_SERVER) if isinstance(servers, dict) else None
        if current is None:
            chunks.append(_mcp_chunk(entry))
        elif {k: current.get(k) for k in entry} != entry:
            table = _find(text or "", ("mcp_servers", MCP_SERVER))
            if text is None or table is None or not is_our_mcp_entry(current):
                raise ConfigFileError(
                    f"{where.config_file} already has an MCP server named {MCP_SERVER!r} that memory did not "
                    "write; rename or remove it, then run the install again"
                )
            # Key by key, so settings the user added to our table (env, timeouts) stay.
            for name, value in entry.items():
                text = _tomledit.set_value(text, _find(text, ("mcp_servers", MCP_SERVER)) or table, name, _toml(value))
        expected.setdefault("mcp_servers", {}).setdefault(MCP_SERVER, {}).update(entry)
    state = _state(parsed)
    for key, value in trust.items():
        if _trusted_in(state, key, value):
            continue
        table = _find(text or "", ("hooks", "state", key))
        if text is not None and table is not None:
            text = _tomledit.set_string_value(text, table, "trusted_hash", value)
        else:
            chunks.append(_trust_chunk(key, value))
        expected.setdefault("hooks", {}).setdefault("state", {}).setdefault(key, {})["trusted_hash"] = value
    after = _tomledit.append_tables(text, chunks)
    _verify(after, expected, where.config_file)
    return after, parsed


def plan_install(
    scope: str, *, project_dir: Path, environ: Mapping[str, str] | None = None, codex: str | None = None
) -> InstallPlan:
    """Everything `memory install codex --scope <scope>` changes, changing nothing.

    Args:
        scope: `user` or `project`.
        project_dir: The working directory (project scope: inside the project).
        environ: The environment (`CODEX_HOME`, `HOME`, `PATH`); default `os.environ`.
        codex: The `codex` executable; default: found on the environment's PATH.
    """
    env = os.environ if environ is None else environ
    where = layout(scope, project_dir=project_dir, environ=env)
    codex = codex or shutil.which("codex", path=env.get("PATH"))
    plan = InstallPlan(harness="codex", scope=scope)

    hooks_before = read_text_or_none(where.hooks_file)
    hooks_current = hooksfile.load(hooks_before, where.hooks_file)
    hooks_wanted = hooksfile.with_groups(hooks_current, hook_groups(hook_command(scope)), where.hooks_file)
    hooks_after = hooksfile.planned(where.hooks_file, hooks_before, hooks_current, hooks_wanted)
    trust = _our_trust(hooks_wanted, where)
    config_before = read_text_or_none(where.config_file)
    if hooks_after == hooks_before:
        # Nothing moves in hooks.json: Codex can tell us, from the files as they are, the hashes
        # it checks. They differ from ours only where a newer Codex hashes differently.
        state = _state(_parse_config(config_before, where.config_file))
        disputed = [key for key, value in trust.items() if not _trusted_in(state, key, value)]
        trust.update(_codex_hashes(codex, where, Path(os.path.abspath(project_dir)), disputed))
    notes: list[str] = []
    config_after, parsed = _config_after_install(config_before, where, trust, notes)

    plan.edits.append(FileEdit(where.hooks_file, hooks_before, hooks_after, mode=0o644))
    plan.edits.append(FileEdit(where.config_file, config_before, config_after, mode=0o600))
    if hooks_after != hooks_before or config_after != config_before:
        if codex is not None:
            plan.steps.append(
                Step(
                    "confirm with `codex app-server` (hooks/list) that Codex trusts the memory hooks, "
                    "and record its own hash (config/batchWrite) wherever it differs",
                    partial(_confirm_trust, codex, where, Path(os.path.abspath(project_dir)), tuple(trust)),
                )
            )
        else:
            plan.notes.append(
                "`codex` is not on PATH, so the hook trust entries were computed as Codex 0.171.0 computes them; "
                "if Codex still skips the memory hooks (another Codex version), run `memory install codex` "
                "again with `codex` on PATH, or approve them once in Codex's /hooks view"
            )
    if where.project_root is not None:
        plan.notes.append(
            f"project scope: every teammate needs `{HOOK_SCRIPT}` on PATH (`pip install memory-codex`) and runs "
            "`memory install codex --scope project` once, because Codex keeps hook trust per machine"
        )
        projects = parsed.get("projects")
        entry = projects.get(str(where.project_root)) if isinstance(projects, dict) else None
        if not (isinstance(entry, dict) and entry.get("trust_level") == "trusted"):
            plan.notes.append(
                f"one step left: Codex reads {where.project_root}/.codex only in a trusted project; answer yes "
                "when Codex asks whether to trust this folder (or start it once with `codex --trust`)"
            )
    plan.notes.extend(notes)
    return plan


def _confirm_trust(codex: str, where: Layout, cwd: Path, keys: tuple[str, ...]) -> None:
    """After the edits: make Codex's own view of our hooks `trusted`, or say what is left."""
    try:
        with AppServer(codex, codex_home=where.codex_home) as server:
            listed = server.hooks(cwd)
            visible = {key: listed[key] for key in keys if key in listed}
            wrong = {k: str(h["currentHash"]) for k, h in visible.items() if h.get("trustStatus") not in _TRUSTED}
            if wrong:
                server.trust(wrong, config_file=where.config_file)
                listed = server.hooks(cwd)
                still = [k for k in wrong if listed.get(k, {}).get("trustStatus") not in _TRUSTED]
                if still:
                    raise MemoryCodexError(
                        "Codex still does not trust the memory hooks "
                        f"({', '.join(still)}); open `codex`, type /hooks and approve them"
                    )
    except AppServerError as exc:
        sys.stderr.write(
            f"memory: warning: could not ask Codex to confirm hook trust ({exc}); the trust entries written "
            "carry the hash Codex 0.171.0 computes\n"
        )
        return
    if where.project_root is None and len(visible) < len(keys):
        missing = ", ".join(sorted(set(keys) - set(visible)))
        sys.stderr.write(f"memory: warning: Codex did not list these memory hooks: {missing}\n")


def plan_uninstall(scope: str, *, project_dir: Path, environ: Mapping[str, str] | None = None) -> InstallPlan:
    """Everything `memory uninstall codex --scope <scope>` changes, changing nothing.

    Takes out our hook groups, their trust entries and `[mcp_servers.memory]` (when memory wrote
    it); everything else stays byte for byte.
    """
    env = os.environ if environ is None else environ
    where = layout(scope, project_dir=project_dir, environ=env)
    plan = InstallPlan(harness="codex", scope=scope)
    hooks_before = read_text_or_none(where.hooks_file)
    hooks_current = hooksfile.load(hooks_before, where.hooks_file)
    hooks_after = hooksfile.planned(
        where.hooks_file, hooks_before, hooks_current, hooksfile.without_groups(hooks_current, where.hooks_file)
    )
    keys = set(_our_trust(hooks_current, where))

    config_before = read_text_or_none(where.config_file)
    parsed = _parse_config(config_before, where.config_file)
    expected = copy.deepcopy(parsed)
    text = config_before
    if text is not None:
        servers = parsed.get("mcp_servers")
        # The MCP server serves both scopes: it goes with the last scope that has our hooks.
        other = layout("project" if scope == "user" else "user", project_dir=project_dir, environ=env)
        drop_mcp = (
            isinstance(servers, dict)
            and is_our_mcp_entry(servers.get(MCP_SERVER))
            and not _has_our_groups(other.hooks_file)
        )
        if drop_mcp:
            del expected["mcp_servers"][MCP_SERVER]
        for key in keys:
            _state(expected).pop(key, None)
        doomed = [
            table
            for table in _tomledit.tables(text)
            if (len(table.key) == 3 and table.key[:2] == ("hooks", "state") and table.key[2] in keys)
            or (drop_mcp and table.key[:2] == ("mcp_servers", MCP_SERVER))
        ]
        for table in sorted(doomed, key=lambda t: t.start, reverse=True):
            text = _tomledit.remove_table(text, table)
        if text == _tomledit.CREATED_HUSK:
            text = None  # a file the install created: remove it
        _verify(text, expected, where.config_file)
    plan.edits.append(FileEdit(where.hooks_file, hooks_before, hooks_after))
    plan.edits.append(FileEdit(where.config_file, config_before, text))
    return plan


def status(*, project_dir: Path, environ: Mapping[str, str] | None = None) -> list[InstallStatus]:
    """Where the memory hooks are installed, whether their command runs, whether Codex trusts them."""
    env = os.environ if environ is None else environ
    found: list[InstallStatus] = []
    for scope in SCOPES:
        where = layout(scope, project_dir=project_dir, environ=env)
        try:
            hooks = hooksfile.load(read_text_or_none(where.hooks_file), where.hooks_file)
            trust = _our_trust(hooks, where)
            state = _state(_parse_config(read_text_or_none(where.config_file), where.config_file))
        except (OSError, ValueError, MemoryCodexError) as exc:
            found.append(InstallStatus(scope, str(where.hooks_file), False, detail=f"cannot read: {exc}"))
            continue
        if not trust:
            found.append(InstallStatus(scope, str(where.hooks_file), False, detail="not installed"))
            continue
        command = _command_of(hooks)
        runs = _command_runs(command, env)
        untrusted = [key for key, value in trust.items() if not _trusted_in(state, key, value)]
        fix = f"run `memory install codex --scope {scope}`"
        detail = ""
        if untrusted:
            detail = f"Codex will skip {len(untrusted)} untrusted memory hook(s): {fix}"
        elif runs is False:
            detail = f"the hook command does not run here ({command}): {fix} from a Python that has memory-codex"
        found.append(InstallStatus(scope, str(where.hooks_file), True, command=command, runs=runs, detail=detail))
    return found


def _command_of(hooks: Mapping[str, Any]) -> str | None:
    for event, positions in hooksfile.find_groups(hooks).items():
        return str(hooks["hooks"][event][positions[0]]["hooks"][0]["command"])
    return None


def _has_our_groups(path: Path) -> bool:
    return bool(hooksfile.find_groups(hooksfile.load(read_text_or_none(path), path)))


def _command_runs(command: str | None, environ: Mapping[str, str]) -> bool | None:
    """Whether the hook command works here: its interpreter (or its script's) imports the hook."""
    if not command:
        return None
    return installing.command_runs(command, HOOK_MODULE, path=environ.get("PATH"), timeout=_IMPORT_CHECK_TIMEOUT_S)[0]
