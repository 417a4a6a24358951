import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
SHARED = ROOT.parent / "shared"

import os  # noqa: E402

import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

# CI replays the same examples on every run (a failure there is reproducible, never a coin flip);
# developers' runs keep exploring new ones. No deadlines: a busy 2-core machine is not a failure.
settings.register_profile("ci", derandomize=True, deadline=None)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture(scope="session", autouse=True)
def navigation_only():
    """AppTest runs as the server does once ``st.navigation`` was called: every run goes through app.py.

    AppTest starts every run with Streamlit's legacy mode for a ``pages/`` folder switched on again, in which a
    page whose file name is its URL path (data, monitoring, audit ...) runs without app.py; the pages then rerun
    through it (``views.navigation.routed``) and a button's click is lost on the way. The server leaves that
    mode at its first ``st.navigation`` call, for good. For the whole session (module-scoped fixtures drive
    AppTest too); yields Streamlit's own ``PagesManager.__init__``.
    """
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # pragma: no cover - the engine's tests run without the dashboard's dependencies
        yield None
        return
    original = PagesManager.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    PagesManager.__init__ = init
    yield original
    PagesManager.__init__ = original
