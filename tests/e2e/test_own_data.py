"""A user's training table in a real browser: upload, fit under demographic parity, download the model."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import settle, shot, upload

pytestmark = pytest.mark.e2e


def test_upload_a_training_table_fit_and_download_the_model(server, page, tmp_path):
    rng = np.random.default_rng(11)
    n = 600
    sex = rng.choice(["Female", "Male"], n, p=[0.4, 0.6])
    latent = rng.normal(size=n) + 0.8 * (sex == "Male")
    table = pd.DataFrame(
        {
            "sex": sex,
            "hours": rng.integers(10, 60, n),
            "sector": rng.choice(["a", "b"], n),
            "signal": latent.round(3),
            "label": np.where(latent + rng.normal(size=n) > 0.4, "yes", "no"),
        }
    )
    path = tmp_path / "people.csv"
    table.to_csv(path, index=False)
    page.goto(f"{server}/data")
    settle(page, "Validation report")
    upload(page, path, "Training table")
    page.locator('[data-testid="stSidebarNav"]').get_by_text("Constrained training", exact=True).click()
    settle(page, "Constraints")
    expect(page.locator('[data-testid="stMain"]').get_by_text("600 rows")).to_be_visible(timeout=30_000)
    expect(page.locator('[data-testid="stSidebar"]')).to_contain_text("people.csv")  # the page's own data
    page.get_by_role("button", name="Train").click()
    expect(page.get_by_role("button", name="Download the model (JSON)")).to_be_visible(timeout=120_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    with page.expect_download() as download:
        page.get_by_role("button", name="Download the model (JSON)").click()
    model_path = tmp_path / "model.json"
    download.value.save_as(model_path)
    record = json.loads(model_path.read_text())
    assert "sector=b" in record["feature_names"] and record["constraints"]
    assert record["rates"]["train"]["demographic_parity_ratio"] >= 0.8 - 1e-9
    shot(page, "constrained_training_upload")
