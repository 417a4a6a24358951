"""Every hostile connection is refused with the project's own error, and nothing outside the root is shown.

The corpus (tests/fuzz/connection_corpus.py) is built in a temporary folder; each case goes through
the Data page's entry point (:func:`engine.backends.connect` with the allowed folder), the upload
corpus's text files go through the DuckDB path too, and the CLI reads the database views.
"""

import pytest

from engine.backends import connect, map_columns
from engine.cli import main
from engine.errors import InputError
from engine.io import load_rated
from tests.fuzz.connection_corpus import OUTSIDE, SECRET, build
from tests.fuzz.corpus import corpus


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build(tmp_path_factory.mktemp("connections"))


def _shows_nothing_outside(message: str, typed: str) -> None:
    rest = message.replace(typed, "")
    assert SECRET not in rest and OUTSIDE not in rest, message
    assert "Traceback" not in message and len(message) < 1200


def test_the_corpus_covers_the_connection_surface(built):
    assert len(built[1]) >= 25


def test_every_hostile_connection_is_refused_without_showing_what_lies_outside(built):
    lake, cases = built
    accepted = []
    for path, table, name in cases:
        try:
            connected = connect(path, table, roots=[str(lake)])
        except InputError as exc:
            _shows_nothing_outside(str(exc), path)
            continue
        accepted.append(name)
        assert SECRET not in connected.sample.to_string()
    assert not accepted, accepted


def test_what_lies_inside_is_read(built):
    lake, _ = built
    sql_named = next(p for p in lake.iterdir() if "SELECT" in p.name)
    for path, table in [
        (lake / "good.parquet", None),
        (lake / "good.csv", None),
        (sql_named, None),
        (lake / "views.duckdb", "ratings"),
        (lake / "db_link.duckdb", "ratings"),
    ]:
        connected = connect(str(path), table, roots=[str(lake)])
        data = map_columns(connected, ["score"], "label")
        assert data.n_rated == 20 and SECRET not in connected.sample.to_string()


def test_the_cli_refuses_database_views_over_files_in_one_line(built, capsys):
    lake, _ = built
    for view in ("passwd", "secret", "through_macro"):
        assert main(["sweep", str(lake / "views.duckdb"), "--table", view, "--backend", "duckdb"]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "may not read" in err
        _shows_nothing_outside(err, str(lake / "views.duckdb"))


TEXT_FILES = {name: raw for name, raw in corpus().items() if name.endswith((".csv", ".tsv", ".csv.gz"))}


@pytest.mark.parametrize("name", sorted(TEXT_FILES))
def test_the_upload_corpus_through_duckdb_gives_a_result_or_an_input_error(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(TEXT_FILES[name])
    try:
        connected = connect(str(path), roots=[str(tmp_path)])
        if connected.guess is not None:
            map_columns(connected, connected.guess.score_cols, connected.guess.label_col, connected.guess.weight_col)
    except InputError as exc:
        assert str(exc) and "Traceback" not in str(exc) and len(str(exc)) < 1200, (name, str(exc)[:300])


@pytest.mark.parametrize("name", ["ragged_short.csv", "ragged_long.csv", "headerless.csv"])
def test_files_memory_refuses_for_their_shape_duckdb_refuses_too(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(TEXT_FILES[name])
    with pytest.raises(InputError):
        load_rated(TEXT_FILES[name])
    with pytest.raises(InputError):
        connected = connect(str(path))
        map_columns(connected, ["score"], "label")
