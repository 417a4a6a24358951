"""The post-hoc baselines of the Adult experiments against direct loops over the thresholds."""

import numpy as np
import pytest

from engine.constraints import DemographicParity, MaxChurn, MinCoverage, MinRecall
from engine.constraints._experiments import shift_bias
from engine.constraints._solver import linear_svm
from engine.errors import InputError


def toy(n=900, seed=0):
    rng = np.random.default_rng(seed)
    group = rng.random(n) < 0.4
    x = rng.normal(size=(n, 3)) + np.c_[np.where(group, -0.8, 0.4), np.zeros((n, 2))]
    y = (x[:, 0] + 0.6 * x[:, 1] + rng.normal(0, 0.7, n) > 0).astype(int)
    y[rng.random(n) < 0.1] = -1  # unlabelled rows: in the constraints, not in the error
    deployed = (x[:, 1] + rng.normal(0, 1, n) > 0.3).astype(int)
    return x, y, group, deployed


def shift_bias_by_loop(model, x, y, constraints, candidates=400):
    """The definition: every candidate threshold in turn, the first with the fewest errors among those that meet all."""
    s = model.decision_function(x)
    exprs = [c.expression(y) for c in constraints]
    grid = np.unique(np.quantile(s, np.linspace(0, 1, candidates)))
    best = None
    for t in np.r_[grid, grid[-1] + 1.0]:
        if all(e.value(s - t, deterministic=True) <= 1e-12 for e in exprs):
            err = np.mean((s - t >= 0)[y >= 0] != (y[y >= 0] == 1))
            if best is None or err < best[0]:
                best = (err, t)
    return None if best is None else best[1]


@pytest.mark.parametrize(
    "make",
    [
        lambda group, deployed: [MinRecall(0.5)],
        lambda group, deployed: [MaxChurn(deployed, 0.35), MinRecall(0.4)],
        lambda group, deployed: [DemographicParity(group, ~group, 0.6)],
        lambda group, deployed: [MinCoverage(0.3), MinRecall(0.7)],
        lambda group, deployed: [MaxChurn(deployed, 0.01), MinRecall(0.99)],
    ],
)
def test_shift_bias_keeps_the_threshold_of_the_direct_loop(make):
    x, y, group, deployed = toy()
    svm = linear_svm(x, y)
    constraints = make(group, deployed)
    want = shift_bias_by_loop(svm, x, y, constraints)
    if want is None:
        with pytest.raises(InputError):
            shift_bias(svm, x, y, constraints)
    else:
        assert shift_bias(svm, x, y, constraints).threshold == want


def group_thresholds_by_grid(s, y, g, kappa, candidates=120):
    """The definition: every pair of per-group candidate thresholds, the first pair with the fewest errors."""
    qs = np.linspace(0, 1, candidates)
    tp = np.r_[np.quantile(s[g], qs), s[g].max() + 1]
    tr = np.r_[np.quantile(s[~g], qs), s[~g].max() + 1]
    best = None
    for a in tp:
        for b in tr:
            d = np.where(g, s >= a, s >= b)
            if d[g].mean() >= kappa * d[~g].mean() - 1e-12:
                err = int(np.count_nonzero(d != (y == 1)))
                if best is None or err < best[0]:
                    best = (err, a, b)
    return best[1], best[2]


@pytest.mark.parametrize("kappa", [0.3, 0.8, 1.0])
def test_group_thresholds_keep_the_pair_of_the_direct_grid(kappa):
    from engine.constraints._experiments import group_thresholds

    x, y, group, _ = toy()
    x = np.round(x, 1)  # tied scores
    svm = linear_svm(x, y)
    s = svm.decision_function(x)
    got = group_thresholds(svm, x, y, group, kappa, candidates=30)
    assert got.group_thresholds == group_thresholds_by_grid(s, y, group, kappa, candidates=30)
    assert group_thresholds(svm, x, y, group, kappa, candidates=30, scores=s) == got
    np.testing.assert_array_equal(got.decide(s, group), got.predict(x, group))


def test_adult_design_equals_scikit_learns_column_transformer():
    from sklearn.compose import make_column_transformer
    from sklearn.preprocessing import OneHotEncoder

    from engine.constraints import adult_data
    from engine.io._public_data import load_public_dataset

    adult = load_public_dataset("adult")
    x, xt = adult.x, adult.x_test
    cats = [c for c in x.columns if x[c].dtype.kind not in "iufb"]
    nums = [c for c in x.columns if c not in cats]
    fill = {c: "missing" for c in cats}
    xt = xt.fillna(fill)
    xt.loc[xt.index[:3], cats[0]] = "a category never seen in training"
    enc = make_column_transformer(
        ("passthrough", nums), (OneHotEncoder(handle_unknown="ignore", sparse_output=False), cats)
    )
    want_train, want_test = enc.fit_transform(x.fillna(fill)), enc.transform(xt)
    from engine.constraints._experiments import _one_hot

    got_train, got_test, names = _one_hot(x.fillna(fill), xt, nums, cats)
    np.testing.assert_array_equal(got_train, want_train)
    np.testing.assert_array_equal(got_test, want_test)
    assert names == tuple(enc.get_feature_names_out())
    data = adult_data()
    np.testing.assert_array_equal(data.x_train, want_train)
    assert data.feature_names == names
