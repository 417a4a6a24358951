"""A new server's very first request, to a page whose file name is its URL path, runs app.py around the page.

A folder named ``pages/`` beside ``app.py`` switches Streamlit to its legacy multipage mode until ``st.navigation`` has
run once in the process; the server is started with that mode off (``engine.cli.app.streamlit_command``), so even the
first request gets the sidebar, the navigation of ``engine.pages.PAGES`` and nothing else.
"""

from __future__ import annotations

import pytest

from engine.pages import PAGES
from tests.e2e.conftest import serve, settle

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def fresh_server():
    yield from serve()


def test_the_first_request_to_a_deep_link_shows_the_app_around_the_page(browser, fresh_server):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.goto(f"{fresh_server}/data")  # nothing has been served by this server yet
    settle(page, "Validation report")
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_text("Data on this page").wait_for(timeout=60_000)  # app.py: the data this page uses
    links = sidebar.locator('[data-testid="stSidebarNavLink"]')
    assert links.count() == len(PAGES), [links.nth(i).inner_text() for i in range(links.count())]
    assert page.locator('[data-testid="stException"]').count() == 0
    context.close()
