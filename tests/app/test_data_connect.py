"""Data page, Connect section: rows on the server counted by DuckDB for the Operating point and Ensemble paths pages."""

import duckdb  # noqa: F401 (a declared dependency: fails, never skips)
import numpy as np
import pandas as pd
import pytest

from engine.pn import graph_path, operating_point, path_operating_point, threshold_grid
from tests.app.conftest import DATA_PAGE, by_quantity, number, shown

OP_PAGE = "pages/operating_point.py"
PATHS_PAGE = "pages/ensemble_paths.py"


def rated_frame(n: int = 4000) -> pd.DataFrame:
    rng = np.random.default_rng(5)
    y = rng.random(n) < 0.06
    labels = np.where(y, "tp", "fp").astype(object)
    labels[rng.random(n) < 0.03] = None
    return pd.DataFrame(
        {
            "doc_id": np.arange(n),
            "score_image": np.round(rng.random(n) * 0.7 + 0.3 * y, 4),
            "score_text": np.round(rng.random(n) * 0.6 + 0.4 * y, 4),
            "label": labels,
        }
    )


def in_memory(frame: pd.DataFrame):
    rated = frame["label"].notna().to_numpy()
    return frame[rated], (frame["label"][rated] == "tp").to_numpy().astype(int)


def connect_to(at, path: str, table: str = ""):
    at.switch_page(DATA_PAGE).run()
    at.radio(key="data_source").set_value("Connect to data on the server").run()
    at.text_input(key="connect_path").set_value(path)
    at.text_input(key="connect_table").set_value(table)
    at.button(key="connect_button").click().run()
    assert not at.exception, at.exception
    return at


def use_columns(at):
    at.button(key="connect_use").click().run()
    assert not at.exception, at.exception
    return at


@pytest.fixture
def parquet(tmp_path):
    frame = rated_frame()
    path = tmp_path / "ratings.parquet"
    frame.to_parquet(path)
    return frame, str(path)


def test_connect_shows_schema_sample_mapping_and_becomes_the_data_set(app, parquet):
    frame, path = parquet
    at = connect_to(app(page=DATA_PAGE), path)
    assert "Connected to **ratings.parquet**" in shown(at.success)
    schema = at.dataframe[0].value
    assert list(schema["Column"]) == list(frame.columns) and list(schema["Guessed role"])[1:4] == [
        "score",
        "score",
        "label",
    ]
    assert len(at.dataframe[1].value) == 200  # the sample
    scores = next(m for m in at.multiselect if m.label.startswith("Score columns"))
    assert scores.value == ["score_image", "score_text"]
    use_columns(at)
    labels = {m.label: m.value for m in at.main.metric}
    rated, _ = in_memory(frame)
    assert labels["Rows scanned"] == "4,000" and labels["Rated rows"] == f"{len(rated):,}"
    assert "Seconds" in labels
    assert "on the server, counted by DuckDB" in shown(at.sidebar.markdown)
    assert {m.label: m.value for m in at.sidebar.metric}["Rated rows"] == f"{len(rated):,}"


@pytest.mark.parametrize("target", [0.1, 0.3, 0.6])
def test_operating_point_page_counts_with_duckdb_and_equals_the_memory_engine(app, parquet, target):
    frame, path = parquet
    at = use_columns(connect_to(app(page=DATA_PAGE), path))
    at.switch_page(OP_PAGE).run()
    assert not at.exception, at.exception
    at.selectbox(key="classifier").set_value("score_text").run()
    # DuckDB's scan ran in a status box (progress while it ran), collapsed when done
    assert [s.label.replace("\\", "").split(": done in")[0] for s in at.status] == [
        "Counting the PN curve of score_text with DuckDB over 4,000 rows"
    ]
    at.slider(key="target").set_value(target).run()
    assert not at.exception, at.exception
    rated, y = in_memory(frame)
    op = operating_point(rated["score_text"].to_numpy(), y, target)
    cards = {m.label: m.value for m in at.main.metric}
    assert cards["Threshold"] == (f"{op.threshold:.6g}" if np.isfinite(op.threshold) else "flag nothing")
    assert cards["True positives"] == f"{op.tp:,.6g}" and cards["False positives"] == f"{op.fp:,.6g}"
    assert "Counted by DuckDB over 4,000 rows" in shown(at.caption)
    assert "not computed on data counted on the server" in shown(at.info)  # segments


def test_ensemble_paths_page_for_two_classifiers(app, parquet):
    frame, path = parquet
    at = use_columns(connect_to(app(page=DATA_PAGE), path))
    at.switch_page(PATHS_PAGE).run()
    assert not at.exception, at.exception
    at.slider(key="bins").set_value(30).run()
    assert not at.exception, at.exception
    assert "Counted by DuckDB over 4,000 rows" in shown(at.caption)
    rated, y = in_memory(frame)
    grid = threshold_grid(rated[["score_image", "score_text"]].to_numpy(), y, bins=30, rule="or")
    op = path_operating_point(graph_path(grid), 0.3)
    graph = by_quantity(at.dataframe[0].value)["graph"]  # the comparison, one quantity per row
    np.testing.assert_allclose(
        [number(graph["Threshold of score_image"]), number(graph["Threshold of score_text"])], op.threshold, rtol=1e-5
    )
    tp = graph.get("True positives", graph.get("True positives (estimated)"))  # an analytic path's are interpolated
    fp = graph.get("False positives", graph.get("False positives (estimated)"))
    assert tp == f"{op.tp:,.0f}" and fp == f"{op.fp:,.0f}"
    assert len(at.get("plotly_chart")) == 2
    assert not any(t.key == "boot_paths" for t in at.toggle)  # the bootstrap needs rows in memory


def test_duckdb_table(app, tmp_path):

    frame = rated_frame(500)
    db = tmp_path / "lake.duckdb"
    con = duckdb.connect(str(db))
    con.register("f", frame)
    con.execute("CREATE TABLE ratings AS SELECT * FROM f")
    con.execute("CREATE TABLE other AS SELECT 1 AS x")
    con.close()
    at = connect_to(app(page=DATA_PAGE), str(db), "ratings")
    assert "Connected to **lake.duckdb:ratings**" in shown(at.success)
    use_columns(at)
    assert {m.label: m.value for m in at.main.metric}["Rows scanned"] == "500"


def test_errors_are_messages(app, tmp_path):
    at = app(page=DATA_PAGE)
    before = shown(at.sidebar.markdown)
    connect_to(at, str(tmp_path / "missing.parquet"))
    assert "does not exist on the server" in shown(at.error)
    db = tmp_path / "lake.duckdb"

    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE a AS SELECT 0.5 AS s, 1 AS label")
    con.close()
    connect_to(at, str(db), "ratings")
    assert "No table 'ratings' in the DuckDB database" in shown(at.error) and "a" in shown(at.error)
    path = tmp_path / "nolabel.parquet"
    pd.DataFrame({"s1": [0.1, 0.5, 0.9], "s2": [0.3, 0.2, 0.1], "note": ["x", "y", "z"]}).to_parquet(path)
    connect_to(at, str(path))
    assert "No label column found" in shown(at.warning)
    assert "Choose the label column" in shown(at.error)
    label = next(s for s in at.selectbox if s.label == "Label column")
    label.set_value("note").run()
    use_columns(at)
    assert "unknown label values" in shown(at.error)
    assert shown(at.sidebar.markdown) == before  # the data set in use is unchanged


def test_user_strings_are_escaped(app, tmp_path):
    evil = tmp_path / "[x](http:"
    evil.mkdir()
    at = connect_to(app(page=DATA_PAGE), str(evil / "y).parquet"))
    raw = " ".join(e.value for e in at.error)
    assert "](http" not in raw.replace("\\]\\(", "") and "\\[x\\]\\(http" in raw


def test_allowed_folders_from_the_environment(app, parquet, tmp_path, monkeypatch):
    _, path = parquet
    monkeypatch.setenv("OPSTUDIO_DATA_ROOTS", str(tmp_path / "elsewhere"))
    at = connect_to(app(page=DATA_PAGE), path)
    assert "outside the folders this dashboard may read" in shown(at.error)


def test_report_and_record_on_connected_data(app, parquet, served):
    import json

    from tests.app.conftest import download_buttons

    _, path = parquet
    at = use_columns(connect_to(app(page=DATA_PAGE), path))
    at.switch_page(OP_PAGE).run()
    at.button(key="build_op_report").click().run()
    assert not at.exception, at.exception
    record = json.loads(served(download_buttons(at)["Download operating point (JSON)"]))
    assert record["dataset"]["backend"] == "duckdb" and record["dataset"]["path"] == path
    assert record["dataset"]["rows_read"] == 4000
