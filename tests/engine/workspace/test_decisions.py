"""Decisions: the status machine, four-eyes, the hash chain (hashlib and json as the oracle), verification of
edited rows, and the database refusing to update or delete what is written once - on SQLite and PostgreSQL."""

from __future__ import annotations

import hashlib
import json
import math

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from engine.errors import InputError
from engine.io import sample_path
from engine.workspace import STATUSES, TRANSITIONS, AccessError, Decision

from .test_workspace import team

NOTE_TIME = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z"


def _canon(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def oracle_content_hash(d: Decision) -> str:
    fields = {
        "id": d.id, "kind": d.kind, "name": d.name, "classifier": d.classifier, "threshold": _canon(d.threshold),
        "target": d.target, "tp": d.tp, "fp": d.fp, "settings": _canon(d.settings), "evidence": _canon(d.evidence),
        "note": d.note, "proposed_by": d.proposed_by, "proposed_at": d.proposed_at, "datasets": list(d.datasets),
    }  # fmt: skip
    return hashlib.sha256(_canon(fields).encode()).hexdigest()


def oracle_chain(d: Decision) -> list[str]:
    prev, out = "0" * 64, []
    for e in d.history:
        prev = hashlib.sha256(_canon([d.id, e.seq, e.event, e.by, e.at, e.note, e.content_hash, prev]).encode())
        prev = prev.hexdigest()
        out.append(prev)
    return out


def _propose(ws, who, **over):
    sha = ws.add_dataset(sample_path("synthetic"), who).sha256
    fields = dict(kind="operating_point", classifier="score_text", threshold=0.5207, datasets=[sha], target=0.3,
                  tp=361.0, fp=321.0, settings={"rated": 19770}, note="first try")  # fmt: skip
    return ws.propose(who, **{**fields, **over})


def tamper(ws, statement: str, **params) -> None:
    """Run ``statement`` as someone with write access to the database would: past the triggers."""
    with ws.engine.connect() as c:
        if ws.engine.dialect.name == "sqlite":
            triggers = c.exec_driver_sql("SELECT name FROM sqlite_master WHERE type = 'trigger'").scalars().all()
            for name in triggers:
                c.exec_driver_sql(f"DROP TRIGGER {name}")
        else:
            c.exec_driver_sql("SET session_replication_role = replica")
        c.execute(text(statement), params)
        if ws.engine.dialect.name != "sqlite":
            c.exec_driver_sql("RESET session_replication_role")
        c.commit()


def test_the_life_of_a_decision_is_a_hash_chain(workspace):
    people = team(workspace, ana="analyst", bob="approver")
    d = _propose(workspace, people["ana"])
    assert (d.status, d.proposed_by, d.name) == ("proposed", "ana@example.org", "score_text at marginal precision 0.3")
    assert d.link == f"https://studio.example.org/decisions?decision={d.id}"
    workspace.act(d.id, "approve", people["bob"], note="reviewed with risk")
    workspace.act(d.id, "deploy", people["bob"])
    with pytest.raises(AccessError, match="ana@example.org is an analyst: only approvers and admins can retire"):
        workspace.act(d.id, "retire", people["ana"])
    d = workspace.act(d.id, "retire", people["bob"], note="replaced")
    assert d.status == "retired"
    assert [(e.event, e.by, e.note) for e in d.history] == [
        ("proposed", "ana@example.org", "first try"),
        ("approved", "bob@example.org", "reviewed with risk"),
        ("deployed", "bob@example.org", ""),
        ("retired", "bob@example.org", "replaced"),
    ]
    assert {e.content_hash for e in d.history} == {oracle_content_hash(d)} == {d.content_hash}
    assert [e.hash for e in d.history] == oracle_chain(d)
    assert [e.prev_hash for e in d.history] == ["0" * 64] + oracle_chain(d)[:-1]
    assert all(a.at < b.at for a, b in zip(d.history, d.history[1:]))
    result = workspace.verify()
    assert (result.ok, result.events, result.decisions) == (True, 4, 1)


def _to_status(ws, status: str, people):
    d = _propose(ws, people["ana"])
    path = {"proposed": [], "approved": ["approve"], "rejected": ["reject"], "deployed": ["approve", "deploy"],
            "retired": ["approve", "deploy", "retire"]}[status]  # fmt: skip
    for action in path:
        d = ws.act(d.id, action, people["bob"])
    return d


@pytest.mark.parametrize("status", STATUSES)
def test_only_the_transitions_of_the_status_machine_are_allowed(workspace, status):
    people = team(workspace, ana="analyst", bob="approver", cy="approver")
    d = _to_status(workspace, status, people)
    for action, (start, end) in TRANSITIONS.items():
        if start != status:
            message = rf"decision {d.id} is {status} \(by (ana|bob)@example.org at {NOTE_TIME}\); only a {start} "
            with pytest.raises(AccessError, match=message + f"decision can be {end}"):
                workspace.act(d.id, action, people["cy"])
    assert len(workspace.decision(d.id, people["cy"]).history) == len(d.history)
    allowed = [a for a, (start, _) in TRANSITIONS.items() if start == status]
    if allowed:
        assert workspace.act(d.id, allowed[0], people["cy"]).status == TRANSITIONS[allowed[0]][1]
    assert workspace.verify().ok


def test_four_eyes_the_proposer_never_approves_rejects_or_deploys(workspace):
    people = team(workspace, ana="analyst approver", bob="approver")
    d = _propose(workspace, people["ana"])
    for action in ("approve", "reject"):
        with pytest.raises(AccessError, match=f"proposed decision {d.id}; four-eyes: another approver must {action}"):
            workspace.act(d.id, action, people["ana"])
    workspace.act(d.id, "approve", people["bob"])
    with pytest.raises(AccessError, match="four-eyes: another approver must deploy it"):
        workspace.act(d.id, "deploy", people["ana"])
    workspace.act(d.id, "deploy", people["bob"])
    assert workspace.act(d.id, "retire", people["ana"]).history[-1].by == "ana@example.org"


def test_single_user_mode_has_no_second_person(workspace):
    me = workspace.identity()
    d = _propose(workspace, me)
    for action in ("approve", "deploy", "retire"):
        d = workspace.act(d.id, action, me)
    assert {e.by for e in d.history} == {"local"} and d.status == "retired"


def test_kinds_thresholds_and_settings_are_kept_exactly(workspace):
    me = workspace.identity()
    joint = _propose(workspace, me, kind="joint_thresholds", classifier="score_text+score_image",
                     threshold=[0.1 + 0.2, 1e-300], settings={"rule": "or", "bins": 100})  # fmt: skip
    segments = _propose(workspace, me, kind="segment_thresholds", threshold={"north": 0.5, "south": math.inf},
                        target=None, tp=None, fp=None, name="by region")  # fmt: skip
    assert workspace.decision(joint.id, me).threshold == [0.30000000000000004, 1e-300]
    again = workspace.decision(segments.id, me)
    assert again.threshold == {"north": 0.5, "south": math.inf} and again.target is None and again.name == "by region"
    assert again.as_dict()["dataset_sha256"] == again.datasets[0]
    assert workspace.verify().ok


@pytest.mark.parametrize(
    "over, message",
    [
        ({"kind": "vibes"}, "unknown decision kind 'vibes'"),
        ({"target": 1.0}, "strictly between 0 and 1"),
        ({"tp": -1}, "give a non-negative count"),
        ({"classifier": " "}, "the classifier must be text"),
        ({"datasets": []}, "give at least one"),
        ({"datasets": ["f" * 64]}, "there is no dataset ffffffffffff"),
        ({"settings": {"x": object()}}, "holds a object"),
        ({"evidence": {"view": 42}}, "there is no view 42"),
    ],
)
def test_a_bad_proposal_is_refused(workspace, over, message):
    with pytest.raises(InputError, match=message):
        _propose(workspace, workspace.identity(), **over)
    assert workspace.info()["decisions"] == 0


def test_decisions_are_listed_newest_first_with_filters_and_privacy(workspace):
    people = team(workspace, ana="analyst", bob="approver")
    a = _propose(workspace, people["ana"])
    b = _propose(workspace, people["ana"], kind="batch_rule", classifier="probability", target=None)
    workspace.act(a.id, "approve", people["bob"])
    listed = workspace.decisions(people["bob"])
    assert [d.id for d in listed] == [b.id, a.id]
    assert [d.id for d in workspace.decisions(people["bob"], status="approved")] == [a.id]
    assert [d.id for d in workspace.decisions(people["bob"], kind="batch_rule")] == [b.id]
    assert [d.id for d in workspace.decisions(people["bob"], classifier="score_text")] == [a.id]
    assert workspace.decisions(people["bob"], since="2999-01-01") == []
    assert len(workspace.decisions(people["bob"], since="2000-01-01", until="2999-01-01")) == 2
    with pytest.raises(InputError, match="unknown status 'live'"):
        workspace.decisions(people["bob"], status="live")
    workspace.set_dataset_private(a.datasets[0], True, people["ana"])  # both read it
    assert workspace.decisions(people["bob"]) == []
    with pytest.raises(AccessError, match="which is private"):
        workspace.decision(a.id, people["bob"])
    assert len(workspace.decisions(people["ana"])) == 2


def _ids(ws, d):
    with ws.engine.connect() as c:
        return c.execute(text("SELECT id FROM events WHERE decision_id = :d ORDER BY seq"), {"d": d.id}).scalars().all()


def _deployed(ws):
    me = ws.identity()
    first = _propose(ws, me)
    d = _propose(ws, me)
    for action in ("approve", "deploy"):
        d = ws.act(d.id, action, me)
    record = ws.add_record("monitoring", "k", {"alerts": []}, me, decision_id=d.id)
    ws.add_dataset(sample_path("satimage_rated"), me)  # another dataset a decision could be said to read
    return first, d, record


TAMPERING = {
    "an event's note": (
        "UPDATE events SET note = 'fine' WHERE id = :e2",
        "event {e2} (decision {d}, #2 approved) no longer matches its hash: the stored event was changed",
    ),
    "an event's actor": (
        "UPDATE events SET \"by\" = 'mallory' WHERE id = :e1",
        "event {e1} (decision {d}, #1 proposed) no longer matches its hash: the stored event was changed",
    ),
    "a decision's threshold": (
        "UPDATE decisions SET threshold = '0.6' WHERE id = :d",
        "decision {d} no longer matches the content hash in event {e1} (decision {d}, #1 proposed): "
        "the decision was changed",
    ),
    "a decision's dataset": (
        "UPDATE decision_datasets SET sha256 = (SELECT MIN(sha256) FROM datasets WHERE sha256 <> "
        "decision_datasets.sha256) WHERE decision_id = :d",
        "decision {d} no longer matches the content hash in event {e1}",
    ),
    "a decision's status": (
        "UPDATE decisions SET status = 'retired' WHERE id = :d",
        "decision {d} says retired but its last event is deployed: the decision was changed",
    ),
    "an event in the middle": (
        "DELETE FROM events WHERE id = :e2",
        "decision {d}: event #2 is missing (the chain goes on with #3, event {e3})",
    ),
    "the last event": (
        "DELETE FROM events WHERE id = :e3",
        "decision {d} says deployed but its last event is approved: the decision was changed",
    ),
    "every event": (
        "DELETE FROM events WHERE decision_id = :d",
        "decision {d} has no events (its proposal event was removed)",
    ),
    "a record": (
        "UPDATE records SET body = '{\"alerts\":[]} ' WHERE id = :r",
        "record {r} no longer matches its hash: the stored record was changed",
    ),
}


@pytest.mark.parametrize("case", list(TAMPERING))
def test_verify_names_the_first_row_that_no_longer_matches_its_hash(workspace, case):
    first, d, record = _deployed(workspace)
    before = workspace.verify()
    assert before.ok and (before.events, before.decisions, before.records) == (4, 2, 1)
    e1, e2, e3 = _ids(workspace, d)
    statement, message = TAMPERING[case]
    params = {"d": d.id, "e1": e1, "e2": e2, "e3": e3, "r": record.id}
    tamper(workspace, statement, **{k: v for k, v in params.items() if f":{k}" in statement})
    result = workspace.verify()
    assert result.problem == message.format(**params) or result.problem.startswith(message.format(**params))
    assert not result.ok


def test_a_transition_on_a_changed_decision_records_nothing(workspace):
    first, d, _ = _deployed(workspace)
    tamper(workspace, "UPDATE decisions SET tp = 1000 WHERE id = :d", d=d.id)
    with pytest.raises(InputError, match=f"decision {d.id} no longer matches its content hash"):
        workspace.act(d.id, "retire", workspace.identity())
    assert len(_ids(workspace, d)) == 3


def test_the_head_summarises_every_chain(workspace):
    first, d, _ = _deployed(workspace)
    head = workspace.verify().head
    assert workspace.verify().head == head and len(head) == 64
    workspace.act(d.id, "retire", workspace.identity())
    assert workspace.verify().head != head


REFUSED = [
    "UPDATE events SET note = 'x'",
    "DELETE FROM events",
    "UPDATE records SET kind = 'x'",
    "DELETE FROM records",
    "UPDATE views SET page = 'x'",
    "DELETE FROM view_datasets",
    "UPDATE decision_datasets SET position = 3",
    "UPDATE decisions SET threshold = '0.9'",
    "UPDATE decisions SET proposed_by = 'mallory'",
    "DELETE FROM decisions",
]


def test_the_database_refuses_to_change_what_is_written_once(workspace):
    first, d, _ = _deployed(workspace)
    workspace.save_view("operating-point", {}, list(d.datasets), workspace.identity())
    statements = REFUSED + (["TRUNCATE events", "TRUNCATE decisions CASCADE"] if workspace.engine.dialect.name ==
                            "postgresql" else [])  # fmt: skip
    for statement in statements:
        with workspace.engine.connect() as c, pytest.raises(DBAPIError, match="opstudio: "):
            c.exec_driver_sql(statement)
    with workspace.engine.begin() as c:  # the status is the one column that changes
        c.exec_driver_sql(f"UPDATE decisions SET status = status WHERE id = {d.id}")
    assert workspace.verify().ok
