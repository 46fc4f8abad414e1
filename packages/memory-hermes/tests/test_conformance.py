"""memory-core's harness conformance suite, on every recorded Hermes payload."""

from __future__ import annotations

from memory_hermes.harness import HermesHarness
from memory_testing.harness_conformance import HarnessConformance


class TestHermesConformance(HarnessConformance):
    harness_factory = HermesHarness
    package = "memory_hermes"
