import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
SHARED = ROOT.parent / "shared"

import os  # noqa: E402

from hypothesis import settings  # noqa: E402

# CI replays the same examples on every run (a failure there is reproducible, never a coin flip);
# developers' runs keep exploring new ones. No deadlines: a busy 2-core machine is not a failure.
settings.register_profile("ci", derandomize=True, deadline=None)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def _legacy_page_folders_off() -> None:
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


_legacy_page_folders_off()
