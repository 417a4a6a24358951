"""Expected-loss-optimal decisions: the top k items of a batch, or the top k classes of one item.

Natarajan, Koyejo, Ravikumar & Dhillon (ICML 2016): for every loss that is
monotonically decreasing in TP (Theorem 1), the decision minimising the expected
loss flags the **top k items by eta** for some k; Algorithm 1 finds k from
:func:`~engine.setloss.expected.expected_losses`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .expected import check_probabilities, expected_losses, sorted_probabilities
from .losses import SetLoss, get_loss

__all__ = ["Decision", "optimal_decision", "early_stop_decision", "optimal_class_set", "monte_carlo_loss"]


@dataclass(frozen=True)
class Decision:
    """The optimal top-k decision for a batch.

    ``mask`` flags the decided items in the caller's order; ``order`` sorts the
    items by eta (descending); ``losses[k]`` is the expected loss of flagging the
    top k; ``value = losses[k]``.
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
    """
    loss = get_loss(loss)
    e, order = sorted_probabilities(eta)
    losses = expected_losses(e, loss)
    k = _early_stop_k(losses) if early_stop else int(np.argmin(losses))
    return _top_k(k, order, losses, loss.name, early_stop)


def _early_stop_k(losses: np.ndarray) -> int:
    rising = np.flatnonzero(losses[:-1] <= losses[1:])
    return int(rising[0]) if rising.size else losses.size - 1


def _top_k(k: int, order: np.ndarray, losses: np.ndarray, loss_name: str, early_stop: bool) -> Decision:
    mask = np.zeros(order.size, dtype=bool)
    mask[order[:k]] = True
    return Decision(k=k, mask=mask, order=order, losses=losses, value=float(losses[k]), loss_name=loss_name,
                    early_stop=early_stop)


def early_stop_decision(decision: Decision) -> Decision:
    """The paper's early-stop decision (first k with ``L_k <= L_{k+1}``) from an exact decision's losses.

    Same as ``optimal_decision(eta, loss, early_stop=True)`` without computing the
    expected losses again.
    """
    return _top_k(_early_stop_k(decision.losses), decision.order, decision.losses, decision.loss_name, True)


def optimal_class_set(probs, loss: str | SetLoss = "f1") -> Decision:
    """Multiclass remark of the paper: one true class drawn from ``probs`` (sums to 1); choose the top-k classes.

    With Y = e_j w.p. probs_j: flagging the top k gives TP = 1 iff the true class is
    among them, so ``L_k = P_k L(1, k-1, 0, n-k) + (1 - P_k) L(0, k, 1, n-k-1)`` with
    ``P_k`` the probability mass of the top k. O(n log n).
    """
    loss = get_loss(loss)
    p, order = sorted_probabilities(probs)
    total = p.sum()
    if not math.isclose(total, 1.0, rel_tol=0, abs_tol=1e-6):
        raise ValueError(f"class probabilities must sum to 1 (they sum to {total:.6g})")
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


def monte_carlo_loss(eta, mask, loss: str | SetLoss, *, draws: int = 10_000, seed: int = 0,
                     chunk: int = 2_000) -> tuple[float, float]:
    """Mean loss of the decision ``mask`` over simulated label vectors, and its standard error."""
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
