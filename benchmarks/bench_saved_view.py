"""Saved views of a 10^6-row dataset (issue 34): first render of a fresh session, and server memory under 8 sessions.

Loopback only, not part of the unit suite: ``PYTHONPATH=. python benchmarks/bench_saved_view.py [--rows 1000000]
[--sessions 8] [--release-seconds 120]``.

1. A 10^6-row rated CSV is added to a fresh workspace (``OPSTUDIO_HOME`` in a temporary folder) and a view of the
   Operating point page on it is saved, through the engine (as Save view stores it).
2. ``streamlit run app.py`` starts in the default configuration on that workspace; a warm-up session opens the Home
   and Operating point pages on the shipped sample and ends; when the server has given back what it could (RSS stable,
   housekeeping done) its RSS is the **warm baseline**.
3. **First render**: a fresh browser context opens the view's link; the time from the request to the operating
   point's cards drawn on the view's data. The first opening reads the dataset from the store (once per server);
   a second fresh context then finds it held.
4. **8 sessions**: 8 fresh contexts open the link at once; the peak RSS while they render, against the warm baseline
   plus one copy of the data (the validated input as the server holds it, weighed in this process) plus 150 MB;
   then they close, and RSS is sampled every 5 s until it is back within 150 MB of the baseline (at most
   ``--release-seconds``).

Timings on a busy machine are noisy: the load average is printed with them.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np
from playwright.sync_api import sync_playwright

from tests.e2e.conftest import CHROMIUM, FLAGS, rss_mb, settle, start_server, stop_server, streamlit_pid

CARD = '[data-testid="stMetric"]:has-text("Threshold") [data-testid="stMetricValue"]'


def write_rated(path: Path, rows: int) -> None:
    """``rows`` rated documents: two scores, a label, a region (the shape of the shipped synthetic sample)."""
    rng = np.random.default_rng(7)
    label = rng.random(rows) < 0.08
    a = np.clip(rng.normal(0.35 + 0.3 * label, 0.15), 0, 1)
    b = np.clip(rng.normal(0.4 + 0.25 * label, 0.18), 0, 1)
    region = np.array(["north", "south", "east", "west"])[rng.integers(0, 4, rows)]
    with path.open("w") as f:
        f.write("doc_id,score_a,score_b,label,region\n")
        for start in range(0, rows, 100_000):
            stop = min(rows, start + 100_000)
            f.writelines(
                f"{i},{x:.6f},{y:.6f},{int(z)},{r}\n"
                for i, x, y, z, r in zip(
                    range(start, stop), a[start:stop], b[start:stop], label[start:stop], region[start:stop]
                )
            )


def saved_view(home: Path, rows: int) -> tuple[int, float]:
    """A dataset of ``rows`` rows and a saved view of the Operating point page on it: (view id, MB of one copy)."""
    from engine.io import detect_columns, read_table
    from engine.memory import deep_size
    from engine.workspace import open_workspace, settings_from_env
    from views.forms import FORMS
    from views.forms.common import mapping_fields

    path = home / "ratings_1e6.csv"
    write_rated(path, rows)
    raw = path.read_bytes()
    ws = open_workspace(settings_from_env({"OPSTUDIO_HOME": str(home)}))
    local = ws.identity()
    dataset = ws.add_dataset(path, local, kind="rated")
    mapping = mapping_fields(detect_columns(read_table(raw, name=path.name).frame))
    ref = {"kind": "rated", "sha256": dataset.sha256, "name": path.name, "mapping": mapping, "sample": None}
    view = ws.save_view("operating-point", {"widgets": {"target": 0.3}, "inputs": [ref]}, [dataset.sha256], local)
    copy_mb = deep_size(FORMS["rated"].restore(raw, path.name, mapping)) / 2**20
    ws.close()
    return view.id, copy_mb


def first_render(browser, link: str) -> tuple[float, object]:
    """Seconds from the request to the cards drawn, in a fresh context (returned open)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    start = time.perf_counter()
    page.goto(link)
    page.wait_for_selector(CARD, timeout=300_000)
    return time.perf_counter() - start, context


def settled_rss(pid: int, seconds: float = 90, every: float = 5) -> float:
    """RSS once two readings ``every`` seconds apart differ by less than 5 MB (at most ``seconds``)."""
    last, deadline = rss_mb(pid), time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(every)
        now = rss_mb(pid)
        if abs(now - last) < 5:
            return now
        last = now
    return last


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--sessions", type=int, default=8)
    ap.add_argument("--release-seconds", type=float, default=120)
    args = ap.parse_args()
    home = Path(tempfile.mkdtemp(prefix="bench-saved-view-"))
    t0 = time.perf_counter()
    view_id, copy_mb = saved_view(home, args.rows)
    print(f"{args.rows:,} rows stored and a view saved in {time.perf_counter() - t0:.1f} s; one copy {copy_mb:.0f} MB")
    proc, base = start_server({"OPSTUDIO_HOME": str(home)})
    pid = streamlit_pid(int(base.rsplit(":", 1)[1]))
    link = f"{base}/operating-point?view={view_id}"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
            warm = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
            warm.goto(f"{base}/operating-point")
            settle(warm, "Sweep of target marginal precisions")
            warm.context.close()
            baseline = settled_rss(pid, 150)
            print(f"warm baseline {baseline:.0f} MB (load average {os.getloadavg()[0]:.1f})")
            cold, context = first_render(browser, link)
            context.close()
            held, context = first_render(browser, link)
            context.close()
            print(
                f"first render of the view in a fresh session: {cold:.2f} s (dataset read from the store), "
                f"{held:.2f} s (held by the server); load average {os.getloadavg()[0]:.1f}"
            )
            pages = [
                browser.new_context(viewport={"width": 1400, "height": 1000}).new_page() for _ in range(args.sessions)
            ]
            start, peak = time.perf_counter(), rss_mb(pid)
            for page in pages:
                page.goto(link)
            for page in pages:
                while not page.locator(CARD).count():
                    peak = max(peak, rss_mb(pid))
                    page.wait_for_timeout(200)
                settle(page, "Sweep of target marginal precisions")
                peak = max(peak, rss_mb(pid))
            busy = time.perf_counter() - start
            limit = baseline + copy_mb + 150
            print(
                f"{args.sessions} sessions drawn in {busy:.1f} s; RSS peak {peak:.0f} MB, limit (baseline + one copy + "
                f"150 MB) {limit:.0f} MB: {'met' if peak <= limit else 'MISSED'}; load average {os.getloadavg()[0]:.1f}"
            )
            for page in pages:
                page.context.close()
            browser.close()
        closed, samples = time.monotonic(), []
        while time.monotonic() - closed < args.release_seconds:
            time.sleep(5)
            samples.append((time.monotonic() - closed, rss_mb(pid)))
            if samples[-1][1] <= baseline + 150:
                break
        when, rss = samples[-1]
        print(
            f"after the sessions closed: {rss:.0f} MB at {when:.0f} s ({'within' if rss <= baseline + 150 else 'NOT within'}"
            f" 150 MB of the baseline); samples {', '.join(f'{s:.0f}s {m:.0f}' for s, m in samples)}"
        )
    finally:
        stop_server(proc)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
