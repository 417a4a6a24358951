"""The paper's aggregated format: one row per threshold tuple, columns ``t1..tk, tp, fp``.

Robles et al. (AAAI-MAKE 2020) publish their data as such tables (4-column files
``t1, t2, tp, fp``). :func:`counts_table` writes a
:class:`~engine.pn.grid.ThresholdGrid` in this format and :func:`load_counts`
reads it back (exactly for a full Cartesian product, by regridding otherwise).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from ..errors import RatedDataError
from ..pn.grid import ThresholdGrid
from .tables import Source, check_unique_columns, read_table

__all__ = ["counts_table", "load_counts"]


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
