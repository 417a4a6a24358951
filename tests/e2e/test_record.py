"""The decision record in a real browser: items from three pages, HTML and PDF exports, the HTML's figures drawn."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import settle, shot

pytestmark = pytest.mark.e2e


def test_record_from_three_pages_exported_and_rendered(server, page, tmp_path):
    page.goto(f"{server}/operating-point")  # then navigate inside the app: a reload would start a new session
    settle(page, "Sweep of target marginal precisions")
    nav = page.locator('[data-testid="stSidebarNav"]')
    for count, (link, text) in enumerate(
        (
            ("Operating point", "Sweep of target marginal precisions"),
            ("Ensemble paths", "Comparison"),
            ("Batch decisions", "Decided items"),
        ),
        start=1,
    ):
        nav.get_by_text(link, exact=True).click()
        settle(page, text)
        button = page.get_by_role("button", name="Add to decision record").first
        expect(button).to_be_enabled(timeout=30_000)
        button.click()
        # the toast counts the items: wait for this click's own confirmation
        expect(page.get_by_text(f"The record now holds {count} decision")).to_be_visible(timeout=60_000)
    nav.get_by_text("Decision record", exact=True).click()
    settle(page, "Export")
    assert page.locator('[data-testid="stException"]').count() == 0
    with page.expect_download() as download:
        page.get_by_role("button", name="Download HTML").click()
    html_path = tmp_path / "record.html"
    download.value.save_as(html_path)
    page.get_by_role("button", name="Prepare PDF").click()
    expect(page.get_by_role("button", name="Download PDF")).to_be_visible(timeout=120_000)
    with page.expect_download() as pdf_download:
        page.get_by_role("button", name="Download PDF").click()
    pdf_path = tmp_path / "record.pdf"
    pdf_download.value.save_as(pdf_path)
    assert pdf_path.read_bytes().startswith(b"%PDF-")
    shot(page, "record_page")
    assert len(re.findall(rb"/Type\s*/Page\b", pdf_path.read_bytes())) <= 12  # the batch's rows are not printed
    viewer = page.context.new_page()
    viewer.set_viewport_size({"width": 1280, "height": 900})
    viewer.goto(html_path.as_uri())
    viewer.wait_for_function("() => document.querySelectorAll('.js-plotly-plot .main-svg').length >= 3", timeout=60_000)
    assert viewer.locator("h2", has_text="1.").count() == 1 and viewer.locator("h2", has_text="3.").count() == 1
    # at 1,280 px the page does not scroll sideways and no table is wider than its box (the paths comparison was)
    widths = viewer.evaluate("""() => ({page: [document.scrollingElement.scrollWidth, window.innerWidth],
        tables: [...document.querySelectorAll('table')].map(t => [t.getBoundingClientRect().right,
                                                                  document.body.getBoundingClientRect().right])})""")
    assert widths["page"][0] <= widths["page"][1], widths["page"]
    assert all(right <= body + 1 for right, body in widths["tables"]), widths["tables"]
    assert viewer.locator(".modebar").count() == 0 or not viewer.locator(".modebar").first.is_visible()
    assert viewer.locator("#appendix").count() == 1 and "Reopen this view" in viewer.content()
    viewer.close()
