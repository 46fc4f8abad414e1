"""`memory install hermes` and `memory uninstall hermes`, as plans.

Install (scope `user`, the only one Hermes has):
1. Edit Hermes's `config.yaml` (text-level, keeping the user's bytes): add `memory-hermes`
   to `plugins.enabled`, and register the MCP server `memory-mcp` under `mcp_servers`
   (`<this python> -m memory_mcp`). Hermes hands stdio MCP servers only PATH, HOME, XDG_*
   and a few more, so the memory settings (`memory_core.installing.memory_env_names`) set
   when install runs are forwarded as `${NAME}` references (their values are never written
   into the file; a reference to an unset variable would reach the server as an empty value,
   which reads as "off" for a switch, so only the set ones are referenced).
2. Install memory-core and memory-hermes into Hermes's interpreter (`provision`), if needed.
3. Copy the plugin folder into `~/.hermes/plugins/memory-hermes/`, if it differs.

Uninstall undoes each: our config entries out (the file byte for byte as before, when
nothing else touched it), our packages out of Hermes's interpreter (only those the install
added), the plugin folder removed, and the plugin's note of which project it wrote to. A
second run of either changes nothing.

Failure: `HermesNotFound` (install only: uninstall works without Hermes), `ConfigNotEditable`,
`ProvisionFailed` at plan time; `apply_plan` runs the steps and lets their errors through.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from importlib.util import find_spec

from memory_core.config import Config
from memory_core.installing import (
    MCP_MODULE,
    FileEdit,
    InstallPlan,
    Step,
    is_our_mcp_entry,
    mcp_argv,
    read_text_or_none,
    set_env_names,
)

from memory_hermes import PLUGIN_NAME, whereabouts
from memory_hermes.errors import MemoryHermesError
from memory_hermes.locations import config_path, hermes_python, plugin_dir
from memory_hermes.pluginfiles import PluginCopy, PluginRemoval, differs, is_ours
from memory_hermes.probe import probe_interpreter
from memory_hermes.provision import plan_deprovisioning, plan_provisioning
from memory_hermes.yamltext import (
    add_mcp_server,
    disable_plugin,
    enable_plugin,
    mcp_server_block,
    plugin_disabled,
    remove_mcp_server,
    server_entry,
    yaml_string,
)

__all__ = ["SCOPES", "MCP_SERVER_NAME", "plan_install", "plan_uninstall", "mcp_fields"]

SCOPES = ("user",)
MCP_SERVER_NAME = "memory-mcp"
"""Not `memory`: Hermes names each MCP server's toolset after the server, and `memory` is
Hermes's own built-in toolset, so a server called `memory` has its tools dropped from every
request (observed with hermes-agent 0.19.0)."""


def _check_scope(scope: str) -> None:
    if scope not in SCOPES:
        raise MemoryHermesError(f"Hermes has no `{scope}` scope; its only scope is `user`")


def mcp_fields(environ: Mapping[str, str] = os.environ) -> list[tuple[str, str]]:
    """Our MCP server entry, as (key, YAML flow value) pairs."""
    command, *args = mcp_argv()
    fields = [("command", yaml_string(command)), ("args", "[" + ", ".join(map(yaml_string, args)) + "]")]
    forwarded = set_env_names(environ)
    if forwarded:
        fields.append(("env", "{" + ", ".join(f'{name}: "${{{name}}}"' for name in forwarded) + "}"))
    return fields


def _ours(block: str) -> bool:
    return is_our_mcp_entry(server_entry(block))


def _with_mcp_server(text: str, environ: Mapping[str, str], notes: list[str]) -> str:
    fields = mcp_fields(environ)
    existing = mcp_server_block(text, MCP_SERVER_NAME)
    if existing is None:
        return add_mcp_server(text, MCP_SERVER_NAME, fields)
    if not _ours(existing):
        notes.append(f"Hermes already has an MCP server named `{MCP_SERVER_NAME}` that is not ours; left as it is")
        return text
    # Ours, perhaps from another interpreter or with other variables: rewrite it only if it differs.
    rewritten = add_mcp_server(remove_mcp_server(text, MCP_SERVER_NAME), MCP_SERVER_NAME, fields)
    return text if mcp_server_block(rewritten, MCP_SERVER_NAME) == existing else rewritten


def plan_install(scope: str, *, environ: Mapping[str, str] = os.environ) -> InstallPlan:
    """Everything `memory install hermes` will change."""
    _check_scope(scope)
    config = Config.from_env(environ)
    python = hermes_python(environ)
    probe = probe_interpreter(python)
    plan = InstallPlan(harness="hermes", scope=scope)

    path = config_path(environ)
    before = read_text_or_none(path)
    after = _with_mcp_server(enable_plugin(before, PLUGIN_NAME), environ, plan.notes)
    plan.edits.append(FileEdit(path, before, after))
    if plugin_disabled(before, PLUGIN_NAME):
        # The user's own deny-list wins over plugins.enabled in Hermes; it is theirs to lift.
        plan.notes.append(f"plugins.disabled lists {PLUGIN_NAME}, which wins: hermes plugins enable {PLUGIN_NAME}")

    provisioning = plan_provisioning(probe, store_url=config.url, state_dir=config.state_dir)
    if provisioning is not None:
        plan.steps.append(Step(provisioning.describe(), provisioning.run))
    folder = plugin_dir(environ)
    if differs(folder):
        copy = PluginCopy(folder)
        plan.steps.append(Step(copy.describe(), copy.run))

    if not probe.has("mcp"):
        plan.notes.append(
            "Hermes starts MCP servers only with its `mcp` extra: "
            f"{python} -m pip install 'hermes-agent[mcp]=={probe.hermes_version}'"
        )
    if find_spec(MCP_MODULE) is None:
        plan.notes.append(f"memory-mcp is not installed beside memory-core ({mcp_argv()[0]}): pip install memory-mcp")
    if "env" in dict(mcp_fields(environ)):
        plan.notes.append("the MCP server reads the MEMORY_* variables set now from Hermes's environment")
    plan.notes.append("Hermes writes to the project of the folder it is started in (or MEMORY_PROJECT)")
    return plan


def plan_uninstall(scope: str, *, environ: Mapping[str, str] = os.environ) -> InstallPlan:
    """Everything `memory uninstall hermes` will change."""
    _check_scope(scope)
    config = Config.from_env(environ)
    plan = InstallPlan(harness="hermes", scope=scope)

    path = config_path(environ)
    before = read_text_or_none(path)
    if before is not None:
        after = disable_plugin(before, PLUGIN_NAME)
        block = mcp_server_block(after, MCP_SERVER_NAME)
        if block is not None and _ours(block):
            after = remove_mcp_server(after, MCP_SERVER_NAME)
        plan.edits.append(FileEdit(path, before, after))

    deprovisioning = plan_deprovisioning(config.state_dir)
    if deprovisioning is not None:
        plan.steps.append(Step(deprovisioning.describe(), deprovisioning.run))
    folder = plugin_dir(environ)
    if folder.exists() and is_ours(folder):
        removal = PluginRemoval(folder)
        plan.steps.append(Step(removal.describe(), removal.run))
    note = whereabouts.note_path(config.state_dir)
    if note.exists():
        plan.steps.append(Step(f"forget which project Hermes wrote to ({note})", lambda: note.unlink(missing_ok=True)))
    return plan
