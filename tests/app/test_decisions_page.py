"""The Decisions page: filters, each decision's history and evidence, approve/reject/deploy/retire offered exactly as
engine.workspace.may answers (the reason shown otherwise), one event when two act at once, and the record of any
set of decisions."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from engine.io import sample_path
from engine.record import read_record_json
from engine.workspace import open_workspace, settings_from_env
from tests.app.conftest import APP, AUTH, OPERATOR, download_buttons
from tests.app.test_tables_in_words import problems

PAGE = "pages/decisions.py"


@pytest.fixture
def ws(tmp_path, monkeypatch):
    monkeypatch.setenv("OPSTUDIO_HOME", str(tmp_path / "opstudio"))
    workspace = open_workspace(settings_from_env())
    yield workspace
    workspace.close()


def dataset(ws, who):
    return ws.add_dataset(sample_path("synthetic").read_bytes(), who, name="synthetic.csv.gz", kind="rated").sha256


def page(*, user: str | None = None, decision: int | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    if user is not None:
        at.secrets = AUTH
        at.user = {"is_logged_in": True, "email": user}
    at.run()
    if decision is not None:
        at.query_params["decision"] = str(decision)
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    return at


def table_ids(at) -> list[int]:
    return [int(str(i).replace(",", "")) for i in at.dataframe[0].value.iloc[:, 0]]


def captions(at) -> str:
    return " ".join(c.value.replace("\\", "") for c in at.caption)


def test_filters_by_status_kind_and_model(ws):
    me = ws.identity()
    sha = dataset(ws, me)
    a = ws.propose(me, kind="operating_point", classifier="score_image", threshold=0.36, target=0.3, datasets=[sha])
    b = ws.propose(
        me,
        kind="joint_thresholds",
        classifier="score_image, score_text",
        threshold=[0.4, 0.5],
        target=0.3,
        datasets=[sha],
    )
    c = ws.propose(me, kind="operating_point", classifier="score_text", threshold=0.52, target=0.3, datasets=[sha])
    ws.act(b.id, "approve", me)
    ws.act(c.id, "reject", me)
    at = page()
    assert table_ids(at) == [c.id, b.id, a.id]  # newest first
    at.selectbox(key="dec_status").set_value("approved").run()
    assert table_ids(at) == [b.id]
    at.selectbox(key="dec_status").set_value("any").run()
    at.selectbox(key="dec_kind").set_value("operating_point").run()
    assert table_ids(at) == [c.id, a.id]
    at.selectbox(key="dec_model").set_value("score_text").run()
    assert table_ids(at) == [c.id]
    assert at.dataframe[0].value["Threshold"].tolist() == ["0.52"]
    found = [f"table {i}: {p}" for i, element in enumerate(at.dataframe) for p in problems(element)]
    assert not found, found  # the page's tables read in words and show whole (test_tables_in_words)


def test_single_user_walks_a_decision_through_every_status(ws):
    me = ws.identity()
    d = ws.propose(
        me, kind="operating_point", classifier="score_image", threshold=0.36, target=0.3, datasets=[dataset(ws, me)]
    )
    at = page()
    for action, status in (("approve", "approved"), ("deploy", "deployed"), ("retire", "retired")):
        at.text_input(key=f"dec_note_{d.id}").input(f"{action} it").run()
        at.button(key=f"dec_{action}_{d.id}").click().run()
        assert any(f"Decision {d.id}: {status}" in s.value.replace("\\", "") for s in at.success)
    history = ws.decision(d.id, me).history
    assert [e.event for e in history] == ["proposed", "approved", "deployed", "retired"]
    assert [e.note for e in history[1:]] == ["approve it", "deploy it", "retire it"]
    assert "no action is left" in captions(at)


@pytest.mark.login
def test_four_eyes_the_proposer_is_told_why_and_another_approver_approves(ws):
    for who, roles in (("ana@example.com", ("analyst", "approver")), ("bob@example.com", ("approver",))):
        for role in roles:
            ws.grant(who, role, OPERATOR)
    ana = ws.identity("ana@example.com", team=True)
    d = ws.propose(
        ana,
        kind="operating_point",
        classifier="score_image",
        threshold=0.36,
        target=0.3,
        datasets=[dataset(ws, ana)],
        note="Q3",
    )
    at = page(user="ana@example.com", decision=d.id)
    assert not [b for b in at.button if b.key and b.key.startswith("dec_approve")]
    assert f"ana@example.com proposed decision {d.id}; four-eyes: another approver must approve it." in captions(at)
    assert "four-eyes: another approver must reject it" in captions(at)
    at = page(user="bob@example.com", decision=d.id)
    at.text_input(key=f"dec_note_{d.id}").input("reviewed").run()
    at.button(key=f"dec_approve_{d.id}").click().run()
    history = ws.decision(d.id, OPERATOR).history
    assert [(e.event, e.by, e.note) for e in history] == [
        ("proposed", "ana@example.com", "Q3"),
        ("approved", "bob@example.com", "reviewed"),
    ]
    sentence = " ".join(m.value.replace("\\", "") for m in at.markdown)
    assert "Proposed by ana@example.com at" in sentence and "approved by bob@example.com at" in sentence


@pytest.mark.login
def test_whoever_acts_second_is_told_who_acted_first(ws):
    for who in ("bob@example.com", "cy@example.com"):
        ws.grant(who, "approver", OPERATOR)
    ws.grant("ana@example.com", "analyst", OPERATOR)
    ana = ws.identity("ana@example.com", team=True)
    d = ws.propose(
        ana, kind="operating_point", classifier="score_image", threshold=0.36, target=0.3, datasets=[dataset(ws, ana)]
    )
    at = page(user="bob@example.com", decision=d.id)  # bob reads it proposed ...
    ws.act(d.id, "approve", ws.identity("cy@example.com", team=True))  # ... cy approves meanwhile
    at.button(key=f"dec_reject_{d.id}").click().run()
    errors = " ".join(e.value.replace("\\", "") for e in at.error)
    assert f"decision {d.id} is approved (by cy@example.com at" in errors
    assert [e.event for e in ws.decision(d.id, OPERATOR).history] == ["proposed", "approved"]


@pytest.mark.login
def test_a_viewer_sees_decisions_without_any_action(ws):
    ws.grant("ana@example.com", "analyst", OPERATOR)
    ws.grant("vic@example.com", "viewer", OPERATOR)
    ana = ws.identity("ana@example.com", team=True)
    d = ws.propose(
        ana, kind="operating_point", classifier="score_image", threshold=0.36, target=0.3, datasets=[dataset(ws, ana)]
    )
    at = page(user="vic@example.com", decision=d.id)
    assert not [b for b in at.button if b.key and b.key.startswith(("dec_approve", "dec_reject"))]
    assert "vic@example.com is a viewer: only approvers and admins can approve decisions." in captions(at)
    assert not [t for t in at.text_input if t.key == f"dec_note_{d.id}"]


@pytest.mark.login
def test_a_decision_on_data_made_private_is_refused_to_others(ws):
    ws.grant("ana@example.com", "analyst", OPERATOR)
    ws.grant("eve@example.com", "approver", OPERATOR)
    ana = ws.identity("ana@example.com", team=True)
    sha = dataset(ws, ana)
    d = ws.propose(ana, kind="operating_point", classifier="score_image", threshold=0.36, target=0.3, datasets=[sha])
    ws.set_dataset_private(sha, True, ana)
    at = page(user="eve@example.com", decision=d.id)
    assert any("private to the people who added it" in e.value for e in at.error)
    assert not at.dataframe and not at.main.metric  # nothing of it shown


def test_the_record_of_decisions_holds_each_decision_and_its_evidence(ws, served):
    at = AppTest.from_file(APP, default_timeout=300)
    at.run()
    at.switch_page("pages/operating_point.py").run()
    at.text_area(key="propose_op_note").input("from the page").run()
    at.button(key="propose_op_go").click().run()
    (d,) = ws.decisions(ws.identity())
    assert d.evidence["view"] and d.evidence["records"]
    at.switch_page(PAGE).run()
    at.button(key="dec_build").click().run()
    buttons = download_buttons(at)
    items = read_record_json(served(buttons["Download JSON"]))
    assert [i.kind for i in items] == ["decision", "operating point"]
    assert items[0].title == f"Decision {d.id}: {d.name}" and items[0].note == "from the page"
    assert items[0].provenance["link"].endswith(f"/decisions?decision={d.id}")
    assert f"?view={d.evidence['view']}" in items[1].provenance["link"]
    assert b"<html" in served(buttons["Download HTML"]).lower()
    assert json.loads(served(buttons["Download JSON"]))["items"][0]["tables"][0]["name"] == "History"
