"""Connecting to rated data on the server: path checks, schema and sample, guessed mapping, counts, errors."""

import os
import threading

import duckdb
import numpy as np
import pandas as pd
import pytest

from engine.backends import ScanProgress, connect, joint_grid, map_columns, pn_hull
from engine.errors import InputError
from engine.io import detect_columns
from engine.pn import operating_point, pn_curve, threshold_grid, upper_hull


def rated_frame(n: int = 3000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.08
    labels = np.where(y, "yes", "no").astype(object)
    labels[rng.random(n) < 0.05] = None
    return pd.DataFrame(
        {
            "doc_id": np.arange(n),
            "score_a": np.round(rng.random(n) * 0.7 + 0.3 * y, 3),
            "score_b": np.round(rng.random(n) * 0.8 + 0.2 * y, 3),
            "verdict": labels,
            "weight": rng.integers(1, 4, n).astype(float),
        }
    )


def memory(frame: pd.DataFrame):
    rated = frame["verdict"].notna().to_numpy()
    y = (frame["verdict"][rated] == "yes").to_numpy().astype(int)
    return frame[rated], y


@pytest.fixture
def parquet(tmp_path):
    frame = rated_frame()
    path = tmp_path / "rows.parquet"
    frame.to_parquet(path)
    return frame, str(path)


def test_connect_reads_schema_sample_and_guesses_with_the_upload_detection(parquet):
    frame, path = parquet
    c = connect(path)
    assert c.file_format == "Parquet" and c.files == (path,) and c.name == "rows.parquet"
    assert c.columns == list(frame.columns)
    assert dict(c.schema)["score_a"] == "DOUBLE" and len(c.sample) == 2000
    expected = detect_columns(frame.head(2000))
    assert c.guess.score_cols == expected.score_cols == ("score_a", "score_b")
    assert (c.guess.label_col, c.guess.weight_col, c.guess.group_col) == ("verdict", "weight", None)
    assert list(c.schema_table()["guessed role"]) == ["", "score", "score", "label", "weight"]
    assert len(c.fingerprint) == 64 and connect(path).fingerprint == c.fingerprint
    assert len(connect(path, sample_size=10).sample) == 10


def test_counts_equal_the_memory_engine(parquet):
    frame, path = parquet
    data = map_columns(connect(path), ["score_a", "score_b"], "verdict", "weight")
    rows, y = memory(frame)
    w = rows["weight"].to_numpy()
    assert (data.n_read, data.n_unrated, data.n_rated) == (3000, int(frame["verdict"].isna().sum()), len(rows))
    assert data.positives == float(w @ y) and data.n_classifiers == 2
    assert data.prevalence_among_rated == pytest.approx(w @ y / w.sum())
    assert data.summary()["rated_rows"] == len(rows) and data.summary()["backend"] == "duckdb"
    assert data.rating_floor[0] == rows["score_a"].min()
    hull, stats = pn_hull(data, "score_b")
    assert stats.rows_scanned == 3000 and stats.rated == len(rows)
    expected = upper_hull(pn_curve(rows["score_b"].to_numpy(), y, w))
    for target in (0.05, 0.3, 0.6):
        a, e = operating_point(target=target, hull=hull), operating_point(target=target, hull=expected)
        assert (a.threshold, a.tp, a.fp) == (e.threshold, e.tp, e.fp)
    grid, gstats = joint_grid(data, ["score_a", "score_b"], bins=20, rule="and")
    ref = threshold_grid(rows[["score_a", "score_b"]].to_numpy(), y, w, bins=20, rule="and")
    for a, e in zip(grid.axes, ref.axes):
        np.testing.assert_array_equal(a, e)
    np.testing.assert_array_equal(grid.tp, ref.tp)
    np.testing.assert_array_equal(grid.fp, ref.fp)
    assert gstats.rows_scanned == 3000


def test_csv_glob_and_duckdb_table(tmp_path):
    frame = rated_frame(900, seed=3)
    for part in range(3):
        frame.iloc[part::3].to_csv(tmp_path / f"part{part}.csv", index=False)
    c = connect(str(tmp_path / "part*.csv"))
    assert c.file_format == "CSV" and len(c.files) == 3 and c.name == f"{tmp_path.name}/part*.csv"
    assert map_columns(c, ["score_a"], "verdict").n_read == 900
    db = tmp_path / "ratings.duckdb"
    con = duckdb.connect(str(db))
    con.register("f", frame)
    con.execute("CREATE TABLE rated AS SELECT * FROM f")
    con.close()
    only = connect(str(db))  # the only table is taken
    assert only.source.table == "rated" and only.name == "ratings.duckdb:rated" and only.file_format == "DuckDB"
    data = map_columns(connect(str(db), "rated"), ["score_a"], "verdict", "weight")
    rows, y = memory(frame)
    hull, _ = pn_hull(data, "score_a")
    e = operating_point(rows["score_a"].to_numpy(), y, 0.3, rows["weight"].to_numpy())
    a = operating_point(target=0.3, hull=hull)
    assert (a.threshold, a.tp, a.fp) == (e.threshold, e.tp, e.fp)


@pytest.mark.parametrize(
    "path,table,message",
    [
        ("", None, "Give the path"),
        ("{tmp}/missing.parquet", None, "does not exist on the server"),
        ("{tmp}/none*.parquet", None, "No file matches the glob"),
        ("{tmp}", None, "is not a file this connection reads"),
        ("{tmp}/rows.xlsx", None, "is not a file this connection reads"),
        ("{tmp}/rows.parquet", "t", "Leave the table empty"),
        ("{tmp}/two.duckdb", None, "holds 2 tables; give the table"),
        ("{tmp}/two.duckdb", "nope", "No table 'nope' in the DuckDB database"),
        ("{tmp}/fake.duckdb", None, "could not be opened as a DuckDB database"),
        ("{tmp}/broken.parquet", None, "DuckDB could not read"),
    ],
)
def test_connect_errors_name_the_path_and_the_fix(tmp_path, path, table, message):
    rated_frame(50).to_parquet(tmp_path / "rows.parquet")
    (tmp_path / "rows.xlsx").write_bytes(b"x")
    (tmp_path / "fake.duckdb").write_bytes(b"not a database")
    (tmp_path / "broken.parquet").write_bytes(b"PAR1 broken")
    con = duckdb.connect(str(tmp_path / "two.duckdb"))
    con.execute("CREATE TABLE a (x INT)")
    con.execute("CREATE TABLE b (x INT)")
    con.close()
    with pytest.raises(InputError, match=message):
        connect(path.format(tmp=tmp_path), table)


def test_folder_and_unreadable_file(tmp_path):
    folder = tmp_path / "lake.parquet"
    folder.mkdir()
    with pytest.raises(InputError, match="is a folder"):
        connect(str(folder))
    path = tmp_path / "secret.parquet"
    rated_frame(20).to_parquet(path)
    os.chmod(path, 0)
    try:
        if os.access(path, os.R_OK):
            pytest.skip("running as root: every file is readable")
        with pytest.raises(InputError, match="permission denied"):
            connect(str(path))
    finally:
        os.chmod(path, 0o600)


def test_no_label_column_is_reported_not_raised_and_mapping_errors(tmp_path):
    path = tmp_path / "nolabel.parquet"
    pd.DataFrame({"s1": [0.1, 0.5, 0.9], "s2": [0.3, 0.2, 0.1], "note": ["a", "b", "c"]}).to_parquet(path)
    c = connect(str(path))
    assert c.guess is None and "No label column found" in c.guess_problem
    assert c.numeric_columns == ["s1", "s2"]
    with pytest.raises(InputError, match="Choose at least one score column"):
        map_columns(c, [], "note")
    with pytest.raises(InputError, match="The label column 'label' is not in 'nolabel.parquet'"):
        map_columns(c, ["s1"], "label")
    with pytest.raises(InputError, match="given two roles"):
        map_columns(c, ["s1"], "s1")
    with pytest.raises(InputError, match="Column 'note': unknown label values 'a', 'b', 'c' at rows 1, 2, 3 \\(row 1"):
        map_columns(c, ["s1"], "note")
    text_scores = tmp_path / "text.parquet"
    pd.DataFrame({"note": ["a", "0.5", "c"], "label": [1, 0, 1]}).to_parquet(text_scores)
    with pytest.raises(InputError, match="Score column 'note': non-numeric values 'a', 'c' at rows 1, 3 \\(row 1"):
        map_columns(connect(str(text_scores)), ["note"], "label")


def test_rows_that_do_not_validate(tmp_path):
    path = tmp_path / "bad.parquet"
    pd.DataFrame({"score": [0.1, np.inf, 0.4], "label": ["1", "0", None], "w": [1.0, 1.0, -1.0]}).to_parquet(path)
    c = connect(str(path))
    with pytest.raises(InputError, match="Score column 'score': infinite values at row 2 "):
        map_columns(c, ["score"], "label")
    path2 = tmp_path / "unrated.parquet"
    pd.DataFrame({"score": [0.1, 0.2], "label": [None, None]}).to_parquet(path2)
    with pytest.raises(InputError, match="no rated rows"):
        map_columns(connect(str(path2)), ["score"], "label")
    data = map_columns(connect(str(path)), ["w"], "label")  # any numeric column can be a score
    assert data.warnings and "1 rows have no label" in data.warnings[0]
    with pytest.raises(InputError, match="No classifier named 'score'"):
        pn_hull(data, "score")


def test_progress_follows_the_scan_from_another_thread(parquet):
    _, path = parquet
    c = connect(path)
    progress = ScanProgress()
    seen = []
    result = {}
    worker = threading.Thread(
        target=lambda: result.update(data=map_columns(c, ["score_a"], "verdict", progress=progress))
    )
    worker.start()
    while worker.is_alive():
        seen.append(progress.share())
        worker.join(0.001)
    assert result["data"].n_read == 3000 and progress.queries == 1
    assert all(0.0 <= s <= 1.0 for s in seen)
    hull, _ = pn_hull(result["data"], "score_a", progress=progress)
    assert progress.queries == 2 and progress.share() == 0.0  # its connection is closed


def test_roots_limit_what_can_be_read(tmp_path):
    inside, outside = tmp_path / "lake", tmp_path / "private"
    inside.mkdir()
    outside.mkdir()
    rated_frame(30).to_parquet(inside / "a.parquet")
    rated_frame(30).to_parquet(outside / "b.parquet")
    os.symlink(outside / "b.parquet", inside / "link.parquet")
    assert connect(str(inside / "a.parquet"), roots=[str(inside)]).name == "a.parquet"
    for path in (outside / "b.parquet", inside / "link.parquet", inside / ".." / "private" / "b.parquet"):
        with pytest.raises(InputError, match="outside the folders this dashboard may read"):
            connect(str(path), roots=[str(inside)])
    with pytest.raises(InputError, match="outside the folders"):
        connect(str(inside / "*.parquet"), roots=[str(inside)])  # the glob matches the link too
