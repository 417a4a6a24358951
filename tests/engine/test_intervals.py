"""The one Clopper-Pearson interval: against scipy's exact binomtest interval, one-sided bounds, edges and refusals."""

import numpy as np
import pytest
from scipy import stats

from engine.errors import InputError
from engine.intervals import clopper_pearson


@pytest.mark.parametrize("k, n", [(0, 10), (3, 50), (50, 50), (17, 1000), (1, 20000)])
def test_a_scalar_interval_equals_scipys_exact_interval(k, n):
    expected = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="exact")
    lo, hi = clopper_pearson(k, n)
    assert type(lo) is float and type(hi) is float
    np.testing.assert_allclose((lo, hi), (expected.low, expected.high), atol=1e-12)


@pytest.mark.parametrize("level", [0.8, 0.9, 0.99])
def test_arrays_of_counts_equal_scipy_at_every_level(level):
    rng = np.random.default_rng(1)
    n = rng.integers(1, 300, 200)
    k = rng.integers(0, n + 1)
    lo, hi = clopper_pearson(k, n, level)
    assert lo.shape == hi.shape == (200,)
    for ki, ni, a, b in zip(k, n, lo, hi):
        ci = stats.binomtest(int(ki), int(ni)).proportion_ci(confidence_level=level, method="exact")
        assert a == pytest.approx(ci.low, abs=1e-12) and b == pytest.approx(ci.high, abs=1e-12)


def test_a_one_sided_bound_at_level_is_the_two_sided_bound_at_2_level_minus_1():
    rng = np.random.default_rng(2)
    n = rng.integers(1, 400, 300)
    k = rng.integers(0, n + 1)
    low, high = clopper_pearson(k, n, 0.9)  # each tail 5 %
    up_lo, up = clopper_pearson(k, n, 0.95, "upper")  # one tail 5 %
    lo, lo_hi = clopper_pearson(k, n, 0.95, "lower")
    np.testing.assert_allclose(up, high, atol=1e-12)
    np.testing.assert_allclose(lo, low, atol=1e-12)
    assert (up_lo == 0).all() and (lo_hi == 1).all()


def test_the_upper_bound_with_no_successes_solves_the_binomial_tail():
    # (1 - p)^n = 1 - level at the one-sided upper bound of 0 successes
    for n in (1, 30, 1000):
        _, p = clopper_pearson(0, n, 0.95, "upper")
        assert (1 - p) ** n == pytest.approx(0.05, rel=1e-9)


def test_no_trials_give_the_whole_interval_and_edges_are_closed():
    assert clopper_pearson(0, 0) == (0.0, 1.0)
    lo, hi = clopper_pearson([0, 5, 0], [0, 5, 5])
    assert list(lo[:2]) == [0.0, lo[1]] and lo[1] > 0 and hi[1] == 1.0 and lo[2] == 0.0 and hi[0] == 1.0


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: clopper_pearson(1, 2, None), "level must be a number"),
        (lambda: clopper_pearson(1, 2, 1.0), "level must be"),
        (lambda: clopper_pearson(1, 2, 0.95, "sideways"), "side must be one of both, lower, upper"),
        (lambda: clopper_pearson(3, 2), "0 <= k <= n"),
        (lambda: clopper_pearson(-1, 2), "0 <= k <= n"),
        (lambda: clopper_pearson(np.nan, 2), "0 <= k <= n"),
    ],
)
def test_bad_arguments_are_input_errors_naming_them(call, message):
    with pytest.raises(InputError, match=message):
        call()
