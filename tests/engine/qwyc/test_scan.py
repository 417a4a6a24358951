"""The block-pruned QWYC* scan against the sorted formulation: brute force, step_thresholds, a NumPy QWYC* loop."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.qwyc import scan, step_thresholds
from engine.qwyc.kernels import worker_pool
from engine.qwyc.policy import _allowance, _qwyc_star, fit_qwyc

from .test_policy import brute_force_step


def scan_exits(f_t, g, d, budget, neg_only, block, exited=()):
    """Every candidate's exits through a Layout of ``block`` rows per block, some rows already exited."""
    n, t_count = g.size, f_t.shape[0]
    idx = np.arange(n)
    lay = scan.build(np.ascontiguousarray(f_t), False, idx, idx, g, d, np.arange(t_count), np.arange(t_count),
                     t_count, block)
    where = np.isin(lay.rows, np.asarray(exited, dtype=np.int64))
    lay.lo[where], lay.hi[where] = np.inf, -np.inf
    exits = np.empty(t_count, dtype=np.int64)
    scan.scan_pick(lay.ft, lay.bfmin, lay.bfmax, lay.cfmin, lay.cfmax, lay.lo, lay.hi, lay.bstart, lay.nbp, lay.bgmin,
                   lay.bgmax, lay.bcnt, lay.sufmin, lay.premax, np.arange(t_count), np.ones(t_count), budget, neg_only,
                   exits)
    return exits


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(-3, 3), st.booleans(), st.booleans()), min_size=1, max_size=14),
       st.lists(st.lists(st.integers(-2, 2), min_size=14, max_size=14), min_size=1, max_size=4),
       st.integers(0, 5), st.booleans(), st.sampled_from([1, 2, 3, 64]))
def test_scan_exits_equal_brute_force_over_all_cut_pairs(rows, columns, budget, neg_only, block):
    n = len(rows)
    g = np.array([r[0] for r in rows], dtype=float) / 2
    d = np.array([r[1] for r in rows], dtype=bool)
    exited = [i for i, r in enumerate(rows) if r[2]]
    f_t = np.array(columns, dtype=float)[:, :n] / 4  # candidates x rows: ties between and within sides
    got = scan_exits(f_t, g, d, budget, neg_only, block, exited)
    left = np.setdiff1d(np.arange(n), exited)
    for j, col in enumerate(f_t):
        expected = brute_force_step((g + col)[left], d[left], budget, neg_only)[0] if left.size else 0
        assert got[j] == expected


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.integers(-4, 4), st.booleans()), min_size=1, max_size=16), st.integers(0, 6),
       st.booleans())
def test_split_gives_the_thresholds_of_the_sorted_formulation(rows, budget, neg_only):
    g = np.array([r[0] for r in rows], dtype=float) / 3
    d = np.array([r[1] for r in rows], dtype=bool)
    lo, hi, exits, mistakes, everyone = scan.split(g[d], g[~d], budget, neg_only)
    expected = step_thresholds(g, d, budget, neg_only)
    if everyone:  # the caller takes the sorted formulation's one-cut rule
        assert expected[2] == g.size
    else:
        assert (lo, hi, exits, mistakes) == expected


def sorted_qwyc(f, c, full, bias, alpha, neg_only, budget):
    """QWYC* in the sorted formulation (the NumPy implementation the scan replaced): every candidate sorted."""
    n, t_count = f.shape
    g = np.full(n, bias)
    active = np.arange(n)
    remaining = np.arange(t_count)
    order, lo_all, hi_all = [], np.full(t_count, -np.inf), np.full(t_count, np.inf)
    spent = 0
    for r in range(t_count - 1):
        if active.size == 0:
            break
        allowed = _allowance(alpha, n, r, t_count, budget) - spent
        d = full[active]
        exits = np.array([step_thresholds(g[active] + f[active, t], d, allowed, neg_only)[2] for t in remaining])
        with np.errstate(divide="ignore"):
            ratio = np.where(exits > 0, c[remaining] / np.maximum(exits, 1), np.inf)
        pick = int(np.argmin(ratio)) if np.isfinite(ratio).any() else int(np.argmin(c[remaining]))
        t = int(remaining[pick])
        order.append(t)
        remaining = np.delete(remaining, pick)
        g[active] += f[active, t]
        lo, hi, _, mistakes = step_thresholds(g[active], d, allowed, neg_only)
        lo_all[r], hi_all[r] = lo, hi
        spent += mistakes
        ga = g[active]
        active = active[~((ga > hi) | (ga < lo))]
    rest = remaining if active.size else remaining[np.argsort(c[remaining], kind="stable")]
    return np.r_[order, rest].astype(np.int64), lo_all, hi_all, spent


def assert_same_policy(f, bias, alpha, neg_only, budget, costs=None, parts=1, **layout):
    """QWYC* with ``parts`` threads scanning the candidates equals the sorted formulation in one thread."""
    c = np.ones(f.shape[1]) if costs is None else costs
    full = bias + f.sum(axis=1) >= 0.0
    with worker_pool(parts) as pool:
        # every step threaded (threaded_scan=0): the fit's own rule keeps small steps in one thread
        got = _qwyc_star(f, c, full, bias, alpha, neg_only, budget, pool=pool, parts=parts, threaded_scan=0,
                         **layout)
    expected = sorted_qwyc(f, c, full, bias, alpha, neg_only, budget)
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[1], expected[1])
    np.testing.assert_array_equal(got[2], expected[2])
    assert got[3] == expected[3]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([0.0, 0.05, 0.15]), st.booleans(), st.sampled_from(["greedy",
       "rationed"]), st.sampled_from([1, 2, 5]), st.sampled_from([1, 3]), st.sampled_from([1, 2, 3, 9]))
def test_small_blocks_and_frequent_rebuilds_give_the_sorted_policy(seed, alpha, neg_only, budget, block, steps,
                                                                   parts):
    rng = np.random.default_rng(seed)
    n, t_count = int(rng.integers(5, 60)), int(rng.integers(2, 8))
    f = np.round(rng.normal(size=(n, t_count)) * 2) / 4  # coarse values: many ties
    # more threads than candidates too: a part with none must leave the others' exits alone
    assert_same_policy(f, 0.25, alpha, neg_only, budget, parts=parts, block=block, rebuild_steps=steps)


@pytest.fixture(scope="module")
def models():
    """Contributions of three kinds of ensembles: the shipped Adult model, a scikit-learn model, continuous."""
    from sklearn.datasets import make_classification
    from sklearn.ensemble import HistGradientBoostingClassifier

    from engine.qwyc import adult_gbt_sample
    from engine.qwyc.ensembles import from_sklearn

    shipped = adult_gbt_sample(120)
    adult = shipped.ensemble.contributions(shipped.x_train[:2500])
    x, y = make_classification(n_samples=1500, n_features=8, weights=[0.8], random_state=3)
    model = HistGradientBoostingClassifier(max_iter=60, max_depth=3, early_stopping=False, random_state=0).fit(x, y)
    sk = from_sklearn(model)
    rng = np.random.default_rng(5)
    dense = rng.normal(size=(1200, 50)) * np.linspace(1.0, 0.05, 50)
    return {"adult": (adult[:, 40:], shipped.ensemble.bias + adult[:, :40].sum(axis=1).mean()),
            "sklearn": (sk.contributions(x), sk.bias), "dense": (dense, 0.1)}


@pytest.mark.parametrize("name", ["adult", "sklearn", "dense"])
@pytest.mark.parametrize("alpha,neg_only,budget", [(0.0, False, "greedy"), (0.005, False, "greedy"),
                                                   (0.02, True, "greedy"), (0.01, False, "rationed")])
def test_fit_qwyc_gives_the_sorted_policy_on_real_models(models, name, alpha, neg_only, budget):
    f, bias = models[name]
    assert_same_policy(f, bias, alpha, neg_only, budget)
    assert_same_policy(f, bias, alpha, neg_only, budget, parts=3, block=8, rebuild_steps=2)
    policy = fit_qwyc(f, alpha=alpha, bias=bias, neg_only=neg_only, budget=budget)
    assert policy.fit_disagreements <= int(np.floor(alpha * f.shape[0] + 1e-9))
    threaded = fit_qwyc(f, alpha=alpha, bias=bias, neg_only=neg_only, budget=budget, workers=2)
    for field in ("order", "eps_minus", "eps_plus"):
        np.testing.assert_array_equal(getattr(threaded, field), getattr(policy, field))


def test_unequal_costs_give_the_sorted_policy(models):
    f, bias = models["sklearn"]
    costs = np.random.default_rng(0).uniform(0.5, 3.0, size=f.shape[1])
    assert_same_policy(f, bias, 0.01, False, "greedy", costs=costs)
