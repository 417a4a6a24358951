"""Joint threshold grids for two or more classifiers.

Robles et al. (AAAI-MAKE 2020), "For an ensemble of classifiers", eq. (1): with k
classifiers the PN curve becomes the map ``t -> (FP(t), TP(t))`` on the threshold
space ``T1 x ... x Tk``. A document is predicted positive iff **any** (rule
``"or"``, the paper's union) or **all** (rule ``"and"``) of its scores are >= their
thresholds. This module tabulates TP and FP on a grid of thresholds with one
k-dimensional weighted histogram and cumulative sums (no loop over cells or
documents), and reads the paper's aggregated ``t1..tk, tp, fp`` format.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from .data import RatedDataError, Source, check_unique_columns, read_table

__all__ = ["ThresholdGrid", "threshold_grid", "make_axes", "load_counts", "counts_table", "RULES"]

RULES = ("or", "and")


@dataclass(frozen=True)
class ThresholdGrid:
    """TP and FP on a grid of joint thresholds.

    ``axes[j]`` is the ascending threshold array of classifier j (starting at its
    rating floor; the last value lies just above the highest score, so the
    all-highest corner flags nothing). ``tp[i0, i1, ...]`` / ``fp[...]`` are the
    weighted rated positives / negatives flagged at thresholds
    ``(axes[0][i0], axes[1][i1], ...)`` under ``rule``.
    """

    axes: tuple[np.ndarray, ...]
    tp: np.ndarray
    fp: np.ndarray
    rule: str
    score_names: tuple[str, ...] = ()

    @property
    def shape(self) -> tuple[int, ...]:
        return self.tp.shape

    @property
    def k(self) -> int:
        return len(self.axes)

    @property
    def names(self) -> tuple[str, ...]:
        return self.score_names or tuple(f"t{j + 1}" for j in range(self.k))

    def thresholds_at(self, index) -> np.ndarray:
        """Threshold vector of a (k,) integer grid index or an (m, k) array of them."""
        idx = np.asarray(index)
        if idx.ndim == 1:
            return np.array([self.axes[j][idx[j]] for j in range(self.k)])
        return np.column_stack([self.axes[j][idx[:, j]] for j in range(self.k)])

    @property
    def precision(self) -> np.ndarray:
        total = self.tp + self.fp
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(total > 0, self.tp / np.where(total > 0, total, 1), np.nan)


def _check_scores(scores, labels, weights):
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim != 2 or s.shape[1] < 1:
        raise RatedDataError(f"scores must be a 2-D (documents x classifiers) array; got shape {s.shape}.")
    y = np.asarray(labels)
    if y.shape != (s.shape[0],):
        raise RatedDataError(f"labels must have one entry per document ({s.shape[0]}); got shape {y.shape}.")
    if s.shape[0] == 0:
        raise RatedDataError("No rated documents.")
    if not np.all(np.isfinite(s)):
        raise RatedDataError("scores contain NaN or infinite values.")
    if not np.all((y == 0) | (y == 1)):
        raise RatedDataError("labels must be 0/1.")
    w = np.ones(s.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != (s.shape[0],) or not np.all(np.isfinite(w)) or np.any(w < 0):
        raise RatedDataError("weights must be finite, >= 0 and one per document.")
    return s, y.astype(np.float64), w


def make_axes(scores, *, bins: int | Sequence[int] = 100, spacing: str = "quantile") -> tuple[np.ndarray, ...]:
    """Ascending threshold axes, one per classifier, from the rating floor upward.

    ``spacing="quantile"`` (default) puts the thresholds at score quantiles so the
    rare top tail is resolved; ``"uniform"`` spaces them evenly. Each axis holds at
    most ``bins`` values: ``bins - 1`` (deduplicated) score levels starting at the
    lowest score, plus one value just above the highest score.
    """
    s = np.asarray(scores, dtype=np.float64)
    k = s.shape[1]
    bins_list = [int(bins)] * k if np.ndim(bins) == 0 else [int(b) for b in bins]
    if len(bins_list) != k or min(bins_list) < 2:
        raise ValueError("bins must be >= 2 (one value per classifier, or one for all)")
    if spacing not in ("quantile", "uniform"):
        raise ValueError("spacing must be 'quantile' or 'uniform'")
    axes = []
    for j in range(k):
        col = s[:, j]
        levels = bins_list[j] - 1
        if spacing == "quantile":
            vals = np.quantile(col, np.linspace(0.0, 1.0, levels), method="inverted_cdf")
        else:
            vals = np.linspace(col.min(), col.max(), levels)
        vals = np.unique(vals)
        vals[0] = col.min()  # start exactly at the rating floor
        axes.append(np.r_[vals, np.nextafter(col.max(), np.inf)])
    return tuple(axes)


def threshold_grid(scores, labels, weights=None, *, bins: int | Sequence[int] = 100, rule: str = "or",
                   spacing: str = "quantile", axes: Sequence[np.ndarray] | None = None,
                   score_names: Sequence[str] = ()) -> ThresholdGrid:
    """Tabulate TP and FP on a k-dimensional threshold grid (any k >= 1).

    For document d let ``idx_j(d)`` = number of axis-j thresholds <= its score, so
    the document passes threshold ``axes[j][i]`` iff ``i < idx_j(d)``.

    * OR: the document is *not* flagged at grid index ``i`` iff ``idx_j(d) <= i_j``
      for all j: a cumulative sum of the histogram of ``idx`` along every axis;
      flagged = total - not flagged.
    * AND: flagged iff ``idx_j(d) >= i_j + 1`` for all j: a reversed cumulative sum.

    Cost: O(n k) for the bin indices + O(cells) for the cumulative sums.
    """
    s, y, w = _check_scores(scores, labels, weights)
    rule = str(rule).lower()
    if rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}, got {rule!r}")
    if axes is None:
        axes = make_axes(s, bins=bins, spacing=spacing)
    axes = tuple(np.asarray(a, dtype=np.float64) for a in axes)
    k = s.shape[1]
    if len(axes) != k:
        raise ValueError(f"{len(axes)} axes for {k} classifiers")
    for a in axes:
        if a.ndim != 1 or a.size < 2 or np.any(np.diff(a) <= 0):
            raise ValueError("each axis must be a strictly ascending 1-D array of at least 2 thresholds")
    sizes = tuple(a.size for a in axes)
    hist_shape = tuple(m + 1 for m in sizes)
    flat = np.zeros(s.shape[0], dtype=np.int64)
    for j in range(k):
        idx = np.searchsorted(axes[j], s[:, j], side="right")
        flat = flat * hist_shape[j] + idx
    n_cells = int(np.prod(hist_shape))
    out = {}
    for key, wt in (("tp", w * y), ("fp", w * (1.0 - y))):
        hist = np.bincount(flat, weights=wt, minlength=n_cells).reshape(hist_shape)
        if rule == "or":
            for j in range(k):
                np.cumsum(hist, axis=j, out=hist)
            not_flagged = hist[tuple(slice(0, m) for m in sizes)]
            out[key] = wt.sum() - not_flagged
        else:
            for j in range(k):
                hist = np.flip(np.cumsum(np.flip(hist, axis=j), axis=j), axis=j)
            out[key] = np.ascontiguousarray(hist[tuple(slice(1, m + 1) for m in sizes)])
        # cumulative sums of non-negative weights: clip the -1e-13 rounding residue
        np.maximum(out[key], 0.0, out=out[key])
    return ThresholdGrid(axes=axes, tp=out["tp"], fp=out["fp"], rule=rule, score_names=tuple(score_names))


# --------------------------------------------------------------------------- aggregated format
def counts_table(grid: ThresholdGrid) -> pd.DataFrame:
    """The paper's aggregated format: one row per threshold tuple, columns ``t1..tk, tp, fp``."""
    mesh = np.meshgrid(*grid.axes, indexing="ij")
    data = {f"t{j + 1}": m.ravel() for j, m in enumerate(mesh)}
    data["tp"] = grid.tp.ravel()
    data["fp"] = grid.fp.ravel()
    return pd.DataFrame(data)


def _enforce_monotone(values: np.ndarray) -> np.ndarray:
    """Counts must never increase when any threshold rises: reversed running max along each axis."""
    out = values.copy()
    for j in range(out.ndim):
        out = np.flip(np.maximum.accumulate(np.flip(out, axis=j), axis=j), axis=j)
    return out


def load_counts(source: Source | pd.DataFrame, *, threshold_cols: Sequence[str] | None = None,
                tp_col: str | None = None, fp_col: str | None = None, bins: int = 50,
                rule: str = "given") -> ThresholdGrid:
    """Read the aggregated format (``t1..tk, tp, fp``; e.g. the paper's 4-column files).

    Columns named ``tp``/``fp`` (any case) are the counts, every other numeric column
    is a threshold; a headerless file is read as thresholds followed by tp, fp. A
    table that is a full Cartesian product is used exactly; an irregular one is
    regridded onto ``bins`` evenly spaced thresholds per axis by linear
    interpolation (nearest value outside the data's convex hull), then made
    monotone: TP and FP never increase when any threshold rises.
    """
    if isinstance(source, pd.DataFrame):
        frame, name = source, "counts"
    else:
        # read without a header, then decide: a first row of numbers means the file has none
        table = read_table(source, header=False)
        frame, name = table.frame, table.name
        first = [str(x).strip() for x in frame.iloc[0]]
        if all(_is_number(x) for x in first):
            frame.columns = [f"t{j + 1}" for j in range(frame.shape[1] - 2)] + ["tp", "fp"]
        else:
            check_unique_columns(first, name)
            frame = frame.iloc[1:].reset_index(drop=True)
            frame.columns = first
    cols = [str(c) for c in frame.columns]
    lower = {c.lower(): c for c in cols}
    tp_col = tp_col or lower.get("tp")
    fp_col = fp_col or lower.get("fp")
    if tp_col is None or fp_col is None:
        raise RatedDataError(f"'{name}': aggregated counts need columns named 'tp' and 'fp' "
                             f"(columns seen: {', '.join(cols)}).")
    if threshold_cols is None:
        threshold_cols = [c for c in cols if c not in (tp_col, fp_col)]
    if len(threshold_cols) < 1:
        raise RatedDataError(f"'{name}': no threshold columns besides tp and fp.")
    numeric = {}
    for c in [*threshold_cols, tp_col, fp_col]:
        v = pd.to_numeric(frame[c], errors="coerce").to_numpy(dtype=float)
        bad = ~np.isfinite(v)
        if bad.any():
            rows = ", ".join(str(i + 1) for i in np.flatnonzero(bad)[:5])
            raise RatedDataError(f"'{name}': column '{c}' has missing or non-numeric values at rows {rows} "
                                 "(row 1 = first data row). Every cell must be a finite number.")
        numeric[c] = v
    for c in (tp_col, fp_col):
        neg = numeric[c] < 0
        if neg.any():
            rows = ", ".join(str(i + 1) for i in np.flatnonzero(neg)[:5])
            raise RatedDataError(f"'{name}': column '{c}' has negative counts at rows {rows}.")
    t = np.column_stack([numeric[c] for c in threshold_cols])
    tp, fp = numeric[tp_col], numeric[fp_col]
    uniq = [np.unique(t[:, j]) for j in range(t.shape[1])]
    shape = tuple(u.size for u in uniq)
    if int(np.prod(shape)) == t.shape[0] and all(s >= 2 for s in shape):
        pos = [np.searchsorted(uniq[j], t[:, j]) for j in range(t.shape[1])]
        flat = np.ravel_multi_index(pos, shape)
        if np.unique(flat).size == flat.size:  # a full Cartesian product: exact
            tp_g = np.empty(shape); fp_g = np.empty(shape)
            tp_g.ravel()[flat] = tp
            fp_g.ravel()[flat] = fp
            return ThresholdGrid(tuple(uniq), _enforce_monotone(tp_g), _enforce_monotone(fp_g), rule,
                                 tuple(threshold_cols))
    from scipy.interpolate import griddata
    axes = tuple(np.linspace(u[0], u[-1], bins) for u in uniq)
    if any(u.size < 2 for u in uniq):
        raise RatedDataError(f"'{name}': every threshold column needs at least two distinct values.")
    mesh = np.column_stack([m.ravel() for m in np.meshgrid(*axes, indexing="ij")])
    grids = []
    for v in (tp, fp):
        lin = griddata(t, v, mesh, method="linear")
        near = griddata(t, v, mesh, method="nearest")
        g = np.where(np.isnan(lin), near, lin).reshape(tuple(a.size for a in axes))
        grids.append(_enforce_monotone(g))
    return ThresholdGrid(axes, grids[0], grids[1], rule, tuple(threshold_cols))


def _is_number(x) -> bool:
    try:
        float(str(x))
        return True
    except ValueError:
        return False

