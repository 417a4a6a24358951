"""A fresh server whose first request opens a page directly still runs it through app.py's navigation.

Streamlit keeps its legacy mode for an app with a ``pages/`` folder until the process first calls
``st.navigation``: opened first at /monitoring, it ran pages/monitoring.py on its own, with a navigation of file
names ("app", "batch decisions" ...), no sidebar of the page's data and no housekeeping. Each page reruns through
app.py in that case (views.navigation.routed).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from engine.pages import PAGES
from tests.e2e.conftest import serve, settle, shot

pytestmark = pytest.mark.e2e


@pytest.fixture
def fresh_server():
    yield from serve()


def test_the_first_request_of_a_fresh_server_to_a_page_goes_through_the_navigation(fresh_server, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = context.new_page()
    try:
        page.goto(f"{fresh_server}/monitoring")  # the server's very first session
        settle(page, "Periods")
        nav = page.locator('[data-testid="stSidebarNav"]')
        for p in PAGES:
            expect(nav.get_by_text(p.title, exact=True)).to_have_count(1)
        expect(nav.get_by_text("app", exact=True)).to_have_count(0)
        sidebar = page.locator('[data-testid="stSidebar"]')
        expect(sidebar).to_contain_text("Data on this page")
        expect(sidebar).to_contain_text("monitoring_rated.csv.gz")
        assert page.locator('[data-testid="stException"]').count() == 0
        shot(page, "first_request_monitoring")
    finally:
        context.close()
