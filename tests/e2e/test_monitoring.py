"""The Monitoring page in a real browser: the shipped sample's charts and its alert, money, and a dated upload."""

from __future__ import annotations

import re

import numpy as np
import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import assert_healthy, metric, settle, shot, upload

pytestmark = pytest.mark.e2e


def test_the_sample_shows_the_charts_and_the_alert(server, page):
    page.goto(f"{server}/monitoring")
    settle(page, "Periods")
    assert_healthy(page, 2)
    assert metric(page, "First alert") == "2025-07-28"
    alert = page.locator('[data-testid="stAlertContentError"]').first
    expect(alert).to_contain_text("Alert from the week of 2025-07-28")
    expect(alert).to_contain_text("the threshold is too low")
    assert page.locator('[data-testid="stDataFrame"]').count() >= 1
    shot(page, "monitoring_sample")
    # money: the same alert, a third chart (net value per day)
    page.get_by_text("Set the target from money").click()
    settle(page, "Periods")
    assert_healthy(page, 3)
    assert metric(page, "First alert") == "2025-07-28"
    shot(page, "monitoring_money")


def test_a_dated_upload(server, page, tmp_path):
    rng = np.random.default_rng(11)
    days = np.datetime64("2024-02-05") + rng.integers(0, 140, 5000).astype("timedelta64[D]")
    score = rng.uniform(size=days.size).round(3)
    drift = days >= np.datetime64("2024-04-15")
    positive = rng.uniform(size=days.size) < np.where(drift, score**3, score)
    f = tmp_path / "tickets.csv"
    f.write_text(
        "rated_on,risk,outcome\n"
        + "\n".join(f"{d},{s},{'yes' if p else 'no'}" for d, s, p in zip(days.astype(str), score, positive))
    )
    page.goto(f"{server}/data")
    settle(page, "Validation report")
    upload(page, f, "Dated ratings")
    expect(page.locator('[data-testid="stMain"]')).to_contain_text("Days covered", timeout=30_000)
    page.locator('[data-testid="stSidebarNav"]').get_by_text("Monitoring", exact=True).click()  # same session
    settle(page, "Periods")
    expect(page.get_by_role("combobox", name="Dated ratings")).to_have_value(
        re.compile(r"tickets\.csv.*your upload"), timeout=30_000
    )  # the upload is the active dated input
    assert_healthy(page, 2)
    assert metric(page, "Periods") == "20"
    assert metric(page, "First alert") == "2024-04-22"  # the drift of 2024-04-15, caught in its second week
    shot(page, "monitoring_upload")
