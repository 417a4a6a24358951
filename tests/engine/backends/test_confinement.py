"""Connections confined for real: globs walked by us within limits, files checked at every scan, DuckDB locked.

Issue 21: a DuckDB database holding a view over ``read_csv('/etc/passwd')`` showed its rows, a hidden
link was read by a glob, a file replaced by a link after connecting was scanned, messages told an
existing outside file from a missing one, a recursive glob over a link loop hung; a CSV whose last
row has an extra field was read as 1 row of ``column0``.
"""

import glob
import os

import duckdb
import numpy as np
import pandas as pd
import pytest

from engine.audit import plan
from engine.backends import _confine as confine
from engine.backends import connect, map_columns, open_population, pn_hull
from engine.backends._confine import checked_files, matched_files
from engine.backends._counted import counted_points
from engine.backends._duckdb import DuckSource
from engine.backends._duckdb_monitor import duckdb_period_counts
from engine.errors import InputError
from engine.io import load_rated


def rated(n=40, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"score": rng.random(n).round(4), "label": rng.integers(0, 2, n)})


@pytest.fixture
def lake(tmp_path):
    """A root ``lake`` with rows, and a folder ``private`` beside it holding a secret."""
    inside, outside = tmp_path / "lake", tmp_path / "private"
    inside.mkdir()
    outside.mkdir()
    rated(30, 1).to_parquet(inside / "a.parquet")
    rated(30, 2).to_parquet(outside / "secret.parquet")
    (outside / "secret.csv").write_text("score,label\n0.123456,1\n")
    return inside, outside


# --- the glob walk -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "pattern",
    [
        "*.csv",
        "*/*.csv",
        "**/*.csv",
        "**",
        "a/**/*.csv",
        "[ab]/?.csv",
        "a/*/c.csv",
        "a/b/*.csv",
        ".*.csv",
        "a/.*/*.csv",
        "**/x*.csv",
    ],
)
def test_the_walk_matches_python_glob(tmp_path, pattern):
    for rel in [
        "x.csv",
        ".h.csv",
        "a/x.csv",
        "a/b/c.csv",
        "a/b/xd.csv",
        "a/.hid/x.csv",
        "b/y.csv",
        "b/z.txt",
        "a/b/e/f/g.csv",
    ]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("score,label\n0.5,1\n")
    full = str(tmp_path / pattern)
    expected = sorted(f for f in glob.glob(full, recursive=True) if os.path.isfile(f))  # the oracle
    if not expected:
        with pytest.raises(InputError, match="No file matches the glob"):
            matched_files(full)
        return
    assert [shown for shown, _ in matched_files(full)] == expected


def test_a_link_loop_ends_with_an_input_error(tmp_path):
    (tmp_path / "lake" / "deep").mkdir(parents=True)
    (tmp_path / "lake" / "deep" / "a.csv").write_text("score,label\n0.5,1\n")
    os.symlink(tmp_path / "lake", tmp_path / "lake" / "deep" / "back")
    with pytest.raises(InputError, match="links back to one of its parents.*deep/back"):
        matched_files(str(tmp_path / "lake" / "**" / "*.csv"))
    with pytest.raises(InputError, match="links back"):
        connect(str(tmp_path / "lake" / "**" / "*.csv"), roots=[str(tmp_path / "lake")])


def test_glob_limits_files_depth_and_entries(tmp_path, monkeypatch):
    deep = tmp_path / "lake" / "1" / "2" / "3" / "4"
    deep.mkdir(parents=True)
    for i in range(6):
        (tmp_path / "lake" / f"f{i}.csv").write_text("score,label\n0.5,1\n")
    (deep / "x.csv").write_text("score,label\n0.5,1\n")
    monkeypatch.setattr(confine, "MAX_GLOB_FILES", 5)
    with pytest.raises(InputError, match="matches more than 5 files"):
        matched_files(str(tmp_path / "lake" / "*.csv"))
    monkeypatch.setattr(confine, "MAX_GLOB_DEPTH", 3)
    with pytest.raises(InputError, match="more than 3 folder levels"):
        matched_files(str(tmp_path / "lake" / "**" / "x.csv"))
    monkeypatch.setattr(confine, "MAX_GLOB_DEPTH", 32)
    monkeypatch.setattr(confine, "MAX_GLOB_ENTRIES", 4)
    with pytest.raises(InputError, match="more than 4 folder entries"):
        matched_files(str(tmp_path / "lake" / "**" / "x.csv"))


def test_duckdb_reads_only_the_checked_files_not_the_pattern(lake):
    inside, outside = lake
    os.symlink(outside / "secret.parquet", inside / ".hidden.parquet")  # DuckDB's own glob would read it
    source = DuckSource(str(inside / "*.parquet"), roots=(str(inside),))
    assert source.files() == (str((inside / "a.parquet").resolve()),)
    assert "*" not in source.relation() and "hidden" not in source.relation()
    points, stats = counted_points(source, score="score", label="label", targets=[0.3])
    assert stats.rows_scanned == 30  # a.parquet only
    with pytest.raises(InputError, match="outside the folders"):
        DuckSource(str(inside / ".*.parquet"), roots=(str(inside),)).files()  # asked for: checked, refused


def test_the_connection_is_locked_to_the_checked_files(lake):
    inside, outside = lake
    con = DuckSource(str(inside / "a.parquet"), roots=(str(inside),)).connect()
    try:
        assert con.execute(f"SELECT count(*) FROM read_parquet('{(inside / 'a.parquet').resolve()}')").fetchone() == (
            30,
        )
        for sql in [
            f"SELECT * FROM read_parquet('{outside / 'secret.parquet'}')",
            "SELECT * FROM read_csv('/etc/passwd')",
            f"ATTACH '{outside / 'x.duckdb'}'",
            f"COPY (SELECT 1) TO '{inside / 'out.csv'}'",
        ]:
            with pytest.raises(duckdb.Error, match="Permission|disabled"):
                con.execute(sql)
        for sql in [
            "SET enable_external_access = true",
            "SET allowed_paths = ['/etc/passwd']",
            "RESET lock_configuration",
        ]:
            with pytest.raises(duckdb.Error, match="locked"):
                con.execute(sql)
    finally:
        con.close()


# --- databases whose views or macros read files --------------------------------------------------------------------


def _database(path, outside):
    gone = outside / "gone.csv"
    gone.write_text("a,b\n1,2\n")
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE ratings AS SELECT * FROM range(20) r(i), (SELECT 0.5 AS score, 1 AS label)")
    con.execute("CREATE VIEW mine AS SELECT i / 20.0 AS score, i % 2 AS label FROM ratings")
    con.execute(f"CREATE VIEW secret AS SELECT * FROM read_csv('{outside / 'secret.csv'}')")
    con.execute(f"CREATE VIEW missing AS SELECT * FROM read_csv('{gone}')")
    con.execute(f"CREATE MACRO peek() AS TABLE SELECT * FROM read_csv('{outside / 'secret.csv'}')")
    con.execute("CREATE VIEW through_macro AS SELECT * FROM peek()")
    con.close()
    gone.unlink()


def test_a_database_view_over_an_outside_file_is_refused_without_naming_it(lake):
    inside, outside = lake
    _database(inside / "r.duckdb", outside)
    roots = [str(inside)]
    assert connect(str(inside / "r.duckdb"), "mine", roots=roots).sample["label"].tolist()[:2] == [0, 1]
    messages = []
    for table in ("secret", "missing", "through_macro"):
        with pytest.raises(InputError) as err:
            connect(str(inside / "r.duckdb"), table, roots=roots)
        messages.append(str(err.value))
        assert "private" not in messages[-1] and "0.123456" not in messages[-1]
    assert messages[0] == messages[1] == messages[2]  # existing and missing outside files alike
    assert "may not read" in messages[0]
    with pytest.raises(InputError, match="may not read"):  # without roots (the CLI) too: only the database is read
        counted_points(DuckSource(str(inside / "r.duckdb"), "secret"), score="score", label="label", targets=[0.3])


def test_a_write_ahead_log_linked_out_of_the_roots_is_refused(lake):
    inside, outside = lake
    _database(inside / "r.duckdb", outside)
    os.symlink(outside / "secret.csv", str(inside / "r.duckdb") + ".wal")
    with pytest.raises(InputError, match="outside the folders"):
        connect(str(inside / "r.duckdb"), "mine", roots=[str(inside)])


# --- links, checked at every scan; messages ---------------------------------------------------------------------------


def test_a_file_replaced_by_a_link_after_connect_is_refused_at_the_scan(lake):
    inside, outside = lake
    data = map_columns(connect(str(inside / "a.parquet"), roots=[str(inside)]), ["score"], "label")
    os.replace(inside / "a.parquet", inside / "a.bak")
    os.symlink(outside / "secret.parquet", inside / "a.parquet")
    with pytest.raises(InputError, match="outside the folders"):
        pn_hull(data, "score")


def test_outside_paths_get_one_message_whether_they_exist_or_not(lake):
    inside, outside = lake
    os.symlink(outside / "secret.parquet", inside / "link.parquet")
    os.symlink(outside / "nothing.parquet", inside / "dangling.parquet")
    roots = [str(inside)]
    cases = {
        outside / "secret.parquet": outside / "nothing.parquet",
        inside / "link.parquet": inside / "dangling.parquet",
        inside / ".." / "private" / "secret.parquet": inside / ".." / "private" / "nothing.parquet",
    }
    for existing, missing in cases.items():
        with pytest.raises(InputError) as a:
            connect(str(existing), roots=roots)
        with pytest.raises(InputError) as b:
            connect(str(missing), roots=roots)
        assert str(a.value).replace(existing.name, "X") == str(b.value).replace(missing.name, "X")
        assert "outside the folders" in str(a.value)
    with pytest.raises(InputError) as err:
        connect(str(inside / "link.parquet"), roots=roots)
    assert "secret" not in str(err.value)  # the link's target is not named
    with pytest.raises(InputError) as err:
        connect(str(outside / "*.parquet"), roots=roots)
    assert "secret" not in str(err.value)  # nothing outside is listed


# --- strict CSV on the DuckDB path ------------------------------------------------------------------------------------


def _extra_field_csv(path):
    frame = rated(60, 3)
    path.write_text(frame.to_csv(index=False) + "0.5,1,extra\n")
    return path


def test_a_csv_row_with_an_extra_field_is_refused_naming_the_row_as_in_memory(tmp_path):
    path = _extra_field_csv(tmp_path / "extra.csv")
    with pytest.raises(InputError, match="has 3 fields"):
        load_rated(str(path))  # the in-memory loader
    with pytest.raises(InputError, match="line 62 .*has 3 fields where its header has 2"):
        connect(str(path))
    with pytest.raises(InputError, match="line 62 .*has 3 fields"):
        counted_points(DuckSource(str(path)), score="score", label="label", targets=[0.3])
    with pytest.raises(InputError, match="line 62 .*has 3 fields"):
        scan = open_population(str(path), id="score", score="score", backend="duckdb")
        plan(scan, below=0.3, budget=2, strata=1)


def test_a_bad_csv_row_past_the_sniffed_sample_is_refused_at_the_scan(tmp_path):
    n = 50_000
    frame = pd.DataFrame({"score": np.linspace(0, 1, n), "label": np.arange(n) % 2, "date": ["2026-01-01"] * n})
    path = tmp_path / "late.csv"
    path.write_text(frame.to_csv(index=False) + "0.5,1\n")
    with pytest.raises(InputError, match=f"line {n + 2:,} .*has 2 fields where its header has 3"):
        counted_points(DuckSource(str(path)), score="score", label="label", targets=[0.3])
    with pytest.raises(InputError, match=f"line {n + 2:,}"):
        duckdb_period_counts(DuckSource(str(path)), score="score", label="label", date="date", period="day")


def test_a_headerless_csv_is_refused_on_the_duckdb_path(tmp_path):
    path = tmp_path / "noheader.csv"
    path.write_text("0.9,1\n0.5,0\n0.3,1\n")
    with pytest.raises(InputError, match="no header row"):
        connect(str(path))


def test_checked_files_are_real_paths(lake):
    inside, _ = lake
    os.symlink(inside / "a.parquet", inside / "alias.parquet")
    assert checked_files(str(inside / "alias.parquet"), [str(inside)]) == (str((inside / "a.parquet").resolve()),)


def test_each_scan_reads_the_files_the_glob_matches_then(lake):
    inside, _ = lake
    source = DuckSource(str(inside / "*.parquet"), roots=(str(inside),))
    assert counted_points(source, score="score", label="label", targets=[0.3])[1].rows_scanned == 30
    rated(10, 5).to_parquet(inside / "b.parquet")
    assert counted_points(source, score="score", label="label", targets=[0.3])[1].rows_scanned == 40
    (inside / "a.parquet").unlink()
    assert counted_points(source, score="score", label="label", targets=[0.3])[1].rows_scanned == 10


@pytest.mark.parametrize("backend", ["memory", "duckdb"])
@pytest.mark.parametrize(
    "where",
    ["outside", "outside_missing", "dot_dot", "link", "folder_link", "glob_over_link", "glob_outside"],
)
def test_an_audit_population_is_read_only_inside_the_roots(lake, monkeypatch, backend, where):
    """Issue 33: `audit plan` read a population outside OPSTUDIO_DATA_ROOTS on both backends."""
    inside, outside = lake
    rated(30, 5).assign(doc=range(30)).to_csv(outside / "population.csv", index=False)
    os.symlink(outside / "population.csv", inside / "link.csv")
    os.symlink(outside, inside / "folder_link")
    paths = {
        "outside": outside / "population.csv",
        "outside_missing": outside / "nothing.csv",
        "dot_dot": inside / ".." / outside.name / "population.csv",
        "link": inside / "link.csv",
        "folder_link": inside / "folder_link" / "population.csv",
        "glob_over_link": inside / "*.csv",
        "glob_outside": outside / "*.csv",
    }
    monkeypatch.setenv("OPSTUDIO_DATA_ROOTS", str(inside))
    with pytest.raises(InputError, match="is outside the folders this dashboard may read"):
        plan(open_population(str(paths[where]), id="doc", score="score", backend=backend), below=0.5, budget=2)


def test_an_audit_population_inside_the_roots_and_the_shipped_samples_are_read(lake, monkeypatch):
    from engine.io import sample_path

    inside, _ = lake
    rated(30, 5).assign(doc=range(30)).to_csv(inside / "population.csv", index=False)
    monkeypatch.setenv("OPSTUDIO_DATA_ROOTS", str(inside))
    for backend in ("memory", "duckdb"):
        scan = open_population(str(inside / "population.csv"), id="doc", score="score", backend=backend)
        assert plan(scan, below=0.5, budget=4, strata=1).budget == 4
    shipped = open_population(str(sample_path("satimage_population")), id="doc_id", score="score")
    assert plan(shipped, below=0.9, budget=10, strata=1).below == 5747  # public data, shipped inside the package
