"""Experiments of Goh, Cotter, Gupta & Friedlander on UCI Adult, and post-hoc baselines.

Goh, Cotter, Gupta & Friedlander, *Satisfying Real-world Goals with Dataset
Constraints*, NIPS 2016, Section 4 (fairness, Section 4.1; churn, Section 4.2).


* :func:`adult_data` - one-hot / numeric Adult features, labels and the female mask.
* Baselines: :func:`~engine.constraints._solver.linear_svm` (unconstrained hinge
  SVM), :func:`shift_bias` (one intercept chosen after training so the
  constraints hold on the training rows), :func:`group_thresholds` (a threshold
  per group for demographic parity, post-processing in the style of Hardt et
  al. 2016).
* :func:`fairness_sweep` - test error against the female / male positive-rate
  ratio for required ratios kappa; :func:`churn_sweep` - a deployed model trained
  on 10 % of the rows, a new model constrained to churn <= target and recall >= the
  deployed model's recall.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import InputError
from ..io._public_data import load_public_dataset
from ._goals import DemographicParity, MaxChurn, MinRecall
from ._rates import churn_rate, demographic_parity_ratio, ramp
from ._solver import fit_sweep, linear_svm, one_blas_thread

__all__ = [
    "AdultData",
    "adult_data",
    "shift_bias",
    "group_thresholds",
    "fairness_sweep",
    "churn_sweep",
    "ThresholdedModel",
    "goal_values",
    "rate_table",
]


@dataclass(frozen=True)
class AdultData:
    """UCI Adult as a design matrix: the official training and test files, income > 50K = 1.

    Parameters
    ----------
    x_train : numpy.ndarray of float of shape (32561, d)
        Training features: the numeric columns first (age, fnlwgt, education-num, capital
        gain, capital loss, hours per week), then one 0/1 column per category.
    y_train : numpy.ndarray of int of shape (32561,)
        Training labels, 1 = income > 50K.
    female_train : numpy.ndarray of bool of shape (32561,)
        Training rows with ``sex == "Female"`` (the protected group D_F).
    x_test : numpy.ndarray of float of shape (16281, d)
        Test features, encoded as the training ones (an unseen category gets zeros).
    y_test : numpy.ndarray of int of shape (16281,)
        Test labels.
    female_test : numpy.ndarray of bool of shape (16281,)
        Test rows with ``sex == "Female"``.
    feature_names : tuple of str
        The d column names of the encoder.

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), Section 4.1 (Adult: 32 561 training and
    16 281 test examples).
    """

    x_train: np.ndarray
    y_train: np.ndarray
    female_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    female_test: np.ndarray
    feature_names: tuple


def adult_data() -> AdultData:
    """UCI Adult (train 32,561 / test 16,281): numeric columns + one-hot categories (missing as a category).

    Returns
    -------
    AdultData
        The one-hot encoder is fitted on the training rows; the numeric columns are passed
        through unscaled (:func:`~engine.constraints._solver.fit_constrained` standardises).

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), Section 4.1.
    """
    adult = load_public_dataset("adult")
    x, y, xt, yt = adult.x, adult.y, adult.x_test, adult.y_test
    cats = [c for c in x.columns if not pd.api.types.is_numeric_dtype(x[c])]
    nums = [c for c in x.columns if c not in cats]
    fill = {c: "missing" for c in cats}
    xtr, xte, names = _one_hot(x.fillna(fill), xt.fillna(fill), nums, cats)  # type: ignore[union-attr]
    return AdultData(
        xtr,
        np.asarray(y),
        (x["sex"] == "Female").to_numpy(),
        xte,
        np.asarray(yt),
        (xt["sex"] == "Female").to_numpy(),  # type: ignore[index]
        names,
    )


def _one_hot(train: pd.DataFrame, test: pd.DataFrame, nums: list, cats: list):
    """The numeric columns passed through, then one 0/1 column per training category (sorted) of each categorical one.

    The matrix and names of scikit-learn's ``make_column_transformer(("passthrough", nums),
    (OneHotEncoder(handle_unknown="ignore", sparse_output=False), cats))`` (a test compares them),
    without importing scikit-learn (seconds of the first sweep's click): an unseen test category
    gets zeros.
    """
    blocks_train, blocks_test = [train[nums].to_numpy(float)], [test[nums].to_numpy(float)]
    names = [f"passthrough__{c}" for c in nums]
    for c in cats:
        seen, new = train[c].to_numpy(object), test[c].to_numpy(object)
        levels = np.unique(seen)
        block_train = np.zeros((seen.size, levels.size))
        block_train[np.arange(seen.size), np.searchsorted(levels, seen)] = 1.0
        at = np.minimum(np.searchsorted(levels, new), levels.size - 1)
        known = levels[at] == new
        block_test = np.zeros((new.size, levels.size))
        block_test[np.flatnonzero(known), at[known]] = 1.0
        blocks_train.append(block_train)
        blocks_test.append(block_test)
        names += [f"onehotencoder__{c}_{level}" for level in levels]
    return np.hstack(blocks_train), np.hstack(blocks_test), tuple(names)


@dataclass(frozen=True)
class ThresholdedModel:
    """A linear score with its own threshold (or one per group).

    Decision: ``x @ coef_ + intercept_ >= threshold``, or with ``group_thresholds`` the
    protected rows against the first threshold and the others against the second.

    Parameters
    ----------
    coef_ : numpy.ndarray of float of shape (d,)
        Coefficients of the score.
    intercept_ : float
        Intercept of the score.
    threshold : float, optional
        The threshold of every row (default 0), when ``group_thresholds`` is None.
    group_thresholds : tuple of (float, float), optional
        (threshold of the group's rows, threshold of the other rows).
    """

    coef_: np.ndarray
    intercept_: float
    threshold: float = 0.0
    group_thresholds: tuple | None = None  # (threshold for group rows, threshold for the others)

    def decision_function(self, x) -> np.ndarray:
        """The linear score.

        Parameters
        ----------
        x : array-like of shape (n, d)
            Features.

        Returns
        -------
        numpy.ndarray of float of shape (n,)
            ``x @ coef_ + intercept_``.
        """
        return np.asarray(x, float) @ self.coef_ + self.intercept_

    def predict(self, x, group=None) -> np.ndarray:
        """0/1 decisions: the score against the threshold (or the row's group threshold).

        Parameters
        ----------
        x : array-like of shape (n, d)
            Features.
        group : array-like of bool of shape (n,), optional
            The group's rows; needed when ``group_thresholds`` is set.

        Returns
        -------
        numpy.ndarray of int of shape (n,)
        """
        return self.decide(self.decision_function(x), group)

    def decide(self, scores, group=None) -> np.ndarray:
        """0/1 decisions from the scores ``x @ coef_ + intercept_`` already computed (as :meth:`predict`).

        Parameters
        ----------
        scores : array-like of float of shape (n,)
            The linear scores of the rows.
        group : array-like of bool of shape (n,), optional
            The group's rows; needed when ``group_thresholds`` is set.

        Returns
        -------
        numpy.ndarray of int of shape (n,)
        """
        s = np.asarray(scores, float)
        if self.group_thresholds is None:
            return (s >= self.threshold).astype(int)
        g = np.asarray(group, bool)
        return np.where(g, s >= self.group_thresholds[0], s >= self.group_thresholds[1]).astype(int)


def shift_bias(model, x, y, constraints, *, candidates: int = 400, scores=None) -> ThresholdedModel:
    """The intercept that minimises training error while every constraint holds for f >= t (deterministic).

    Bias shifting: the candidate thresholds t are ``candidates`` quantiles of the training
    scores and one above the largest (nobody flagged); among those whose deterministic
    decisions ``f(x) >= t`` meet every constraint on the training rows, the one with the
    fewest errors on the labelled rows is kept.

    Parameters
    ----------
    model : ConstrainedModel or ThresholdedModel
        A fitted linear model: ``decision_function``, ``coef_`` and ``intercept_``.
    x : array-like of shape (n, d)
        Training features.
    y : array-like of shape (n,)
        Training labels: 1, 0, or -1 for an unlabelled row.
    constraints : sequence of constraint objects
        Each has ``expression(y)``, a rate expression that must be <= 0
        (:mod:`engine.constraints._goals`).
    candidates : int, optional
        Number of quantile levels of the score tried as thresholds.
    scores : array-like of float of shape (n,), optional
        ``model.decision_function(x)`` when already computed.

    Returns
    -------
    ThresholdedModel
        ``model``'s coefficients and intercept with the threshold t.

    Raises
    ------
    ValueError
        No candidate threshold meets every constraint on the training rows.

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), Section 3 (bias shifting) and Section 4.2
    (the thresholded SVM baseline of Figure 3).
    """
    s = model.decision_function(x) if scores is None else np.asarray(scores, float)
    y = np.asarray(y).astype(int)
    exprs = [c.expression(y) for c in constraints]
    grid = np.unique(np.quantile(s, np.linspace(0, 1, candidates)))
    grid = np.r_[grid, grid[-1] + 1.0]
    # the rows flagged at threshold t are the first count(s >= t) rows in decreasing order of s: every
    # threshold's constraint values and errors are prefix sums there
    order = np.argsort(-s, kind="stable")
    flagged = np.searchsorted(-s[order], -grid, side="right")
    ok = np.ones(grid.size, bool)
    for e in exprs:  # e.value(s - t, deterministic=True) of every threshold t
        prefix = np.r_[0.0, np.cumsum((e.pos - e.neg)[order])]
        ok &= prefix[flagged] + (float(e.neg.sum()) + e.const) <= 1e-12
    true_pos = np.r_[0, np.cumsum(y[order] == 1)][flagged]
    false_pos = np.r_[0, np.cumsum(y[order] == 0)][flagged]
    errors = (int(np.count_nonzero(y == 1)) - true_pos) + false_pos
    if not ok.any():
        raise InputError("no single threshold meets every constraint on the training rows")
    best = int(np.flatnonzero(ok)[np.argmin(errors[ok])])  # the first of the fewest errors
    return ThresholdedModel(model.coef_, model.intercept_, float(grid[best]))


def group_thresholds(model, x, y, protected, kappa: float, *, candidates: int = 120, scores=None) -> ThresholdedModel:
    """One threshold per group minimising training error s.t. sp(protected) >= kappa sp(reference).

    Each group's candidate thresholds are ``candidates`` quantiles of its training scores and
    one above its largest score; among the pairs whose deterministic decisions meet the
    fairness constraint on the training rows, the pair with the fewest errors is kept.

    Parameters
    ----------
    model : ConstrainedModel or ThresholdedModel
        A fitted linear model: ``decision_function``, ``coef_`` and ``intercept_``.
    x : array-like of shape (n, d)
        Training features.
    y : array-like of shape (n,)
        Training labels, 1 positive (any other value counts as negative).
    protected : array-like of bool of shape (n,)
        The protected group; the reference group is every other row.
    kappa : float
        The required ratio of the positive rates.
    candidates : int, optional
        Number of quantile levels per group.
    scores : array-like of float of shape (n,), optional
        ``model.decision_function(x)`` when already computed.

    Returns
    -------
    ThresholdedModel
        ``model``'s score with ``threshold = 0`` and ``group_thresholds = (protected,
        reference)``.

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), Table 2, "Fairness constraint"; a post-hoc
    baseline in the style of Hardt, Price & Srebro, *Equality of Opportunity in Supervised
    Learning* (NIPS 2016).
    """
    s = model.decision_function(x) if scores is None else np.asarray(scores, float)
    y = np.asarray(y).astype(int)
    g = np.asarray(protected, bool)
    qs = np.linspace(0, 1, candidates)
    tp = np.r_[np.quantile(s[g], qs), s[g].max() + 1]
    tr = np.r_[np.quantile(s[~g], qs), s[~g].max() + 1]
    rate_p, err_p = _rate_and_errors(s[g], y[g] == 1, tp)
    rate_r, err_r = _rate_and_errors(s[~g], y[~g] == 1, tr)
    ok = rate_p[:, None] >= kappa * rate_r[None, :] - 1e-12
    total = np.where(ok, err_p[:, None] + err_r[None, :], np.iinfo(np.int64).max)
    i, j = np.unravel_index(int(np.argmin(total)), total.shape)
    return ThresholdedModel(model.coef_, model.intercept_, 0.0, (float(tp[i]), float(tr[j])))


def _rate_and_errors(s, positive, thresholds):
    """Share of the rows with s >= t and errors of the decisions s >= t against ``positive``, for each threshold t.

    Counts in the scores' sorted order (the same integers as comparing every row with every threshold).
    """
    order = np.argsort(s, kind="stable")
    below = np.searchsorted(s[order], thresholds, side="left")  # rows with s < t
    positives_below = np.r_[0, np.cumsum(positive[order])][below]
    flagged = s.size - below
    flagged_negatives = flagged - (int(np.count_nonzero(positive)) - positives_below)
    return flagged / s.size, positives_below + flagged_negatives


def _row(method, kappa, model_pred_train, model_pred_test, data: AdultData, **extra):
    d_tr, d_te = model_pred_train, model_pred_test
    return {
        "method": method,
        "required_ratio": kappa,
        "train_error": float(np.mean(d_tr != data.y_train)),
        "test_error": float(np.mean(d_te != data.y_test)),
        "train_ratio": demographic_parity_ratio(d_tr, data.female_train, ~data.female_train),
        "test_ratio": demographic_parity_ratio(d_te, data.female_test, ~data.female_test),
        **extra,
    }


def _expected(p, y, female):
    """Expected error and positive-rate ratio of randomised predictions with P(positive) = p."""
    err = float(np.mean(np.where(y == 1, 1 - p, p)))
    return err, float(p[female].mean() / p[~female].mean())


def fairness_sweep(
    data: AdultData,
    kappas=(0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0),
    *,
    lam: float = 0.01,
    progress=None,
    warm: bool = False,
) -> pd.DataFrame:
    """Error against the female/male positive-rate ratio for each required ratio kappa.

    Methods: the constrained classifier (deterministic f >= 0 and randomised with
    P(positive) = ramp(f), whose error and ratio are reported as expectations),
    the unconstrained SVM, and per-group thresholds on the SVM score. With ``warm``
    each fit starts from the previous kappa's model (about twice as fast on Adult,
    test error up to 0.002 higher); otherwise every kappa gets the fit it would get alone.

    Parameters
    ----------
    data : AdultData
        Training and test rows with the female masks.
    kappas : sequence of float, optional
        Required ratios kappa of sp(female) >= kappa sp(male), in the order fitted.
    lam : float, optional
        The regulariser's weight lambda (``lam / 2 ||w||^2`` on standardised features).
    progress : callable(done, total), optional
        Called after each kappa's fit (:func:`~engine.constraints._solver.fit_sweep`).
    warm : bool, optional
        Start each fit from the previous kappa's model.

    Returns
    -------
    pandas.DataFrame
        One row per (method, kappa), the unconstrained SVM once (``required_ratio`` NaN):
        ``method``, ``required_ratio``, ``train_error``, ``test_error``, ``train_ratio`` and
        ``test_ratio`` (female / male positive rate), ``fit_seconds`` (constrained fits).

    Raises
    ------
    InfeasibleConstraintsError
        :func:`~engine.constraints._solver.fit_constrained` found no feasible start.

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), Section 4.1 and Figure 2.
    """
    with one_blas_thread():
        svm = linear_svm(data.x_train, data.y_train, lam=lam)
    rows = [_row("unconstrained SVM", np.nan, svm.predict(data.x_train), svm.predict(data.x_test), data)]
    svm_train, svm_test = svm.decision_function(data.x_train), svm.decision_function(data.x_test)
    models = fit_sweep(
        data.x_train,
        data.y_train,
        [[DemographicParity(data.female_train, ~data.female_train, kappa)] for kappa in kappas],
        lam=lam,
        warm=warm,
        deterministic=False,
        progress=progress,
    )  # the paper's method, as published
    for kappa, model in zip(kappas, models):
        s_tr, s_te = model.decision_function(data.x_train), model.decision_function(data.x_test)
        rows.append(
            _row(
                "constrained (deterministic)",
                kappa,
                (s_tr >= 0).astype(int),
                (s_te >= 0).astype(int),
                data,
                fit_seconds=model.fit_seconds,
            )
        )
        e_tr, r_tr = _expected(ramp(s_tr), data.y_train, data.female_train)
        e_te, r_te = _expected(ramp(s_te), data.y_test, data.female_test)
        rows.append(
            {
                "method": "constrained (randomised, expected)",
                "required_ratio": kappa,
                "train_error": e_tr,
                "test_error": e_te,
                "train_ratio": r_tr,
                "test_ratio": r_te,
                "fit_seconds": model.fit_seconds,
            }
        )
        post = group_thresholds(svm, data.x_train, data.y_train, data.female_train, kappa, scores=svm_train)
        rows.append(
            _row(
                "SVM + per-group thresholds",
                kappa,
                post.decide(svm_train, data.female_train),
                post.decide(svm_test, data.female_test),
                data,
            )
        )
    return pd.DataFrame(rows)


def churn_sweep(
    data: AdultData, targets=(0.01, 0.02, 0.03, 0.05, 0.08), *, lam: float = 0.01, seed: int = 0, progress=None
) -> pd.DataFrame:
    """Churn and error against the churn target, for a new model replacing a deployed one.

    Deployed model: SVM on 10 % of the training rows and only the 6 numeric features. New model: all
    rows and features, churn <= target on the training rows (labels unused) and recall >= the deployed
    model's recall. Baseline: the full SVM with one intercept shifted to meet the same constraints.

    Parameters
    ----------
    data : AdultData
        Training and test rows.
    targets : sequence of float, optional
        Churn targets (largest share of training rows whose decision may change).
    lam : float, optional
        The regulariser's weight lambda of every SVM and constrained fit.
    seed : int, optional
        Seed of the deployed model's 10 % sample.
    progress : callable(done, total), optional
        Called after each target's fit (:func:`~engine.constraints._solver.fit_sweep`).

    Returns
    -------
    pandas.DataFrame
        Per target: the constrained classifier (deterministic, and randomised with
        expectations) and the shifted-bias SVM, with ``method``, ``churn_target``,
        ``train_churn``, ``test_churn``, ``train_error``, ``test_error``, ``train_recall``,
        ``fit_seconds``; ``note`` when no shifted bias meets both constraints. ``attrs``
        holds ``deployed_recall`` (training) and ``deployed_test_error``.

    Raises
    ------
    InfeasibleConstraintsError
        :func:`~engine.constraints._solver.fit_constrained` found no feasible start.

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), Section 4.2 and Figure 3 (there on proprietary
    data, here on Adult).
    """
    rng = np.random.default_rng(seed)
    part = rng.random(data.y_train.size) < 0.1
    few = slice(0, 6)  # age, fnlwgt, education-num, capital gain/loss, hours per week
    with one_blas_thread():
        deployed = linear_svm(data.x_train[part][:, few], data.y_train[part], lam=lam)
        svm = linear_svm(data.x_train, data.y_train, lam=lam)
    dep_train, dep_test = deployed.predict(data.x_train[:, few]), deployed.predict(data.x_test[:, few])
    dep_recall = float(dep_train[data.y_train == 1].mean())
    sets = [[MaxChurn(dep_train, target), MinRecall(dep_recall)] for target in targets]
    models = fit_sweep(data.x_train, data.y_train, sets, lam=lam, deterministic=False, progress=progress)
    rows = []
    svm_train, svm_test = svm.decision_function(data.x_train), svm.decision_function(data.x_test)
    for target, constraints, model in zip(targets, sets, models):
        s_tr, s_te = model.decision_function(data.x_train), model.decision_function(data.x_test)
        rows.append(
            _churn_row(
                "constrained (deterministic)",
                target,
                (s_tr >= 0).astype(int),
                (s_te >= 0).astype(int),
                dep_train,
                dep_test,
                data,
                model.fit_seconds,
            )
        )
        p_tr, p_te = ramp(s_tr), ramp(s_te)
        rows.append(
            {
                "method": "constrained (randomised, expected)",
                "churn_target": target,
                "train_churn": float(np.mean(np.where(dep_train == 1, 1 - p_tr, p_tr))),
                "test_churn": float(np.mean(np.where(dep_test == 1, 1 - p_te, p_te))),
                "train_error": float(np.mean(np.where(data.y_train == 1, 1 - p_tr, p_tr))),
                "test_error": float(np.mean(np.where(data.y_test == 1, 1 - p_te, p_te))),
                "train_recall": float(p_tr[data.y_train == 1].mean()),
                "fit_seconds": model.fit_seconds,
            }
        )
        try:
            shifted = shift_bias(svm, data.x_train, data.y_train, constraints, scores=svm_train)
            rows.append(
                _churn_row(
                    "SVM with shifted bias",
                    target,
                    shifted.decide(svm_train),
                    shifted.decide(svm_test),
                    dep_train,
                    dep_test,
                    data,
                    0.0,
                )
            )
        except ValueError:
            rows.append({"method": "SVM with shifted bias", "churn_target": target, "note": "no threshold meets both"})
    frame = pd.DataFrame(rows)
    frame.attrs["deployed_recall"] = dep_recall
    frame.attrs["deployed_test_error"] = float(np.mean(dep_test != data.y_test))
    return frame


def _churn_row(method, target, pred_tr, pred_te, dep_tr, dep_te, data, seconds):
    return {
        "method": method,
        "churn_target": target,
        "train_churn": churn_rate(pred_tr, dep_tr),
        "test_churn": churn_rate(pred_te, dep_te),
        "train_error": float(np.mean(pred_tr != data.y_train)),
        "test_error": float(np.mean(pred_te != data.y_test)),
        "train_recall": float(pred_tr[data.y_train == 1].mean()),
        "fit_seconds": seconds,
    }


def goal_values(kind: str, p, y, group=None, deployed=None) -> float:
    """A goal's value for positive-prediction probabilities p (0/1 decisions are the deterministic case).

    Expectations are exact for randomised predictions with P(positive) = p.

    Parameters
    ----------
    kind : {"demographic parity ratio", "equal opportunity ratio", "coverage", "recall", "churn", "error"}
        The goal.
    p : array-like of float of shape (n,)
        Probability of a positive prediction per row (0/1 for decisions).
    y : array-like of shape (n,)
        Labels (1 positive) for recall, error and equal opportunity.
    group : array-like of bool of shape (n,), optional
        The protected group, for the two ratios (the reference group is every other row).
    deployed : array-like of shape (n,), optional
        The deployed model's 0/1 decisions, for churn.

    Returns
    -------
    float
        The ratio of the groups' (true) positive rates (denominator at least 1e-12), the
        share predicted positive, the recall, the share of changed decisions, or the error
        rate.

    Raises
    ------
    ValueError
        An unknown ``kind``.

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), Table 2 and eq. (3) (expected rates).
    """
    p = np.asarray(p, float)
    y = np.asarray(y)
    if kind == "demographic parity ratio":
        g = np.asarray(group, bool)
        return float(p[g].mean() / max(p[~g].mean(), 1e-12))
    if kind == "equal opportunity ratio":
        g, pos = np.asarray(group, bool), y == 1
        return float(p[g & pos].mean() / max(p[~g & pos].mean(), 1e-12))
    if kind == "coverage":
        return float(p.mean())
    if kind == "recall":
        return float(p[y == 1].mean())
    if kind == "churn":
        return float(np.mean(np.where(np.asarray(deployed).astype(bool), 1 - p, p)))
    if kind == "error":
        return float(np.mean(np.where(y == 1, 1 - p, p)))
    raise InputError(f"unknown goal {kind!r}")


def rate_table(model, goals, train: tuple, test: tuple) -> pd.DataFrame:
    """Each goal's bound and its train / test value for deterministic and randomised predictions.

    Parameters
    ----------
    model : ConstrainedModel
        A fitted model: ``predict`` and ``predict_proba_positive``.
    goals : iterable of (str, str, float, bool or None)
        (label, kind of :func:`goal_values`, bound, upper): ``upper`` True for value <= bound,
        False for value >= bound, None for no check.
    train, test : tuple (x, y, group, deployed)
        Features (n, d), labels (n,), the protected-group mask (n,) and the deployed
        decisions (n,); group and deployed may be None when no goal needs them.

    Returns
    -------
    pandas.DataFrame
        Per prediction kind (``"deterministic (f >= 0)"``, ``"randomised (expected)"``), one
        row per goal and one for the error: ``predictions``, ``goal``, ``bound``, ``train``,
        ``test`` and ``met on train`` (None when unchecked).

    Raises
    ------
    ValueError
        A goal of unknown kind.
    """
    rows = []
    for label, prob_fn in (
        ("deterministic (f >= 0)", lambda x: model.predict(x).astype(float)),
        ("randomised (expected)", model.predict_proba_positive),
    ):
        p_tr, p_te = prob_fn(train[0]), prob_fn(test[0])
        for name, kind, bound, upper in list(goals) + [("error", "error", np.nan, None)]:
            v_tr = goal_values(kind, p_tr, train[1], train[2], train[3])
            v_te = goal_values(kind, p_te, test[1], test[2], test[3])
            met = None if upper is None else bool(v_tr <= bound + 1e-9 if upper else v_tr >= bound - 1e-9)
            rows.append(
                {"predictions": label, "goal": name, "bound": bound, "train": v_tr, "test": v_te, "met on train": met}
            )
    return pd.DataFrame(rows)
