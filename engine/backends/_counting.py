"""What every counting backend shares beyond its query language: exact refinement of quantile bins, selection by rank.

The backends (:mod:`~engine.backends._duckdb`, :mod:`~engine.backends._spark`) only differ in how
they count; the arithmetic on the counts they return lives here, once:

* :func:`edge_objective` and :func:`binned_point`: above the distinct-score cap the scores are cut
  into quantile bins; the objective ``TP − λ·FP`` is exact at every bin edge and can exceed the
  counts above a bin by at most the bin's TP, so only the bins whose bound reaches the best edge
  are re-read score by score, and the operating point is the in-memory engine's.
* :func:`check_counted_rows`: the one check of counted rows (labels, scores, weights) and its messages,
  whatever counted them.
* :func:`check_grid_arguments`: the rule, spacing and bins every backend's joint-threshold grid takes.
* :func:`replicate_points`: bootstrap operating points from per-replicate counts, however counted.
* :func:`select_order_statistics`: exact order statistics (the ranks
  :func:`engine.pn.counting.inverted_cdf_ranks` reads) by counting in equal-width bins and refining
  only the bins that hold a wanted rank, given two backend callbacks.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ..errors import InputError, counted_rows, row_problem
from ..pn import OperatingPoint
from ..pn.counting import RULES, BootstrapPoint, check_target, points_at, replicate_hull, tie_tolerance

__all__ = [
    "check_counted_rows",
    "Locate",
    "BOOLEAN_TEXT",
    "edge_objective",
    "binned_point",
    "pick_ranks",
    "select_order_statistics",
    "FineBins",
    "ReadValues",
    "check_grid_arguments",
    "replicate_points",
]

#: text pandas reads as true/false: a column of only these (none empty) is a true/false column in memory, refused as
#: a score or a weight; backends that read a CSV file's columns as text check for it
BOOLEAN_TEXT = ("True", "TRUE", "true", "False", "FALSE", "false")
#: ``locate(kind, column, n)`` -> where the n rows with a problem of :data:`engine.errors.ROW_PROBLEMS` are, worded
#: as the memory engine words them (``"'maybe' at row 124 (row 1 = first data row)"``)
Locate = Callable[[str, str, int], str]
#: ``fine_bins(low, high)`` -> None (range too narrow) or (params, sorted [(bin, count, min, max), ...])
FineBins = Callable[[float, float], "tuple[dict, list[tuple[int, int, float, float]]] | None"]
#: ``read_values(params, bin_ids or None)`` -> (ascending distinct values, their counts) in [low, high]
ReadValues = Callable[[dict, "list[int] | None"], "tuple[np.ndarray, np.ndarray]"]


def edge_objective(tp_bin: np.ndarray, fp_bin: np.ndarray, target: float) -> tuple:
    """For a target: λ, tolerance, counts above each bin, and the bins that could hold the optimum.

    Parameters
    ----------
    tp_bin, fp_bin : numpy.ndarray
        Weighted positives / negatives per bin, bins in ascending score order (bin b holds the
        scores in ``[edges[b], edges[b+1])``).
    target : float
        Target marginal precision in (0, 1).

    Returns
    -------
    tuple
        ``(lam, tol, above_tp, above_fp, candidates)``: λ = m / (1 − m), the tie tolerance,
        TP and FP strictly above each bin, and the indices of the bins whose bound
        (counts above + the bin's TP) reaches the best edge objective.

    References
    ----------
    Robles et al., AAAI-MAKE 2020: the operating point maximises TP − λ·FP on the PN curve.
    """
    lam = target / (1 - target)
    tp_cum = np.cumsum(tp_bin[::-1])[::-1]  # counts at or above each bin's lower edge
    fp_cum = np.cumsum(fp_bin[::-1])[::-1]
    best = np.r_[tp_cum - lam * fp_cum, 0.0].max()  # "flag nothing" included
    above_tp, above_fp = np.r_[tp_cum[1:], 0.0], np.r_[fp_cum[1:], 0.0]
    tol = tie_tolerance(tp_cum[0], fp_cum[0], lam)
    candidates = np.flatnonzero(above_tp + tp_bin - lam * above_fp >= best - tol)
    return lam, tol, above_tp, above_fp, candidates


def binned_point(target: float, edge_terms: tuple, per_bin: dict) -> OperatingPoint:
    """The exact operating point from the candidate bins' score-level counts.

    Parameters
    ----------
    target : float
        Target marginal precision.
    edge_terms : tuple
        :func:`edge_objective`'s result for this target.
    per_bin : dict
        Bin -> (distinct scores descending, their TP, their FP) for (at least) the candidate bins.

    Returns
    -------
    OperatingPoint
        Threshold, TP and FP equal to the in-memory engine's; the marginal precisions around the
        point are NaN (not computed from bins).

    References
    ----------
    Robles et al., AAAI-MAKE 2020; ties go to the highest threshold, as :func:`engine.pn.sweep`.
    """
    lam, tol, above_tp, above_fp, candidates = edge_terms
    thresholds, tps, fps = [math.inf], [0.0], [0.0]
    for b in candidates:
        s, tp, fp = per_bin.get(int(b), (np.zeros(0),) * 3)
        thresholds.extend(s)
        tps.extend(above_tp[b] + np.cumsum(tp))
        fps.extend(above_fp[b] + np.cumsum(fp))
    order = np.argsort(-np.asarray(thresholds), kind="stable")
    th, tp, fp = (np.asarray(v)[order] for v in (thresholds, tps, fps))
    objective = tp - lam * fp
    i = int(np.flatnonzero(objective >= objective.max() - tol)[0])  # ties: the highest threshold
    return OperatingPoint(
        float(target),
        float(th[i]),
        float(tp[i]),
        float(fp[i]),
        float(tp[i] / (tp[i] + fp[i])) if tp[i] + fp[i] > 0 else math.nan,
        math.nan,
        math.nan,
        float(1 / lam),
    )


def pick_ranks(values: np.ndarray, counts: np.ndarray, below: int, ranks: np.ndarray) -> dict[int, float]:
    """Rank -> value, for ascending distinct values with counts whose first row has rank ``below``.

    Parameters
    ----------
    values, counts : numpy.ndarray
        Ascending distinct values and how many rows hold each.
    below : int
        Rows under ``values[0]`` (the rank of its first row).
    ranks : numpy.ndarray
        0-based ranks wanted, all within these rows.

    Returns
    -------
    dict
        Rank -> value.
    """
    ends = below + np.cumsum(counts)
    return {int(r): float(values[np.searchsorted(ends, r, side="right")]) for r in ranks}


def select_order_statistics(
    fine_bins: FineBins,
    read_values: ReadValues,
    ranks: np.ndarray,
    *,
    low: float,
    high: float,
    fetch_rows: int,
    max_depth: int,
    below: int = 0,
    depth: int = 0,
) -> dict[int, float]:
    """Exact order statistics by counting: equal-width bins, refined only where a wanted rank falls.

    Parameters
    ----------
    fine_bins : callable
        ``fine_bins(low, high)``: None when the range is too narrow for the bin arithmetic, else
        ``(params, rows)`` with ``rows`` the non-empty bins ``(bin, count, min, max)`` ascending.
    read_values : callable
        ``read_values(params, bin_ids)``: ascending distinct values in ``[params["low"],
        params["high"]]`` (only in the given bins unless None) and their counts.
    ranks : numpy.ndarray
        0-based ranks wanted, all among the values in ``[low, high]``.
    low, high : float
        Smallest and largest value in the part searched.
    fetch_rows : int
        A bin with at most this many rows is read value by value; larger bins are subdivided.
    max_depth : int
        Most subdivisions (then the values are read directly).
    below : int
        Rows with values under ``low``.
    depth : int
        Subdivisions so far.

    Returns
    -------
    dict
        Rank -> value, equal to ``numpy.sort(values)[rank]``.

    References
    ----------
    Hyndman & Fan (1996), definition 1; selection by counting (radix-style refinement).
    """
    ranks = np.unique(np.asarray(ranks, dtype=np.int64))
    if low == high:
        return {int(r): float(low) for r in ranks}
    fine = None if depth >= max_depth else fine_bins(low, high)
    if fine is None:
        values, counts = read_values({"low": low, "high": high}, None)
        return pick_ranks(values, counts, below, ranks)
    params, bins = fine
    ends = below + np.cumsum([c for _, c, _, _ in bins])
    which = np.searchsorted(ends, ranks, side="right")
    found, fetch = {}, {}
    for i in np.unique(which):
        b, c, lo, hi = bins[i]
        mine = ranks[which == i]
        if lo == hi:
            found.update({int(r): lo for r in mine})
        elif c <= fetch_rows:
            fetch[b] = (int(ends[i] - c), lo, hi, mine)
        else:
            found.update(
                select_order_statistics(
                    fine_bins,
                    read_values,
                    mine,
                    low=lo,
                    high=hi,
                    fetch_rows=fetch_rows,
                    max_depth=max_depth,
                    below=int(ends[i] - c),
                    depth=depth + 1,
                )
            )
    if fetch:
        values, counts = read_values(params, sorted(fetch))
        for start, lo, hi, mine in fetch.values():  # the bins are disjoint intervals of values
            inside = (values >= lo) & (values <= hi)
            found.update(pick_ranks(values[inside], counts[inside], start, mine))
    return found


def check_grid_arguments(scores, bins, rule: str, spacing: str) -> tuple[list, list[int], str]:
    """Validate a joint-threshold grid request the same way on every backend.

    Parameters
    ----------
    scores : sequence of str
        Score columns, one per classifier.
    bins : int or sequence of int
        Grid size per axis (>= 2), one for all or one per classifier.
    rule : {"or", "and"}
        How the classifiers combine (case-insensitive).
    spacing : {"quantile", "uniform"}
        Threshold spacing.

    Returns
    -------
    (list of str, list of int, str)
        The score columns, the bins per classifier and the rule in lower case.

    Raises
    ------
    InputError
        An unknown rule or spacing, no score column, or bins below 2 / of the wrong length.
    """
    rule = str(rule).lower()
    if rule not in RULES:
        raise InputError(f"rule must be one of {', '.join(RULES)}, got {rule!r}")
    if spacing not in ("quantile", "uniform"):
        raise InputError(f"spacing must be 'quantile' or 'uniform', got {spacing!r}")
    scores = list(scores)
    bins_list = [int(bins)] * len(scores) if np.ndim(bins) == 0 else [int(b) for b in bins]
    if not scores or len(bins_list) != len(scores) or min(bins_list) < 2:
        raise InputError("give at least one score column and --bins >= 2 (one value, or one per classifier)")
    return scores, bins_list, rule


def replicate_points(
    thresholds: np.ndarray, d_tp: np.ndarray, d_fp: np.ndarray, targets, level: float
) -> list[BootstrapPoint]:
    """Bootstrap operating points from per-replicate counts at each distinct score.

    Parameters
    ----------
    thresholds : numpy.ndarray, shape (m,)
        Distinct rated scores, descending.
    d_tp, d_fp : numpy.ndarray, shape (B, m)
        Each replicate's weighted positives / negatives at each score.
    targets : float or sequence of float
        Target marginal precisions in (0, 1).
    level : float
        Interval level in (0, 1).

    Returns
    -------
    list of BootstrapPoint
        One per target, as :meth:`engine.pn.Bootstrap.at` gives it for the same replicates.

    Raises
    ------
    InputError
        ``level`` outside (0, 1) or a target outside (0, 1).

    References
    ----------
    Robles et al., AAAI-MAKE 2020 (operating points on the hull); Hanley & MacGibbon (2006).
    """
    if not 0 < level < 1:
        raise InputError("level must be in (0, 1)")
    targets = np.atleast_1d(check_target(targets))
    replicates = [replicate_hull(thresholds, d_tp[r], d_fp[r])[0] for r in range(d_tp.shape[0])]
    return [points_at(replicates, float(t), level) for t in targets]


def check_counted_rows(
    values,
    *,
    where: str,
    scores,
    label: str,
    weight: str | None,
    positive_weight: bool = True,
    locate: Locate | None = None,
    booleans=(),
) -> tuple[int, int, int, list, list]:
    """Refuse counted rows the in-memory engine refuses, with one message set for every backend.

    Parameters
    ----------
    values : sequence
        One scan's counts, in this order: rows, unrated rows, rows with an unknown label; per score
        column, rows whose value is text that is not a number, rows with an infinite score, rated
        rows without a score, the rated minimum and maximum; then rows whose weight is text that
        is not a number, rated rows with a negative / missing / infinite weight, and the rated
        rows' total weight. Extra trailing values are ignored.
    where : str
        The rows' location as messages show it (``"'data/*.parquet'"``), when they cannot be located.
    scores : sequence of str
        The score columns, in the order of ``values``.
    label : str
        The label column.
    weight : str or None
        The weight column (None: every row weighs 1).
    positive_weight : bool, optional
        Refuse rated rows that all weigh 0.
    locate : callable, optional
        ``locate(kind, column, n)``: the first offending values and rows, worded as the memory engine
        words them; the message is then the memory engine's. Without it the rows are counted
        (``"(3 rows)"``) and ``where`` names the source.
    booleans : collection of str, optional
        Score or weight columns typed true/false (refused as the memory engine refuses them).

    Returns
    -------
    tuple
        ``(rows, rated, unrated, lows, highs)``: lows and highs are each score's rated minimum and maximum.

    Raises
    ------
    InputError
        Unknown labels, true/false, non-numeric, infinite or missing rated scores, bad weights, or no
        rated row; the message names the column, the rows (or how many) and the fix.
    """

    def problem(kind: str, column: str, n: int, role: str = "") -> InputError:
        if locate is None:
            return InputError(row_problem(kind, column, counted_rows(n), role=role, where=where))
        return InputError(row_problem(kind, column, locate(kind, column, int(n)), role=role))

    values = list(values)
    rows, unrated, bad_label = values[:3]
    if bad_label:
        raise problem("label", label, bad_label)
    lows, highs = [], []
    for j, name in enumerate(scores):
        not_number, infinite, missing, low, high = values[3 + 5 * j : 8 + 5 * j]
        if name in booleans:
            raise InputError(row_problem("boolean", name, role="score"))
        for kind, n in (("not_number", not_number), ("infinite", infinite), ("missing_score", missing)):
            if n:
                raise problem(kind, name, n, "score")
        lows.append(low)
        highs.append(high)
    w_not_number, w_bad, w_total = values[3 + 5 * len(scores) : 6 + 5 * len(scores)]
    if weight is not None and weight in booleans:
        raise InputError(row_problem("boolean", weight, role="weight"))
    for kind, n in (("not_number", w_not_number), ("weight", w_bad)):
        if n:
            raise problem(kind, str(weight), n, "weight")
    place = where if locate is None else ""  # located rows read as the memory engine's: no place named
    if rows == unrated:
        raise InputError(row_problem("no_rated", label, where=place))
    if positive_weight and w_total == 0:
        raise InputError(row_problem("zero_weight", weight, role="weight", where=place))
    return int(rows), int(rows - unrated), int(unrated), lows, highs
