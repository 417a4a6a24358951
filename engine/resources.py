"""Where the dashboard's files are: inside the installed package, or at the top of a checkout."""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path

__all__ = ["dashboard_dir"]


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
