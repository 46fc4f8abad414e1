"""What every harness installer shares: plans, commands, the MCP entry, forwarded settings, files.

- `plans`: an install or uninstall as whole-file edits and steps; `apply_plan` shows it
  (`--dry-run`) or carries it out, keeping `<file>.bak` (`backup_path`).
- `commands`: the hook and server command lines (`hook_argv`, `hook_command`) and whether a
  registered one still runs (`command_runs`, `interpreter_of`, `command_imports`).
- `mcp_entry`: the memory MCP server's command (`mcp_argv`) and "is this entry ours"
  (`is_our_mcp_entry`).
- `envforward`: the settings an MCP entry forwards (`memory_env_names`), from `Config`'s fields.
- `jsonedit`: the one way a JSON config is read and rewritten.
- `fixtures`: a harness package's recorded payloads, in a checkout or an installed wheel.

Installer code only: nothing here is imported on the hook path.
"""

from __future__ import annotations

from memory_core.installing.commands import (
    SHARED_SUFFIX,
    command_imports,
    command_runs,
    hook_argv,
    hook_command,
    interpreter_of,
)
from memory_core.installing.envforward import forwarded_env_names, memory_env_names, set_env_names
from memory_core.installing.fixtures import fixtures_dir, load_fixture, load_fixtures
from memory_core.installing.mcp_entry import MCP_MODULE, MCP_SCRIPT, is_our_mcp_entry, mcp_argv, runs_mcp
from memory_core.installing.plans import FileEdit, InstallPlan, Step, apply_plan, backup_path, read_text_or_none
from memory_core.localstate.atomic import atomic_write

__all__ = [
    "FileEdit",
    "Step",
    "InstallPlan",
    "apply_plan",
    "read_text_or_none",
    "backup_path",
    "atomic_write",
    "SHARED_SUFFIX",
    "hook_argv",
    "hook_command",
    "interpreter_of",
    "command_imports",
    "command_runs",
    "MCP_MODULE",
    "MCP_SCRIPT",
    "mcp_argv",
    "runs_mcp",
    "is_our_mcp_entry",
    "memory_env_names",
    "forwarded_env_names",
    "set_env_names",
    "fixtures_dir",
    "load_fixture",
    "load_fixtures",
]
