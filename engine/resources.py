"""Where the dashboard's files are (inside the installed package, or at the top of a checkout) and which Chromium prints."""

from __future__ import annotations

import os
from importlib.util import find_spec
from pathlib import Path

__all__ = ["dashboard_dir", "chromium_path", "DEFAULT_CHROMIUM"]

#: the browser used when ``OPSTUDIO_CHROMIUM`` is unset (Debian's package)
DEFAULT_CHROMIUM = "/usr/bin/chromium"


def dashboard_dir() -> Path:
    """The folder with app.py, views/ and sample_data/.

    A wheel installs them as the package ``engine._dashboard`` (a folder without
    ``__init__.py``); an editable install maps that name onto the checkout's top level;
    a plain checkout on ``sys.path`` (no install) has them next to ``engine/``.

    Returns
    -------
    pathlib.Path
        The folder holding ``app.py``.
    """
    spec = find_spec("engine._dashboard")
    if spec is None or not spec.submodule_search_locations:
        return Path(__file__).resolve().parents[1]
    return Path(list(spec.submodule_search_locations)[0])


def chromium_path() -> str:
    """The Chromium executable that prints records to PDF and that the browser tests drive.

    ``OPSTUDIO_CHROMIUM`` names it (an absolute path, or a command found on ``PATH``, e.g.
    ``chromium-browser`` or ``google-chrome``); unset or empty, it is Debian's ``/usr/bin/chromium``.
    The path is returned as given: whether it exists is checked where it is used.

    Returns
    -------
    str
        The executable's path or command name.

    Examples
    --------
    >>> import os
    >>> saved = dict(os.environ)
    >>> os.environ["OPSTUDIO_CHROMIUM"] = "/opt/chromium/chrome"
    >>> chromium_path()
    '/opt/chromium/chrome'
    >>> os.environ["OPSTUDIO_CHROMIUM"] = ""
    >>> chromium_path()
    '/usr/bin/chromium'
    >>> os.environ.clear(); os.environ.update(saved)
    """
    return os.environ.get("OPSTUDIO_CHROMIUM", "").strip() or DEFAULT_CHROMIUM
