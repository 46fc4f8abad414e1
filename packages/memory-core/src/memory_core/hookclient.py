"""Moved to `memory_core.hookpath.client`.

A one-line shim, kept for a release, so hooks installed by an older harness package still run.
"""

from memory_core.hookpath.client import main as main
