"""Baselines for early exit and the speed / fidelity trade-off curves (Wang, Gupta & You, *Quit When You Can: Efficient Evaluation of Ensembles with Ordering Optimization*, arXiv:1806.11202, 2018).

* Fan, Chu, Wang & Yu (2002) dynamic scheduling (:func:`fit_fan`);
* smaller ensembles: the first k models of the natural order (:func:`smaller_ensemble`);
* every fixed order with Algorithm 2 thresholds (:func:`~engine.qwyc._policy.fixed_order`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ..errors import InputError
from ._full_ensemble import full_decisions, full_scores
from ._policy import (
    EarlyExitPolicy,
    early_exit_loop,
    fit_qwyc,
    fixed_order_sweep,
    order_permutation,
    qwyc_start,
    validate_contributions,
)

__all__ = ["FanPolicy", "fit_fan", "SmallerEnsemble", "smaller_ensemble", "pareto_front", "tradeoff_curves"]


@dataclass(frozen=True)
class FanPolicy:
    """Fan et al. (2002) dynamic scheduling: per step, bins of the running score with the mean
    and standard deviation of the remaining score; exit when the confidence interval clears beta.

    Attributes
    ----------
    order : numpy.ndarray of int, shape (T,)
        Evaluation order.
    bin_width : float
        Width of the running-score bins.
    gamma : float
        Width of the confidence interval, in standard deviations.
    keys, mean, std : tuple of numpy.ndarray
        Per step: sorted bin keys, and per bin the mean and standard deviation of the
        remaining score ``f − g_r`` on the fit data.
    threshold : float
        β of the full decision.
    bias : float
        Constant of the score.
    costs : numpy.ndarray of float64, shape (T,)
        Cost of each model.
    method : str
        ``"fan"``.
    """

    order: np.ndarray
    bin_width: float
    gamma: float
    keys: tuple  # per step: sorted bin keys
    mean: tuple  # per step: mean of f - g_r per bin
    std: tuple  # per step: std of f - g_r per bin
    threshold: float
    bias: float
    costs: np.ndarray
    method: str = "fan"

    def _exits(self, r: int, g: np.ndarray):
        keys = self.keys[r]
        if keys.size == 0:
            none = np.zeros(g.size, dtype=bool)
            return none, none
        bins = np.round(g / self.bin_width).astype(np.int64)
        pos = np.clip(np.searchsorted(keys, bins), 0, keys.size - 1)
        found = keys[pos] == bins  # a bin never seen on the fit data: keep evaluating
        mu = np.where(found, self.mean[r][pos], 0.0)
        sd = np.where(found, self.std[r][pos], 0.0)
        up = found & (g + mu - self.gamma * sd >= self.threshold)
        return up, found & (g + mu + self.gamma * sd < self.threshold)

    def predict(self, f_matrix) -> tuple[np.ndarray, np.ndarray]:
        """(decisions, number of models evaluated) for every row of F.

        Parameters
        ----------
        f_matrix : array_like of float, shape (N, T)
            Contributions of the T base models to the score of N examples.

        Returns
        -------
        (numpy.ndarray of bool, numpy.ndarray of int)
            Decisions and models evaluated per example, both shape (N,).
        """
        f_matrix = np.asarray(f_matrix, dtype=np.float64)
        return early_exit_loop(
            f_matrix.shape[0], self.order, self.bias, self.threshold, lambda active, t: f_matrix[active, t], self._exits
        )

    evaluate = EarlyExitPolicy.evaluate


def fit_fan(
    f_matrix,
    *,
    order: str | Sequence[int] = "individual_mse",
    gamma: float = 3.0,
    bin_width: float = 0.5,
    threshold: float = 0.0,
    bias: float = 0.0,
    costs=None,
) -> FanPolicy:
    """Fan et al. (2002): per-step bins ``round(g_r / bin_width)`` with mean/std of ``f - g_r`` on the fit data.

    Parameters
    ----------
    f_matrix : array_like of float, shape (N, T)
        Contributions of the T base models to the score of N examples (finite).
    order : str or sequence of int, optional
        A fixed order name of :func:`~engine.qwyc._policy.fixed_order` or a permutation.
    gamma : float, optional
        Exit when ``g + mean ∓ gamma·std`` clears the threshold.
    bin_width : float, optional
        Width of the running-score bins.
    threshold : float, optional
        β of the full decision.
    bias : float, optional
        Constant of the score.
    costs : array_like of float, shape (T,), optional
        Positive cost of each model; 1 each when None.

    Returns
    -------
    FanPolicy
        The fitted scheduling policy.

    Raises
    ------
    InputError
        Invalid F, costs or order.
    """
    f, c, bias = validate_contributions(f_matrix, costs, 0.0, bias)
    perm = order_permutation(f, order, bias=bias)[0] if isinstance(order, str) else np.asarray(order, dtype=np.int64)
    full_score = full_scores(f, bias)
    g = np.full(f.shape[0], bias)
    keys, means, stds = [], [], []
    for t in perm:
        g = g + f[:, t]
        bins = np.round(g / bin_width).astype(np.int64)
        low = bins.min()
        slot = bins - low  # bins are consecutive integers: counted in place (np.unique's sort not needed)
        seen = np.flatnonzero(np.bincount(slot))
        rest = full_score - g
        count = np.bincount(slot)[seen]
        mu = np.bincount(slot, weights=rest)[seen] / count
        var = np.maximum(np.bincount(slot, weights=rest * rest)[seen] / count - mu * mu, 0.0)
        keys.append(seen + low)
        means.append(mu)
        stds.append(np.sqrt(var))
    return FanPolicy(
        perm, float(bin_width), float(gamma), tuple(keys), tuple(means), tuple(stds), float(threshold), bias, c
    )


@dataclass(frozen=True)
class SmallerEnsemble:
    """The first k models of the natural order, always fully evaluated.

    Attributes
    ----------
    k : int
        Models kept.
    threshold : float
        β: decide ``bias + F[:, :k].sum(1) >= threshold``.
    bias : float
        Constant of the score.
    costs : numpy.ndarray of float64, shape (T,)
        Cost of each model.
    method : str
        ``"smaller ensemble"``.
    """

    k: int
    threshold: float
    bias: float
    costs: np.ndarray
    method: str = "smaller ensemble"

    def predict(self, f_matrix):
        """(decisions, number of models evaluated) for every row of F.

        Parameters
        ----------
        f_matrix : array_like of float, shape (N, T)
            Contributions of the T base models to the score of N examples.

        Returns
        -------
        (numpy.ndarray of bool, numpy.ndarray of int)
            Decisions of the first k models, and k for every example.
        """
        f_matrix = np.asarray(f_matrix, dtype=np.float64)
        decision = full_decisions(f_matrix[:, : self.k], self.bias, self.threshold)  # the cut ensemble's
        return decision, np.full(f_matrix.shape[0], self.k)

    @property
    def order(self):
        return np.arange(self.costs.size)

    evaluate = EarlyExitPolicy.evaluate


def smaller_ensemble(f_matrix, k: int, *, threshold: float = 0.0, bias: float = 0.0, costs=None) -> SmallerEnsemble:
    """The ensemble cut to its first k models.

    Parameters
    ----------
    f_matrix : array_like of float, shape (N, T)
        Contributions of the T base models to the score of N examples (finite).
    k : int
        Models kept, between 1 and T.
    threshold : float, optional
        β of the decision.
    bias : float, optional
        Constant of the score.
    costs : array_like of float, shape (T,), optional
        Positive cost of each model; 1 each when None.

    Returns
    -------
    SmallerEnsemble
        The cut ensemble.

    Raises
    ------
    InputError
        Invalid F or costs, or k outside [1, T].
    """
    f, c, bias = validate_contributions(f_matrix, costs, 0.0, bias)
    if not 1 <= k <= f.shape[1]:
        raise InputError(f"k must be between 1 and {f.shape[1]}")
    return SmallerEnsemble(int(k), float(threshold), bias, c)


def pareto_front(cost: np.ndarray, error: np.ndarray) -> np.ndarray:
    """Indices of points not dominated in (lower cost, lower error), sorted by cost.

    Parameters
    ----------
    cost, error : numpy.ndarray of float, shape (n,)
        The two quantities to minimise.

    Returns
    -------
    numpy.ndarray of int64
        Indices of the frontier points, cost ascending (error strictly decreasing).
    """
    cost, error = np.asarray(cost, float), np.asarray(error, float)
    order = np.lexsort((error, cost))
    best = np.inf
    keep = []
    for i in order:
        if error[i] < best:
            keep.append(i)
            best = error[i]
    return np.array(keep, dtype=np.int64)


def tradeoff_curves(
    f_fit,
    f_test,
    *,
    labels_fit=None,
    labels_test=None,
    threshold: float = 0.0,
    bias: float = 0.0,
    alphas=(0.0, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.05),
    orders=("qwyc", "natural", "random", "individual_mse", "greedy_mse"),
    gammas=(1.0, 2.0, 3.0, 4.0, 6.0),
    ks=None,
    neg_only=False,
    costs=None,
    progress=None,
):
    """Sweep alpha (QWYC* and each fixed order), gamma (Fan et al.) and k (smaller ensembles).

    Parameters
    ----------
    f_fit : array_like of float, shape (N, T)
        Contributions on the fit examples.
    f_test : array_like of float, shape (N_test, T)
        Contributions on the test examples.
    labels_fit, labels_test : array_like of {0, 1}, optional
        Labels, for accuracies.
    threshold : float, optional
        β of the full decision.
    bias : float, optional
        Constant of the score.
    alphas : sequence of float, optional
        Disagreement budgets of QWYC* and of each fixed order.
    orders : sequence of str, optional
        ``"qwyc"`` and fixed order names.
    gammas : sequence of float, optional
        Confidence widths of Fan et al.
    ks : sequence of int, optional
        Sizes of the smaller ensembles; 2 %, 5 %, 10 %, 20 %, 40 %, 70 % and 100 % of T when None.
    neg_only : bool, optional
        Only early negatives (QWYC* and fixed orders).
    costs : array_like of float, shape (T,), optional
        Positive cost of each model.
    progress : callable, optional
        ``progress(done, total)`` after each fitted policy.

    Returns
    -------
    pandas.DataFrame
        One row per method and parameter: ``method``, ``parameter``, ``fit_*`` and
        ``test_*`` of :meth:`EarlyExitPolicy.evaluate`, and ``pareto`` (on the frontier of
        test mean # models against test % disagreement within its method).
    """
    f_fit = np.asarray(f_fit, dtype=np.float64)
    t_count = f_fit.shape[1]
    ks = ks or sorted({max(1, int(t_count * s)) for s in (0.02, 0.05, 0.1, 0.2, 0.4, 0.7, 1.0)})
    jobs = [(o, a) for o in orders for a in alphas] + [("fan", gm) for gm in gammas] + [("smaller", k) for k in ks]
    # a fixed order depends on neither alpha nor gamma: computed once per order, shared by its whole sweep
    valid, _, _ = validate_contributions(f_fit, costs, 0.0, bias)
    perms = {
        name: order_permutation(valid, name, bias=float(bias))[0]
        for name in {o for o in orders if o != "qwyc"} | ({"individual_mse"} if gammas else set())
    }
    f_test = np.asarray(f_test, dtype=np.float64)
    full_fit = full_decisions(f_fit, bias, threshold)  # the full decisions, once for every policy
    full_test = full_decisions(f_test, bias, threshold)
    rows, swept = [], {}
    qwyc_alphas = [a for o, a in jobs if o == "qwyc"]
    # QWYC*'s first step for every alpha of the sweep counted once (the same policies as fits without it)
    start = (
        qwyc_start(f_fit, threshold=threshold, bias=bias, max_alpha=max(qwyc_alphas))
        if len(qwyc_alphas) > 1 and min(qwyc_alphas) >= 0 and max(qwyc_alphas) < 1
        else None
    )
    for i, (method, param) in enumerate(jobs):
        if method == "fan":  # the bins' statistics do not depend on gamma: fitted once, gamma swapped
            if "fan" not in swept:
                swept["fan"] = fit_fan(
                    f_fit, order=perms["individual_mse"], gamma=param, threshold=threshold, bias=bias, costs=costs
                )
            policy = replace(swept["fan"], gamma=float(param))
        elif method == "smaller":
            policy = smaller_ensemble(f_fit, param, threshold=threshold, bias=bias, costs=costs)
        elif method == "qwyc":
            policy = fit_qwyc(
                start.f if start is not None else f_fit,
                threshold=threshold,
                alpha=param,
                neg_only=neg_only,
                costs=costs,
                bias=bias,
                start=start,
            )
        else:  # every alpha of a fixed order at once: each step's running sums sorted once
            if method not in swept:
                swept[method] = dict(
                    zip(
                        alphas,
                        fixed_order_sweep(
                            f_fit, perms[method], alphas, threshold=threshold, bias=bias, neg_only=neg_only, costs=costs
                        ),
                    )
                )
            policy = swept[method][param]
        fit_m = policy.evaluate(f_fit, labels_fit, full=full_fit)
        test_m = policy.evaluate(f_test, labels_test, full=full_test)
        rows.append(
            {
                "method": method,
                "parameter": param,
                **{f"fit_{k}": v for k, v in fit_m.items()},
                **{f"test_{k}": v for k, v in test_m.items()},
            }
        )
        if progress is not None:
            progress(i + 1, len(jobs))
    table = pd.DataFrame(rows)
    table["pareto"] = False
    for _method, group in table.groupby("method"):
        idx = pareto_front(group["test_mean_models"].to_numpy(), group["test_disagreement_pct"].to_numpy())
        table.loc[group.index[idx], "pareto"] = True
    return table
