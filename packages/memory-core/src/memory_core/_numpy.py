"""numpy, imported the one way memory's warm engine imports it: with a single-threaded BLAS.

Recall's vector work is one small matrix-vector product per prompt (a few milliseconds on one
core); OpenBLAS's default of a thread per core made it 3x slower on a loaded 2-core machine
(3.5 ms against 1.1 ms for 7,500 rows, load average 8) and would take cores from the harness
the user is waiting on. Only a default: a value the user set is kept, and a process that
imported numpy before us keeps its own.
"""

from __future__ import annotations

import os

__all__ = ["one_blas_thread"]


def one_blas_thread() -> None:
    """Call before importing numpy: its BLAS then runs on one thread, unless the user said otherwise."""
    for name in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")
