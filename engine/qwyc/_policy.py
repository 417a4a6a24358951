"""QWYC: jointly optimised evaluation order and early-exit thresholds for additive ensembles.

Wang, Gupta & You, *Quit When You Can: Efficient Evaluation of Ensembles with Ordering Optimization*, arXiv:1806.11202, 2018.

* ``F`` (N, T): base-model contributions; full score ``f = bias + F.sum(1)``;
  full decision ``f >= beta`` (``threshold``).
* After evaluating r models in order ``pi``, running sum ``g_r``; exit positive if
  ``g_r > eps_plus[r]``, negative if ``g_r < eps_minus[r]`` (strict); the last
  model always decides by ``f >= beta``.
* Cost per example: sum of the costs of the models it evaluated. Fidelity on the
  fit data: (# early decisions differing from the full decision) <= alpha * N.

**Algorithm 2** (thresholds for one step, exact). Among the still-undecided
examples, with running sums g and full decisions d, a negative exit
``{g < eps_minus}`` costs the positives it contains and a positive exit
``{g > eps_plus}`` the negatives. For a budget of b mistakes on the negative side
the best threshold is the (b+1)-th smallest g among positives (everything
strictly below it exits; equal values never split); likewise for c mistakes on
the positive side with the (c+1)-th largest g among negatives. Sorting the
positives' and negatives' sums once gives every option, and the best split
``b + c <= budget`` is a scan over b: O(N log N) per candidate model. When the two
exit regions overlap, every undecided example can exit. Thresholds are placed
midway between the last exiting and the first staying value.

**Algorithm 1** (QWYC*): greedily pick the next model minimising
``cost_t / (# examples newly exited by t with its optimal thresholds)``,
evaluated for all remaining candidates at once (one matrix per step).

The budget ``floor(alpha N)`` is spent greedily by default; ``budget="rationed"``
lets step r spend at most ``floor(alpha N r / (T-1))`` in total so far.
``neg_only=True`` is "filter then score": only early negatives, positives always
get the full score.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from ._evaluator import flatten_ensemble
from ._full_ensemble import full_decisions, full_scores
from ._scan import (
    BLOCK,
    add_and_split,
    build,
    dense_pick,
    dense_tables,
    drop_exited,
    scan_pick,
    split,
    table_pick,
    thresholds_along,
)
from .kernels import resolve_workers, run_policy, worker_pool

__all__ = [
    "EarlyExitPolicy",
    "QwycStart",
    "qwyc_start",
    "START_ALPHAS",
    "start_alpha",
    "step_thresholds",
    "fit_qwyc",
    "fixed_order",
    "fixed_order_sweep",
    "order_permutation",
    "lightgbm_early_stop_policy",
    "early_exit_loop",
    "validate_contributions",
    "ORDERS",
]

ORDERS = ("qwyc", "natural", "random", "individual_mse", "greedy_mse")

#: rows from which :meth:`EarlyExitPolicy.predict` splits them over threads (fewer: waking them costs more)
THREADED_ROWS = 8192


def _midpoint(a: float, b: float) -> float:
    """A threshold strictly between a < b, falling back to the ends when they are adjacent floats."""
    m = a + (b - a) / 2
    return m if a < m < b else b


def step_thresholds(g: np.ndarray, d: np.ndarray, budget: int, neg_only: bool = False):
    """Exact Algorithm 2 for one step: (eps_minus, eps_plus, exits, mistakes).

    Maximises exits; among equal exits uses the fewest mistakes.

    Parameters
    ----------
    g : numpy.ndarray of float, shape (n,)
        Running sums of the undecided examples after adding the candidate model.
    d : numpy.ndarray of bool, shape (n,)
        Their full decisions.
    budget : int
        Early decisions that may still differ from the full decision.
    neg_only : bool, optional
        Only negative exits (``eps_plus`` stays +inf).

    Returns
    -------
    (float, float, int, int)
        ``eps_minus`` and ``eps_plus`` (exit negative when ``g < eps_minus``, positive
        when ``g > eps_plus``; ∓inf for no exit), the number of examples that exit and
        the mistakes among them.
    """
    g = np.asarray(g, dtype=np.float64)
    d = np.asarray(d, dtype=bool)
    pos = np.sort(g[d])
    neg = np.sort(g[~d])
    return _best_split(pos, neg, int(budget), neg_only)


def _best_split(pos: np.ndarray, neg: np.ndarray, budget: int, neg_only: bool):
    n_pos, n_neg = pos.size, neg.size
    total = n_pos + n_neg
    if total == 0:
        return -np.inf, np.inf, 0, 0
    b = np.arange(budget + 1)
    # negative side: threshold at the (b+1)-th smallest positive value (inf when b >= n_pos)
    x = np.where(b < n_pos, pos[np.minimum(b, max(n_pos - 1, 0))] if n_pos else np.inf, np.inf)
    neg_cost = np.searchsorted(pos, x, side="left")
    neg_exits = neg_cost + np.searchsorted(neg, x, side="left")
    if neg_only:
        pos_cost = np.zeros(budget + 1, dtype=np.int64)
        pos_exits = np.zeros(budget + 1, dtype=np.int64)
        y = np.full(budget + 1, np.inf)
    else:
        # positive side: threshold at the (c+1)-th largest negative value (-inf when c >= n_neg)
        y = np.where(b < n_neg, neg[np.maximum(n_neg - 1 - b, 0)] if n_neg else -np.inf, -np.inf)
        pos_cost = n_neg - np.searchsorted(neg, y, side="right")
        pos_exits = pos_cost + n_pos - np.searchsorted(pos, y, side="right")
    # spend b on the negative side and budget - b on the positive side: the most exits
    best = int(min((neg_exits + pos_exits[::-1]).max(), total))
    if best == 0:
        return -np.inf, np.inf, 0, 0
    values = np.concatenate([pos, neg])
    if best == total:
        # everyone can exit: one cut (negatives below, positives above) with the fewest mistakes
        uniq = np.unique(values)
        below_pos = np.searchsorted(pos, uniq, side="left")
        above_neg = n_neg - np.searchsorted(neg, uniq, side="left")
        cut_mistakes = np.r_[below_pos + above_neg, n_pos]  # cut k: values < uniq[k] go negative; last: all
        if neg_only:
            cut_mistakes = np.r_[np.full(uniq.size, np.iinfo(np.int64).max), n_pos]
        k = int(np.argmin(cut_mistakes))
        if k == uniq.size:
            return np.inf, np.inf, total, n_pos
        if k == 0:
            return -np.inf, -np.inf, total, n_neg
        cut = _midpoint(uniq[k - 1], uniq[k])
        return cut, cut, total, int(cut_mistakes[k])
    # fewest mistakes reaching `best`: for each b the smallest c with enough positive-side exits
    need = best - neg_exits
    c = np.searchsorted(pos_exits, need, side="left")
    ok = (need <= 0) | (c <= budget - b)
    c = np.where(need <= 0, 0, c)
    cost = np.where(ok, neg_cost + pos_cost[np.minimum(c, budget)], np.iinfo(np.int64).max)
    i = int(np.argmin(cost))
    xi, yi = float(x[i]), float(y[c[i]])
    # place each threshold midway between the last exiting and the first staying value
    if neg_exits[i] > 0:
        below, above = values[values < xi], values[values >= xi]
        eps_minus = _midpoint(below.max(), above.min())
    else:
        eps_minus = -np.inf
    if pos_exits[c[i]] > 0:
        above, below = values[values > yi], values[values <= yi]
        eps_plus = _midpoint(below.max(), above.min())
    else:
        eps_plus = np.inf
    return float(eps_minus), float(eps_plus), best, int(cost[i])


def early_exit_loop(n: int, order, bias: float, threshold: float, contribution, exits):
    """Run rows through the models in ``order``; ``exits(r, g)`` says which leave after step r.

    ``contribution(rows, t)`` returns model t's contribution for those rows, so the
    same loop serves a precomputed F and on-demand tree evaluation. The last model
    always decides by ``g >= threshold``.
    """
    g = np.full(n, bias)
    decision = np.zeros(n, dtype=bool)
    n_eval = np.full(n, len(order), dtype=np.int64)
    active = np.arange(n)
    last = len(order) - 1
    for r, t in enumerate(order):
        g[active] += contribution(active, t)
        if r == last:
            decision[active] = g[active] >= threshold
            n_eval[active] = r + 1
            break
        up, down = exits(r, g[active])
        done = up | down
        decision[active[up]] = True
        n_eval[active[done]] = r + 1
        active = active[~done]
        if active.size == 0:
            break
    return decision, n_eval


@dataclass(frozen=True)
class EarlyExitPolicy:
    """An evaluation order with early-exit thresholds after each step (the last step always decides).

    Attributes
    ----------
    order : numpy.ndarray of int, shape (T,)
        Evaluation order π (a permutation of the models).
    eps_minus, eps_plus : numpy.ndarray of float64, shape (T,)
        After step r an example exits negative when ``g_r < eps_minus[r]`` and positive
        when ``g_r > eps_plus[r]`` (∓inf: no exit at that step).
    threshold : float
        β: the full decision is ``bias + F.sum(1) >= threshold``.
    bias : float
        Constant of the running sum ``g_0``.
    costs : numpy.ndarray of float64, shape (T,)
        Cost of evaluating each model (by model index).
    alpha : float
        Share of fit examples whose early decision may differ from the full decision.
    method : str
        How the policy was fitted (``"qwyc"``, an order name, ``"explicit"`` ...).
    fit_seconds : float
        Fitting time.
    fit_disagreements : int
        Early decisions differing from the full decision on the fit data.
    info : dict
        Further diagnostics.
    """

    order: np.ndarray
    eps_minus: np.ndarray
    eps_plus: np.ndarray
    threshold: float
    bias: float
    costs: np.ndarray
    alpha: float
    method: str
    fit_seconds: float = 0.0
    fit_disagreements: int = 0
    info: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        """JSON-ready record (infinite thresholds written as None: no exit at that step)."""

        def clean(values):
            return [float(v) if np.isfinite(v) else None for v in values]

        return {
            "method": self.method,
            "order": [int(t) for t in self.order],
            "eps_minus": clean(self.eps_minus),
            "eps_plus": clean(self.eps_plus),
            "threshold": self.threshold,
            "bias": self.bias,
            "alpha": self.alpha,
            "costs": [float(c) for c in self.costs],
            "fit_seconds": self.fit_seconds,
            "fit_disagreements": self.fit_disagreements,
        }

    def _exits(self, r: int, g: np.ndarray):
        up = g > self.eps_plus[r]
        return up, (g < self.eps_minus[r]) & ~up

    def predict(self, f_matrix, workers: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(decisions, number of models evaluated) for every row of F.

        Parameters
        ----------
        f_matrix : array_like of float, shape (N, T)
            Contributions of the T base models to the score of N examples (finite).
        workers : int, optional
            Threads the rows are split over (from :data:`THREADED_ROWS` rows on); the cores this process may
            use when None. The result is the same for any number.

        Returns
        -------
        (numpy.ndarray of bool, numpy.ndarray of int)
            Decisions and models evaluated per example, both shape (N,).
        """
        f_matrix = np.ascontiguousarray(f_matrix, dtype=np.float64)
        parts = resolve_workers(workers) if f_matrix.shape[0] >= THREADED_ROWS else 1
        with worker_pool(parts) as pool:
            return run_policy(
                f_matrix,
                np.asarray(self.order, dtype=np.int64),
                np.asarray(self.eps_minus, dtype=np.float64),
                np.asarray(self.eps_plus, dtype=np.float64),
                float(self.bias),
                float(self.threshold),
                pool,
                parts,
            )

    def predict_lazy(self, ensemble, x, workers: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Like :meth:`predict` but evaluating each tree only on the rows still undecided.

        Ensembles of tree arrays (every model reader's, scikit-learn's) run compiled, row by row
        (:class:`~engine.qwyc._evaluator.FlatEnsemble`); others tree by tree over the undecided rows.

        Parameters
        ----------
        ensemble : AdditiveEnsemble
            The ensemble whose contributions the policy was fitted on.
        x : array_like of float, shape (N, features)
            Examples.
        workers : int, optional
            Threads the rows are split over by the compiled evaluator (from
            :data:`~engine.qwyc._evaluator.THREADED_ROWS` rows on); the cores this process may use when None. The
            result is the same for any number.

        Returns
        -------
        (numpy.ndarray of bool, numpy.ndarray of int)
            Decisions and models evaluated per example, both shape (N,).
        """
        x = np.asarray(x, dtype=np.float64)
        flat = flatten_ensemble(ensemble)
        if flat is not None:  # compiled: each row through the order, stopping at its first exit
            return flat.early_exit(self, x, workers=workers)[:2]
        return early_exit_loop(
            x.shape[0],
            self.order,
            self.bias,
            self.threshold,
            lambda active, t: ensemble.trees[t].predict(x[active]),
            self._exits,
        )

    def evaluate(self, f_matrix, labels=None, *, full=None, predicted=None) -> dict:
        """Mean cost, mean # models, % disagreement with the full ensemble, accuracy if labels.

        Parameters
        ----------
        f_matrix : array_like of float, shape (N, T)
            Contributions of the T base models to the score of N examples (finite).
        labels : array_like of {0, 1}, shape (N,), optional
            True labels.
        full : numpy.ndarray of bool, shape (N,), optional
            The full ensemble's decisions ``bias + F.sum(1) >= threshold`` when the caller
            already has them (sweeps evaluate many policies on the same F).
        predicted : (numpy.ndarray of bool, numpy.ndarray of int), optional
            :meth:`predict` of this policy on ``f_matrix`` when the caller already has it.

        Returns
        -------
        dict
            ``mean_cost``, ``mean_models``, ``disagreement_pct`` and, with labels,
            ``accuracy`` and ``full_accuracy``.
        """
        f_matrix = np.asarray(f_matrix, dtype=np.float64)
        decision, n_eval = self.predict(f_matrix) if predicted is None else predicted
        if full is None:
            full = full_decisions(f_matrix, self.bias, self.threshold)
        cum_cost = np.cumsum(self.costs[self.order])
        out = {
            "mean_cost": float(cum_cost[n_eval - 1].mean()),
            "mean_models": float(n_eval.mean()),
            "disagreement_pct": 100.0 * float(np.mean(decision != full)),
        }
        if labels is not None:
            y = np.asarray(labels).astype(bool)
            out["accuracy"] = float(np.mean(decision == y))
            out["full_accuracy"] = float(np.mean(full == y))
        return out


def validate_contributions(f_matrix, costs, alpha, bias):
    f = np.asarray(f_matrix, dtype=np.float64)
    if f.ndim != 2 or f.shape[1] < 1 or f.shape[0] < 1:
        raise InputError(f"F must be a non-empty (examples x models) matrix; got shape {f.shape}")
    if not np.all(np.isfinite(f)):
        raise InputError("F contains NaN or infinite contributions")
    if not 0 <= alpha < 1:
        raise InputError("alpha (allowed share of decisions differing from the full ensemble) must be in [0, 1)")
    c = np.ones(f.shape[1]) if costs is None else np.asarray(costs, dtype=np.float64)
    if c.shape != (f.shape[1],) or np.any(c <= 0) or not np.all(np.isfinite(c)):
        raise InputError("costs must be one positive number per model")
    return f, c, float(bias)


def _allowance(alpha: float, n: int, step: int, steps: int, budget: str) -> int:
    total = int(np.floor(alpha * n + 1e-9))
    if budget == "greedy":
        return total
    if budget == "rationed":
        return int(np.floor(total * (step + 1) / max(steps - 1, 1)))
    raise InputError("budget must be 'greedy' or 'rationed'")


def _thresholds_along(
    f: np.ndarray,
    order: Sequence[int],
    full: np.ndarray,
    threshold: float,
    bias: float,
    alpha: float,
    neg_only: bool,
    budget: str,
    f_t: np.ndarray | None = None,
):
    """Algorithm 2 after every step of a fixed order (compiled, :func:`engine.qwyc._scan.thresholds_along`).

    ``f_t``: F transposed and contiguous, when the caller already has it (sweeps share it).
    """
    n, _ = f.shape
    if f_t is None:
        f_t = np.ascontiguousarray(f.T)
    order = np.asarray(order, dtype=np.int64)
    steps = order.size
    allowance = np.array([_allowance(alpha, n, r, steps, budget) for r in range(steps)], dtype=np.int64)
    g = np.full(n, bias)
    active = np.arange(n)
    n_active = n
    eps_minus = np.full(steps, -np.inf)
    eps_plus = np.full(steps, np.inf)
    spent, r = 0, 0
    while r < steps:
        r, n_active, spent = thresholds_along(
            f_t, order, full, allowance, neg_only, r, g, active, n_active, eps_minus, eps_plus, spent
        )
        if r >= steps:
            break
        live = active[:n_active]  # every undecided row can exit at step r: the sorted formulation's cut
        lo, hi, _, mistakes = step_thresholds(g[live], full[live], int(allowance[r]) - spent, neg_only)
        eps_minus[r], eps_plus[r] = lo, hi
        spent += mistakes
        gl = g[live]
        keep = live[~((gl > hi) | (gl < lo))]
        active[: keep.size] = keep
        n_active = keep.size
        r += 1
    return eps_minus, eps_plus, int(spent)


def order_permutation(f: np.ndarray, order, *, bias: float = 0.0, seed: int = 0, labels=None):
    """The permutation of a fixed order and its method name (see :func:`fixed_order`).

    It depends on neither α nor the budget, so sweeps compute it once per order.

    Parameters
    ----------
    f : numpy.ndarray of float64, shape (N, T)
        Validated contributions.
    order : str or sequence of int
        An order name of :data:`ORDERS` (not ``"qwyc"``) or a permutation.
    bias : float, optional
        Constant of the score.
    seed : int, optional
        Seed of the ``"random"`` order.
    labels : array_like of {0, 1}, shape (N,), optional
        Labels for the MSE orders.

    Returns
    -------
    (numpy.ndarray of int64, str)
        The permutation and the method name (``"explicit"`` for a given permutation).

    Raises
    ------
    InputError
        An unknown order name or not a permutation.
    """
    t_count = f.shape[1]
    full_score = full_scores(f, bias)
    target = (
        full_score
        if labels is None
        else np.where(np.asarray(labels).astype(bool), 1.0, -1.0) * np.abs(full_score).mean()
    )
    if isinstance(order, str):
        name = order
        if order == "natural":
            perm = np.arange(t_count)
        elif order == "random":
            perm = np.random.default_rng(seed).permutation(t_count)
        elif order == "individual_mse":
            resid = target - bias
            mse = ((resid[:, None] - f) ** 2).mean(axis=0)
            perm = np.argsort(mse, kind="stable")
        elif order == "greedy_mse":
            perm = _greedy_mse_order(f, target - bias)
        else:
            raise InputError(f"order must be one of {ORDERS[1:]} or a permutation")
    else:
        perm = np.asarray(order, dtype=np.int64)
        name = "explicit"
        if sorted(perm.tolist()) != list(range(t_count)):
            raise InputError(f"an explicit order must be a permutation of 0..{t_count - 1}")
    return perm, name


def _greedy_mse_order(f: np.ndarray, resid: np.ndarray) -> np.ndarray:
    """Greedy forward selection: each step takes the unused column nearest (in squared error) to the residual.

    ``||resid - F_t||^2 - ||resid||^2 = ||F_t||^2 - 2 resid·F_t``, and after taking column s
    every ``resid·F_t`` drops by ``F_s·F_t``: one Gram matrix ``FᵀF`` (a single BLAS product)
    replaces a matrix-vector product over all N rows per step, O(T²) after it.
    """
    t_count = f.shape[1]
    f = np.asarray(f, dtype=np.float64)
    gram = f.T @ f
    sq = np.diag(gram).copy()
    dots = resid @ f
    left = np.ones(t_count, dtype=bool)
    perm = np.empty(t_count, dtype=np.int64)
    for r in range(t_count):
        gain = np.where(left, sq - 2 * dots, np.inf)
        t = int(np.argmin(gain))
        perm[r] = t
        left[t] = False
        dots -= gram[t]
    return perm


def fixed_order(
    f_matrix,
    order: str | Sequence[int],
    *,
    threshold: float = 0.0,
    bias: float = 0.0,
    alpha: float = 0.005,
    neg_only: bool = False,
    costs=None,
    budget: str = "greedy",
    seed: int = 0,
    labels=None,
) -> EarlyExitPolicy:
    """Algorithm 2 thresholds along a given order: "natural", "random", "individual_mse",
    "greedy_mse" or an explicit permutation.

    The MSE orders need no labels: each model is scored by how well the partial
    sum reproduces the full score ``f`` (individually, or greedily given the models
    already chosen). With ``labels`` they reproduce the labels' logit sign instead.

    Parameters
    ----------
    f_matrix : array_like of float, shape (N, T)
        Contributions of the T base models to the score of N examples (finite).
    order : str or sequence of int
        ``"natural"``, ``"random"``, ``"individual_mse"``, ``"greedy_mse"`` or a
        permutation of 0..T-1.
    threshold : float, optional
        β of the full decision ``bias + F.sum(1) >= threshold``.
    bias : float, optional
        Constant of the score.
    alpha : float, optional
        Share of examples, in [0, 1), whose early decision may differ from the full one.
    neg_only : bool, optional
        Only early negatives.
    costs : array_like of float, shape (T,), optional
        Positive cost of each model; 1 each when None.
    budget : {"greedy", "rationed"}, optional
        How the mistake budget ``floor(alpha N)`` is spent over the steps.
    seed : int, optional
        Seed of the ``"random"`` order.
    labels : array_like of {0, 1}, shape (N,), optional
        Labels for the MSE orders.

    Returns
    -------
    EarlyExitPolicy
        The order with its Algorithm 2 thresholds.

    Raises
    ------
    InputError
        Invalid F, alpha, costs, budget or order.
    """
    t0 = time.perf_counter()
    f, c, bias = validate_contributions(f_matrix, costs, alpha, bias)
    perm, name = order_permutation(f, order, bias=bias, seed=seed, labels=labels)
    full = full_decisions(f, bias, threshold)
    lo, hi, spent = _thresholds_along(f, perm, full, threshold, bias, alpha, neg_only, budget)
    return EarlyExitPolicy(perm, lo, hi, float(threshold), bias, c, float(alpha), name, time.perf_counter() - t0, spent)


def fixed_order_sweep(
    f_matrix,
    order: str | Sequence[int],
    alphas: Sequence[float],
    *,
    threshold: float = 0.0,
    bias: float = 0.0,
    neg_only: bool = False,
    costs=None,
    budget: str = "greedy",
    seed: int = 0,
) -> list[EarlyExitPolicy]:
    """:func:`fixed_order` for several α at once, the order computed once for all of them.

    The order depends on neither α nor the budget; each α's thresholds then follow it in one
    compiled pass (order statistics selected, no sort). The policies are those of
    :func:`fixed_order` with the same arguments.

    Parameters
    ----------
    f_matrix : array_like of float, shape (N, T)
        Contributions of the T base models to the score of N examples (finite).
    order : str or sequence of int
        As for :func:`fixed_order`.
    alphas : sequence of float
        The α of each policy, each in [0, 1).
    threshold, bias, neg_only, costs, budget, seed
        As for :func:`fixed_order`.

    Returns
    -------
    list of EarlyExitPolicy
        One policy per α, in the order given.

    Raises
    ------
    InputError
        Invalid F, an α, costs, budget or order.
    """
    f, c, bias = validate_contributions(f_matrix, costs, 0.0, bias)
    for a in alphas:
        validate_contributions(f[:1], c, a, bias)
    perm, name = order_permutation(f, order, bias=bias, seed=seed)
    full = full_decisions(f, bias, threshold)
    f_t = np.ascontiguousarray(f.T)
    policies = []
    for a in alphas:
        t1 = time.perf_counter()
        lo, hi, spent = _thresholds_along(f, perm, full, threshold, bias, a, neg_only, budget, f_t)
        policies.append(
            EarlyExitPolicy(perm, lo, hi, float(threshold), bias, c, float(a), name, time.perf_counter() - t1, spent)
        )
    return policies


@dataclass(frozen=True, eq=False)
class QwycStart:
    """What every QWYC* fit on one F shares, whatever α, the exits or the budget rule: F checked, and the
    first step's exits of every candidate for every budget up to ``max_alpha`` (:func:`qwyc_start`).

    Attributes
    ----------
    f : numpy.ndarray of float64, shape (N, T)
        The contributions, checked and C-contiguous (the caller's array when it already was).
    threshold, bias : float
        β and the constant of the score the start was made for.
    max_alpha : float
        Largest α whose greedy first budget ``floor(α N)`` the tables cover.
    neg_exits, pos_exits : numpy.ndarray of int32, shape (T, floor(max_alpha N) + 1)
        ``neg_exits[t, b]``: fit rows whose sum ``bias + F[:, t]`` lies below the (b+1)-th smallest
        of the rows decided positive by the full ensemble (N past them); ``pos_exits[t, c]``: above
        the (c+1)-th largest of the negatives. Algorithm 2's first-step exits for budget B are
        ``max_b neg_exits[t, b] + pos_exits[t, B - b]``.
    """

    f: np.ndarray
    threshold: float
    bias: float
    max_alpha: float
    neg_exits: np.ndarray
    pos_exits: np.ndarray

    @property
    def nbytes(self) -> int:
        """Memory of the tables (F is the caller's)."""
        return int(self.neg_exits.nbytes + self.pos_exits.nbytes)

    def validated(self, f_matrix, costs, alpha: float, bias: float, threshold: float):
        """(F, costs, bias) as :func:`validate_contributions` for a fit with this start, which must be of the same F,
        threshold and bias (F's own checks are not repeated when it is the start's array).

        Parameters
        ----------
        f_matrix : array_like of float, shape (N, T)
            The F being fitted: the start's own array, or one equal to it.
        costs : array_like of float, shape (T,), optional
            Positive cost of each model; 1 each when None.
        alpha, bias, threshold : float
            The fit's α, constant of the score and β.

        Returns
        -------
        (numpy.ndarray, numpy.ndarray, float)
            The start's F, the costs and the bias, checked.

        Raises
        ------
        InputError
            Another F, bias or threshold than the start's; invalid costs or α.
        """
        f = np.asarray(f_matrix, dtype=np.float64)
        if f is not self.f and not (f.shape == self.f.shape and np.array_equal(f, self.f)):
            raise InputError(
                "the QWYC* start was made on another contribution matrix F: make it with qwyc_start(F) "
                "on the F being fitted"
            )
        if float(bias) != self.bias or float(threshold) != self.threshold:
            raise InputError(
                f"the QWYC* start was made for bias {self.bias!r} and threshold {self.threshold!r}, not "
                f"bias {float(bias)!r} and threshold {float(threshold)!r}: make it with the fit's own"
            )
        _, c, bias = validate_contributions(self.f[:1], costs, alpha, bias)
        return self.f, c, bias


#: the ``max_alpha`` of the starts worth keeping for a slider over α: the tables grow with it (and their pass over F
#: with them: 0.18 s at 1 %, 0.5 s at 5 % on the shipped sample), so small α do not pay for the largest
START_ALPHAS = (0.01, 0.02, 0.05)


def start_alpha(alpha: float) -> float | None:
    """The ``max_alpha`` of the :func:`qwyc_start` to keep for fits at ``alpha``: the first of :data:`START_ALPHAS`
    at or above it; None above the last (such fits read F).

    Parameters
    ----------
    alpha : float
        The fit's α.

    Returns
    -------
    float or None
    """
    return next((a for a in START_ALPHAS if alpha <= a), None)


def qwyc_start(
    f_matrix, *, threshold: float = 0.0, bias: float = 0.0, max_alpha: float = 0.05, workers: int | None = None
) -> QwycStart:
    """QWYC*'s work on F that no setting changes, done once: pass it to :func:`fit_qwyc` as ``start`` for each α.

    Algorithm 1's first step tries every model on every fit row, all undecided with running sum
    ``bias``; the exits of each candidate for every budget b depend only on its (b+1)-th smallest
    positive and largest negative sums and the rows beyond them. They are counted here once for all
    budgets up to ``floor(max_alpha N)`` (one pass over F, as a fit's first step), and a fit with a
    start picks its first model from them in O(T·budget) instead of reading F: the same model, so the
    same policy. Memory: two int32 tables of T × (floor(max_alpha N) + 1) (6.5 MB for the shipped
    sample's 32,561 rows × 500 trees at 5 %).

    Parameters
    ----------
    f_matrix, threshold, bias
        As for :func:`fit_qwyc` (the fits this start serves take the same three).
    max_alpha : float, optional
        Largest α, in [0, 1), the tables serve; fits beyond it (and rationed budgets beyond it) read F.
    workers : int, optional
        Threads the pass over F is split over; the cores this process may use when None.

    Returns
    -------
    QwycStart

    Raises
    ------
    InputError
        Invalid F, bias or ``max_alpha``.
    """
    if not 0 <= max_alpha < 1:
        raise InputError(f"max_alpha (the largest α the QWYC* start serves) must be in [0, 1), not {max_alpha!r}")
    f, _, bias = validate_contributions(f_matrix, None, max_alpha, bias)
    f = np.ascontiguousarray(f)
    full = full_decisions(f, bias, threshold)
    k = int(np.floor(max_alpha * f.shape[0] + 1e-9)) + 1
    parts = resolve_workers(workers)
    with worker_pool(parts) as pool:
        neg_exits, pos_exits = dense_tables(f, bias, full, k, False, pool, parts)
    return QwycStart(f, float(threshold), bias, float(max_alpha), neg_exits, pos_exits)


def fit_qwyc(
    f_matrix,
    *,
    threshold: float = 0.0,
    alpha: float = 0.005,
    order=None,
    neg_only: bool = False,
    costs=None,
    bias: float = 0.0,
    budget: str = "greedy",
    seed: int = 0,
    progress=None,
    workers: int | None = None,
    start: QwycStart | None = None,
) -> EarlyExitPolicy:
    """QWYC* (``order=None``, Algorithm 1) or Algorithm 2 thresholds along a fixed order.

    Algorithm 1: at each step every remaining model is tried as the next one; its
    exact Algorithm 2 thresholds give the examples it would exit; the model with
    the smallest ``cost / exits`` is taken (no exits anywhere: the cheapest model,
    lowest index first). Each step works on one (candidates x undecided) matrix.
    ``progress(step, T)`` is called after each step.

    Parameters
    ----------
    f_matrix : array_like of float, shape (N, T)
        Contributions of the T base models to the score of N examples (finite).
    threshold : float, optional
        β of the full decision ``bias + F.sum(1) >= threshold``.
    alpha : float, optional
        Share of examples, in [0, 1), whose early decision may differ from the full one.
    order : str or sequence of int, optional
        None for QWYC* (Algorithm 1); else a fixed order for :func:`fixed_order`.
    neg_only : bool, optional
        Only early negatives ("filter then score").
    costs : array_like of float, shape (T,), optional
        Positive cost of each model; 1 each when None.
    bias : float, optional
        Constant of the score.
    budget : {"greedy", "rationed"}, optional
        How the mistake budget ``floor(alpha N)`` is spent over the steps.
    seed : int, optional
        Seed of a ``"random"`` fixed order.
    progress : callable, optional
        ``progress(step, T)`` after each step (QWYC* only).
    workers : int, optional
        Threads QWYC*'s candidate scan is split over; the cores this process may use when None
        (:func:`~engine.qwyc.kernels.default_workers`). The policy is the same for any number.
    start : QwycStart, optional
        :func:`qwyc_start` of this F, threshold and bias: QWYC*'s first step is read from it instead of
        from F (the same policy; budgets beyond its ``max_alpha`` read F as without it).

    Returns
    -------
    EarlyExitPolicy
        Order and thresholds; at most ``floor(alpha N)`` fit examples decided
        differently from the full ensemble.

    Raises
    ------
    InputError
        Invalid F, alpha, costs, budget or order; a ``start`` made on another F, threshold or bias.

    References
    ----------
    .. [1] Wang, S., Gupta, M. & You, S. (2018). *Quit When You Can: Efficient Evaluation
       of Ensembles with Ordering Optimization.* arXiv:1806.11202: Algorithm 1 (QWYC*, the joint order) and Algorithm 2 (the thresholds of one step).

    Examples
    --------
    An ensemble of 20 models on 1,000 rows, allowed to differ from the full ensemble on at most 1 % of them:

    >>> import numpy as np
    >>> from engine import fit_qwyc
    >>> F = np.random.default_rng(0).normal(size=(1000, 20)) * np.linspace(1, 0.1, 20)
    >>> policy = fit_qwyc(F, alpha=0.01)
    >>> policy.evaluate(F)  # on the fit rows: 1 % of decisions differ, 9.7 of 20 models evaluated on average
    {'mean_cost': 9.715, 'mean_models': 9.715, 'disagreement_pct': 1.0}
    """
    if order is not None:
        return fixed_order(
            f_matrix,
            order,
            threshold=threshold,
            bias=bias,
            alpha=alpha,
            neg_only=neg_only,
            costs=costs,
            budget=budget,
            seed=seed,
        )
    t0 = time.perf_counter()
    if start is None:
        f, c, bias = validate_contributions(f_matrix, costs, alpha, bias)
    else:
        f, c, bias = start.validated(f_matrix, costs, alpha, bias, threshold)
    parts = resolve_workers(workers)
    full = full_decisions(f, bias, threshold)
    with worker_pool(parts) as pool:
        order, eps_minus, eps_plus, spent = _qwyc_star(
            f, c, full, bias, alpha, neg_only, budget, progress, pool=pool, parts=parts, start=start
        )
    return EarlyExitPolicy(
        order, eps_minus, eps_plus, float(threshold), bias, c, float(alpha), "qwyc", time.perf_counter() - t0, spent
    )


#: undecided rows x candidates from which a step's scan is split over threads: below it (the late steps) waking
#: the threads costs more than the scan
THREADED_SCAN = 400_000


def _qwyc_star(
    f: np.ndarray,
    c: np.ndarray,
    full: np.ndarray,
    bias: float,
    alpha: float,
    neg_only: bool,
    budget: str,
    progress=None,
    block: int = BLOCK,
    rebuild_share: float = 0.8,
    rebuild_steps: int = 16,
    pool=None,
    parts: int = 1,
    threaded_scan: int = THREADED_SCAN,
    start: QwycStart | None = None,
):
    """Algorithm 1 on validated F: (order, eps_minus, eps_plus, mistakes spent).

    ``start``: :func:`qwyc_start` of this F, ``full`` and ``bias``; the first step is picked from its
    tables when the first budget is below their width.

    The undecided rows live in a blocked :class:`~engine.qwyc._scan.Layout` (exact block-pruned
    scans); it is rebuilt (compacted, re-sorted by the running sums) once the undecided rows
    fall below ``rebuild_share`` of its rows or ``rebuild_steps`` steps after the last build.
    The candidates of a step are split over ``parts`` threads of ``pool`` while its undecided rows
    times candidates reach ``threaded_scan``.
    """
    n, t_count = f.shape
    remaining = np.arange(t_count)
    order = np.empty(t_count, dtype=np.int64)
    eps_minus = np.full(t_count, -np.inf)
    eps_plus = np.full(t_count, np.inf)
    spent = 0
    f = np.ascontiguousarray(f)  # one compiled specialisation
    lay, built_at, spare = None, 0, None
    exits = np.empty(t_count, dtype=np.int64)
    for r in range(t_count):
        if r == t_count - 1 or (lay.n_active if lay is not None else n) == 0:
            order[r:] = remaining  # the rest decide nothing early: keep their (cheapest-first) order
            if r < t_count - 1:
                order[r:] = remaining[np.argsort(c[remaining], kind="stable")]
            break
        allowed = _allowance(alpha, n, r, t_count, budget) - spent
        if lay is None:  # the first step straight from F; the layout holds the rows it leaves undecided
            t, lo, hi, mistakes, lay = _first_step(
                f, c, full, bias, allowed, neg_only, exits, block, pool, parts, start
            )
            order[r], eps_minus[r], eps_plus[r] = t, lo, hi
            remaining = np.delete(remaining, t)
            spent += mistakes
            if progress is not None:
                progress(r + 1, t_count)
            continue
        if lay.n_active < rebuild_share * lay.rows.size or (
            r - built_at >= rebuild_steps and lay.n_active < lay.rows.size
        ):
            cols = np.flatnonzero(lay.lo != np.inf)
            lay, spare = (
                build(
                    lay.ft,
                    False,
                    cols,
                    lay.rows[cols],
                    lay.lo[cols],
                    cols < lay.n_pos,
                    remaining,
                    lay.slot[remaining],
                    t_count,
                    block,
                    spare,
                    pool,
                    parts,
                ),
                lay.buffer,
            )  # two buffers
            built_at = r
        pick = scan_pick(
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
            lay.slot[remaining],
            c[remaining],
            allowed,
            neg_only,
            exits,
            pool,
            parts if lay.n_active * remaining.size >= threaded_scan else 1,
        )
        t = int(remaining[pick])
        order[r] = t
        remaining = np.delete(remaining, pick)
        lo, hi, _, mistakes, everyone_exits = add_and_split(
            lay.ft[lay.slot[t]], lay.lo, lay.hi, lay.n_pos, allowed, neg_only
        )
        if everyone_exits:  # the sorted formulation's one-cut rule (at most once: nobody is left after it)
            _, g_left, d_left = lay.undecided()
            lo, hi, _, mistakes = step_thresholds(g_left, d_left, allowed, neg_only)
        eps_minus[r], eps_plus[r] = lo, hi
        spent += mistakes
        lay.n_active = drop_exited(lay.lo, lay.hi, lo, hi)
        if progress is not None:
            progress(r + 1, t_count)
    if progress is not None:
        progress(t_count, t_count)
    return order, eps_minus, eps_plus, spent


def _first_step(
    f: np.ndarray,
    c: np.ndarray,
    full: np.ndarray,
    bias: float,
    allowed: int,
    neg_only: bool,
    exits: np.ndarray,
    block: int,
    pool=None,
    parts: int = 1,
    start: QwycStart | None = None,
):
    """QWYC*'s first step read straight from F (no copy of it), or picked from ``start``'s tables:
    (model, eps_minus, eps_plus, mistakes, layout)."""
    n, t_count = f.shape
    if start is not None and allowed < start.neg_exits.shape[1]:
        t = table_pick(start.neg_exits, start.pos_exits, c, allowed, neg_only, n, exits)
    else:
        t = dense_pick(f, bias, full, c, allowed, neg_only, exits, pool, parts)
    g = np.full(n, bias)
    g += f[:, t]
    lo, hi, _, mistakes, everyone_exits = split(g[full], g[~full], allowed, neg_only)
    if everyone_exits:
        lo, hi, _, mistakes = step_thresholds(g, full, allowed, neg_only)
    keep = np.flatnonzero(~((g > hi) | (g < lo)))
    models = np.delete(np.arange(t_count), t)
    lay = build(f, True, keep, keep, g[keep], full[keep], models, models, t_count, block, pool=pool, parts=parts)
    return t, lo, hi, mistakes, lay


def lightgbm_early_stop_policy(n_models: int, freq: int, margin: float, *, bias: float = 0.0) -> EarlyExitPolicy:
    """LightGBM's ``pred_early_stop`` rule for binary models as a policy on F.

    LightGBM stops after every ``freq``-th iteration when ``2·|raw score| > margin``:
    natural order, thresholds ``±margin/2`` at those steps and none elsewhere.

    Parameters
    ----------
    n_models : int
        Iterations T of the model.
    freq : int
        Check every ``freq`` iterations (>= 1).
    margin : float
        LightGBM's ``pred_early_stop_margin`` (>= 0).
    bias : float, optional
        Constant of the score.

    Returns
    -------
    EarlyExitPolicy
        The rule as a policy (threshold 0, unit costs, alpha 0).

    Raises
    ------
    InputError
        ``freq < 1`` or ``margin < 0``.
    """
    if freq < 1 or margin < 0:
        raise InputError("freq must be >= 1 and margin >= 0")
    steps = np.arange(1, n_models + 1)
    check = steps % freq == 0
    eps_plus = np.where(check, margin / 2, np.inf)
    eps_minus = np.where(check, -margin / 2, -np.inf)
    return EarlyExitPolicy(
        np.arange(n_models), eps_minus, eps_plus, 0.0, float(bias), np.ones(n_models), 0.0, "lightgbm pred_early_stop"
    )
