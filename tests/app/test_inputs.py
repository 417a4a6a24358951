"""Inputs of a session: shipped samples shared by every session (issue 25); links that name every input of their page
and reopen exactly them, or say which file is missing (issue 33)."""

import pytest

from engine.io import samples_of_kind
from tests.app.conftest import shown, upload_input
from views.inputs import shared_sample

PAGE = "pages/data.py"
OP = "pages/operating_point.py"
AUDIT = "pages/audit.py"
RATED = b"doc_id,score,label\n" + b"".join(
    b"%d,0.%03d,%d\n" % (i, (i * 37) % 1000, (i * 37) % 1000 > 600) for i in range(300)
)


def sample_inputs(at) -> dict:
    return {i.sample_key: i for i in at.session_state["_inputs"].values() if i.source == "sample"}


def test_two_sessions_share_the_sample_data_not_copies(app):
    first, second = app(page=PAGE), app(page=PAGE)  # two AppTests: two sessions of one server process
    a, b = sample_inputs(first), sample_inputs(second)
    key = next(iter(samples_of_kind("rated")))
    assert key in a and key in b
    assert a[key].value is b[key].value and a[key].table is b[key].table  # one copy per server
    assert a[key].value is shared_sample(key).value


@pytest.fixture
def settings_links(monkeypatch):
    """Sessions that may not save views (a viewer's, or data counted on the server that cannot be a workspace
    dataset): the record's "Reopen this view" is then the page's link with its settings and inputs, not a view."""
    import views.propose
    from engine.workspace import Permission

    may = views.propose.allowed

    def allowed(action, *args, **kwargs):
        return Permission(False, "not in this test") if action == "save_view" else may(action, *args, **kwargs)

    monkeypatch.setattr(views.propose, "allowed", allowed)


def link_of_last_item(at, served) -> tuple[str, dict]:
    """The page path and query of the record's last item's "Reopen this view" link (as the exported JSON has it)."""
    import json
    from urllib.parse import parse_qs, urlsplit

    from tests.app.conftest import download_buttons

    at.switch_page("pages/record.py").run()
    link = json.loads(served(download_buttons(at)["Download JSON"]))["items"][-1]["provenance"]["link"]
    parts = urlsplit(link)
    return parts.path.strip("/"), {k: v if len(v) > 1 else v[0] for k, v in parse_qs(parts.query).items()}


def test_a_link_names_every_input_of_its_page_in_full_and_reopens_on_exactly_them(app, served, settings_links):
    at = upload_input(app(), "rated.csv", RATED, kind="rated")
    at.switch_page(OP).run()
    shown_before = {m.label: m.value for m in at.main.metric}
    at.button(key="record_op").click().run()
    path, query = link_of_last_item(at, served)
    sha = at.session_state["_inputs"]["rated.csv"].fingerprint
    assert path == "operating-point" and query["data"] == f"rated:{sha}:rated.csv" and len(sha) == 64
    # the same link in a session that has the file: exactly that view
    other = upload_input(app(), "renamed.csv", RATED, kind="rated")
    other.query_params.update(query)
    other.switch_page(OP).run()
    assert not other.exception and not other.warning
    assert other.selectbox(key="op_rated").value == "renamed.csv"  # found by its SHA-256, whatever its name
    assert {m.label: m.value for m in other.main.metric}["Threshold"] == shown_before["Threshold"]


def test_a_link_without_its_data_names_the_file_offers_the_data_page_and_opens_once_it_is_added(
    app, served, settings_links
):
    at = upload_input(app(), "rated.csv", RATED, kind="rated")
    at.switch_page(OP).run()
    at.button(key="record_op").click().run()
    _, query = link_of_last_item(at, served)
    fresh = app(query=query, page=OP)
    warning = shown(fresh.warning)
    assert "it needs rated.csv (SHA-256 " in warning and "Nothing is computed on other data" in warning
    assert not fresh.main.metric and not fresh.get("plotly_chart")  # no result of the sample instead
    assert [link.proto.page for link in fresh.get("page_link")] == ["data"]
    assert "synthetic" not in shown(fresh.sidebar.markdown)
    fresh.switch_page("pages/data.py").run()
    assert "A link for **Operating point** needs rated.csv (SHA-256" in shown(fresh.warning)  # the Data page says so
    fresh = upload_input(fresh, "again.csv", RATED, kind="rated")
    assert "**again.csv** is the data a link for **Operating point** needs" in shown(fresh.success)
    fresh.switch_page(OP).run()
    assert not fresh.exception and not fresh.warning
    assert fresh.selectbox(key="op_rated").value == "again.csv"


def test_a_reopened_audit_of_uploads_never_shows_the_shipped_audit(app, served, settings_links):
    from engine.audit.designs import design_json
    from tests.app.test_audit_page import _upload_design, own_data

    frame, rated, reviewed, design = own_data()
    files = {
        "population.csv": (frame.to_csv(index=False).encode(), "population"),
        "rated.csv": (rated.to_csv(index=False).encode(), "rated"),
        "reviewed.csv": (reviewed.to_csv(index=False).encode(), "audit"),
    }

    def add(at, name):
        content, kind = files[name]
        at = upload_input(at, name, content, kind=kind)
        return _upload_design(at, content, design_json(design)) if kind == "audit" else at  # with its plan.json

    at = app()
    for name in files:
        at = add(at, name)
    at.switch_page(AUDIT).run()
    found = {m.label: m.value for m in at.main.metric}
    assert "Missed positives" in found and not at.error
    at.button(key="record_audit").click().run()
    _, query = link_of_last_item(at, served)
    assert sorted(v.split(":")[0] for v in query["data"]) == ["audit", "population", "rated"]  # every input
    fresh = app(query=query, page=AUDIT)
    assert not fresh.exception and "it needs population.csv" in shown(fresh.warning)
    assert not fresh.main.metric and "satimage" not in shown(fresh.main.markdown) + shown(fresh.sidebar.markdown)
    for name in files:
        fresh = add(fresh, name)
        fresh.switch_page(AUDIT).run()
        assert not fresh.exception
        if name != "reviewed.csv":  # an input still missing: said, and no estimate (of the shipped audit or any)
            assert "Missed positives" not in {m.label for m in fresh.main.metric}
            assert "this session does not have" in shown(fresh.warning)
    assert not fresh.warning
    assert {m.label: m.value for m in fresh.main.metric} == found


def test_a_removed_input_is_said_and_another_file_of_its_name_is_not_taken_for_it(app):
    at = upload_input(app(), "rated.csv", RATED, kind="rated")
    at.switch_page(OP).run()
    first = at.session_state["_inputs"]["rated.csv"].fingerprint
    at.switch_page(PAGE).run()
    at.selectbox(key="report_of").set_value("rated.csv").run()
    at.button(key="remove_input").click().run()
    other = RATED.replace(b",1\n", b",0\n", 20)  # another file, the same name
    at = upload_input(at, "rated.csv", other, kind="rated")
    second = at.session_state["_inputs"]["rated.csv"].fingerprint
    assert second != first
    at.switch_page(OP).run()
    assert not at.exception
    notice = shown(at.info)
    assert f"'rated.csv' (SHA-256 {first[:8]}…), which this page used, is no longer loaded" in notice
    assert f"it now uses 'rated.csv' (SHA-256 {second[:8]}…)" in notice


def test_an_upload_named_like_a_samples_option_is_the_upload(app):
    at = upload_input(app(), "sample:bank", RATED, kind="rated")  # the picker's option of the shipped bank sample
    at.switch_page(OP).run()
    assert not at.exception
    assert at.selectbox(key="op_rated").value == "sample:bank"
    assert "**sample:bank** (rated data, upload)" in shown(at.sidebar.markdown)
    assert {m.label: m.value for m in at.sidebar.metric}["Rated rows"] == "300"  # the upload, not the bank sample
    at.selectbox(key="op_rated").set_value("sample:synthetic").run()
    assert not at.exception and "synthetic_rare_events.csv.gz" in shown(at.sidebar.markdown)
