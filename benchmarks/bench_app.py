"""Dashboard server time per interaction with 1,000,000 rated rows (Streamlit AppTest, no browser).

    python benchmarks/bench_app.py [--rows 1000000]

Uploads a generated CSV through the Data page's file uploader, then times
reruns: the first render of each page (which builds and memoises the hull, the
bootstrap, the grid and the paths) and slider moves afterwards, which must stay
under 300 ms of server time. A reference in the same run: the same slider move
with the session memo cleared, i.e. what every move would cost without caching.
"""

from __future__ import annotations

import argparse
import io
import resource
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_engine import rare_event_data  # noqa: E402


def csv_bytes(n: int, seed: int = 1, names: tuple[str, str] = ("score_a", "score_b")) -> bytes:
    """``n`` rated rows of two classifiers (rare positives) as CSV: ``names``, then ``label``."""
    s, y = rare_event_data(n, 2, seed=seed)
    buf = io.StringIO()
    np.savetxt(
        buf,
        np.column_stack([s, y]),
        fmt=["%.6f", "%.6f", "%d"],
        delimiter=",",
        header=f"{names[0]},{names[1]},label",
        comments="",
    )
    return buf.getvalue().encode()


def timed_run(at, action=None) -> float:
    t0 = time.perf_counter()
    (action(at) if action else at).run()
    seconds = time.perf_counter() - t0
    assert not at.exception, at.exception
    return seconds


def main():
    from streamlit.testing.v1 import AppTest

    from tests.apptest_setup import legacy_page_folders_off

    legacy_page_folders_off()  # AppTest runs pages as the dashboard's server does

    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--moves", type=int, default=8)
    args = ap.parse_args()
    raw = csv_bytes(args.rows)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.run()
    at.switch_page("pages/data.py").run()
    at.radio(key="data_source").set_value("Upload a file").run()
    rows = []
    t_upload = timed_run(at, lambda a: a.file_uploader(key="upload").set_value(("big.csv", raw, "text/csv")))
    rows.append(("upload + parse + validate + histograms", f"{len(raw) / 1e6:.0f} MB CSV", t_upload, None))
    assert {m.label: m.value for m in at.main.metric}["Rated rows"] == f"{args.rows:,}"

    at.switch_page("pages/operating_point.py")
    rows.append(("operating point page, first render (hull + 200-replicate bootstrap)", "", timed_run(at), None))
    targets = np.linspace(0.1, 0.8, args.moves)
    moves = [timed_run(at, lambda a, t=t: a.slider(key="target").set_value(float(t))) for t in targets]

    def uncached(a):
        a.session_state["_memo"].clear()
        return a.slider(key="target").set_value(0.35)

    reference = timed_run(at, uncached)
    rows.append((f"operating point: slider move (median of {len(moves)})", "", statistics.median(moves), reference))
    rows.append(("operating point: slider move (slowest)", "", max(moves), None))

    at.switch_page("pages/ensemble_paths.py")
    rows.append(("ensemble paths page, first render (100x100 grid + both paths)", "", timed_run(at), None))
    moves = [timed_run(at, lambda a, t=t: a.slider(key="target").set_value(float(t))) for t in targets]
    reference = timed_run(at, uncached)
    rows.append((f"ensemble paths: slider move (median of {len(moves)})", "", statistics.median(moves), reference))
    rows.append(("ensemble paths: slider move (slowest)", "", max(moves), None))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # tracemalloc would slow every rerun

    print(
        f"# {args.rows:,} rated rows, 2 classifiers; Streamlit AppTest server time; peak RSS of the process {peak:,.0f} MB (CSV bytes included)"
    )
    print(f"{'interaction':70s} {'size':>12s} {'seconds':>9s} {'target':>9s} {'uncached s':>11s} {'ratio':>7s}")
    for name, size, sec, ref in rows:
        target = "< 0.3 s" if "slider move" in name else ""
        ratio = f"{ref / sec:.0f}x" if ref else ""
        ref_s = f"{ref:.3f}" if ref else ""
        print(f"{name:70s} {size:>12s} {sec:9.3f} {target:>9s} {ref_s:>11s} {ratio:>7s}")


if __name__ == "__main__":
    main()
