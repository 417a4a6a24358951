"""The dashboard in a real browser: `streamlit run app.py` driven by Playwright in Debian's Chromium.

Screenshots go to tests/e2e/screenshots/ (git-ignored).
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(__file__).resolve().parent / "screenshots"
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run"]

if not Path(CHROMIUM).exists():
    if os.environ.get("CI"):
        raise RuntimeError("Debian chromium is missing: .ci/run must install it (apt-get install chromium)")
    pytest.skip("Debian chromium not installed (apt-get install chromium)", allow_module_level=True)

from playwright.sync_api import Page, expect, sync_playwright  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    port = free_port()
    SHOTS.mkdir(exist_ok=True)  # git-ignored: screenshots and the server log
    log = open(SHOTS / "streamlit.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port), "--server.headless", "true",
         "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while True:
        try:
            with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as r:
                if r.read().decode().strip() == "ok":
                    break
        except OSError:
            pass
        if time.time() > deadline or proc.poll() is not None:
            proc.kill()
            raise RuntimeError("streamlit did not become healthy within 60 s")
        time.sleep(0.5)
    yield base
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1500, "height": 1100})
    pg = context.new_page()
    yield pg
    context.close()


def settle(page: Page, text: str) -> None:
    """Wait for the page's text and for Streamlit to finish running."""
    page.wait_for_selector(f"text={text}", timeout=60_000)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
        " || !document.querySelector('[data-testid=\"stStatusWidget\"]').innerText.includes('Running')",
        timeout=60_000)
    page.wait_for_timeout(500)


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def assert_healthy(page: Page, charts: int) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0
    expect(page.locator('[data-testid="stPlotlyChart"]')).to_have_count(charts, timeout=30_000)
    # plotly really drew: every chart container holds a rendered plot
    page.wait_for_function(f"() => document.querySelectorAll('.js-plotly-plot .main-svg').length >= {charts}",
                           timeout=30_000)


def metric(page: Page, label: str) -> str:
    box = page.locator('[data-testid="stMetric"]').filter(has=page.get_by_text(label, exact=True)).first
    return box.locator('[data-testid="stMetricValue"]').inner_text()


def test_every_page_renders(server, page):
    for path, text, charts in (("home", "Operating Point Studio", 0), ("data", "Validation report", 2),
                               ("operating-point", "Sweep of target marginal precisions", 2),
                               ("ensemble-paths", "Comparison", 2),
                               ("batch-decisions?batch_source=A+column+of+the+loaded+data+set", "Decided items", 2),
                               ("early-exit?qwyc_trees=100&qwyc_depth=3", "Trade-off curves", 2),
                               ("constraints?cons_source=Loaded+data+set+%28scores+as+features%29", "Train", 0)):
        page.goto(f"{server}/{path}")
        settle(page, text)
        assert_healthy(page, charts)
        sidebar = page.locator('[data-testid="stSidebar"]').inner_text()
        assert "synthetic_rare_events.csv.gz" in sidebar and "Rated rows" in sidebar
        shot(page, "page_" + path.split("?")[0])


def test_upload_through_the_file_chooser(server, page, tmp_path):
    good = tmp_path / "analyst_upload.csv"
    good.write_text("id,score_model,label\n" + "\n".join(
        f"{i},{(i * 37 % 101) / 100:.2f},{'tp' if i % 7 == 0 else 'fp' if i % 11 else ''}" for i in range(1, 400)))
    page.goto(f"{server}/data")
    settle(page, "Validation report")
    page.get_by_text("Upload a file", exact=True).click()
    page.wait_for_selector('[data-testid="stFileUploaderDropzone"] button', timeout=30_000)
    settle(page, "Validation report")
    with page.expect_file_chooser() as chooser:
        page.locator('[data-testid="stFileUploaderDropzone"] button').first.click()
    chooser.value.set_files(str(good))
    expect(page.locator('[data-testid="stSidebar"]')).to_contain_text("analyst_upload.csv", timeout=30_000)
    settle(page, "Validation report")
    assert metric(page, "Rows read") == "399"
    assert page.locator('[data-testid="stException"]').count() == 0
    shot(page, "upload_good")
    # a malformed file: an error box with the engine's message, no traceback
    bad = tmp_path / "broken.csv"
    bad.write_text("score,label\n0.1,1\n0.2,perhaps\n")
    with page.expect_file_chooser() as chooser:  # a single-file uploader replaces its file
        page.get_by_role("button", name="Add files").click()
    chooser.value.set_files(str(bad))
    expect(page.locator('[data-testid="stAlertContentError"]').first).to_contain_text(
        "unknown label values 'perhaps' at row 2", timeout=30_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    shot(page, "upload_bad")


def test_slider_moves_the_operating_point_and_the_url(server, page):
    page.goto(f"{server}/operating-point")
    settle(page, "Sweep of target marginal precisions")
    before = metric(page, "Threshold")
    thumb = page.locator('[data-testid="stSlider"] input[type="range"]').first
    thumb.focus()
    for _ in range(20):
        thumb.press("ArrowRight")
    page.wait_for_function("() => window.location.search.includes('target=')", timeout=30_000)
    settle(page, "Sweep of target marginal precisions")
    expect(page.locator('[data-testid="stMetric"]').filter(has=page.get_by_text("Threshold", exact=True)).first
           .locator('[data-testid="stMetricValue"]')).not_to_have_text(before, timeout=30_000)
    target = float(re.search(r"target=([0-9.]+)", page.url).group(1))
    assert target > 0.3
    assert_healthy(page, 2)
    shot(page, "slider_moved")
    # the copied link reopens the same view
    threshold = metric(page, "Threshold")
    other = page.context.new_page()
    other.goto(page.url)
    settle(other, "Sweep of target marginal precisions")
    assert metric(other, "Threshold") == threshold
    other.close()
