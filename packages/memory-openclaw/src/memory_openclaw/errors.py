"""Exceptions of memory-openclaw, split by who must act (both reach the user as one CLI line).

`OpenClawConfigError`: OpenClaw's config file cannot be edited safely; the user fixes the file.
`OpenClawInstallError`: the `openclaw` CLI refused a step; its last output lines say why.
"""

from __future__ import annotations

from memory_core.errors import ConfigError, MemoryCoreError

__all__ = ["OpenClawConfigError", "OpenClawInstallError"]


class OpenClawConfigError(ConfigError):
    """`openclaw.json` is not a plain JSON object; the message says what to fix."""


class OpenClawInstallError(MemoryCoreError):
    """`openclaw plugins install/uninstall` failed; the message carries its output's tail."""
