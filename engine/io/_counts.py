"""The paper's aggregated format: one row per threshold tuple, columns ``t1..tk, tp, fp``.

Robles et al. (AAAI-MAKE 2020) publish their data as such tables (4-column files
``t1, t2, tp, fp``). :func:`counts_table` writes a
:class:`~engine.pn.ThresholdGrid` in this format and :func:`load_counts`
reads it back (exactly for a full Cartesian product, by regridding otherwise).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..errors import RatedDataError, describe_rows
from ..pn._grid import ThresholdGrid
from ._numbers import is_number, to_floats
from ._tables import Source, check_unique_columns, read_table

__all__ = ["counts_table", "load_counts", "MAX_REGRID_CELLS", "MAX_REGRID_DIMENSIONS"]


def counts_table(grid: ThresholdGrid) -> pd.DataFrame:
    """The paper's aggregated format: one row per threshold tuple, columns ``t1..tk, tp, fp``.

    Parameters
    ----------
    grid : ThresholdGrid
        TP and FP on a joint threshold grid.

    Returns
    -------
    pandas.DataFrame
        One row per grid cell (first axis slowest): thresholds ``t1..tk``, ``tp``, ``fp``.
    """
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


#: regridding an irregular table allocates bins^k cells per count: at most this many
MAX_REGRID_CELLS = 4_000_000
#: irregular tables with more thresholds than this are not interpolated (Delaunay in high dimension
#: is slow and unreliable); a full Cartesian product of any dimension is read exactly
MAX_REGRID_DIMENSIONS = 3


def _counts_frame(source: Source | pd.DataFrame, name: str | None = None) -> tuple[pd.DataFrame, str]:
    """The table with column names: a first row of numbers means the file has no header (t1..tk, tp, fp)."""
    if isinstance(source, pd.DataFrame):
        frame, name = source, name or "counts"
    else:
        table = read_table(source, header=False, name=name)
        frame, name = table.frame, table.name
        first = [str(x).strip() for x in frame.iloc[0]] if len(frame) else []
        if table.file_format.startswith("parquet"):  # Parquet names its columns
            pass
        elif first and all(is_number(x) for x in first):
            if frame.shape[1] < 3:
                raise RatedDataError(
                    f"'{name}' has {frame.shape[1]} column(s); aggregated counts need at least "
                    "three: one threshold column per classifier, then tp and fp."
                )
            frame.columns = [f"t{j + 1}" for j in range(frame.shape[1] - 2)] + ["tp", "fp"]
        else:
            check_unique_columns(first, name)
            frame = frame.iloc[1:].reset_index(drop=True)
            frame.columns = first
    if len(frame) == 0:
        raise RatedDataError(f"'{name}' has no data rows. Add one row per threshold tuple with its tp and fp.")
    return frame, name


def _numeric(frame: pd.DataFrame, name: str, columns: Sequence[str], counts: Sequence[str]) -> dict:
    numeric = {}
    for c in columns:
        v = to_floats(frame[c])
        bad = ~np.isfinite(v)
        if bad.any():
            raise RatedDataError(
                f"'{name}': column '{c}' has missing or non-numeric values at {describe_rows(bad)}. "
                "Every cell must be a finite number."
            )
        if c in counts and (v < 0).any():
            raise RatedDataError(f"'{name}': column '{c}' has negative counts at {describe_rows(v < 0)}.")
        numeric[c] = v
    return numeric


def _exact_grid(t: np.ndarray, tp: np.ndarray, fp: np.ndarray):
    """The grid of a full Cartesian product of thresholds (each tuple once), else None."""
    uniq = [np.unique(t[:, j]) for j in range(t.shape[1])]
    shape = tuple(u.size for u in uniq)
    if int(np.prod(shape, dtype=float)) != t.shape[0] or any(n < 2 for n in shape):
        return None
    flat = np.ravel_multi_index([np.searchsorted(uniq[j], t[:, j]) for j in range(t.shape[1])], shape)
    if np.unique(flat).size != flat.size:
        return None
    tp_g, fp_g = np.empty(shape), np.empty(shape)
    tp_g.ravel()[flat] = tp
    fp_g.ravel()[flat] = fp
    return tuple(uniq), tp_g, fp_g


def _regrid(t: np.ndarray, tp: np.ndarray, fp: np.ndarray, bins: int, name: str):
    """Interpolate an irregular table onto ``bins`` evenly spaced thresholds per axis (bounded in cost)."""
    from scipy.interpolate import griddata
    from scipy.spatial import QhullError

    k = t.shape[1]
    uniq = [np.unique(t[:, j]) for j in range(k)]
    if any(u.size < 2 for u in uniq):
        raise RatedDataError(f"'{name}': every threshold column needs at least two distinct values.")
    if k > MAX_REGRID_DIMENSIONS:
        raise RatedDataError(
            f"'{name}': {k} threshold columns that are not a full grid (every combination of "
            f"their values once). Irregular tables are regridded for up to "
            f"{MAX_REGRID_DIMENSIONS} thresholds; write the counts on a full grid."
        )
    if float(bins) ** k > MAX_REGRID_CELLS:
        fit = int(MAX_REGRID_CELLS ** (1 / k))
        raise RatedDataError(
            f"'{name}': regridding {k} thresholds at {bins} values each needs {float(bins) ** k:,.0f} "
            f"cells; at most {MAX_REGRID_CELLS:,} fit in memory. Use at most {fit} values per "
            "threshold (the grid-size setting, --bins)."
        )
    axes = tuple(np.linspace(u[0], u[-1], bins) for u in uniq)
    mesh = np.column_stack([m.ravel() for m in np.meshgrid(*axes, indexing="ij")])
    grids = []
    for v in (tp, fp):
        try:
            if k == 1:
                order = np.argsort(t[:, 0], kind="stable")
                lin = np.interp(mesh[:, 0], t[order, 0], v[order])
            else:
                lin = griddata(t, v, mesh, method="linear")
                lin = np.where(np.isnan(lin), griddata(t, v, mesh, method="nearest"), lin)
        except (QhullError, ValueError) as exc:
            raise RatedDataError(
                f"'{name}': the threshold tuples are too few or lie on a line or plane, so no grid "
                f"can be interpolated ({str(exc).splitlines()[0][:80]}). Give at least {k + 1} rows "
                "that span every threshold, ideally a full grid."
            ) from None
        grids.append(_enforce_monotone(lin.reshape(tuple(a.size for a in axes))))
    return axes, grids[0], grids[1]


def load_counts(
    source: Source | pd.DataFrame,
    *,
    threshold_cols: Sequence[str] | None = None,
    tp_col: str | None = None,
    fp_col: str | None = None,
    bins: int = 50,
    rule: str = "given",
    name: str | None = None,
) -> ThresholdGrid:
    """Read the aggregated format (``t1..tk, tp, fp``; e.g. the paper's 4-column files).

    Parameters
    ----------
    source : str, pathlib.Path, bytes, file object or pandas.DataFrame
        The file (path, raw bytes or open binary file) or an already read table.
    threshold_cols : sequence of str, optional
        Threshold columns, one per classifier; every column but the counts when None.
    tp_col, fp_col : str, optional
        Count columns; those named ``tp``/``fp`` (any case) when None. A headerless file
        is read as thresholds followed by tp, fp.
    bins : int, optional
        Thresholds per axis when an irregular table is regridded.
    rule : str, optional
        Recorded on the grid (the rule that produced the counts, if known).
    name : str, optional
        The file name used in messages.

    Returns
    -------
    ThresholdGrid
        Exact for a full Cartesian product; an irregular table (up to
        :data:`MAX_REGRID_DIMENSIONS` thresholds, :data:`MAX_REGRID_CELLS` cells) is regridded
        by linear interpolation (nearest value outside the data's convex hull). Either way TP and
        FP are then made monotone: they never increase when a threshold rises.

    Raises
    ------
    RatedDataError
        No ``tp`` / ``fp`` column, no threshold column, non-numeric or negative values,
        threshold columns with a single value, or an irregular table too large or too
        degenerate to regrid.

    References
    ----------
    Robles et al., AAAI-MAKE 2020: the published 4-column aggregated data.

    Examples
    --------
    >>> from engine import load_counts
    >>> grid = load_counts("sample_data/synthetic_rare_events_counts.csv")
    >>> grid.score_names, grid.tp.shape
    (('t1', 't2'), (41, 41))
    """
    frame, name = _counts_frame(source, name)
    cols = [str(c) for c in frame.columns]
    lower = {c.lower(): c for c in cols}
    tp_col = tp_col or lower.get("tp")
    fp_col = fp_col or lower.get("fp")
    if tp_col is None or fp_col is None:
        raise RatedDataError(
            f"'{name}': aggregated counts need columns named 'tp' and 'fp' (columns seen: {', '.join(cols)})."
        )
    if threshold_cols is None:
        threshold_cols = [c for c in cols if c not in (tp_col, fp_col)]
    if len(threshold_cols) < 1:
        raise RatedDataError(f"'{name}': no threshold columns besides tp and fp.")
    numeric = _numeric(frame, name, [*threshold_cols, tp_col, fp_col], (tp_col, fp_col))
    t = np.column_stack([numeric[c] for c in threshold_cols])
    tp, fp = numeric[tp_col], numeric[fp_col]
    exact = _exact_grid(t, tp, fp)
    axes, tp_g, fp_g = exact if exact is not None else _regrid(t, tp, fp, int(bins), name)
    return ThresholdGrid(tuple(axes), _enforce_monotone(tp_g), _enforce_monotone(fp_g), rule, tuple(threshold_cols))
