"""PN curves, marginal precision and single-classifier operating points.

Robles, Zaidouni, Mavromoustaki & Refael (AAAI-MAKE 2020), "For a single
classifier": with only predicted positives rated, the ROC curve is replaced by
the **PN curve** ``t -> (FP(t), TP(t))`` of raw (weighted) counts of rated
negatives and positives with score >= t.

Definitions used throughout the studio
--------------------------------------
* **Marginal precision** ``m`` at a point: ``dTP / (dTP + dFP)`` of the documents
  added by lowering the threshold there.
* **Slope** of the PN curve: ``dTP / dFP = m / (1 - m)``.
* **False positives paid per extra true positive**: ``c = (1 - m) / m``.
* On the **upper concave hull** of the PN curve the slope never increases as FP
  grows, so ``m`` is well defined and monotone (non-increasing as the threshold
  falls). It equals the isotonic (pool-adjacent-violators) fit of label on
  score; that is how the hull is computed here (``scipy.optimize.isotonic_regression``).
* The **operating point** for a target ``m`` maximises ``TP - λ·FP`` with
  ``λ = m / (1 - m) = 1 / c`` (the target slope) over all thresholds, including
  "flag nothing" (threshold ``+inf``): lowering the threshold past a group of
  documents raises the objective iff their marginal precision beats ``m``. (The
  foundation issue wrote ``TP - c·FP``; with ``c`` = false positives paid per
  extra true positive a true positive is worth ``c`` false positives, so the
  consistent objective is ``c·TP - FP``, the same ordering as ``TP - FP / c``.)
  Among ties (equal up to floating-point rounding: 1e-9 of the objective's
  scale) the highest threshold wins. It is the hull vertex where the hull's
  marginal precision crosses the target, so ``mp_above > m >= mp_below``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.optimize import isotonic_regression

from .data import RatedDataError

__all__ = [
    "PNCurve",
    "Hull",
    "OperatingPoint",
    "Bootstrap",
    "BootstrapPoint",
    "pn_curve",
    "upper_hull",
    "cost_per_true_positive",
    "target_from_cost",
    "operating_point",
    "sweep",
    "bootstrap",
    "sweep_table",
    "what_if_table",
    "DEFAULT_SWEEP_TARGETS",
    "TIE_RTOL",
    "check_target",
    "target_slope",
    "tie_tolerance",
]

#: Relative tolerance under which two values of ``TP - c*FP`` count as tied.
TIE_RTOL = 1e-9


def _validate_scores_labels(scores, labels, weights):
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim != 1:
        raise RatedDataError(f"scores must be one-dimensional (one classifier); got shape {s.shape}.")
    y = np.asarray(labels)
    if y.shape != s.shape:
        raise RatedDataError(f"scores and labels differ in length ({s.shape[0]} vs {y.shape[0]}).")
    if s.size == 0:
        raise RatedDataError("No rated documents: scores are empty.")
    if not np.all(np.isfinite(s)):
        raise RatedDataError(f"scores contain NaN or infinite values at rows {np.flatnonzero(~np.isfinite(s))[:5] + 1}.")
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
    """Validate target marginal precision(s): finite and strictly between 0 and 1."""
    t = np.atleast_1d(np.asarray(target, dtype=np.float64))
    if not np.all(np.isfinite(t)) or np.any(t <= 0) or np.any(t >= 1):
        raise ValueError("target marginal precision must be strictly between 0 and 1: 0.5 means 'one false "
                         "positive per extra true positive', 0.1 means 'nine false positives per extra true "
                         "positive'.")
    return t


def target_slope(target):
    """``λ = m / (1 - m)``: the PN-curve slope dTP/dFP at marginal precision m (= 1 / c)."""
    t = check_target(target)
    lam = t / (1.0 - t)
    return float(lam[0]) if np.ndim(target) == 0 else lam


def tie_tolerance(tp_scale: float, fp_scale: float, slope: float) -> float:
    """Absolute tolerance under which two values of ``TP - λ·FP`` count as tied."""
    return TIE_RTOL * max(1.0, abs(tp_scale) + slope * abs(fp_scale))


def cost_per_true_positive(target):
    """``c = (1 - m) / m``: false positives paid for one more true positive at marginal precision m."""
    t = check_target(target)
    c = (1.0 - t) / t
    return float(c[0]) if np.ndim(target) == 0 else c


def target_from_cost(cost):
    """Inverse of :func:`cost_per_true_positive`: ``m = 1 / (1 + c)``."""
    c = np.asarray(cost, dtype=np.float64)
    if np.any(c < 0) or not np.all(np.isfinite(c)):
        raise ValueError("cost must be a finite number >= 0")
    m = 1.0 / (1.0 + c)
    return float(m) if np.ndim(cost) == 0 else m


@dataclass(frozen=True)
class PNCurve:
    """PN curve of one classifier: ``tp[i]``, ``fp[i]`` = weighted rated positives /
    negatives with score >= ``thresholds[i]``; thresholds are the unique scores, descending."""

    thresholds: np.ndarray
    tp: np.ndarray
    fp: np.ndarray

    @property
    def precision(self) -> np.ndarray:
        total = self.tp + self.fp
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(total > 0, self.tp / np.where(total > 0, total, 1), np.nan)


def pn_curve(scores, labels, weights=None) -> PNCurve:
    """Weighted PN curve at every unique score (descending), vectorised: one sort + cumsums."""
    s, y, w = _validate_scores_labels(scores, labels, weights)
    order = np.argsort(-s, kind="stable")
    s_sorted = s[order]
    pos = np.cumsum(w[order] * y[order])
    neg = np.cumsum(w[order] * (1.0 - y[order]))
    # last index of each run of equal scores
    last = np.flatnonzero(np.r_[s_sorted[1:] != s_sorted[:-1], True])
    return PNCurve(thresholds=s_sorted[last], tp=pos[last], fp=neg[last])


@dataclass(frozen=True)
class Hull:
    """Upper concave hull of the PN curve, starting at the origin (threshold +inf).

    ``vertex_index[v]`` indexes the curve (-1 for the origin); ``edge_mp[e]`` is the
    marginal precision of the edge from vertex e to e+1 (strictly decreasing).
    ``mp_at_threshold[i]`` is the hull marginal precision of the documents with
    score ``curve.thresholds[i]`` (the PAV fit of label on score).
    """

    curve: PNCurve
    vertex_index: np.ndarray
    thresholds: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    edge_mp: np.ndarray
    mp_at_threshold: np.ndarray


def _pav_hull(thresholds: np.ndarray, d_tp: np.ndarray, d_fp: np.ndarray):
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
    """Upper concave hull via PAV on the per-threshold label means (O(n))."""
    d_tp = np.diff(curve.tp, prepend=0.0)
    d_fp = np.diff(curve.fp, prepend=0.0)
    ends, edge_mp, mp_fit = _pav_hull(curve.thresholds, d_tp, d_fp)
    return Hull(curve, vertex_index=np.r_[-1, ends], thresholds=np.r_[np.inf, curve.thresholds[ends]],
                tp=np.r_[0.0, curve.tp[ends]], fp=np.r_[0.0, curve.fp[ends]], edge_mp=edge_mp,
                mp_at_threshold=mp_fit)


@dataclass(frozen=True)
class OperatingPoint:
    """The chosen operating point for a target marginal precision.

    ``threshold`` is a float for one classifier and a (k,) array for joint thresholds.
    ``mp_above`` is the marginal precision of the documents just above the point
    (the hull/path segment that ends there), ``mp_below`` of those just below it;
    at the optimum ``mp_above >= target >= mp_below``. NaN where no segment exists.
    """

    target: float
    threshold: float | np.ndarray
    tp: float
    fp: float
    precision: float
    mp_above: float
    mp_below: float
    cost: float  # c = (1 - m) / m of the target: false positives paid per extra true positive

    @property
    def slope(self) -> float:
        """Target slope ``λ = m / (1 - m) = 1 / c``."""
        return self.target / (1.0 - self.target)

    @property
    def objective(self) -> float:
        """``TP - λ·FP`` at the point (the quantity the operating point maximises)."""
        return self.tp - self.slope * self.fp

    def as_dict(self) -> dict:
        th = self.threshold
        th = [float(x) for x in np.ravel(th)] if np.ndim(th) else float(th)
        flags_nothing = not np.all(np.isfinite(np.ravel(self.threshold)))
        return {"target_marginal_precision": self.target, "threshold": th, "flags_nothing": flags_nothing,
                "tp": self.tp, "fp": self.fp,
                "precision": self.precision, "marginal_precision_above": self.mp_above,
                "marginal_precision_below": self.mp_below, "fp_per_extra_tp": self.cost}


def _precision(tp: float, fp: float) -> float:
    return tp / (tp + fp) if tp + fp > 0 else float("nan")


def _pick_tied_first(values: np.ndarray, tol: float) -> int:
    """Index of the first value within ``tol`` of the maximum (first = highest threshold)."""
    return int(np.flatnonzero(values >= values.max() - tol)[0])


def _optimal_vertex(edge_mp: np.ndarray, tp: np.ndarray, fp: np.ndarray, target: float, lam: float) -> int:
    """Hull vertex maximising TP - λ·FP: binary search for the crossing, then exact ties in a small window."""
    j = int(np.searchsorted(-edge_mp, -target, side="left"))  # edges whose marginal precision beats the target
    lo, hi = max(0, j - 3), min(tp.size, j + 4)
    return lo + _pick_tied_first(tp[lo:hi] - lam * fp[lo:hi], tie_tolerance(tp[-1], fp[-1], lam))


def sweep(scores=None, labels=None, targets=None, weights=None, *, hull: Hull | None = None) -> list[OperatingPoint]:
    """Operating points for many targets: the hull is built once, each target is a binary search.

    Pass either ``scores, labels[, weights]`` or a precomputed ``hull``.
    """
    if hull is None:
        hull = upper_hull(pn_curve(scores, labels, weights))
    t = check_target(targets)
    out = []
    for target, lam in zip(t, t / (1.0 - t)):
        v = _optimal_vertex(hull.edge_mp, hull.tp, hull.fp, target, lam)
        tp, fp = float(hull.tp[v]), float(hull.fp[v])
        out.append(OperatingPoint(
            target=float(target), threshold=float(hull.thresholds[v]), tp=tp, fp=fp,
            precision=_precision(tp, fp),
            mp_above=float(hull.edge_mp[v - 1]) if v > 0 else float("nan"),
            mp_below=float(hull.edge_mp[v]) if v < hull.edge_mp.size else float("nan"),
            cost=float(1.0 / lam)))
    return out


#: targets of the sweep table: 0.05, 0.10, ..., 0.95
DEFAULT_SWEEP_TARGETS = tuple(round(0.05 * i, 2) for i in range(1, 20))


def sweep_table(hull: Hull, targets=DEFAULT_SWEEP_TARGETS) -> pd.DataFrame:
    """One row per target: threshold, TP, FP, precision, marginal precision around the point."""
    points = sweep(targets=targets, hull=hull)
    return pd.DataFrame({
        "target_marginal_precision": [p.target for p in points],
        "fp_per_extra_tp": [p.cost for p in points],
        "threshold": [p.threshold for p in points],
        "tp": [p.tp for p in points],
        "fp": [p.fp for p in points],
        "precision": [p.precision for p in points],
        "marginal_precision_above": [p.mp_above for p in points],
        "marginal_precision_below": [p.mp_below for p in points],
    })


def what_if_table(a: OperatingPoint, b: OperatingPoint) -> pd.DataFrame:
    """How threshold(s), TP, FP and precision change from operating point ``a`` to ``b``."""
    th_a, th_b = np.ravel(a.threshold), np.ravel(b.threshold)
    names = ["threshold"] if th_a.size == 1 else [f"threshold {j + 1}" for j in range(th_a.size)]
    rows = [(n, x, y) for n, x, y in zip(names, th_a, th_b)]
    rows += [("target marginal precision", a.target, b.target), ("FP per extra TP", a.cost, b.cost),
             ("TP", a.tp, b.tp), ("FP", a.fp, b.fp), ("precision", a.precision, b.precision)]
    frame = pd.DataFrame(rows, columns=["quantity", "A", "B"])
    with np.errstate(invalid="ignore"):
        frame["change (B - A)"] = frame["B"] - frame["A"]
    return frame


def operating_point(scores=None, labels=None, target: float = 0.5, weights=None, *,
                    hull: Hull | None = None) -> OperatingPoint:
    """Threshold maximising ``TP - λ·FP`` (``λ = target / (1 - target)``); ties -> highest threshold."""
    return sweep(scores, labels, [target], weights, hull=hull)[0]


# --------------------------------------------------------------------------- bootstrap
@dataclass(frozen=True)
class BootstrapPoint:
    """Bootstrap distribution of the operating point at one target (threshold ``+inf`` = flag nothing)."""

    target: float
    level: float
    thresholds: np.ndarray
    tp: np.ndarray
    fp: np.ndarray

    def interval(self, values: np.ndarray) -> tuple[float, float]:
        """Percentile interval (order statistics, no interpolation: +inf stays meaningful)."""
        a = (1.0 - self.level) / 2
        return (float(np.quantile(values, a, method="lower")), float(np.quantile(values, 1 - a, method="higher")))

    @property
    def threshold_ci(self) -> tuple[float, float]:
        return self.interval(self.thresholds)

    @property
    def tp_ci(self) -> tuple[float, float]:
        return self.interval(self.tp)

    @property
    def fp_ci(self) -> tuple[float, float]:
        return self.interval(self.fp)


@dataclass(frozen=True)
class Bootstrap:
    """Bootstrap (documents resampled with replacement) of the hull, for any target.

    Each replicate keeps its hull vertices (``replicates[r] = (edge_mp, tp, fp,
    thresholds)``), so :meth:`at` gives the operating point of every replicate for
    a new target with one binary search each. ``mp_band`` is (3, m): lower
    quantile, median and upper quantile of the hull marginal precision at
    ``band_thresholds`` (at most ``max_band_points`` of the curve's thresholds,
    evenly spaced in document count); ``n_at_or_above[i]`` is the number of rated
    documents with score >= ``band_thresholds[i]`` (few documents -> wide band).
    """

    level: float
    curve: PNCurve
    band_thresholds: np.ndarray
    mp_band: np.ndarray
    n_at_or_above: np.ndarray
    replicates: tuple

    @property
    def n_boot(self) -> int:
        return len(self.replicates)

    def at(self, target: float) -> BootstrapPoint:
        lam = target_slope(target)
        th, tp, fp = (np.empty(self.n_boot) for _ in range(3))
        for r, (edge_mp, r_tp, r_fp, r_th) in enumerate(self.replicates):
            v = _optimal_vertex(edge_mp, r_tp, r_fp, target, lam)
            th[r], tp[r], fp[r] = r_th[v], r_tp[v], r_fp[v]
        return BootstrapPoint(float(target), self.level, th, tp, fp)


def bootstrap(scores, labels, weights=None, *, n_boot: int = 200, level: float = 0.95, seed: int = 0,
              max_cells: int = 20_000_000, max_band_points: int = 2000, progress=None) -> Bootstrap:
    """Nonparametric bootstrap of the PN hull: operating-point intervals and the marginal-precision band.

    Each replicate redraws the n rated documents with replacement (multinomial
    counts, seeded). Documents with equal score and label are exchangeable, so
    when all weights are equal the draw is made directly over these cells (the
    same distribution, far fewer categories); with unequal weights it is made
    over documents. Every replicate lives on the original threshold set and
    needs only sums and one PAV; replicates are drawn in chunks of at most
    ``max_cells`` counts to bound memory (chunking does not change the draws).
    ``progress(done, total)`` is called after each chunk.
    """
    s, y, w = _validate_scores_labels(scores, labels, weights)
    if not 0 < level < 1:
        raise ValueError("level must be in (0, 1)")
    if n_boot < 1:
        raise ValueError("n_boot must be >= 1")
    curve = pn_curve(s, y, w)
    order = np.argsort(-s, kind="stable")
    s_sorted = s[order]
    group_start = np.flatnonzero(np.r_[True, s_sorted[1:] != s_sorted[:-1]])
    n = s.size
    n_groups = group_start.size
    docs_per_group = np.diff(np.r_[group_start, n])
    equal_weights = bool(np.all(w == w[0]))
    if equal_weights:
        pos_per_group = np.add.reduceat(y[order], group_start)
        # categories: [positives of each group, negatives of each group]
        units = np.r_[pos_per_group, docs_per_group - pos_per_group]
    rng = np.random.default_rng(seed)
    n_units = 2 * n_groups if equal_weights else n
    chunk = max(1, min(n_boot, max_cells // max(n_units, 1)))
    band_index = np.unique(np.searchsorted(np.cumsum(docs_per_group),
                                           np.linspace(1, n, min(max_band_points, n_groups)), side="left"))
    replicates, fits = [], []
    th_ext = np.r_[np.inf, curve.thresholds]
    for start in range(0, n_boot, chunk):
        b = min(chunk, n_boot - start)
        if equal_weights:
            draws = rng.multinomial(n, units / n, size=b).astype(np.float64) * w[0]
            tp_g, fp_g = draws[:, :n_groups], draws[:, n_groups:]
        else:
            counts = rng.multinomial(n, np.full(n, 1.0 / n), size=b).astype(np.float64)[:, order]
            tp_g = np.add.reduceat(counts * (w * y)[order], group_start, axis=1)
            fp_g = np.add.reduceat(counts * (w * (1.0 - y))[order], group_start, axis=1)
        tp_c = np.cumsum(tp_g, axis=1)
        fp_c = np.cumsum(fp_g, axis=1)
        for r in range(b):
            ends, edge_mp, mp_fit = _pav_hull(curve.thresholds, tp_g[r], fp_g[r])
            replicates.append((edge_mp, np.r_[0.0, tp_c[r, ends]], np.r_[0.0, fp_c[r, ends]],
                               th_ext[np.r_[0, ends + 1]]))
            fits.append(mp_fit[band_index])
        if progress is not None:
            progress(start + b, n_boot)
    a = (1.0 - level) / 2
    mp_band = np.quantile(np.vstack(fits), [a, 0.5, 1 - a], axis=0)
    return Bootstrap(level=level, curve=curve, band_thresholds=curve.thresholds[band_index], mp_band=mp_band,
                     n_at_or_above=np.cumsum(docs_per_group)[band_index], replicates=tuple(replicates))
