"""The dashboard in a real browser: uploads through the file chooser, the target slider and the URL."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import assert_healthy, metric, settle, shot

pytestmark = pytest.mark.e2e


def test_upload_through_the_file_chooser(server, page, tmp_path):
    good = tmp_path / "analyst_upload.csv"
    good.write_text(
        "id,score_model,label\n"
        + "\n".join(
            f"{i},{(i * 37 % 101) / 100:.2f},{'tp' if i % 7 == 0 else 'fp' if i % 11 else ''}" for i in range(1, 400)
        )
    )
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
        "unknown label values 'perhaps' at row 2", timeout=30_000
    )
    assert page.locator('[data-testid="stException"]').count() == 0
    shot(page, "upload_bad")


def test_slider_moves_the_operating_point_and_the_url(server, page):
    page.goto(f"{server}/operating-point")
    settle(page, "Sweep of target marginal precisions")
    before = metric(page, "Threshold")
    thumb = (
        page.locator('[data-testid="stSlider"]')
        .filter(has_text="Target marginal precision")
        .locator('input[type="range"]')
        .first
    )
    thumb.focus()
    for _ in range(20):
        thumb.press("ArrowRight")
    page.wait_for_function("() => window.location.search.includes('target=')", timeout=30_000)
    settle(page, "Sweep of target marginal precisions")
    expect(
        page.locator('[data-testid="stMetric"]')
        .filter(has=page.get_by_text("Threshold", exact=True))
        .first.locator('[data-testid="stMetricValue"]')
    ).not_to_have_text(before, timeout=30_000)
    target = float(re.search(r"target=([0-9.]+)", page.url).group(1))
    assert target > 0.3
    assert_healthy(page, 3)
    shot(page, "slider_moved")
    # the copied link reopens the same view
    threshold = metric(page, "Threshold")
    other = page.context.new_page()
    other.goto(page.url)
    settle(other, "Sweep of target marginal precisions")
    assert metric(other, "Threshold") == threshold
    other.close()


def test_no_key_press_on_the_target_slider_is_lost(server, page):
    """30 ArrowRight presses move the target by exactly 30 steps, three times over (fresh sessions)."""
    for _ in range(3):
        page.goto(f"{server}/operating-point")
        settle(page, "Sweep of target marginal precisions")
        thumb = (
            page.locator('[data-testid="stSlider"]')
            .filter(has_text="Target marginal precision")
            .locator('input[type="range"]')
            .first
        )
        before = float(thumb.input_value())
        thumb.focus()
        for _ in range(30):
            thumb.press("ArrowRight")
        page.wait_for_function(f"() => window.location.search.includes('target={before + 0.15:.2f}')", timeout=30_000)
        settle(page, "Sweep of target marginal precisions")
        assert round((float(thumb.input_value()) - before) / 0.005) == 30
        assert page.locator('[data-testid="stException"]').count() == 0
