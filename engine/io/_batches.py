"""Probability batches: calibrated probabilities of items, grouped into batches decided together.

The input of the batch-decision paper (Natarajan, Koyejo, Ravikumar & Dhillon,
ICML 2016): every item carries ``eta = P(Y = 1)`` from a calibrated model, and a
whole batch is decided at once so as to minimise the expected set loss. One row
per item: a probability column, optionally a batch id (no batch column = one
batch), an item id and a label (1/0, yes/no ... as for rated data; empty = not
known). Every problem raises :class:`~engine.errors.BatchDataError` naming the
column, the rows and the fix.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import BatchDataError, describe_rows
from ._rated import LABEL_VALUES, numeric_column, parse_labels
from ._tables import Source, read_table

__all__ = [
    "BatchMapping",
    "ProbabilityBatches",
    "detect_batch_columns",
    "batch_columns",
    "batches_from_frame",
    "load_batches",
    "MAX_BATCH_SIZE",
]

#: The largest batch decided at once: the exact expected losses of every top-k cost O(n^2).
MAX_BATCH_SIZE = 20_000

_PROBABILITY_PATTERN = re.compile(r"prob|eta|^p$|^p_|_p$|calibrated|likelihood|confidence|score", re.IGNORECASE)
_BATCH_PATTERN = re.compile(r"batch|day|date|week|queue|run|shard", re.IGNORECASE)
_ITEM_PATTERN = re.compile(
    r"^(id|item|item_id|doc|doc_id|document|document_id|row|row_id|key|uid)$|_id$", re.IGNORECASE
)
_LABEL_NAMES = ("label", "labels", "y", "target", "outcome", "truth", "class", "verdict", "is_positive")


@dataclass(frozen=True)
class BatchMapping:
    """Which column holds what: the probability (required), batch id, item id and label (optional).

    Attributes
    ----------
    probability_col : str
        Calibrated probabilities ``P(Y = 1)`` in [0, 1].
    batch_col : str or None
        Batch id of each item; all items form one batch when None.
    item_col : str or None
        Item identifier, copied to the decisions.
    label_col : str or None
        True labels, when known (for the realised losses).
    """

    probability_col: str
    batch_col: str | None = None
    item_col: str | None = None
    label_col: str | None = None


@dataclass(frozen=True)
class ProbabilityBatches:
    """Validated probability batches, rows in input order.

    Attributes
    ----------
    probabilities : numpy.ndarray of float64, shape (n,)
        Probability of each item, in [0, 1].
    batch_ids : numpy.ndarray of object, shape (n,)
        Each row's batch as text (``"all"`` without a batch column); :attr:`batch_names`
        lists the batches in order of first appearance.
    item_ids : numpy.ndarray of object, shape (n,), or None
        Item identifiers when an item column is mapped.
    labels : numpy.ndarray of int8, shape (n,), or None
        1 / 0, -1 where unknown; None without a label column.
    mapping : BatchMapping
        The columns the batches were read with.
    name : str
        Display name.
    fingerprint : str
        SHA-256 of the file.
    warnings : tuple of str
        Problems that did not stop the read (items without a label).
    """

    probabilities: np.ndarray
    batch_ids: np.ndarray
    item_ids: np.ndarray | None
    labels: np.ndarray | None
    mapping: BatchMapping
    name: str = "batches"
    fingerprint: str = ""
    warnings: tuple[str, ...] = field(default=())

    @property
    def n_items(self) -> int:
        return int(self.probabilities.size)

    @property
    def batch_names(self) -> tuple[str, ...]:
        return tuple(pd.unique(self.batch_ids))

    def rows_of(self, batch: str) -> np.ndarray:
        """0-based row numbers of ``batch``, in input order.

        Parameters
        ----------
        batch : str
            A batch name (one of :attr:`batch_names`).

        Returns
        -------
        numpy.ndarray of int
            The batch's rows.

        Raises
        ------
        BatchDataError
            No such batch.
        """
        rows = np.flatnonzero(self.batch_ids == batch)
        if rows.size == 0:
            raise BatchDataError(f"No batch {batch!r}; batches are {', '.join(self.batch_names[:5])} ...")
        return rows

    @property
    def n_labelled(self) -> int:
        return 0 if self.labels is None else int((self.labels >= 0).sum())

    def summary(self) -> dict:
        sizes = pd.Series(self.batch_ids).value_counts()
        return {
            "items": self.n_items,
            "batches": int(sizes.size),
            "largest batch": int(sizes.max()),
            "labelled items": self.n_labelled,
            "mean probability": float(self.probabilities.mean()),
        }


def _label_like(col: pd.Series) -> bool:
    """Every non-empty value is a label spelling (1/0, yes/no, true/false ...)."""
    values = col.dropna().astype("string").str.strip().str.lower()
    values = values[values != ""]
    return len(values) > 0 and bool(values.isin(list(LABEL_VALUES)).all())


def _in_unit_interval(col: pd.Series) -> bool:
    values = pd.to_numeric(col, errors="coerce")
    present = values.dropna()
    return len(present) > 0 and len(present) >= 0.99 * col.notna().sum() and present.between(0, 1).all()


def detect_batch_columns(
    frame: pd.DataFrame,
    *,
    probability_col: str | None = None,
    batch_col: str | None = None,
    item_col: str | None = None,
    label_col: str | None = None,
) -> BatchMapping:
    """Guess the mapping of columns not given: a [0, 1] numeric column for the probability, names for the rest.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table as read.
    probability_col, batch_col, item_col, label_col : str, optional
        Columns given explicitly (kept, and checked to exist); the others are detected.

    Returns
    -------
    BatchMapping
        The column roles.

    Raises
    ------
    BatchDataError
        A named column is missing, or no column can hold probabilities.
    """
    columns = [str(c) for c in frame.columns]
    for given, role in (
        (probability_col, "probability"),
        (batch_col, "batch"),
        (item_col, "item id"),
        (label_col, "label"),
    ):
        if given is not None and given not in columns:
            raise BatchDataError(f"No column named {given!r} for the {role}; the columns are {', '.join(columns)}.")
    lowered = {c.strip().lower(): c for c in columns}
    if label_col is None:
        label_col = next((lowered[n] for n in _LABEL_NAMES if n in lowered), None)
    if label_col is None:
        label_col = next(
            (
                c
                for c in columns
                if c != probability_col and not _PROBABILITY_PATTERN.search(c) and _label_like(frame[c])
            ),
            None,
        )
    if probability_col is None:
        candidates = [
            c
            for c in columns
            if c != label_col
            and _in_unit_interval(frame[c])
            and not (_label_like(frame[c]) and not _PROBABILITY_PATTERN.search(c))
        ]
        named = [c for c in candidates if _PROBABILITY_PATTERN.search(c)]
        # a column named like a probability but with bad values: take it, so the message names its rows
        named = named or [c for c in columns if c != label_col and _PROBABILITY_PATTERN.search(c)]
        if not candidates and not named:
            raise BatchDataError(
                "No column holds probabilities (numbers between 0 and 1). Add one column of "
                "calibrated probabilities, one row per item, or choose the column by name."
            )
        probability_col = (named or candidates)[0]
    taken = {probability_col, label_col}
    if batch_col is None:
        batch_col = next((c for c in columns if c not in taken and _BATCH_PATTERN.search(c)), None)
    taken.add(batch_col)
    if item_col is None:
        item_col = next((c for c in columns if c not in taken and _ITEM_PATTERN.search(c)), None)
    return BatchMapping(probability_col, batch_col, item_col, label_col)


def _probabilities(frame: pd.DataFrame, column: str) -> np.ndarray:
    values = numeric_column(frame, column, "probability")
    bad = ~np.isfinite(values) | (values < 0) | (values > 1)
    if bad.any():
        raise BatchDataError(
            f"Probability column '{column}': missing or out-of-range values at {describe_rows(bad)}. "
            "Every item needs a calibrated probability between 0 and 1: fill them in or remove "
            "those rows (raw scores must be calibrated first)."
        )
    return values


def _batch_ids(frame: pd.DataFrame, column: str | None) -> np.ndarray:
    if column is None:
        return np.full(len(frame), "all", dtype=object)
    ids = frame[column].astype("string").str.strip()
    missing = (ids.isna() | (ids == "")).to_numpy(dtype=bool)
    if missing.any():
        raise BatchDataError(
            f"Batch column '{column}': no batch id at {describe_rows(missing)}. Give every row "
            "its batch, or choose no batch column to decide all rows as one batch."
        )
    return ids.to_numpy(dtype=object)


def batches_from_frame(
    frame: pd.DataFrame, mapping: BatchMapping | None = None, *, name: str = "batches", fingerprint: str = ""
) -> ProbabilityBatches:
    """Validate a frame under a mapping (detected when ``None``): probabilities in [0, 1], batch ids, labels.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table, one row per item.
    mapping : BatchMapping, optional
        Column roles; the ones not given are detected (:func:`detect_batch_columns`).
    name : str, optional
        Display name, for messages.
    fingerprint : str, optional
        SHA-256 of the file.

    Returns
    -------
    ProbabilityBatches
        The validated items in input order.

    Raises
    ------
    BatchDataError
        With the column, the rows and the fix.
    """
    if len(frame) == 0:
        raise BatchDataError(f"'{name}' has no data rows. Add one row per item with its probability.")
    if mapping is None:
        mapping = detect_batch_columns(frame)
    else:
        mapping = detect_batch_columns(
            frame,
            probability_col=mapping.probability_col,
            batch_col=mapping.batch_col,
            item_col=mapping.item_col,
            label_col=mapping.label_col,
        )
    probabilities = _probabilities(frame, mapping.probability_col)
    batch_ids = _batch_ids(frame, mapping.batch_col)
    sizes = pd.Series(batch_ids).value_counts()
    too_big = sizes[sizes > MAX_BATCH_SIZE]
    if len(too_big):
        where = f"column '{mapping.batch_col}'" if mapping.batch_col else "the file (no batch column: one batch)"
        raise BatchDataError(
            f"Batch {too_big.index[0]!r} of {where} has {int(too_big.iloc[0]):,} items; at most "
            f"{MAX_BATCH_SIZE:,} are decided together (exact expected losses cost O(n²)). "
            "Add or choose a batch column that splits the items into smaller batches."
        )
    warnings = []
    labels = None
    if mapping.label_col is not None:
        labels, missing = parse_labels(frame[mapping.label_col], mapping.label_col)
        if missing.any():
            warnings.append(
                f"{int(missing.sum())} items have no label ({describe_rows(missing)}); they are decided "
                "but left out of the comparisons with true labels."
            )
    items = None if mapping.item_col is None else frame[mapping.item_col].astype("string").to_numpy(dtype=object)
    return ProbabilityBatches(probabilities, batch_ids, items, labels, mapping, name, fingerprint, tuple(warnings))


def load_batches(
    source: Source,
    *,
    probability_col: str | None = None,
    batch_col: str | None = None,
    item_col: str | None = None,
    label_col: str | None = None,
) -> ProbabilityBatches:
    """Read and validate probability batches from a path, bytes or file object (CSV, CSV.gz, Parquet).

    Parameters
    ----------
    source : str, pathlib.Path, bytes or file object
        The file: a path, its raw bytes or an open binary file.
    probability_col, batch_col, item_col, label_col : str, optional
        Columns to use; the ones not given are detected (:func:`detect_batch_columns`).

    Returns
    -------
    ProbabilityBatches
        The validated items in input order.

    Raises
    ------
    InputError
        The file cannot be read (:class:`~engine.errors.RatedDataError`) or its columns
        or values are invalid (:class:`~engine.errors.BatchDataError`).
    """
    table = read_table(source)
    mapping = detect_batch_columns(
        table.frame, probability_col=probability_col, batch_col=batch_col, item_col=item_col, label_col=label_col
    )
    return batches_from_frame(table.frame, mapping, name=table.name, fingerprint=table.fingerprint)


def batch_columns(frame: pd.DataFrame) -> Sequence[str]:
    """Columns that could hold probabilities (numbers in [0, 1]), for a mapping form.

    Parameters
    ----------
    frame : pandas.DataFrame
        The parsed table.

    Returns
    -------
    list of str
        Names of the columns whose values are all numbers in [0, 1], in table order.
    """
    return [str(c) for c in frame.columns if _in_unit_interval(frame[c])]
