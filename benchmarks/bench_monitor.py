"""Monitoring (issue 24): speed of ``opstudio monitor`` and the alerts' false-alarm rate and detection delay.

1. ``monitor`` on 10^6 rated rows over 104 weekly periods with every interval: the engine alone
   (counts + monitor on arrays) and the whole command (read a Parquet file, validate, count,
   print JSON) in its own process — target <= 3 s.
2. ``monitor --backend duckdb`` on a 10^8-row Parquet file (only counts leave DuckDB) in its own
   process — targets <= 60 s and peak RSS <= 1 GB.
3. The alert simulation (``engine.monitor.simulate_alerts``): false alarms over 52 weekly looks at
   the null's boundary, and the delay after drifts of several sizes, for the anytime-valid detector
   and for a per-period test at the same level.
4. Coverage of the per-period intervals (marginal precision at T, re-solved threshold).

    python benchmarks/bench_monitor.py [speed|duckdb|sim|coverage|all] [--rows-duckdb N]
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def make_parquet(path: Path, rows: int, days: int = 728) -> None:
    """Rated rows written by DuckDB: a date over ``days`` days, a 4-decimal score, a label, 1 % unrated."""
    import duckdb

    con = duckdb.connect()
    con.execute(f"""
        COPY (SELECT i AS doc_id, DATE '2024-01-01' + CAST(hash(i, 1) % {days} AS INTEGER) AS date,
                     round((hash(i, 2) % 1000000) / 1e6, 4) AS score,
                     CASE WHEN hash(i, 3) % 100 = 0 THEN NULL
                          WHEN (hash(i, 4) % 1000000) / 1e6 < 1 / (1 + exp(-10 * ((hash(i, 2) % 1000000) / 1e6 - 0.6)))
                          THEN 'tp' ELSE 'fp' END AS label
              FROM range({rows}) t(i))
        TO '{path}' (FORMAT parquet, ROW_GROUP_SIZE 1000000)""")
    con.close()


def run_cli(argv: list[str]) -> dict:
    """One ``opstudio`` command in its own process: exit code, seconds, peak RSS, JSON output."""
    code = (
        "import json, resource, sys, time\nfrom engine.cli import main\nt = time.perf_counter()\n"
        f"code = main({argv!r})\n"
        "sys.stderr.write(json.dumps({'code': code, 'seconds': time.perf_counter() - t, "
        "'rss_mb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=3600,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    stats = json.loads(done.stderr.strip().splitlines()[-1])
    stats["out"] = json.loads(done.stdout) if stats["code"] == 0 else done.stderr
    return stats


def speed() -> None:
    from engine.monitor import monitor, period_counts

    rng = np.random.default_rng(0)
    n = 1_000_000
    d = np.datetime64("2024-01-01") + rng.integers(0, 728, n).astype("timedelta64[D]")
    s = np.round(rng.random(n), 4)
    y = (rng.random(n) < 1 / (1 + np.exp(-10 * (s - 0.6)))).astype(int)
    t0 = time.perf_counter()
    counts = period_counts(s, y, d, "week")
    t1 = time.perf_counter()
    result = monitor(counts, 0.515, 0.3)
    t2 = time.perf_counter()
    print(
        f"engine, 10^6 rows, {len(result.periods)} weeks: counts {t1 - t0:.2f} s + monitor {t2 - t1:.2f} s "
        f"= {t2 - t0:.2f} s (target <= 3 s)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rated_1e6.parquet"
        make_parquet(path, n)
        for backend in ("memory", "duckdb"):
            r = run_cli(
                ["monitor", str(path), "--threshold", "0.515", "--target", "0.3", "--json", "--backend", backend]
            )
            periods = len(r["out"]["periods"]) if r["code"] == 0 else r["out"]
            print(
                f"opstudio monitor --backend {backend}, 10^6 rows ({path.stat().st_size / 2**20:.0f} MB Parquet): "
                f"{r['seconds']:.2f} s, peak RSS {r['rss_mb']:.0f} MB, {periods} periods"
            )


def duckdb_large(rows: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rated_large.parquet"
        t0 = time.perf_counter()
        make_parquet(path, rows)
        made = time.perf_counter() - t0
        r = run_cli(["monitor", str(path), "--threshold", "0.515", "--target", "0.3", "--json", "--backend", "duckdb"])
        out = r["out"]
        alerts = len(out["alerts"]) if r["code"] == 0 else out
        print(
            f"opstudio monitor --backend duckdb, {rows:,} rows ({path.stat().st_size / 2**20:,.0f} MB Parquet, "
            f"written in {made:.0f} s): {r['seconds']:.1f} s, peak RSS {r['rss_mb']:.0f} MB "
            f"(targets <= 60 s, <= 1 GB); {len(out['periods']) if r['code'] == 0 else '?'} periods, {alerts} alerts"
        )


def simulation(runs: int = 1000) -> None:
    from engine.monitor import simulate_alerts

    print(
        f"\nAlert simulation, {runs} runs each; 200 rated documents on each side of T per week; level 0.95 "
        "(detector: P(any false alarm) <= 5 %; per-period test: 5 % per week)"
    )
    print(
        f"{'scenario':46s} {'detector FA':>11s} {'per-period FA':>13s} {'detector delay med / p90 / never':>33s} "
        f"{'per-period delay med / p90':>27s}"
    )
    for slope in (0.0, 0.5):
        sim = simulate_alerts(runs=runs, periods=52, slope=slope, seed=1)
        print(
            f"{f'stationary 52 weeks, slope {slope}':46s} {sim.false_alarm_rate():11.3f} "
            f"{sim.false_alarm_rate(True):13.3f}"
        )
    for drop in (0.4, 0.7, 1.0):
        m_after = 1 / (1 + np.exp(-(np.log(0.3 / 0.7) - drop)))
        sim = simulate_alerts(runs=runs, periods=52, slope=0.5, drift_at=26, drop=drop, seed=2)
        d, dn = sim.delays(), sim.delays(True)
        print(
            f"{f'drift at week 26: m(T) 0.30 -> {m_after:.2f} (log-odds -{drop})':46s} "
            f"{sim.false_alarm_rate():11.3f} {sim.false_alarm_rate(True):13.3f} "
            f"{np.nanmedian(d):>16.0f} / {np.nanpercentile(d, 90):.0f} / {np.mean(np.isnan(d)):.3f} "
            f"{np.nanmedian(dn):>17.0f} / {np.nanpercentile(dn, 90):.0f}"
        )


def coverage(periods: int = 1000) -> None:
    from engine.monitor import monitor, period_counts

    rng = np.random.default_rng(3)
    t, centre, slope, m = 0.5, 0.55, 12.0, 0.3
    truth = 1 / (1 + np.exp(-slope * (t - centre)))
    crossing = centre + np.log(m / (1 - m)) / slope
    mp_hit = th_hit = 0
    widths = []
    for _ in range(periods):
        s = np.round(rng.random(2000), 3)
        y = (rng.random(s.size) < 1 / (1 + np.exp(-slope * (s - centre)))).astype(int)
        p = monitor(period_counts(s, y, np.full(s.size, np.datetime64("2025-01-06"))), t, m).periods[0]
        mp_hit += p.marginal_precision.lower <= truth <= p.marginal_precision.upper
        th_hit += p.operating_point.lower <= crossing + 5e-4 and crossing - 5e-4 <= p.operating_point.upper
        widths.append(p.marginal_precision.upper - p.marginal_precision.lower)
    print(
        f"\nCoverage over {periods} periods of 2,000 rated documents (m(s) = sigmoid(12 (s - 0.55)), T = 0.5, "
        f"window 50, level 0.95): marginal precision at T {mp_hit / periods:.3f} (median width "
        f"{np.median(widths):.2f}), re-solved threshold for m = 0.3 {th_hit / periods:.3f}"
    )


def main() -> None:
    what = sys.argv[1] if len(sys.argv) > 1 else "all"
    rows = int(float(sys.argv[sys.argv.index("--rows-duckdb") + 1])) if "--rows-duckdb" in sys.argv else 100_000_000
    import duckdb

    print(
        f"# {platform.platform()} | Python {platform.python_version()} | duckdb {duckdb.__version__} | "
        f"{os.cpu_count()} cores (shared machine: times are indicative)"
    )
    if what in ("speed", "all"):
        speed()
    if what in ("duckdb", "all"):
        duckdb_large(rows)
    if what in ("sim", "all"):
        simulation()
    if what in ("coverage", "all"):
        coverage()


if __name__ == "__main__":
    main()
