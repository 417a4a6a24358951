"""The pages' heavy actions, server time per click (Streamlit AppTest, no browser), with the load average (issue 37).

    PYTHONPATH=. python benchmarks/bench_heavy_actions.py [--rows 1000000] [--repeats 2]

* Constrained training on the Adult sample: "Train from scratch" (the default demographic-parity bound), then the
  fairness sweep (the first click computes it for the server; a second session's click reuses it);
* Early exit on the shipped model: α steps to values not fitted yet (and back to one that is);
* Operating point on ``--rows`` rated rows with two classifiers: switching classifier (first visit of each, then
  back), while the bootstrap of the first runs in the background;
* Monitoring: the money toggle on and off.

Targets at load <= 2 (issue 37): α step <= 1 s, train from scratch <= 3 s, fairness sweep <= 6 s, classifier switch
<= 0.5 s. AppTest reruns the whole page where the browser reruns a fragment, so these are upper bounds of the server's
part; the browser's own time is measured by ``load_test.py`` and ``bench_browser.py``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_app import csv_bytes  # noqa: E402


def clicked(at, action) -> tuple[float, float]:
    """Seconds of ``action(at).run()`` and the load average when it started; fails on a page exception."""
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    action(at).run()
    seconds = time.perf_counter() - t0
    assert not at.exception, at.exception
    return seconds, load


def report(name: str, timings: list[tuple[float, float]], target: str) -> None:
    seconds = [s for s, _ in timings]
    loads = [f"{load:.1f}" for _, load in timings]
    print(
        f"| {name} | {statistics.median(seconds):.2f} s ({min(seconds):.2f}-{max(seconds):.2f}, n={len(seconds)}) "
        f"| {target} | {', '.join(loads)} |",
        flush=True,
    )


def app():
    from streamlit.testing.v1 import AppTest

    from tests.apptest_setup import legacy_page_folders_off

    legacy_page_folders_off()  # AppTest runs pages as the dashboard's server does

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=900)
    at.run()
    return at


def constraints(repeats: int) -> None:
    at = app()
    at.switch_page("pages/constraints.py").run()
    scratch = [clicked(at, lambda a: a.button(key="train_constrained").click()) for _ in range(repeats)]
    report("Constrained training: Train from scratch (Adult, demographic parity 0.8)", scratch, "<= 3 s")
    report(
        "Constrained training: fairness sweep, first click",
        [clicked(at, lambda a: a.button(key="run_fair_sweep").click())],
        "<= 6 s",
    )
    other = app()
    other.switch_page("pages/constraints.py").run()
    report(
        "Constrained training: fairness sweep, another session",
        [clicked(other, lambda a: a.button(key="run_fair_sweep").click())],
        "<= 6 s",
    )


def early_exit(repeats: int) -> None:
    at = app()
    at.switch_page("pages/early_exit.py").run()
    alphas = [0.55 + 0.05 * i for i in range(2 * repeats + 2)]
    steps = [clicked(at, lambda a, v=v: a.slider(key="alpha_pct").set_value(v)) for v in alphas]
    report("Early exit: α step to a new value", steps, "<= 1 s")
    report("Early exit: α step back", [clicked(at, lambda a: a.slider(key="alpha_pct").set_value(alphas[0]))], "")


def operating_point(rows: int, repeats: int) -> None:
    at = app()
    at.switch_page("pages/data.py").run()
    at.radio(key="data_source").set_value("Upload a file").run()
    at.file_uploader(key="upload").set_value(("big.csv", csv_bytes(rows), "text/csv")).run()
    at.switch_page("pages/operating_point.py").run()
    first = [clicked(at, lambda a: a.selectbox(key="classifier").set_value("score_b"))]
    back = [
        clicked(at, lambda a, c=c: a.selectbox(key="classifier").set_value(c)) for c in ["score_a", "score_b"] * repeats
    ]
    report(f"Operating point ({rows:,} rows): classifier switch, first visit of the other", first, "<= 0.5 s")
    report(f"Operating point ({rows:,} rows): classifier switch, back and forth", back, "<= 0.5 s")


def monitoring(repeats: int) -> None:
    at = app()
    at.switch_page("pages/monitoring.py").run()
    toggles = [clicked(at, lambda a, on=on: a.toggle(key="mon_money").set_value(on)) for on in [True, False] * repeats]
    report("Monitoring: money toggle", toggles, "")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--only", choices=["constraints", "early_exit", "operating_point", "monitoring"])
    args = ap.parse_args()
    print(f"# AppTest server time per click; {os.cpu_count()} cores; code from {ROOT}")
    print("| action | median (min-max) | target at load <= 2 | load average at each click |\n|---|---|---|---|")
    parts = {
        "constraints": lambda: constraints(args.repeats),
        "early_exit": lambda: early_exit(args.repeats),
        "operating_point": lambda: operating_point(args.rows, args.repeats),
        "monitoring": lambda: monitoring(args.repeats),
    }
    for name, run in parts.items():
        if args.only in (None, name):
            run()


if __name__ == "__main__":
    main()
