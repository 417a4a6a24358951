"""``opstudio workspace|datasets|decisions|users`` and ``monitor --decision``: the issue's contract, exactly."""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3

import pytest

from engine.cli import main
from engine.io import load_rated, sample_path
from engine.pn import operating_point

DATASET_KEYS = ["sha256", "name", "kind", "rows", "bytes"]
DECISION_KEYS = ["id", "name", "status", "kind", "classifier", "threshold", "target", "tp", "fp", "dataset_sha256",
                 "link"]  # fmt: skip


@pytest.fixture(autouse=True)
def home(monkeypatch, tmp_path):
    monkeypatch.setenv("OPSTUDIO_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("OPSTUDIO_PUBLIC_URL", "https://studio.example.org/")
    monkeypatch.setenv("LOGNAME", "osuser")  # getpass.getuser() reads it first
    for name in ("OPSTUDIO_DATABASE_URL", "OPSTUDIO_DATASETS", "OPSTUDIO_MAX_DATASET_MB"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path / "home"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    if code:
        assert err.count("\n") == 1 and err.startswith("error: ") and "Traceback" not in err, err
    return code, out, err


def run_json(capsys, *argv: str):
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def test_workspace_init_upgrade_and_info(capsys, home):
    code, out, _ = run(capsys, "workspace", "init")
    assert code == 0 and out.splitlines()[0] == "created the workspace database at schema 0002"
    assert f"database: sqlite:///{home / 'workspace.db'}" in out and f"dataset store: {home / 'datasets'}" in out
    assert run(capsys, "workspace", "upgrade")[1].startswith("the workspace database is at the newest schema, 0002")
    info = run_json(capsys, "workspace", "info")
    assert info == {"database": f"sqlite:///{home / 'workspace.db'}", "schema_version": "0002", "datasets": 0,
                    "views": 0, "decisions": 0}  # fmt: skip
    assert list(info) == ["database", "schema_version", "datasets", "views", "decisions"]


def test_datasets_add_and_list(capsys):
    path = sample_path("synthetic")
    added = run_json(capsys, "datasets", "add", str(path), "--name", "March ratings")
    assert list(added) == DATASET_KEYS
    raw = path.read_bytes()
    assert added == {"sha256": hashlib.sha256(raw).hexdigest(), "name": "March ratings", "kind": "rated",
                     "rows": load_rated(path).n_read, "bytes": len(raw)}  # fmt: skip
    assert run_json(capsys, "datasets", "add", str(path)) == added  # the same bytes: the same dataset
    counts = run_json(capsys, "datasets", "add", str(sample_path("synthetic_counts")), "--kind", "counts")
    listed = run_json(capsys, "datasets", "list")
    assert [d["sha256"] for d in listed] == [counts["sha256"], added["sha256"]]
    assert listed[1] == {**added, "owner": "osuser", "private": False, "created_at": listed[1]["created_at"]}
    assert [d["kind"] for d in run_json(capsys, "datasets", "list", "--kind", "counts")] == ["counts"]
    code, out, _ = run(capsys, "datasets", "list")
    assert code == 0 and out.startswith(counts["sha256"][:12] + "  synthetic_rare_events_counts.csv  counts")


def test_datasets_add_refuses_a_missing_file_and_one_over_the_limit(capsys, monkeypatch, tmp_path):
    code, _, err = run(capsys, "datasets", "add", str(tmp_path / "nope.csv"))
    assert code == 2 and "nope.csv' does not exist" in err
    monkeypatch.setenv("OPSTUDIO_MAX_DATASET_MB", "0.1")
    code, _, err = run(capsys, "datasets", "add", str(sample_path("synthetic")))
    assert (
        code == 2 and "'synthetic_rare_events.csv.gz' is 0.2 MB; the workspace stores datasets of at most 0 MB" in err
    )


def test_propose_computes_the_operating_point_with_the_engine(capsys):
    path = sample_path("synthetic")
    proposed = run_json(capsys, "decisions", "propose", "--dataset", str(path), "--classifier", "score_text",
                        "--target", "0.3", "--note", "Q3 review")  # fmt: skip
    assert list(proposed) == DECISION_KEYS
    data = load_rated(path)
    point = operating_point(data.column("score_text"), data.labels, 0.3, data.weights)
    swept = run_json(capsys, "sweep", str(path), "--classifier", "score_text", "--target", "0.3")
    assert swept["operating_points"][0]["threshold"] == point.threshold
    assert proposed == {
        "id": 1, "name": "score_text at marginal precision 0.3", "status": "proposed", "kind": "operating_point",
        "classifier": "score_text", "threshold": point.threshold, "target": 0.3, "tp": point.tp, "fp": point.fp,
        "dataset_sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "link": "https://studio.example.org/decisions?decision=1",
    }  # fmt: skip
    by_prefix = run_json(capsys, "decisions", "propose", "--dataset", proposed["dataset_sha256"][:10],
                         "--classifier", "score_image", "--target", "0.5", "--name", "image model")  # fmt: skip
    assert (by_prefix["id"], by_prefix["name"], by_prefix["dataset_sha256"]) == (
        2,
        "image model",
        proposed["dataset_sha256"],
    )
    assert run_json(capsys, "workspace", "info")["datasets"] == 1


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--dataset", "0123456789abcdef", "--classifier", "s", "--target", "0.3"], "there is no dataset 0123456789ab"),
        (["--dataset", "x!", "--classifier", "s", "--target", "0.3"], "'x!' is not a dataset's SHA-256"),
        (["--classifier", "nope", "--target", "0.3"], "nope"),
        (["--classifier", "score_text", "--target", "1.5"], "strictly between 0 and 1"),
    ],
)
def test_propose_refuses_bad_input_in_one_line(capsys, argv, message):
    if "--dataset" not in argv:
        argv = ["--dataset", str(sample_path("synthetic")), *argv]
    code, _, err = run(capsys, "decisions", "propose", *argv)
    assert code == 2 and message in err


def _propose(capsys, sample="synthetic", classifier="score_text", *extra) -> dict:
    return run_json(capsys, "decisions", "propose", "--dataset", str(sample_path(sample)), "--classifier",
                    classifier, "--target", "0.3", *extra)  # fmt: skip


def test_transitions_show_list_and_verify(capsys):
    first = _propose(capsys)
    second = _propose(capsys, "synthetic", "score_image")
    code, out, _ = run(capsys, "decisions", "approve", "1", "--note", "reviewed")
    assert code == 0 and re.fullmatch(r"decision 1 approved by osuser at \S+Z\n", out)
    code, _, err = run(capsys, "decisions", "approve", "1")
    assert code == 2 and re.fullmatch(
        r"error: decision 1 is approved \(by osuser at \S+Z\); only a proposed decision can be approved\.\n", err
    )
    assert run(capsys, "decisions", "reject", "2", "--note", "no")[0] == 0
    assert run(capsys, "decisions", "deploy", "1")[0] == 0
    shown = run_json(capsys, "decisions", "show", "1")
    assert list(shown) == [*DECISION_KEYS, "history"]
    assert {k: v for k, v in shown.items() if k != "history"} == {**first, "status": "deployed"}
    assert [list(e) for e in shown["history"]] == [["event", "by", "at", "note", "hash"]] * 3
    assert [(e["event"], e["by"], e["note"]) for e in shown["history"]] == [
        ("proposed", "osuser", ""), ("approved", "osuser", "reviewed"), ("deployed", "osuser", "")
    ]  # fmt: skip
    assert [d["id"] for d in run_json(capsys, "decisions", "list")] == [2, 1]
    assert run_json(capsys, "decisions", "list", "--status", "rejected") == [{**second, "status": "rejected"}]
    assert run(capsys, "decisions", "retire", "1")[0] == 0
    code, out, _ = run(capsys, "decisions", "verify")
    assert (code, out) == (0, "6 events verified\n")
    code, _, err = run(capsys, "decisions", "show", "9")
    assert code == 2 and "there is no decision 9" in err


def test_verify_exits_2_naming_an_edited_event(capsys, home):
    _propose(capsys)
    run(capsys, "decisions", "approve", "1")
    with sqlite3.connect(home / "workspace.db") as db:
        db.execute("DROP TRIGGER events_no_update")
        db.execute("UPDATE events SET note = 'approved with conditions' WHERE seq = 2")
    code, out, err = run(capsys, "decisions", "verify")
    assert (code, out) == (2, "")
    assert err == "error: event 2 (decision 1, #2 approved) no longer matches its hash: the stored event was changed\n"


def test_team_mode_roles_four_eyes_and_as(capsys):
    assert run(capsys, "users", "list")[1].startswith("no grants: the workspace is single-user")
    for email, role in (("ana@example.org", "analyst"), ("ana@example.org", "approver"), ("bob@example.org",
                        "approver")):  # fmt: skip
        assert run(capsys, "users", "grant", email, role)[0] == 0
    users = run_json(capsys, "users", "list")
    assert [list(u) for u in users] == [["email", "roles", "granted_by", "granted_at"]] * 2
    assert [(u["email"], u["roles"], u["granted_by"]) for u in users] == [
        ("ana@example.org", ["analyst", "approver"], "osuser"), ("bob@example.org", ["approver"], "osuser")
    ]  # fmt: skip
    code, _, err = run(capsys, "datasets", "list")
    assert code == 2 and err == (
        "error: osuser has no role in this workspace; an admin must grant one (opstudio users grant osuser viewer).\n"
    )
    proposed = _propose(capsys, "synthetic", "score_text", "--as", "Ana@Example.org")
    code, _, err = run(capsys, "decisions", "approve", str(proposed["id"]), "--as", "ana@example.org")
    assert code == 2 and err == (
        f"error: ana@example.org proposed decision {proposed['id']}; four-eyes: another approver must approve it.\n"
    )
    code, _, err = run(capsys, "decisions", "propose", "--dataset", proposed["dataset_sha256"], "--classifier",
                       "score_text", "--target", "0.4", "--as", "bob@example.org")  # fmt: skip
    assert code == 2 and "bob@example.org is an approver: only analysts and admins can propose decisions" in err
    assert run(capsys, "decisions", "approve", "1", "--as", "bob@example.org")[0] == 0
    history = run_json(capsys, "decisions", "show", "1", "--as", "bob@example.org")["history"]
    assert [(e["event"], e["by"]) for e in history] == [
        ("proposed", "ana@example.org"),
        ("approved", "bob@example.org"),
    ]
    assert run(capsys, "users", "revoke", "ana@example.org", "approver")[1] == "revoked approver from ana@example.org\n"
    code, _, err = run(capsys, "users", "revoke", "ana@example.org", "approver")
    assert code == 2 and "has no role 'approver' to revoke" in err


def test_monitor_follows_a_deployed_decision_and_stores_its_alerts(capsys):
    decision = _propose(capsys, "monitoring", "score")
    code, _, err = run(capsys, "monitor", "--sample", "monitoring", "--decision", str(decision["id"]))
    assert code == 2 and "is proposed; only a deployed decision is monitored" in err
    run(capsys, "decisions", "approve", "1")
    run(capsys, "decisions", "deploy", "1")
    code, out, err = run(capsys, "monitor", "--sample", "monitoring", "--decision", "1", "--json")
    assert code == 0
    typed = run_json(capsys, "monitor", "--sample", "monitoring", "--classifier", "score", "--threshold",
                     repr(decision["threshold"]), "--target", "0.3")  # fmt: skip
    assert json.loads(out) == typed
    assert err == f"{len(typed['alerts'])} alert(s) stored on decision 1 (record 1)\n" and typed["alerts"]
    from engine.workspace import open_workspace

    with open_workspace() as ws:
        (record,) = ws.records(ws.identity(), decision_id=1)
    assert (
        record.kind == "monitoring" and record.key == hashlib.sha256(sample_path("monitoring").read_bytes()).hexdigest()
    )
    assert record.body["alerts"] == typed["alerts"] and record.body["threshold"] == decision["threshold"]
    for extra, message in ((["--threshold", "0.5"], "sets the threshold and the target"),
                           (["--classifier", "other"], "is about score, not other")):  # fmt: skip
        code, _, err = run(capsys, "monitor", "--sample", "monitoring", "--decision", "1", *extra)
        assert code == 2 and message in err
    code, _, err = run(capsys, "monitor", "--sample", "monitoring", "--target", "0.3")
    assert code == 2 and "give --threshold T (the deployed threshold) or --decision ID" in err
