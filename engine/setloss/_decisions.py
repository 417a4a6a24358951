"""Expected-loss-optimal decisions: the top k items of a batch, or the top k classes of one item.

Natarajan, Koyejo, Ravikumar & Dhillon (ICML 2016): for every loss that is
monotonically decreasing in TP (Theorem 1), the decision minimising the expected
loss flags the **top k items by eta** for some k; Algorithm 1 finds k from
:func:`~engine.setloss._expected.expected_losses`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ._expected import check_probabilities, expected_losses, sorted_probabilities
from ._losses import SetLoss, get_loss

__all__ = [
    "Decision",
    "optimal_decision",
    "top_k_decision",
    "early_stop_decision",
    "optimal_class_set",
    "monte_carlo_loss",
]


@dataclass(frozen=True)
class Decision:
    """The optimal top-k decision for a batch.

    Attributes
    ----------
    k : int
        Items flagged.
    mask : numpy.ndarray of bool, shape (n,)
        The flagged items, in the caller's order.
    order : numpy.ndarray of int, shape (n,)
        Indices sorting the items by eta, descending (stable).
    losses : numpy.ndarray of float64, shape (n + 1,)
        ``losses[k]``: expected loss of flagging the top k.
    value : float
        ``losses[k]``.
    loss_name : str
        Name of the set loss.
    early_stop : bool
        True when k is the paper's early-stop k rather than the exact minimiser.
    """

    k: int
    mask: np.ndarray
    order: np.ndarray
    losses: np.ndarray
    value: float
    loss_name: str
    early_stop: bool


def optimal_decision(eta, loss: str | SetLoss, *, early_stop: bool = False) -> Decision:
    """Flag the top-k items minimising the expected loss.

    By default every k is scanned. ``early_stop=True`` reproduces the paper's
    shortcut (the first k with ``L_k <= L_{k+1}``), which is **not exact**: for
    eta = (0.96, 0.43, 0.41) and F1 it stops at k = 1 while k = 3 is optimal.
    Among equal expected losses the smallest k wins.

    Parameters
    ----------
    eta : array_like of float, shape (n,)
        Calibrated probabilities ``P(Y_i = 1)`` in [0, 1], labels independent.
    loss : str or SetLoss
        A set loss decreasing in TP (TP monotonicity, Theorem 1).
    early_stop : bool, optional
        Stop at the first k with ``L_k <= L_{k+1}``.

    Returns
    -------
    Decision
        The top-k decision with every ``L_k``.

    Raises
    ------
    ValueError
        Invalid probabilities or an unknown loss name.

    References
    ----------
    .. [1] Natarajan, N., Koyejo, O., Ravikumar, P. & Dhillon, I. S. (2016). *Optimal
       Classification with Multivariate Losses.* ICML 2016, PMLR 48: Theorem 1 (top-k decisions are optimal) and Algorithm 1.

    Examples
    --------
    >>> from engine import optimal_decision
    >>> decision = optimal_decision([0.1, 0.9, 0.3, 0.6], "f1")
    >>> decision.k, decision.mask.tolist()  # the mask is in the caller's order
    (2, [False, True, False, True])
    """
    loss = get_loss(loss)
    e, order = sorted_probabilities(eta)
    losses = expected_losses(e, loss)
    k = _early_stop_k(losses) if early_stop else int(np.argmin(losses))
    return top_k_decision(k, order, losses, loss.name, early_stop)


def _early_stop_k(losses: np.ndarray) -> int:
    rising = np.flatnonzero(losses[:-1] <= losses[1:])
    return int(rising[0]) if rising.size else losses.size - 1


def top_k_decision(k: int, order: np.ndarray, losses: np.ndarray, loss_name: str, early_stop: bool = False) -> Decision:
    """The decision that flags the top k items, from the items' order and every ``L_k``.

    Parameters
    ----------
    k : int
        Items flagged.
    order : numpy.ndarray of int, shape (n,)
        Indices sorting the items by eta, descending.
    losses : numpy.ndarray of float64, shape (n + 1,)
        ``L_k`` for k = 0..n.
    loss_name : str
        Name of the set loss.
    early_stop : bool, optional
        Whether k is the paper's early-stop k.

    Returns
    -------
    Decision
        The top k of ``order`` flagged, ``value = losses[k]``.
    """
    mask = np.zeros(order.size, dtype=bool)
    mask[order[:k]] = True
    return Decision(
        k=k, mask=mask, order=order, losses=losses, value=float(losses[k]), loss_name=loss_name, early_stop=early_stop
    )


def early_stop_decision(decision: Decision) -> Decision:
    """The paper's early-stop decision (first k with ``L_k <= L_{k+1}``) from an exact decision's losses.

    Same as ``optimal_decision(eta, loss, early_stop=True)`` without computing the
    expected losses again.

    Parameters
    ----------
    decision : Decision
        A decision carrying every ``L_k``.

    Returns
    -------
    Decision
        The same items and losses, k at the first ``L_k <= L_{k+1}`` (n when none),
        ``early_stop=True``.
    """
    return top_k_decision(_early_stop_k(decision.losses), decision.order, decision.losses, decision.loss_name, True)


def optimal_class_set(probs, loss: str | SetLoss = "f1") -> Decision:
    """Multiclass remark of the paper: one true class drawn from ``probs`` (sums to 1); choose the top-k classes.

    With Y = e_j w.p. probs_j: flagging the top k gives TP = 1 iff the true class is
    among them, so ``L_k = P_k L(1, k-1, 0, n-k) + (1 - P_k) L(0, k, 1, n-k-1)`` with
    ``P_k`` the probability mass of the top k. O(n log n).

    Parameters
    ----------
    probs : array_like of float, shape (n,)
        Class probabilities, summing to 1 (within 1e-6).
    loss : str or SetLoss, optional
        The set loss over the n class indicators.

    Returns
    -------
    Decision
        The top-k classes minimising the expected loss (smallest k among ties).

    Raises
    ------
    ValueError
        Invalid probabilities, probabilities not summing to 1, or an unknown loss.
    """
    loss = get_loss(loss)
    p, order = sorted_probabilities(probs)
    total = p.sum()
    if not math.isclose(total, 1.0, rel_tol=0, abs_tol=1e-6):
        raise InputError(f"class probabilities must sum to 1 (they sum to {total:.6g})")
    n = p.size
    k = np.arange(n + 1, dtype=float)
    mass = np.r_[0.0, np.cumsum(p)]
    hit = loss(np.ones_like(k), k - 1, np.zeros_like(k), n - k)
    miss = loss(np.zeros_like(k), k, np.ones_like(k), n - k - 1)
    losses = np.where(k >= 1, mass * hit, 0.0) + np.where(k <= n - 1, (1 - mass) * miss, 0.0)
    best = int(np.argmin(losses))
    mask = np.zeros(n, dtype=bool)
    mask[order[:best]] = True
    return Decision(best, mask, order, losses, float(losses[best]), loss.name, False)


def monte_carlo_loss(
    eta, mask, loss: str | SetLoss, *, draws: int = 10_000, seed: int = 0, chunk: int = 2_000
) -> tuple[float, float]:
    """Mean loss of the decision ``mask`` over simulated label vectors, and its standard error.

    Parameters
    ----------
    eta : array_like of float, shape (n,)
        Probabilities; label i is drawn as Bernoulli(eta_i), independently.
    mask : array_like of bool, shape (n,)
        The decision: flagged items.
    loss : str or SetLoss
        The set loss.
    draws : int, optional
        Simulated label vectors.
    seed : int, optional
        Seed of the random generator.
    chunk : int, optional
        Label vectors simulated at once (memory bound).

    Returns
    -------
    (float, float)
        Mean loss and its standard error (NaN for a single draw).
    """
    loss = get_loss(loss)
    e = check_probabilities(eta)
    m = np.asarray(mask, dtype=bool)
    rng = np.random.default_rng(seed)
    values = []
    for start in range(0, draws, chunk):
        y = rng.random((min(chunk, draws - start), e.size)) < e
        tp = (y & m).sum(1)
        fp = (~y & m).sum(1)
        fn = (y & ~m).sum(1)
        tn = (~y & ~m).sum(1)
        values.append(loss(tp, fp, fn, tn))
    v = np.concatenate(values)
    return float(v.mean()), float(v.std(ddof=1) / math.sqrt(v.size)) if v.size > 1 else float("nan")
