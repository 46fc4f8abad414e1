"""memory-core's harness conformance suite, on every recorded Claude Code payload."""

from __future__ import annotations

from pathlib import Path

from memory_claude.harness import ClaudeHarness
from memory_core.testing.harness_conformance import HarnessConformance


class TestClaudeConformance(HarnessConformance):
    harness_factory = ClaudeHarness
    fixtures = Path(__file__).resolve().parents[1] / "fixtures"
