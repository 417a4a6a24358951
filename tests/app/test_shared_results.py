"""Results of public data (shipped samples, the sample model and its fits, the paper's sweeps) are held once per
server, not once per session: each is an ``st.cache_resource`` of global scope, keyed by what it is computed from
and never by the session (issue 25).

The page scripts run when imported, so their decorators are read from the source.
"""

import ast
from pathlib import Path

import pytest
from streamlit.runtime.caching.cache_type import CacheType

from views.inputs import samples_of_kind, shared_sample

VIEWS = Path(__file__).resolve().parents[2] / "views"
SHARED = {  # (script, function): what it holds
    ("inputs.py", "shared_sample"): "shipped samples",
    ("early_exit.py", "adult_model"): "the sample model's trees and their contributions",
    ("early_exit.py", "shared_result"): "the sample model's fits, curves and comparisons",
    ("constraints.py", "shared_adult"): "Adult's design matrix",
    ("constraints.py", "shared_sweep"): "the paper's fairness and churn sweeps",
    ("batch_decisions.py", "shared_split"): "a public data set's trained probabilities",
}


def decorators(script: str, name: str) -> list:
    tree = ast.parse((VIEWS / script).read_text())
    return next(f.decorator_list for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and f.name == name)


@pytest.mark.parametrize("script, name", SHARED)
def test_shared_results_are_cached_once_per_server(script, name):
    (deco,) = decorators(script, name)
    call = deco if isinstance(deco, ast.Call) else None
    assert ast.unparse(call.func if call else deco) == "st.cache_resource", (script, name)
    keywords = {k.arg: ast.literal_eval(k.value) for k in (call.keywords if call else [])}
    assert keywords.get("scope", "global") == "global" and "ttl" not in keywords, (script, name, keywords)
    # the session is never part of the key
    args = next(f.args for f in ast.walk(ast.parse((VIEWS / script).read_text()))
                if isinstance(f, ast.FunctionDef) and f.name == name)
    assert not any("session" in a.arg for a in args.args), (script, name)


def test_the_shared_sample_is_one_object_of_a_global_resource_cache():
    info = shared_sample._info
    assert info.cache_type is CacheType.RESOURCE and info.scope == "global" and info.ttl is None
    key = next(iter(samples_of_kind("rated")))
    assert shared_sample(key) is shared_sample(key)
