"""The hook path: what runs on every turn a harness fires, and the warm engine behind it.

`client` is the process a harness spawns per turn (stdlib only: os, sys, _socket, zlib); it
hands the payload to the per-user `worker`, which keeps the engine warm, or, with no worker,
to `runner`, which handles the turn in-process. `warm` is the one long-lived service the
worker's transports (socket and pipe), Hermes's plugin and the MCP server keep, and
`service_thread` the one thread a process runs it on when its callers arrive on threads it
does not own. This package's `__init__` imports nothing, so the client's start-up pays for no
module it does not use.
"""
