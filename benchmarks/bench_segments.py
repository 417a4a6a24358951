"""Per-segment thresholds under a review capacity (issue: capacity and segments).

Target: 100 segments x 10,000 rated documents each, the capacity answer <= 1 s.
Reference in the same run: the windowed exact Pareto search (window = 2 hull edges)
on the same curves, and one global threshold (what the segments gain over it).

    python benchmarks/bench_segments.py
"""

from __future__ import annotations

import os
import platform
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.measure import timed  # noqa: E402
from engine.pn._segments import allocate_capacity, segment_curves  # noqa: E402


def data(segments: int, per_segment: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    g = np.repeat(np.array([f"segment-{i:03d}" for i in range(segments)], dtype=object), per_segment)
    shift = np.repeat(rng.normal(0, 0.6, segments), per_segment)  # score distributions differ by segment
    y = (rng.random(g.size) < 0.02).astype(np.int8)
    s = np.round(1 / (1 + np.exp(-(rng.standard_normal(g.size) + 2.5 * y - 3 + shift))), 4)
    return s, y, g


def main():
    print(
        f"# {platform.platform()} | Python {platform.python_version()} | numpy {np.__version__} | "
        f"{os.cpu_count()} cores"
    )
    print(
        f"{'segments x rows':>16s} {'capacity':>9s} {'curves s':>9s} {'answer s':>9s} {'peak MB':>8s} "
        f"{'TP':>8s} {'global TP':>10s} {'gain':>6s} {'exact(w=2) s':>13s} {'exact TP':>9s}"
    )
    for segments, per in ((10, 10_000), (100, 10_000)):
        s, y, g = data(segments, per)
        curves, curve_s, curve_mb = timed(lambda: segment_curves(s, y, g))
        for capacity in (2_000, 20_000, 200_000):
            a, answer_s, answer_mb = timed(lambda: allocate_capacity(curves, capacity))
            exact, exact_s, _ = timed(lambda: allocate_capacity(curves, capacity, window=2))
            print(
                f"{segments:>5d} x {per:>8,} {capacity:>9,} {curve_s:9.3f} {answer_s:9.4f} "
                f"{max(curve_mb, answer_mb):8.1f} {a.total['tp']:8,.0f} {a.global_point['tp']:10,.0f} "
                f"{a.tp_gained:6,.0f} {exact_s:13.3f} {exact.total['tp']:9,.0f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
