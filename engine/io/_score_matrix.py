"""Uploaded matrices of base-model contributions for early exit (QWYC).

A score matrix holds, for each example (row), each base model's contribution to
the ensemble's score; ``bias + F.sum(1)`` is the full score (Wang, Gupta et al.,
*Quit When You Can*).
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import RatedDataError, describe_rows
from ._rated import parse_labels
from ._tables import read_table

__all__ = ["ScoreMatrix", "load_score_matrix"]


@dataclass(frozen=True)
class ScoreMatrix:
    """An uploaded matrix of base-model contributions split into fit and test rows.

    Attributes
    ----------
    f_fit : numpy.ndarray of float64, shape (N_fit, T)
        Contributions of the T base models on the rows that fit the policy.
    f_test : numpy.ndarray of float64, shape (N_test, T)
        Contributions on the rows that measure it.
    labels_fit, labels_test : numpy.ndarray of int8 or None
        0/1 labels of the two splits, when given.
    bias : float
        Constant of the score ``bias + F.sum(1)``.
    model_names : tuple of str
        Name of each base model (column).
    """

    f_fit: np.ndarray
    f_test: np.ndarray
    labels_fit: np.ndarray | None
    labels_test: np.ndarray | None
    bias: float
    model_names: tuple[str, ...]


def _check_length(values: np.ndarray, rows: int, what: str, name: str) -> np.ndarray:
    values = np.asarray(values)
    if values.ndim != 1 or values.size != rows:
        raise RatedDataError(
            f"'{name}': '{what}' must be a 1-D array with one value per row of F ({rows}); got shape {values.shape}."
        )
    return values


def _read_npz(raw: bytes, name: str):
    """F, labels, split and bias of an NPZ archive, each checked (loaded without pickle)."""
    try:
        with np.load(io.BytesIO(raw), allow_pickle=False) as npz:
            if "F" not in npz:
                raise RatedDataError(f"'{name}': the NPZ file needs an array named 'F' (examples x models).")
            try:
                f = np.asarray(npz["F"], dtype=np.float64)
            except (TypeError, ValueError):
                raise RatedDataError(f"'{name}': array 'F' must hold numbers.") from None
            if f.ndim != 2:
                raise RatedDataError(f"'{name}': array 'F' must be 2-D (examples x models); got shape {f.shape}.")
            labels = split = None
            if "labels" in npz:
                labels, missing = parse_labels(_check_length(npz["labels"], f.shape[0], "labels", name), "labels")
                if missing.any():
                    raise RatedDataError(f"'{name}': 'labels' has missing values at {describe_rows(missing)}.")
            if "split" in npz:
                split = np.char.lower(np.char.strip(_check_length(npz["split"], f.shape[0], "split", name).astype(str)))
            bias = 0.0
            if "bias" in npz:
                b = np.asarray(npz["bias"])
                if b.size != 1 or not np.issubdtype(b.dtype, np.number) or not np.isfinite(b).all():
                    raise RatedDataError(f"'{name}': 'bias' must be one finite number; got shape {b.shape}.")
                bias = float(b.reshape(()))
    except (ValueError, OSError, zipfile.BadZipFile, EOFError) as exc:
        if isinstance(exc, RatedDataError):
            raise
        raise RatedDataError(f"'{name}' is not a readable NPZ file ({exc}).") from None
    return f, labels, split, bias


def _read_table(raw: bytes, name: str):
    """F, labels, split and model names of a CSV / Parquet score matrix."""
    frame = read_table(bytes(raw), name=name).frame
    lower = {str(c).lower(): c for c in frame.columns}
    label_col = next((lower[k] for k in ("label", "labels", "y") if k in lower), None)
    split_col = lower.get("split")
    labels = split = None
    if label_col is not None:
        labels, missing = parse_labels(frame[label_col], str(label_col))
        if missing.any():
            raise RatedDataError(
                f"'{name}': column '{label_col}' has empty labels at {describe_rows(missing)}; give "
                "every row a label or drop the column."
            )
    if split_col is not None:
        split = frame[split_col].astype(str).str.strip().str.lower().to_numpy()
    model_cols = [c for c in frame.columns if c not in (label_col, split_col)]
    non_numeric = [
        str(c)
        for c in model_cols
        if not pd.api.types.is_numeric_dtype(frame[c]) or pd.api.types.is_bool_dtype(frame[c])
    ]
    if non_numeric:
        raise RatedDataError(
            f"'{name}': columns {', '.join(non_numeric[:5])} are not numeric. Every column "
            "except 'label' and 'split' must hold one base model's contributions."
        )
    return frame[model_cols].to_numpy(dtype=np.float64), labels, split, tuple(str(c) for c in model_cols)


def load_score_matrix(source, *, name: str = "upload", test_fraction: float = 0.3, seed: int = 0) -> ScoreMatrix:
    """Read base-model contributions: CSV / Parquet (one numeric column per model, optional
    ``label`` and ``split`` columns with values fit/test) or NPZ (arrays ``F``, optional ``labels``,
    ``split``, ``bias``; loaded without pickle). Rows are split randomly when no split is given.

    Parameters
    ----------
    source : bytes or file object
        The raw file or an open binary file.
    name : str, optional
        Display name, for messages.
    test_fraction : float, optional
        Share of rows drawn for the test split when the file has no split.
    seed : int, optional
        Seed of that random split.

    Returns
    -------
    ScoreMatrix
        The contributions split into fit and test rows.

    Raises
    ------
    RatedDataError
        Fewer than 10 rows or 2 models, missing or infinite contributions, unknown
        split values, a split without fit or test rows, or an unreadable file.
    """
    raw = bytes(source) if isinstance(source, (bytes, bytearray)) else source.read()
    labels = split = None
    bias = 0.0
    if raw[:2] == b"PK":  # NPZ (zip)
        f, labels, split, bias = _read_npz(raw, name)
        names = tuple(f"model {t}" for t in range(f.shape[1])) if f.ndim == 2 else ()
    else:
        f, labels, split, names = _read_table(raw, name)
    if f.ndim != 2 or f.shape[1] < 2 or f.shape[0] < 10:
        raise RatedDataError(f"'{name}': need at least 10 rows and 2 base-model columns; got shape {f.shape}.")
    bad = ~np.isfinite(f)
    if bad.any():
        rows = ", ".join(str(i + 1) for i in np.unique(np.nonzero(bad)[0])[:5])
        raise RatedDataError(f"'{name}': missing or infinite contributions at rows {rows} (row 1 = first data row).")
    if split is not None:
        unknown = set(np.unique(split)) - {"fit", "test", "train"}
        if unknown:
            raise RatedDataError(f"'{name}': split values must be fit/train or test; found {sorted(unknown)[:5]}.")
        is_test = split == "test"
        if is_test.all() or not is_test.any():
            missing = "fit" if is_test.all() else "test"
            raise RatedDataError(
                f"'{name}': the split column has no '{missing}' rows. Mark some rows 'fit' (to fit "
                "the policy) and some 'test' (to measure it), or drop the split column."
            )
    else:
        is_test = np.zeros(f.shape[0], dtype=bool)
        is_test[np.random.default_rng(seed).permutation(f.shape[0])[: int(round(test_fraction * f.shape[0]))]] = True
    lab = None if labels is None else np.asarray(labels, dtype=np.int8)
    return ScoreMatrix(
        f[~is_test],
        f[is_test],
        None if lab is None else lab[~is_test],
        None if lab is None else lab[is_test],
        bias,
        names,
    )
