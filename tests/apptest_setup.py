"""Streamlit's AppTest run as the dashboard's server runs: shared by the tests (``tests/conftest.py``) and the
benchmarks that drive pages with AppTest."""

from __future__ import annotations

import functools

__all__ = ["component_manifests_scanned_once", "legacy_page_folders_off"]


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


def component_manifests_scanned_once() -> bool:
    """Streamlit's scan of the installed distributions for custom-component manifests, once per process.

    The server scans them once, when it starts; AppTest scans them again on the first run of every ``AppTest``: it
    reads the metadata of every installed distribution, 0.38 s of a 0.40 s first run of the Home page (cProfile,
    Streamlit 1.67, 133 distributions), paid by each of the suite's thousands of fresh sessions. The installed
    distributions do not change while the tests run, so the first scan's result serves the rest.

    Returns
    -------
    bool
        False when this Streamlit has no such scan (older releases: nothing to do).
    """
    try:
        from streamlit.components.v2 import manifest_scanner
    except ImportError:  # releases before custom components v2
        return False
    scan = manifest_scanner.scan_component_manifests
    if getattr(scan, "_scanned_once", False):
        return True

    @functools.cache
    def scanned() -> tuple:
        return tuple(scan())

    def once(*args, **kwargs):
        return list(scanned()) if not args and not kwargs else scan(*args, **kwargs)

    once._scanned_once = True  # type: ignore[attr-defined]
    manifest_scanner.scan_component_manifests = once
    return True
