"""A model's feature matrix from rows as users hold them: a DataFrame, one row as a mapping, or an array.

Numbers are never formatted as text to be checked. Each feature column becomes float64 once
(numeric columns directly, text columns parsed once with :func:`engine.io._numbers.to_floats`), and one
vectorised ``isnan`` over the matrix finds the cells that did not read as numbers; only those few are
looked at again, to tell a missing value (NaN, None, an empty or blank text: the trees route it as
missing) from text that is not a number (refused, naming the column and the rows). The result equals
the earlier cell-by-cell check (every column formatted as text), which ``tests/engine/qwyc`` keeps as
its oracle.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ..errors import InputError, describe_rows
from ..io._numbers import to_floats

__all__ = ["feature_matrix"]


def feature_matrix(names: Sequence[str], rows, model_name: str) -> np.ndarray:
    """The model's features of ``rows`` as a float64 matrix, one column per name in ``names``.

    Parameters
    ----------
    names : sequence of str
        The model's feature names, in its order.
    rows : pandas.DataFrame, mapping, pandas.Series or array_like
        A table (feature columns found by name, others ignored); one row as a mapping (or a Series) from
        feature name to value; or an array of shape (features,) for one row or (rows, features), in the
        model's feature order.
    model_name : str
        The model file's name, for messages.

    Returns
    -------
    numpy.ndarray of float64, shape (rows, features)
        NaN where a value is missing.

    Raises
    ------
    InputError
        A feature is missing, an array has the wrong number of features, or a cell holds text that is not a
        number (the column and the rows named).
    """
    if isinstance(rows, pd.DataFrame):
        _require(names, rows.columns, model_name)
        out = np.empty((len(rows), len(names)))
        columns = [rows[c] for c in names]
        for j, column in enumerate(columns):
            out[:, j] = _column_floats(column)
        _refuse_text(out, names, lambda j, at: columns[j].to_numpy(dtype=object)[at])
        return out
    if isinstance(rows, (Mapping, pd.Series)):
        return _one_row(names, rows, model_name)
    return _array(names, rows, model_name)


def _require(names: Sequence[str], present, model_name: str) -> None:
    missing = [c for c in names if c not in present]
    if missing:
        raise InputError(
            f"The data has no column {missing[0]!r}, which model '{model_name}' needs"
            f"{f' (and {len(missing) - 1} more)' if len(missing) > 1 else ''}. The model's features "
            f"are {', '.join(names[:8])}{' ...' if len(names) > 8 else ''}."
        )


def _column_floats(column: pd.Series) -> np.ndarray:
    """A column as float64: numeric dtypes as they are (NaN for missing), anything else parsed once."""
    if pd.api.types.is_numeric_dtype(column.dtype):
        return column.to_numpy(dtype=np.float64, na_value=np.nan)
    return to_floats(column)


def _refuse_text(out: np.ndarray, names: Sequence[str], cells) -> None:
    """Raise for the first column whose NaN cells hold text: ``cells(j, rows)`` gives column j's values there."""
    nan = np.isnan(out)
    if not nan.any():
        return
    for j in np.flatnonzero(nan.any(axis=0)):
        at = np.flatnonzero(nan[:, j])
        values = cells(j, at)
        text = np.fromiter((str(v).strip() != "" for v in values), dtype=bool, count=len(values))
        bad = text & ~pd.isna(values)
        if bad.any():
            mask = np.zeros(out.shape[0], dtype=bool)
            mask[at[bad]] = True
            raise InputError(
                f"Feature column '{names[int(j)]}': non-numeric values at {describe_rows(mask)}. The model was "
                "trained on numbers: encode categories as the training pipeline did."
            )


def _plain_number(value) -> bool:
    return isinstance(value, (numbers.Real, np.bool_))


def _cell(value) -> np.ndarray:
    """One value as a one-element object array (a list or an array stays one cell)."""
    cell = np.empty(1, dtype=object)
    cell[0] = value
    return cell


def _one_row(names: Sequence[str], row, model_name: str) -> np.ndarray:
    """One row from a mapping: plain numbers as they are, anything else read as a one-cell column would be."""
    _require(names, row.index if isinstance(row, pd.Series) else row, model_name)
    values = [row[c] for c in names]
    out = np.empty((1, len(names)))
    for j, v in enumerate(values):
        if v is None:
            out[0, j] = np.nan
        elif _plain_number(v):
            out[0, j] = float(v)
        else:
            out[0, j] = to_floats(pd.Series(_cell(v)))[0]
    _refuse_text(out, names, lambda j, at: _cell(values[j]))
    return out


def _array(names: Sequence[str], rows, model_name: str) -> np.ndarray:
    """Rows from an array in the model's feature order (one row when 1-D)."""
    x = np.asarray(rows)
    if x.ndim == 1:
        x = x.reshape(1, -1)
    if x.ndim != 2 or x.shape[1] != len(names):
        raise InputError(
            f"Model '{model_name}' reads {len(names)} features ({', '.join(names[:8])}"
            f"{' ...' if len(names) > 8 else ''}), in that order; the array given has shape {np.shape(rows)}. "
            "Pass one row of that many values, a (rows, features) array, or a table with those columns."
        )
    if x.dtype.kind in "biuf":
        return x.astype(np.float64)
    columns = [pd.Series(x[:, j], dtype=object) for j in range(x.shape[1])]
    out = np.empty(x.shape, dtype=np.float64)
    for j, column in enumerate(columns):
        out[:, j] = to_floats(column)
    _refuse_text(out, names, lambda j, at: x[at, j].astype(object))
    return out
