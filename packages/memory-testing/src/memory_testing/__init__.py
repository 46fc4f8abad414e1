"""Test support for memory-core and its harness packages (the `memory-testing` distribution).

`store_conformance` is the suite every `Store` must pass; `harness_conformance` the one every
harness adapter must pass against its recorded payloads. `require` turns a missing service
into a failure under CI (`CI=true`) and into a plainly worded skip elsewhere. The other modules
start real servers, harness programs, mock model servers and network faults for tests.

A distribution of its own because it imports pytest and runs programs no user needs: it is a
test dependency of every package of the workspace, never a runtime one.
"""
