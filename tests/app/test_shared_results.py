"""Results of public data (shipped samples, the sample model and its fits, the paper's sweeps) are held once per
server, not once per session: each is an ``st.cache_resource`` of global scope or a ``views.state.server_memo``
(work that draws its own progress), keyed by what it is computed from and never by the session (issue 25).

The page scripts run when imported, so their decorators are read from the source.
"""

import ast
import threading
import time
from pathlib import Path

import pytest
from streamlit.runtime.caching.cache_type import CacheType

from views.inputs import samples_of_kind, shared_sample
from views.state import server_memo

ROOT = Path(__file__).resolve().parents[2]


def source(script: str) -> str:
    """A page script (pages/) or a shared dashboard module (views/) by file name."""
    path = ROOT / "pages" / script
    return (path if path.exists() else ROOT / "views" / script).read_text()


SHARED = {  # (script, function): what it holds
    ("inputs.py", "shared_sample"): "shipped samples",
    ("early_exit.py", "adult_model"): "the sample model's trees and their contributions",
    ("constraints.py", "shared_adult"): "Adult's design matrix",
    ("batch_decisions.py", "shared_split"): "a public data set's trained probabilities",
}


SERVER_MEMO = {  # (script, function): what it holds; computed with a progress bar of the computing session
    ("constraints.py", "shared_sweep"): "the paper's fairness and churn sweeps",
    ("early_exit.py", "shared_result"): "the sample model's fits, curves and comparisons",
}


def function(script: str, name: str) -> ast.FunctionDef:
    tree = ast.parse(source(script))
    return next(f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and f.name == name)


def decorators(script: str, name: str) -> list:
    tree = ast.parse(source(script))
    return next(f.decorator_list for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and f.name == name)


@pytest.mark.parametrize("script, name", SHARED)
def test_shared_results_are_cached_once_per_server(script, name):
    (deco,) = decorators(script, name)
    call = deco if isinstance(deco, ast.Call) else None
    assert ast.unparse(call.func if call else deco) == "st.cache_resource", (script, name)
    keywords = {k.arg: ast.literal_eval(k.value) for k in (call.keywords if call else [])}
    assert keywords.get("scope", "global") == "global" and "ttl" not in keywords, (script, name, keywords)
    # the session is never part of the key
    args = next(
        f.args for f in ast.walk(ast.parse(source(script))) if isinstance(f, ast.FunctionDef) and f.name == name
    )
    assert not any("session" in a.arg for a in args.args), (script, name)


def test_the_shared_sample_is_one_object_of_a_global_resource_cache():
    info = shared_sample._info
    assert info.cache_type is CacheType.RESOURCE and info.scope == "global" and info.ttl is None
    key = next(iter(samples_of_kind("rated")))
    assert shared_sample(key) is shared_sample(key)


@pytest.mark.parametrize("script, name", SERVER_MEMO)
def test_shared_work_with_progress_is_a_server_memo_keyed_without_the_session(script, name):
    f = function(script, name)
    calls = [ast.unparse(c.func) for c in ast.walk(f) if isinstance(c, ast.Call)]
    assert "server_memo" in calls and not f.decorator_list, (script, name)
    assert not any("session" in a.arg for a in f.args.args), (script, name)


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
