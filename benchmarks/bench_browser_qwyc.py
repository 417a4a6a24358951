"""End-to-end timings in a real browser: the Early exit page on the shipped sample (Adult, 500 trees).

    OMP_NUM_THREADS=1 PYTHONPATH=. python benchmarks/bench_browser_qwyc.py [--alpha-steps 4] [--d-steps 3]

Starts a fresh ``streamlit run app.py`` (nothing cached in memory; Numba's on-disk cache is reported as
warm or cold), opens the home page, then drives Debian's Chromium with Playwright as a new user would:

- first visit: click "Early exit (QWYC)" in the sidebar, timed until the policy's metrics and both of
  its Plotly charts are drawn and Streamlit is idle;
- α steps: ArrowRight on the α slider (each a new value, so a new QWYC* fit), then one ArrowLeft back
  to a value already fitted, each timed by the page's own clock from the key event until the first frame
  painted after the policy part has rerun, both charts are drawn and Streamlit is idle (awaited without
  polling; the harness's view, round trips included, is printed beside);
- D: "Fit with this promise" at the default D, then D steps: the "+" of the D number input, then
  "Fit with this promise", timed until the promise's result box shows and Streamlit is idle;
- "Compute the trade-off curves" until its two charts are drawn, and "Compare with LightGBM's own early
  stopping" until its chart is drawn.

``--policy-only`` stops after the α steps; ``--home-seconds`` is how long the user stays on the home page first
(with a cold Numba cache, e.g. ``NUMBA_CACHE_DIR`` set to an empty folder, the server's warm-up compiles meanwhile). The first visit and the α steps also give the time until the
server's last message of the rerun arrived (the rest is the browser drawing), from the WebSocket's frames.

Each measurement records the load average (``os.getloadavg()``, 1 min) when it ended. Targets (issue 25):
first visit <= 5 s, α or D change <= 1 s, trade-off curves <= 15 s, LightGBM comparison <= 10 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_browser import IDLE, arm_key_timer, charts_drawn, drawn, key_timer  # noqa: E402
from tests.e2e.conftest import CHROMIUM, FLAGS, metric, serve  # noqa: E402

PAGE_LINK = "Early exit (QWYC)"
MEAN_MODELS = "Mean # models (test)"
DISAGREEMENT = "Disagreement (test)"
ALPHA = "α: allowed % of fit decisions differing from the full ensemble"
D_INPUT = "D: new rows allowed to differ (%)"
CURVES = "Compute the trade-off curves"
CURVES_DONE = "Download the curves (CSV)"
COMPARE = "Compare with LightGBM's own early stopping (D from 0.05 % to 2 %)"
COMPARE_DONE = "Download the comparison (CSV)"
PROMISE = "Fit with this promise"
TIMEOUT = 300_000

#: set window.__ran once the page shows that Streamlit (re)runs: a stale element or the "Running" status
WATCH = """() => {
  window.__ran = false;
  const seen = () => { const s = document.querySelector('[data-testid="stStatusWidget"]');
    if (document.querySelector('[data-stale="true"]') || (s && s.innerText.includes('Running'))) window.__ran = true; };
  if (window.__obs) window.__obs.disconnect();
  window.__obs = new MutationObserver(seen);
  window.__obs.observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
}"""


def charts(n: int) -> str:
    """JS condition: at least ``n`` Plotly charts of the page have drawn their SVG."""
    return (
        f"[...document.querySelectorAll('[data-testid=\"stPlotlyChart\"]')]"
        f".filter(c => c.querySelector('.js-plotly-plot .main-svg')).length >= {n}"
    )


def numba_cache() -> str:
    """'warm' when the engine's compiled kernels are cached on disk in this tree, else 'cold'."""
    n = sum(1 for d in ("engine/qwyc/__pycache__", "engine/pn/__pycache__") for _ in (ROOT / d).glob("*.nbi"))
    return f"warm ({n} index files)" if n else "cold"


#: arrival times (time.perf_counter()) of the server's WebSocket frames
FRAMES: list[float] = []


def watch_frames(ws) -> None:
    ws.on("framereceived", lambda _: FRAMES.append(time.perf_counter()))


def server_done(t0: float) -> float:
    """Seconds from ``t0`` until the last frame the server sent so far (its rerun's last message)."""
    return max((t for t in FRAMES if t >= t0), default=t0) - t0


def load() -> float:
    return os.getloadavg()[0]


def changed_js(before: dict[str, str]) -> str:
    """JS condition: one of the metrics ``before`` (label: text) shows another value."""
    return (
        " || ".join(
            f"(() => {{ const m = [...document.querySelectorAll('[data-testid=\"stMetric\"]')]"
            f".find(e => e.innerText.includes('{label}')); return m && !m.innerText.includes({value!r}); }})()"
            for label, value in before.items()
        )
        or "false"
    )


def policy_metrics(page) -> dict[str, str]:
    return {MEAN_MODELS: metric(page, MEAN_MODELS), DISAGREEMENT: metric(page, DISAGREEMENT)}


def alpha_step(page, thumb, key: str) -> tuple[float, float, float]:
    """One α step, by the page's clock from the key event until the first frame painted after the policy part has
    rerun and both charts are drawn (awaited without polling); the harness's view of it; the server's last message."""
    before = policy_metrics(page)
    page.evaluate(WATCH)
    arm_key_timer(page, f"() => (window.__ran || {changed_js(before)}) && ({IDLE})() && ({charts_drawn(2)})()")
    t0 = time.perf_counter()
    thumb.press(key)
    _, painted = key_timer(page)
    return painted, time.perf_counter() - t0, server_done(t0)


PROMISE_SHOWN = (
    "[...document.querySelectorAll('[data-testid=\"stAlert\"]')]"
    ".some(a => /Certified:|cannot certify/.test(a.innerText))"
)


def fit_promise(page) -> None:
    """Press 'Fit with this promise' (no promise shown for this D yet) until its result box shows and Streamlit is idle.

    The box's appearance is the proof that the script reran (a rerun served from the cache may be too quick for
    the "Running" status to show).
    """
    assert not page.evaluate(f"() => {PROMISE_SHOWN}"), "a promise is already shown for this D"
    page.get_by_role("button", name=PROMISE).click()
    page.wait_for_function(f"() => ({PROMISE_SHOWN}) && ({IDLE})()", timeout=TIMEOUT, polling="raf")


def d_step(page) -> tuple[float, float]:
    """'+' on D, then 'Fit with this promise': seconds until D's rerun is idle, and until the promise shows.

    The rerun after '+' is recognised by the previous D's result box going away (it was fitted for another D).
    """
    box = page.locator('[data-testid="stNumberInput"]').filter(has_text=D_INPUT)
    t0 = time.perf_counter()
    box.locator('[data-testid="stNumberInputStepUp"]').click()
    page.wait_for_function(f"() => !({PROMISE_SHOWN}) && ({IDLE})()", timeout=TIMEOUT, polling="raf")
    changed = time.perf_counter() - t0
    fit_promise(page)
    return changed, time.perf_counter() - t0


def button_until_drawn(page, name: str, done_text: str, new_charts: int) -> float:
    """Seconds from a click on ``name`` until ``done_text`` shows, its new charts are drawn and Streamlit is idle."""
    page.evaluate(WATCH)
    n = page.locator('[data-testid="stPlotlyChart"]').count()
    t0 = time.perf_counter()
    page.get_by_role("button", name=name).click()
    page.wait_for_function(
        f"() => document.body.innerText.includes('{done_text}') && ({charts(n + new_charts)}) && ({IDLE})()",
        timeout=TIMEOUT,
        polling="raf",
    )
    drawn(page, n + new_charts)
    return time.perf_counter() - t0


def alpha_steps(page, thumb, keys: list[str], what: str) -> tuple:
    """One table row: the α steps pressed as ``keys``, their median and range, the server's last message."""
    totals, harness, servers, loads = [], [], [], []
    for key in keys:
        painted, seen, server = alpha_step(page, thumb, key)
        totals.append(painted)
        harness.append(seen)
        servers.append(server)
        loads.append(load())
        page.wait_for_timeout(300)
    return (
        f"{what}, {len(totals)} steps: median, min–max)",
        f"{statistics.median(totals):.2f} s ({min(totals):.2f}–{max(totals):.2f}); server's last message "
        f"{statistics.median(servers):.2f} s; seen by the harness {statistics.median(harness):.2f} s",
        "≤ 1 s",
        max(loads),
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--alpha-steps", type=int, default=4)
    ap.add_argument("--d-steps", type=int, default=3)
    ap.add_argument("--policy-only", action="store_true", help="stop after the α steps")
    ap.add_argument(
        "--home-seconds",
        type=float,
        default=1.0,
        help="seconds on the home page before the first visit (a user reading it while the server's "
        "warm-up fills a cold Numba cache)",
    )
    args = ap.parse_args()
    cache = numba_cache()
    rows: list[tuple[str, str, str, float]] = []  # (what, time, target, load)
    gen = serve()
    base = next(gen)
    try:
        exceptions = measure(base, args, rows)
    finally:
        next(gen, None)  # stops the server, also when a wait timed out
    print(
        f"Numba on-disk cache at start: {cache}; OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}; "
        f"page exceptions: {exceptions}"
    )
    print("| measurement | time | target | load average (1 min) at its end |\n|---|---|---|---|")
    for what, t, target, ld in rows:
        print(f"| {what} | {t} | {target} | {ld:.1f} |")


def step(name: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} {name} (load {load():.1f})", file=sys.stderr, flush=True)


def measure(base: str, args, rows: list) -> int:
    """Drive the browser through the page; append the measurements to ``rows``; the page's exceptions."""
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        page = browser.new_context(viewport={"width": 1500, "height": 1100}).new_page()
        page.on("websocket", watch_frames)
        page.goto(base)
        page.wait_for_selector('[data-testid="stSidebar"]', timeout=120_000)
        page.wait_for_function(IDLE, timeout=120_000)
        page.wait_for_timeout(1000 * max(1.0, args.home_seconds))

        step("first visit")
        # (a) first visit
        t0 = time.perf_counter()
        page.get_by_role("link", name=PAGE_LINK).first.click()
        page.wait_for_selector(f"text={MEAN_MODELS}", timeout=TIMEOUT)
        page.wait_for_function(f"() => ({charts(2)}) && ({IDLE})()", timeout=TIMEOUT, polling="raf")
        drawn(page, 2)
        first = time.perf_counter() - t0
        rows.append(
            (
                "first visit (click in the sidebar → metrics and 2 charts drawn, idle)",
                f"{first:.1f} s (server's last message at {server_done(t0):.1f} s)",
                "≤ 5 s",
                load(),
            )
        )
        page.wait_for_timeout(500)

        step("alpha steps")
        # (b) α steps: new values, then one back to a value already fitted (cached once per server)
        thumb = page.locator('[data-testid="stSlider"]').filter(has_text=ALPHA).locator('input[type="range"]').first
        thumb.focus()
        rows.append(alpha_steps(page, thumb, ["ArrowRight"] * args.alpha_steps, "α step to a new value (ArrowRight"))
        back_and_forth = ["ArrowLeft" if i % 2 == 0 else "ArrowRight" for i in range(max(1, args.alpha_steps))]
        rows.append(alpha_steps(page, thumb, back_and_forth, "α step back to a value already fitted (back and forth"))
        if args.policy_only:
            exceptions = page.locator('[data-testid="stException"]').count()
            browser.close()
            return exceptions

        step("promise and D steps")
        # the first promise at the default D, then D steps: '+' then 'Fit with this promise'
        t0 = time.perf_counter()
        fit_promise(page)
        rows.append(
            (
                "first 'Fit with this promise' (D = 0.30 %) until the result shows",
                f"{time.perf_counter() - t0:.2f} s",
                "",
                load(),
            )
        )
        page.wait_for_timeout(300)
        d_change, d_total, loads = [], [], []
        for _ in range(args.d_steps):
            c, t = d_step(page)
            d_change.append(c)
            d_total.append(t)
            loads.append(load())
            page.wait_for_timeout(300)
        rows.append(
            (
                f"D step ('+' on D, rerun idle; {len(d_change)} steps: median, min–max)",
                f"{statistics.median(d_change):.2f} s ({min(d_change):.2f}–{max(d_change):.2f})",
                "",
                max(loads),
            )
        )
        rows.append(
            (
                "D step + 'Fit with this promise' until the result shows (median, min–max)",
                f"{statistics.median(d_total):.2f} s ({min(d_total):.2f}–{max(d_total):.2f})",
                "≤ 1 s",
                max(loads),
            )
        )

        step("trade-off curves")
        # (c) trade-off curves
        curves = button_until_drawn(page, CURVES, CURVES_DONE, 2)
        rows.append(("'Compute the trade-off curves' → 2 charts drawn, idle", f"{curves:.1f} s", "≤ 15 s", load()))
        page.wait_for_timeout(500)

        step("LightGBM comparison")
        # (d) LightGBM comparison
        compare = button_until_drawn(page, COMPARE, COMPARE_DONE, 1)
        rows.append(
            ("'Compare with LightGBM's own early stopping' → chart drawn, idle", f"{compare:.1f} s", "≤ 10 s", load())
        )
        exceptions = page.locator('[data-testid="stException"]').count()
        browser.close()
    return exceptions


if __name__ == "__main__":
    main()
