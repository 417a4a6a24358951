"""Tables in words: one presentation layer for every table a page shows or a report prints.

The engine's tables (sweeps, segments, path comparisons, baselines, trade-offs, fairness
sweeps …) keep machine names and full precision: they are what the CSV downloads and the
JSON records hold. :func:`present_table` turns one into the table people read:

* column labels in words, with units (``tp`` → "True positives", ``runtime_s`` →
  "Runtime"); a label the vocabulary does not know loses its underscores;
* one convention for shares: every share of documents, rows or decisions is a
  percentage (``0.0522876`` → "5.2 %"), never a fraction beside a percentage;
* counts as whole numbers with thousands separators (a weighted or interpolated count
  ``856.364`` → "856"); thresholds with six significant digits (enough to set one);
  other numbers with four; times in ms or s;
* a dash, or a word, where a cell has no value: never ``None`` or ``NaN``.

Nothing here imports Streamlit: the pages, the reports and the decision record call it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

import numpy as np
import pandas as pd

__all__ = [
    "KINDS",
    "COLUMNS",
    "column_label",
    "column_kind",
    "format_value",
    "present_table",
    "is_raw_name",
    "EMPTY",
    "WIDE_COLUMNS",
    "SHORT_LABELS",
    "BOUND_FORMAT",
    "format_bound",
]

#: a table with more columns than this is shown one quantity per row (transposed) when it has a name column
WIDE_COLUMNS = 8

#: how a cell without a value reads
EMPTY = "—"

#: how a bound chosen on a slider reads (printf style, the sliders' own ``format``): a caption, a sentence or a
#: record that repeats the bound says "κ = 0.80" exactly as the slider does
BOUND_FORMAT = "%.2f"

#: value kinds and how each reads
KINDS = {
    "share": "a share (0..1) shown as a percentage",
    "percent": "already a percentage (0..100)",
    "count": "a count: a whole number with thousands separators",
    "threshold": "a score threshold: six significant digits",
    "number": "any other number: four significant digits, thousands separators",
    "seconds": "a duration in seconds, shown in ms or s",
    "flag": "yes / no",
    "text": "text as it is",
}

#: machine column names → (label in words, kind)
COLUMNS: dict[str, tuple[str, str]] = {
    "target_marginal_precision": ("Target marginal precision", "share"),
    "target": ("Target marginal precision", "share"),
    "fp_per_extra_tp": ("False positives per extra true positive", "number"),
    "threshold": ("Threshold", "threshold"),
    "tp": ("True positives", "count"),
    "fp": ("False positives", "count"),
    "flagged": ("Flagged", "count"),
    "flagged_per_day": ("Flagged per day", "number"),
    "precision": ("Precision", "share"),
    "marginal_precision_above": ("Marginal precision above", "share"),
    "marginal_precision_below": ("Marginal precision below", "share"),
    "mp_above": ("Marginal precision above", "share"),
    "mp_below": ("Marginal precision below", "share"),
    "method": ("Method", "text"),
    "area": ("Area under the path (TP × FP)", "number"),
    "area_pct_of_frontier": ("Area, % of the frontier's", "percent"),
    "objective": ("Objective TP − λ·FP", "number"),
    "objective_gap_to_best_grid_point": ("Objective below the best grid point", "number"),
    "position_distance_to_best_grid_point": ("Distance to the best grid point (grid steps)", "number"),
    "runtime_s": ("Runtime", "seconds"),
    "seconds": ("Time", "seconds"),
    "segment": ("Segment", "text"),
    "rated": ("Rated documents", "count"),
    "unrated": ("Unrated documents", "count"),
    "n": ("Items", "count"),
    "k": ("Flagged (k)", "count"),
    "batch": ("Batch", "text"),
    "items": ("Items", "count"),
    "expected_loss": ("Expected loss", "number"),
    "probability": ("Probability", "share"),
    "decision": ("Decision", "text"),
    "label": ("Label", "text"),
    "recall": ("Recall", "share"),
    "accuracy": ("Accuracy", "share"),
    "error": ("Error rate", "share"),
    "error_rate": ("Error rate", "share"),
    "coverage": ("Coverage (share flagged)", "share"),
    "churn": ("Churn against the deployed decisions", "share"),
    "disagreement": ("Disagreement with the full model", "share"),
    "alpha": ("Allowed disagreement α", "share"),
    "mean_trees": ("Trees evaluated per row (mean)", "number"),
    "trees": ("Trees", "count"),
    "n_evaluated": ("Trees evaluated", "count"),
    "speedup": ("Speed-up", "number"),
    "speed_up": ("Speed-up", "number"),
    "quantile": ("Quantile", "share"),
    "lower": ("Lower bound", "number"),
    "upper": ("Upper bound", "number"),
    "estimate": ("Estimate", "number"),
    "level": ("Level", "share"),
    "weight": ("Weight", "number"),
    "group": ("Group", "text"),
    "classifier": ("Classifier", "text"),
    "certified": ("Promise certified", "flag"),
    "promised_d": ("Promised disagreement D", "share"),
    "test_disagreement": ("Disagreement on test rows", "share"),
    "mean_trees_(test)": ("Trees evaluated per row (test, mean)", "number"),
    "mean_#_trees": ("Trees evaluated per row (mean)", "number"),
    "speed-up_of_early_exit": ("Early exit is this many times faster", "number"),
}

#: the short labels of a compact table (a wide one on a screen): the cards' and the README's abbreviations
SHORT_LABELS: dict[str, str] = {
    "target_marginal_precision": "Target m",
    "target": "Target m",
    "fp_per_extra_tp": "FP per extra TP",
    "tp": "TP",
    "fp": "FP",
    "true_positives": "TP",
    "false_positives": "FP",
    "flagged_(reviews)": "Flagged",
    "marginal_precision_above": "m just above",
    "marginal_precision_below": "m just below",
    "mp_above": "m just above",
    "mp_below": "m just below",
    "rated_documents": "Rated",
    "unrated_documents": "Unrated",
}

_SHARE_WORDS = (
    "precision",
    "rate",
    "share",
    "recall",
    "coverage",
    "accuracy",
    "disagreement",
    "churn",
    "prevalence",
    "positive rate",
    "probability",
    "% ",
)
_COUNT_WORDS = (
    "true positives",
    "false positives",
    "flagged",
    "documents",
    "reviews",
    "rows",
    "items",
    "count",
    "positives",
    "negatives",
    "tp",
    "fp",
)
_RAW = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)+$")


def is_raw_name(label: str) -> bool:
    """True for a machine identifier in snake_case (``objective_gap_to_best``), which people should not read.

    Parameters
    ----------
    label : str
        A column label.

    Returns
    -------
    bool
        Whether the whole label is lower-case words joined by underscores.
    """
    return bool(_RAW.match(str(label)))


def column_label(name) -> str:
    """The label in words of a column (the vocabulary's, else its underscores as spaces, first letter capital).

    Parameters
    ----------
    name : object
        The column's name in the engine's table.

    Returns
    -------
    str
        The label people read. ``threshold_<classifier>`` reads "Threshold of <classifier>"
        (a classifier's name is the user's and is kept as written).
    """
    text = str(name)
    known = _known(text)
    if known is not None:
        return known[0]
    if text.startswith("threshold_") and len(text) > len("threshold_"):
        return f"Threshold of {text[len('threshold_') :]}"
    if is_raw_name(text):
        words = text.replace("_", " ")
        return words[0].upper() + words[1:]
    if re.match(r"^[a-z]+\b", text):  # an engine label in lower case: "true positives", "change (B - A)"
        return text[0].upper() + text[1:]
    return text


def _known(text: str):
    """The vocabulary's (label, kind) of a name, written as an identifier or in words."""
    return COLUMNS.get(text) or COLUMNS.get(text.strip().lower().replace(" ", "_"))


def column_kind(name, values: pd.Series) -> str:
    """The kind (key of :data:`KINDS`) of a column, from the vocabulary, its label's words and its values.

    Parameters
    ----------
    name : object
        The column's name.
    values : pandas.Series
        Its cells.

    Returns
    -------
    str
        A key of :data:`KINDS`.
    """
    text = str(name)
    known = _known(text)
    if known is not None:
        return known[1]
    if pd.api.types.is_bool_dtype(values):
        return "flag"
    if not pd.api.types.is_numeric_dtype(values):
        return "text"
    lower = text.lower()
    if "threshold" in lower or "score" in lower:
        return "threshold"
    if lower.endswith("_s") or "seconds" in lower or "runtime" in lower:
        return "seconds"
    if "%" in lower or "pct" in lower or "percent" in lower:
        return "percent"
    finite = values.to_numpy(dtype=float)
    finite = finite[np.isfinite(finite)]
    within_unit = finite.size > 0 and bool(((finite >= 0) & (finite <= 1)).all())
    if within_unit and any(w in lower for w in _SHARE_WORDS):
        return "share"
    words = set(re.split(r"[^a-z]+", lower))
    if (
        any(w in lower for w in _COUNT_WORDS if " " in w)
        or words & {w for w in _COUNT_WORDS if " " not in w}
        or words & {"n", "k"}
    ):
        return "count"
    if finite.size and bool((finite == np.round(finite)).all()) and bool((np.abs(finite) >= 1).any()):
        return "count"
    return "number"


def format_bound(value: float) -> str:
    """A bound as the slider that set it shows it (:data:`BOUND_FORMAT`).

    Parameters
    ----------
    value : float
        The bound (κ of a ratio constraint, a share, a rate).

    Returns
    -------
    str
        ``"0.80"`` for 0.8, ``"0.85"`` for 0.85: two decimals, as the slider reads.
    """
    return BOUND_FORMAT % float(value)


def format_value(value, kind: str, empty: str = EMPTY) -> str:
    """One cell as people read it.

    Parameters
    ----------
    value : object
        The cell (a number, text, bool, None or NaN).
    kind : str
        A key of :data:`KINDS`.
    empty : str
        What a missing value (None, NaN) reads.

    Returns
    -------
    str
        The formatted cell: ``"5.2 %"``, ``"1,387"``, ``"0.4246"``, ``"0.3 ms"``, ``"yes"``;
        an infinite threshold reads "∞ (flag nothing)".
    """
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA or value is pd.NaT:
        return empty
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if kind == "text" or isinstance(value, str) or not isinstance(value, (int, float, np.integer, np.floating)):
        return str(value)
    v = float(value)
    if math.isnan(v):
        return empty
    if kind == "flag":
        return "yes" if v else "no"
    if math.isinf(v):
        if kind == "threshold":
            return "∞ (flag nothing)" if v > 0 else "−∞ (flag all)"
        return "∞" if v > 0 else "−∞"
    if kind == "share":
        return _percent(100.0 * v)
    if kind == "percent":
        return _percent(v)
    if kind == "count":
        return f"{v:,.0f}".replace("-", "−")
    if kind == "threshold":
        return f"{v:.6g}".replace("-", "−")
    if kind == "seconds":
        return f"{v * 1e3:.2g} ms" if abs(v) < 0.01 else f"{v * 1e3:.0f} ms" if abs(v) < 1 else f"{v:,.1f} s"
    return _number(v)


def _percent(p: float) -> str:
    if p == 0:
        return "0 %"
    text = f"{p:.1f} %" if abs(p) >= 1 else f"{p:.2g} %"
    return text.replace("-", "−")


def _number(v: float) -> str:
    if v == 0:
        return "0"
    if abs(v) >= 1e12:  # astronomically large (an e-value): digits would only fill the line
        return _scientific(v)
    if abs(v) >= 1000:
        return f"{v:,.0f}".replace("-", "−")
    text = f"{v:.4g}"
    if "e" in text:  # tiny
        return _scientific(v)
    return text.replace("-", "−")


def _scientific(v: float) -> str:
    """``1.23 × 10^15``, ``2.5 × 10^−7``: powers of ten as people write them."""
    exponent = math.floor(math.log10(abs(v)))
    mantissa = f"{v / 10**exponent:.3g}"
    return f"{mantissa} × 10^{exponent}".replace("-", "−")


def present_table(
    frame: pd.DataFrame,
    *,
    labels: Mapping[str, str] | None = None,
    kinds: Mapping[str, str] | None = None,
    row_kinds: str | None = None,
    empty: str = EMPTY,
    transpose_on: str | None = None,
    compact: bool = False,
) -> pd.DataFrame:
    """The table people read: labels in words, every cell formatted text, no ``None``.

    Parameters
    ----------
    frame : pandas.DataFrame
        An engine table (machine column names, full precision); not modified.
    labels : mapping of str to str, optional
        Labels for columns, overriding the vocabulary (:data:`COLUMNS`).
    kinds : mapping of str to str, optional
        Kinds (keys of :data:`KINDS`) for columns, overriding the inferred ones.
    row_kinds : str, optional
        For a table with one quantity per row (``quantity | A | B``): the column naming each
        row's quantity; the numeric cells of a row are formatted by that quantity's kind.
    empty : str
        What a missing cell reads (default a dash).
    transpose_on : str, optional
        A column naming the rows (``method``): the table is shown one quantity per row with
        that column's values as headers — a wide table then fits a screen or a page.
    compact : bool
        Use the short labels of :data:`SHORT_LABELS` (TP, FP, m just above …) where there is one.

    Returns
    -------
    pandas.DataFrame
        Same rows and column order (or, transposed, one row per other column); the index is
        reset; every cell is a string.
    """
    if transpose_on is not None:
        shown = present_table(frame, labels=labels, kinds=kinds, empty=empty)
        names = [str(v) for v in frame[transpose_on].tolist()]
        label = labels.get(str(transpose_on)) if labels else None
        shown = shown.drop(columns=[label or column_label(transpose_on)])
        body = pd.DataFrame(shown.to_numpy(dtype=object).T, columns=names, dtype=object)
        body.insert(0, "Quantity", list(shown.columns))
        return body
    labels, kinds = dict(labels or {}), dict(kinds or {})
    columns, seen = [], set()
    quantities = frame[row_kinds].astype(str).tolist() if row_kinds is not None else None
    for j, name in enumerate(frame.columns):
        values = frame.iloc[:, j]
        if quantities is not None and name != row_kinds:
            cells = [format_value(v, _row_kind(q), empty) for v, q in zip(values.tolist(), quantities)]
        else:
            kind = kinds.get(str(name)) or column_kind(name, values)
            cells = [format_value(v, kind, empty) for v in values.tolist()]
        if quantities is not None and name == row_kinds:
            cells = [column_label(q) for q in cells]
        short = SHORT_LABELS.get(str(name).strip().lower().replace(" ", "_")) if compact else None
        label = labels.get(str(name)) or short or column_label(name)
        if label in seen:  # two names with one label: keep them apart
            label = f"{label} ({name})"
        seen.add(label)
        columns.append((label, cells))
    result = pd.DataFrame({j: cells for j, (_, cells) in enumerate(columns)}, index=range(len(frame)), dtype=object)
    result.columns = [label for label, _ in columns]
    return result


def _row_kind(quantity: str) -> str:
    known = _known(quantity)
    if known is not None:
        return known[1]
    return column_kind(quantity, pd.Series([0.5]))
