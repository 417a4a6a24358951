"""Where the user is and how to send them elsewhere: the current page, its link, links to other pages.

Every page's path, title and icon come from :data:`engine.pages.PAGES`; nothing here
repeats them.
"""

from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from engine.pages import page_for

_PAGE = "_current_page"


def remember_page(url_path: str) -> None:
    """Note which page this run shows (``app.py`` calls it with the navigation's choice)."""
    st.session_state[_PAGE] = url_path


def current_link() -> str:
    """A link that reopens the page this run shows, with its current settings (they live in the URL)."""
    query = urlencode({k: v for k, v in st.query_params.to_dict().items()})
    return f"/{st.session_state.get(_PAGE, '')}" + (f"?{query}" if query else "")


def go_to(url_path: str) -> None:
    """A link to another page, labelled and iconed as the navigation shows it."""
    page = page_for(url_path)
    st.page_link(page.script, label=f"Go to {page.title}", icon=page.icon)
