"""memory-core's harness conformance suite, on every recorded OpenClaw payload."""

from __future__ import annotations

from memory_openclaw.harness import OpenClawHarness
from memory_testing.harness_conformance import HarnessConformance


class TestOpenClawConformance(HarnessConformance):
    harness_factory = OpenClawHarness
    package = "memory_openclaw"
