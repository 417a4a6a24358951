"""Joint threshold grids (k classifiers, OR / AND) counted by DuckDB: only per-cell counts leave the database.

Robles et al. (AAAI-MAKE 2020), "For an ensemble of classifiers": TP and FP on the
threshold space ``T1 x ... x Tk`` come from one k-dimensional histogram of the
documents' per-axis bin indices and cumulative sums. Here DuckDB computes the
histogram over Parquet / CSV paths or globs, or a table of a DuckDB database file
(out of core); numpy does the cumulative sums with the same code as
:func:`engine.pn.threshold_grid`, so the :class:`~engine.pn.ThresholdGrid`
is the in-memory engine's.

**Axes** are :func:`engine.pn._grid.make_axes`'s, by its definition: per classifier,
over the rated rows (unweighted), the order statistics at ranks
:func:`~engine.pn._grid.inverted_cdf_ranks` ``(n, bins - 1)`` (or ``linspace(min, max,
bins - 1)`` for uniform spacing), then :func:`~engine.pn._grid.axis_from_levels`. The
order statistics are found by counting, not sorting (bounded memory): a histogram of
:data:`FINE_BINS` equal-width bins over ``[min, max]`` with exact counts, min and max
per bin says which bin holds each rank; bins holding one value are done, bins with at
most :data:`FETCH_ROWS` rows are read value by value (``GROUP BY score``), larger
ones are subdivided the same way.

**Cells**: each rated score becomes its bin index (number of axis levels <= score) by
a branchless binary search over the axis levels (a list parameter, one comparison per
halving), then ONE ``GROUP BY`` over the k indices sums ``w*y`` and ``w*(1-y)``.

**Exactness**: axes are equal to the memory engine's bit for bit; the counts are equal
whenever the weighted sums are exact in float64 (no weights, or integer / dyadic
weights with totals below 2**53); with arbitrary real weights they differ only by
the order of float additions (relative 1e-15).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

import numpy as np

from ..pn._grid import ThresholdGrid, axis_from_levels, check_grid_size, cumulative_counts, inverted_cdf_ranks
from .counting import check_grid_arguments, select_order_statistics
from .duckdb import NUMERIC_TYPES, DuckSource, ScanStats, check_grid_rows, grid_view  # noqa: F401 (re-exported)

__all__ = ["duckdb_threshold_grid", "order_statistics", "grid_view", "check_grid_rows", "FINE_BINS", "FETCH_ROWS"]

#: equal-width bins per pass when order statistics are located by counting
FINE_BINS = 1 << 16
#: a bin with at most this many rated rows is read value by value; larger bins are subdivided
FETCH_ROWS = 1_000_000
#: most subdivisions of one bin (doubles have 64 bits; each pass resolves about 16)
MAX_DEPTH = 64


def _bin_sql(col: str) -> str:
    """Equal-width bin of a score over [$low, $high]: monotone in the score, so every bin is an interval of scores."""
    return f"least({FINE_BINS - 1}, floor(({col} * 0.5 - $low * 0.5) * $scale))::BIGINT"


def _fine_bins(con, col: str, low: float, high: float):
    """Equal-width bins over [low, high] of the rated scores: (parameters, sorted rows (bin, count, min, max)).

    ``None`` when the range is too narrow for the arithmetic (then the values are read directly).
    """
    scale = FINE_BINS / (high * 0.5 - low * 0.5)  # halves: no overflow for any finite low, high
    if not math.isfinite(scale):
        return None
    params = {"low": low, "high": high, "scale": scale}
    out = con.execute(
        f"SELECT {_bin_sql(col)} AS b, count(*), min({col}), max({col}) FROM grid_rows WHERE y IS NOT "
        f"NULL AND {col} BETWEEN $low AND $high GROUP BY b ORDER BY b",
        params,
    ).fetchall()
    return params, [(int(b), int(c), float(lo), float(hi)) for b, c, lo, hi in out]


def _values(con, col: str, params: dict, bin_ids: list[int] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rated scores in [$low, $high] (only in the given fine bins, if any) and their counts, ascending."""
    where = f"y IS NOT NULL AND {col} BETWEEN $low AND $high"
    if bin_ids is not None:
        where += f" AND list_contains($bins, {_bin_sql(col)})"
        params = {**params, "bins": [int(b) for b in bin_ids]}
    out = con.execute(
        f"SELECT {col}, count(*) FROM grid_rows WHERE {where} GROUP BY {col} ORDER BY {col}", params
    ).fetchnumpy()
    keys = list(out)
    return np.asarray(out[keys[0]], dtype=np.float64), np.asarray(out[keys[1]], dtype=np.int64)


def order_statistics(
    con, col: str, ranks: np.ndarray, *, low: float, high: float, below: int = 0, depth: int = 0
) -> dict[int, float]:
    """Exact order statistics (0-based ``ranks`` among the rated scores of ``col``) by counting in DuckDB.

    Parameters
    ----------
    con : duckdb.DuckDBPyConnection
        With the view ``grid_rows`` (column ``col``, label ``y``).
    col : str
        Score column of the view (``s0``, ``s1`` ...).
    ranks : numpy.ndarray
        Ranks wanted, all among the rows with scores in ``[low, high]``.
    low, high : float
        The smallest and largest rated score in the part searched.
    below : int
        Rated rows with scores under ``low``.
    depth : int
        Subdivisions so far (the search reads values directly after :data:`MAX_DEPTH`).

    Returns
    -------
    dict
        Rank -> score, equal to ``numpy.sort(scores)[rank]``.

    References
    ----------
    Hyndman & Fan (1996), definition 1; selection by counting (radix-style refinement).
    """
    return select_order_statistics(
        lambda lo, hi: _fine_bins(con, col, lo, hi),
        lambda params, bin_ids: _values(con, col, params, bin_ids),
        ranks,
        low=low,
        high=high,
        fetch_rows=FETCH_ROWS,
        max_depth=MAX_DEPTH,
        below=below,
        depth=depth,
    )


def _levels(con, j: int, n: int, low: float, high: float, bins: int, spacing: str) -> np.ndarray:
    """The score levels of classifier j's axis, as :func:`engine.pn._grid.make_axes` defines them."""
    if spacing == "uniform":
        return np.linspace(low, high, bins - 1)
    ranks = inverted_cdf_ranks(n, bins - 1)
    found = order_statistics(con, f"s{j}", ranks, low=low, high=high)
    return np.array([found[int(r)] for r in ranks])


def _bisect_sql(inner: str, col: str, levels: np.ndarray, name: str) -> tuple[str, str, list[float]]:
    """Subqueries adding ``name`` = number of ``levels`` <= ``col`` (a branchless binary search).

    The levels are padded with +inf to a power of two P; ``idx`` starts at 0 and moves up by
    P/2, P/4, ..., 1 whenever the score is >= the level there (1-based list ``$name``).
    """
    size = 1 << int(levels.size).bit_length()  # > levels.size, a power of two
    padded = np.full(size, np.inf)
    padded[: levels.size] = levels
    sql, prev, step, i = f"(SELECT *, 0 AS {name}_0 FROM {inner})", f"{name}_0", size // 2, 0
    while step >= 1:
        i += 1
        sql = (
            f"(SELECT *, {prev} + {step} * CAST({col} >= ${name}[{prev} + {step}] AS BIGINT) AS {name}_{i} FROM {sql})"
        )
        prev, step = f"{name}_{i}", step // 2
    return sql, prev, padded.tolist()


def _cell_counts(con, axes: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray, int]:
    """ONE group-by over the k bin indices: (histogram of w*y, histogram of w*(1-y), non-empty cells)."""
    sql = "(SELECT * FROM grid_rows WHERE y IS NOT NULL)"
    indices, params = [], {}
    for j, axis in enumerate(axes):
        sql, idx, params[f"e{j}"] = _bisect_sql(sql, f"s{j}", axis[:-1], f"e{j}")
        indices.append(idx)
    out = con.execute(
        f"SELECT {', '.join(indices)}, sum(w * y), sum(w * (1 - y)) FROM {sql} GROUP BY ALL", params
    ).fetchnumpy()
    cols = [np.asarray(out[key]) for key in out]
    shape = tuple(a.size + 1 for a in axes)
    index = tuple(np.asarray(c, dtype=np.int64) for c in cols[: len(axes)])
    hist_tp, hist_fp = np.zeros(shape), np.zeros(shape)
    hist_tp[index] = np.asarray(cols[-2], dtype=np.float64)
    hist_fp[index] = np.asarray(cols[-1], dtype=np.float64)
    return hist_tp, hist_fp, int(index[0].size)


def duckdb_threshold_grid(
    source: DuckSource,
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
    source : DuckSource
        Parquet / CSV paths or globs, or a DuckDB database file and table.
    scores : sequence of str
        Score columns, one per classifier (k >= 1).
    label, weight : str
        Label column (empty = unrated: counted, reported, left out) and optional weight column.
    bins : int or sequence of int
        Thresholds per axis, as for :func:`engine.pn._grid.make_axes`.
    rule : {"or", "and"}
    spacing : {"quantile", "uniform"}

    Returns
    -------
    (ThresholdGrid, ScanStats)
        The grid :func:`engine.pn.threshold_grid` gives on the rated rows (same axes; same
        counts whenever the weighted sums are exact in float64); what was scanned
        (``distinct_scores`` holds the number of non-empty histogram cells).

    Raises
    ------
    InputError
        Unreadable columns, unknown labels, non-numeric / infinite / missing scores, bad weights,
        no rated rows, or a grid over :data:`engine.pn._grid.MAX_GRID_CELLS` cells.

    References
    ----------
    Robles et al., AAAI-MAKE 2020, "For an ensemble of classifiers", eq. (1).
    """
    started = time.perf_counter()
    scores, bins_list, rule = check_grid_arguments(scores, bins, rule, spacing)
    con = source.connect()
    try:
        grid_view(con, source, scores, label, weight)
        rows, rated, unrated, lows, highs = check_grid_rows(con, source, scores, label, weight)
        axes = tuple(
            axis_from_levels(_levels(con, j, rated, lows[j], highs[j], bins_list[j], spacing), lows[j], highs[j])
            for j in range(len(scores))
        )
        check_grid_size([a.size for a in axes])
        hist_tp, hist_fp, cells = _cell_counts(con, axes)
    finally:
        con.close()
    seconds = time.perf_counter() - started
    grid = ThresholdGrid(
        axes=axes,
        tp=cumulative_counts(hist_tp, rule, hist_tp.sum()),
        fp=cumulative_counts(hist_fp, rule, hist_fp.sum()),
        rule=rule,
        score_names=tuple(scores),
        seconds=seconds,
    )
    return grid, ScanStats("duckdb", rows, rated, unrated, cells, seconds)
