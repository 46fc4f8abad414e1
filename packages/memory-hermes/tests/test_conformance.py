"""memory-core's harness conformance suite, on every recorded Hermes payload."""

from __future__ import annotations

from memory_core.testing.harness_conformance import HarnessConformance
from memory_hermes.harness import HermesHarness


class TestHermesConformance(HarnessConformance):
    harness_factory = HermesHarness
    package = "memory_hermes"
