"""memory-core's harness conformance suite, on every recorded Claude Code payload."""

from __future__ import annotations

from memory_claude.harness import ClaudeHarness
from memory_testing.harness_conformance import HarnessConformance


class TestClaudeConformance(HarnessConformance):
    harness_factory = ClaudeHarness
    package = "memory_claude"
