"""Grid counts against per-cell loops; the aggregated format."""

import io
import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import RatedDataError
from engine.io import counts_table, load_counts
from engine.pn import threshold_grid
from engine.pn._grid import make_axes


@st.composite
def scored(draw, k):
    n = draw(st.integers(1, 30))
    s = np.array(
        draw(st.lists(st.lists(st.integers(0, 6), min_size=k, max_size=k), min_size=n, max_size=n)), dtype=float
    )
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    w = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), dtype=float)
    axes = []
    for _ in range(k):
        vals = sorted(set(draw(st.lists(st.integers(-1, 8), min_size=2, max_size=5))))
        if len(vals) < 2:
            vals = [vals[0], vals[0] + 1]
        axes.append(np.array(vals, dtype=float) - 0.5 * draw(st.integers(0, 1)))
    return s, y, w, axes


def loop_counts(s, y, w, axes, rule):
    shape = tuple(a.size for a in axes)
    tp = np.zeros(shape)
    fp = np.zeros(shape)
    for idx in itertools.product(*(range(m) for m in shape)):
        th = np.array([axes[j][i] for j, i in enumerate(idx)])
        passed = s >= th
        flag = passed.any(axis=1) if rule == "or" else passed.all(axis=1)
        tp[idx] = w[flag & (y == 1)].sum()
        fp[idx] = w[flag & (y == 0)].sum()
    return tp, fp


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("rule", ["or", "and"])
def test_grid_counts_equal_per_cell_loops(k, rule):
    @settings(max_examples=60, deadline=None)
    @given(scored(k))
    def check(data):
        s, y, w, axes = data
        grid = threshold_grid(s, y, w, rule=rule, axes=axes)
        tp, fp = loop_counts(s, y, w, axes, rule)
        np.testing.assert_array_equal(grid.tp, tp)
        np.testing.assert_array_equal(grid.fp, fp)

    check()


def test_default_axes_cover_floor_to_above_max():
    rng = np.random.default_rng(0)
    s = rng.random((5000, 2)) ** 4  # mass near 0: quantile spacing must still resolve the top tail
    y = (rng.random(5000) < 0.05).astype(int)
    axes = make_axes(s, bins=50)
    for j, a in enumerate(axes):
        assert a[0] == s[:, j].min()
        assert a[-1] > s[:, j].max() and a[-2] <= s[:, j].max()
        assert a.size <= 50 and np.all(np.diff(a) > 0)
        # quantile spacing: about equal numbers of documents between consecutive thresholds
        counts = np.histogram(s[:, j], bins=a)[0]
        assert counts.max() < 3 * 5000 / 49
    grid = threshold_grid(s, y, bins=50)
    assert grid.tp[0, 0] == y.sum() and grid.fp[0, 0] == (1 - y).sum()  # all-lowest corner flags everything
    assert grid.tp[-1, -1] == 0 and grid.fp[-1, -1] == 0  # all-highest corner flags nothing
    uniform = make_axes(s, bins=50, spacing="uniform")
    assert np.allclose(np.diff(uniform[0][:-1]), np.diff(uniform[0][:-1])[0])


def test_counts_never_increase_when_a_threshold_rises():
    rng = np.random.default_rng(1)
    s = rng.random((2000, 3))
    y = (rng.random(2000) < 0.1).astype(int)
    for rule in ("or", "and"):
        g = threshold_grid(s, y, bins=12, rule=rule)
        for j in range(3):
            assert np.all(np.diff(g.tp, axis=j) <= 0)
            assert np.all(np.diff(g.fp, axis=j) <= 0)


def test_invalid_inputs_raise():
    with pytest.raises(ValueError, match="rule"):
        threshold_grid(np.ones((3, 2)), [0, 1, 0], rule="xor")
    with pytest.raises(RatedDataError, match="labels"):
        threshold_grid(np.ones((3, 2)), [0, 1])
    with pytest.raises(ValueError, match="ascending"):
        threshold_grid(np.ones((3, 2)), [0, 1, 0], axes=[np.array([1.0, 0.5]), np.array([0.0, 1.0])])


def test_aggregated_format_round_trips():
    rng = np.random.default_rng(2)
    s = rng.random((3000, 2))
    y = (rng.random(3000) < 0.1).astype(int)
    grid = threshold_grid(s, y, bins=15, rule="or", spacing="uniform")
    table = counts_table(grid)
    assert list(table.columns) == ["t1", "t2", "tp", "fp"]
    back = load_counts(table)
    for a, b in zip(grid.axes, back.axes):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(back.tp, grid.tp)
    np.testing.assert_array_equal(back.fp, grid.fp)
    # through a CSV file with a header, shuffled rows, and without a header (the paper's 4-column files)
    shuffled = table.sample(frac=1.0, random_state=0)
    for header in (True, False):
        buf = io.BytesIO(shuffled.to_csv(index=False, header=header).encode())
        back = load_counts(buf)
        np.testing.assert_array_equal(back.tp, grid.tp)
        np.testing.assert_array_equal(back.fp, grid.fp)
        np.testing.assert_array_equal(back.axes[1], grid.axes[1])


def test_irregular_counts_are_regridded_and_made_monotone():
    rng = np.random.default_rng(3)
    t = rng.random((400, 2))
    # a smooth decreasing truth plus noise that breaks monotonicity
    tp = 100 * (1 - t[:, 0]) * (1 - t[:, 1]) + rng.normal(0, 2, 400)
    fp = 500 * (1 - t[:, 0] ** 0.5) * (1 - t[:, 1]) + rng.normal(0, 5, 400)
    frame = pd.DataFrame({"t1": t[:, 0], "t2": t[:, 1], "tp": np.clip(tp, 0, None), "fp": np.clip(fp, 0, None)})
    grid = load_counts(frame, bins=20)
    assert grid.shape == (20, 20)
    for j in range(2):
        assert np.all(np.diff(grid.tp, axis=j) <= 0)
        assert np.all(np.diff(grid.fp, axis=j) <= 0)
    truth = 100 * np.outer(1 - grid.axes[0], 1 - grid.axes[1])
    inner = (slice(3, -3), slice(3, -3))
    assert np.abs(grid.tp[inner] - truth[inner]).mean() < 6


def test_aggregated_format_errors():
    with pytest.raises(RatedDataError, match="'tp' and 'fp'"):
        load_counts(pd.DataFrame({"a": [1, 2], "b": [1, 2], "c": [3, 4]}))
    with pytest.raises(RatedDataError, match="column 'tp' has missing or non-numeric values at row 2 "):
        load_counts(pd.DataFrame({"t1": [0, 1], "t2": [0, 1], "tp": [3, "x"], "fp": [1, 0]}))
    with pytest.raises(RatedDataError, match="negative counts"):
        load_counts(pd.DataFrame({"t1": [0, 1], "t2": [0, 1], "tp": [3, -1], "fp": [1, 0]}))
