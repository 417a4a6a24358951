"""Expected-loss-optimal batch decisions for set metrics (F-beta, Jaccard, AM, ...).

Natarajan, Koyejo, Ravikumar & Dhillon, *Optimal Classification with
Multivariate Losses* (ICML 2016). Items of a batch carry calibrated
probabilities ``eta_i = P(Y_i = 1)``; labels are independent. For every loss that
is monotonically decreasing in TP (Theorem 1), the decision minimising the
expected loss flags the **top k items by eta** for some k; Algorithm 1 finds k by
computing ``L_k = E[L(top-k, Y)]`` for every k.

Notation for the top-k decision (items sorted by eta, descending): ``S1`` =
positives among the top k (Poisson-binomial of eta_1..eta_k), ``S2`` = positives
among the rest, ``S = S1 + S2``; then ``TP = S1, FP = k - S1, FN = S2,
TN = n - k - S2``.

Three ways to compute ``L_k`` for all k = 0..n:

* **Reference** (:func:`expected_losses_reference`): the paper's Algorithm 1 as
  written: for each k build both distributions from scratch and sum over every
  (S1, S2) pair. O(n^3).
* **Generic** (any loss): prefix distributions by forward convolution, suffix
  distributions from checkpoints kept every ~sqrt(n) steps of a backward pass
  (memory O(n^1.5), never all n prefixes), and the double sum restricted to the
  support where both distributions exceed ``1e-30`` (the dropped mass bounds the
  error: < 1e-26 for losses in [0, 1]). O(n^3) worst case, far less in practice.
* **Linear-fractional, O(n^2)** (F-beta, Jaccard, user metrics
  ``(c0 + c·(TP, FP, FN, TN)) / (d0 + d·(TP, FP, FN, TN))``): for fixed k the
  numerator and denominator are affine in (S1, S2). When the denominator depends
  on a single one of S, S2 or S1 (F-beta: ``k + beta² S``; Jaccard: ``k + S2``;
  recall: ``S``; precision: ``k``) the expectation needs one-dimensional tables
  only (derivation in the style of Ye, Chai, Lee & Chieu 2012):

  - denominator in **S**: ``E[(A + B S1 + C S)/(D + F S)] = Σ_s [P(S=s)(A + C s)
    + B J_k(s)] / (D + F s)`` with ``J_k(s) = E[S1 1{S=s}] = Σ_{i<=k} eta_i
    P(S_{-i} = s-1)``. ``P(S_{-i})`` (the batch without item i) is obtained in
    O(n) by deconvolving item i from ``P(S)`` with a first-order recursive
    filter, run forwards when eta_i <= 1/2 and backwards otherwise so that the
    error is never amplified (factor ``min(eta, 1-eta)/max(eta, 1-eta) <= 1``).
    Each k then costs O(n); memory O(n).
  - denominator in **S2**: independence of S1 and S2 gives ``E[S1 f(S2)] =
    E[S1] E[f(S2)]``; the suffix distributions come from a backward pass. O(n^2)
    time, O(n) memory. Denominator in **S1**: the mirror image.

  Other linear-fractional metrics (denominator mixing S1 and S2 with different
  weights) use the generic path.

Conventions: a rate or ratio whose denominator is 0 counts as perfect (metric 1,
loss 0), so predicting nothing when nothing is positive is not penalised.
Losses are ``1 - metric``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from scipy.signal import lfilter

__all__ = [
    "SetLoss",
    "LinearFractional",
    "Decision",
    "LOSS_NAMES",
    "get_loss",
    "fbeta",
    "jaccard",
    "am",
    "gmean",
    "hmean",
    "gtppr",
    "binary_auc",
    "linear_fractional",
    "poisson_binomial",
    "expected_losses",
    "expected_losses_reference",
    "optimal_decision",
    "optimal_class_set",
    "monte_carlo_loss",
    "check_probabilities",
]

_TRUNCATE = 1e-30


# --------------------------------------------------------------------------- losses
def _ratio(num, den):
    """num / den with the convention 0 denominator -> 1 (perfect)."""
    num = np.asarray(num, dtype=float)
    den = np.asarray(den, dtype=float)
    safe = np.where(den == 0, 1.0, den)
    return np.where(den == 0, 1.0, num / safe)


@dataclass(frozen=True)
class LinearFractional:
    """Coefficients of ``metric = (c0 + c·(TP, FP, FN, TN)) / (d0 + d·(TP, FP, FN, TN))``."""

    numerator: tuple[float, float, float, float, float]
    denominator: tuple[float, float, float, float, float]

    def metric(self, tp, fp, fn, tn):
        c, d = self.numerator, self.denominator
        num = c[0] + c[1] * tp + c[2] * fp + c[3] * fn + c[4] * tn
        den = d[0] + d[1] * tp + d[2] * fp + d[3] * fn + d[4] * tn
        return _ratio(num, den)

    def affine_in_s1_s(self, n: int, k):
        """(A, B, C, D, E, F) with numerator A + B S1 + C S and denominator D + E S1 + F S for top-k."""
        def affine(c):
            return (c[0] + c[2] * k + c[4] * (n - k), c[1] - c[2] - c[3] + c[4], c[3] - c[4])
        return (*affine(self.numerator), *affine(self.denominator))


@dataclass(frozen=True)
class SetLoss:
    """A loss ``1 - metric(TP, FP, FN, TN)`` on a whole batch, vectorised over count arrays."""

    name: str
    formula: str
    reference: str
    metric_fn: Callable = field(repr=False)
    fractional: LinearFractional | None = None

    def metric(self, tp, fp, fn, tn) -> np.ndarray:
        return self.metric_fn(np.asarray(tp, float), np.asarray(fp, float), np.asarray(fn, float),
                              np.asarray(tn, float))

    def __call__(self, tp, fp, fn, tn) -> np.ndarray:
        return 1.0 - self.metric(tp, fp, fn, tn)


def linear_fractional(numerator, denominator, name: str = "custom linear-fractional metric") -> SetLoss:
    """Build a loss from numeric coefficients (no user text is evaluated).

    ``numerator`` / ``denominator`` are ``(c0, c_TP, c_FP, c_FN, c_TN)``; the metric
    is their ratio (1 where the denominator is 0) and the loss is ``1 - metric``.
    Top-k decisions are optimal when the metric increases with TP (Theorem 1).
    """
    num = tuple(float(v) for v in numerator)
    den = tuple(float(v) for v in denominator)
    if len(num) != 5 or len(den) != 5 or not all(map(math.isfinite, num + den)):
        raise ValueError("linear-fractional coefficients: five finite numbers each (constant, TP, FP, FN, TN)")
    if not any(den):
        raise ValueError("the denominator needs at least one non-zero coefficient")
    lf = LinearFractional(num, den)
    terms = ["", "TP", "FP", "FN", "TN"]

    def show(c):
        parts = [f"{v:g}{('·' + t) if t else ''}" for v, t in zip(c, terms) if v != 0]
        return " + ".join(parts) or "0"

    return SetLoss(name, f"1 - ({show(num)}) / ({show(den)})", "Koyejo et al. (2014) linear-fractional family",
                   lf.metric, lf)


def fbeta(beta: float = 1.0) -> SetLoss:
    if not (beta > 0 and math.isfinite(beta)):
        raise ValueError("beta must be a finite number > 0")
    b2 = beta * beta
    lf = LinearFractional((0.0, 1 + b2, 0.0, 0.0, 0.0), (0.0, 1 + b2, 1.0, b2, 0.0))
    name = "F1" if beta == 1 else f"F-beta (beta={beta:g})"
    return SetLoss(name, f"1 - (1+β²)TP / ((1+β²)TP + β²FN + FP), β = {beta:g}",
                   "Lewis (1995); Natarajan et al. (2016) Table 1", lf.metric, lf)


def jaccard() -> SetLoss:
    lf = LinearFractional((0.0, 1.0, 0.0, 0.0, 0.0), (0.0, 1.0, 1.0, 1.0, 0.0))
    return SetLoss("Jaccard", "1 - TP / (TP + FP + FN)", "Natarajan et al. (2016) Table 1", lf.metric, lf)


def _tpr(tp, fp, fn, tn):
    return _ratio(tp, tp + fn)


def _tnr(tp, fp, fn, tn):
    return _ratio(tn, tn + fp)


def _precision(tp, fp, fn, tn):
    return _ratio(tp, tp + fp)


def am() -> SetLoss:
    return SetLoss("AM", "1 - (TPR + TNR) / 2", "Natarajan et al. (2016) Table 1",
                   lambda *c: 0.5 * (_tpr(*c) + _tnr(*c)))


def gmean() -> SetLoss:
    return SetLoss("G-mean", "1 - sqrt(TPR · TNR)", "Natarajan et al. (2016) Table 1",
                   lambda *c: np.sqrt(_tpr(*c) * _tnr(*c)))


def _hmean(*c):
    a, b = _tpr(*c), _tnr(*c)
    s = a + b
    return np.where(s == 0, 0.0, 2 * a * b / np.where(s == 0, 1.0, s))


def hmean() -> SetLoss:
    return SetLoss("H-mean", "1 - 2 / (1/TPR + 1/TNR)", "Natarajan et al. (2016) Table 1", _hmean)


def gtppr() -> SetLoss:
    return SetLoss("G-TP/PR", "1 - sqrt(TPR · Precision)", "Natarajan et al. (2016) Table 1",
                   lambda *c: np.sqrt(_tpr(*c) * _precision(*c)))


def binary_auc() -> SetLoss:
    # AUC of binary predictions counts a (positive, negative) pair as misordered when the
    # positive is missed and the negative flagged: loss = FN·FP / (P·N)
    return SetLoss("binary AUC", "FP·FN / ((TP + FN)(FP + TN))", "Joachims (2005); Natarajan et al. (2016) Table 1",
                   lambda tp, fp, fn, tn: 1.0 - (1.0 - _tpr(tp, fp, fn, tn)) * (1.0 - _tnr(tp, fp, fn, tn)))


LOSS_NAMES = {"f1": "F1", "fbeta:<beta>": "F-beta", "jaccard": "Jaccard", "am": "AM (balanced error)",
              "gmean": "G-mean", "hmean": "H-mean", "gtppr": "G-TP/PR", "auc": "binary AUC"}


def get_loss(loss: str | SetLoss) -> SetLoss:
    """A loss object from a name: f1, fbeta:2, jaccard, am, gmean, hmean, gtppr, auc."""
    if isinstance(loss, SetLoss):
        return loss
    key = str(loss).strip().lower()
    simple = {"f1": lambda: fbeta(1.0), "jaccard": jaccard, "am": am, "gmean": gmean, "hmean": hmean,
              "gtppr": gtppr, "auc": binary_auc}
    if key in simple:
        return simple[key]()
    match = re.fullmatch(r"f(?:beta)?[:=]\s*([0-9]*\.?[0-9]+(?:e[-+]?[0-9]+)?)", key)
    if match:
        return fbeta(float(match.group(1)))
    raise ValueError(f"unknown loss {loss!r}; use one of f1, fbeta:<beta>, jaccard, am, gmean, hmean, gtppr, auc "
                     "or a SetLoss (see linear_fractional)")


# --------------------------------------------------------------------------- distributions
def check_probabilities(eta) -> np.ndarray:
    """Validate calibrated probabilities: a 1-D array of finite numbers in [0, 1]."""
    e = np.asarray(eta, dtype=float)
    if e.ndim != 1:
        raise ValueError(f"probabilities must be one-dimensional; got shape {e.shape}")
    bad = ~np.isfinite(e) | (e < 0) | (e > 1)
    if bad.any():
        rows = ", ".join(str(i + 1) for i in np.flatnonzero(bad)[:5])
        raise ValueError(f"probabilities must be numbers in [0, 1]; {int(bad.sum())} are not (items {rows}"
                         f"{' ...' if bad.sum() > 5 else ''}). Use calibrated probabilities, not raw scores.")
    return e


def poisson_binomial(eta) -> np.ndarray:
    """PMF of the number of successes of independent Bernoulli(eta_i) (length n + 1), by convolution."""
    e = np.asarray(eta, dtype=float)
    pmf = np.zeros(e.size + 1)
    pmf[0] = 1.0
    for i, p in enumerate(e):
        head = pmf[: i + 2]
        head[1:] = head[1:] * (1 - p) + head[:-1] * p
        head[0] *= 1 - p
    return pmf


def _add_item(pmf: np.ndarray, size: int, p: float) -> None:
    """In place: pmf (support 0..size) convolved with Bernoulli(p) -> support 0..size+1."""
    head = pmf[: size + 2]
    head[1:] = head[1:] * (1 - p) + head[:-1] * p
    head[0] *= 1 - p


def _support(pmf: np.ndarray) -> tuple[int, int]:
    idx = np.flatnonzero(pmf > _TRUNCATE)
    if idx.size == 0:
        return 0, 1
    return int(idx[0]), int(idx[-1]) + 1


# --------------------------------------------------------------------------- expected losses
def _sorted(eta):
    e = check_probabilities(eta)
    order = np.argsort(-e, kind="stable")
    return e[order], order


def expected_losses_reference(eta, loss: str | SetLoss) -> np.ndarray:
    """Algorithm 1 of the paper as written: O(n^3). For tests and benchmarks."""
    loss = get_loss(loss)
    e, _ = _sorted(eta)
    n = e.size
    out = np.empty(n + 1)
    for k in range(n + 1):
        q = poisson_binomial(e[:k])
        r = poisson_binomial(e[k:])
        a = np.arange(k + 1)[:, None]
        b = np.arange(n - k + 1)[None, :]
        out[k] = q @ loss(a, k - a, b, n - k - b) @ r
    return out


def _generic(e: np.ndarray, loss: SetLoss) -> np.ndarray:
    """Any loss: forward prefix PMFs, suffix PMFs regenerated from sqrt(n) checkpoints."""
    n = e.size
    step = max(1, int(math.ceil(math.sqrt(n + 1))))
    # backward pass: suffix PMF r_k (items k..n-1) kept at every step-th k
    checkpoints = {}
    r = np.zeros(n + 1)
    r[0] = 1.0
    for k in range(n, -1, -1):
        if k % step == 0 or k == n:
            checkpoints[k] = r.copy()
        if k > 0:
            _add_item(r, n - k, e[k - 1])
    out = np.empty(n + 1)
    q = np.zeros(n + 1)
    q[0] = 1.0
    for start in range(0, n + 1, step):
        stop = min(start + step, n + 1)
        # regenerate r_start .. r_{stop-1} from the checkpoint at `stop` (or n)
        anchor = stop if stop <= n and stop in checkpoints else n
        r = checkpoints[anchor].copy()
        block = {}
        for k in range(anchor, start - 1, -1):
            if k < stop:
                block[k] = r.copy()
            if k > start:
                _add_item(r, n - k, e[k - 1])
        for k in range(start, stop):
            qa, qb = _support(q[: k + 1])
            ra, rb = _support(block[k][: n - k + 1])
            a = np.arange(qa, qb)[:, None]
            b = np.arange(ra, rb)[None, :]
            out[k] = q[qa:qb] @ loss(a, k - a, b, n - k - b) @ block[k][ra:rb]
            if k < n:
                _add_item(q, k, e[k])
    return out


def _fractional_path(lf: LinearFractional, n: int) -> str | None:
    """Which one-dimensional table suffices: 's', 's2', 's1', or None (generic)."""
    d = lf.denominator
    e_coef = d[1] - d[2] - d[3] + d[4]  # coefficient of S1 with S held fixed
    f_coef = d[3] - d[4]                # coefficient of S
    if e_coef == 0:
        return "s"
    if f_coef == 0:
        return "s1"
    if e_coef + f_coef == 0:
        return "s2"
    return None


def _metric_terms(num, den):
    """num/den elementwise with the 0-denominator convention (metric 1)."""
    safe = np.where(den == 0, 1.0, den)
    return np.where(den == 0, 1.0, num / safe)


def _shifted_without_item(window: np.ndarray, p: float) -> np.ndarray:
    """``P(S_{-i} = s - 1)`` for the window's s values, given ``P(S = s)`` on that window.

    The window holds every s with probability above the truncation level, so the
    recursion may start at either edge with the outside taken as 0.
    """
    if p <= 0.5:  # forwards: q(s) on the window, then shift by one
        q = lfilter([1.0 / (1.0 - p)], [1.0, p / (1.0 - p)], window)
        return np.r_[0.0, q[:-1]]
    # backwards: q(s - 1) = (P(s) - (1 - p) q(s)) / p, starting above the window
    return lfilter([1.0 / p], [1.0, (1.0 - p) / p], window[::-1])[::-1]


def _fractional_s(e: np.ndarray, lf: LinearFractional) -> np.ndarray:
    """Denominator D + F·S: tables P(S=s) and J_k(s) = E[S1 1{S=s}], O(width) per k.

    Work is restricted to the window of s where P(S = s) > 1e-30 (the dropped
    mass changes no printed digit: < n·1e-30 for metrics in [0, 1]).
    """
    n = e.size
    p_full = poisson_binomial(e)
    lo, hi = _support(p_full)
    p_s = p_full[lo:hi]
    s = np.arange(lo, hi, dtype=float)
    j = np.zeros(hi - lo)
    out = np.empty(n + 1)
    for k in range(n + 1):
        if k > 0:
            # E[Y_k 1{S = s}] = eta_k P(S without item k = s - 1)
            j += e[k - 1] * _shifted_without_item(p_s, e[k - 1])
        a, b, c, d, _, f = lf.affine_in_s1_s(n, k)
        den = d + f * s
        zero = den == 0
        safe = np.where(zero, 1.0, den)
        out[k] = np.where(zero, p_s, (p_s * (a + c * s) + b * j) / safe).sum()
    return out


def _fractional_s2(e: np.ndarray, lf: LinearFractional) -> np.ndarray:
    """Denominator D + F·S2 (depends on the suffix only): E[S1 f(S2)] = E[S1] E[f(S2)]."""
    n = e.size
    out = np.empty(n + 1)
    r = np.zeros(n + 1)
    r[0] = 1.0
    mean_s1 = np.r_[0.0, np.cumsum(e)]
    for k in range(n, -1, -1):
        a, b, c, d, _, f = lf.affine_in_s1_s(n, k)
        # in (S1, S2): numerator a + (b + c) S1 + c S2, denominator d + f S2
        s2 = np.arange(n - k + 1, dtype=float)
        den = d + f * s2
        zero = den == 0
        safe = np.where(zero, 1.0, den)
        pmf = r[: n - k + 1]
        out[k] = np.where(zero, pmf, pmf * (a + c * s2 + (b + c) * mean_s1[k]) / safe).sum()
        if k > 0:
            _add_item(r, n - k, e[k - 1])
    return out


def _fractional_s1(e: np.ndarray, lf: LinearFractional) -> np.ndarray:
    """Denominator D + (E+F)·S1 (depends on the prefix only): E[S2 f(S1)] = E[S2] E[f(S1)]."""
    n = e.size
    out = np.empty(n + 1)
    q = np.zeros(n + 1)
    q[0] = 1.0
    mean_s2 = np.r_[np.cumsum(e[::-1])[::-1], 0.0]
    for k in range(n + 1):
        a, b, c, d, ee, f = lf.affine_in_s1_s(n, k)
        s1 = np.arange(k + 1, dtype=float)
        den = d + (ee + f) * s1
        zero = den == 0
        safe = np.where(zero, 1.0, den)
        pmf = q[: k + 1]
        out[k] = np.where(zero, pmf, pmf * (a + (b + c) * s1 + c * mean_s2[k]) / safe).sum()
        if k < n:
            _add_item(q, k, e[k])
    return out


def expected_losses(eta, loss: str | SetLoss, *, method: str = "auto") -> np.ndarray:
    """Exact ``E[L(top-k, Y)]`` for k = 0..n, ``Y_i ~ Bernoulli(eta_i)`` independent.

    ``top-k`` are the k items with the largest eta (stable order among ties; ties
    do not change the expectation). ``method``: "auto" (the O(n^2) linear-fractional
    path when it applies, else generic), "fractional", "generic" or "reference".
    """
    loss = get_loss(loss)
    e, _ = _sorted(eta)
    if method == "reference":
        return expected_losses_reference(e, loss)
    path = _fractional_path(loss.fractional, e.size) if loss.fractional is not None else None
    if method == "fractional" and path is None:
        raise ValueError(f"{loss.name} has no O(n^2) path: its denominator mixes S1 and S2")
    if method in ("auto", "fractional") and path is not None:
        fn = {"s": _fractional_s, "s2": _fractional_s2, "s1": _fractional_s1}[path]
        return 1.0 - fn(e, loss.fractional)
    if method not in ("auto", "generic"):
        raise ValueError("method must be auto, fractional, generic or reference")
    return _generic(e, loss)


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
    e, order = _sorted(eta)
    losses = expected_losses(e, loss)
    if early_stop:
        rising = np.flatnonzero(losses[:-1] <= losses[1:])
        k = int(rising[0]) if rising.size else e.size
    else:
        k = int(np.argmin(losses))
    mask = np.zeros(e.size, dtype=bool)
    mask[order[:k]] = True
    return Decision(k=k, mask=mask, order=order, losses=losses, value=float(losses[k]), loss_name=loss.name,
                    early_stop=early_stop)


def optimal_class_set(probs, loss: str | SetLoss = "f1") -> Decision:
    """Multiclass remark of the paper: one true class drawn from ``probs`` (sums to 1); choose the top-k classes.

    With Y = e_j w.p. probs_j: flagging the top k gives TP = 1 iff the true class is
    among them, so ``L_k = P_k L(1, k-1, 0, n-k) + (1 - P_k) L(0, k, 1, n-k-1)`` with
    ``P_k`` the probability mass of the top k. O(n log n).
    """
    loss = get_loss(loss)
    p, order = _sorted(probs)
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
