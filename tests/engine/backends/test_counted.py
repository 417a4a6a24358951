"""The results written once over the counting protocol, on every counting backend, against the in-memory engine.

One test body per result, run on DuckDB and on Spark (``rows_at`` in conftest.py): operating points (whole curve
and quantile bins), joint threshold grids, hashed Poisson replicates and their intervals, and the messages for
bad rows. The in-memory engine is the oracle; every comparison is exact.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine.backends._counted as counted
from engine.backends._counted import counted_bootstrap, counted_grid, counted_points, replicate_counts
from engine.errors import InputError
from engine.pn import operating_point
from engine.pn._bootstrap import bootstrap
from engine.pn._grid import threshold_grid
from engine.pn._replicates import poisson_counts

TARGETS = [0.05, 0.2, 0.35, 0.5, 0.8, 0.95]
#: hypothesis draws run against a module-scoped fixture (the rows' backend): nothing is shared between examples
SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
#: the share of each test's examples replayed on Spark: the code over the protocol is explored on DuckDB, and Spark
#: (a second or more per query on a local JVM) answers the same primitives on the first third of the examples
SPARK_SHARE = 3


def examples(request, duckdb: int) -> dict:
    """Hypothesis settings of ``duckdb`` examples on DuckDB and a third of them on Spark."""
    spark = request.node.callspec.params["rows_at"] == "spark"
    return dict(max_examples=-(-duckdb // SPARK_SHARE) if spark else duckdb, **SETTINGS)


def rated_arrays(frame: pd.DataFrame, cols):
    rated = frame["label"].notna().to_numpy()
    y = frame.loc[rated, "label"].isin(["1", "yes", "tp"]).to_numpy().astype(int)
    return rated, frame.loc[rated, cols].to_numpy(dtype=float), y, frame.loc[rated, "w"].to_numpy(dtype=float)


def assert_same_grid(a, b):
    assert len(a.axes) == len(b.axes)
    for x, z in zip(a.axes, b.axes):
        assert np.array_equal(x, z)
    assert a.rule == b.rule and np.array_equal(a.tp, b.tp) and np.array_equal(a.fp, b.fp)


def test_points_exact_and_binned_equal_memory_with_ties_weights_and_unrated_rows(rows_at, request):
    @given(
        st.lists(
            st.tuples(st.integers(0, 30), st.sampled_from(["1", "0", "yes", "no", "tp", None]), st.integers(1, 3)),
            min_size=2,
            max_size=60,
        )
    )
    @settings(**examples(request, 12))
    def check(rows):
        frame = pd.DataFrame(
            {"a": [r[0] / 30 for r in rows], "label": [r[1] for r in rows], "w": [float(r[2]) for r in rows]}
        )
        rated, s, y, w = rated_arrays(frame, "a")
        if not rated.any():
            return
        source = rows_at(frame)
        expected = [operating_point(s, y, t, w) for t in TARGETS]
        exact, stats = counted_points(source, score="a", label="label", weight="w", targets=TARGETS)
        binned, bstats = counted_points(
            source, score="a", label="label", weight="w", targets=TARGETS, distinct_cap=0, bins=4
        )
        assert bstats.binned and not stats.binned
        assert stats.unrated == int((~rated).sum()) and stats.rows_scanned == len(rows)
        assert stats.distinct_scores == np.unique(s).size
        for e, a, b in zip(expected, exact, binned):
            assert (a.threshold, a.tp, a.fp) == (e.threshold, e.tp, e.fp)
            assert (b.threshold, b.tp, b.fp) == (e.threshold, e.tp, e.fp)

    check()


row = st.tuples(
    st.lists(st.integers(-3, 12), min_size=3, max_size=3),
    st.sampled_from(["1", "0", "yes", "no", "tp", None]),
    st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0]),
)


def test_grid_equals_memory_with_ties_weights_and_unrated_rows(rows_at, request):
    @given(
        rows=st.lists(row, min_size=1, max_size=50),
        k=st.integers(1, 3),
        rule=st.sampled_from(["or", "and"]),
        bins=st.integers(2, 9),
        fine=st.sampled_from([2, 3, 1 << 16]),
        fetch=st.sampled_from([0, 1, 10**6]),
    )
    @settings(**examples(request, 15))
    def check(rows, k, rule, bins, fine, fetch):
        frame = pd.DataFrame(
            {
                "a": [r[0][0] / 4 for r in rows],
                "b": [r[0][1] / 8 for r in rows],
                "c": [float(r[0][2]) for r in rows],
                "label": [r[1] for r in rows],
                "w": [r[2] for r in rows],
            }
        )
        cols = ["a", "b", "c"][:k]
        rated, s, y, w = rated_arrays(frame, cols)
        if not rated.any() or w.sum() == 0:
            return
        source = rows_at(frame)
        # few fine bins and no direct reads: the order statistics go through every refinement branch
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(counted, "FINE_BINS", fine)
            patch.setattr(counted, "FETCH_ROWS", fetch)
            grid, stats = counted_grid(source, scores=cols, label="label", weight="w", bins=bins, rule=rule)
        assert_same_grid(grid, threshold_grid(s, y, w, bins=bins, rule=rule))
        assert stats.rows_scanned == len(rows) and stats.unrated == int((~rated).sum()) and stats.rated == rated.sum()

    check()


def grouped(ids, s, y, w, n_boot, seed):
    """Per replicate and distinct score (descending), the Poisson-weighted positives and negatives, in numpy."""
    thresholds = np.unique(s)[::-1]
    col = np.searchsorted(-thresholds, -s)
    counts = poisson_counts(ids, np.arange(n_boot), seed).astype(float)
    d_tp, d_fp = np.zeros((n_boot, thresholds.size)), np.zeros((n_boot, thresholds.size))
    for r in range(n_boot):
        np.add.at(d_tp[r], col, counts[r] * w * y)
        np.add.at(d_fp[r], col, counts[r] * w * (1 - y))
    return thresholds, d_tp, d_fp


def test_replicate_counts_and_intervals_equal_memory(rows_at, request):
    @given(
        st.lists(
            st.tuples(st.integers(0, 12), st.sampled_from(["1", "0", None]), st.integers(0, 3)), min_size=1, max_size=40
        ),
        st.integers(0, 2**20),
    )
    @settings(**examples(request, 8))
    def check(rows, seed):
        frame = pd.DataFrame(
            {
                "a": [r[0] / 12 for r in rows],
                "label": [r[1] for r in rows],
                "w": [float(r[2]) for r in rows],
                "doc": np.arange(len(rows)) * 5 + 2**40,
            }
        )
        rated, s, y, w = rated_arrays(frame, "a")
        if not rated.any() or w.sum() == 0:
            return
        ids = frame["doc"].to_numpy()[rated]
        source = rows_at(frame)
        th, d_tp, d_fp, stats = replicate_counts(
            source, score="a", label="label", weight="w", id_column="doc", n_boot=12, seed=seed
        )
        e_th, e_tp, e_fp = grouped(ids, s, y, w, 12, seed)
        assert np.array_equal(th, e_th) and np.array_equal(d_tp, e_tp) and np.array_equal(d_fp, e_fp)
        assert stats.unrated == int((~rated).sum())
        points, _ = counted_bootstrap(
            source, score="a", label="label", weight="w", id_column="doc", targets=[0.2, 0.6], n_boot=12, seed=seed
        )
        memory = bootstrap(s, y, w, n_boot=12, seed=seed, resample="poisson", ids=ids)
        for p, t in zip(points, (0.2, 0.6)):
            m = memory.at(t)
            assert np.array_equal(p.thresholds, m.thresholds) and np.array_equal(p.tp, m.tp)
            assert np.array_equal(p.fp, m.fp) and p.threshold_ci == m.threshold_ci

    check()


TEXT = "a string, b string, label string, w string, doc string"
BASE = {"a": ["0.1", "0.2", "0.3"], "b": ["1", "2", "3"], "label": ["1", "0", None], "w": ["1", "1", "1"]}
BAD_ROWS = [
    ({"a": ["0.1", "oops", "0.3"]}, "Score column 'a': non-numeric values 'oops' at row 2 \\(row 1"),
    ({"b": ["1", "inf", "3"]}, "Score column 'b': infinite values at row 2 \\(row 1"),
    ({"b": [None, "2", "3"]}, "Score column 'b': missing scores on rated rows at row 1 \\(row 1"),
    ({"label": ["1", "maybe", None]}, "Column 'label': unknown label values 'maybe' at row 2 \\(row 1"),
    ({"w": ["1", "-2", "1"]}, "Weight column 'w': negative, missing or non-finite weights at row 2 \\(row 1"),
    ({"w": ["0", "0", "1"]}, "all rated rows have weight 0"),
    ({"label": [None, None, None]}, "no rated rows"),
    ({"doc": ["2.5", "-4", "2"]}, "Column 'doc' of .*: 2 rated rows have a missing, negative or non-integer id"),
]


@pytest.mark.parametrize("change,message", BAD_ROWS)
def test_bad_rows_are_refused_with_the_same_words(rows_at, change, message):
    rows = rows_at(pd.DataFrame({**BASE, "doc": ["1", "2", "3"], **change}), TEXT)
    with pytest.raises(InputError, match=message):
        if "doc" in change:
            replicate_counts(rows, score="a", label="label", weight="w", id_column="doc")
        else:
            counted_grid(rows, scores=["a", "b"], label="label", weight="w")
