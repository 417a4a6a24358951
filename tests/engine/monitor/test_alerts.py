"""The e-detector: its e-values by exact enumeration, the mixture against brute-force loops, and its
false-alarm rate and detection delay by simulation against a per-period test."""

import itertools

import numpy as np
import pytest
from scipy import stats
from scipy.special import logsumexp

from engine.monitor import simulate_alerts
from engine.monitor._alerts import (
    BAND_SIZES,
    ODDS_RATIOS,
    alternatives,
    e_detector,
    log_likelihood_ratios,
    naive_alarms,
    start_weights,
)


@pytest.mark.parametrize("side", ["low", "high"])
def test_likelihood_ratios_have_expectation_at_most_one_under_the_null(side):
    m, n = 0.3, 12
    x = np.arange(n + 1)
    null_ps = (0.3, 0.4, 0.9) if side == "low" else (0.3, 0.2, 0.01)
    for p in null_ps:
        lr = np.exp(log_likelihood_ratios(x[:, None], np.full((n + 1, 1), n), m, side))
        expectation = stats.binom.pmf(x, n, p) @ lr
        assert np.all(expectation <= 1 + 1e-12)
        if p == m:
            np.testing.assert_allclose(expectation, 1.0, rtol=1e-12)
    # alternatives: the other side of the target, ordered by the odds ratios
    q = alternatives(m, side)
    assert np.all(q < m) if side == "low" else np.all(q > m)


def test_unequal_probabilities_with_mean_at_the_target_keep_the_expectation_below_one():
    """AM-GM: a band whose documents differ but average at least M (exact enumeration of 2^8 outcomes)."""
    m = 0.3
    ps = np.array([0.05, 0.1, 0.2, 0.3, 0.35, 0.4, 0.45, 0.55])
    ps *= m / ps.mean()
    outcomes = np.array(list(itertools.product((0, 1), repeat=ps.size)))
    prob = np.prod(np.where(outcomes == 1, ps, 1 - ps), axis=1)
    x = outcomes.sum(axis=1)
    lr = np.exp(log_likelihood_ratios(x[:, None], np.full((x.size, 1), ps.size), m, "low"))
    assert np.all(prob @ lr <= 1 + 1e-12)


def _brute_force(xa, na, xb, nb, m):
    """log D_n by explicit sums over starts, bands and alternatives."""
    out = []
    for n in range(xa.shape[0]):
        sides = []
        for x, t, side in ((xa, na, "low"), (xb, nb, "high")):
            q = alternatives(m, side)
            total = []
            for j in range(n + 1):
                w = 1 / ((j + 1) * (j + 2))
                for b in range(x.shape[1]):
                    for qk in q:
                        ll = sum(
                            x[i, b] * np.log(qk / m) + (t[i, b] - x[i, b]) * np.log((1 - qk) / (1 - m))
                            for i in range(j, n + 1)
                        )
                        total.append(np.log(w) + ll - np.log(x.shape[1] * q.size))
            sides.append(logsumexp(total))
        out.append(np.logaddexp(*sides) - np.log(2))
    return np.array(out)


def test_detector_equals_brute_force():
    rng = np.random.default_rng(0)
    periods, bands = 7, 3
    na = rng.integers(0, 40, (periods, bands)).astype(float)
    nb = rng.integers(0, 40, (periods, bands)).astype(float)
    xa, xb = rng.binomial(na.astype(int), 0.2), rng.binomial(nb.astype(int), 0.35)
    ev = e_detector(xa, na, xb, nb, 0.3, 0.05)
    np.testing.assert_allclose(ev.log_e, _brute_force(xa, na, xb, nb, 0.3), rtol=1e-10)
    # the reason's band and start: the (band, alternative) process with the largest mixture, and the start
    # contributing most to it, by explicit loops
    q = alternatives(0.3, "low")
    for n in range(periods):
        terms = np.array(
            [
                [
                    np.log(1 / ((j + 1) * (j + 2)))
                    + sum(
                        xa[i, b] * np.log(qk / 0.3) + (na[i, b] - xa[i, b]) * np.log((1 - qk) / 0.7)
                        for i in range(j, n + 1)
                    )
                    for j in range(n + 1)
                ]
                for b in range(bands)
                for qk in q
            ]
        )
        strongest = int(np.argmax(logsumexp(terms, axis=1)))
        if ev.side[n] == "low":
            assert (ev.band[n], ev.since[n]) == (strongest // q.size, int(np.argmax(terms[strongest])))
    assert abs(start_weights(10_000).sum() - 1) < 1e-3 and ODDS_RATIOS and BAND_SIZES


def test_the_detector_is_linear_in_the_periods():
    """10,000 periods (27 years of days) in one pass: the same values as the first 50 periods alone."""
    rng = np.random.default_rng(1)
    n = np.tile(np.array(BAND_SIZES, dtype=float), (10_000, 1))
    x = rng.binomial(n.astype(int), 0.3).astype(float)
    long = e_detector(x, n, x, n, 0.3, 0.05)
    short = e_detector(x[:50], n[:50], x[:50], n[:50], 0.3, 0.05)
    np.testing.assert_allclose(long.log_e[:50], short.log_e, rtol=1e-12)
    assert long.log_e.shape == (10_000,)


def test_no_evidence_keeps_the_detector_at_its_start_weight():
    zeros = np.zeros((5, 2))
    ev = e_detector(zeros, zeros, zeros, zeros, 0.3, 0.05)
    np.testing.assert_allclose(np.exp(ev.log_e), start_weights(5).cumsum(), rtol=1e-12)
    assert not ev.alarms.any()


@pytest.mark.slow
def test_stationary_runs_raise_false_alarms_in_at_most_alpha_of_runs_the_per_period_test_in_most():
    """52 weekly looks at the null's boundary (a flat marginal precision equal to the target at T)."""
    sim = simulate_alerts(runs=200, periods=52, docs=200, slope=0.0, level=0.95, seed=11)
    assert sim.false_alarm_rate() <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / 200)
    assert (
        sim.false_alarm_rate(naive=True) >= 0.5
    )  # about 1 - 0.95^52 = 0.93 in theory; discrete tests are conservative


def test_a_drift_is_detected_within_a_few_periods():
    """Marginal precision at T falls from 0.30 to about 0.18 (log-odds -0.7) after period 20."""
    sim = simulate_alerts(runs=100, periods=40, docs=200, slope=0.5, drift_at=20, drop=0.7, seed=12)
    delays = sim.delays()
    assert sim.false_alarm_rate() <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / 100)
    assert np.mean(np.isfinite(delays)) >= 0.95
    assert np.nanmedian(delays) <= 8 and np.nanpercentile(delays, 90) <= 12


def test_naive_alarms_are_the_per_period_confidence_set():
    x, n = np.array([[10, 30]]), np.array([[100, 100]])
    # 10 of 100 positives just above T: the upper bound is far below 0.3
    assert naive_alarms(x, n, np.zeros_like(x), np.zeros_like(n), 0.3, 0.05).tolist() == [[True, False]]
    # 50 of 100 just below T: the lower bound is above 0.3
    assert naive_alarms(np.zeros_like(x), np.zeros_like(n), np.array([[50, 30]]), n, 0.3, 0.05).tolist() == [
        [True, False]
    ]
