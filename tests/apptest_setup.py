"""Streamlit's AppTest run as the dashboard's server runs: shared by the tests (``tests/conftest.py``) and the
benchmarks that drive pages with AppTest."""

from __future__ import annotations

__all__ = ["legacy_page_folders_off"]


def legacy_page_folders_off() -> None:
    """AppTest resets ``PagesManager.uses_pages_directory`` before every run, and a folder named ``pages/`` beside
    ``app.py`` then turns on Streamlit's legacy multipage mode, which runs a page script without ``app.py``. The
    dashboard's server starts with it off (``engine.cli.app.streamlit_command``); AppTest runs the same way here."""
    from streamlit.runtime.pages_manager import PagesManager

    original = PagesManager.__init__
    if getattr(original, "_legacy_off", False):
        return

    def init(self, *args, **kwargs):
        PagesManager.uses_pages_directory = False
        original(self, *args, **kwargs)

    init._legacy_off = True
    PagesManager.__init__ = init
