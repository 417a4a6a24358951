"""PN curves and their upper concave hull (marginal precision).

Robles, Zaidouni, Mavromoustaki & Refael, *Threshold Optimization in Multiple Binary Classifiers for Extreme Rare Events using Predicted Positive Data*, AAAI-MAKE 2020 (CEUR-WS Vol-2600, paper 19), "For a single classifier": with only predicted positives rated, the ROC
curve is replaced by the **PN curve** ``t -> (FP(t), TP(t))`` of raw (weighted)
counts of rated negatives and positives with score >= t.

Definitions
-----------
* **Marginal precision** ``m`` at a point: ``dTP / (dTP + dFP)`` of the documents
  added by lowering the threshold there.
* **Slope** of the PN curve: ``dTP / dFP = λ = m / (1 − m)``.
* **False positives paid per extra true positive**: ``c = (1 − m) / m = 1 / λ``.
* **Operating point** for a target ``m``: the threshold maximising ``TP − λ·FP``.
* On the **upper concave hull** of the PN curve the slope never increases as FP
  grows, so ``m`` is well defined and non-increasing as the threshold falls. It
  equals the isotonic (pool-adjacent-violators) fit of label on score, which is
  how the hull is computed (``scipy.optimize.isotonic_regression``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import isotonic_regression

from ..errors import InputError, RatedDataError

__all__ = [
    "PNCurve",
    "Hull",
    "pn_curve",
    "upper_hull",
    "hull_from_increments",
    "validate_rated_arrays",
    "check_target",
    "target_slope",
    "cost_per_true_positive",
    "target_from_cost",
    "tie_tolerance",
    "TIE_RTOL",
]

#: Relative tolerance under which two values of ``TP − λ·FP`` count as tied.
TIE_RTOL = 1e-9


def validate_rated_arrays(scores, labels, weights):
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim != 1:
        raise RatedDataError(f"scores must be one-dimensional (one classifier); got shape {s.shape}.")
    y = np.asarray(labels)
    if y.shape != s.shape:
        raise RatedDataError(f"scores and labels differ in length ({s.shape[0]} vs {y.shape[0]}).")
    if s.size == 0:
        raise RatedDataError("No rated documents: scores are empty.")
    if not np.all(np.isfinite(s)):
        raise RatedDataError(
            f"scores contain NaN or infinite values at rows {np.flatnonzero(~np.isfinite(s))[:5] + 1}."
        )
    if not np.all((y == 0) | (y == 1)):
        raise RatedDataError("labels must be 0/1.")
    y = y.astype(np.float64)
    if weights is None:
        w = np.ones_like(s)
    else:
        w = np.asarray(weights, dtype=np.float64)
        if w.shape != s.shape:
            raise RatedDataError(f"weights and scores differ in length ({w.shape[0]} vs {s.shape[0]}).")
        if not np.all(np.isfinite(w)) or np.any(w < 0):
            raise RatedDataError("weights must be finite and >= 0.")
    return s, y, w


def check_target(target) -> np.ndarray:
    """Validate target marginal precision(s): finite and strictly between 0 and 1.

    Parameters
    ----------
    target : float or array_like of float
        Target marginal precision(s) m.

    Returns
    -------
    numpy.ndarray of float64, shape (n,)
        The targets as a 1-D array (a scalar becomes shape (1,)).

    Raises
    ------
    InputError
        A target is not finite or not in the open interval (0, 1).
    """
    t = np.atleast_1d(np.asarray(target, dtype=np.float64))
    if not np.all(np.isfinite(t)) or np.any(t <= 0) or np.any(t >= 1):
        raise InputError(
            "target marginal precision must be strictly between 0 and 1: 0.5 means 'one false "
            "positive per extra true positive', 0.1 means 'nine false positives per extra true "
            "positive'."
        )
    return t


def target_slope(target):
    """``λ = m / (1 − m)``: the PN-curve slope dTP/dFP at marginal precision m (= 1 / c).

    Parameters
    ----------
    target : float or array_like of float
        Target marginal precision(s) m in (0, 1).

    Returns
    -------
    float or numpy.ndarray
        λ, a float for a scalar target, else an array of the targets' shape (1-D).

    Raises
    ------
    InputError
        A target outside (0, 1).
    """
    t = check_target(target)
    lam = t / (1.0 - t)
    return float(lam[0]) if np.ndim(target) == 0 else lam


def tie_tolerance(tp_scale: float, fp_scale: float, slope: float) -> float:
    """Absolute tolerance under which two values of ``TP − λ·FP`` count as tied.

    Parameters
    ----------
    tp_scale, fp_scale : float
        Largest TP and FP of the curve (the objective's scale).
    slope : float
        λ of the target.

    Returns
    -------
    float
        ``TIE_RTOL * max(1, |tp_scale| + slope * |fp_scale|)``.
    """
    return TIE_RTOL * max(1.0, abs(tp_scale) + slope * abs(fp_scale))


def cost_per_true_positive(target):
    """``c = (1 − m) / m = 1 / λ``: false positives paid for one more true positive at marginal precision m.

    Parameters
    ----------
    target : float or array_like of float
        Target marginal precision(s) m in (0, 1).

    Returns
    -------
    float or numpy.ndarray
        c, a float for a scalar target, else a 1-D array.

    Raises
    ------
    InputError
        A target outside (0, 1).
    """
    t = check_target(target)
    with np.errstate(over="ignore"):  # a subnormal target costs infinitely many false positives: inf, no warning
        c = (1.0 - t) / t
    return float(c[0]) if np.ndim(target) == 0 else c


def target_from_cost(cost):
    """Inverse of :func:`cost_per_true_positive`: ``m = 1 / (1 + c)``.

    Parameters
    ----------
    cost : float or array_like of float
        False positives paid per extra true positive, c >= 0.

    Returns
    -------
    float or numpy.ndarray
        The target marginal precision m in (0, 1], a float for a scalar cost.

    Raises
    ------
    InputError
        A cost that is negative or not finite.
    """
    c = np.asarray(cost, dtype=np.float64)
    if np.any(c < 0) or not np.all(np.isfinite(c)):
        raise InputError("cost must be a finite number >= 0")
    m = 1.0 / (1.0 + c)
    return float(m) if np.ndim(cost) == 0 else m


@dataclass(frozen=True)
class PNCurve:
    """PN curve of one classifier: ``tp[i]``, ``fp[i]`` = weighted rated positives /
    negatives with score >= ``thresholds[i]``; thresholds are the unique scores, descending.

    Attributes
    ----------
    thresholds : numpy.ndarray of float64, shape (n,)
        The distinct rated scores, strictly descending.
    tp : numpy.ndarray of float64, shape (n,)
        Weighted rated positives with score >= ``thresholds[i]`` (non-decreasing).
    fp : numpy.ndarray of float64, shape (n,)
        Weighted rated negatives with score >= ``thresholds[i]`` (non-decreasing).
    """

    thresholds: np.ndarray
    tp: np.ndarray
    fp: np.ndarray

    @property
    def precision(self) -> np.ndarray:
        total = self.tp + self.fp
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(total > 0, self.tp / np.where(total > 0, total, 1), np.nan)


def pn_curve(scores, labels, weights=None) -> PNCurve:
    """Weighted PN curve at every unique score (descending), vectorised: one sort + cumsums.

    Parameters
    ----------
    scores : array_like of float, shape (n,)
        One classifier's scores of the rated documents (finite).
    labels : array_like of {0, 1}, shape (n,)
        The raters' verdicts: 1 = true positive, 0 = false positive.
    weights : array_like of float, shape (n,), optional
        Non-negative document weights; 1 each when None.

    Returns
    -------
    PNCurve
        TP and FP at or above every distinct score.

    Raises
    ------
    RatedDataError
        Scores not 1-D, empty or not finite; lengths differ; labels not 0/1; weights
        negative or not finite.

    References
    ----------
    .. [1] Robles, E., Zaidouni, F., Mavromoustaki, A. & Refael, P. (2020). *Threshold
       Optimization in Multiple Binary Classifiers for Extreme Rare Events using Predicted
       Positive Data.* AAAI-MAKE 2020, CEUR-WS Vol-2600, paper 19: "For a single classifier" (the PN curve replaces the ROC curve).

    Examples
    --------
    Five rated documents, three of them positive:

    >>> from engine import pn_curve
    >>> curve = pn_curve([0.9, 0.8, 0.7, 0.6, 0.5], [1, 1, 0, 1, 0])
    >>> curve.tp.tolist(), curve.fp.tolist()
    ([1.0, 2.0, 2.0, 3.0, 3.0], [0.0, 0.0, 1.0, 1.0, 2.0])
    """
    s, y, w = validate_rated_arrays(scores, labels, weights)
    return curve_in_order(s, y, w, np.argsort(-s, kind="stable"))


def curve_in_order(s: np.ndarray, y: np.ndarray, w: np.ndarray, order: np.ndarray) -> PNCurve:
    """The PN curve of validated arrays, given their stable descending score order (computed once by callers).

    Parameters
    ----------
    s, y, w : numpy.ndarray of float64, shape (n,)
        Scores, labels and weights as :func:`validate_rated_arrays` returns them.
    order : numpy.ndarray of int, shape (n,)
        ``np.argsort(-s, kind="stable")``.

    Returns
    -------
    PNCurve
        The same curve as :func:`pn_curve`.
    """
    return curve_from_sorted(s[order], *sorted_masses(y, w, order))


def sorted_masses(y: np.ndarray, w: np.ndarray, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each document's positive and negative mass in score order, with one temporary of n floats.

    Parameters
    ----------
    y, w : numpy.ndarray of float64, shape (n,)
        Labels and weights as :func:`validate_rated_arrays` returns them.
    order : numpy.ndarray of int, shape (n,)
        The stable descending score order.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        ``(w * y)[order]`` and ``(w * (1.0 - y))[order]``, bit for bit (the same products, taken after the
        reordering and in place, so a 10^6-row bootstrap beside the server's sessions allocates less: issue 34); the
        two rows of one C-ordered ``(2, n)`` array, which :func:`engine.pn.kernels.poisson_hulls` reads uncopied.
    """
    wy, wn = masses = np.empty((2, order.size))  # rows of one array: the compiled bootstrap reads them uncopied
    np.take(y, order, out=wn)
    w_sorted = w[order]
    np.multiply(w_sorted, wn, out=wy)
    np.subtract(1.0, wn, out=wn)
    np.multiply(w_sorted, wn, out=wn)
    del masses
    return wy, wn


def curve_from_sorted(s_sorted: np.ndarray, wy: np.ndarray, wn: np.ndarray) -> PNCurve:
    """The PN curve of documents already in descending score order.

    Parameters
    ----------
    s_sorted : numpy.ndarray of float64, shape (n,)
        Scores, descending (stable order).
    wy, wn : numpy.ndarray of float64, shape (n,)
        Positive and negative mass of each document in that order (:func:`sorted_masses`).

    Returns
    -------
    PNCurve
        One point per distinct score: cumulative TP and FP at the last document of each run of equal scores.
    """
    last = np.flatnonzero(np.r_[s_sorted[1:] != s_sorted[:-1], True])  # last index of each run of equal scores
    return PNCurve(thresholds=s_sorted[last], tp=np.cumsum(wy)[last], fp=np.cumsum(wn)[last])


@dataclass(frozen=True)
class Hull:
    """Upper concave hull of the PN curve, starting at the origin (threshold +inf).

    Attributes
    ----------
    curve : PNCurve
        The curve the hull covers.
    vertex_index : numpy.ndarray of int, shape (v,)
        Curve index of each hull vertex (-1 for the origin).
    thresholds : numpy.ndarray of float64, shape (v,)
        Threshold of each vertex (+inf at the origin: flag nothing), descending.
    tp, fp : numpy.ndarray of float64, shape (v,)
        TP and FP at each vertex (0 at the origin).
    edge_mp : numpy.ndarray of float64, shape (v - 1,)
        Marginal precision of the edge from vertex e to e+1 (strictly decreasing).
    mp_at_threshold : numpy.ndarray of float64, shape (n,)
        Hull marginal precision of the documents with score ``curve.thresholds[i]``
        (the PAV fit of label on score).
    """

    curve: PNCurve
    vertex_index: np.ndarray
    thresholds: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    edge_mp: np.ndarray
    mp_at_threshold: np.ndarray


def hull_from_increments(thresholds: np.ndarray, d_tp: np.ndarray, d_fp: np.ndarray):
    """Hull of a PN curve given per-threshold increments (thresholds descending).

    Returns (vertex curve indices, edge marginal precisions, per-threshold fit);
    thresholds with zero mass take the fit of the previous threshold.
    """
    mass = d_tp + d_fp
    keep = mass > 0  # zero-weight scores add no point
    idx = np.flatnonzero(keep)
    if idx.size == 0:
        raise RatedDataError("All rated documents have weight 0.")
    fit = np.asarray(isotonic_regression(d_tp[idx] / mass[idx], weights=mass[idx], increasing=False).x)
    change = np.flatnonzero(np.r_[fit[1:] != fit[:-1], True])  # a vertex ends each run of equal fits
    mp_fit = np.empty(thresholds.shape)
    filled = np.where(keep, np.arange(keep.size), -1)
    np.maximum.accumulate(filled, out=filled)
    pos = np.searchsorted(idx, np.maximum(filled, idx[0]))
    mp_fit[:] = fit[pos]
    return idx[change], fit[change], mp_fit


def upper_hull(curve: PNCurve) -> Hull:
    """Upper concave hull via PAV on the per-threshold label means (O(n)).

    Parameters
    ----------
    curve : PNCurve
        The PN curve of one classifier.

    Returns
    -------
    Hull
        Its upper concave hull from the origin, with the marginal precision of every
        edge and of every threshold.

    Raises
    ------
    RatedDataError
        Every rated document has weight 0.

    References
    ----------
    .. [1] Robles, E., Zaidouni, F., Mavromoustaki, A. & Refael, P. (2020). *Threshold
       Optimization in Multiple Binary Classifiers for Extreme Rare Events using Predicted
       Positive Data.* AAAI-MAKE 2020, CEUR-WS Vol-2600, paper 19: "For a single classifier" (marginal precision is the slope of the PN curve).

    Examples
    --------
    >>> from engine import pn_curve, upper_hull
    >>> hull = upper_hull(pn_curve([0.9, 0.8, 0.7, 0.6, 0.5], [1, 1, 0, 1, 0]))
    >>> hull.thresholds.tolist()  # "flag nothing" (inf) first
    [inf, 0.8, 0.6, 0.5]
    >>> hull.edge_mp.tolist()  # marginal precision along the hull, never increasing
    [1.0, 0.5, 0.0]
    """
    d_tp = np.diff(curve.tp, prepend=0.0)
    d_fp = np.diff(curve.fp, prepend=0.0)
    ends, edge_mp, mp_fit = hull_from_increments(curve.thresholds, d_tp, d_fp)
    return Hull(
        curve,
        vertex_index=np.r_[-1, ends],
        thresholds=np.r_[np.inf, curve.thresholds[ends]],
        tp=np.r_[0.0, curve.tp[ends]],
        fp=np.r_[0.0, curve.fp[ends]],
        edge_mp=edge_mp,
        mp_at_threshold=mp_fit,
    )
