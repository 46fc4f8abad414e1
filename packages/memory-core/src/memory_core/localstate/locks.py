"""One exclusive lock per file, across processes: the spool, the import state and the worker's socket.

`exclusive_lock(path)` holds an `flock` on `path` (created user-only, its folder user-only when
this creates it) for the length of a `with` block, and yields the lock file's descriptor, or
None when another process holds the lock and the caller asked not to wait. The lock goes with
the descriptor: it is released when the block ends, and by the kernel when the process dies, so
a crashed holder never leaves a lock behind.

Failure: an `OSError` opening the file (a folder that cannot be created, a full disk) propagates;
the callers decide whether that costs their operation (it never costs a turn: the spool's caller
spools nothing on a failed lock, the worker does not start).
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["exclusive_lock"]


@contextmanager
def exclusive_lock(path: str | Path, *, blocking: bool = False) -> Iterator[int | None]:
    """Hold an exclusive lock on `path` for the block; yields its descriptor, or None if busy.

    With `blocking`, waits for the holder instead of yielding None.
    """
    os.makedirs(os.path.dirname(os.fspath(path)) or ".", mode=0o700, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
        except BlockingIOError:
            yield None
            return
        yield fd
    finally:
        os.close(fd)
