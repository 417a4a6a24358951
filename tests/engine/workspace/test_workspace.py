"""Datasets, saved views, records and roles in the workspace, on SQLite and PostgreSQL."""

from __future__ import annotations

import hashlib
import math
from pathlib import Path

import pandas as pd
import pytest

from engine.errors import InputError
from engine.io import read_table, sample_path
from engine.workspace import ROLES, AccessError, Identity, Settings, Workspace

OPERATOR = Identity("ops", frozenset({"admin"}))


def team(ws: Workspace, **grants: str) -> dict[str, Identity]:
    """Grant each ``name=role`` (``ana="analyst approver"``) and return the identities with their roles."""
    for name, roles in grants.items():
        for role in roles.split():
            ws.grant(f"{name}@example.org", role, OPERATOR)
    return {name: ws.identity(f"{name}@example.org") for name in grants}


def test_a_file_added_twice_is_one_dataset_named_by_its_sha256(workspace):
    path = sample_path("synthetic")
    raw = path.read_bytes()
    people = team(workspace, ana="analyst", bob="analyst")
    first = workspace.add_dataset(path, people["ana"], name="March ratings")
    again = workspace.add_dataset(raw, people["bob"], name="another name", kind="population")
    assert first.sha256 == again.sha256 == hashlib.sha256(raw).hexdigest() == read_table(path).fingerprint
    assert (again.name, again.kind, again.owner) == ("March ratings", "rated", "ana@example.org")
    assert again.holders == ("ana@example.org", "bob@example.org")
    assert first.rows == len(pd.read_csv(path)) and first.bytes == len(raw)
    assert [d.sha256 for d in workspace.datasets(people["bob"])] == [first.sha256]
    assert workspace.dataset_bytes(first.sha256[:10], people["bob"]) == raw
    assert workspace.info()["datasets"] == 1


@pytest.mark.parametrize(
    "sample, kind, tabular",
    [
        ("synthetic", "rated", True),
        ("synthetic_counts", "counts", True),
        ("satimage_audit", "audit", True),
        ("bank_batches", "batches", True),
        ("adult_gbt", "model_file", False),
    ],
)
def test_the_kind_is_guessed_and_tables_are_counted(tmp_path, sample, kind, tabular):
    settings = Settings(f"sqlite:///{tmp_path / 'w.db'}", str(tmp_path / "d"), 50 * 2**20)
    with Workspace(settings) as ws:
        dataset = ws.add_dataset(sample_path(sample), ws.identity())
    assert dataset.kind == kind
    assert dataset.rows == (len(read_table(sample_path(sample)).frame) if tabular else None)


def test_a_score_matrix_archive_from_the_public_data(workspace, tmp_path):
    from tests.conftest import SHARED

    found = [p / "data/adbench/31_satimage-2.npz" for p in (SHARED, Path("/work/shared"))]
    npz = next((p for p in found if p.is_file()), None)
    if npz is None:
        pytest.skip("public data not present")
    dataset = workspace.add_dataset(npz, workspace.identity())
    assert (dataset.kind, dataset.rows) == ("score_matrix", None)


def test_a_table_kind_that_does_not_parse_is_refused_and_nothing_is_stored(workspace, tmp_path):
    me = workspace.identity()
    with pytest.raises(InputError, match="'notes.txt'"):
        workspace.add_dataset(b"\x00\x01\x02 not a table", me, name="notes.txt")
    with pytest.raises(InputError, match="unknown dataset kind 'spreadsheet'"):
        workspace.add_dataset(b"a,b\n1,2\n", me, kind="spreadsheet")
    assert workspace.datasets(me) == [] and not (tmp_path / "datasets").exists()


def test_over_the_size_limit_is_refused_naming_the_variable(workspace, tmp_path):
    big = tmp_path / "big.csv"
    big.write_bytes(b"score,label\n" + b"0.5,1\n" * (2 * 2**20))  # 12 MB; the fixture's limit is 10 MB
    with pytest.raises(InputError) as info:
        workspace.add_dataset(big, workspace.identity())
    assert str(info.value).startswith("'big.csv' is 12.0 MB; the workspace stores datasets of at most 10 MB")
    assert "OPSTUDIO_MAX_DATASET_MB" in str(info.value)
    assert workspace.info()["datasets"] == 0


def test_a_private_dataset_is_invisible_to_others_until_they_add_its_bytes(workspace):
    people = team(workspace, ana="analyst", bob="analyst", cat="viewer")
    raw = sample_path("satimage_rated").read_bytes()
    mine = workspace.add_dataset(raw, people["ana"], private=True)
    assert mine.private and workspace.datasets(people["bob"]) == []
    for reader in (people["bob"], people["cat"]):
        with pytest.raises(InputError, match="there is no dataset"):
            workspace.dataset_bytes(mine.sha256, reader)
    workspace.add_dataset(raw, people["bob"])  # bob holds the bytes himself: he may read them
    assert workspace.dataset_bytes(mine.sha256, people["bob"]) == raw
    assert workspace.datasets(people["cat"]) == []
    with pytest.raises(InputError, match="only ana@example.org, who added dataset"):
        workspace.set_dataset_private(mine.sha256, False, people["bob"])
    assert not workspace.set_dataset_private(mine.sha256, False, people["ana"]).private
    assert [d.sha256 for d in workspace.datasets(people["cat"])] == [mine.sha256]


def test_a_damaged_store_is_reported_not_served(workspace, tmp_path):
    dataset = workspace.add_dataset(b"score,label\n0.5,1\n0.2,0\n", workspace.identity())
    (tmp_path / "datasets" / dataset.sha256[:2] / dataset.sha256).write_bytes(b"score,label\n0.9,1\n0.2,0\n")
    with pytest.raises(InputError, match="no longer match their SHA-256"):
        workspace.dataset_bytes(dataset.sha256, workspace.identity())


def test_a_store_behind_an_fsspec_url(tmp_path):
    settings = Settings(f"sqlite:///{tmp_path / 'w.db'}", f"memory://ws-test-{id(tmp_path)}/d", 2**20)
    with Workspace(settings) as ws:
        dataset = ws.add_dataset(b"score,label\n0.5,1\n", ws.identity())
        assert ws.dataset_bytes(dataset.sha256, ws.identity()) == b"score,label\n0.5,1\n"


SETTINGS = {"target": 0.3, "classifiers": ["score_text", "score_image"], "nested": {"a": [1, 2.5, None, True]}}


def test_a_view_is_saved_once_and_reopened_exactly(workspace):
    me = workspace.identity()
    a = workspace.add_dataset(sample_path("satimage_rated"), me).sha256
    b = workspace.add_dataset(sample_path("satimage_population"), me).sha256
    view = workspace.save_view("audit", {**SETTINGS, "edge": math.inf}, [b, a], me)
    assert view.link == f"https://studio.example.org/audit?view={view.id}"
    assert workspace.save_view("audit", {**SETTINGS, "edge": math.inf}, [b, a], me).id == view.id
    assert workspace.save_view("audit", SETTINGS, [a, b], me).id != view.id  # the datasets' order matters
    again = workspace.view(view.id, me)
    assert again == view and again.settings == {**SETTINGS, "edge": math.inf} and again.datasets == (b, a)
    assert workspace.info()["views"] == 2


def test_views_refuse_what_they_must(workspace):
    people = team(workspace, ana="analyst", bob="analyst", vic="viewer")
    shared = workspace.add_dataset(sample_path("satimage_rated"), people["ana"]).sha256
    private = workspace.add_dataset(sample_path("satimage_population"), people["ana"], private=True).sha256
    on_private = workspace.save_view("audit", {}, [private], people["ana"])
    private_view = workspace.save_view("audit", {}, [shared], people["ana"], private=True)
    open_view = workspace.save_view("audit", {}, [shared], people["ana"])
    assert workspace.view(open_view.id, people["vic"]) == open_view
    with pytest.raises(AccessError, match="private to the people who added it"):
        workspace.view(on_private.id, people["bob"])
    with pytest.raises(AccessError, match=f"view {private_view.id} is private to its owner"):
        workspace.view(private_view.id, people["bob"])
    with pytest.raises(AccessError, match="only analysts and admins can save views"):
        workspace.save_view("audit", {}, [shared], people["vic"])
    with pytest.raises(InputError, match="There is no page 'nowhere'"):
        workspace.save_view("nowhere", {}, [shared], people["ana"])
    with pytest.raises(InputError, match="holds a set"):
        workspace.save_view("audit", {"x": {1, 2}}, [shared], people["ana"])
    with pytest.raises(InputError, match="there is no view 999"):
        workspace.view(999, people["ana"])
    with pytest.raises(InputError, match="'abc' is not a view number"):
        workspace.view("abc", people["ana"])
    with pytest.raises(AccessError, match="has no role"):
        workspace.view(open_view.id, workspace.identity("stranger@example.org"))


def test_records_are_stored_once_found_by_kind_and_key_and_follow_their_dataset(workspace):
    people = team(workspace, ana="analyst", bob="approver")
    shared = workspace.add_dataset(sample_path("satimage_rated"), people["ana"]).sha256
    private = workspace.add_dataset(sample_path("satimage_population"), people["ana"], private=True).sha256
    design = {"rows_digest": "ab" * 32, "strata": [{"lower": 0.0, "upper": 0.9, "sample": 30}], "seed": 4}
    first = workspace.add_record("audit_design", "ab" * 32, design, people["ana"], dataset_sha256=shared)
    assert workspace.add_record("audit_design", "ab" * 32, design, people["ana"], dataset_sha256=shared) == first
    hidden = workspace.add_record("audit_design", "cd" * 32, design, people["ana"], dataset_sha256=private)
    assert (
        first.body == design
        and first.sha256
        == hashlib.sha256(
            b'{"rows_digest":"' + b"ab" * 32 + b'","seed":4,"strata":[{"lower":0.0,"sample":30,"upper":0.9}]}'
        ).hexdigest()
    )
    assert [r.id for r in workspace.records(people["ana"], kind="audit_design")] == [hidden.id, first.id]
    assert workspace.records(people["bob"], kind="audit_design") == [first]
    assert workspace.records(people["bob"], key="cd" * 32) == []
    with pytest.raises(InputError, match="record kind 'Audit Design'"):
        workspace.add_record("Audit Design", "k", {}, people["ana"])


def test_grants_revocations_and_the_two_modes(workspace):
    assert workspace.identity("ana@example.org").single_user
    assert workspace.identity().roles == frozenset(ROLES) and workspace.identity().name == "local"
    user = workspace.grant("Ana@Example.org", "analyst", OPERATOR)
    assert (user.email, user.roles, user.granted_by) == ("ana@example.org", ("analyst",), "ops")
    workspace.grant("ana@example.org", "approver", OPERATOR)
    workspace.grant("ana@example.org", "approver", OPERATOR)  # kept, not doubled
    assert [(u.email, u.roles) for u in workspace.users()] == [("ana@example.org", ("analyst", "approver"))]
    ana = workspace.identity("ana@example.org")
    assert ana.roles == {"analyst", "approver"} and not ana.single_user
    assert workspace.identity().roles == frozenset()  # team mode: "local" holds what it is granted
    assert workspace.revoke("ana@example.org", "analyst", OPERATOR) == ["analyst"]
    with pytest.raises(InputError, match="has no role 'analyst' to revoke"):
        workspace.revoke("ana@example.org", "analyst", OPERATOR)
    with pytest.raises(InputError, match="unknown role 'boss'"):
        workspace.grant("ana@example.org", "boss", OPERATOR)
    with pytest.raises(AccessError, match="only admins can manage grants"):
        workspace.grant("bob@example.org", "admin", ana)
    assert workspace.revoke("ana@example.org", None, OPERATOR) == ["approver"]
    assert workspace.users() == [] and workspace.identity("ana@example.org").single_user
    # a dashboard with logins is in team mode whatever the grants: revoking every grant gives nobody every role
    assert workspace.identity("ana@example.org", team=True) == Identity("ana@example.org", frozenset())


def test_info_names_the_database_without_its_password(postgres_server, tmp_path):
    url = postgres_server.url(postgres_server.create_database(), password="s3cret")
    with Workspace(Settings(url, str(tmp_path / "d"))) as ws:
        info = ws.info()
    assert list(info) == ["database", "schema_version", "datasets", "views", "decisions"]
    assert "s3cret" not in info["database"] and ":***@127.0.0.1" in info["database"]
    assert info["schema_version"] == "0002"


def _deep(levels: int):
    value: object = 1
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda ws, me, sha: ws.save_view("audit", {"x": _deep(80)}, [sha], me), "nested deeper than 64 levels"),
        (lambda ws, me, sha: ws.save_view("audit", {"x": "y" * (5 * 2**20)}, [sha], me), "at most 4 MB is stored"),
        (lambda ws, me, sha: ws.save_view("audit", {1: 2}, [sha], me), "has a key 1 that is not text"),
        (
            lambda ws, me, sha: ws.propose(
                me, kind="batch_rule", classifier="p", threshold=1, datasets=[sha], note="n" * 10_001
            ),
            "the note must be text of at most 10,000",
        ),  # fmt: skip
        (lambda ws, me, sha: ws.add_record("audit_design", "k" * 129, {}, me), "key is text of 1 to 128"),
        (lambda ws, me, sha: ws.add_record("x", "k", {"a": float}, me), "holds a type"),
        (lambda ws, me, sha: ws.decision("1e9", me), "'1e9' is not a decision number"),
        (lambda ws, me, sha: ws.act(1, "approve; drop table events", me), "unknown action"),
        (lambda ws, me, sha: ws.dataset("../../etc/passwd", me), "is not a dataset's SHA-256"),
    ],
)
def test_hostile_values_are_refused_with_a_message(tmp_path, call, message):
    with Workspace(Settings(f"sqlite:///{tmp_path / 'w.db'}", str(tmp_path / "d"))) as ws:
        me = ws.identity()
        sha = ws.add_dataset(sample_path("satimage_rated"), me).sha256
        with pytest.raises(InputError, match=message):
            call(ws, me, sha)
        assert (ws.info()["views"], ws.info()["decisions"], ws.verify().records) == (0, 0, 0)
