"""The inner weighted hinge SVM (Problem 3 for fixed multipliers) by Newton's method, against independent solvers."""

import numpy as np
import pytest

from engine.constraints._weighted_hinge import smooth_hinge, solve_weighted_hinge


def problem(n=400, d=5, seed=0, both=0.2):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d))
    y = x[:, 0] - 0.5 * x[:, 1] + rng.normal(0, 0.8, n) > 0
    hp = np.where(~y, rng.random(n), 0.0) / n
    hn = np.where(y, rng.random(n), 0.0) / n
    two = rng.random(n) < both  # rows carrying both hinges, as Problem 3 produces
    hp[two] += 0.3 / n
    hn[two] += 0.3 / n
    return x, hp, hn


def smoothed_objective(theta, x, hp, hn, lam, delta):
    w, b = theta[:-1], theta[-1]
    z = x @ w - b
    return float(hp @ smooth_hinge(0.5 + z, delta)[0] + hn @ smooth_hinge(0.5 - z, delta)[0]) + 0.5 * lam * w @ w


def test_smooth_hinge_bounds_the_hinge_and_matches_it_outside_the_kink():
    t = np.linspace(-2, 2, 4001)
    value, slope, in_kink = smooth_hinge(t, 0.2)
    assert np.all(value >= np.maximum(t, 0) - 1e-15)
    outside = np.abs(t) >= 0.1
    assert np.array_equal(value[outside], np.maximum(t, 0)[outside])
    assert np.allclose(np.gradient(value, t)[1:-1], slope[1:-1], atol=2e-3)
    assert np.array_equal(in_kink, np.abs(t) < 0.1)


@pytest.mark.parametrize("seed,lam,delta", [(0, 0.01, 0.2), (1, 0.05, 0.01), (2, 1e-4, 0.2), (3, 0.01, 1e-3)])
def test_newton_reaches_the_minimum_found_by_lbfgs(seed, lam, delta):
    from scipy.optimize import minimize

    x, hp, hn = problem(seed=seed)
    ours = solve_weighted_hinge(x, hp, hn, lam, smoothing=delta, max_steps=500)
    reference = minimize(
        smoothed_objective,
        np.zeros(x.shape[1] + 1),
        args=(x, hp, hn, lam, delta),
        method="L-BFGS-B",
        options={"maxiter": 50_000, "ftol": 1e-15, "gtol": 1e-12},
    )
    assert ours.objective <= reference.fun + 1e-9 * max(1.0, abs(reference.fun))
    assert ours.objective == pytest.approx(smoothed_objective(np.r_[ours.w, ours.b], x, hp, hn, lam, delta))
    assert np.allclose(ours.z, x @ ours.w - ours.b)


def test_tiny_smoothing_matches_the_exact_hinge_problem():
    import cvxpy as cp

    x, hp, hn = problem(n=300, seed=4)
    lam = 0.02
    ours = solve_weighted_hinge(x, hp, hn, lam, smoothing=1e-4, max_steps=500)
    w, b = cp.Variable(x.shape[1]), cp.Variable()
    z = x @ w - b
    exact = cp.Problem(cp.Minimize(hp @ cp.pos(0.5 + z) + hn @ cp.pos(0.5 - z) + lam / 2 * cp.sum_squares(w)))
    exact.solve()
    # the smoothed hinge exceeds the hinge by at most delta / 8 per unit of weight
    assert exact.value - 1e-6 <= ours.objective <= exact.value + 1e-4 / 8 * (hp.sum() + hn.sum()) + 1e-6  # cvxpy: ~1e-7


def test_warm_start_and_rows_without_weight():
    x, hp, hn = problem(seed=5)
    hp[:100] = hn[:100] = 0.0  # rows that carry no hinge play no part
    cold = solve_weighted_hinge(x, hp, hn, 0.01, smoothing=0.2)
    warm = solve_weighted_hinge(x, hp, hn, 0.01, smoothing=0.2, start=(cold.w * 0.8, cold.b + 0.1))
    assert warm.objective == pytest.approx(cold.objective, rel=1e-9)
    assert warm.steps <= cold.steps
    only = solve_weighted_hinge(x[100:], hp[100:], hn[100:], 0.01, smoothing=0.2)
    assert only.objective == pytest.approx(cold.objective, rel=1e-9)
