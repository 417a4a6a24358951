"""Joint threshold grids for two or more classifiers.

Robles, Zaidouni, Mavromoustaki & Refael, *Threshold Optimization in Multiple Binary Classifiers for Extreme Rare Events using Predicted Positive Data*, AAAI-MAKE 2020 (CEUR-WS Vol-2600, paper 19), "For an ensemble of classifiers", eq. (1): with k classifiers the PN curve
becomes the map ``t -> (FP(t), TP(t))`` on the threshold space
``T1 x ... x Tk``. A document is predicted positive iff **any** (rule ``"or"``,
the paper's union) or **all** (rule ``"and"``) of its scores are >= their
thresholds. TP and FP are tabulated on a grid of thresholds with one
k-dimensional weighted histogram and cumulative sums (no loop over cells or
documents).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError, RatedDataError

__all__ = [
    "ThresholdGrid",
    "threshold_grid",
    "make_axes",
    "RULES",
    "MAX_GRID_CELLS",
    "inverted_cdf_ranks",
    "axis_from_levels",
    "check_grid_size",
    "cumulative_counts",
]

RULES = ("or", "and")

#: most cells of a joint threshold grid (each cell holds two float64 counts and a histogram bin)
MAX_GRID_CELLS = 20_000_000


@dataclass(frozen=True)
class ThresholdGrid:
    """TP and FP on a grid of joint thresholds.

    Attributes
    ----------
    axes : tuple of numpy.ndarray
        ``axes[j]`` is the strictly ascending threshold array of classifier j, starting
        at its rating floor; the last value lies just above the highest score, so the
        all-highest corner flags nothing.
    tp, fp : numpy.ndarray of float64, shape (len(axes[0]), ..., len(axes[k-1]))
        Weighted rated positives / negatives flagged at thresholds
        ``(axes[0][i0], axes[1][i1], ...)`` under ``rule``.
    rule : {"or", "and"}
        A document is flagged when any (``or``) or all (``and``) of its scores reach
        their thresholds.
    score_names : tuple of str
        Classifier names (``t1``, ``t2`` ... when empty).
    seconds : float
        Seconds :func:`threshold_grid` took to tabulate the counts (0 for a grid read
        from a file).
    """

    axes: tuple[np.ndarray, ...]
    tp: np.ndarray
    fp: np.ndarray
    rule: str
    score_names: tuple[str, ...] = ()
    #: seconds :func:`threshold_grid` took to tabulate the counts (0 when the grid was read from a file)
    seconds: float = field(default=0.0, compare=False)

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
        """Threshold vector of a (k,) integer grid index or an (m, k) array of them.

        Parameters
        ----------
        index : array_like of int, shape (k,) or (m, k)
            Grid indices, one per axis.

        Returns
        -------
        numpy.ndarray of float64, shape (k,) or (m, k)
            The thresholds at the indices.
        """
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


def inverted_cdf_ranks(n: int, levels: int) -> np.ndarray:
    """0-based ranks of the sorted values that :func:`make_axes` reads as its quantile levels.

    ``numpy.quantile(x, np.linspace(0, 1, levels), method="inverted_cdf")`` of n values
    is ``sorted(x)[r]`` with these ranks (numpy's own arithmetic: virtual index
    ``n*q - 1``, kept when integral, else rounded up; clipped at 0). A backend that
    can count but not sort (DuckDB out of core) finds the same order statistics by rank.

    Parameters
    ----------
    n : int
        Number of values (rated documents).
    levels : int
        Number of quantile levels (``bins - 1``).

    Returns
    -------
    numpy.ndarray
        ``levels`` non-decreasing integer ranks in ``[0, n - 1]``.

    References
    ----------
    Hyndman & Fan (1996), "Sample quantiles in statistical packages", definition 1 (inverted CDF).
    """
    virtual = n * np.linspace(0.0, 1.0, levels) - 1
    previous = np.floor(virtual)
    ranks = np.where(virtual - previous == 0, previous, previous + 1).astype(np.intp)
    ranks[ranks < 0] = 0
    return ranks


def axis_from_levels(levels, low: float, high: float) -> np.ndarray:
    """One threshold axis from its score levels: deduplicated, starting at ``low``, ending just above ``high``.

    Parameters
    ----------
    levels : array_like
        Score levels (quantiles or evenly spaced values), any order, duplicates allowed.
    low, high : float
        Lowest and highest rated score of the classifier.

    Returns
    -------
    numpy.ndarray
        Strictly ascending: ``unique(levels)`` with its first value set to ``low``, then ``nextafter(high, inf)``.

    References
    ----------
    Robles et al., AAAI-MAKE 2020: the threshold space starts at the rating floor.
    """
    vals = np.unique(np.asarray(levels, dtype=np.float64))
    vals[0] = low  # start exactly at the rating floor
    return np.r_[vals, np.nextafter(high, np.inf)]


def make_axes(scores, *, bins: int | Sequence[int] = 100, spacing: str = "quantile") -> tuple[np.ndarray, ...]:
    """Ascending threshold axes, one per classifier, from the rating floor upward.

    ``spacing="quantile"`` (default) puts the thresholds at score quantiles so the
    rare top tail is resolved; ``"uniform"`` spaces them evenly. Each axis holds at
    most ``bins`` values: ``bins - 1`` (deduplicated) score levels starting at the
    lowest score, plus one value just above the highest score.

    Definition (what :func:`engine.backends._counted.counted_grid` reproduces
    in SQL): over the rated documents (unweighted: weights do not move the axes), the
    quantile levels are the order statistics at :func:`inverted_cdf_ranks`
    ``(n, bins - 1)``; the uniform levels ``linspace(min, max, bins - 1)``; then
    :func:`axis_from_levels`.

    Parameters
    ----------
    scores : array_like of float, shape (n, k)
        Scores of the rated documents, one column per classifier.
    bins : int or sequence of int, optional
        Most thresholds per axis (>= 2), one for all classifiers or one each.
    spacing : {"quantile", "uniform"}, optional
        Thresholds at score quantiles or evenly spaced between the lowest and highest score.

    Returns
    -------
    tuple of numpy.ndarray
        k strictly ascending axes.

    Raises
    ------
    ValueError
        ``bins`` below 2 or of the wrong length, or an unknown ``spacing``.
    """
    s = np.asarray(scores, dtype=np.float64)
    k = s.shape[1]
    bins_list = [int(bins)] * k if np.ndim(bins) == 0 else [int(b) for b in bins]  # type: ignore[arg-type, union-attr]
    if len(bins_list) != k or min(bins_list) < 2:
        raise InputError("bins must be >= 2 (one value per classifier, or one for all)")
    if spacing not in ("quantile", "uniform"):
        raise InputError("spacing must be 'quantile' or 'uniform'")
    axes = []
    for j in range(k):
        col = s[:, j]
        levels = bins_list[j] - 1
        if spacing == "quantile":
            vals = np.quantile(col, np.linspace(0.0, 1.0, levels), method="inverted_cdf")
        else:
            vals = np.linspace(col.min(), col.max(), levels)
        axes.append(axis_from_levels(vals, col.min(), col.max()))
    return tuple(axes)


def check_grid_size(sizes: Sequence[int]) -> None:
    """Refuse a grid of more than :data:`MAX_GRID_CELLS` histogram cells, saying how many bins would fit.

    Parameters
    ----------
    sizes : sequence of int
        Thresholds per axis.

    Raises
    ------
    RatedDataError
        With the grid's size and the largest ``--bins`` that fits.
    """
    k = len(sizes)
    cells = float(np.prod([m + 1 for m in sizes], dtype=float))
    if cells > MAX_GRID_CELLS:
        per_axis = int(MAX_GRID_CELLS ** (1 / k)) - 1
        raise RatedDataError(
            f"A grid of {' x '.join(map(str, sizes))} thresholds for {k} classifiers has "
            f"{cells:,.0f} cells; at most {MAX_GRID_CELLS:,} fit in memory. Use fewer classifiers "
            f"or at most {per_axis} thresholds per classifier (the grid size, --bins)."
        )


def cumulative_counts(hist: np.ndarray, rule: str, total: float) -> np.ndarray:
    """Flagged counts on the threshold grid from the histogram of per-axis bin indices.

    Parameters
    ----------
    hist : numpy.ndarray
        Shape ``(m_1 + 1, ..., m_k + 1)``: weighted count of documents whose bin index
        (number of axis-j thresholds <= the score) is ``(i_1, ..., i_k)``. Overwritten.
    rule : {"or", "and"}
    total : float
        Sum of ``hist`` (the caller's own sum, so every backend can match the memory engine's).

    Returns
    -------
    numpy.ndarray
        Shape ``(m_1, ..., m_k)``: weighted documents flagged at each threshold vector.

    References
    ----------
    Robles et al., AAAI-MAKE 2020, "For an ensemble of classifiers", eq. (1).
    """
    sizes = tuple(m - 1 for m in hist.shape)
    if rule == "or":
        for j in range(hist.ndim):
            np.cumsum(hist, axis=j, out=hist)
        out = total - hist[tuple(slice(0, m) for m in sizes)]
    else:
        for j in range(hist.ndim):
            hist = np.flip(np.cumsum(np.flip(hist, axis=j), axis=j), axis=j)
        out = np.ascontiguousarray(hist[tuple(slice(1, m + 1) for m in sizes)])
    # cumulative sums of non-negative weights: clip the -1e-13 rounding residue
    np.maximum(out, 0.0, out=out)
    return out


def threshold_grid(
    scores,
    labels,
    weights=None,
    *,
    bins: int | Sequence[int] = 100,
    rule: str = "or",
    spacing: str = "quantile",
    axes: Sequence[np.ndarray] | None = None,
    score_names: Sequence[str] = (),
) -> ThresholdGrid:
    """Tabulate TP and FP on a k-dimensional threshold grid (any k >= 1).

    For document d let ``idx_j(d)`` = number of axis-j thresholds <= its score, so
    the document passes threshold ``axes[j][i]`` iff ``i < idx_j(d)``.

    * OR: the document is *not* flagged at grid index ``i`` iff ``idx_j(d) <= i_j``
      for all j: a cumulative sum of the histogram of ``idx`` along every axis;
      flagged = total - not flagged.
    * AND: flagged iff ``idx_j(d) >= i_j + 1`` for all j: a reversed cumulative sum.

    Cost: O(n k) for the bin indices + O(cells) for the cumulative sums.

    Parameters
    ----------
    scores : array_like of float, shape (n, k)
        Scores of the rated documents, one column per classifier (finite).
    labels : array_like of {0, 1}, shape (n,)
        1 = true positive, 0 = false positive.
    weights : array_like of float, shape (n,), optional
        Non-negative document weights; 1 each when None.
    bins : int or sequence of int, optional
        Thresholds per axis when ``axes`` is None (see :func:`make_axes`).
    rule : {"or", "and"}, optional
        ``or`` flags a document when any score reaches its threshold (the paper's union),
        ``and`` when all do.
    spacing : {"quantile", "uniform"}, optional
        Axis spacing when ``axes`` is None.
    axes : sequence of numpy.ndarray, optional
        Given threshold axes, one strictly ascending array (>= 2 values) per classifier.
    score_names : sequence of str, optional
        Classifier names kept on the grid.

    Returns
    -------
    ThresholdGrid
        TP and FP at every joint threshold, eq. (1) tabulated.

    Raises
    ------
    RatedDataError
        Invalid scores, labels or weights, or more than :data:`MAX_GRID_CELLS` cells.
    ValueError
        Unknown rule, or axes of the wrong number or not strictly ascending.

    References
    ----------
    .. [1] Robles, E., Zaidouni, F., Mavromoustaki, A. & Refael, P. (2020). *Threshold
       Optimization in Multiple Binary Classifiers for Extreme Rare Events using Predicted
       Positive Data.* AAAI-MAKE 2020, CEUR-WS Vol-2600, paper 19: "For an ensemble of classifiers", eq. (1).

    Examples
    --------
    >>> from engine import load_rated, threshold_grid
    >>> data = load_rated("sample_data/synthetic_rare_events.csv.gz")
    >>> grid = threshold_grid(data.scores, data.labels, bins=20, rule="or", score_names=data.score_names)
    >>> grid.tp.shape, grid.rule
    ((20, 20), 'or')
    """
    started = time.perf_counter()
    s, y, w = _check_scores(scores, labels, weights)
    rule = str(rule).lower()
    if rule not in RULES:
        raise InputError(f"rule must be one of {RULES}, got {rule!r}")
    if axes is None:
        axes = make_axes(s, bins=bins, spacing=spacing)
    axes = tuple(np.asarray(a, dtype=np.float64) for a in axes)
    k = s.shape[1]
    if len(axes) != k:
        raise InputError(f"{len(axes)} axes for {k} classifiers")
    for a in axes:
        if a.ndim != 1 or a.size < 2 or np.any(np.diff(a) <= 0):
            raise InputError("each axis must be a strictly ascending 1-D array of at least 2 thresholds")
    sizes = tuple(a.size for a in axes)
    hist_shape = tuple(m + 1 for m in sizes)
    check_grid_size(sizes)
    flat = np.zeros(s.shape[0], dtype=np.int64)
    for j in range(k):
        idx = np.searchsorted(axes[j], s[:, j], side="right")
        flat = flat * hist_shape[j] + idx
    n_cells = int(np.prod(hist_shape))
    out = {}
    for key, wt in (("tp", w * y), ("fp", w * (1.0 - y))):
        hist = np.bincount(flat, weights=wt, minlength=n_cells).reshape(hist_shape)
        out[key] = cumulative_counts(hist, rule, wt.sum())
    return ThresholdGrid(
        axes=axes,
        tp=out["tp"],
        fp=out["fp"],
        rule=rule,
        score_names=tuple(score_names),
        seconds=time.perf_counter() - started,
    )
