"""Server memory after every session has ended (issue 25): warm baseline, peak, after close, delta.

    PYTHONPATH=. python benchmarks/bench_memory.py [--sessions 3] [--skip run_fidelity_curve ...]

Loopback only, not part of the unit suite. Starts ``streamlit run app.py`` on a free port with a short
reconnect window and housekeeping period, then in Debian's Chromium (Playwright):

1. **warm-up**: one session opens every page of the navigation in turn (every library imported, every
   shipped sample read); its tab is closed and, once its session is reaped, the server's RSS is the
   **warm baseline**;
2. **walk**: N sessions, one after the other, each opens every page, presses every heavy button the page
   shows on its shipped sample (reports, simulations, sweeps, trade-off curves, comparisons) and adds
   the page's result to the decision record; all tabs stay open until the last walk is done (the
   **peak**), then are closed together;
3. **after close**: RSS when the reconnect window and two housekeeping periods have passed, and two minutes after
   the sessions ended (issue 37's figure; the idle release empties the shared results after 60 s).

Prints one table row (baseline, peak, after close, delta against the baseline) and the load average.
Target (issue 25): after close ≤ baseline + 150 MB.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.pages import PAGES  # noqa: E402
from tests.e2e.conftest import CHROMIUM, FLAGS, rss_mb, serve, streamlit_pid  # noqa: E402

TTL_SECONDS, HOUSEKEEPING_SECONDS = 10, 5
SERVER_ENV = {
    "STREAMLIT_SERVER_DISCONNECTED_SESSION_TTL": str(TTL_SECONDS),
    "OPSTUDIO_HOUSEKEEPING_SECONDS": str(HOUSEKEEPING_SECONDS),
}

#: page url path -> keys of the buttons pressed on it (in order), when the page shows them
HEAVY = {
    "operating-point": ("build_op_report", "segment_boot"),
    "ensemble-paths": ("build_paths_report",),
    "batch-decisions": ("run_mc", "run_all_batches", "run_baselines"),
    "early-exit": ("time_qwyc", "run_curves", "fit_promise", "run_fidelity_curve"),
    "constraints": ("train_constrained", "run_fair_sweep", "run_churn_sweep"),
}
VERBOSE = False
RECORD = "Add to decision record"

IDLE = (
    "() => { const w = document.querySelector('[data-testid=\"stStatusWidget\"]');"
    " return document.querySelector('[data-testid=\"stSidebarNav\"]') && !document.querySelector("
    "'[data-stale=\"true\"]') && !document.querySelector('[data-testid=\"stSpinner\"]')"
    " && (!w || !/Running|Stop/.test(w.innerText)); }"
)


def idle(page, timeout_s: float = 900) -> None:
    """Wait until Streamlit has stopped running twice, one second apart (fragments may start again)."""
    for _ in range(2):
        page.wait_for_function(IDLE, timeout=timeout_s * 1000, polling=250)
        page.wait_for_timeout(1000)


class Peak:
    def __init__(self, pid: int):
        self.pid, self.mb = pid, rss_mb(pid)

    def read(self) -> float:
        now = rss_mb(self.pid)
        self.mb = max(self.mb, now)
        return now


def open_page(page, p, peak: Peak) -> None:
    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=p.title, exact=True).first.click()
    page.wait_for_url(f"**/{p.url_path}*", timeout=60_000)
    idle(page)
    peak.read()


def press(page, key: str, peak: Peak, log: list) -> None:
    button = page.locator(f".st-key-{key} button").first
    if not button.count() or not button.is_visible() or not button.is_enabled():
        log.append(f"{key}: not shown")
        return
    t0 = time.perf_counter()
    button.click()
    page.wait_for_timeout(500)
    idle(page)
    peak.read()
    log.append(f"{key}: {time.perf_counter() - t0:.0f} s")
    if VERBOSE:
        print(log[-1], flush=True)


def walk(page, base: str, peak: Peak, heavy: dict, log: list) -> None:
    """Every page of the navigation; with ``heavy`` its buttons and "Add to decision record"."""
    page.goto(f"{base}/")
    idle(page)
    for p in PAGES:
        if p.url_path == "home":
            continue
        t0 = time.perf_counter()
        open_page(page, p, peak)
        log.append(f"{p.url_path}: {time.perf_counter() - t0:.0f} s")
        if VERBOSE:
            print(log[-1], flush=True)
        for key in heavy.get(p.url_path, ()):
            press(page, key, peak, log)
        if heavy and p.url_path != "record":
            record = page.get_by_role("button", name=RECORD)
            if record.count() and record.first.is_visible():
                record.first.click()
                idle(page)
        if page.locator('[data-testid="stException"]').count():
            log.append(f"{p.url_path}: EXCEPTION")
    peak.read()


def wait_reaped(pid: int) -> float:
    time.sleep(TTL_SECONDS + 3 * HOUSEKEEPING_SECONDS)
    return rss_mb(pid)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=3)
    ap.add_argument("--skip", nargs="*", default=[], help="button keys not to press")
    ap.add_argument("--log", action="store_true", help="print each page's and button's time")
    args = ap.parse_args()
    global VERBOSE
    VERBOSE = args.log
    heavy = {k: tuple(b for b in v if b not in args.skip) for k, v in HEAVY.items()}
    gen = serve(SERVER_ENV)
    base = next(gen)
    pid = streamlit_pid(int(base.rsplit(":", 1)[1]))
    start = rss_mb(pid)
    load0 = os.getloadavg()
    t0 = time.perf_counter()
    log: list = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
            ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
            walk(ctx.new_page(), base, Peak(pid), {}, log)
            ctx.close()
            light = wait_reaped(pid)
            print(f"after a walk of every page: {light:.0f} MB", flush=True)
            ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
            log.append("-- warm-up with the heavy buttons")
            walk(ctx.new_page(), base, Peak(pid), heavy, log)
            ctx.close()
            baseline = wait_reaped(pid)
            print(f"after a walk with every heavy button (warm baseline): {baseline:.0f} MB", flush=True)
            peak = Peak(pid)
            contexts = []
            for i in range(args.sessions):
                ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
                contexts.append(ctx)
                log.append(f"-- session {i + 1}")
                walk(ctx.new_page(), base, peak, heavy, log)
                print(f"session {i + 1}: RSS {peak.read():.0f} MB", flush=True)
            for ctx in contexts:
                ctx.close()
            browser.close()
        closed, closed_at = rss_mb(pid), time.monotonic()
        after = wait_reaped(pid)
        # issue 37's figure: two minutes after every session ended (an idle server empties its shared results after
        # OPSTUDIO_IDLE_RELEASE_SECONDS, default 60)
        time.sleep(max(0.0, closed_at + 120 - time.monotonic()))
        two_minutes = rss_mb(pid)
    finally:
        try:
            next(gen)
        except StopIteration:
            pass
    load1 = os.getloadavg()
    print(
        f"\n{args.sessions} sessions, every page and heavy button (skipped: {', '.join(args.skip) or 'none'}); "
        f"{time.perf_counter() - t0:.0f} s; reconnect window {TTL_SECONDS} s, housekeeping every "
        f"{HOUSEKEEPING_SECONDS} s; load average {load0[0]:.1f} at start, {load1[0]:.1f} at the end"
    )
    print(
        "| RSS start | every page seen | warm baseline | peak | right after close | after reaping | delta vs warm "
        "baseline | delta vs every page seen | 2 min after close | target: start + 512 + 150 |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    print(
        f"| {start:.0f} MB | {light:.0f} MB | {baseline:.0f} MB | {peak.mb:.0f} MB | {closed:.0f} MB | "
        f"{after:.0f} MB | {after - baseline:+.0f} MB | {after - light:+.0f} MB | {two_minutes:.0f} MB | "
        f"{start + 512 + 150:.0f} MB |"
    )


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
