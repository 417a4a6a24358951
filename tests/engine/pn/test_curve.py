"""PN curve, hull and operating points against independent oracles."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.isotonic import IsotonicRegression
from sklearn.metrics import confusion_matrix

from engine.pn import bootstrap, cost_per_true_positive, operating_point, pn_curve, sweep, upper_hull
from engine.pn._curve import TIE_RTOL, target_from_cost, target_slope


@st.composite
def rated(draw, max_n=40):
    n = draw(st.integers(1, max_n))
    scores = draw(st.lists(st.integers(0, 12), min_size=n, max_size=n))
    labels = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    weights = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    s = np.array(scores, dtype=float) / 4.0
    w = np.array(weights, dtype=float)
    if w.sum() == 0:
        w[0] = 1.0
    return s, np.array(labels), w


TARGETS = st.one_of(st.sampled_from([0.5, 0.25, 0.75, 1 / 3, 0.2, 0.1, 0.9, 0.3]), st.floats(0.01, 0.99))


def oracle_operating_point(s, y, w, target):
    """Direct definition: every threshold (and 'flag nothing'), masks instead of cumulative sums."""
    lam = target / (1 - target)
    candidates = [np.inf] + sorted(set(s.tolist()), reverse=True)
    tps = np.array([w[(s >= t) & (y == 1)].sum() for t in candidates])
    fps = np.array([w[(s >= t) & (y == 0)].sum() for t in candidates])
    obj = tps - lam * fps
    tol = TIE_RTOL * max(1.0, w[y == 1].sum() + lam * w[y == 0].sum())
    i = int(np.flatnonzero(obj >= obj.max() - tol)[0])  # candidates are in descending threshold order
    return candidates[i], tps[i], fps[i]


@settings(max_examples=150, deadline=None)
@given(rated())
def test_pn_curve_equals_sklearn_confusion_counts(data):
    s, y, w = data
    curve = pn_curve(s, y, w)
    assert np.all(np.diff(curve.thresholds) < 0)
    assert set(curve.thresholds) == set(s)
    for t, tp, fp in zip(curve.thresholds, curve.tp, curve.fp):
        cm = confusion_matrix(y, (s >= t).astype(int), labels=[0, 1], sample_weight=w)
        assert tp == cm[1, 1]
        assert fp == cm[0, 1]


@settings(max_examples=300, deadline=None)
@given(rated(), TARGETS)
def test_operating_point_equals_brute_force(data, target):
    s, y, w = data
    op = operating_point(s, y, target, w)
    th, tp, fp = oracle_operating_point(s, y, w, target)
    assert op.threshold == th
    assert op.tp == tp and op.fp == fp
    assert op.cost == pytest.approx((1 - target) / target)


@settings(max_examples=150, deadline=None)
@given(rated(), st.lists(TARGETS, min_size=1, max_size=8))
def test_sweep_equals_single_targets(data, targets):
    s, y, w = data
    hull = upper_hull(pn_curve(s, y, w))
    points = sweep(targets=targets, hull=hull)
    for t, p in zip(targets, points):
        single = operating_point(s, y, t, w)
        assert (p.threshold, p.tp, p.fp) == (single.threshold, single.tp, single.fp)


@settings(max_examples=150, deadline=None)
@given(rated())
def test_hull_marginal_precision_is_the_isotonic_fit(data):
    s, y, w = data
    curve = pn_curve(s, y, w)
    hull = upper_hull(curve)
    present = np.isin(curve.thresholds, s[w > 0])
    iso = IsotonicRegression(increasing=True).fit(s[w > 0], y[w > 0], sample_weight=w[w > 0])
    np.testing.assert_allclose(hull.mp_at_threshold[present], iso.predict(curve.thresholds[present]), atol=1e-12)
    # concave hull: edge marginal precision strictly decreases as FP grows
    assert np.all(np.diff(hull.edge_mp) < 0)
    # every curve point lies on or below the hull (linear interpolation between vertices)
    below = np.interp(curve.fp, hull.fp, hull.tp) if hull.fp.size > 1 else np.zeros_like(curve.fp)
    mono = np.all(np.diff(hull.fp) > 0)
    if mono:
        assert np.all(curve.tp <= below + 1e-9)


@settings(max_examples=150, deadline=None)
@given(rated(), TARGETS)
def test_marginal_precision_brackets_target(data, target):
    s, y, w = data
    op = operating_point(s, y, target, w)
    if np.isfinite(op.mp_above):
        assert op.mp_above > target - 1e-9
    if np.isfinite(op.mp_below):
        assert op.mp_below <= target + 1e-9


def test_known_small_example():
    # scores 4 3 2 1 ; labels 1 1 0 1 ; FP per extra TP at m=0.5 is 1
    s = np.array([4.0, 3.0, 2.0, 1.0])
    y = np.array([1, 1, 0, 1])
    curve = pn_curve(s, y)
    np.testing.assert_array_equal(curve.tp, [1, 2, 2, 3])
    np.testing.assert_array_equal(curve.fp, [0, 0, 1, 1])
    hull = upper_hull(curve)
    np.testing.assert_array_equal(hull.tp, [0, 2, 3])
    np.testing.assert_array_equal(hull.fp, [0, 0, 1])
    np.testing.assert_allclose(hull.edge_mp, [1.0, 0.5])
    # at m = 0.5 the last edge is an exact tie: the highest threshold wins
    op = operating_point(s, y, 0.5)
    assert op.threshold == 3.0 and op.tp == 2 and op.fp == 0
    assert op.mp_above == 1.0 and op.mp_below == 0.5
    op = operating_point(s, y, 0.4)
    assert op.threshold == 1.0 and op.tp == 3 and op.fp == 1


def test_cost_and_slope_conversions():
    assert cost_per_true_positive(0.25) == pytest.approx(3.0)
    assert target_from_cost(3.0) == pytest.approx(0.25)
    assert target_slope(0.25) == pytest.approx(1 / 3)
    np.testing.assert_allclose(target_from_cost(cost_per_true_positive(np.array([0.1, 0.5, 0.9]))), [0.1, 0.5, 0.9])


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.1, 1.5, float("nan")])
def test_invalid_targets_raise(bad):
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        operating_point([1.0, 2.0], [0, 1], bad)


def test_one_class_data():
    s = np.array([1.0, 2.0, 3.0])
    op = operating_point(s, [0, 0, 0], 0.5)
    assert op.threshold == np.inf and op.tp == 0 and op.fp == 0
    op = operating_point(s, [1, 1, 1], 0.5)
    assert op.threshold == 1.0 and op.tp == 3


def test_bootstrap_replicate_matches_explicit_resample():
    rng = np.random.default_rng(3)
    n = 500
    y = (rng.random(n) < 0.2).astype(int)
    s = np.round(rng.normal(y * 1.5, 1.0), 2)
    w = rng.integers(1, 3, n).astype(float)
    boot = bootstrap(s, y, w, n_boot=3, seed=11)
    counts = np.random.default_rng(11).multinomial(n, np.full(n, 1.0 / n), size=3)
    for target in (0.2, 0.4, 0.7):
        point = boot.at(target)
        for r in range(3):
            op = operating_point(s, y, target, w * counts[r])
            assert point.thresholds[r] == op.threshold
            assert point.tp[r] == op.tp and point.fp[r] == op.fp


def test_poisson_bootstrap_replicate_matches_explicit_reweighting():
    """Oracle: each hashed Poisson replicate is the operating point of the rows weighted by their counts."""
    from engine.pn._replicates import poisson_counts

    rng = np.random.default_rng(13)
    n = 2000
    y = (rng.random(n) < 0.05).astype(int)
    s = np.round(rng.normal(y * 1.5, 1.0), 3)
    ids = rng.permutation(5 * n)[:n]
    boot = bootstrap(s, y, n_boot=4, seed=6, resample="poisson", ids=ids)
    counts = poisson_counts(ids, np.arange(4), 6)
    for target in (0.1, 0.3, 0.6):
        point = boot.at(target)
        for r in range(4):
            op = operating_point(s, y, target, counts[r].astype(float))
            assert point.thresholds[r] == op.threshold
            assert point.tp[r] == op.tp and point.fp[r] == op.fp


def test_bootstrap_band_is_wider_where_few_documents():
    rng = np.random.default_rng(5)
    n = 4000
    y = (rng.random(n) < 0.1).astype(int)
    s = np.round(rng.normal(y * 2.0, 1.0), 2)
    boot = bootstrap(s, y, n_boot=200, seed=1)
    point = boot.at(0.3)
    assert point.thresholds.shape == (200,)
    assert boot.band_thresholds.shape == boot.n_at_or_above.shape == boot.mp_band[0].shape
    width = boot.mp_band[2] - boot.mp_band[0]
    few = boot.n_at_or_above < 50
    many = boot.n_at_or_above > 2000
    assert np.nanmean(width[few]) > 2 * np.nanmean(width[many])
    lo, hi = point.threshold_ci
    assert lo <= operating_point(s, y, 0.3).threshold <= hi
    # seeded: the same call gives the same replicates
    again = bootstrap(s, y, n_boot=200, seed=1)
    np.testing.assert_array_equal(again.at(0.3).thresholds, point.thresholds)


def test_bootstrap_chunking_does_not_change_results():
    rng = np.random.default_rng(8)
    y = (rng.random(300) < 0.3).astype(int)
    s = rng.normal(y, 1.0)
    a = bootstrap(s, y, n_boot=20, seed=4, max_cells=10**9)
    calls = []
    # unit weights: the draw is over (score, label) cells, 2 x 300 of them here
    b = bootstrap(s, y, n_boot=20, seed=4, max_cells=600 * 3, progress=lambda done, total: calls.append(done))
    assert calls == [3, 6, 9, 12, 15, 18, 20]
    # the generator draws replicate rows one after another, so chunking leaves the stream unchanged
    np.testing.assert_array_equal(a.at(0.5).thresholds, b.at(0.5).thresholds)
    np.testing.assert_array_equal(a.at(0.5).tp, b.at(0.5).tp)
    np.testing.assert_allclose(a.mp_band, b.mp_band)


def test_cell_level_and_document_level_draws_agree_in_distribution():
    rng = np.random.default_rng(21)
    n = 3000
    y = (rng.random(n) < 0.1).astype(int)
    s = np.round(rng.normal(y * 1.5, 1.0), 1)  # many ties: cells pool several documents
    cells = bootstrap(s, y, n_boot=1500, seed=2, max_band_points=50).at(0.3)
    docs = bootstrap(s, y, 1.0 + 1e-13 * rng.random(n), n_boot=1500, seed=3, max_band_points=50).at(0.3)
    for a, b in ((cells.tp, docs.tp), (cells.fp, docs.fp)):
        se = np.sqrt(a.var() / a.size + b.var() / b.size)
        assert abs(a.mean() - b.mean()) < 4 * se
        assert 0.85 < a.std() / b.std() < 1.15


def test_sorted_masses_are_the_reordered_products_bit_for_bit_as_rows_the_kernel_reads_uncopied():
    from engine.pn._curve import sorted_masses
    from engine.pn.kernels import _stacked

    rng = np.random.default_rng(5)
    y = (rng.random(1000) < 0.3).astype(float)
    w = rng.random(1000) * 3
    order = np.argsort(-rng.random(1000), kind="stable")
    wy, wn = sorted_masses(y, w, order)
    assert wy.tobytes() == (w * y)[order].tobytes() and wn.tobytes() == (w * (1.0 - y))[order].tobytes()
    stacked = _stacked(wy, wn)
    assert stacked is wy.base and np.shares_memory(stacked, wn)
    # arrays that are not the rows of one (2, n) array are stacked into a new one
    loose = _stacked(wy.copy(), wn[::-1].copy()[::-1])
    assert not np.shares_memory(loose, wy) and loose.tobytes() == stacked.tobytes()


def test_a_poisson_bootstrap_allocates_a_bounded_number_of_row_arrays_whatever_its_replicates():
    """Issue 34: the bootstrap runs beside every session's first page; its temporaries do not grow with B."""
    import tracemalloc

    from engine.pn import kernels

    if not kernels.AVAILABLE:
        pytest.skip("the compiled kernels draw Poisson replicates without count matrices")
    rng = np.random.default_rng(3)
    n = 200_000
    s, y = np.round(rng.random(n), 6), (rng.random(n) < 0.1).astype(float)
    bootstrap(s[:500], y[:500], n_boot=2, resample="poisson")  # compiled before tracing
    peaks, held = [], []
    for n_boot in (10, 60):
        tracemalloc.start()
        try:
            bootstrap(s, y, n_boot=n_boot, resample="poisson")
            current, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        peaks.append(peak)
        held.append(current)
    # 13.4 arrays of n floats here (was 18.5 with the products taken before the reordering, copied ids and masses)
    assert peaks[1] <= 15 * 8 * n
    assert peaks[1] - peaks[0] <= held[1] - held[0] + 2**20


def test_a_bootstrap_keeps_the_callers_curve_only_when_it_is_its_own_bit_for_bit():
    rng = np.random.default_rng(6)
    s, y = np.round(rng.random(2000), 3), (rng.random(2000) < 0.2).astype(int)
    own = bootstrap(s, y, n_boot=20, resample="poisson")
    held = pn_curve(s, y)
    kept = bootstrap(s, y, n_boot=20, resample="poisson", curve=held)
    assert kept.curve is held
    for a, b in zip(own.replicates, kept.replicates):
        assert all(x.tobytes() == z.tobytes() for x, z in zip(a, b))
    assert own.mp_band.tobytes() == kept.mp_band.tobytes()
    other = pn_curve(s, 1 - y)  # another curve on the same thresholds is not taken
    assert bootstrap(s, y, n_boot=2, resample="poisson", curve=other).curve is not other
    assert bootstrap(s, y, n_boot=2, curve=pn_curve(s[1:], y[1:])).curve.thresholds.size == held.thresholds.size
