"""memory-core's harness conformance suite, on every recorded OpenClaw payload."""

from __future__ import annotations

from memory_core.testing.harness_conformance import HarnessConformance
from memory_openclaw.harness import OpenClawHarness


class TestOpenClawConformance(HarnessConformance):
    harness_factory = OpenClawHarness
    package = "memory_openclaw"
