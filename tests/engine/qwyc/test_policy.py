"""QWYC: Algorithm 2 against brute force, fidelity on the fit data, order invariance, baselines."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import InputError
from engine.qwyc import EarlyExitPolicy, fit_qwyc, qwyc_start, tradeoff_curves
from engine.qwyc._baselines import fit_fan, pareto_front, smaller_ensemble
from engine.qwyc._policy import fixed_order, fixed_order_sweep, step_thresholds


def brute_force_step(g, d, budget, neg_only):
    """Every pair of cuts between distinct values (ties never split); most exits, then fewest mistakes."""
    values = np.unique(g)
    cuts = np.r_[-np.inf, (values[:-1] + values[1:]) / 2, np.inf]
    best = (0, 0)
    for lo, hi in itertools.product(cuts, cuts):
        if lo > hi or (neg_only and hi != np.inf):
            continue
        down = g < lo
        up = (g > hi) & ~down
        mistakes = int((down & d).sum() + (up & ~d).sum())
        exits = int((down | up).sum())
        if mistakes <= budget and (exits > best[0] or (exits == best[0] and mistakes < best[1])):
            best = (exits, mistakes)
    return best


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.booleans()), min_size=1, max_size=12), st.integers(0, 4), st.booleans())
def test_algorithm_2_equals_brute_force_over_all_cut_pairs(rows, budget, neg_only):
    g = np.array([r[0] for r in rows], dtype=float)
    d = np.array([r[1] for r in rows])
    lo, hi, exits, mistakes = step_thresholds(g, d, budget, neg_only)
    up = g > hi
    down = (g < lo) & ~up
    assert int((up | down).sum()) == exits
    assert int((down & d).sum() + (up & ~d).sum()) == mistakes <= budget
    assert (exits, mistakes) == brute_force_step(g, d, budget, neg_only)
    if neg_only:
        assert not up.any()
    # ties are never split: equal running sums share their fate
    for v in np.unique(g):
        same = g == v
        assert len({bool(x) for x in up[same]}) == 1 and len({bool(x) for x in down[same]}) == 1


def synthetic_ensemble(seed=0, n=3000, t=40):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 5))
    weights = rng.normal(size=(t, 5)) * rng.uniform(0.05, 0.6, size=(t, 1))
    f = np.tanh(x @ weights.T) + rng.normal(0, 0.05, size=(n, t))
    y = (x[:, 0] + 0.5 * x[:, 1] + rng.normal(0, 0.5, n)) > 0
    return np.round(f, 3), y


@pytest.mark.parametrize("alpha", [0.0, 0.001, 0.005, 0.02, 0.1])
@pytest.mark.parametrize("budget", ["greedy", "rationed"])
@pytest.mark.parametrize("neg_only", [False, True])
def test_fidelity_constraint_holds_exactly_on_the_fit_data(alpha, budget, neg_only):
    f, _ = synthetic_ensemble()
    policy = fit_qwyc(f, alpha=alpha, threshold=0.1, bias=-0.2, budget=budget, neg_only=neg_only)
    decisions, n_eval = policy.predict(f)
    full = -0.2 + f.sum(1) >= 0.1
    disagreements = int((decisions != full).sum())
    assert disagreements <= np.floor(alpha * f.shape[0] + 1e-9)
    assert disagreements == policy.fit_disagreements
    if alpha == 0:
        assert disagreements == 0
    if neg_only:  # filter then score: no early positive, positives always fully scored
        assert np.all(n_eval[decisions] == f.shape[1])
        assert np.all(np.isinf(policy.eps_plus))
    assert sorted(policy.order.tolist()) == list(range(f.shape[1]))
    assert n_eval.mean() < f.shape[1]


def test_final_decision_does_not_depend_on_the_order():
    f, _ = synthetic_ensemble(1)
    full = f.sum(1) >= 0
    for order in ("natural", "random", "individual_mse", "greedy_mse", list(reversed(range(f.shape[1])))):
        p = fixed_order(f, order, alpha=0.0)
        decisions, _ = p.predict(f)
        np.testing.assert_array_equal(decisions, full)
    # with every threshold disabled the decision is the full ensemble's in any order
    rng = np.random.default_rng(2)
    for _ in range(3):
        perm = rng.permutation(f.shape[1])
        p = EarlyExitPolicy(
            perm, np.full(f.shape[1], -np.inf), np.full(f.shape[1], np.inf), 0.0, 0.0, np.ones(f.shape[1]), 0.0, "none"
        )
        np.testing.assert_array_equal(p.predict(f)[0], full)


def test_costs_scale_the_objective_and_leave_the_order_unchanged():
    f, _ = synthetic_ensemble(3, n=1500, t=25)
    a = fit_qwyc(f, alpha=0.01)
    b = fit_qwyc(f, alpha=0.01, costs=np.full(f.shape[1], 7.0))
    np.testing.assert_array_equal(a.order, b.order)
    np.testing.assert_array_equal(a.eps_minus, b.eps_minus)
    assert b.evaluate(f)["mean_cost"] == pytest.approx(7.0 * a.evaluate(f)["mean_cost"])


def test_unequal_costs_favour_cheap_models():
    f, _ = synthetic_ensemble(4, n=1500, t=20)
    costs = np.ones(f.shape[1])
    first = fit_qwyc(f, alpha=0.01).order[0]
    costs[first] = 1000.0
    assert fit_qwyc(f, alpha=0.01, costs=costs).order[0] != first


def test_qwyc_beats_fixed_orders_on_the_fit_data():
    f, _ = synthetic_ensemble(5)
    q = fit_qwyc(f, alpha=0.01).evaluate(f)["mean_models"]
    for order in ("natural", "random", "individual_mse", "greedy_mse"):
        assert q <= fixed_order(f, order, alpha=0.01).evaluate(f)["mean_models"] + 1e-9


def test_explicit_order_and_errors():
    f, _ = synthetic_ensemble(6, n=500, t=10)
    p = fit_qwyc(f, order=list(range(9, -1, -1)), alpha=0.01)
    assert p.order.tolist() == list(range(9, -1, -1)) and p.method == "explicit"
    with pytest.raises(ValueError, match="permutation"):
        fit_qwyc(f, order=[0, 0, 1, 2, 3, 4, 5, 6, 7, 8])
    with pytest.raises(ValueError, match="alpha"):
        fit_qwyc(f, alpha=1.5)
    with pytest.raises(ValueError, match="costs"):
        fit_qwyc(f, costs=np.zeros(10))
    with pytest.raises(ValueError, match="NaN"):
        fit_qwyc(np.full((3, 2), np.nan))


def test_fan_and_smaller_ensemble_baselines():
    f, y = synthetic_ensemble(7)
    full = f.sum(1) >= 0
    loose, tight = fit_fan(f, gamma=1.0), fit_fan(f, gamma=6.0)
    lm, tm = loose.evaluate(f), tight.evaluate(f)
    assert lm["mean_models"] < tm["mean_models"]  # more confidence, later exits
    assert lm["disagreement_pct"] >= tm["disagreement_pct"]
    s = smaller_ensemble(f, 5)
    decisions, n_eval = s.predict(f)
    np.testing.assert_array_equal(decisions, f[:, :5].sum(1) >= 0)
    assert np.all(n_eval == 5)
    assert smaller_ensemble(f, f.shape[1]).evaluate(f)["disagreement_pct"] == 0
    assert fit_fan(f, gamma=1e9).predict(f)[0].tolist() == full.tolist()


def test_tradeoff_curves_and_pareto():
    f, y = synthetic_ensemble(8, n=1200, t=15)
    table = tradeoff_curves(
        f[:800],
        f[800:],
        labels_fit=y[:800],
        labels_test=y[800:],
        alphas=(0.0, 0.01, 0.05),
        orders=("qwyc", "natural"),
        gammas=(1.0, 4.0),
        ks=[3, 15],
    )
    assert set(table["method"]) == {"qwyc", "natural", "fan", "smaller"}
    assert {"test_mean_models", "test_disagreement_pct", "test_accuracy", "pareto"} <= set(table.columns)
    assert table.groupby("method")["pareto"].any().all()
    idx = pareto_front(np.array([1, 2, 3, 2]), np.array([5, 3, 4, 6]))
    assert idx.tolist() == [0, 1]


@pytest.mark.parametrize(
    "order, neg_only, budget",
    [("natural", False, "greedy"), ("greedy_mse", True, "rationed"), ("random", False, "rationed")],
)
def test_a_sweep_over_alpha_gives_each_alphas_fixed_order_policy(order, neg_only, budget):
    f, _ = synthetic_ensemble(seed=2, n=800, t=15)
    bias = 0.1
    alphas = (0.0, 0.004, 0.02, 0.1)
    swept = fixed_order_sweep(f, order, alphas, bias=bias, neg_only=neg_only, budget=budget)
    for alpha, policy in zip(alphas, swept):
        alone = fixed_order(f, order, alpha=alpha, bias=bias, neg_only=neg_only, budget=budget)
        assert np.array_equal(policy.order, alone.order) and policy.method == alone.method == order
        assert np.array_equal(policy.eps_minus, alone.eps_minus) and np.array_equal(policy.eps_plus, alone.eps_plus)
        assert policy.fit_disagreements == alone.fit_disagreements and policy.alpha == alpha


def _greedy_mse_oracle(f, target, bias):
    """The greedy-MSE order as first written: one matrix-vector product over all rows per step."""
    resid = target - bias
    sq = (f * f).sum(axis=0)
    left = np.ones(f.shape[1], dtype=bool)
    perm = np.empty(f.shape[1], dtype=np.int64)
    for r in range(f.shape[1]):
        gain = np.where(left, sq - 2 * (resid @ f), np.inf)
        t = int(np.argmin(gain))
        perm[r] = t
        left[t] = False
        resid = resid - f[:, t]
    return perm


def _full_and_label_targets(f, bias, labels):
    full = bias + f.sum(axis=1)
    return full, np.where(labels.astype(bool), 1.0, -1.0) * np.abs(full).mean()


@pytest.mark.parametrize("seed", range(4))
def test_greedy_mse_order_equals_the_row_by_row_oracle_on_random_matrices(seed):
    from engine.qwyc._policy import order_permutation

    rng = np.random.default_rng(seed)
    n, t = (500, 40) if seed % 2 else (3000, 120)
    f = rng.normal(size=(n, t)) * rng.uniform(0.01, 1.0, size=t)
    f[:, 3] = f[:, 7]  # an exact tie: the first index wins in both
    f[:, 5] = 0.0
    bias = float(rng.normal())
    labels = rng.integers(0, 2, size=n)
    for target, lab in zip(_full_and_label_targets(f, bias, labels), (None, labels)):
        perm, name = order_permutation(f, "greedy_mse", bias=bias, labels=lab)
        assert name == "greedy_mse"
        np.testing.assert_array_equal(perm, _greedy_mse_oracle(f, target, bias))


@pytest.mark.slow
def test_greedy_mse_order_equals_the_oracle_on_the_shipped_adult_model():
    from engine.qwyc import adult_gbt_sample
    from engine.qwyc._policy import order_permutation

    shipped = adult_gbt_sample()
    f = shipped.ensemble.contributions(shipped.x_train)
    bias = shipped.ensemble.bias
    for target, lab in zip(_full_and_label_targets(f, bias, np.asarray(shipped.y_train)), (None, shipped.y_train)):
        np.testing.assert_array_equal(
            order_permutation(f, "greedy_mse", bias=bias, labels=lab)[0], _greedy_mse_oracle(f, target, bias)
        )


@pytest.fixture(scope="module")
def adult_contributions():
    from engine.qwyc import adult_gbt_sample

    shipped = adult_gbt_sample(200)
    return shipped.ensemble.contributions(shipped.x_train[:6000]), shipped.ensemble.bias


@pytest.mark.parametrize(
    "alpha,neg_only,budget",
    [
        (0.005, False, "greedy"),
        (0.0055, False, "greedy"),
        (0.0, False, "greedy"),
        (0.01, True, "greedy"),
        (0.02, False, "rationed"),
        (0.05, False, "greedy"),
        (0.2, False, "greedy"),
    ],
)
def test_fits_from_one_start_equal_fresh_fits_on_the_shipped_model(adult_contributions, alpha, neg_only, budget):
    """One start per F serves every α (and, past its max_alpha, the fit reads F): the policy of a fit without it."""
    f, bias = adult_contributions
    start = qwyc_start(f, bias=bias, max_alpha=0.05)
    assert start.f is f and start.nbytes == 2 * 4 * f.shape[1] * (int(0.05 * f.shape[0]) + 1)
    fresh = fit_qwyc(f, alpha=alpha, bias=bias, neg_only=neg_only, budget=budget)
    for source in (f, f.copy()):  # the start's own array, or an equal one
        got = fit_qwyc(source, alpha=alpha, bias=bias, neg_only=neg_only, budget=budget, start=start, workers=2)
        for field in ("order", "eps_minus", "eps_plus"):
            np.testing.assert_array_equal(getattr(got, field), getattr(fresh, field))
        assert got.fit_disagreements == fresh.fit_disagreements


def test_a_start_of_another_f_threshold_or_bias_is_refused():
    rng = np.random.default_rng(0)
    f = rng.normal(size=(50, 4))
    start = qwyc_start(f, bias=0.5, threshold=0.1)
    fit_qwyc(f, bias=0.5, threshold=0.1, start=start)
    with pytest.raises(InputError, match="another contribution matrix"):
        fit_qwyc(f + 1e-9, bias=0.5, threshold=0.1, start=start)
    with pytest.raises(InputError, match="bias 0.5 and threshold 0.1"):
        fit_qwyc(f, bias=0.4, threshold=0.1, start=start)
    with pytest.raises(InputError, match="bias 0.5 and threshold 0.1"):
        fit_qwyc(f, bias=0.5, start=start)
    with pytest.raises(InputError, match="max_alpha"):
        qwyc_start(f, max_alpha=1.0)
    with pytest.raises(InputError, match="infinite"):
        qwyc_start(np.full((3, 2), np.inf))


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_predict_splits_rows_over_threads_with_the_same_result(workers):
    from engine.qwyc._policy import THREADED_ROWS
    from engine.qwyc.kernels import run_policy

    rng = np.random.default_rng(workers)
    f = rng.normal(size=(THREADED_ROWS + 37, 12)) * 0.3
    y = rng.random(f.shape[0]) < 0.4
    policy = fit_qwyc(f, alpha=0.02, bias=0.1)
    expected = run_policy(f, policy.order, policy.eps_minus, policy.eps_plus, 0.1, 0.0)  # one range, no threads
    got = policy.predict(f, workers=workers)
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[1], expected[1])
    assert policy.evaluate(f, y, predicted=got) == policy.evaluate(f, y)


@pytest.mark.parametrize("neg_only", [False, True])
def test_tradeoff_curves_give_each_alphas_own_qwyc_fit(adult_contributions, neg_only):
    """The sweep counts QWYC*'s first step once for all α: its rows are those of a fit per α without it."""
    f, bias = adult_contributions
    f_fit, f_test = f[:4000], f[4000:]
    alphas = (0.0, 0.0025, 0.01, 0.02)
    table = tradeoff_curves(
        f_fit, f_test, bias=bias, neg_only=neg_only, alphas=alphas, orders=("qwyc",), gammas=(), ks=[5]
    )
    got = table[table["method"] == "qwyc"].set_index("parameter")
    full_fit, full_test = bias + f_fit.sum(axis=1) >= 0, bias + f_test.sum(axis=1) >= 0
    for alpha in alphas:
        policy = fit_qwyc(f_fit, alpha=alpha, bias=bias, neg_only=neg_only)
        expected = {
            **{f"fit_{k}": v for k, v in policy.evaluate(f_fit, full=full_fit).items()},
            **{f"test_{k}": v for k, v in policy.evaluate(f_test, full=full_test).items()},
        }
        assert {k: got.loc[alpha, k] for k in expected} == expected
