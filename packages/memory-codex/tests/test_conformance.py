"""memory-core's harness conformance suite, on every recorded Codex payload."""

from __future__ import annotations

from memory_codex.harness import CodexHarness
from memory_testing.harness_conformance import HarnessConformance


class TestCodexConformance(HarnessConformance):
    harness_factory = CodexHarness
    package = "memory_codex"
