"""Ensemble paths page: both methods, comparison table, settings in the URL, report."""

import json

import numpy as np
import pytest

from engine.io import load_rated, sample_path
from engine.pn import graph_path, path_operating_point, threshold_grid
from tests.app.conftest import by_quantity, download_buttons, number, shown, upload_input

PAGE = "pages/ensemble_paths.py"


def table(at, index=0):
    return at.dataframe[index].value


def estimated(column: dict, quantity: str) -> str:
    """A quantity's cell, whether or not its label says it is estimated (a path's interpolated counts are)."""
    return column.get(quantity, column.get(f"{quantity} (estimated)"))


def test_page_renders_both_methods(app):
    at = app(page=PAGE)
    assert len(at.get("plotly_chart")) == 2
    t = table(at)  # shown one quantity per row, a column per method: it fits the screen
    assert list(t.columns)[:3] == ["Quantity", "graph", "analytic-power"]
    assert "Threshold of score_image" in list(t["Quantity"]) and "None" not in t.to_numpy().ravel()
    labels = {m.label for m in at.metric}  # the decision: what the joint thresholds flag, not the runtimes
    assert {"True positives at the target", "Share of the frontier"} <= labels
    assert not any("runtime" in label.lower() for label in labels)
    assert any("runtimes" in e.label for e in at.expander)


def test_settings_from_the_url_and_graph_point_matches_engine(app):
    at = app(query={"rule": "AND", "bins": "40", "target": "0.4", "family": "spline"}, page=PAGE)
    assert at.radio(key="rule").value == "and" and at.slider(key="bins").value == 40
    data = load_rated(sample_path("synthetic"))
    grid = threshold_grid(data.scores, data.labels, bins=40, rule="and")
    op = path_operating_point(graph_path(grid), 0.4)
    graph = by_quantity(table(at))["graph"]
    np.testing.assert_allclose(
        [number(graph["Threshold of score_image"]), number(graph["Threshold of score_text"])], op.threshold, rtol=1e-5
    )
    assert (
        estimated(graph, "True positives") == f"{op.tp:,.0f}" and estimated(graph, "False positives") == f"{op.fp:,.0f}"
    )
    assert list(table(at).columns)[2] == "analytic-spline"


def test_bootstrap_toggle_adds_the_spread(app):
    at = app(page=PAGE)
    at.toggle(key="boot_paths").set_value(True).run()
    at.number_input(key="boot_paths_n").set_value(10).run()
    assert not at.exception
    assert len(at.dataframe) == 2
    spread = table(at, 1)
    assert "Threshold score_image" in list(spread["Quantity"])


def test_single_classifier_data_explains_what_is_needed(app):
    at = app(page="pages/data.py")
    at.radio(key="data_source").set_value("Upload a file").run()
    at.file_uploader(key="upload").set_value(("one.csv", b"score,label\n0.1,1\n0.4,0\n0.3,1\n", "text/csv")).run()
    at.switch_page(PAGE).run()
    assert not at.exception
    assert "two or more" in shown(at.info)


def test_report(app, served):
    at = app(page=PAGE)
    at.button(key="build_paths_report").click().run()
    buttons = download_buttons(at)
    record = json.loads(served(buttons["Download joint thresholds (JSON)"]))
    html = served(buttons["Download report (HTML)"]).decode()
    assert record["kind"] == "ensemble_paths" and record["settings"]["rule"] == "or"
    assert set(record["operating_points"]) == {"graph", "analytic-power", "best grid point"}
    assert "Joint thresholds report" in html and len(html) > 1_000_000


@pytest.mark.slow
def test_three_classifiers_show_a_slice(app):
    rng = np.random.default_rng(0)
    n = 3000
    y = (rng.random(n) < 0.05).astype(int)
    s = rng.normal(y[:, None] * np.array([1.5, 1.0, 0.8]), 1.0, size=(n, 3))
    csv = "a,b,c,label\n" + "\n".join(f"{r[0]:.4f},{r[1]:.4f},{r[2]:.4f},{label}" for r, label in zip(s, y))
    at = app(page="pages/data.py")
    at.radio(key="data_source").set_value("Upload a file").run()
    at.file_uploader(key="upload").set_value(("three.csv", csv.encode(), "text/csv")).run()
    at.switch_page(PAGE).run()
    at.multiselect(key="cols").set_value(["a", "b", "c"]).run()
    at.slider(key="bins").set_value(20).run()
    assert not at.exception
    assert at.slider(key="fix_2").value == 0  # slice through the third classifier's lowest threshold
    at.slider(key="fix_2").set_value(5).run()
    assert not at.exception
    t = table(at)
    assert {"Threshold of a", "Threshold of b", "Threshold of c"} <= set(t["Quantity"])
    assert len(at.get("plotly_chart")) == 2


def test_a_new_data_set_resets_the_classifier_selection(app):
    at = app(page=PAGE)
    assert at.multiselect(key="cols").value == ["score_image", "score_text"]
    at.switch_page("pages/data.py").run()
    at.radio(key="data_source").set_value("Upload a file").run()
    content = b"m1,m2,m3,label\n0.1,0.3,0.2,1\n0.2,0.1,0.5,0\n0.5,0.4,0.1,1\n0.3,0.2,0.9,0\n"
    at.file_uploader(key="upload").set_value(("x.csv", content, "text/csv")).run()
    at.switch_page(PAGE).run()  # the page keeps its own data until it is told
    assert at.multiselect(key="cols").value == ["score_image", "score_text"]
    at.selectbox(key="paths_rated").set_value("x.csv").run()
    assert not at.exception and not at.warning
    assert at.multiselect(key="cols").value == ["m1", "m2"]


def test_aggregated_counts(app, served):
    from engine.io import load_counts, sample_path

    content = sample_path("synthetic_counts").read_bytes()
    at = upload_input(app(), "counts.csv", content)
    assert not at.exception and not at.error
    assert next(s for s in at.selectbox if s.label == "Kind of input").value == "counts"  # guessed from tp, fp
    at.query_params["grid_source"] = "Aggregated counts (t1..tk, tp, fp)"
    at.switch_page(PAGE).run()
    assert not at.exception and not at.error
    grid = load_counts(content)
    op = path_operating_point(graph_path(grid), 0.3)
    graph = by_quantity(table(at))["graph"]
    np.testing.assert_allclose(
        [number(graph["Threshold of t1"]), number(graph["Threshold of t2"])], op.threshold, rtol=1e-5
    )
    assert at.get("toggle") == [] or all(t.key != "boot_paths" for t in at.get("toggle"))
    at.button(key="build_paths_report").click().run()
    record = json.loads(served(download_buttons(at)["Download joint thresholds (JSON)"]))
    assert record["dataset"]["name"] == "counts.csv" and record["settings"]["rule"] == "given"
    # the shipped counts sample is offered too
    assert "Synthetic rare events, aggregated counts (shipped sample)" in at.selectbox(key="counts_input").options


def test_bad_counts_upload_shows_the_message(app):
    at = upload_input(app(), "bad.csv", b"a,b\n1,2\n", kind="counts")
    assert not at.exception
    assert "not a valid counts table" in shown(at.error)


def test_a_one_threshold_counts_table_works_end_to_end(app):
    from tests.app.conftest import upload_input

    at = upload_input(app(), "one_d.csv", b"t1,tp,fp\n0.1,10,50\n0.5,6,20\n0.9,1,2\n", kind="counts")
    at.query_params["grid_source"] = "Aggregated counts (t1..tk, tp, fp)"
    at.switch_page("pages/ensemble_paths.py").run()
    assert not at.exception and not at.error
    assert len(at.get("plotly_chart")) == 2


def test_money_gives_the_graph_point_of_its_break_even_target_in_money(app):
    from engine.pn import Economics
    from engine.pn.display import money_statement

    at = app(query={"bins": "40"}, page=PAGE)
    at.toggle(key="paths_money").set_value(True).run()
    at.number_input(key="paths_review_cost").set_value(4.0).run()
    at.number_input(key="paths_value_per_positive").set_value(10.0).run()
    assert not at.exception
    e = Economics(4.0, 10.0)
    data = load_rated(sample_path("synthetic"))
    op = path_operating_point(graph_path(threshold_grid(data.scores, data.labels, bins=40, rule="or")), e.target)
    graph = by_quantity(table(at))["graph"]
    assert (
        estimated(graph, "True positives") == f"{op.tp:,.0f}" and estimated(graph, "False positives") == f"{op.fp:,.0f}"
    )
    statement = money_statement(op.tp, op.fp, e, marginal_precision=op.mp_above).sentence("$")
    assert statement in shown(at.markdown)
    at.button(key="record_paths").click().run()
    item = at.session_state["_decision_record"][-1]
    assert statement in f"{item.sentence} {item.details}" and item.provenance["settings"]["review_cost"] == 4.0
