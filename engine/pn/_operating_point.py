"""Single-classifier operating points for a target marginal precision.

Robles, Zaidouni, Mavromoustaki & Refael, *Threshold Optimization in Multiple Binary Classifiers for Extreme Rare Events using Predicted Positive Data*, AAAI-MAKE 2020 (CEUR-WS Vol-2600, paper 19), "For a single classifier".

The **operating point** for a target marginal precision ``m`` maximises
``TP − λ·FP`` with ``λ = m / (1 − m)`` over every threshold, "flag nothing"
(threshold ``+inf``) included: lowering the threshold past a group of documents
raises the objective iff their marginal precision beats ``m``. Among ties (equal
up to 1e-9 of the objective's scale) the highest threshold wins. It is the hull
vertex where the hull's marginal precision crosses the target, so
``mp_above > m >= mp_below``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._curve import Hull, check_target, pn_curve, tie_tolerance, upper_hull

__all__ = [
    "OperatingPoint",
    "operating_point",
    "sweep",
    "sweep_table",
    "what_if_table",
    "optimal_vertex",
    "DEFAULT_SWEEP_TARGETS",
    "Card",
    "operating_point_cards",
]


@dataclass(frozen=True)
class OperatingPoint:
    """The chosen operating point for a target marginal precision.

    Attributes
    ----------
    target : float
        Target marginal precision m in (0, 1).
    threshold : float or numpy.ndarray of shape (k,)
        Flag documents with score >= threshold (+inf: flag nothing); a (k,) array of
        joint thresholds for k classifiers.
    tp, fp : float
        Weighted rated positives and negatives flagged at the point.
    precision : float
        ``tp / (tp + fp)``; NaN when nothing is flagged.
    mp_above : float
        Marginal precision of the documents just above the point (the hull or path
        segment that ends there); NaN where no segment exists.
    mp_below : float
        Marginal precision of the documents just below the point; NaN where no segment
        exists. At the optimum ``mp_above >= target >= mp_below``.
    cost : float
        c = (1 − m) / m = 1 / λ of the target: false positives paid per extra true positive.
    """

    target: float
    threshold: float | np.ndarray
    tp: float
    fp: float
    precision: float
    mp_above: float
    mp_below: float
    cost: float  # c = (1 − m) / m = 1 / λ of the target: false positives paid per extra true positive

    @property
    def slope(self) -> float:
        """Target slope ``λ = m / (1 − m) = 1 / c``."""
        return self.target / (1.0 - self.target)

    @property
    def objective(self) -> float:
        """``TP − λ·FP`` at the point (the quantity the operating point maximises)."""
        return self.tp - self.slope * self.fp

    def as_dict(self) -> dict:
        th = self.threshold
        th = [float(x) for x in np.ravel(th)] if np.ndim(th) else float(th)  # type: ignore[assignment]
        flags_nothing = not np.all(np.isfinite(np.ravel(self.threshold)))
        return {
            "target_marginal_precision": self.target,
            "threshold": th,
            "flags_nothing": flags_nothing,
            "tp": self.tp,
            "fp": self.fp,
            "precision": self.precision,
            "marginal_precision_above": self.mp_above,
            "marginal_precision_below": self.mp_below,
            "fp_per_extra_tp": self.cost,
        }


@dataclass(frozen=True)
class Card:
    """One figure of the operating point as a dashboard card shows it: label, value, caption, help.

    Attributes
    ----------
    label : str
        Name of the figure (``"Threshold"``, ``"True positives"`` ...).
    value : str
        The formatted value.
    caption : str
        Small print under the value (an interval, the marginal precision just below).
    help : str
        Tooltip text.
    """

    label: str
    value: str
    caption: str = ""
    help: str = ""


def _interval_caption(interval, fmt: str, level: float | None) -> str:
    if interval is None:
        return "interval: computing" if level is not None else ""
    prefix = f"{int(round(level * 100))} % CI " if level is not None else "CI "
    return f"{prefix}[{interval[0]:{fmt}}, {interval[1]:{fmt}}]"


def operating_point_cards(op: OperatingPoint, ci=None, *, level: float | None = None) -> list[Card]:
    """The six cards of an operating point (threshold, TP, FP, precision, marginal precision, cost) as text.

    Parameters
    ----------
    op : OperatingPoint
        The point to show (its first threshold for joint thresholds).
    ci : BootstrapPoint, optional
        Bootstrap distribution at the same target: its intervals go in the captions of
        the threshold, TP and FP cards. None while the bootstrap runs.
    level : float, optional
        Confidence level of ``ci``; when given and ``ci`` is None the captions say
        "interval: computing".

    Returns
    -------
    list of Card
        Threshold, true positives, false positives, precision, marginal precision and
        FP per extra TP, in this order.
    """
    threshold = float(np.ravel(op.threshold)[0])
    dash = "–"
    return [
        Card(
            "Threshold",
            "flag nothing" if not np.isfinite(threshold) else f"{threshold:.6g}",
            _interval_caption(ci.threshold_ci if ci else None, ".4g", level),
            "Flag documents with score ≥ threshold.",
        ),
        Card("True positives", f"{op.tp:,.6g}", _interval_caption(ci.tp_ci if ci else None, ",.6g", None)),
        Card("False positives", f"{op.fp:,.6g}", _interval_caption(ci.fp_ci if ci else None, ",.6g", None)),
        Card("Precision", dash if np.isnan(op.precision) else f"{op.precision:.3f}"),
        Card(
            "Marginal precision",
            dash if np.isnan(op.mp_above) else f"{op.mp_above:.3f}",
            "just below: " + (dash if np.isnan(op.mp_below) else f"{op.mp_below:.3f}"),
            "Of the documents just above the threshold (the hull segment ending at the point). The target lies "
            "between this and the value just below.",
        ),
        Card("FP per extra TP", f"{op.cost:.3g}"),
    ]


def _precision(tp: float, fp: float) -> float:
    return tp / (tp + fp) if tp + fp > 0 else float("nan")


def _pick_tied_first(values: np.ndarray, tol: float) -> int:
    """Index of the first value within ``tol`` of the maximum (first = highest threshold)."""
    return int(np.flatnonzero(values >= values.max() - tol)[0])


def optimal_vertex(edge_mp: np.ndarray, tp: np.ndarray, fp: np.ndarray, target: float, lam: float) -> int:
    """Hull vertex maximising TP − λ·FP: binary search for the crossing, then exact ties in a small window.

    Parameters
    ----------
    edge_mp : numpy.ndarray, shape (v - 1,)
        Strictly decreasing marginal precisions of the hull edges.
    tp, fp : numpy.ndarray, shape (v,)
        TP and FP of the hull vertices, the origin first.
    target : float
        Target marginal precision m.
    lam : float
        λ = m / (1 − m).

    Returns
    -------
    int
        Index of the vertex; among tied vertices the first (highest threshold).
    """
    j = int(np.searchsorted(-edge_mp, -target, side="left"))  # edges whose marginal precision beats the target
    lo, hi = max(0, j - 3), min(tp.size, j + 4)
    return lo + _pick_tied_first(tp[lo:hi] - lam * fp[lo:hi], tie_tolerance(tp[-1], fp[-1], lam))


def sweep(scores=None, labels=None, targets=None, weights=None, *, hull: Hull | None = None) -> list[OperatingPoint]:
    """Operating points for many targets: the hull is built once, each target is a binary search.

    Pass either ``scores, labels[, weights]`` or a precomputed ``hull``.

    Parameters
    ----------
    scores : array_like of float, shape (n,), optional
        One classifier's scores of the rated documents (ignored when ``hull`` is given).
    labels : array_like of {0, 1}, shape (n,), optional
        1 = true positive, 0 = false positive.
    targets : float or array_like of float
        Target marginal precisions m in (0, 1).
    weights : array_like of float, shape (n,), optional
        Non-negative document weights; 1 each when None.
    hull : Hull, optional
        Upper hull of the PN curve, built from the documents when None.

    Returns
    -------
    list of OperatingPoint
        One per target, in the targets' order: the hull vertex maximising TP − λ·FP
        with λ = m / (1 − m); ties go to the highest threshold.

    Raises
    ------
    InputError
        A target outside (0, 1).
    RatedDataError
        Invalid scores, labels or weights (see :func:`~engine.pn.pn_curve`).

    References
    ----------
    .. [1] Robles, E., Zaidouni, F., Mavromoustaki, A. & Refael, P. (2020). *Threshold
       Optimization in Multiple Binary Classifiers for Extreme Rare Events using Predicted
       Positive Data.* AAAI-MAKE 2020, CEUR-WS Vol-2600, paper 19: "For a single classifier" (the optimal threshold for a target marginal precision).

    Examples
    --------
    >>> from engine import sweep
    >>> points = sweep([0.9, 0.8, 0.7, 0.6, 0.5], [1, 1, 0, 1, 0], targets=[0.4, 0.6])
    >>> [(p.target, p.threshold) for p in points]
    [(0.4, 0.6), (0.6, 0.8)]
    """
    if hull is None:
        hull = upper_hull(pn_curve(scores, labels, weights))
    t = check_target(targets)
    out = []
    for target, lam in zip(t, t / (1.0 - t)):
        v = optimal_vertex(hull.edge_mp, hull.tp, hull.fp, target, lam)
        tp, fp = float(hull.tp[v]), float(hull.fp[v])
        out.append(
            OperatingPoint(
                target=float(target),
                threshold=float(hull.thresholds[v]),
                tp=tp,
                fp=fp,
                precision=_precision(tp, fp),
                mp_above=float(hull.edge_mp[v - 1]) if v > 0 else float("nan"),
                mp_below=float(hull.edge_mp[v]) if v < hull.edge_mp.size else float("nan"),
                cost=float(1.0 / float(lam)) if lam >= 1e-300 else math.inf,  # a subnormal target: no overflow
            )
        )
    return out


#: targets of the sweep table: 0.05, 0.10, ..., 0.95
DEFAULT_SWEEP_TARGETS = tuple(round(0.05 * i, 2) for i in range(1, 20))


def sweep_table(hull: Hull, targets=DEFAULT_SWEEP_TARGETS) -> pd.DataFrame:
    """One row per target: threshold, TP, FP, precision, marginal precision around the point.

    Parameters
    ----------
    hull : Hull
        Upper hull of one classifier's PN curve.
    targets : sequence of float, optional
        Target marginal precisions; 0.05, 0.10, ..., 0.95 by default.

    Returns
    -------
    pandas.DataFrame
        Columns ``target_marginal_precision``, ``fp_per_extra_tp``, ``threshold``,
        ``tp``, ``fp``, ``precision``, ``marginal_precision_above``,
        ``marginal_precision_below``; one row per target.
    """
    points = sweep(targets=targets, hull=hull)
    return pd.DataFrame(
        {
            "target_marginal_precision": [p.target for p in points],
            "fp_per_extra_tp": [p.cost for p in points],
            "threshold": [p.threshold for p in points],
            "tp": [p.tp for p in points],
            "fp": [p.fp for p in points],
            "precision": [p.precision for p in points],
            "marginal_precision_above": [p.mp_above for p in points],
            "marginal_precision_below": [p.mp_below for p in points],
        }
    )


def what_if_table(a: OperatingPoint, b: OperatingPoint) -> pd.DataFrame:
    """How threshold(s), TP, FP and precision change from operating point ``a`` to ``b``.

    Parameters
    ----------
    a, b : OperatingPoint
        The two points, with the same number of thresholds.

    Returns
    -------
    pandas.DataFrame
        Columns ``quantity``, ``A``, ``B`` and ``change (B - A)``; rows for each
        threshold, the target, FP per extra TP, TP, FP and precision.
    """
    th_a, th_b = np.ravel(a.threshold), np.ravel(b.threshold)
    names = ["threshold"] if th_a.size == 1 else [f"threshold {j + 1}" for j in range(th_a.size)]
    rows = [(n, x, y) for n, x, y in zip(names, th_a, th_b)]
    rows += [
        ("target marginal precision", a.target, b.target),
        ("FP per extra TP", a.cost, b.cost),
        ("TP", a.tp, b.tp),
        ("FP", a.fp, b.fp),
        ("precision", a.precision, b.precision),
    ]
    frame = pd.DataFrame(rows, columns=["quantity", "A", "B"])
    with np.errstate(invalid="ignore"):
        frame["change (B - A)"] = frame["B"] - frame["A"]
    return frame


def operating_point(
    scores=None, labels=None, target: float = 0.5, weights=None, *, hull: Hull | None = None
) -> OperatingPoint:
    """Threshold maximising ``TP − λ·FP`` (``λ = target / (1 − target)``); ties -> highest threshold.

    Parameters
    ----------
    scores : array_like of float, shape (n,), optional
        One classifier's scores of the rated documents (ignored when ``hull`` is given).
    labels : array_like of {0, 1}, shape (n,), optional
        1 = true positive, 0 = false positive.
    target : float, optional
        Target marginal precision m in (0, 1).
    weights : array_like of float, shape (n,), optional
        Non-negative document weights; 1 each when None.
    hull : Hull, optional
        Upper hull of the PN curve, built from the documents when None.

    Returns
    -------
    OperatingPoint
        The hull vertex where the marginal precision crosses the target
        (``mp_above > target >= mp_below``); threshold +inf when flagging nothing is best.

    Raises
    ------
    InputError
        ``target`` outside (0, 1).
    RatedDataError
        Invalid scores, labels or weights.

    References
    ----------
    .. [1] Robles, E., Zaidouni, F., Mavromoustaki, A. & Refael, P. (2020). *Threshold
       Optimization in Multiple Binary Classifiers for Extreme Rare Events using Predicted
       Positive Data.* AAAI-MAKE 2020, CEUR-WS Vol-2600, paper 19: "For a single classifier".

    Examples
    --------
    >>> from engine import load_rated, operating_point
    >>> data = load_rated("sample_data/synthetic_rare_events.csv.gz")
    >>> op = operating_point(data.column("score_image"), data.labels, target=0.3, weights=data.weights)
    >>> print(f"threshold {op.threshold:.4f}: {op.tp:.0f} TP, {op.fp:.0f} FP, {op.cost:.2f} FP per extra TP")
    threshold 0.3642: 868 TP, 610 FP, 2.33 FP per extra TP
    """
    return sweep(scores, labels, [target], weights, hull=hull)[0]
