"""The hook path: what runs on every turn a harness fires.

`client` is the process a harness spawns per turn (stdlib only: os, sys, _socket, zlib); it
hands the payload to the per-user `worker`, which keeps the engine warm, or, with no worker,
to `runner`, which handles the turn in-process. This package's `__init__` imports nothing, so
the client's start-up pays for no module it does not use.
"""
