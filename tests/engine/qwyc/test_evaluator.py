"""The compiled early-exit evaluator against each library's own predict and the policy on F."""

import numpy as np
import pandas as pd
import pytest

from engine.qwyc import EarlyExitPolicy, fit_qwyc
from engine.qwyc._evaluator import flatten_ensemble
from engine.qwyc._models import load_model
from engine.qwyc._policy import lightgbm_early_stop_policy

lightgbm = pytest.importorskip("lightgbm")
xgboost = pytest.importorskip("xgboost")
skops_io = pytest.importorskip("skops.io")

FEATURES = [f"feature_{j}" for j in range(5)]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(1500, 5))
    x[rng.random(x.shape) < 0.08] = np.nan
    x[rng.random(x.shape) < 0.05] = 0.0
    y = (np.nan_to_num(x[:, 0]) - np.nan_to_num(x[:, 1]) + rng.normal(size=1500) > 0).astype(int)
    return pd.DataFrame(x, columns=FEATURES), y


def lightgbm_file(frame, y, **options):
    model = lightgbm.LGBMClassifier(n_estimators=60, max_depth=4, verbose=-1, **options).fit(frame, y)
    return model.booster_, model.booster_.model_to_string().encode()


@pytest.fixture(scope="module")
def models(data):
    """(name, model file, the library's own raw margin or None) of each kind, trained once for the module."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    frame, y = data
    trained = []
    for options in ({}, {"zero_as_missing": True}, {"use_missing": False}):
        booster, raw = lightgbm_file(frame, y, **options)
        trained.append((f"lightgbm {options}", raw, lambda x, b=booster: b.predict(x, raw_score=True)))
    xgb = xgboost.XGBClassifier(n_estimators=50, max_depth=4).fit(frame, y).get_booster()
    trained.append(("xgboost", bytes(xgb.save_raw("json")), None))
    hist = HistGradientBoostingClassifier(max_iter=40, early_stopping=False).fit(frame, y)
    own = lambda x, m=hist: m.decision_function(pd.DataFrame(x, columns=FEATURES))  # noqa: E731
    trained.append(("skops", skops_io.dumps(hist), own))
    return trained


@pytest.mark.slow
def test_all_trees_equal_the_traversal_and_the_librarys_own_predict(data, models):
    frame, y = data
    for name, raw, own in models:
        loaded = load_model(raw, name=name)
        x = loaded.features(frame)
        flat = flatten_ensemble(loaded.ensemble)
        score = flat.decision_function(x)
        # the same additions in the same order as the NumPy traversal: equal to the bit
        np.testing.assert_array_equal(score, loaded.ensemble.decision_function(x), err_msg=name)
        if own is not None:
            np.testing.assert_allclose(score, own(x), rtol=0, atol=1e-12, err_msg=name)


@pytest.mark.slow
@pytest.mark.parametrize("alpha", [0.0, 0.02])
def test_early_exit_follows_the_policy_and_equals_the_full_model_where_no_exit(data, models, alpha):
    frame, y = data
    for name, raw, _ in models:
        loaded = load_model(raw, name=name)
        x = loaded.features(frame)
        f = loaded.ensemble.contributions(x)
        policy = fit_qwyc(f[:1000], alpha=alpha, bias=loaded.ensemble.bias)
        decision, n_eval, score = flatten_ensemble(loaded.ensemble).early_exit(policy, x)
        expected = policy.predict(f)
        assert np.array_equal(decision, expected[0]) and np.array_equal(n_eval, expected[1]), name
        full = loaded.ensemble.decision_function(x)
        last = n_eval == loaded.n_trees
        np.testing.assert_array_equal(score[last], full[last])
        assert np.array_equal(decision[last], full[last] >= policy.threshold)
        step = n_eval[~last] - 1  # rows that exited: the rule of the step they stopped at
        assert np.array_equal(decision[~last], score[~last] > policy.eps_plus[step])
        assert np.all(decision[~last] | (score[~last] < policy.eps_minus[step]))
        assert np.array_equal(policy.predict_lazy(loaded.ensemble, x)[0], decision)


def running_sums(f, order, bias):
    """(N, T) running sums after each step, added like the compiled loops: ((bias + F[:, π0]) + F[:, π1]) + ..."""
    g = np.full(f.shape[0], float(bias))
    out = np.empty(f.shape)
    for r, t in enumerate(order):
        g = g + f[:, t]
        out[:, r] = g
    return out


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_tree_evaluator_and_run_policy_share_the_exit_rule(data, models, seed):
    """Both compiled loops (trees row by row, and F row by row) stop where kernels.step_exit says: on every model,
    for policies with ties at the thresholds and at β, NaN and infinite thresholds, and a last step that would exit."""
    frame, y = data
    rng = np.random.default_rng(seed)
    for name, raw, _ in models:
        loaded = load_model(raw, name=name)
        x = loaded.features(frame)
        f = loaded.ensemble.contributions(x)
        t_count = f.shape[1]
        order = rng.permutation(t_count)
        g = running_sums(f, order, loaded.ensemble.bias)
        steps = np.arange(t_count)
        # thresholds on the k-th lowest / highest running sum of a step (a tie: those rows do not exit there)
        ranked = np.sort(g, axis=0)
        lo = ranked[rng.integers(0, 4, t_count), steps]
        hi = ranked[len(g) - 1 - rng.integers(0, 4, t_count), steps]
        lo[rng.random(t_count) < 0.15], hi[rng.random(t_count) < 0.15] = np.nan, np.nan  # never exits
        lo[rng.random(t_count) < 0.15], hi[rng.random(t_count) < 0.15] = -np.inf, np.inf  # no exit on that side
        lo[-1], hi[-1] = np.inf, -np.inf  # thresholds of the last step are ignored: β decides
        beta = float(np.median(g[:, -1]))  # some row's full score equals β
        policy = EarlyExitPolicy(order, lo, hi, beta, loaded.ensemble.bias, np.ones(t_count), 0.0, "explicit")
        trees = flatten_ensemble(loaded.ensemble).early_exit(policy, x)
        matrix = policy.predict(f)
        assert np.array_equal(trees[0], matrix[0]) and np.array_equal(trees[1], matrix[1]), name
        # and both follow the rule, written out in NumPy on the running sums
        exits = (g[:, :-1] > hi[:-1]) | (g[:, :-1] < lo[:-1])
        stopped = np.where(exits.any(axis=1), exits.argmax(axis=1), t_count - 1)
        stop_sum = g[np.arange(len(g)), stopped]
        positive = np.where(stopped < t_count - 1, stop_sum > hi[stopped], stop_sum >= beta)
        assert np.array_equal(matrix[1], stopped + 1) and np.array_equal(matrix[0], positive), name
        assert np.array_equal(trees[2], stop_sum), name
        assert (matrix[1] < t_count).any() and (matrix[1] == t_count).any(), name  # both kinds of rows are checked


@pytest.mark.parametrize("freq, margin", [(1, 2.0), (5, 3.0), (10, 1.0)])
def test_lightgbm_rule_equals_lightgbms_own_pred_early_stop(data, freq, margin):
    frame, y = data
    booster, raw = lightgbm_file(frame, y)
    loaded = load_model(raw, name="m.txt")
    x = loaded.features(frame)
    policy = lightgbm_early_stop_policy(loaded.n_trees, freq, margin, bias=loaded.ensemble.bias)
    decision, n_eval, score = flatten_ensemble(loaded.ensemble).early_exit(policy, x)
    own = booster.predict(
        x, raw_score=True, pred_early_stop=True, pred_early_stop_freq=freq, pred_early_stop_margin=margin
    )
    np.testing.assert_allclose(score, own, rtol=0, atol=1e-12)
    assert np.array_equal(decision, own >= 0) or np.all((decision == (own >= 0)) | (np.abs(own) < 1e-12))
    assert (n_eval < loaded.n_trees).any()


def test_ensembles_of_other_base_models_keep_the_numpy_evaluator():
    from engine.qwyc._ensembles import AdditiveEnsemble

    class Constant:
        def predict(self, x):
            return np.ones(x.shape[0])

    assert flatten_ensemble(AdditiveEnsemble((Constant(),), 0.0)) is None


@pytest.mark.slow
@pytest.mark.parametrize("rows", [1, 255, 256, 257, 1500, 3333])
def test_contributions_equal_each_trees_own_traversal_across_row_blocks(data, models, rows):
    frame, y = data
    for name, raw, _ in models:
        loaded = load_model(raw, name=name)
        x = np.resize(loaded.features(frame), (rows, len(FEATURES)))  # the rows repeated past the 1,500
        expected = np.column_stack([t.predict(x) for t in loaded.ensemble.trees])
        flat = flatten_ensemble(loaded.ensemble)
        for workers in (1, 2, 3):  # blocks dealt to threads in turn; fewer blocks than threads at small sizes
            np.testing.assert_array_equal(flat.contributions(x, workers=workers), expected, err_msg=name)


def test_rows_split_over_threads_give_the_one_thread_result(data):
    """From THREADED_ROWS rows on, contiguous parts of the rows run in threads: the same three arrays, any number."""
    from engine.qwyc._evaluator import THREADED_ROWS

    frame, y = data
    _, raw = lightgbm_file(frame, y)
    loaded = load_model(raw, name="m.txt")
    x = np.tile(loaded.features(frame), (THREADED_ROWS // len(frame) + 2, 1))  # NaN and zero rules included
    f = loaded.ensemble.contributions(x[: len(frame)])
    policy = fit_qwyc(f, alpha=0.02, bias=loaded.ensemble.bias)
    flat = flatten_ensemble(loaded.ensemble)
    one = flat.early_exit(policy, x, workers=1)
    assert x.shape[0] >= THREADED_ROWS and one[1].min() < loaded.n_trees  # rows do exit early
    for workers in (2, 3, 7):
        for got, want in zip(flat.early_exit(policy, x, workers=workers), one):
            np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(policy.predict_lazy(loaded.ensemble, x, workers=3)[1], one[1])
