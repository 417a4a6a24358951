"""Hashed Poisson bootstrap replicates: numpy and DuckDB draw the same counts, so the intervals agree exactly."""

from decimal import Decimal, getcontext

import duckdb
import numpy as np
import pandas as pd
import pytest

from engine.backends._counted import counted_bootstrap
from engine.backends._duckdb import DuckSource, poisson_sql
from engine.errors import InputError
from engine.pn._bootstrap import bootstrap
from engine.pn._replicates import POISSON1_THRESHOLDS, poisson_counts, replicate_key, row_hash


def test_poisson_table_is_the_poisson1_cdf_and_counts_look_poisson():
    getcontext().prec = 80
    cdf, term = Decimal(0), Decimal(-1).exp()
    for k, t in enumerate(POISSON1_THRESHOLDS):
        cdf += term
        term /= k + 1
        assert t == int((cdf * (1 << 64)).to_integral_value(rounding="ROUND_FLOOR"))
    counts = poisson_counts(np.arange(400_000), [0, 1, 2], seed=9)
    assert abs(counts.mean() - 1) < 0.005 and abs(counts.var() - 1) < 0.01
    assert abs((counts == 0).mean() - np.exp(-1)) < 0.003
    assert not np.array_equal(counts[0], counts[1])  # replicates differ
    assert np.array_equal(poisson_counts(np.arange(10, 20), [1], seed=9)[0], counts[1, 10:20])  # order-free


def test_sql_hash_and_counts_equal_numpy():
    ids = np.r_[np.arange(2000), [2**31, 2**40 + 3, 2**63 - 1]].astype(np.int64)
    template, _ = poisson_sql("id", "key")
    con = duckdb.connect()
    con.register("ids", pd.DataFrame({"id": ids}))
    for r, seed in ((0, 0), (7, 0), (3, 12345)):
        rel = f"(SELECT id, {replicate_key(r, seed)}::UHUGEINT AS key FROM ids)"
        out = con.execute(
            f"SELECT id, CAST(h AS VARCHAR) AS h, p FROM {template.format(rel=rel)} ORDER BY id"
        ).fetchdf()
        order = np.argsort(ids)
        assert [int(v) for v in out["h"]] == [int(v) for v in row_hash(ids[order], r, seed)]
        assert np.array_equal(out["p"].to_numpy(), poisson_counts(ids[order], [r], seed)[0])
    con.close()


def test_id_column_csv_glob_and_errors(tmp_path):
    rng = np.random.default_rng(4)
    n = 4000
    y = rng.random(n) < 0.2
    frame = pd.DataFrame(
        {
            "doc": rng.permutation(n) * 3 + 10,
            "score": np.round(rng.random(n) + 0.4 * y, 2),
            "label": np.where(y, "tp", "fp"),
        }
    )
    for part in range(2):
        frame.iloc[part::2].to_csv(tmp_path / f"p{part}.csv", index=False)
    points, stats = counted_bootstrap(
        DuckSource(str(tmp_path / "p*.csv")),
        score="score",
        label="label",
        id_column="doc",
        targets=[0.5],
        n_boot=30,
        seed=2,
    )
    memory = bootstrap(frame.score, y.astype(int), n_boot=30, seed=2, resample="poisson", ids=frame.doc).at(0.5)
    assert np.array_equal(points[0].thresholds, memory.thresholds) and np.array_equal(points[0].tp, memory.tp)
    assert stats.rows_scanned == n
    with pytest.raises(InputError, match="need a row id"):
        counted_bootstrap(DuckSource(str(tmp_path / "p*.csv")), score="score", label="label", targets=[0.5])
    bad = frame.assign(doc=frame.doc - 20)
    bad.to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(InputError, match="Column 'doc'.*rated rows have a missing, negative or non-integer id"):
        counted_bootstrap(
            DuckSource(str(tmp_path / "bad.csv")), score="score", label="label", id_column="doc", targets=[0.5]
        )


def test_cli_sweep_bootstrap_intervals_agree(tmp_path, capsys):
    import json

    from engine.cli import main

    rng = np.random.default_rng(8)
    n = 3000
    y = rng.random(n) < 0.15
    frame = pd.DataFrame(
        {
            "doc_id": np.arange(n) * 7 + 1,
            "score": np.round(rng.random(n) * 0.7 + 0.3 * y, 3),
            "label": np.where(y, "1", "0").astype(object),
            "weight": rng.integers(1, 3, n),
        }
    )
    frame.loc[rng.random(n) < 0.04, "label"] = None
    parquet, csv = str(tmp_path / "rated.parquet"), str(tmp_path / "rated.csv")
    frame.to_parquet(parquet)
    frame.to_csv(csv, index=False)
    out = {}
    for key, args in (
        ("memory", [parquet, "--backend", "memory"]),
        ("duckdb", [parquet, "--backend", "duckdb"]),
        ("memory_id", [csv, "--backend", "memory", "--id", "doc_id"]),
        ("duckdb_id", [csv, "--backend", "duckdb", "--id", "doc_id"]),
    ):
        assert (
            main(["sweep", *args, "--target", "0.3", "--target", "0.7", "--bootstrap", "25", "--seed", "5", "--json"])
            == 0
        )
        out[key] = json.loads(capsys.readouterr().out)
    assert out["memory"]["intervals"] == out["duckdb"]["intervals"]
    assert out["memory_id"]["intervals"] == out["duckdb_id"]["intervals"]
    assert out["memory"]["intervals"] != out["memory_id"]["intervals"]  # other ids, other replicates
    assert out["duckdb"]["bootstrap"]["replicates"] == 25
    assert main(["sweep", csv, "--backend", "duckdb", "--bootstrap", "5"]) == 2  # CSV without --id: told to give it
    assert "--id" in capsys.readouterr().err
