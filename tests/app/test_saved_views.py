"""Save view and ``?view=<id>``: every setting of the page and its datasets, stored in the workspace and reopened in
another session with the same numbers; datasets read from the store once per server; refusals said, never bypassed.

A fresh ``AppTest`` is a fresh browser session of the same server (this process); clearing the server's workspace
handles and its dataset cache is a restart (tests/e2e/test_workspace.py restarts real servers).
"""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

import views.identity
import views.state
import views.workspace
from engine.io import sample_path
from engine.workspace import open_workspace, settings_from_env
from tests.app.conftest import APP, AUTH, OPERATOR, upload_input
from tests.app.conftest import shown as shown_text

OP = "pages/operating_point.py"


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A workspace of its own (OPSTUDIO_HOME) for the test."""
    monkeypatch.setenv("OPSTUDIO_HOME", str(tmp_path / "opstudio"))
    monkeypatch.delenv("OPSTUDIO_PUBLIC_URL", raising=False)
    return settings_from_env()


def session(page: str | None = None, *, view: int | None = None, user: dict | None = None) -> AppTest:
    """A fresh session opened on ``page`` (or on ``?view=<id>``), logged in as ``user`` when given."""
    at = AppTest.from_file(APP, default_timeout=300)
    if user is not None:
        at.secrets = AUTH
        at.user = {"is_logged_in": True, **user}
    if view is not None:
        at.query_params["view"] = str(view)
    at.run()
    if page is not None:
        at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def cards(at) -> dict:
    return {m.label: m.value for m in at.main.metric}


def widgets(at) -> dict:
    """Every keyed setting widget of the main area and its value."""
    kinds = ("slider", "select_slider", "selectbox", "number_input", "toggle", "radio", "multiselect", "checkbox")
    return {w.key: w.value for kind in kinds for w in at.main.get(kind) if w.key and not w.key.startswith("_")}


def save(at) -> int:
    at.sidebar.button(key="save_view").click().run()
    assert not at.exception, at.exception
    link = at.sidebar.code[-1].value
    assert "/operating-point?view=" in link or "?view=" in link
    return int(link.rsplit("=", 1)[1])


def restart() -> None:
    """What a new server process starts without: its workspace handles and the datasets it holds."""
    for ws in views.identity._WORKSPACES.values():
        ws.close()
    views.identity._WORKSPACES.clear()
    views.identity._ROLES.clear()
    views.state.SERVER_CACHE.clear()  # the datasets it held and every result computed from them


def test_a_saved_view_reopens_every_setting_and_the_same_numbers_after_a_restart(home):
    at = session(OP)
    at.selectbox(key="classifier").set_value("score_text").run()
    at.slider(key="target").set_value(0.42).run()
    at.toggle(key="what_if_on").set_value(True).run()
    at.number_input(key="seed").set_value(7).run()
    shown, settings = cards(at), widgets(at)
    assert shown["Threshold"] != cards(session(OP))["Threshold"]  # the settings changed the numbers
    view_id = save(at)
    stored = open_workspace(home).view(view_id, OPERATOR)
    assert stored.page == "operating-point" and stored.settings["widgets"]["target"] == pytest.approx(0.42)
    assert stored.settings["inputs"][0]["sample"] == "synthetic" and len(stored.datasets) == 1
    restart()
    again = session(view=view_id)  # arrives on Home: the view's page opens
    assert [t.value for t in again.title] == ["Operating point"]
    assert cards(again) == shown and widgets(again) == settings
    assert "view" not in again.query_params  # applied once: the page goes on from the view


def test_an_uploaded_file_is_a_workspace_dataset_read_from_the_store_once_per_server(home):
    raw = sample_path("bank").read_bytes()
    at = AppTest.from_file(APP, default_timeout=300)
    at.run()
    upload_input(at, "my_bank.csv.gz", raw, "rated")
    ws = open_workspace(home)
    (dataset,) = ws.datasets(OPERATOR)
    assert dataset.name == "my_bank.csv.gz" and dataset.owner == "local" and not dataset.private
    at.switch_page(OP).run()
    at.slider(key="target").set_value(0.35).run()
    shown = cards(at)
    view_id = save(at)
    restart()
    first, second = session(view=view_id), session(view=view_id)
    assert cards(first) == shown == cards(second)
    cache = views.state.SERVER_CACHE
    held = [cache.lookup(e.key) for e in cache.held() if e.key[0] == "workspace dataset"]
    assert len(held) == 1 and held[0].fingerprint == dataset.sha256 and held[0].source == "workspace"
    assert "my_bank.csv.gz" in shown_text(first.sidebar.markdown)


def test_the_decision_record_links_to_a_saved_view(home):
    at = session(OP)
    at.slider(key="target").set_value(0.25).run()
    at.button(key="record_op").click().run()
    link = at.session_state["_decision_record"][-1].provenance["link"]
    assert link.startswith("/operating-point?view=")  # a path in AppTest: the export writes the public address
    view = open_workspace(home).view(int(link.rsplit("=", 1)[1]), OPERATOR)
    assert view.settings["widgets"]["target"] == pytest.approx(0.25)


def test_a_link_that_cannot_be_opened_says_why_and_shows_nothing_else(home):
    for bad, words in (("999", "there is no view 999"), ("abc", "is not a view number")):
        at = session(view=bad)
        assert any(words in e.value for e in at.error), [e.value for e in at.error]
        assert not at.main.metric


def test_a_crafted_view_sets_no_private_state_and_no_identity(home):
    ws = open_workspace(home)
    local = ws.identity()
    sha = ws.add_dataset(sample_path("synthetic").read_bytes(), local, name="s.csv.gz", kind="rated").sha256
    ref = {
        "kind": "rated",
        "sha256": sha,
        "name": "s.csv.gz",
        "mapping": {
            "score_cols": ["score_image", "score_text"],
            "label_col": "label",
            "weight_col": None,
            "group_col": "region",
            "ignored_cols": ["doc_id"],
        },
        "sample": None,
    }
    widgets_ = {"_current_page": "access", "_decision_record": [1], "target": 0.6, "x" * 300: 1, "classifier": {}}
    view = ws.save_view("operating-point", {"widgets": widgets_, "inputs": [ref]}, [sha], local)
    at = session(view=view.id)
    assert at.slider(key="target").value == pytest.approx(0.6)
    assert at.session_state["_current_page"] == "operating-point"
    assert "_decision_record" not in at.session_state or at.session_state["_decision_record"] != [1]


@pytest.mark.login
def test_team_mode_private_views_and_datasets_refuse_others_and_viewers_cannot_save(home):
    ws = open_workspace(home)
    for who, role in (("ana@example.com", "analyst"), ("eve@example.com", "analyst"), ("vic@example.com", "viewer")):
        ws.grant(who, role, OPERATOR)
    ana = {"email": "ana@example.com"}
    at = session(OP, user=ana)
    at.sidebar.toggle(key="view_private").set_value(True).run()
    private_view = save(at)
    at.sidebar.toggle(key="view_private").set_value(False).run()
    at.slider(key="target").set_value(0.31).run()
    shared_view = save(at)
    refused = session(view=private_view, user={"email": "eve@example.com"})
    assert any("private to its owner" in e.value for e in refused.error) and not refused.main.metric
    viewer = session(view=shared_view, user={"email": "vic@example.com"})
    assert viewer.slider(key="target").value == pytest.approx(0.31)
    assert not [b for b in viewer.button if b.key in ("save_view", "propose_op_go", "propose_segments_go")]
    assert cards(viewer)["Threshold"] == cards(session(view=shared_view, user=ana))["Threshold"]


@pytest.mark.login
def test_a_view_reading_a_private_dataset_refuses_another_analyst_before_reading_its_bytes(home, monkeypatch):
    ws = open_workspace(home)
    for who in ("ana@example.com", "eve@example.com"):
        ws.grant(who, "analyst", OPERATOR)
    ana = ws.identity("ana@example.com", team=True)
    data = ws.add_dataset(b"doc_id,score,label\n1,0.9,1\n2,0.4,0\n3,0.8,1\n", ana, name="mine.csv", private=True)
    mapping = {"score_cols": ["score"], "label_col": "label", "weight_col": None, "group_col": None, "ignored_cols": []}
    ref = {"kind": "rated", "sha256": data.sha256, "name": "mine.csv", "mapping": mapping, "sample": None}
    view = ws.save_view("operating-point", {"widgets": {}, "inputs": [ref]}, [data.sha256], ana)
    read = []
    store_get = type(ws.store).get
    monkeypatch.setattr(type(ws.store), "get", lambda self, sha: read.append(sha) or store_get(self, sha))
    at = session(view=view.id, user={"email": "eve@example.com"})
    assert any("private to the people who added it" in e.value for e in at.error)
    assert read == []  # its bytes were never read for eve
    assert "mine" not in " ".join(m.value for m in at.sidebar.markdown)
    owner = session(view=view.id, user={"email": "ana@example.com"})
    assert owner.main.metric and read == [data.sha256]
