"""The audit's design: strata levels and ranks, allocation, planned half-width and the budget for a half-width."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from engine.audit._design import (
    allocate,
    budget_for_half_width,
    expected_half_width,
    pilot_prevalence,
    quantile_ranks,
    strata_bounds,
    stratum_levels,
)
from engine.errors import InputError


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=300),
    st.integers(1, 12),
    st.sampled_from(["geometric", "quantile"]),
)
def test_ranks_read_numpys_inverted_cdf_quantiles(values, strata, spacing):
    x = np.asarray(values)
    levels = stratum_levels(strata, spacing)
    if levels.size:
        assert np.array_equal(np.sort(x)[quantile_ranks(x.size, levels)], np.quantile(x, levels, method="inverted_cdf"))


def test_geometric_strata_halve_towards_the_line():
    assert np.allclose(stratum_levels(5), [0.5, 0.75, 0.875, 0.9375])
    assert np.allclose(stratum_levels(4, "quantile"), [0.25, 0.5, 0.75])
    assert stratum_levels(1).size == 0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 50), min_size=1, max_size=200), st.integers(1, 10))
def test_every_stratum_holds_documents(values, strata):
    x = np.asarray(values, dtype=float)
    lowers, uppers = strata_bounds(np.sort(x)[quantile_ranks(x.size, stratum_levels(strata))], x.min(), 51.0)
    counts = [np.sum((x >= lo) & (x < hi)) for lo, hi in zip(lowers, uppers)]
    assert min(counts) >= 1 and sum(counts) == x.size and uppers[-1] == 51.0


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.integers(1, 5000), min_size=1, max_size=8),
    st.floats(0, 1),
    st.sampled_from(["proportional", "equal", "neyman"]),
    st.integers(0, 10**6),
)
def test_allocation_sums_to_the_budget_within_each_strata_bounds(docs, share, allocation, seed):
    big_n = np.asarray(docs)
    low = int(np.minimum(big_n, 2).sum())
    budget = low + int(share * (big_n.sum() - low))
    prevalence = np.random.default_rng(seed).random(big_n.size) * 0.1
    n = allocate(budget, big_n, allocation, prevalence)
    assert n.sum() == budget and (n >= np.minimum(big_n, 2)).all() and (n <= big_n).all()


def test_allocation_rules_by_their_definition():
    big_n = np.array([6000, 3000, 1000])
    assert allocate(1000, big_n, "proportional").tolist() == [600, 300, 100]
    assert allocate(999, big_n, "equal").tolist() == [333, 333, 333]
    p = np.array([0.001, 0.01, 0.1])
    floored = np.maximum(p, big_n @ p / big_n.sum())  # no stratum below the average prevalence
    raw = big_n * np.sqrt(floored * (1 - floored))
    neyman = allocate(1000, big_n, "neyman", p)
    assert np.abs(neyman - 1000 * raw / raw.sum()).max() < 1  # largest remainders: within one of the real share


def test_allocation_refuses_what_it_cannot_do():
    with pytest.raises(InputError, match="at least 2 per stratum"):
        allocate(3, [10, 10], "proportional")
    with pytest.raises(InputError, match="every document"):
        allocate(30, [10, 10], "proportional")
    with pytest.raises(InputError, match="prior"):
        allocate(10, [10, 10], "neyman")
    with pytest.raises(InputError, match="allocation"):
        allocate(10, [10, 10], "optimal")


def test_expected_half_width_is_cochrans_normal_approximation():
    big_n, n, p = np.array([5000, 500]), np.array([100, 50]), np.array([0.002, 0.05])
    var = np.sum(big_n**2 * (big_n - n) / (big_n - 1) * p * (1 - p) / n)
    assert expected_half_width(big_n, n, p) == pytest.approx(stats.norm.ppf(0.975) * math.sqrt(var))
    assert expected_half_width(big_n, big_n, p) == 0  # a census has no sampling error


@pytest.mark.parametrize("allocation", ["proportional", "neyman", "equal"])
def test_budget_for_half_width_is_the_smallest_that_achieves_it(allocation):
    big_n, p = np.array([40000, 8000, 2000]), np.array([0.0005, 0.004, 0.03])
    budget = budget_for_half_width(30.0, big_n, allocation, p)

    def width(b):
        return expected_half_width(big_n, allocate(b, big_n, allocation, p), p)

    assert width(budget) <= 30.0 < width(budget - 1)


def test_pilot_prevalence_is_smoothed_and_falls_back_to_the_pilot_overall():
    scores = np.array([0.1, 0.2, 0.8, 0.85, 0.9])
    labels = np.array([0, 0, 1, 0, 1])
    weights = np.array([10.0, 10.0, 2.0, 2.0, 2.0])
    p = pilot_prevalence(scores, labels, weights, [0.0, 0.5, 0.95], [0.5, 0.95, 1.0])
    assert p[0] == pytest.approx((0 + 5) / (20 + 10))
    assert p[1] == pytest.approx((4 + 1) / (6 + 2))
    assert p[2] == pytest.approx((4 + 26 / 5 / 2) / (26 + 26 / 5))  # no pilot document there: the overall one
