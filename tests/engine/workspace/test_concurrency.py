"""Two people acting on one decision at once: one event, and the other told who acted and when.

With real processes (the ``opstudio`` command line) on SQLite and PostgreSQL: the test holds the
database's write lock (SQLite ``BEGIN IMMEDIATE``; PostgreSQL the decision's row ``FOR UPDATE``),
starts two commands, waits until both are blocked on it, and lets go - so the two really act at
the same moment. And with two workspaces (two connection pools) in one process.
"""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from engine.workspace import AccessError, Workspace

from .conftest import wait_for
from .test_decisions import _propose
from .test_workspace import team

ROOT = Path(__file__).resolve().parents[3]


def _command(workspace, *argv: str) -> subprocess.Popen:
    env = {
        **os.environ,
        "OPSTUDIO_DATABASE_URL": workspace.settings.database_url,
        "OPSTUDIO_DATASETS": workspace.settings.datasets,
        "PYTHONPATH": str(ROOT),
    }
    return subprocess.Popen(
        [sys.executable, "-m", "engine.cli", *argv], cwd=ROOT, env=env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def _cpu(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


def _sleeping_on(path: str, proc: subprocess.Popen) -> bool:
    """The process has the database open and has used no CPU for half a second (waiting for the lock)."""
    try:
        fds = [os.readlink(f) for f in Path(f"/proc/{proc.pid}/fd").iterdir()]
    except OSError:
        return False
    if not any(f.startswith(path) for f in fds):
        return False
    before = _cpu(proc.pid)
    time.sleep(0.5)
    return _cpu(proc.pid) == before


@contextmanager
def _write_lock(workspace, decision_id: int):
    """Hold the lock a writer of ``decision_id`` needs; yields a function telling whether ``n`` writers wait."""
    url = workspace.engine.url
    if url.get_backend_name() == "sqlite":
        holder = sqlite3.connect(url.database, isolation_level=None, timeout=60)
        holder.execute("BEGIN IMMEDIATE")

        def waiting(procs):
            return all(_sleeping_on(url.database, p) for p in procs)
    else:
        import psycopg

        holder = psycopg.connect(f"host={url.host} port={url.port} user={url.username} dbname={url.database}")
        holder.execute("SELECT id FROM decisions WHERE id = %s FOR UPDATE", (decision_id,))

        def waiting(procs):
            with psycopg.connect(f"host={url.host} port={url.port} user={url.username} dbname={url.database}") as c:
                query = "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND wait_event_type = 'Lock'"
                return c.execute(query, (url.database,)).fetchone()[0] >= len(procs)

    try:
        yield waiting
    finally:
        if isinstance(holder, sqlite3.Connection):
            holder.execute("ROLLBACK")
        else:
            holder.rollback()
        holder.close()


@pytest.mark.parametrize("actions", [("approve", "approve"), ("approve", "reject")], ids="-".join)
def test_two_commands_at_once_give_one_event_and_name_the_winner(workspace, actions):
    people = team(workspace, ana="analyst", bob="approver", cy="approver")
    d = _propose(workspace, people["ana"])
    with _write_lock(workspace, d.id) as waiting:
        procs = [
            _command(workspace, "decisions", action, str(d.id), "--as", who, "--note", f"{who} says {action}")
            for action, who in zip(actions, ("bob@example.org", "cy@example.org"))
        ]
        assert wait_for(lambda: waiting(procs), timeout=120), "the commands never waited for the lock"
    outs = [p.communicate(timeout=120) for p in procs]
    codes = [p.returncode for p in procs]
    assert sorted(codes) == [0, 2], outs
    winner_out = outs[codes.index(0)][0]
    loser_err = outs[codes.index(2)][1]
    event, by, at = re.fullmatch(rf"decision {d.id} (\w+) by (\S+) at (\S+)\n", winner_out).groups()
    assert loser_err == (
        f"error: decision {d.id} is {event} (by {by} at {at}); only a proposed decision can be "
        f"{'approved' if actions[codes.index(2)] == 'approve' else 'rejected'}.\n"
    )
    history = workspace.decision(d.id, people["bob"]).history
    assert [(e.event, e.by, e.at) for e in history[1:]] == [(event, by, at)]
    assert workspace.verify().ok and workspace.verify().events == 2


def test_two_workspaces_in_one_process_give_one_event(settings):
    with Workspace(settings) as first, Workspace(settings) as second:
        people = team(first, ana="analyst", bob="approver", cy="approver")
        d = _propose(first, people["ana"])
        barrier, outcomes = threading.Barrier(2), []

        def act(ws, who):
            barrier.wait()
            try:
                outcomes.append(ws.act(d.id, "approve", ws.identity(who)).history[-1])
            except AccessError as exc:
                outcomes.append(str(exc))

        threads = [
            threading.Thread(target=act, args=(ws, who))
            for ws, who in ((first, "bob@example.org"), (second, "cy@example.org"))
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        events = [o for o in outcomes if not isinstance(o, str)]
        refusals = [o for o in outcomes if isinstance(o, str)]
        assert len(events) == 1 and len(refusals) == 1
        assert refusals[0].startswith(f"decision {d.id} is approved (by {events[0].by} at {events[0].at})")
        assert len(second.decision(d.id, people["bob"]).history) == 2


def test_first_adds_of_the_same_bytes_and_saves_of_the_same_view_at_once_give_one_of_each(settings):
    """Several writers of one new row: the database keeps one, the others run again and find it."""
    workspaces = [Workspace(settings) for _ in range(4)]
    try:
        raw = os.urandom(64).hex().encode() + b"\nscore,label\n0.5,1\n"
        barrier, results = threading.Barrier(4), []

        def add(ws, who):
            me = ws.identity(who)
            barrier.wait()
            dataset = ws.add_dataset(raw, me, name=who, kind="model_file")
            barrier.wait()
            results.append((dataset, ws.save_view("audit", {"x": 1}, [dataset.sha256], ws.identity("ana"))))

        threads = [threading.Thread(target=add, args=(ws, f"u{i}")) for i, ws in enumerate(workspaces)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert len(results) == 4 and len({d.sha256 for d, _ in results}) == 1 and len({v.id for _, v in results}) == 1
        final = workspaces[0].dataset(results[0][0].sha256, workspaces[0].identity())
        assert sorted(final.holders) == ["u0", "u1", "u2", "u3"] and final.owner in final.holders
        assert workspaces[0].info()["views"] == 1
    finally:
        for ws in workspaces:
            ws.close()
