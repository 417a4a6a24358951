"""A saved view in real browsers and real servers: saved in one browser context, its link opened in a fresh context,
after the server restarted, and on a second server process sharing the database and the dataset store — the same
numbers every time, the upload read from the store (the fresh contexts never had it)."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from playwright.sync_api import Page, expect

from engine.io import sample_path
from engine.workspace import Identity, open_workspace, settings_from_env
from tests.e2e.conftest import metric, settle, shot, start_server, stop_server, upload

pytestmark = pytest.mark.e2e

CARDS = ("Threshold", "True positives", "False positives", "Precision", "Marginal precision")


def numbers(page: Page) -> dict:
    return {label: metric(page, label) for label in CARDS}


def open_link(browser, link: str) -> tuple[Page, dict]:
    """``link`` in a fresh browser context (no cookie, no session): the Operating point's cards once drawn."""
    context = browser.new_context(viewport={"width": 1500, "height": 1100})
    page = context.new_page()
    page.goto(link)
    settle(page, "Sweep of target marginal precisions")
    return page, numbers(page)


@pytest.fixture
def uploaded(tmp_path):
    """The users' own rated file (not a shipped sample's bytes): UCI Bank Marketing's rated rows, every other one."""
    frame = pd.read_csv(sample_path("bank"))
    path = tmp_path / "campaign_ratings.csv"
    frame.iloc[::2].to_csv(path, index=False)
    return path


def test_a_saved_view_opens_the_same_numbers_anywhere(browser, tmp_path, uploaded):
    env = {"OPSTUDIO_HOME": str(tmp_path / "opstudio")}
    proc, base = start_server(env)
    try:
        context = browser.new_context(viewport={"width": 1500, "height": 1100})
        page = context.new_page()
        page.goto(f"{base}/data")
        settle(page, "Validation report")
        upload(page, uploaded, "Rated data")
        page.locator('[data-testid="stSidebarNav"]').get_by_text("Operating point", exact=True).click()
        settle(page, "Sweep of target marginal precisions")
        box = page.get_by_role("spinbutton", name=re.compile("^Exact value"))
        box.fill("37" if "%" in (box.get_attribute("aria-label") or "") else "0.37")
        box.press("Enter")
        settle(page, "Sweep of target marginal precisions")
        saved = numbers(page)
        page.get_by_role("button", name="Save view").click()
        code = page.locator('[data-testid="stSidebar"] [data-testid="stCode"]')
        expect(code).to_contain_text("?view=", timeout=60_000)
        link = code.inner_text().strip()
        assert re.fullmatch(rf"{re.escape(base)}/operating-point\?view=\d+", link), link
        shot(page, "workspace_saved")
        context.close()

        fresh, shown = open_link(browser, link)
        assert shown == saved
        expect(fresh.locator('[data-testid="stSidebar"]')).to_contain_text(uploaded.name)
        fresh.context.close()

        stop_server(proc)  # a restart: nothing of the first process is left
        proc, again = start_server(env, port=int(base.rsplit(":", 1)[1]))
        fresh, shown = open_link(browser, link)
        assert shown == saved
        fresh.context.close()

        second, other = start_server(env)  # another server on the same database and store
        try:
            fresh, shown = open_link(browser, link.replace(base, other))
            assert shown == saved
            shot(fresh, "workspace_second_server")
            fresh.context.close()
        finally:
            stop_server(second)
    finally:
        stop_server(proc)
    workspace = open_workspace(settings_from_env(env))
    (dataset,) = workspace.datasets(Identity("ops", frozenset({"admin"})))
    assert dataset.name == uploaded.name and dataset.owner == "local"
