"""What every benchmark script measures: wall time without tracing, then peak traced memory."""

from __future__ import annotations

import time
import tracemalloc


def timed(fn):
    """(value, seconds, peak traced MB): timed without tracing (tracemalloc slows numpy-heavy code)."""
    t0 = time.perf_counter()
    value = fn()
    seconds = time.perf_counter() - t0
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return value, seconds, peak
