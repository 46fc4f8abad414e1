"""Test support shipped with memory-core: conformance suites and service requirements.

`store_conformance` is the suite every `Store` must pass; `harness_conformance` the one every
harness adapter must pass against its recorded payloads. `require` turns a missing service
into a failure under CI (`CI=true`) and into a plainly worded skip elsewhere.
"""
