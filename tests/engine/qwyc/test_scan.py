"""The block-pruned QWYC* scan against the sorted formulation: brute force, step_thresholds, a NumPy QWYC* loop."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.qwyc import _scan as scan
from engine.qwyc._policy import _allowance, _qwyc_star, fit_qwyc, step_thresholds
from engine.qwyc.kernels import worker_pool

from .test_policy import brute_force_step


def scan_exits(f_t, g, d, budget, neg_only, block, exited=()):
    """Every candidate's exits through a Layout of ``block`` rows per block, some rows already exited."""
    n, t_count = g.size, f_t.shape[0]
    idx = np.arange(n)
    lay = scan.build(
        np.ascontiguousarray(f_t), False, idx, idx, g, d, np.arange(t_count), np.arange(t_count), t_count, block
    )
    where = np.isin(lay.rows, np.asarray(exited, dtype=np.int64))
    lay.lo[where], lay.hi[where] = np.inf, -np.inf
    exits = np.empty(t_count, dtype=np.int64)
    scan.scan_pick(
        lay.ft,
        lay.bfmin,
        lay.bfmax,
        lay.cfmin,
        lay.cfmax,
        lay.lo,
        lay.hi,
        lay.bstart,
        lay.nbp,
        lay.bgmin,
        lay.bgmax,
        lay.bcnt,
        lay.sufmin,
        lay.premax,
        np.arange(t_count),
        np.ones(t_count),
        budget,
        neg_only,
        exits,
    )
    return exits


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.integers(-3, 3), st.booleans(), st.booleans()), min_size=1, max_size=14),
    st.lists(st.lists(st.integers(-2, 2), min_size=14, max_size=14), min_size=1, max_size=4),
    st.integers(0, 5),
    st.booleans(),
    st.sampled_from([1, 2, 3, 64]),
)
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
@given(
    st.lists(st.tuples(st.integers(-4, 4), st.booleans()), min_size=1, max_size=16), st.integers(0, 6), st.booleans()
)
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


def assert_same_policy(f, bias, alpha, neg_only, budget, costs=None, parts=1, start=None, **layout):
    """QWYC* with ``parts`` threads scanning the candidates (and its first step from ``start``'s tables, when
    given) equals the sorted formulation in one thread."""
    c = np.ones(f.shape[1]) if costs is None else costs
    full = bias + f.sum(axis=1) >= 0.0
    with worker_pool(parts) as pool:
        # every step threaded (threaded_scan=0): the fit's own rule keeps small steps in one thread
        got = _qwyc_star(
            f, c, full, bias, alpha, neg_only, budget, pool=pool, parts=parts, threaded_scan=0, start=start, **layout
        )
    expected = sorted_qwyc(f, c, full, bias, alpha, neg_only, budget)
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[1], expected[1])
    np.testing.assert_array_equal(got[2], expected[2])
    assert got[3] == expected[3]


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 10_000),
    st.sampled_from([0.0, 0.05, 0.15]),
    st.booleans(),
    st.sampled_from(["greedy", "rationed"]),
    st.sampled_from([1, 2, 5]),
    st.sampled_from([1, 3]),
    st.sampled_from([1, 2, 3, 9]),
)
def test_small_blocks_and_frequent_rebuilds_give_the_sorted_policy(seed, alpha, neg_only, budget, block, steps, parts):
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
    from engine.qwyc._ensembles import from_sklearn

    shipped = adult_gbt_sample(120)
    adult = shipped.ensemble.contributions(shipped.x_train[:2500])
    x, y = make_classification(n_samples=1500, n_features=8, weights=[0.8], random_state=3)
    model = HistGradientBoostingClassifier(max_iter=60, max_depth=3, early_stopping=False, random_state=0).fit(x, y)
    sk = from_sklearn(model)
    rng = np.random.default_rng(5)
    dense = rng.normal(size=(1200, 50)) * np.linspace(1.0, 0.05, 50)
    return {
        "adult": (adult[:, 40:], shipped.ensemble.bias + adult[:, :40].sum(axis=1).mean()),
        "sklearn": (sk.contributions(x), sk.bias),
        "dense": (dense, 0.1),
    }


@pytest.mark.slow
@pytest.mark.parametrize("name", ["adult", "sklearn", "dense"])
@pytest.mark.parametrize(
    "alpha,neg_only,budget",
    [(0.0, False, "greedy"), (0.005, False, "greedy"), (0.02, True, "greedy"), (0.01, False, "rationed")],
)
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


def sorted_tables(f, g0, full, k):
    """The first step's tables from fully sorted columns: rows below the (b+1)-th smallest positive sum, above the
    (c+1)-th largest negative one (N past a side's rows)."""
    n, t_count = f.shape
    neg_tab, pos_tab = np.zeros((t_count, k), dtype=np.int64), np.zeros((t_count, k), dtype=np.int64)
    for t in range(t_count):
        g = g0 + f[:, t]
        pos, neg, every = np.sort(g[full]), np.sort(g[~full]), np.sort(g)
        for b in range(k):
            neg_tab[t, b] = np.searchsorted(every, pos[b], side="left") if b < pos.size else n
            pos_tab[t, b] = n - np.searchsorted(every, neg[neg.size - 1 - b], side="right") if b < neg.size else n
    return neg_tab, pos_tab


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 12), st.sampled_from([1, 2, 3]), st.booleans())
def test_first_step_tables_equal_the_sorted_columns_and_give_the_dense_pick(seed, k, parts, neg_only):
    rng = np.random.default_rng(seed)
    n, t_count = int(rng.integers(1, 40)), int(rng.integers(1, 7))
    f = np.round(rng.normal(size=(n, t_count)) * 2) / 4  # ties within and between the sides
    full = rng.random(n) < rng.uniform(0, 1)
    with worker_pool(parts) as pool:
        neg_tab, pos_tab = scan.dense_tables(f, 0.25, full, k, neg_only, pool, parts)
    expected_neg, expected_pos = sorted_tables(f, 0.25, full, k)
    np.testing.assert_array_equal(neg_tab, expected_neg)
    np.testing.assert_array_equal(pos_tab, 0 if neg_only else expected_pos)
    costs = rng.choice([1.0, 2.0], size=t_count)
    for budget in range(k):  # every budget below the tables' width: the pick and exits of a fit's own first step
        from_tables, dense = np.empty(t_count, dtype=np.int64), np.empty(t_count, dtype=np.int64)
        got = scan.table_pick(neg_tab, pos_tab, costs, budget, neg_only, n, from_tables)
        assert got == scan.dense_pick(f, 0.25, full, costs, budget, neg_only, dense)
        np.testing.assert_array_equal(from_tables, dense)
        for t in range(t_count):
            assert from_tables[t] == brute_force_step(0.25 + f[:, t], full, budget, neg_only)[0]


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 10_000),
    st.sampled_from([0.0, 0.05, 0.15, 0.3]),
    st.sampled_from([0.0, 0.1, 0.2]),
    st.booleans(),
    st.sampled_from(["greedy", "rationed"]),
    st.sampled_from([1, 2]),
)
def test_a_start_gives_the_sorted_policy_inside_and_beyond_its_alpha(seed, alpha, max_alpha, neg_only, budget, parts):
    from engine.qwyc import qwyc_start

    rng = np.random.default_rng(seed)
    n, t_count = int(rng.integers(5, 60)), int(rng.integers(2, 8))
    f = np.round(rng.normal(size=(n, t_count)) * 2) / 4
    start = qwyc_start(f, bias=0.25, max_alpha=max_alpha, workers=parts)
    assert_same_policy(f, 0.25, alpha, neg_only, budget, parts=parts, start=start, block=2, rebuild_steps=2)
