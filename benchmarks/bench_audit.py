"""Below-the-line audits (issue 23): plan speed out of core, the same documents on every backend, estimate speed,
and the coverage of the intervals by simulation on public data with every label known.

    python benchmarks/bench_audit.py [plan|backends|estimate|coverage|all] [max_rows] [repetitions]

* plan: populations of 10^6 .. 10^8 rows (Parquet written by DuckDB: id, score), ``opstudio audit plan
  --backend duckdb --budget 10000 --strata 8`` in its own process (seconds, peak RSS).
* backends: one population planned in memory, by DuckDB and by Spark (local session) with one seed: the
  plan files must be identical.
* estimate: 10^4 audited rows and 10^6 rated rows, ``engine.audit._estimate`` with 10 thresholds.
* coverage: ADBench mammography (Woods et al. 1993; ODDS) and satimage-2 (UCI Statlog, CC BY 4.0) scored by a
  cross-fitted logistic regression, a review line leaving >= 20 % of the positives below it, repeated audits
  (seeds 0 ..) of one design; every interval method's coverage of the true number of positives below the
  line, and its mean width against simple random sampling (one stratum) of the same budget.
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
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.audit import estimate, plan, simulate_coverage  # noqa: E402
from engine.audit._audit_file import audit_from_frame  # noqa: E402
from engine.audit._intervals import METHODS  # noqa: E402
from engine.audit._population import (  # noqa: E402
    PopulationColumns,
    memory_population,
)
from engine.audit.designs import design_record  # noqa: E402
from engine.backends import open_population  # noqa: E402
from engine.io import rated_from_frame  # noqa: E402

# ../shared beside the checkout (CI, a clone), or one level up (a worktree)
SHARED = next(
    (
        p / "shared" / "data" / "adbench"
        for p in (ROOT.parent, ROOT.parent.parent)
        if (p / "shared" / "data" / "adbench").is_dir()
    ),
    ROOT.parent / "shared" / "data" / "adbench",
)


def make_population(path: Path, rows: int) -> None:
    """id 0 .. rows-1; score: a rare-event classifier's probability (0.1 % positives), 6 decimals."""
    import duckdb

    con = duckdb.connect()
    con.execute(f"""
        COPY (SELECT i AS id, round(1 / (1 + exp(-(3 * pos + r - 5))), 6) AS score
              FROM (SELECT i, CAST(hash(i, 3) % 1000 = 0 AS INTEGER) AS pos,
                           (hash(i, 5) % 1000000) / 1e6 * 6 - 3 AS r FROM range({rows}) t(i)))
        TO '{path}' (FORMAT parquet, ROW_GROUP_SIZE 1000000)""")
    con.close()


def run_plan(path: Path, out: Path, backend: str = "duckdb") -> dict:
    argv = [
        "audit",
        "plan",
        str(path),
        "--backend",
        backend,
        "--score",
        "score",
        "--id",
        "id",
        "--below",
        "0.5",
        "--budget",
        "10000",
        "--strata",
        "8",
        "--seed",
        "7",
        "--out",
        str(out),
        "--json",
    ]
    code = (
        "import json, resource, sys, time\n"
        "from engine.cli import main\n"
        "t = time.perf_counter()\n"
        f"code = main({argv!r})\n"
        "sys.stderr.write(json.dumps({'code': code, 'seconds': time.perf_counter() - t, "
        "'rss_mb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=7200,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    stats = json.loads(done.stderr.strip().splitlines()[-1])
    design = json.loads(done.stdout) if stats["code"] == 0 else {}
    return {**stats, "below": design.get("below"), "strata": len(design.get("strata", []))}


def bench_plan(max_rows: int) -> None:
    print("\n## plan out of core (DuckDB), budget 10,000, 8 strata")
    print(f"{'rows':>12s} {'file MB':>8s} {'seconds':>8s} {'peak RSS MB':>12s} {'below':>12s} {'strata':>6s}")
    with tempfile.TemporaryDirectory() as tmp:
        for rows in (1_000_000, 10_000_000, 100_000_000):
            if rows > max_rows:
                break
            path = Path(tmp) / f"population_{rows}.parquet"
            make_population(path, rows)
            r = run_plan(path, Path(tmp) / "plan.csv")
            print(
                f"{rows:12,d} {path.stat().st_size / 2**20:8.0f} {r['seconds']:8.1f} {r['rss_mb']:12.0f} "
                f"{r['below'] or 0:12,d} {r['strata']:6d}",
                flush=True,
            )
            path.unlink()


def bench_backends(rows: int = 200_000) -> None:
    print(f"\n## the same documents on every backend ({rows:,} rows, seed 7, budget 2,000, 8 strata, prior)")
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"id": [f"doc-{i:07d}" for i in range(rows)], "score": np.round(rng.beta(0.3, 8, rows), 6)})
    frame["prior"] = np.clip(frame["score"] * 0.8, 0, 1)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "population.parquet"
        frame.to_parquet(path)
        tables = {}
        for name, population in (
            ("memory", frame),
            ("duckdb", str(path)),
            ("spark", str(path)),
        ):
            t0 = time.perf_counter()
            scan = open_population(
                population, id="id", score="score", prior="prior", backend="auto" if name == "memory" else name
            )
            tables[name] = plan(scan, below=0.2, budget=2000, strata=8, seed=7, prior_column="prior").table()
            print(f"{name:>8s}: {time.perf_counter() - t0:6.1f} s, {len(tables[name]):,} documents")
    same = all(tables[k].equals(tables["memory"]) for k in tables)
    print(f"identical plan files on memory, DuckDB and Spark: {same}")


def bench_estimate() -> None:
    print("\n## estimate: 10^4 audited rows, 10^6 rated rows, 10 thresholds (the design record checked)")
    rng = np.random.default_rng(1)
    rated = pd.DataFrame({"score": 0.5 + 0.5 * rng.random(1_000_000)})
    rated["label"] = (rng.random(rated.shape[0]) < rated["score"] - 0.45).astype(int)
    below = 0.5 * rng.random(2_000_000)
    scores = np.r_[below, rated["score"].to_numpy()]  # the population: below the line, and the rated documents
    population = pd.DataFrame({"id": np.arange(scores.size), "score": scores})
    planned = plan(memory_population(population, PopulationColumns("id", "score")), below=0.5, budget=10_000, strata=8)
    audit = planned.table()
    audit["label"] = (rng.random(len(audit)) < audit["score"] * 0.02).astype(int)
    t0 = time.perf_counter()
    design = design_record(planned)
    print(f"design record: {time.perf_counter() - t0:.3f} s ({design['above']['documents']:,} documents above)")
    data, reviewed = rated_from_frame(rated), audit_from_frame(audit)
    thresholds = list(np.linspace(0.05, 0.95, 10))
    estimate(data, reviewed, design=design, thresholds=thresholds)  # warm up
    t0 = time.perf_counter()
    result = estimate(data, reviewed, design=design, thresholds=thresholds)
    print(
        f"estimate: {time.perf_counter() - t0:.3f} s (positives below {result.positives.estimate:,.0f} "
        f"[{result.positives.lower:,.0f}, {result.positives.upper:,.0f}])"
    )


def scored(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Cross-fitted logistic-regression probabilities of an ADBench set (two folds, seed 0)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    with np.load(SHARED / name, allow_pickle=False) as data:
        x, y = data["X"], data["y"].astype(int)
    s = np.zeros(y.size)
    for train, test in StratifiedKFold(2, shuffle=True, random_state=0).split(x, y):
        s[test] = (
            make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000))
            .fit(x[train], y[train])
            .predict_proba(x[test])[:, 1]
        )
    return s, y


DESIGNS = (
    ("simple random sampling", 1, "proportional"),
    ("6 strata, proportional", 6, "proportional"),
    ("6 strata, Neyman (prior = score)", 6, "neyman"),
)


def bench_coverage(repetitions: int) -> None:
    print(f"\n## interval coverage by simulation ({repetitions} audits per design, nominal 95 %)")
    cases = (("23_mammography.npz", "top 3 %", None, 500), ("31_satimage-2.npz", "score >= 0.9", 0.9, 300))
    for name, line_text, line, budget in cases:
        if not (SHARED / name).exists():
            print(f"{name}: not found in {SHARED}, skipped")
            continue
        s, y = scored(name)
        below = float(np.quantile(s, 0.97)) if line is None else line
        print(
            f"\n{name}: line {line_text} ({below:.4g}): {int((s < below).sum()):,} documents below, "
            f"{int(y[s < below].sum())} of {int(y.sum())} positives below the line; budget {budget}"
        )
        print(
            f"{'design':>34s} {'method':>9s} {'coverage':>9s} {'± s.e.':>7s} {'too low':>8s} {'too high':>9s} "
            f"{'mean width':>11s} {'vs SRS':>7s} {'found':>6s}"
        )
        srs = {}
        for title, strata, allocation in DESIGNS:
            t0 = time.perf_counter()
            results = simulate_coverage(
                s,
                y,
                below=below,
                budget=budget,
                strata=strata,
                allocation=allocation,
                prior=s,
                methods=METHODS,
                repetitions=repetitions,
            )
            for r in results:
                srs.setdefault(r.method, r.mean_width)
                print(
                    f"{title:>34s} {r.method:>9s} {r.coverage:9.3f} {r.standard_error:7.3f} {r.too_low:8.3f} "
                    f"{r.too_high:9.3f} {r.mean_width:11.1f} {r.mean_width / srs[r.method]:7.2f} "
                    f"{r.mean_found:6.1f}"
                )
            print(f"{'':>34s} ({time.perf_counter() - t0:.0f} s)", flush=True)


def main() -> None:
    what = sys.argv[1] if len(sys.argv) > 1 else "all"
    max_rows = int(float(sys.argv[2])) if len(sys.argv) > 2 else 100_000_000
    repetitions = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    print(f"# {platform.platform()} | Python {platform.python_version()} | {os.cpu_count()} cores (shared machine)")
    if what in ("plan", "all"):
        bench_plan(max_rows)
    if what in ("backends", "all"):
        bench_backends()
    if what in ("estimate", "all"):
        bench_estimate()
    if what in ("coverage", "all"):
        bench_coverage(repetitions)


if __name__ == "__main__":
    main()
