"""Moved to `memory_core.hookpath.runner`.

A shim, kept for a release, so plugins installed by an older harness package still run.
"""

from memory_core.hookpath.runner import main as main
from memory_core.hookpath.runner import run as run
