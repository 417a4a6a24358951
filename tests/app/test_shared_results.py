"""Results of public data (shipped samples, the sample model and its fits, Adult's design, the paper's sweeps, a public
data set's probabilities) are held once per server, not once per session, in ONE byte-budgeted cache
(``views.state.SERVER_CACHE``, ``OPSTUDIO_CACHE_MB``): every one goes through ``views.state.server_memo``, keyed by
what it is computed from and never by the session; no page or view keeps a ``st.cache_resource`` / ``st.cache_data``,
whose caches have no byte budget (issue 37).

The page scripts run when imported, so they are read from the source.
"""

import ast
import threading
import time
from pathlib import Path

import pytest

from views import state
from views.inputs import samples_of_kind, shared_sample
from views.state import SERVER_CACHE, cache_budget_bytes, server_memo

ROOT = Path(__file__).resolve().parents[2]
SERVER_MEMO = {  # (file, function): what it holds
    ("views/inputs.py", "shared_sample"): "shipped samples",
    ("pages/early_exit.py", "adult_model"): "the sample model's trees and their contributions",
    ("pages/early_exit.py", "shared_result"): "the sample model's fits, curves and comparisons",
    ("pages/constraints.py", "shared_adult"): "Adult's design matrix",
    ("pages/constraints.py", "shared_sweep"): "the paper's fairness and churn sweeps",
    ("pages/batch_decisions.py", "shared_split"): "a public data set's trained probabilities",
}


def function(path: str, name: str) -> ast.FunctionDef:
    tree = ast.parse((ROOT / path).read_text())
    return next(f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and f.name == name)


def test_no_page_or_view_keeps_a_streamlit_cache_outside_the_budget():
    found = [
        f"{p.relative_to(ROOT)}: {ast.unparse(node)}"
        for p in [*(ROOT / "pages").glob("*.py"), *(ROOT / "views").rglob("*.py"), ROOT / "app.py"]
        for node in ast.walk(ast.parse(p.read_text()))
        if isinstance(node, ast.Attribute) and node.attr in ("cache_resource", "cache_data", "experimental_memo")
    ]
    assert not found, found


@pytest.mark.parametrize("path, name", SERVER_MEMO)
def test_shared_work_is_a_server_memo_keyed_without_the_session(path, name):
    f = function(path, name)
    calls = [ast.unparse(c.func) for c in ast.walk(f) if isinstance(c, ast.Call)]
    assert "server_memo" in calls and not f.decorator_list, (path, name)
    assert not any("session" in a.arg for a in f.args.args), (path, name)


def test_the_shared_sample_is_one_object_held_in_the_server_cache():
    key = next(iter(samples_of_kind("rated")))
    assert shared_sample(key) is shared_sample(key)
    assert ("sample", key) in SERVER_CACHE and SERVER_CACHE.nbytes <= SERVER_CACHE.budget_bytes


def test_a_server_memo_computes_once_while_sessions_wait_and_keeps_no_failure():
    calls = []

    def slow():
        calls.append(1)
        time.sleep(0.2)
        return object()

    key = ("test", "slow", time.time())
    results = [None] * 4
    threads = [threading.Thread(target=lambda i=i: results.__setitem__(i, server_memo(key, slow))) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and all(r is results[0] for r in results)

    failing = ("test", "fails", time.time())
    with pytest.raises(ZeroDivisionError):
        server_memo(failing, lambda: 1 / 0)
    assert server_memo(failing, lambda: "computed again") == "computed again"


def test_the_budget_comes_from_opstudio_cache_mb():
    assert cache_budget_bytes({}) == 512 * 2**20 == state.CACHE_MB * 2**20
    assert cache_budget_bytes({"OPSTUDIO_CACHE_MB": " 64 "}) == 64 * 2**20
    assert cache_budget_bytes({"OPSTUDIO_CACHE_MB": "0"}) == 0
    assert cache_budget_bytes({"OPSTUDIO_CACHE_MB": "0.5"}) == 2**19
    for bad in ("-1", "lots", "nan", "inf"):
        assert cache_budget_bytes({"OPSTUDIO_CACHE_MB": bad}) == 512 * 2**20, bad


def test_server_memo_drops_the_least_recently_used_results_over_the_budget(monkeypatch):
    small = state.ByteBudgetCache(3000)
    monkeypatch.setattr(state, "SERVER_CACHE", small)
    for i in range(5):
        server_memo(("test", "block", i), lambda: b"x" * 900)  # ~0.9 kB each
    held = [e.key[-1] for e in small.held()]
    assert held == [2, 3, 4] and small.nbytes <= 3000 and small.evictions == 2


# --- results of data every session may read: computed once per server (issue 34: 8 sessions, one copy) ---

#: what the scripts below computed, and the gate their background work waits at
CALLS: list = []
GATE = threading.Event()
RUN = [""]  # a token per test, so that no earlier test's result is found


def shared_script():
    import streamlit as st

    import views.state as state
    from tests.app.test_shared_results import CALLS, GATE, RUN

    shared, own = ("test hull", state.SERVER_WIDE, RUN[0]), ("test hull", RUN[0])
    hull = state.memo(shared, lambda: CALLS.append("shared hull") or ["hull"])
    mine = state.memo(own, lambda: CALLS.append("own hull") or ["own"])
    boot = state.background(
        (*shared, "boot"),
        lambda progress: CALLS.append("boot") or (GATE.wait(60) and ["replicates"]),
        label="Bootstrapping",
        work=10**12,
    )
    counted = state.scan((*shared, "scan"), lambda progress: CALLS.append("scan") or ["counts"], label="Counting")
    st.write(f"{id(hull)} {id(mine)} {boot and id(boot)} {id(counted)}")


def test_two_sessions_share_server_wide_results_and_keep_their_own_apart():
    from streamlit.testing.v1 import AppTest

    GATE.clear()
    CALLS.clear()
    RUN[0] = str(time.time())
    a = AppTest.from_function(shared_script, default_timeout=60).run()
    b = AppTest.from_function(shared_script, default_timeout=60).run()
    assert not a.exception and not b.exception
    hull_a, own_a, boot_a, scan_a = a.markdown[0].value.split()
    hull_b, own_b, boot_b, scan_b = b.markdown[0].value.split()
    assert hull_a == hull_b and scan_a == scan_b and own_a != own_b
    assert boot_a == boot_b == "None"  # both show the one job's progress
    assert sorted(CALLS) == ["boot", "own hull", "own hull", "scan", "shared hull"]
    GATE.set()
    for job in list(state._SERVER_JOBS.values()):
        job.future.result(timeout=60)
    a.run()
    b.run()
    assert a.markdown[0].value.split()[2] == b.markdown[0].value.split()[2] != "None"
    assert CALLS.count("boot") == 1 and not any(RUN[0] in k for k in state._SERVER_JOBS)
    for at in (a, b):  # the sessions keep only their own result
        kept = list(at.session_state["_memo"])
        assert ("test hull", RUN[0]) in kept and not any(state.server_wide(k) for k in kept)
    assert ("test hull", state.SERVER_WIDE, RUN[0], "boot") in SERVER_CACHE


def test_a_server_wide_result_heavier_than_the_budget_stays_in_the_session_and_is_not_recomputed(monkeypatch):
    from streamlit.testing.v1 import AppTest

    monkeypatch.setattr(state, "SERVER_CACHE", state.ByteBudgetCache(10))  # nothing fits
    RUN[0] = str(time.time())
    CALLS.clear()
    GATE.set()
    at = AppTest.from_function(shared_script, default_timeout=60).run()
    for job in list(state._SERVER_JOBS.values()):
        job.future.result(timeout=60)
    at.run()
    at.run()
    assert not at.exception and sorted(CALLS) == ["boot", "own hull", "scan", "shared hull"]
    assert at.markdown[0].value.split()[2] != "None" and len(state.SERVER_CACHE) == 0


@pytest.mark.parametrize(
    "source, shared", [("sample", True), ("workspace", True), ("upload", False), ("server", False)]
)
def test_an_inputs_results_are_the_servers_for_samples_and_workspace_datasets_only(source, shared):
    from views.session_input import SessionInput

    inp = SessionInput("r.csv", "rated", source, "ab" * 32, value=None, mapping=("score", "label"))
    assert state.server_wide(("hull", *inp.key, "score")) is shared
    assert inp.key[-2:] == ("ab" * 32, ("score", "label"))


def test_two_sessions_on_the_shipped_sample_hold_one_hull():
    from streamlit.testing.v1 import AppTest

    from tests.app.conftest import APP

    sessions = []
    for _ in range(2):
        at = AppTest.from_file(APP, default_timeout=120).run()
        at.switch_page("pages/operating_point.py").run()
        assert not at.exception and at.main.metric
        sessions.append(at)
    hulls = [k for k in (e.key for e in SERVER_CACHE.held()) if k[0] == "hull" and state.server_wide(k)]
    assert hulls  # the sample's hull is the server's ...
    for at in sessions:  # ... and no session holds one of its own
        kept = at.session_state["_memo"] if "_memo" in at.session_state else {}  # noqa: SIM401 no .get at the floor
        assert not [k for k in kept if k[0] in ("hull", "bootstrap", "pn_parts")]
    assert sessions[0].main.metric[0].value == sessions[1].main.metric[0].value


def test_a_datasets_results_are_released_once_the_last_session_reading_it_has_ended(monkeypatch):
    from streamlit.testing.v1 import AppTest

    from views.housekeeping import drop_session_state

    monkeypatch.setattr(state, "SERVER_CACHE", state.ByteBudgetCache(2**30))
    RUN[0] = str(time.time())
    CALLS.clear()
    GATE.set()
    sessions = [AppTest.from_function(shared_script, default_timeout=60).run()]
    for job in list(state._SERVER_JOBS.values()):
        job.future.result(timeout=60)
    for at in sessions:
        at.run()
    other = ("test hull", state.SERVER_WIDE, "another dataset")
    state.SERVER_CACHE.put(other, ["computed without a session"])  # bare mode: nobody reads it, nobody drops it
    ours = [e.key for e in state.SERVER_CACHE.held() if RUN[0] in e.key]
    assert len(ours) == 3  # hull, bootstrap, scan

    class Ended:  # what views.housekeeping hands over: a shut-down session, by its id
        def __init__(self, session_id):
            self.id = session_id

    readers = state._READERS[RUN[0]]
    assert len(readers) == 1  # AppTest gives every session the same id: a second tab is one more reader
    (first,) = readers
    second = "a second tab"
    readers.add(second)
    drop_session_state(Ended(first))
    assert state.release_unread() == 0 and all(k in state.SERVER_CACHE for k in ours)  # one still reads it
    drop_session_state(Ended(second))
    assert state.release_unread() == 3
    assert not any(k in state.SERVER_CACHE for k in ours) and other in state.SERVER_CACHE
    assert RUN[0] not in state._READERS
    again = AppTest.from_function(shared_script, default_timeout=60).run()  # the next session computes them again
    assert not again.exception and CALLS.count("shared hull") == 2
