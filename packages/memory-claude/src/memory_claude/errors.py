"""Exceptions of memory-claude, split by who must act.

`MemoryClaudeError` is the root (a `MemoryCoreError`, so the `memory` CLI prints it as one
`memory: error: ...` line). The user must act on `SettingsFileError`: a Claude Code config file
we were asked to edit is not valid JSON (or not the shape Claude Code reads), and overwriting it
would lose what is in it. `ClaudeCommandError`: the `claude` program refused a step; the message
carries its output. The hook path raises none of these.
"""

from __future__ import annotations

from memory_core.errors import MemoryCoreError

__all__ = ["MemoryClaudeError", "SettingsFileError", "ClaudeCommandError"]


class MemoryClaudeError(MemoryCoreError):
    """Root of every error memory-claude raises on purpose."""


class SettingsFileError(MemoryClaudeError):
    """A Claude Code config file cannot be read safely; the message names the file. Fix it and retry."""


class ClaudeCommandError(MemoryClaudeError):
    """`claude mcp ...` failed; the message has the command and its last output lines."""
