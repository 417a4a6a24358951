"""Load test (issue 12): N concurrent browser sessions upload a file and move the target slider.

Loopback only, not part of the unit suite: ``PYTHONPATH=. python benchmarks/load_test.py [--sessions 8]``.
Starts ``streamlit run app.py`` on a free port, opens N Playwright contexts in Debian's Chromium,
each uploads its own CSV (a distinct score column name per session, to detect cross-talk), opens the
Operating point page and presses ArrowRight 10 times. Prints server RSS before, at peak and after the
sessions end (memory release), exceptions seen and whether any session saw another's file.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from tests.e2e.conftest import CHROMIUM, FLAGS, rss_mb, serve, settle, streamlit_pid


def session_file(tmp: Path, i: int, rows: int) -> Path:
    path = tmp / f"session_{i}.csv"
    path.write_text(
        f"id,score_s{i},label\n"
        + "\n".join(f"{r},{(r * (37 + i) % 1009) / 1009:.4f},{1 if r % (3 + i % 4) == 0 else 0}" for r in range(rows))
    )
    return path


TTL_SECONDS, HOUSEKEEPING_SECONDS = 10, 5
SERVER_ENV = {
    "STREAMLIT_SERVER_DISCONNECTED_SESSION_TTL": str(TTL_SECONDS),
    "OPSTUDIO_HOUSEKEEPING_SECONDS": str(HOUSEKEEPING_SECONDS),
}


def run_sessions(browser, base: str, files: list, pid: int) -> tuple[int, int, float, float]:
    """Every file in its own browser context: upload, Operating point, 10 slider steps; then close them all.

    Returns (exceptions, cross-talk, peak RSS, seconds).
    """
    peak = rss_mb(pid)
    t0 = time.perf_counter()
    exceptions = crosstalk = 0
    pages = [browser.new_context(viewport={"width": 1400, "height": 1000}).new_page() for _ in files]
    for pg in pages:
        pg.goto(f"{base}/data")
    for pg, f in zip(pages, files):
        settle(pg, "Validation report")
        pg.get_by_text("Upload a file", exact=True).click()
        pg.wait_for_selector('[data-testid="stFileUploaderDropzone"] button', timeout=60_000)
        with pg.expect_file_chooser() as chooser:
            pg.locator('[data-testid="stFileUploaderDropzone"] button').first.click()
        chooser.value.set_files(str(f))
        peak = max(peak, rss_mb(pid))
    for i, pg in enumerate(pages):
        pg.locator('[data-testid="stSidebar"]').get_by_text(files[i].name).first.wait_for(timeout=120_000)
        pg.get_by_role("link", name="Operating point").first.click()
        settle(pg, "Sweep of target marginal precisions")
        thumb = (
            pg.locator('[data-testid="stSlider"]')
            .filter(has_text="Target marginal precision")
            .locator('input[type="range"]')
            .first
        )
        thumb.focus()
        for _ in range(10):
            thumb.press("ArrowRight")
        peak = max(peak, rss_mb(pid))
    for i, pg in enumerate(pages):
        settle(pg, "Sweep of target marginal precisions")
        exceptions += pg.locator('[data-testid="stException"]').count()
        text = pg.locator('[data-testid="stSidebar"]').inner_text()
        crosstalk += sum(f.name in text for j, f in enumerate(files) if j != i)
        peak = max(peak, rss_mb(pid))
    busy = time.perf_counter() - t0
    for pg in pages:
        pg.context.close()
    return exceptions, crosstalk, peak, busy


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=8)
    ap.add_argument("--rows", type=int, default=50_000)
    args = ap.parse_args()
    gen = serve(SERVER_ENV)
    base = next(gen)
    port = int(base.rsplit(":", 1)[1])
    pid = streamlit_pid(port)
    tmp = Path(tempfile.mkdtemp())
    files = [session_file(tmp, i, args.rows) for i in range(args.sessions)]
    start = rss_mb(pid)
    wait = TTL_SECONDS + 3 * HOUSEKEEPING_SECONDS
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        run_sessions(browser, base, [session_file(tmp, 99, 1000)], pid)
        time.sleep(wait)
        baseline = rss_mb(pid)
        print(
            f"server pid {pid}; RSS at start {start:.0f} MB, after a warm-up session ended {baseline:.0f} MB; "
            f"{args.sessions} sessions, {args.rows:,} rows each"
        )
        exceptions, crosstalk, peak, busy = run_sessions(browser, base, files, pid)
        browser.close()
    after_close = rss_mb(pid)
    time.sleep(wait)
    after = rss_mb(pid)
    print(f"sessions done in {busy:.1f} s; exceptions {exceptions}; cross-talk {crosstalk}")
    print(
        f"RSS peak {peak:.0f} MB; right after close {after_close:.0f} MB; {wait} s later {after:.0f} MB "
        f"(reconnect window {TTL_SECONDS} s, housekeeping every {HOUSEKEEPING_SECONDS} s); released "
        f"{(peak - after) / max(peak - baseline, 1e-9):.0%} of what the sessions added"
    )
    try:
        next(gen)
    except StopIteration:
        pass


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
