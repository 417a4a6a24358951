"""A closed tab's session is shut down when its reconnect window ends, and the server's memory goes down again."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.e2e.conftest import SHOTS, choose_file, rss_mb, serve, settle, streamlit_pid

pytestmark = pytest.mark.e2e

TTL, PERIOD = 2, 1


@pytest.fixture(scope="module")
def short_lived_server():
    yield from serve(
        {
            "STREAMLIT_SERVER_DISCONNECTED_SESSION_TTL": str(TTL),
            "OPSTUDIO_HOUSEKEEPING_SECONDS": str(PERIOD),
            "OPSTUDIO_MEMORY_REPORT": "1",
        }
    )


def session(browser, base: str, csv: Path) -> None:
    """Upload a rated file, open Operating point, close the tab."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.goto(f"{base}/data")
    settle(page, "Validation report")
    choose_file(page, csv)
    page.locator('[data-testid="stSidebar"]').get_by_text(csv.name).first.wait_for(timeout=120_000)
    page.get_by_role("link", name="Operating point").first.click()
    settle(page, "Sweep of target marginal precisions")
    assert page.locator('[data-testid="stException"]').count() == 0
    context.close()


def rated_csv(path: Path, rows: int) -> Path:
    path.write_text(
        "score,label\n" + "\n".join(f"{(r * 7919 % 100_003) / 100_003:.6f},{int(r % 97 == 0)}" for r in range(rows))
    )
    return path


def test_an_ended_session_gives_its_memory_back(short_lived_server, browser, tmp_path):
    pid = streamlit_pid(int(short_lived_server.rsplit(":", 1)[1]))
    session(browser, short_lived_server, rated_csv(tmp_path / "warm.csv", 2_000))  # imports every library
    time.sleep(TTL + 4 * PERIOD)
    baseline = rss_mb(pid)
    # one session: nothing else writes to Streamlit's session storage, which would drop it on its own
    session(browser, short_lived_server, rated_csv(tmp_path / "big.csv", 800_000))
    peak = rss_mb(pid)
    assert peak - baseline > 30, "the session should have used memory to release"
    # within a minute (the documentation promises two): on a quiet machine it is back at the baseline in seconds, but
    # under CI's parallel load the reaping and the cancelled bootstrap's last block took longer than 17 s once
    deadline = time.time() + TTL + 60 * PERIOD
    while time.time() < deadline and rss_mb(pid) > baseline + 0.5 * (peak - baseline):
        time.sleep(PERIOD)
    after = rss_mb(pid)
    assert after <= baseline + 0.5 * (peak - baseline), (baseline, peak, after)


def memory_reports(base: str) -> list[str]:
    """The server's memory reports (views.housekeeping.memory_report, logged after each reaping), oldest first."""
    log = SHOTS / f"streamlit-{base.rsplit(':', 1)[1]}.log"
    return [line for line in log.read_text().splitlines() if "memory report:" in line]


def test_an_ended_session_holds_no_results(short_lived_server, browser, tmp_path):
    # Streamlit's flush loop keeps the last session it flushed alive after its tab closed; the session's
    # results (inputs, memos, bootstrap intervals) must not stay with it
    before = len(memory_reports(short_lived_server))
    session(browser, short_lived_server, rated_csv(tmp_path / "results.csv", 20_000))
    deadline = time.time() + TTL + 30 * PERIOD
    while time.time() < deadline and len(memory_reports(short_lived_server)) == before:
        time.sleep(PERIOD)
    reports = memory_reports(short_lived_server)[before:]
    assert reports, "no session was reaped"
    assert "holding 0 session_state entries" in reports[-1], reports
