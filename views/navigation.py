"""Where the user is and how to send them elsewhere: the current page, its link, links to other pages.

Every page's path, title and icon come from :data:`engine.pages.PAGES`; nothing here
repeats them.
"""

from __future__ import annotations

import math
from urllib.parse import urlencode, urlsplit

import streamlit as st

from engine.pages import PAGES, page_for
from engine.record import public_url

_PAGE = "_current_page"


def remember_page(url_path: str) -> None:
    """Note which page this run shows (``app.py`` calls it with the navigation's choice)."""
    st.session_state[_PAGE] = url_path


#: the query parameter naming the data a link was made on (the first 16 hex digits of its SHA-256)
DATA_PARAM = "data"


def current_link(settings: dict | None = None, *, data: str = "") -> str:
    """An absolute link that reopens the page this run shows with its settings.

    The URL's own settings (the widgets bound to query parameters) are joined by ``settings``
    (widget key -> value: the ones the URL leaves out because they are at their default, or not
    bound) and by ``data=<SHA-256 prefix>`` for an uploaded input, so that opening the link without
    that data says which data it needs (:func:`views.inputs.input_picker`) instead of silently using
    a sample. The link starts with ``OPSTUDIO_PUBLIC_URL`` when it is set (:func:`engine.record.public_url`),
    else with the address this browser used.
    """
    params = {k: v for k, v in st.query_params.to_dict().items() if k != DATA_PARAM}
    params.update({k: _param(v) for k, v in (settings or {}).items() if v is not None})
    if data:
        params[DATA_PARAM] = str(data)[:16]
    query = urlencode(params)
    path = f"/{st.session_state.get(_PAGE, '')}" + (f"?{query}" if query else "")
    if public_url():  # the address colleagues use (OPSTUDIO_PUBLIC_URL), not the one this browser used
        return public_url() + path
    try:
        here = urlsplit(st.context.url or "")
    except Exception:  # no browser context (AppTest, a bare script run): the path alone
        return path
    if here.scheme not in ("http", "https") or not here.netloc:
        return path
    base = here.path.rstrip("/")  # the app may be served under a base path (server.baseUrlPath) ...
    for page in PAGES:  # ... followed by the page the browser opened first
        if page.url_path and base.endswith(f"/{page.url_path}"):
            base = base[: -len(page.url_path) - 1]
            break
    return f"{here.scheme}://{here.netloc}{base}{path}"


def _param(value) -> str:
    """A setting as Streamlit writes a bound widget's value in the URL (5.0 -> "5", True -> "true")."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and math.isfinite(value) and value == int(value):
        return str(int(value))
    return str(value)


def go_to(url_path: str) -> None:
    """A link to another page, labelled and iconed as the navigation shows it."""
    page = page_for(url_path)
    st.page_link(page.script, label=f"Go to {page.title}", icon=page.icon)
