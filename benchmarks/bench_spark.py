"""The Spark backend on a local session against DuckDB: `opstudio sweep` and `opstudio paths --bins 100`, 10^7 rows.

The same rated Parquet file as ``bench_backends.py`` (written by DuckDB: 2 scores, a label with 1 %
unrated rows, a weight 1-3); each command runs in its own process. Spark starts its own JVM (a
child of the Python process, ``local[*]``, default 1 GB driver heap), so the peak RSS reported is the
Python process's plus the JVM's (``VmHWM`` read from /proc just before the command returns).
Seconds are the whole command's, JVM start-up included; ``counting s`` is the backend's own scan
time (the JSON's ``seconds``).

    python benchmarks/bench_spark.py [rows] [sweep|paths|all]
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_backends import COMMANDS, make  # noqa: E402  (same file, same commands)

CHILD = """
import json, os, resource, sys, time
from engine.cli import main

def jvm_peak_mb():
    total = 0
    for pid in filter(str.isdigit, os.listdir('/proc')):
        try:
            with open(f'/proc/{pid}/stat') as f:
                ppid = int(f.read().rsplit(')', 1)[1].split()[1])
            if ppid != os.getpid():
                continue
            with open(f'/proc/{pid}/status') as f:
                total += next(int(l.split()[1]) for l in f if l.startswith('VmHWM')) / 1024
        except (OSError, StopIteration, ValueError):
            pass
    return total

t = time.perf_counter()
code = main(ARGV)
seconds = time.perf_counter() - t
sys.stderr.write(json.dumps({'code': code, 'seconds': seconds, 'jvm_mb': jvm_peak_mb(),
                             'rss_mb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}) + '\\n')
"""


def run(path: Path, backend: str, command: str) -> dict:
    argv = COMMANDS[command].format(path=str(path), backend=backend)
    done = subprocess.run(
        [sys.executable, "-c", CHILD.replace("ARGV", argv)],
        capture_output=True,
        text=True,
        timeout=3600,
        cwd=Path(__file__).resolve().parents[1],
    )
    stats = json.loads(done.stderr.strip().splitlines()[-1])
    out = json.loads(done.stdout) if stats["code"] == 0 else {}
    if command == "paths":
        point = out.get("paths", [{}])[0].get("operating_point", {})
        threshold = point.get("threshold")
        threshold = "/".join(f"{t:.6g}" for t in threshold) if threshold else None
    else:
        point = out.get("operating_points", [{}])[0]
        threshold = point.get("threshold")
    return {
        **stats,
        "counting": out.get("seconds"),
        "threshold": threshold,
        "tp": point.get("tp"),
        "fp": point.get("fp"),
    }


def main():
    rows = int(float(sys.argv[1])) if len(sys.argv) > 1 else 10_000_000
    commands = ("sweep", "paths") if len(sys.argv) < 3 or sys.argv[2] == "all" else (sys.argv[2],)
    import duckdb
    import pyspark

    print(
        f"# {platform.platform()} | Python {platform.python_version()} | pyspark {pyspark.__version__} | "
        f"duckdb {duckdb.__version__} | {os.cpu_count()} cores | load {os.getloadavg()[0]:.1f}"
    )
    print(
        f"{'rows':>12s} {'command':>7s} {'backend':>8s} {'seconds':>8s} {'counting s':>10s} {'RSS MB':>7s} "
        f"{'JVM MB':>7s} {'threshold':>22s} {'TP':>10s} {'FP':>6s}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"rated_{rows}.parquet"
        t0 = time.perf_counter()
        make(path, rows)
        print(f"# Parquet {path.stat().st_size / 2**20:.0f} MB written by DuckDB in {time.perf_counter() - t0:.0f} s")
        for command in commands:
            for backend in ("spark", "duckdb"):
                r = run(path, backend, command)
                counting = f"{r['counting']:.1f}" if r["counting"] is not None else "-"
                print(
                    f"{rows:>12,} {command:>7s} {backend:>8s} {r['seconds']:8.1f} {counting:>10s} "
                    f"{r['rss_mb']:7.0f} {r['jvm_mb']:7.0f} {r['threshold']!s:>22s} {r['tp']!s:>10s} "
                    f"{r['fp']!s:>6s}",
                    flush=True,
                )
        print(f"# load {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
