"""Batch-decision benchmarks: exact expected losses for every k.

    python benchmarks/bench_setloss.py

Targets: F1 with n = 10,000 under 1 s and 500 MB; a generic loss with n = 2,000
under 5 s; ratio against the paper's plain O(n^3) Algorithm 1 timed in the same run.
"""

from __future__ import annotations

import gc
import os
import platform
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.setloss import expected_losses  # noqa: E402


def measure(fn):
    gc.collect()
    t0 = time.perf_counter()
    fn()
    seconds = time.perf_counter() - t0
    gc.collect()
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return seconds, peak


def probabilities(kind: str, n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return {"rare (Beta(0.3, 3))": rng.beta(0.3, 3, n), "uniform": rng.random(n), "all 0.5 (widest)": np.full(n, 0.5)}[
        kind
    ]


def main():
    print(
        f"# {platform.platform()} | Python {platform.python_version()} | numpy {np.__version__} | "
        f"{os.cpu_count()} cores"
    )
    print(
        f"{'loss / path':34s} {'eta':>20s} {'n':>7s} {'seconds':>9s} {'peak MB':>8s} {'target':>8s} "
        f"{'O(n^3) s':>9s} {'speed-up':>9s}"
    )

    def row(label, kind, n, method, loss, target="", ref=None):
        eta = probabilities(kind, n)
        sec, peak = measure(lambda: expected_losses(eta, loss, method=method))
        ref_s, ratio = "", ""
        if ref:
            r, _ = measure(lambda: expected_losses(eta, loss, method="reference"))
            ref_s, ratio = f"{r:.3f}", f"{r / sec:.0f}x"
        print(
            f"{label:34s} {kind:>20s} {n:>7,} {sec:9.3f} {peak:8.1f} {target:>8s} {ref_s:>9s} {ratio:>9s}", flush=True
        )

    for kind in ("rare (Beta(0.3, 3))", "uniform", "all 0.5 (widest)"):
        row("F1, O(n^2) linear-fractional", kind, 10_000, "auto", "f1", "< 1 s")
    row("Jaccard, O(n^2) (suffix tables)", "uniform", 10_000, "auto", "jaccard", "< 1 s")
    expected_losses(np.full(10, 0.5), "gmean")  # compile the Numba kernel outside the timings
    for kind in ("rare (Beta(0.3, 3))", "uniform", "all 0.5 (widest)"):
        row("G-mean, generic", kind, 2_000, "generic", "gmean", "<= 0.5 s")
    worst_case_table()
    for n in (250, 500, 1000):
        row("F1, O(n^2) vs O(n^3)", "uniform", n, "auto", "f1", ref=True)
        row("G-mean, generic vs O(n^3)", "uniform", n, "generic", "gmean", ref=True)


def worst_case_table():
    """Every loss without an O(n^2) path at its worst case (all eta = 0.5, n = 2,000): compiled vs numpy."""
    from engine.setloss import kernels

    eta = np.full(2_000, 0.5)
    print(
        f"\n{'generic loss, all 0.5, n = 2,000':34s} {'compiled s':>10s} {'numpy s':>9s} {'speed-up':>9s} "
        f"{'max |diff|':>11s}"
    )
    for loss in ("am", "gmean", "hmean", "gtppr", "auc"):
        fast_s, _ = measure(lambda: expected_losses(eta, loss, method="generic"))
        fast = expected_losses(eta, loss, method="generic")
        kernels.AVAILABLE = False
        try:
            slow_s, _ = measure(lambda: expected_losses(eta, loss, method="generic"))
            slow = expected_losses(eta, loss, method="generic")
        finally:
            kernels.AVAILABLE = True
        print(
            f"{loss:34s} {fast_s:10.3f} {slow_s:9.3f} {slow_s / fast_s:8.1f}x {np.abs(fast - slow).max():11.1e}",
            flush=True,
        )


if __name__ == "__main__":
    main()
