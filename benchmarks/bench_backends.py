"""The sweep and the joint-threshold grid counted by DuckDB out of core against the in-memory engine (issue: backends).

Generates rated Parquet files of 10^6 .. 10^8 rows with DuckDB itself (2 scores, a label with
unrated rows, a weight), then times `opstudio sweep --backend duckdb` and `opstudio paths --bins 100
--backend duckdb` and, as far as it fits (10^7 rows), `--backend memory`, each in its own process so
the peak RSS is the process's own.

    python benchmarks/bench_backends.py [max_rows] [sweep|paths|all]
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

import duckdb


def make(path: Path, rows: int) -> None:
    con = duckdb.connect()
    con.execute(f"""
        COPY (SELECT i AS doc_id,
                     round(1 / (1 + exp(-(1.5 * pos + r1 - 4))), 6) AS score_a,
                     round(1 / (1 + exp(-(1.2 * pos + r2 - 3.5))), 6) AS score_b,
                     CASE WHEN hash(i, 7) % 100 = 0 THEN NULL WHEN pos = 1 THEN 'tp' ELSE 'fp' END AS label,
                     1 + hash(i, 11) % 3 AS weight
              FROM (SELECT i, CAST(hash(i, 3) % 1000 < 5 AS INTEGER) AS pos,
                           (hash(i, 5) % 1000000) / 1e6 * 6 - 3 AS r1, (hash(i, 9) % 1000000) / 1e6 * 6 - 3 AS r2
                    FROM range({rows}) t(i)))
        TO '{path}' (FORMAT parquet, ROW_GROUP_SIZE 1000000)""")
    con.close()


COMMANDS = {
    "sweep": "['sweep', {path!r}, '--backend', {backend!r}, '--classifier', 'score_a', '--target', '0.3', '--json']",
    "paths": "['paths', {path!r}, '--backend', {backend!r}, '--classifiers', 'score_a', 'score_b', '--bins', '100', "
    "'--target', '0.3', '--method', 'graph', '--json']",
}


def run(path: Path, backend: str, command: str = "sweep") -> dict:
    argv = COMMANDS[command].format(path=str(path), backend=backend)
    cmd = [
        sys.executable,
        "-c",
        (
            "import json, resource, sys, time\n"
            "from engine.cli import main\n"
            "t = time.perf_counter()\n"
            f"code = main({argv})\n"
            "sys.stderr.write(json.dumps({'code': code, 'seconds': time.perf_counter() - t, "
            "'rss_mb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))\n"
        ),
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=3600, cwd=Path(__file__).resolve().parents[1])
    stats = json.loads(done.stderr.strip().splitlines()[-1])
    out = json.loads(done.stdout) if stats["code"] == 0 else {}
    if command == "paths":
        point = out.get("paths", [{}])[0].get("operating_point", {})
        threshold = point.get("threshold")
        return {
            **stats,
            "threshold": "/".join(f"{t:.6g}" for t in threshold) if threshold else None,
            "tp": point.get("tp"),
            "fp": point.get("fp"),
        }
    point = out.get("operating_points", [{}])[0]
    return {**stats, "threshold": point.get("threshold"), "tp": point.get("tp"), "fp": point.get("fp")}


def main():
    limit = int(float(sys.argv[1])) if len(sys.argv) > 1 else 100_000_000
    commands = ("sweep", "paths") if len(sys.argv) < 3 or sys.argv[2] == "all" else (sys.argv[2],)
    print(
        f"# {platform.platform()} | Python {platform.python_version()} | duckdb {duckdb.__version__} | "
        f"{os.cpu_count()} cores"
    )
    print(
        f"{'rows':>12s} {'file MB':>8s} {'command':>7s} {'backend':>8s} {'seconds':>8s} {'peak RSS MB':>12s} "
        f"{'threshold':>18s} {'TP':>12s} {'FP':>12s}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for rows in (1_000_000, 10_000_000, 100_000_000):
            if rows > limit:
                break
            path = Path(tmp) / f"rated_{rows}.parquet"
            t0 = time.perf_counter()
            make(path, rows)
            made = time.perf_counter() - t0
            for command in commands:
                for backend in ("duckdb", "memory") if rows <= 10_000_000 else ("duckdb",):
                    r = run(path, backend, command)
                    print(
                        f"{rows:>12,} {path.stat().st_size / 2**20:8.0f} {command:>7s} {backend:>8s} "
                        f"{r['seconds']:8.1f} {r['rss_mb']:12.0f} {r['threshold']!s:>18s} {r['tp']!s:>12s} "
                        f"{r['fp']!s:>12s}",
                        flush=True,
                    )
            path.unlink()
            print(f"{'':>12s} (file written by DuckDB in {made:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
