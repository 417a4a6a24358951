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
