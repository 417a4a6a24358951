"""Rated data on the server in a real browser: connect to a Parquet file, map its columns, see the operating point."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import expect

from engine.pn import operating_point
from tests.e2e.conftest import metric, settle, shot

pytestmark = pytest.mark.e2e


def test_connect_to_a_parquet_file_and_see_the_operating_point(server, page, tmp_path):
    rng = np.random.default_rng(8)
    n = 5000
    y = rng.random(n) < 0.05
    frame = pd.DataFrame({"score_model": np.round(rng.random(n) * 0.7 + 0.3 * y, 4), "label": np.where(y, "tp", "fp")})
    path = tmp_path / "lake" / "ratings.parquet"
    path.parent.mkdir()
    frame.to_parquet(path)
    page.goto(f"{server}/data")
    settle(page, "Validation report")
    page.get_by_text("Connect to data on the server", exact=True).click()
    settle(page, "Path or glob on the server")
    page.get_by_label("Path or glob on the server").fill(str(tmp_path / "lake" / "*.parquet"))
    page.get_by_label("Path or glob on the server").press("Enter")
    settle(page, "Path or glob on the server")
    page.get_by_role("button", name="Connect", exact=True).click()
    settle(page, "Column mapping")
    expect(page.get_by_text("Connected to")).to_contain_text("lake/*.parquet: Parquet, 1 file", timeout=30_000)
    page.get_by_role("button", name="Count with DuckDB and use these columns").click()
    expect(page.locator('[data-testid="stSidebar"]')).to_contain_text(
        "on the server, counted by DuckDB", timeout=60_000
    )
    settle(page, "Validation report")
    assert metric(page, "Rows scanned") == "5,000"
    shot(page, "connect_data")
    page.locator('[data-testid="stSidebarNav"]').get_by_text("Operating point", exact=True).click()
    settle(page, "Sweep of target marginal precisions")
    expect(page.get_by_text("Counted by DuckDB over 5,000 rows")).to_be_visible(timeout=60_000)
    op = operating_point(frame["score_model"].to_numpy(), y.astype(int), 0.3)
    expect(
        page.locator('[data-testid="stMetric"]').filter(has=page.get_by_text("Threshold", exact=True)).first
    ).to_contain_text(f"{op.threshold:.6g}", timeout=30_000)
    assert metric(page, "True positives") == f"{op.tp:,.6g}"
    assert page.get_by_text("interval: computing").count() == 0  # no bootstrap on connected data
    assert page.locator('[data-testid="stException"]').count() == 0
    shot(page, "connect_operating_point")
