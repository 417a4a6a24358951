"""AppTest helpers: a fresh app per test and access to what download buttons serve."""

import re
from pathlib import Path

import pytest
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest

from engine.workspace import Identity

APP = str(Path(__file__).resolve().parents[2] / "app.py")
#: Streamlit secrets with logins (an ``[auth]`` section), for ``at.secrets``; the provider is never reached in AppTest
AUTH = {
    "auth": {
        "redirect_uri": "http://localhost:8501/oauth2callback",
        "cookie_secret": "a-long-random-cookie-secret-for-the-tests",
        "client_id": "studio",
        "client_secret": "secret",
        "server_metadata_url": "http://localhost:9/.well-known/openid-configuration",
    }
}
#: the server's operator granting roles (as ``opstudio users grant`` does)
OPERATOR = Identity("ops", frozenset({"admin"}))


@pytest.fixture
def app():
    def make(query: dict | None = None, page: str | None = None) -> AppTest:
        at = AppTest.from_file(APP, default_timeout=120)
        for k, v in (query or {}).items():
            at.query_params[k] = v
        at.run()
        assert not at.exception, at.exception
        if page:
            # a shared link opens the page directly with its parameters: set them again for the page
            for k, v in (query or {}).items():
                at.query_params[k] = v
            at.switch_page(page).run()
            assert not at.exception, at.exception
        return at

    return make


@pytest.fixture
def fresh_server_cache(monkeypatch):
    """An empty server-wide cache for this test: what a shipped sample's page computes is the server's
    (``views.state.SERVER_WIDE``), so a test counting computations must not find an earlier test's results."""
    import views.state

    cache = views.state.ByteBudgetCache(views.state.cache_budget_bytes())
    monkeypatch.setattr(views.state, "SERVER_CACHE", cache)
    return cache


@pytest.fixture
def served(monkeypatch):
    """Bytes served by download buttons, by media file id."""
    files: dict[str, bytes] = {}
    original = MemoryMediaFileStorage.load_and_get_id

    def record(self, path_or_data, mimetype, kind, filename=None):
        file_id = original(self, path_or_data, mimetype, kind, filename)
        files[file_id] = path_or_data if isinstance(path_or_data, bytes) else Path(path_or_data).read_bytes()
        return file_id

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", record)

    def content(button) -> bytes:
        file_id = button.proto.url.rsplit("/", 1)[-1].split(".")[0]
        return files[file_id]

    return content


def download_buttons(at: AppTest) -> dict:
    return {b.proto.label: b for b in at.get("download_button")}


def shown(elements) -> str:
    """Text of Markdown elements as the user reads it (backslash escapes removed)."""
    return " ".join(re.sub(r"\\(.)", r"\1", e.value) for e in elements)


DATA_PAGE = "pages/data.py"


def upload_input(at: AppTest, name: str, content: bytes, kind: str | None = None) -> AppTest:
    """Upload a file on the Data page (choosing its kind when given); the app stays on the Data page."""
    at.switch_page(DATA_PAGE).run()
    at.radio(key="data_source").set_value("Upload a file").run()
    at.file_uploader(key="upload").set_value((name, content, "application/octet-stream")).run()
    if kind is not None:
        box = next(s for s in at.selectbox if s.label == "Kind of input")
        if box.value != kind:
            box.set_value(kind).run()
    return at


def number(cell: str) -> float:
    """A number as a table shows it ("1,387", "52.9 %", "−0.0611") back as a float (a percentage as a share)."""
    text = str(cell).replace(",", "").replace("−", "-").strip()
    return float(text[:-1].strip()) / 100 if text.endswith("%") else float(text)


def by_quantity(table) -> dict:
    """A table shown one quantity per row ("Quantity" first): {column: {quantity: cell}}."""
    return table.set_index("Quantity").to_dict()


def finish_background(at: AppTest, timeout: float = 120) -> None:
    """Wait for the background work this session shows: its own jobs and the server-wide ones (results of a shipped
    sample or a workspace dataset are computed once per server, ``views.state.SERVER_WIDE``)."""
    import views.state

    own = at.session_state["_jobs"] if "_jobs" in at.session_state else {}  # noqa: SIM401 no .get at the floor
    for job in [*own.values(), *list(views.state._SERVER_JOBS.values())]:
        job.future.result(timeout=timeout)
