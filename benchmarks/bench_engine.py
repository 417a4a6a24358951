"""Engine benchmarks for the foundation issue's speed targets.

    python benchmarks/bench_engine.py [--quick]

Prints one table: case, size, seconds (best of repeats), peak traced memory and,
where a reference method exists, the reference's seconds in the same run and the
speed-up. Record the output in benchmarks/RESULTS.md with the machine.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.pn import (  # noqa: E402
    analytic_path,
    bootstrap,
    graph_path,
    operating_point,
    pn_curve,
    sweep,
    threshold_grid,
    upper_hull,
)

ROWS: list[dict] = []


def timed(fn, repeat: int = 3, number: int = 1):
    """Best per-call wall time over ``repeat`` runs of ``number`` calls, and the traced peak memory (MB) of one call."""
    best = np.inf
    result = fn() if number > 1 else None  # warm-up for micro-benchmarks
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        for _ in range(number):
            result = fn()
        best = min(best, (time.perf_counter() - t0) / number)
    gc.collect()
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return best, peak, result


def record(case, size, seconds, peak_mb, target=None, ref_name=None, ref_seconds=None):
    ROWS.append(
        {
            "case": case,
            "size": size,
            "seconds": seconds,
            "peak_mb": peak_mb,
            "target": target,
            "reference": ref_name,
            "ref_seconds": ref_seconds,
        }
    )
    print_row(ROWS[-1])


def print_header():
    print(
        f"{'case':44s} {'size':>18s} {'seconds':>10s} {'peak MB':>9s} {'target':>9s} "
        f"{'reference (same run)':>34s} {'ref s':>9s} {'speed-up':>9s}"
    )


def print_row(r):
    ref = r["reference"] or ""
    ref_s = f"{r['ref_seconds']:.4g}" if r["ref_seconds"] is not None else ""
    ratio = f"{r['ref_seconds'] / r['seconds']:.0f}x" if r["ref_seconds"] else ""
    target = r["target"] or ""
    print(
        f"{r['case']:44s} {r['size']:>18s} {r['seconds']:10.4g} {r['peak_mb']:9.1f} {target:>9s} "
        f"{ref:>34s} {ref_s:>9s} {ratio:>9s}",
        flush=True,
    )


def rare_event_data(n: int, k: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.02).astype(np.int64)
    z = rng.standard_normal(n)
    s = np.column_stack(
        [np.round(1 / (1 + np.exp(-(2.5 * y + 0.7 * z + 0.7 * rng.standard_normal(n) - 3))), 6) for _ in range(k)]
    )
    return s, y


def bench_single(n: int):
    s, y = rare_event_data(n, 1)
    s = s[:, 0]

    def full():
        hull = upper_hull(pn_curve(s, y))
        return operating_point(target=0.3, hull=hull)

    from sklearn.isotonic import IsotonicRegression
    from sklearn.metrics import roc_curve

    def reference():
        fpr, tpr, thr = roc_curve(y, s, drop_intermediate=False)
        IsotonicRegression().fit(s, y)
        return thr

    sec, peak, _ = timed(full)
    ref, _, _ = timed(reference, repeat=1)
    record(
        "PN curve + hull + operating point",
        f"n={n:,}",
        sec,
        peak,
        "< 1 s",
        "sklearn roc_curve + IsotonicRegression",
        ref,
    )
    hull = upper_hull(pn_curve(s, y))
    targets = np.linspace(0.01, 0.99, 1000)
    sec, peak, _ = timed(lambda: sweep(targets=targets, hull=hull))
    record("each further target (sweep of 1,000)", f"n={n:,}", sec / 1000, peak, "< 1 ms")


def bench_bootstrap(n: int, reference: bool = True):
    """200 replicates at n rated rows (issue 25: <= 2 s): the page's hashed Poisson bootstrap, one and two
    threads, on the benchmark's scores and on uniform scores (more distinct values); CPU seconds beside wall
    clock (the machine is shared); the numpy path (same draws) as reference when asked."""
    import importlib

    module = importlib.import_module("engine.pn._bootstrap")
    s, y = rare_event_data(n, 1)
    s = np.round(s[:, 0], 6)  # the browser benchmark's CSV precision: ties as in real scores
    rng = np.random.default_rng(0)
    uniform = np.round(rng.random(n), 6), (rng.random(n) < 0.02).astype(np.int64)
    bootstrap(s[:1000], y[:1000], n_boot=2, resample="poisson")  # compile once
    for _name, (scores, labels) in (("scores", (s, y)), ("uniform scores", uniform)):
        distinct = np.unique(scores).size
        for resample, workers in (("poisson", 1), ("poisson", 2), ("multinomial", 1)):
            cpu = time.process_time()
            sec, peak, _ = timed(
                lambda: bootstrap(scores, labels, n_boot=200, resample=resample, workers=workers), repeat=1
            )
            cpu = (time.process_time() - cpu) / 2  # timed() runs it twice (timing, then memory)
            ref = None
            if reference and workers == 1:
                module._COMPILED = False
                try:
                    ref, _, _ = timed(lambda: bootstrap(scores, labels, n_boot=200, resample=resample), repeat=1)
                finally:
                    module._COMPILED = True
            record(
                f"bootstrap 200, {resample}, {workers} thread(s), CPU {cpu:.2f} s",
                f"n={n:,}, {distinct:,} dist.",
                sec,
                peak,
                "< 2 s",
                "numpy path (same draws)" if ref else None,
                ref,
            )
            print(f"    load average {os.getloadavg()[0]:.2f}", flush=True)


def bench_grid(n: int, k: int, bins: int, target: str):
    s, y = rare_event_data(n, k)
    sec, peak, grid = timed(lambda: threshold_grid(s, y, bins=bins))

    # reference: one boolean mask per cell on a 10^k sub-grid, scaled to the full grid
    sub_axes = tuple(a[:: max(1, a.size // 10)][:10] for a in grid.axes)

    def per_cell():
        out = []
        for idx in np.ndindex(*(a.size for a in sub_axes)):
            th = np.array([sub_axes[j][i] for j, i in enumerate(idx)])
            flag = (s >= th).any(axis=1)
            out.append(((flag & (y == 1)).sum(), (flag & (y == 0)).sum()))
        return out

    ref, _, _ = timed(per_cell, repeat=1)
    cells_sub = int(np.prod([a.size for a in sub_axes]))
    ref_full = ref * grid.tp.size / cells_sub
    record(
        f"grid counts k={k} (OR)",
        f"n={n:,}, {'x'.join(map(str, grid.shape))}",
        sec,
        peak,
        target,
        f"per-cell masks ({cells_sub} cells, scaled)",
        ref_full,
    )
    return grid


def bench_graph(grid_200, grid_100):
    sec, peak, _ = timed(lambda: graph_path(grid_200), repeat=5, number=50)
    record("graph path (DAG dynamic programme)", "200x200 grid", sec, peak, "< 5 ms")
    sec100, peak100, path = timed(lambda: graph_path(grid_100), repeat=5, number=50)
    import networkx as nx

    # the graph is built outside the timing: only the shortest-path search is compared
    g = nx.DiGraph()
    m0, m1 = grid_100.shape
    tp, fp = grid_100.tp, grid_100.fp
    for i in range(m0):
        for j in range(m1):
            if i + 1 < m0:
                g.add_edge((i, j), (i + 1, j), weight=-0.5 * abs(fp[i, j] - fp[i + 1, j]) * (tp[i, j] + tp[i + 1, j]))
            if j + 1 < m1:
                g.add_edge((i, j), (i, j + 1), weight=-0.5 * abs(fp[i, j] - fp[i, j + 1]) * (tp[i, j] + tp[i, j + 1]))

    def bellman_ford():
        return nx.bellman_ford_path(g, (0, 0), (m0 - 1, m1 - 1))

    ref, _, nodes = timed(bellman_ford, repeat=3)
    area_nx = sum(
        0.5 * (grid_100.tp[a] + grid_100.tp[b]) * (grid_100.fp[a] - grid_100.fp[b])
        for a, b in zip(nodes[:-1], nodes[1:])
    )
    assert abs(area_nx - path.auc) <= 1e-9 * path.auc, "networkx and the DP disagree"
    record(
        "graph path (DAG dynamic programme)",
        "100x100 grid",
        sec100,
        peak100,
        ">= 30x",
        "networkx bellman_ford_path (search only)",
        ref,
    )


def bench_nd_graph(grid_3d):
    sec, peak, _ = timed(lambda: graph_path(grid_3d), repeat=3)
    record("graph path k=3 (level DP)", "x".join(map(str, grid_3d.shape)) + " grid", sec, peak)


def bench_analytic(grid_100, grid_3d):
    gp = graph_path(grid_100)
    for family in ("power", "spline"):
        sec, peak, path = timed(lambda: analytic_path(grid_100, family), repeat=1)
        record(
            f"analytic path ({family}); area {100 * path.auc / gp.auc:.2f} % of graph",
            "100x100 grid",
            sec,
            peak,
            "< 2 s" if family == "power" else None,
        )
    sec, peak, path = timed(lambda: analytic_path(grid_3d, "power"), repeat=1)
    record(
        f"analytic path k=3 (power); area {100 * path.auc / graph_path(grid_3d).auc:.2f} % of graph",
        "x".join(map(str, grid_3d.shape)) + " grid",
        sec,
        peak,
    )


END_TO_END = r"""
import io, resource, sys, time
import numpy as np
sys.path.insert(0, sys.argv[1])
from benchmarks.bench_engine import rare_event_data
from engine.io import load_rated
from engine.pn import analytic_path, graph_path, operating_point, path_operating_point, pn_curve, threshold_grid, upper_hull
n = int(sys.argv[2])
s, y = rare_event_data(n, 2)
buf = io.StringIO()
np.savetxt(buf, np.column_stack([s, y]), fmt=["%.6f", "%.6f", "%d"], delimiter=",", header="score_a,score_b,label", comments="")
raw = buf.getvalue().encode()
del buf, s, y
t0 = time.perf_counter()
d = load_rated(raw)
del raw
t1 = time.perf_counter()
for j in range(2):
    operating_point(d.scores[:, j], d.labels, 0.3, d.weights)
grid = threshold_grid(d.scores, d.labels, d.weights, bins=200)
path_operating_point(graph_path(grid), 0.3)
path_operating_point(analytic_path(grid), 0.3)
t2 = time.perf_counter()
print(t1 - t0, t2 - t1, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def bench_end_to_end(n: int):
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run(
        [sys.executable, "-c", END_TO_END, str(root), str(n)], capture_output=True, text=True, check=True
    ).stdout.split()
    load_s, compute_s, rss_mb = map(float, out)
    record("end to end: CSV parse + validate", f"n={n:,}, k=2", load_s, float("nan"))
    record(
        "end to end: 2 op. points + 200^2 grid + paths",
        f"n={n:,}, k=2",
        compute_s,
        rss_mb,
        "< 1 GB (peak RSS of the process, CSV bytes included)",
    )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="smaller sizes (smoke test)")
    ap.add_argument("--bootstrap-only", action="store_true", help="only the bootstrap (issue 25)")
    ap.add_argument("--no-reference", action="store_true", help="without the numpy-path references")
    args = ap.parse_args()
    n = 100_000 if args.quick else 1_000_000
    print(
        f"# {platform.platform()} | Python {platform.python_version()} | numpy {np.__version__} | "
        f"{os.cpu_count()} cores"
    )
    print_header()
    if args.bootstrap_only:
        bench_bootstrap(n, reference=not args.no_reference)
        return
    bench_single(n)
    bench_bootstrap(n, reference=not args.no_reference)
    grid_200 = bench_grid(n, 2, 200, "< 1 s")
    grid_3d = bench_grid(n, 3, 50, "< 2 s")
    grid_100 = threshold_grid(*rare_event_data(20_000, 2), bins=100)
    bench_graph(grid_200, grid_100)
    bench_nd_graph(grid_3d)
    bench_analytic(grid_100, grid_3d)
    bench_end_to_end(n)


if __name__ == "__main__":
    main()
