"""Browser-test fixtures: `streamlit run app.py` on a free port, Debian's Chromium driven by Playwright.

One server and one browser for the whole package (package scope: started once, not once per module, and
stopped when the browser tests end); the housekeeping tests start their own short-lived server. Screenshots
and the server log go to tests/e2e/screenshots/ (git-ignored). In CI (``CI`` set) a missing Chromium is an
error, not a skip.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect, sync_playwright

from engine.cli.app import streamlit_command
from engine.resources import chromium_path

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(__file__).resolve().parent / "screenshots"
#: OPSTUDIO_CHROMIUM when set, else Debian's /usr/bin/chromium
CHROMIUM = chromium_path()
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


#: per page (engine.pages.PAGES): a query that keeps it quick, a text shown once it has drawn, its charts (every page
#: is opened and checked in test_nothing_clipped's walk, at 1,280 and 1,920 px)
EXPECTED = {
    "home": ("", "First time here?", 0),
    "data": ("", "Validation report", 2),
    "operating-point": ("", "Sweep of target marginal precisions", 3),
    "monitoring": ("", "Periods", 2),
    "ensemble-paths": ("", "Comparison", 2),
    "batch-decisions": ("", "Decided items", 2),
    "early-exit": ("?qwyc_trees=100&qwyc_depth=3", "Trade-off curves", 2),
    "constraints": ("", "Train", 0),
    "audit": ("", "Missed positives", 3),
    "record": ("", "The record is empty", 0),
    "decisions": ("", "No decision yet", 0),
    "access": ("", "Roles in this workspace", 0),
}
#: what the sidebar names on each page opened first in a session: the data that page uses (each page its own)
SIDEBAR = {
    "home": "This page reads no data",
    "data": "synthetic_rare_events.csv.gz",
    "operating-point": "synthetic_rare_events.csv.gz",
    "monitoring": "monitoring_rated.csv.gz",
    "ensemble-paths": "synthetic_rare_events.csv.gz",
    "batch-decisions": "bank_marketing_batches.csv.gz",
    "early-exit": "UCI Adult",
    "constraints": "adult_training_table.csv.gz",
    "audit": "satimage_rated.csv.gz",  # the shipped audit's own rated data, on that page alone
    "record": "This page reads no data",
    "decisions": "This page reads no data",
    "access": "This page reads no data",
}


def require_chromium() -> None:
    """Skip without Chromium (``OPSTUDIO_CHROMIUM``, else Debian's), except in CI where the browser tests must run."""
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing: .ci/run must install it (apt-get install chromium)")
        pytest.skip(f"{CHROMIUM} not installed (apt-get install chromium, or set OPSTUDIO_CHROMIUM)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(base: str, proc: subprocess.Popen | None = None, timeout: float = 60) -> bool:
    """True once ``base``/_stcore/health answers ok; False on timeout or when ``proc`` has exited."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as r:
                if r.read().decode().strip() == "ok":
                    return True
        except OSError:
            pass
        if proc is not None and proc.poll() is not None:
            return False
        time.sleep(0.5)
    return False


def rss_mb(pid: int) -> float:
    """Resident memory of a process in MB (from /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def streamlit_pid(port: int) -> int:
    """The process id of the Streamlit server listening on ``port``."""
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmd = (proc / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"streamlit" in b" ".join(cmd) and str(port).encode() in cmd:
                return int(proc.name)
    raise RuntimeError("server process not found")


def start_server(env: dict | None = None, port: int | None = None, address: str = "127.0.0.1"):
    """`streamlit run app.py` on ``port`` (a free one by default) with ``env`` added to the environment: (process,
    base URL) once healthy. Stop it with :func:`stop_server`."""
    require_chromium()
    port = port or free_port()
    SHOTS.mkdir(exist_ok=True)  # git-ignored: screenshots and the server log
    log = open(SHOTS / f"streamlit-{port}.log", "w")  # noqa: SIM115 (closed when the server stops)
    proc = subprocess.Popen(
        streamlit_command(
            "app.py",
            "--server.port",
            str(port),
            "--server.headless",
            "true",
            "--server.address",
            address,
            "--browser.gatherUsageStats",
            "false",
        ),
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, **(env or {})},
    )
    base = f"http://{address}:{port}"
    if not wait_healthy(base, proc):
        proc.kill()
        raise RuntimeError("streamlit did not become healthy within 60 s")
    return proc, base


def stop_server(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


def serve(env: dict | None = None):
    """`streamlit run app.py` on a free loopback port (``env`` added to the environment): yields the base URL."""
    proc, base = start_server(env)
    yield base
    stop_server(proc)


@pytest.fixture(scope="package")
def server():
    yield from serve()


@pytest.fixture(scope="package")
def browser():
    require_chromium()
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
        timeout=60_000,
    )
    page.wait_for_timeout(500)


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


#: the documentation's screenshots (docs/_static/screenshots/<url_path>.png, committed): refreshed by
#: `OPSTUDIO_DOCS_SCREENSHOTS=1 python -m pytest tests/e2e/test_nothing_clipped.py`; otherwise written
#: beside the other screenshots (git-ignored) so every browser run still produces them
DOCS_SHOTS = ROOT / "docs" / "_static" / "screenshots"


def docs_shot(page: Page, url_path: str) -> Path:
    """The page as the user guide shows it: the first screen (viewport), PNG."""
    folder = DOCS_SHOTS if os.environ.get("OPSTUDIO_DOCS_SCREENSHOTS") else SHOTS / "docs"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{url_path}.png"
    page.screenshot(path=str(path), full_page=False)
    return path


def assert_healthy(page: Page, charts: int) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0
    expect(page.locator('[data-testid="stPlotlyChart"]')).to_have_count(charts, timeout=30_000)
    # plotly really drew: every chart container holds a rendered plot
    page.wait_for_function(
        f"() => document.querySelectorAll('.js-plotly-plot .main-svg').length >= {charts}", timeout=30_000
    )


def metric_value(page: Page, label: str) -> Locator:
    """The value shown by the metric ``label`` (the first one on the page)."""
    box = page.locator('[data-testid="stMetric"]').filter(has=page.get_by_text(label, exact=True)).first
    return box.locator('[data-testid="stMetricValue"]')


def metric(page: Page, label: str) -> str:
    return metric_value(page, label).inner_text()


def expect_metric(page: Page, label: str, value: str, timeout: float = 60_000) -> None:
    """Wait until the metric ``label`` shows ``value``, then pass (else fail naming what it shows).

    After a setting is typed or chosen the URL carries it before the rerun that draws it may have started, so
    :func:`settle` can return on the page as it was: a value that follows a setting is waited for, not read.
    """
    expect(metric_value(page, label)).to_have_text(value, timeout=timeout)


def choose_file(page: Page, path: Path) -> None:
    """On the Data page (already open): 'Upload a file', then ``path`` through the browser's file chooser."""
    page.get_by_text("Upload a file", exact=True).click()
    page.wait_for_selector('[data-testid="stFileUploaderDropzone"] button', timeout=30_000)
    with page.expect_file_chooser() as chooser:
        page.locator('[data-testid="stFileUploaderDropzone"] button').first.click()
    chooser.value.set_files(str(path))


def upload(page: Page, path: Path, kind: str) -> None:
    """Upload ``path`` on the Data page (already open) as an input of ``kind`` (the title in 'Kind of input')."""
    choose_file(page, path)
    settle(page, "Kind of input")
    kind_box = page.get_by_role("combobox", name="Kind of input")
    if kind_box.input_value() != kind:
        page.locator('[data-testid="stSelectbox"]').filter(has_text="Kind of input").click()
        page.get_by_role("option", name=kind, exact=True).click()
        settle(page, "Validation report")
    expect(page.locator('[data-testid="stSidebar"]')).to_contain_text(path.name, timeout=30_000)
    settle(page, "Validation report")
