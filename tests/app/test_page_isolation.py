"""Pages never write another page's inputs: every page visited in every order keeps every other page's selection.

With an upload present, each page's first visit chooses its own input (the Data page's newest of the kind, else its
preferred sample) and nothing a later visit to another page does changes it: checked over a walk that takes every
ordered pair of pages (an Euler circuit of the complete directed graph on the pages), over every order of a
representative subset in fresh sessions (the choices equal those of each page opened alone), and on the
Operating point page's own numbers before and after Below the line (which once switched the session's rated data
to the shipped audit's 56 rows).
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from engine.pages import PAGES
from tests.app.conftest import shown, upload_input

#: the early-exit page on an input of the Data page (a score matrix) rather than its built-in model
QUERY = {"qwyc_source": "A score matrix from the Data page"}
#: pages in every order in fresh sessions: the readers of rated data (the shared kind) and the Data page
SUBSET = ("operating-point", "ensemble-paths", "audit", "data")


def script(url_path: str) -> str:
    return next(p.script for p in PAGES if p.url_path == url_path)


def rated_upload() -> bytes:
    rng = np.random.default_rng(3)
    n = 600
    y = rng.random(n) < 0.2
    frame = pd.DataFrame(
        {
            "doc_id": np.arange(n),
            "model_a": np.round(rng.random(n) * 0.7 + 0.3 * y, 4),
            "model_b": np.round(rng.random(n) * 0.6 + 0.4 * y, 4),
            "label": y.astype(int),
            "region": rng.choice(["north", "south"], n),
        }
    )
    return frame.to_csv(index=False).encode()


def matrix_upload() -> bytes:
    rng = np.random.default_rng(4)
    f = np.round(rng.normal(size=(200, 6)), 4)
    rows = [",".join(map(str, r)) + f",{int(r.sum() > 0)},{'fit' if i % 3 else 'test'}" for i, r in enumerate(f)]
    return ("\n".join(["t0,t1,t2,t3,t4,t5,label,split", *rows]) + "\n").encode()


def with_upload(app):
    """A session with two uploads: rated data (3 pages read it) and a score matrix (the early-exit page has no
    sample of that kind: without an upload it would choose nothing)."""
    at = upload_input(app(query=QUERY), "matrix.csv", matrix_upload(), kind="score_matrix")
    return upload_input(at, "mine.csv", rated_upload(), kind="rated")


def selections(at) -> dict:
    """(page, kind) -> (SHA-256, name) of the input that page uses."""
    return dict(at.session_state["_selected_inputs"]) if "_selected_inputs" in at.session_state else {}


def visit(at, url_path: str):
    at.switch_page(script(url_path)).run()
    assert not at.exception, (url_path, [e.value for e in at.exception])
    return at


def sidebar_names(at) -> str:
    return shown(at.sidebar.markdown)


def euler_circuit(nodes: list[str]) -> list[str]:
    """A walk through every ordered pair (a, b), a != b, once (Hierholzer on the complete directed graph)."""
    left = {a: [b for b in nodes if b != a] for a in nodes}
    stack, walk = [nodes[0]], []
    while stack:
        if left[stack[-1]]:
            stack.append(left[stack[-1]].pop())
        else:
            walk.append(stack.pop())
    return walk[::-1]


def test_the_walk_takes_every_ordered_pair_once():
    nodes = [p.url_path for p in PAGES]
    walk = euler_circuit(nodes)
    pairs = list(zip(walk, walk[1:]))
    assert len(pairs) == len(set(pairs)) == len(nodes) * (len(nodes) - 1)


@pytest.fixture(scope="module")
def alone():
    """Each page's selection when it is the first page opened after the upload (what every order must give)."""
    return {}


def test_every_pair_of_pages_in_turn_leaves_the_other_pages_selections_alone(app):
    at = with_upload(app)
    walk = euler_circuit([p.url_path for p in PAGES])
    seen: dict = {}
    for url_path in walk:
        before = selections(at)
        visit(at, url_path)
        after = selections(at)
        for key, name in before.items():  # nobody's choice changed, this page's own included
            assert after.get(key) == name, f"visiting {url_path} changed {key}: {name} -> {after.get(key)}"
        for (page, _kind), (_sha, name) in after.items():
            if page == url_path:
                assert name in sidebar_names(at), (url_path, name)  # the sidebar names this page's data
        assert set(after) - set(before) <= {k for k in after if k[0] == url_path}  # only its own first choices
        seen.update(after)
    assert {page for page, _ in seen} == {p.url_path for p in PAGES if p.input_kinds}  # every reader was checked
    assert seen[("operating-point", "rated")][1] == "mine.csv"  # the upload: the Data page's newest rated data
    assert seen[("early-exit", "score_matrix")][1] == "matrix.csv"


@pytest.mark.parametrize("order", list(itertools.permutations(SUBSET)), ids="-".join)
def test_every_order_gives_each_page_the_choice_it_makes_alone(app, alone, order):
    at = with_upload(app)
    for url_path in order:
        visit(at, url_path)
    got = selections(at)
    for url_path in order:
        if url_path not in alone:
            alone[url_path] = {
                k: v for k, v in selections(visit(with_upload(app), url_path)).items() if k[0] == url_path
            }
        assert {k: v for k, v in got.items() if k[0] == url_path} == alone[url_path], url_path
    assert got[("audit", "rated")][1] == "mine.csv" and got[("audit", "audit")][1] == "satimage_audit.csv"


def test_the_operating_point_page_shows_the_same_data_and_numbers_after_below_the_line(app):
    at = visit(app(), "operating-point")
    numbers = {m.label: m.value for m in at.main.metric}
    side = {m.label: m.value for m in at.sidebar.metric}
    assert "synthetic_rare_events.csv.gz" in sidebar_names(at) and side["Rated rows"] == "19,770"
    visit(at, "audit")  # it opens with the shipped audit and that audit's 56 rated rows
    assert "satimage_rated.csv.gz" in sidebar_names(at)
    visit(at, "operating-point")
    assert {m.label: m.value for m in at.main.metric} == numbers
    assert {m.label: m.value for m in at.sidebar.metric} == side
    assert "satimage" not in sidebar_names(at)
