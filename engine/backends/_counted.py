"""Results counted where the rows live, written once over the counting primitives of :mod:`._protocol`.

Robles et al. (AAAI-MAKE 2020) need only aggregated counts. Every function here opens the backend's
:class:`~engine.backends._protocol.Counter` for a source (:data:`COUNTERS` says which), refuses what the
in-memory engine refuses with the same messages on every backend, and computes from the counts:

* :func:`counted_curve`: the exact PN curve (every distinct rated score).
* :func:`counted_points`: operating points; with at most :data:`DISTINCT_CAP` distinct rated scores from
  the whole curve, above it from :data:`BINS` quantile bins refined exactly (only the bins whose bound
  reaches the best edge objective are re-read score by score), so threshold, TP and FP equal the
  in-memory engine's.
* :func:`counted_grid`: the joint threshold grid of k classifiers (OR / AND), axes found by counting
  (exact order statistics), cells by one group-by.
* :func:`replicate_counts` and :func:`counted_bootstrap`: per-replicate counts of the hashed Poisson
  bootstrap, equal to ``bootstrap(..., resample="poisson", ids=...)`` of the memory engine.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence

import numpy as np

from ..errors import InputError
from ..pn import OperatingPoint, ThresholdGrid, sweep, upper_hull
from ..pn.counting import (
    BootstrapPoint,
    PNCurve,
    axis_from_levels,
    check_grid_size,
    check_target,
    cumulative_counts,
    inverted_cdf_ranks,
)
from ._counting import (
    binned_point,
    check_counted_rows,
    check_grid_arguments,
    edge_objective,
    replicate_points,
    select_order_statistics,
)
from ._duckdb import DuckCounter, DuckSource, ScanStats
from ._protocol import FINE_BINS, MAX_REPLICATE_CELLS, Counter
from ._spark import SparkCounter, SparkSource

__all__ = [
    "COUNTERS",
    "open_counter",
    "checked",
    "counted_curve",
    "counted_points",
    "counted_grid",
    "replicate_counts",
    "counted_bootstrap",
    "order_statistics",
    "DISTINCT_CAP",
    "BINS",
]

#: most distinct rated scores read as a whole curve; above, quantile bins plus exact refinement
DISTINCT_CAP = 2_000_000
#: quantile bins used above the cap
BINS = 4096
#: a fine bin with at most this many rows is read value by value; larger bins are subdivided
FETCH_ROWS = 1_000_000
#: most subdivisions of one bin (doubles have 64 bits; each pass resolves about 16)
MAX_DEPTH = 64

#: source type -> the counter its backend opens: the one place a counting backend is added
COUNTERS: dict[type, Callable[..., Counter]] = {DuckSource: DuckCounter, SparkSource: SparkCounter}


def open_counter(
    source, scores: Sequence[str], label: str, weight: str | None, id_column: str | None = None, *, ids: bool = False
) -> Counter:
    """The counter of the source's backend over these columns (``ids``: with row ids for replicates)."""
    for kind, counter in COUNTERS.items():
        if isinstance(source, kind):
            return counter(source, list(scores), label, weight, id_column=id_column, ids=ids)
    raise InputError(f"No counting backend reads {type(source).__name__}; use one of {', '.join(map(str, COUNTERS))}.")


def checked(counter: Counter, *, positive_weight: bool, distinct: bool = False) -> tuple[int, int, int, list, list]:
    """(rows, rated, unrated, lows, highs) after refusing what the memory engine refuses, one message set."""
    values = counter.check_counts(distinct)
    return check_counted_rows(
        values,
        where=counter.where,
        scores=counter.scores,
        label=counter.label,
        weight=counter.weight,
        positive_weight=positive_weight,
        locate=counter.locate,
        booleans=counter.boolean_columns(values),
    )


def _too_many(distinct: int) -> InputError:
    return InputError(
        f"{distinct:,} distinct scores: more than {DISTINCT_CAP:,} are not read as a whole "
        "curve; operating points are still exact (quantile bins with exact refinement)."
    )


def counted_curve(source, *, score: str, label: str, weight: str | None = None) -> tuple[PNCurve, ScanStats]:
    """The exact PN curve (every distinct rated score) counted where the rows are, and what was scanned.

    Parameters
    ----------
    source : DuckSource or SparkSource
        Where the rows are.
    score, label : str
        Column of the classifier's scores and of the raters' labels (the spellings of
        :data:`engine.io.LABEL_VALUES`; empty = unrated).
    weight : str, optional
        Column of non-negative row weights; every row weighs 1 when None.

    Returns
    -------
    (PNCurve, ScanStats)
        The curve at every distinct rated score, equal to :func:`engine.pn.pn_curve` on the same rows.

    Raises
    ------
    InputError
        Columns missing, bad labels / scores / weights, or more than :data:`DISTINCT_CAP` distinct scores.

    References
    ----------
    Robles et al., AAAI-MAKE 2020: the PN curve is TP and FP at or above each threshold.
    """
    started = time.perf_counter()
    with open_counter(source, [score], label, weight) as counter:
        rows, rated, unrated, _, _ = checked(counter, positive_weight=False, distinct=True)
        distinct, grouped = counter.score_counts(DISTINCT_CAP)
        if grouped is None:
            raise _too_many(distinct)
    s, tp, fp = grouped
    stats = ScanStats(counter.backend, rows, rated, unrated, distinct, time.perf_counter() - started)
    return PNCurve(s, np.cumsum(tp), np.cumsum(fp)), stats


def counted_points(
    source,
    *,
    score: str,
    label: str,
    targets,
    weight: str | None = None,
    distinct_cap: int = DISTINCT_CAP,
    bins: int = BINS,
) -> tuple[list[OperatingPoint], ScanStats]:
    """Operating points for target marginal precisions, counted where the rows are.

    Parameters
    ----------
    source : DuckSource or SparkSource
        Where the rows are.
    score, label : str
        Column of the scores and of the labels (empty = unrated).
    targets : float or sequence of float
        Target marginal precisions m in (0, 1); the objective is TP − λ·FP with λ = m / (1 − m).
    weight : str, optional
        Column of non-negative row weights; every row weighs 1 when None.
    distinct_cap, bins : int, optional
        Above ``distinct_cap`` distinct scores, ``bins`` quantile bins plus exact refinement.

    Returns
    -------
    (list of OperatingPoint, ScanStats)
        Equal (threshold, TP, FP) to the in-memory engine's on the same rows; in binned mode the
        marginal precisions around the point are not computed (NaN).

    Raises
    ------
    InputError
        A target outside (0, 1), columns missing, bad labels / scores / weights, or no rated row.

    References
    ----------
    Robles et al., AAAI-MAKE 2020: the operating point maximises TP − λ·FP on the PN curve.
    """
    started = time.perf_counter()
    targets = np.atleast_1d(check_target(targets))
    with open_counter(source, [score], label, weight) as counter:
        rows, rated, unrated, lows, highs = checked(counter, positive_weight=False, distinct=True)
        distinct, grouped = counter.score_counts(distinct_cap)
        if grouped is not None:
            s, tp, fp = grouped
            points = sweep(targets=targets, hull=upper_hull(PNCurve(s, np.cumsum(tp), np.cumsum(fp))))
        else:
            points = _binned_points(counter, targets, bins, lows[0], highs[0])
    seconds = time.perf_counter() - started
    return points, ScanStats(counter.backend, rows, rated, unrated, distinct, seconds, grouped is None)


def _binned_points(counter: Counter, targets: np.ndarray, bins: int, low: float, high: float) -> list[OperatingPoint]:
    """Quantile bins (any edges are exact), then only the candidate bins re-read score by score."""
    quantiles = counter.score_quantiles(np.linspace(0, 1, bins + 1)[:-1])
    edges = np.unique(np.r_[low, np.asarray(quantiles, dtype=np.float64)])
    edges = np.r_[edges, np.nextafter(high, math.inf)]
    counts = counter.bin_counts(edges, None)
    b = np.asarray(counts["b"], dtype=np.int64)
    tp_bin = np.bincount(b, weights=np.asarray(counts["tp"], dtype=float), minlength=edges.size - 1)
    fp_bin = np.bincount(b, weights=np.asarray(counts["fp"], dtype=float), minlength=edges.size - 1)
    terms = [edge_objective(tp_bin, fp_bin, float(t)) for t in targets]
    wanted = sorted({int(c) for t in terms for c in t[4]}) or [0]  # never empty: the best edge's bin qualifies
    cols = counter.bin_counts(edges, wanted)
    per_bin = {}
    for bin_id in wanted:
        mask = np.asarray(cols["b"]) == bin_id
        s = np.asarray(cols["s"], dtype=np.float64)[mask]
        order = np.argsort(-s, kind="stable")
        per_bin[bin_id] = tuple(np.asarray(cols[k], dtype=np.float64)[mask][order] for k in ("s", "tp", "fp"))
    return [binned_point(float(t), term, per_bin) for t, term in zip(targets, terms)]


def order_statistics(
    fine_bins: Callable[[str, dict], list],
    value_counts: Callable[[str, dict, list[int] | None], tuple[np.ndarray, np.ndarray]],
    col: str,
    ranks: np.ndarray,
    *,
    low: float,
    high: float,
) -> dict[int, float]:
    """Exact order statistics (0-based ``ranks`` among the values of ``col``) from two counting primitives.

    Parameters
    ----------
    fine_bins, value_counts : callable
        A counter's :meth:`~engine.backends._protocol.Counter.fine_bins` and
        :meth:`~engine.backends._protocol.Counter.value_counts` (or the same queries over other rows).
    col : str
        The column.
    ranks : numpy.ndarray
        Ranks wanted, all among the values in ``[low, high]``.
    low, high : float
        The smallest and largest value.

    Returns
    -------
    dict
        Rank -> value, as :func:`engine.backends._counting.select_order_statistics` (which this sets up).
    """

    def bins(lo: float, hi: float):
        scale = FINE_BINS / (hi * 0.5 - lo * 0.5)  # halves: no overflow for any finite low, high
        if not math.isfinite(scale):
            return None
        params = {"low": lo, "high": hi, "scale": scale, "top": FINE_BINS - 1}
        return params, sorted(fine_bins(col, params))

    return select_order_statistics(
        bins,
        lambda params, ids: value_counts(col, params, ids),
        ranks,
        low=low,
        high=high,
        fetch_rows=FETCH_ROWS,
        max_depth=MAX_DEPTH,
    )


def _levels(counter: Counter, j: int, n: int, low: float, high: float, bins: int, spacing: str) -> np.ndarray:
    """The score levels of classifier j's axis, as :func:`engine.pn.threshold_grid` defines them."""
    if spacing == "uniform":
        return np.linspace(low, high, bins - 1)
    ranks = inverted_cdf_ranks(n, bins - 1)
    found = order_statistics(counter.fine_bins, counter.value_counts, f"s{j}", ranks, low=low, high=high)
    return np.array([found[int(r)] for r in ranks])


def counted_grid(
    source,
    *,
    scores: Sequence[str],
    label: str,
    weight: str | None = None,
    bins: int | Sequence[int] = 100,
    rule: str = "or",
    spacing: str = "quantile",
) -> tuple[ThresholdGrid, ScanStats]:
    """TP and FP on the joint threshold grid of k classifiers, counted where the rows are.

    Parameters
    ----------
    source : DuckSource or SparkSource
        Where the rows are.
    scores : sequence of str
        Score columns, one per classifier (k >= 1).
    label, weight : str
        Label column (empty = unrated: counted, reported, left out) and optional weight column.
    bins : int or sequence of int
        Thresholds per axis, as for :func:`engine.pn.threshold_grid`.
    rule : {"or", "and"}
    spacing : {"quantile", "uniform"}

    Returns
    -------
    (ThresholdGrid, ScanStats)
        The grid :func:`engine.pn.threshold_grid` gives on the rated rows (axes bit for bit; counts
        equal whenever the weighted sums are exact in float64); ``distinct_scores`` of the statistics
        holds the number of non-empty histogram cells.

    Raises
    ------
    InputError
        Unreadable columns, bad labels / scores / weights, no rated rows, or too many grid cells.

    References
    ----------
    Robles et al., AAAI-MAKE 2020, "For an ensemble of classifiers", eq. (1).
    """
    started = time.perf_counter()
    scores, bins_list, rule = check_grid_arguments(scores, bins, rule, spacing)
    with open_counter(source, scores, label, weight) as counter:
        rows, rated, unrated, lows, highs = checked(counter, positive_weight=True)
        axes = tuple(
            axis_from_levels(_levels(counter, j, rated, lows[j], highs[j], bins_list[j], spacing), lows[j], highs[j])
            for j in range(len(scores))
        )
        check_grid_size([a.size for a in axes])
        out = counter.cell_counts(axes)
    shape = tuple(a.size + 1 for a in axes)
    index = tuple(np.asarray(out[f"e{j}"], dtype=np.int64) for j in range(len(axes)))
    hist_tp, hist_fp = np.zeros(shape), np.zeros(shape)
    hist_tp[index] = np.asarray(out["tp"], dtype=np.float64)
    hist_fp[index] = np.asarray(out["fp"], dtype=np.float64)
    seconds = time.perf_counter() - started
    grid = ThresholdGrid(
        axes=axes,
        tp=cumulative_counts(hist_tp, rule, hist_tp.sum()),
        fp=cumulative_counts(hist_fp, rule, hist_fp.sum()),
        rule=rule,
        score_names=tuple(scores),
        seconds=seconds,
    )
    return grid, ScanStats(counter.backend, rows, rated, unrated, int(index[0].size), seconds)


def replicate_counts(
    source,
    *,
    score: str,
    label: str,
    weight: str | None = None,
    id_column: str | None = None,
    n_boot: int = 200,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, ScanStats]:
    """Per replicate and distinct rated score, the weighted positives and negatives of the Poisson bootstrap.

    Parameters
    ----------
    source : DuckSource or SparkSource
        Where the rows are.
    score, label, weight : str
        Column names (empty label = unrated: counted, left out).
    id_column : str, optional
        Integer row ids; default the row's position in a single Parquet file.
    n_boot, seed : int
        Replicates 0 .. n_boot - 1 of the seed's streams.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray, numpy.ndarray, ScanStats)
        Thresholds (distinct rated scores, descending), ``d_tp`` and ``d_fp`` of shape
        (n_boot, thresholds): equal to ``poisson_counts(ids, range(n_boot), seed) @`` the rows'
        ``w*y`` / ``w*(1-y)`` grouped by score.

    Raises
    ------
    InputError
        No row id, bad ids (missing, negative, not integers), bad labels / scores / weights.

    References
    ----------
    Hanley & MacGibbon (2006), the Poisson bootstrap; :mod:`engine.pn._replicates`.
    """
    started = time.perf_counter()
    if n_boot < 1:
        raise InputError("the number of bootstrap replicates must be >= 1")
    with open_counter(source, [score], label, weight, id_column, ids=True) as counter:
        rows, rated, unrated, _, _ = checked(counter, positive_weight=False)
        bad = counter.bad_ids()
        if bad:
            raise InputError(
                f"Column '{id_column}' of {counter.where}: {bad:,} rated rows have a missing, negative or "
                "non-integer id. Row ids must be integers >= 0."
            )
        _, grouped = counter.score_counts(None)
        thresholds = grouped[0] if grouped is not None else np.zeros(0)
        chunk = max(1, MAX_REPLICATE_CELLS // thresholds.size)
        parts = [
            _replicate_chunk(counter, thresholds, np.arange(start, min(n_boot, start + chunk)), seed)
            for start in range(0, n_boot, chunk)
        ]
    d_tp, d_fp = np.vstack([p[0] for p in parts]), np.vstack([p[1] for p in parts])
    stats = ScanStats(counter.backend, rows, rated, unrated, thresholds.size, time.perf_counter() - started)
    return thresholds, d_tp, d_fp, stats


def _replicate_chunk(counter: Counter, thresholds: np.ndarray, replicates: np.ndarray, seed: int):
    """(tp, fp) of shape (len(replicates), len(thresholds)) for one chunk of replicates: one scan."""
    out = counter.replicate_counts(replicates, seed)
    row = np.searchsorted(replicates, np.asarray(out["r"]).astype(np.int64))
    col = np.searchsorted(-thresholds, -np.asarray(out["s"]).astype(np.float64))
    d_tp, d_fp = np.zeros((replicates.size, thresholds.size)), np.zeros((replicates.size, thresholds.size))
    d_tp[row, col] = np.asarray(out["tp"]).astype(np.float64)
    d_fp[row, col] = np.asarray(out["fp"]).astype(np.float64)
    return d_tp, d_fp


def counted_bootstrap(
    source,
    *,
    score: str,
    label: str,
    targets: Sequence[float],
    weight: str | None = None,
    id_column: str | None = None,
    n_boot: int = 200,
    level: float = 0.95,
    seed: int = 0,
) -> tuple[list[BootstrapPoint], ScanStats]:
    """Bootstrap distributions (and intervals) of the operating points, replicates counted where the rows are.

    Parameters
    ----------
    source : DuckSource or SparkSource
        Where the rows are.
    score, label, weight, id_column : str
        Columns, as for :func:`replicate_counts`.
    targets : sequence of float
        Target marginal precisions.
    n_boot, seed : int
        Replicates and their seed.
    level : float
        Interval level in (0, 1).

    Returns
    -------
    (list of BootstrapPoint, ScanStats)
        Equal to ``bootstrap(scores, labels, weights, resample="poisson", ids=ids, seed=seed,
        n_boot=n_boot, level=level).at(target)`` for the same rows and ids.

    References
    ----------
    Robles et al., AAAI-MAKE 2020 (operating points); Hanley & MacGibbon (2006).
    """
    if not 0 < level < 1:  # before the scan
        raise InputError("level must be in (0, 1)")
    check_target(targets)
    thresholds, d_tp, d_fp, stats = replicate_counts(
        source, score=score, label=label, weight=weight, id_column=id_column, n_boot=n_boot, seed=seed
    )
    return replicate_points(thresholds, d_tp, d_fp, targets, level), stats
