"""A compiled early-exit evaluator: every tree of an ensemble flattened to arrays, rows evaluated one by one.

QWYC (Wang, Gupta & You, *Quit When You Can*, arXiv:1806.11202, 2018) saves work only
if an example really stops evaluating trees once it exits. The NumPy evaluator
(:meth:`~engine.qwyc._policy.EarlyExitPolicy.predict_lazy`) runs tree by tree over the
rows still undecided, which pays NumPy's per-call cost 500 times per batch and
dominates for single rows. Here the trees of any reader (scikit-learn, LightGBM,
XGBoost: all :class:`~engine.qwyc._ensembles.Tree` arrays, LightGBM's missing-value
rules included) are concatenated into one set of node arrays, and one compiled loop
takes each row through the policy's order, adding each tree's leaf to the running
sum and stopping at the first exit. The running sum is formed with the same
additions in the same order as ``bias + F[:, order].cumsum()``, so decisions equal
:meth:`~engine.qwyc._policy.EarlyExitPolicy.predict` on the contribution matrix and,
with no exit, the full model's.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ._trees import Tree, TreeSum
from .kernels import in_parts, resolve_workers, step_exit, worker_pool

__all__ = ["FlatEnsemble", "flatten_ensemble"]

try:  # Numba is a dependency; the fallback keeps the engine importable where it cannot be installed
    from numba import njit
except ImportError:  # pragma: no cover - exercised only without numba
    njit = None  # type: ignore[assignment]

#: per-node missing-value rule: NaN goes the default way (scikit-learn, XGBoost, LightGBM's NaN type),
#: NaN is read as 0 (LightGBM None), 0 and NaN go the default way (LightGBM Zero)
_NAN_DEFAULT, _NAN_AS_ZERO, _ZERO_DEFAULT = 0, 1, 2
_ZERO = 1e-35  # LightGBM's kZeroThreshold
#: rows from which :meth:`FlatEnsemble.early_exit` splits them over threads (fewer: waking them costs more)
THREADED_ROWS = 4096


@dataclass(frozen=True)
class FlatEnsemble:
    """The trees of an additive ensemble as one set of node arrays (children as global node indices).

    Attributes
    ----------
    roots : numpy.ndarray of int64, shape (T,)
        First node of each tree.
    feature, left, right : numpy.ndarray of int64, shape (nodes,)
        Split feature and children of each node.
    threshold, value : numpy.ndarray of float64, shape (nodes,)
        Split value (go left when ``x <= threshold``) and leaf output.
    missing_left, is_leaf : numpy.ndarray of bool, shape (nodes,)
        Default direction of a missing value, leaf flags.
    missing_rule : numpy.ndarray of int8, shape (nodes,)
        How a missing value is routed (see the module constants).
    bias : float
        Constant of the score.
    """

    roots: np.ndarray
    feature: np.ndarray
    left: np.ndarray
    right: np.ndarray
    threshold: np.ndarray
    value: np.ndarray
    missing_left: np.ndarray
    is_leaf: np.ndarray
    missing_rule: np.ndarray
    bias: float

    @property
    def n_models(self) -> int:
        return int(self.roots.size)

    def _nodes(self):
        return (
            self.roots,
            self.feature,
            self.left,
            self.right,
            self.threshold,
            self.value,
            self.missing_left,
            self.is_leaf,
            self.missing_rule,
        )

    def decision_function(self, x) -> np.ndarray:
        """The full score ``bias + Σ_t tree_t(x)`` of every row, trees in the model's order.

        Parameters
        ----------
        x : array_like of float, shape (N, features)
            Rows (NaN allowed).

        Returns
        -------
        numpy.ndarray of float64, shape (N,)
        """
        x = np.ascontiguousarray(x, dtype=np.float64)
        order = np.arange(self.n_models, dtype=np.int64)
        no_exit = np.full(self.n_models, np.nan)  # comparisons with NaN are false: nobody exits
        return _early_exit(x, *self._nodes(), order, no_exit, no_exit, self.bias, 0.0)[2]  # type: ignore[call-arg]

    def contributions(self, x, *, workers: int | None = None) -> np.ndarray:
        """The (N, T) matrix F: ``F[i, t]`` is tree t's leaf value for row i.

        Parameters
        ----------
        x : array_like of float, shape (N, features)
            Rows (NaN allowed).
        workers : int, optional
            Threads the blocks of rows are dealt to; the cores this process may use when None.

        Returns
        -------
        numpy.ndarray of float64, shape (N, T)
        """
        x = np.ascontiguousarray(x, dtype=np.float64)
        out = np.empty((x.shape[0], self.n_models))
        blocks = -(-x.shape[0] // _BLOCK_ROWS)
        parts = max(1, min(resolve_workers(workers), blocks // 4))  # a few blocks each, or threads cost more
        with worker_pool(parts) as pool:
            in_parts(pool, parts, lambda p: _contributions(x, out, p, parts, *self._nodes()))
        return out

    def early_exit(self, policy, x, *, workers: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each row through ``policy``'s order, stopping at its first exit.

        Parameters
        ----------
        policy : EarlyExitPolicy
            A policy for this ensemble (order and thresholds over its T trees).
        x : array_like of float, shape (N, features)
            Rows (NaN allowed).
        workers : int, optional
            Threads contiguous parts of the rows are dealt to (from :data:`THREADED_ROWS` rows on); the cores this
            process may use when None. Rows are independent: the result is the same for any number.

        Returns
        -------
        (numpy.ndarray of bool, numpy.ndarray of int64, numpy.ndarray of float64)
            Decision, trees evaluated, and the running score when the row stopped (the full
            score for rows that evaluated every tree), each shape (N,).

        Raises
        ------
        InputError
            The policy is for a different number of trees.
        """
        if len(policy.order) != self.n_models:
            raise InputError(f"the policy orders {len(policy.order)} trees; this ensemble has {self.n_models}")
        x = np.ascontiguousarray(x, dtype=np.float64)
        rule = (
            np.asarray(policy.order, dtype=np.int64),
            np.asarray(policy.eps_minus, dtype=np.float64),
            np.asarray(policy.eps_plus, dtype=np.float64),
            float(policy.bias),
            float(policy.threshold),
        )
        parts = resolve_workers(workers) if x.shape[0] >= THREADED_ROWS else 1
        if parts == 1:
            return _early_exit(x, *self._nodes(), *rule)  # type: ignore[call-arg]
        bounds = np.linspace(0, x.shape[0], parts + 1).astype(np.int64)
        results: list = [None] * parts

        def part(p: int) -> None:
            results[p] = _early_exit(x[bounds[p] : bounds[p + 1]], *self._nodes(), *rule)  # type: ignore[call-arg]

        with worker_pool(parts) as pool:
            in_parts(pool, parts, part)
        decision, evaluated, score = (np.concatenate([r[k] for r in results]) for k in range(3))
        return decision, evaluated, score


def _rule(tree: Tree) -> np.ndarray:
    kind = getattr(tree, "missing_kind", None)  # LightGBM's reader: 0 None, 1 Zero, 2 NaN
    if kind is None:
        return np.zeros(tree.feature.size, dtype=np.int8)
    return np.select([kind == 0, kind == 1], [_NAN_AS_ZERO, _ZERO_DEFAULT], _NAN_DEFAULT).astype(np.int8)


_CACHE: dict[int, tuple[weakref.ref, FlatEnsemble | None]] = {}


def flatten_ensemble(ensemble: TreeSum) -> FlatEnsemble | None:
    """The ensemble's trees as one :class:`FlatEnsemble` (cached per ensemble object).

    Parameters
    ----------
    ensemble : AdditiveEnsemble
        Its base models must be :class:`~engine.qwyc._ensembles.Tree` arrays (every model reader's
        and :func:`~engine.qwyc._ensembles.from_sklearn`'s are).

    Returns
    -------
    FlatEnsemble or None
        None when a base model is not a tree of arrays (e.g. a LightGBM booster evaluated by
        LightGBM itself): such ensembles keep the NumPy evaluator.
    """
    hit = _CACHE.get(id(ensemble))
    if hit is not None and hit[0]() is ensemble:
        return hit[1]
    flat = _flatten(ensemble)
    key = id(ensemble)
    _CACHE[key] = (weakref.ref(ensemble, lambda _: _CACHE.pop(key, None)), flat)
    return flat


def _flatten(ensemble: TreeSum) -> FlatEnsemble | None:
    trees = ensemble.trees
    if not trees or not all(isinstance(t, Tree) for t in trees):
        return None
    sizes = np.array([t.feature.size for t in trees], dtype=np.int64)
    roots = np.r_[0, np.cumsum(sizes)[:-1]].astype(np.int64)

    def cat(name, dtype):
        return np.concatenate([np.asarray(getattr(t, name)) for t in trees]).astype(dtype)

    offset = np.repeat(roots, sizes)
    is_leaf = cat("is_leaf", bool)
    # leaves keep child 0 in the readers; they are never followed
    left = np.where(is_leaf, 0, cat("left", np.int64) + offset)
    right = np.where(is_leaf, 0, cat("right", np.int64) + offset)
    return FlatEnsemble(
        roots,
        cat("feature", np.int64),
        left,
        right,
        cat("threshold", np.float64),
        cat("value", np.float64),
        cat("missing_left", bool),
        is_leaf,
        np.concatenate([_rule(t) for t in trees]),
        float(ensemble.bias),
    )


def _leaf(x, i, node, feature, left, right, threshold, value, missing_left, is_leaf, missing_rule):
    while not is_leaf[node]:
        v = x[i, feature[node]]
        rule = missing_rule[node]
        if np.isnan(v):
            go_left = threshold[node] >= 0.0 if rule == _NAN_AS_ZERO else missing_left[node]
        elif rule == _ZERO_DEFAULT and abs(v) <= _ZERO:
            go_left = missing_left[node]
        else:
            go_left = v <= threshold[node]
        node = left[node] if go_left else right[node]
    return value[node]


def _early_exit(
    x,
    roots,
    feature,
    left,
    right,
    threshold,
    value,
    missing_left,
    is_leaf,
    missing_rule,
    order,
    eps_minus,
    eps_plus,
    bias,
    beta,
):
    n, steps = x.shape[0], order.size
    decision = np.zeros(n, dtype=np.bool_)
    n_eval = np.full(n, steps, dtype=np.int64)
    score = np.empty(n)
    for i in range(n):
        g = bias
        for r in range(steps):
            g += _leaf(
                x, i, roots[order[r]], feature, left, right, threshold, value, missing_left, is_leaf, missing_rule
            )
            out = step_exit(g, r == steps - 1, eps_minus[r], eps_plus[r], beta)  # run_policy's exit rule
            if out >= 0:
                decision[i] = out == 1
                n_eval[i] = r + 1
                break
        score[i] = g
    return decision, n_eval, score


#: rows per block of the contributions: one tree's nodes stay in cache while they run through a block
_BLOCK_ROWS = 256


def _contributions(
    x, out, first, stride, roots, feature, left, right, threshold, value, missing_left, is_leaf, missing_rule
):
    """Blocks ``first, first + stride, ...`` of rows of F into ``out``."""
    n = x.shape[0]
    for start in range(first * _BLOCK_ROWS, n, stride * _BLOCK_ROWS):
        stop = min(start + _BLOCK_ROWS, n)
        for t in range(roots.size):
            root = roots[t]
            for i in range(start, stop):
                out[i, t] = _leaf(
                    x, i, root, feature, left, right, threshold, value, missing_left, is_leaf, missing_rule
                )


if njit is not None:
    _leaf = njit(inline="always", cache=True)(_leaf)
    _early_exit = njit(cache=True, nogil=True)(_early_exit)
    _contributions = njit(cache=True, nogil=True)(_contributions)
