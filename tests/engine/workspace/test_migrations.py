"""Migrations: a database made by the first schema revision (0001) is upgraded with its rows intact; the models
match the migrated schema; downgrades work; several processes creating the database at once migrate it once."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from engine.errors import InputError
from engine.io import sample_path
from engine.workspace import Decision, Event, Workspace
from engine.workspace._database import _alembic_config, connect, head_revision, upgrade_to
from engine.workspace._models import Base

from .test_concurrency import _command
from .test_decisions import _canon, oracle_chain, oracle_content_hash

T0, T1, T2 = "2025-01-02T03:04:05.000001Z", "2025-01-02T03:05:00.000000Z", "2025-01-03T09:00:00.500000Z"


def _first_schema_rows(url: str, store, raw: bytes) -> tuple[str, Decision]:
    """A revision-0001 database holding one dataset, one view and one approved decision (hashes by the oracle)."""
    import hashlib
    import io

    engine = connect(url)
    assert upgrade_to(engine, "0001") == (None, "0001")
    sha = hashlib.sha256(raw).hexdigest()
    store.put(io.BytesIO(raw), "rated.csv")
    d = Decision(1, "old", "operating_point", "approved", "score_text", 0.52, 0.3, 361.0, 321.0, {"rated": 19770},
                 (sha,), {"view": 1}, "from 2025", "ana@example.org", T0)  # fmt: skip
    content = oracle_content_hash(d)
    events = [Event(1, 1, "proposed", "ana@example.org", T0, "from 2025", content, "", ""),
              Event(1, 2, "approved", "bob@example.org", T1, "ok", content, "", "")]  # fmt: skip
    hashes = oracle_chain(Decision(**{**d.__dict__, "history": tuple(events)}))
    with engine.begin() as c:
        c.execute(text("INSERT INTO datasets VALUES (:s, 'rated.csv', 'rated', 19847, :n, 'ana@example.org', :t)"),
                  {"s": sha, "n": len(raw), "t": T0})  # fmt: skip
        c.execute(
            text("INSERT INTO views (id, sha256, page, settings, owner, created_at) VALUES "
                 "(1, :h, 'operating-point', :settings, 'ana@example.org', :t)"),
            {"h": "9" * 64, "t": T0, "settings": '{"target":0.3}'},
        )  # fmt: skip
        c.execute(text("INSERT INTO view_datasets VALUES (1, 0, :s)"), {"s": sha})
        c.execute(
            text("INSERT INTO decisions VALUES (1, 'operating_point', 'old', 'score_text', '0.52', 0.3, 361.0, 321.0, "
                 ":settings, :evidence, 'from 2025', 'ana@example.org', :t, 'approved')"),
            {"settings": _canon(d.settings), "evidence": _canon(d.evidence), "t": T0},
        )  # fmt: skip
        c.execute(text("INSERT INTO decision_datasets VALUES (1, 0, :s)"), {"s": sha})
        prev = "0" * 64
        for e, h in zip(events, hashes):
            c.execute(text('INSERT INTO events (decision_id, seq, event, "by", at, note, content_hash, prev_hash, hash) '
                           "VALUES (1, :seq, :event, :by, :at, :note, :content, :prev, :hash)"),
                      {"seq": e.seq, "event": e.event, "by": e.by, "at": e.at, "note": e.note, "content": content,
                       "prev": prev, "hash": h})  # fmt: skip
            prev = h
    engine.dispose()
    return sha, d


def test_a_database_of_the_first_schema_is_upgraded_with_its_rows(settings):
    from engine.workspace._store import DatasetStore

    raw = sample_path("synthetic").read_bytes()
    sha, old = _first_schema_rows(settings.database_url, DatasetStore(settings.datasets, 2**30), raw)
    with Workspace(settings) as ws:
        assert (ws.schema_before, ws.schema_version) == ("0001", "0002") == ("0001", head_revision())
        me = ws.identity("ana@example.org")
        dataset = ws.dataset(sha, me)
        assert (dataset.private, dataset.holders, dataset.rows) == (False, ("ana@example.org",), 19847)
        assert ws.dataset_bytes(sha, me) == raw
        assert ws.view(1, me).settings == {"target": 0.3}
        decision = ws.decision(1, me)
        assert decision.content_hash == oracle_content_hash(old)
        assert [e.by for e in decision.history] == ["ana@example.org", "bob@example.org"]
        assert ws.verify().ok and ws.verify().events == 2
        assert ws.act(1, "deploy", ws.identity("bob@example.org"), "go").status == "deployed"
        assert ws.verify().ok
        with ws.engine.connect() as c, pytest.raises(DBAPIError, match="opstudio: "):
            c.exec_driver_sql("DELETE FROM events")
        assert ws.info() == {**ws.info(), "schema_version": "0002", "datasets": 1, "views": 1, "decisions": 1}


def test_the_models_match_the_migrated_schema(workspace):
    with workspace.engine.connect() as c:
        assert compare_metadata(MigrationContext.configure(c), Base.metadata) == []


def test_downgrading_to_the_first_revision_and_upgrading_again(workspace):
    engine = workspace.engine
    with engine.begin() as c:
        command.downgrade(_alembic_config(c), "0001")
    with engine.connect() as c:
        assert MigrationContext.configure(c).get_current_revision() == "0001"
    assert upgrade_to(engine) == ("0001", "0002")
    with engine.connect() as c:
        assert compare_metadata(MigrationContext.configure(c), Base.metadata) == []


def test_a_database_from_a_newer_studio_is_refused(workspace, settings):
    with workspace.engine.begin() as c:
        c.exec_driver_sql("UPDATE alembic_version SET version_num = '0099'")
    with pytest.raises(InputError, match="at schema revision 0099, newer than this studio knows"):
        Workspace(settings)


def test_several_processes_creating_the_workspace_at_once_migrate_it_once(settings, tmp_path):
    where = SimpleNamespace(settings=settings)  # what _command reads of a workspace
    procs = [_command(where, "workspace", "init") for _ in range(3)]
    outs = [p.communicate(timeout=180) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], outs
    firsts = [out.splitlines()[0] for out, _ in outs]
    assert (
        sorted(firsts)
        == ["created the workspace database at schema 0002"]
        + ["the workspace database is at the newest schema, 0002"] * 2
    )
    info = _command(where, "workspace", "info", "--json").communicate(timeout=120)[0]
    assert json.loads(info)["schema_version"] == "0002"
