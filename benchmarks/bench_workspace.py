"""The workspace (issue 34): ``decisions verify`` over 10^5 events (target <= 5 s), and one decision's actions.

1. ``verify``: a workspace holding N events (default 10^5: N/4 decisions proposed, approved, deployed and
   retired, their hashes made by the engine's own functions and inserted in bulk), then
   ``Workspace.verify()`` in this process and ``opstudio decisions verify`` in its own process (Python's
   start, imports and the schema check included), each repeated; the target is the command's time.
2. ``actions``: propose + approve + deploy through the API, one transaction each, per decision.

Run on SQLite (a temporary file) or on PostgreSQL (``--database-url postgresql+psycopg://...``, an empty
database). Timings on a shared machine are noisy: take final numbers on a quiet one.

    python benchmarks/bench_workspace.py [verify|actions|all] [--events N] [--database-url URL] [--repeat R]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.workspace import Identity, Settings, Workspace  # noqa: E402
from engine.workspace._decisions import GENESIS, content_hash, event_hash, now  # noqa: E402
from engine.workspace._models import DatasetRow, DecisionDatasetRow, DecisionRow, EventRow  # noqa: E402
from engine.workspace._registry import decision_values  # noqa: E402

ACTIONS = (("proposed", "ana@example.org"), ("approved", "bob@example.org"), ("deployed", "bob@example.org"),
           ("retired", "bob@example.org"))  # fmt: skip
SHA = "ab" * 32


def fill(ws: Workspace, events: int) -> None:
    """``events`` events (4 per decision) written in bulk with the engine's hash functions."""
    ana = Identity("ana@example.org", frozenset({"analyst"}))
    decisions, links, rows = [], [], []
    for i in range(1, events // 4 + 1):
        values = decision_values(
            ana, kind="operating_point", classifier="score", threshold=0.5 + i * 1e-6, target=0.3, tp=100.0 + i,
            fp=200.0, settings={"rated": 19770, "i": i}, evidence={}, note=f"decision {i}", name=None,
        )  # fmt: skip
        values.update(id=i, status="retired")
        decisions.append(values)
        links.append({"decision_id": i, "position": 0, "sha256": SHA})
        content, prev = content_hash(values, [SHA]), GENESIS
        for seq, (event, by) in enumerate(ACTIONS, start=1):
            at = now()
            digest = event_hash(i, seq, event, by, at, "", content, prev)
            rows.append({"decision_id": i, "seq": seq, "event": event, "by": by, "at": at, "note": "",
                         "content_hash": content, "prev_hash": prev, "hash": digest})  # fmt: skip
            prev = digest
    with ws.engine.begin() as c:
        c.execute(DatasetRow.__table__.insert(), [{"sha256": SHA, "name": "bench", "kind": "rated", "rows": 1,
                  "bytes": 1, "owner": "ana@example.org", "created_at": now(), "private": False}])  # fmt: skip
        c.execute(DecisionRow.__table__.insert(), decisions)
        c.execute(DecisionDatasetRow.__table__.insert(), links)
        for start in range(0, len(rows), 20_000):
            c.execute(EventRow.__table__.insert(), rows[start : start + 20_000])


def bench_verify(settings: Settings, events: int, repeat: int) -> None:
    with Workspace(settings) as ws:
        t0 = time.perf_counter()
        fill(ws, events)
        print(f"filled {events:,} events in {time.perf_counter() - t0:.1f} s ({ws.engine.dialect.name})")
        engine_times, engine_cpu = [], []
        for _ in range(repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            result = ws.verify()
            engine_times.append(time.perf_counter() - t0)
            engine_cpu.append(time.process_time() - c0)
            assert result.ok and result.events == events, result
    env = {**os.environ, "OPSTUDIO_DATABASE_URL": settings.database_url, "OPSTUDIO_DATASETS": settings.datasets,
           "PYTHONPATH": str(ROOT)}  # fmt: skip
    command_times, command_cpu = [], []
    for _ in range(repeat):
        t0, r0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run([sys.executable, "-m", "engine.cli", "decisions", "verify"], env=env, cwd=ROOT,
                              capture_output=True, text=True, check=True)  # fmt: skip
        command_times.append(time.perf_counter() - t0)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        command_cpu.append(r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime)
        assert done.stdout == f"{events} events verified\n", done
    # CPU seconds beside wall seconds: on a loaded machine the wall clock counts the other processes' turns too
    print(
        f"Workspace.verify(): wall median {statistics.median(engine_times):.2f} s (min {min(engine_times):.2f}), "
        f"CPU median {statistics.median(engine_cpu):.2f} s"
    )
    print(
        f"opstudio decisions verify (own process): wall median {statistics.median(command_times):.2f} s "
        f"(min {min(command_times):.2f}), CPU median {statistics.median(command_cpu):.2f} s (target <= 5 s)"
    )


def bench_actions(settings: Settings, decisions: int) -> None:
    with Workspace(settings) as ws:
        me = ws.identity()
        sha = ws.add_dataset(b"score,label\n0.9,1\n0.2,0\n", me).sha256
        times = {"propose": [], "approve": [], "deploy": []}
        for i in range(decisions):
            t0 = time.perf_counter()
            d = ws.propose(me, kind="operating_point", classifier="score", threshold=0.5, datasets=[sha], target=0.3,
                           settings={"i": i})  # fmt: skip
            times["propose"].append(time.perf_counter() - t0)
            for action in ("approve", "deploy"):
                t0 = time.perf_counter()
                ws.act(d.id, action, me)
                times[action].append(time.perf_counter() - t0)
    for action, values in times.items():
        print(f"{action}: median {statistics.median(values) * 1000:.1f} ms over {decisions} decisions")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("what", nargs="?", choices=("verify", "actions", "all"), default="all")
    p.add_argument("--events", type=int, default=100_000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--decisions", type=int, default=50, help="decisions for the actions benchmark")
    p.add_argument("--database-url", help="an empty database (default: a temporary SQLite file)")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for part in ("verify", "actions"):
            if args.what not in (part, "all"):
                continue
            url = args.database_url or f"sqlite:///{tmp}/{part}.db"
            settings = Settings(url, f"{tmp}/datasets")
            if part == "verify":
                bench_verify(settings, args.events, args.repeat)
            else:
                bench_actions(settings, args.decisions)
            if args.database_url:  # one empty database serves one part
                break


if __name__ == "__main__":
    main()
