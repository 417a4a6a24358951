"""Windows around the threshold and exact binomial bounds: brute force, scipy's binomtest, and coverage by simulation."""

import numpy as np

from engine.intervals import clopper_pearson
from engine.monitor import monitor, period_counts
from engine.monitor._windows import (
    above_window,
    below_window,
    cumulative,
    lower_bound_reaches,
    upper_bound_reaches,
)


def test_bound_tests_agree_with_the_bounds():
    rng = np.random.default_rng(2)
    n = rng.integers(0, 400, 3000)
    x = rng.integers(0, n + 1)
    for m in (0.05, 0.3, 0.8):
        lo, _ = clopper_pearson(x, n, 0.975, "lower")
        _, hi = clopper_pearson(x, n, 0.975, "upper")
        up, down = upper_bound_reaches(x, n, m, 0.025), lower_bound_reaches(x, n, m, 0.025)
        sure = (n > 0) & (np.abs(hi - m) > 1e-9) & (np.abs(lo - m) > 1e-9)
        assert np.array_equal(up[sure], (hi >= m)[sure]) and np.array_equal(down[sure], (lo <= m)[sure])
        assert up[n == 0].all() and down[n == 0].all()


def _levels(seed=3):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 30, 6)  # levels per period
    offsets = np.r_[0, np.cumsum(sizes)]
    total = rng.integers(1, 5, offsets[-1]).astype(float)
    pos = np.floor(total * rng.random(total.size))
    return offsets, pos, total - pos


def test_windows_equal_brute_force():
    offsets, pos, neg = _levels()
    C, P = cumulative(pos, neg)
    for j in range(offsets.size - 1):
        lo, hi = offsets[j], offsets[j + 1]
        for cut in range(lo, hi + 1):
            for k in (1, 3, 7, 1000):
                # above: add levels cut-1, cut-2, ... down to lo until at least k documents
                x = n = 0.0
                i = cut - 1
                while i >= lo and n < k:
                    x, n, i = x + pos[i], n + pos[i] + neg[i], i - 1
                assert (x, n) == tuple(float(v[0]) for v in above_window(C, P, np.array([cut]), np.array([lo]), k))
                x = n = 0.0
                i = cut
                while i < hi and n < k:
                    x, n, i = x + pos[i], n + pos[i] + neg[i], i + 1
                assert (x, n) == tuple(float(v[0]) for v in below_window(C, P, np.array([cut]), np.array([hi]), k))


def _period(rng, n, centre, slope=12.0):
    """One period of rated documents with a monotone marginal precision m(s) = sigmoid(slope (s - centre))."""
    s = np.round(rng.random(n), 3)
    y = (rng.random(n) < 1 / (1 + np.exp(-slope * (s - centre)))).astype(int)
    return s, y


def test_marginal_precision_interval_covers_the_true_value():
    """Coverage of m(T) by the monotone bracket: at least the level (it is conservative), checked on 400 periods."""
    rng = np.random.default_rng(4)
    t, centre, covered, width = 0.5, 0.55, 0, []
    truth = 1 / (1 + np.exp(-12 * (t - centre)))
    for _ in range(400):
        s, y = _period(rng, 2000, centre)
        d = np.full(s.size, np.datetime64("2025-01-06"))
        p = monitor(period_counts(s, y, d), t, 0.3, window=50).periods[0].marginal_precision
        covered += p.lower <= truth <= p.upper
        width.append(p.upper - p.lower)
    assert covered / 400 >= 0.95 - 0.02  # 2 SE at 400 runs
    assert np.median(width) < 0.45


def test_threshold_confidence_set_covers_the_true_crossing():
    rng = np.random.default_rng(5)
    centre, m, covered = 0.55, 0.3, 0
    crossing = centre + np.log(m / (1 - m)) / 12
    for _ in range(300):
        s, y = _period(rng, 3000, centre)
        d = np.full(s.size, np.datetime64("2025-01-06"))
        op = monitor(period_counts(s, y, d), 0.5, m, window=50).periods[0].operating_point
        covered += op.lower <= crossing + 0.0005 and crossing - 0.0005 <= op.upper  # scores on a 0.001 grid
    assert covered / 300 >= 0.95 - 0.025
