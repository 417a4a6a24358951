"""Intervals of a stratified total: each method against an independent oracle, and coverage by simulation."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, stats

from engine.audit._intervals import (
    METHODS,
    expansion_estimate,
    prevalence_intervals,
    stratified_variance,
    sum_distribution,
    total_interval,
)
from engine.errors import InputError

Z = stats.norm.ppf(0.975)


def wilson(y, n, z):
    p = y / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


@pytest.mark.parametrize("big_n,n,y", [(1000, 50, 3), (10**9, 50, 0), (200, 20, 20), (5000, 400, 17), (31, 30, 1)])
def test_score_interval_of_one_stratum_is_wilson_with_the_finite_population_correction(big_n, n, y):
    # one stratum: (m (p_hat - p))^2 <= z^2 N^2 (m / (N - 1)) p q / n is Wilson's inequality with
    # z'^2 = z^2 N^2 / (m (N - 1)), and the positives are y + m p
    m = big_n - n
    lo, hi = wilson(y, n, Z * big_n / math.sqrt(m * (big_n - 1)))
    iv = total_interval([big_n], [n], [y], method="score")
    assert iv.lower == pytest.approx(y + m * lo, rel=1e-9, abs=1e-6)
    assert iv.upper == pytest.approx(y + m * hi, rel=1e-9, abs=1e-6)


def _score_statistic_by_optimiser(big_n, n, y, total):
    """The score statistic at ``total``, with the constrained MLE found by a generic optimiser (SLSQP)."""
    big_n, n, y = (np.asarray(v, float) for v in (big_n, n, y))
    m = big_n - n

    def nll(p):
        p = np.clip(p, 1e-12, 1 - 1e-12)
        return -np.sum(y * np.log(p) + (n - y) * np.log(1 - p))

    cons = {"type": "eq", "fun": lambda p: y.sum() + m @ p - total}
    start = np.full(y.size, min(max((total - y.sum()) / m.sum(), 1e-6), 1 - 1e-6))
    res = optimize.minimize(
        nll,
        start,
        constraints=[cons],
        bounds=[(1e-12, 1 - 1e-12)] * y.size,
        method="SLSQP",
        options={"ftol": 1e-14, "maxiter": 1000},
    )
    p = res.x
    t_hat = y.sum() + m @ (y / n)
    var = np.sum(big_n**2 * (m / (big_n - 1)) * p * (1 - p) / n)
    return (t_hat - total) ** 2 / var


@pytest.mark.parametrize(
    "counts",
    [
        ([500, 2000, 300], [50, 40, 30], [3, 0, 1]),
        ([5000, 2500, 1250, 600, 300, 300], [20, 20, 30, 40, 60, 100], [0, 1, 1, 0, 2, 9]),
        ([800, 90], [40, 30], [2, 12]),
    ],
)
def test_score_bounds_are_where_the_score_statistic_reaches_z_squared(counts):
    iv = total_interval(*counts, method="score")
    for bound in (iv.lower, iv.upper):
        if bound > sum(counts[2]):  # not clipped at the positives found
            assert _score_statistic_by_optimiser(*counts, bound) == pytest.approx(Z * Z, rel=1e-4)


def test_score_interval_is_symmetric_in_positives_and_negatives():
    big_n, n, y = np.array([2865, 1443, 90]), np.array([150, 75, 30]), np.array([150, 3, 0])
    pos = total_interval(big_n, n, y, method="score")
    neg = total_interval(big_n, n, n - y, method="score")
    assert pos.lower == pytest.approx(big_n.sum() - neg.upper, rel=1e-9)
    assert pos.upper == pytest.approx(big_n.sum() - neg.lower, rel=1e-9)


def test_fully_reviewed_strata_are_known_exactly():
    assert total_interval([100, 30], [100, 30], [0, 3], method="score").as_dict() == {
        "estimate": 3.0,
        "lower": 3.0,
        "upper": 3.0,
    }
    # a census stratum adds its positives and nothing else
    alone = total_interval([400], [40], [2], method="score")
    both = total_interval([400, 50], [40, 50], [2, 7], method="score")
    assert both.lower == pytest.approx(alone.lower + 7) and both.upper == pytest.approx(alone.upper + 7)


def test_expansion_estimate_is_unbiased_over_every_possible_sample():
    # two tiny strata, every simple random sample without replacement enumerated
    strata = [np.array([1, 0, 0, 1, 0]), np.array([0, 0, 1, 0])]
    sizes = [2, 3]
    truth = sum(int(s.sum()) for s in strata)
    estimates, wald_var = [], []
    samples = [list(itertools.combinations(range(s.size), k)) for s, k in zip(strata, sizes)]
    for pick in itertools.product(*samples):
        y = [int(s[list(p)].sum()) for s, p in zip(strata, pick)]
        estimates.append(expansion_estimate([5, 4], sizes, y))
        wald_var.append(stratified_variance([5, 4], sizes, y))
    assert np.mean(estimates) == pytest.approx(truth)
    # Cochran's variance estimator is unbiased too
    assert np.mean(wald_var) == pytest.approx(np.var(estimates))


def test_wald_is_cochrans_formula():
    big_n, n, y = np.array([500, 2000]), np.array([50, 40]), np.array([3, 2])
    p = y / n
    var = np.sum(big_n**2 * (1 - n / big_n) * p * (1 - p) / (n - 1))
    iv = total_interval(big_n, n, y, method="wald")
    assert iv.upper - iv.estimate == pytest.approx(Z * math.sqrt(var))


def test_jeffreys_sum_distribution_is_the_convolution_of_beta_binomials():
    m, a, b = np.array([40, 75, 9]), np.array([0.5, 3.5, 1.5]), np.array([20.5, 17.5, 0.5])
    values, pmf = sum_distribution(m, a, b, tail=0.0)
    oracle = np.ones(1)
    for mh, ah, bh in zip(m, a, b):
        oracle = np.convolve(oracle, stats.betabinom.pmf(np.arange(mh + 1), mh, ah, bh))
    assert np.array_equal(values, np.arange(oracle.size))
    np.testing.assert_allclose(pmf, oracle, atol=1e-12)


def test_jeffreys_on_a_coarse_lattice_is_close_to_monte_carlo():
    rng = np.random.default_rng(0)
    big_n, n, y = np.array([5_000_000, 3_000_000]), np.array([200, 100]), np.array([1, 4])
    iv = total_interval(big_n, n, y, method="jeffreys")
    draws = y.sum() + sum(rng.binomial(N - k, rng.beta(j + 0.5, k - j + 0.5, 200_000)) for N, k, j in zip(big_n, n, y))
    lo, hi = np.quantile(draws, [0.025, 0.975])
    assert iv.lower == pytest.approx(lo, rel=0.02) and iv.upper == pytest.approx(hi, rel=0.02)


def test_exact_bounds_are_the_extreme_totals_not_rejected():
    big_n, n, y = 60, 12, 2
    iv = total_interval([big_n], [n], [y], method="exact")
    alpha = 0.05
    kept = [
        m
        for m in range(y, big_n - (n - y) + 1)
        if stats.hypergeom.sf(y - 1, big_n, m, n) > alpha / 2 and stats.hypergeom.cdf(y, big_n, m, n) > alpha / 2
    ]
    assert (iv.lower, iv.upper) == (min(kept), max(kept))


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(2, 3000), st.floats(0.01, 1), st.floats(0, 1)), min_size=1, max_size=5),
    st.sampled_from(METHODS),
)
def test_every_interval_holds_the_estimate_and_stays_possible(strata, method):
    big_n = np.array([s[0] for s in strata])
    n = np.maximum(1, np.round(big_n * np.array([s[1] for s in strata]))).astype(int)
    y = np.round(n * np.array([s[2] for s in strata])).astype(int)
    iv = total_interval(big_n, n, y, method=method)
    assert y.sum() <= iv.lower <= iv.estimate + 1e-6 and iv.estimate - 1e-6 <= iv.upper <= np.sum(big_n - n + y)


def test_prevalence_intervals_are_each_strata_total_over_its_documents():
    out = prevalence_intervals([400, 90], [40, 30], [2, 0])
    one = total_interval([400], [40], [2])
    assert out[0].estimate == pytest.approx(2 / 40)
    assert out[0].upper == pytest.approx(one.upper / 400)


@pytest.mark.parametrize(
    "args,kwargs",
    [
        (([10], [0], [0]), {}),
        (([10], [5], [6]), {}),
        (([10, 4], [5], [1]), {}),
        (([10], [5], [1]), {"level": 1.2}),
        (([10], [5], [1]), {"method": "bayes"}),
    ],
)
def test_bad_counts_and_arguments_are_input_errors(args, kwargs):
    with pytest.raises(InputError):
        total_interval(*args, **kwargs)
