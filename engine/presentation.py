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
* a dash, or a word, where a cell has no value: never ``None`` or ``NaN``; an infinite
  bound reads "not bounded";
* a count that is not a whole number (weighted, interpolated or estimated from a sample)
  says so: its label gains "(estimated)" and it keeps one decimal below 100;
* money with its currency (``currency="$"``: ``-0.848`` → "−$0.85").

``precise=True`` gives more digits (six significant, shares to two decimals of a percent):
the printed appendix; every digit stays in the CSV files and the JSON records.

Nothing here imports Streamlit: the pages, the reports and the decision record call it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

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
    "rows_named_by",
    "value_in_words",
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
    "money": "an amount of money: the currency before it, cents below 1,000",
    "estimate": "a count estimated (weighted, interpolated or from a sample): one decimal below 100",
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
    "mean_cost": ("Cost per row (mean, in models)", "number"),
    "mean_models": ("Models evaluated per row (mean)", "number"),
    "disagreement_pct": ("Disagreement with the full ensemble", "percent"),
    "full_accuracy": ("Accuracy of the full ensemble", "share"),
    "part": ("Rows", "text"),
    "period_start": ("Period start", "text"),
    "period_end": ("Period end", "text"),
    "evidence_(e-value)": ("Evidence against the target (e-value)", "number"),
    "alert": ("Alert", "flag"),
    "per-period_test_alone": ("Alert of the per-period test alone", "flag"),
    "net_value": ("Net value", "money"),
    "net_value_per_day": ("Net value per day", "money"),
    "last_document_value": ("Value of the last document flagged", "money"),
    "value_caught": ("Value caught", "money"),
    "review_cost": ("Review cost", "money"),
    "false_positive_cost": ("False-positive cost", "money"),
    "cost_per_false_positive": ("Cost per false positive", "money"),
    "value_per_positive": ("Value per positive", "money"),
    "inclusion_probability": ("Inclusion probability", "share"),
    "anticipated_prevalence": ("Anticipated prevalence", "share"),
    "prevalence": ("Prevalence", "share"),
    "side": ("Side", "text"),
    "stratum": ("Stratum", "text"),
    "documents": ("Documents", "count"),
    "reviewed": ("Reviewed", "count"),
    "to_review": ("To review", "count"),
    "positives_found": ("Positives found", "count"),
    "estimated_positives": ("Positives (estimated)", "estimate"),
    "stratum_lower": ("Stratum's scores from", "threshold"),
    "stratum_upper": ("Stratum's scores below", "threshold"),
    "stratum_documents": ("Documents in the stratum", "count"),
    "stratum_sample": ("Reviewed in the stratum", "count"),
    "score": ("Score", "threshold"),
    "id": ("Id", "text"),
    "measure": ("Measure", "text"),
    "quantity": ("Quantity", "text"),
    "train": ("Training rows", "number"),
    "test": ("Test rows", "number"),
    "fit": ("Fit rows", "number"),
    "row": ("Row", "count"),
    "flag": ("Flag", "flag"),
    "item_id": ("Item", "text"),
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
    bound = _BOUND.match(text)
    if bound is not None:
        side = "lower" if bound["side"].lower() in ("lower", "low") else "upper"
        return f"{column_label(bound['base'])}, {side} bound"
    if text.startswith("threshold_") and len(text) > len("threshold_"):
        return f"Threshold of {text[len('threshold_') :]}"
    if is_raw_name(text):
        words = text.replace("_", " ")
        return words[0].upper() + words[1:]
    if re.match(r"^[a-z]+\b", text):  # an engine label in lower case: "true positives", "change (B - A)"
        return text[0].upper() + text[1:]
    return text


#: a bound of an interval: "TP lower", "marginal precision high", "recall_upper"
_BOUND = re.compile(r"^(?P<base>.+?)[ _](?P<side>lower|upper|low|high)$", re.IGNORECASE)


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
    bound = _BOUND.match(text)
    if bound is not None:
        return column_kind(bound["base"], values)
    if pd.api.types.is_bool_dtype(values):
        return "flag"
    if text.lower() == "id" or text.lower().endswith(("_id", " id")):  # an identifier is a name, not a count
        return "text"
    values = _numeric(values)
    if values is None:
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


def _numeric(values: pd.Series) -> pd.Series | None:
    """The column as numbers when it holds only numbers and missing values (an object column of floats and None
    from a record read back), else None."""
    if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
        return values
    if values.dtype != object:
        return None
    cells = [v for v in values.tolist() if v is not None and not (isinstance(v, float) and math.isnan(v))]
    if cells and all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in cells):
        return pd.to_numeric(values, errors="coerce")
    return None


def _estimated(values: pd.Series) -> bool:
    """Whether a count column holds a count that is not whole (weighted, interpolated, estimated)."""
    numbers = _numeric(values)
    if numbers is None:
        return False
    finite = numbers.to_numpy(dtype=float)
    finite = finite[np.isfinite(finite)]
    return bool(finite.size) and bool((np.abs(finite - np.round(finite)) > 1e-9).any())


def rows_named_by(frame: pd.DataFrame) -> str | None:
    """The column that names a table's rows (its first text column with one distinct value per row), if any.

    Parameters
    ----------
    frame : pandas.DataFrame
        An engine table.

    Returns
    -------
    str or None
        The column's name; ``None`` when no text column names every row once.
    """
    if len(set(map(str, frame.columns))) < frame.shape[1]:
        return None  # two columns of one name (an imported record): none can be named for sure
    for j, name in enumerate(frame.columns):
        values = frame.iloc[:, j]
        if _numeric(values) is None and not pd.api.types.is_bool_dtype(values):
            cells = [str(v) for v in values.tolist() if v is not None and str(v).strip()]
            if len(cells) == len(frame) and len(set(cells)) == len(cells):
                return str(name)
    return None


def value_in_words(value) -> str:
    """A setting's value in words: lists joined with commas, yes / no, numbers with separators, "not set".

    Parameters
    ----------
    value : object
        Any JSON-like value.

    Returns
    -------
    str
        ``"score_image, score_text"`` for a list, ``"no"`` for False, ``"2,000"`` for 2000.0,
        ``"not set"`` for None, ``"a: 1; b: yes"`` for a dict.
    """
    if value is None:
        return "not set"
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "; ".join(f"{column_label(k)}: {value_in_words(v)}" for k, v in value.items()) or "none"
    if isinstance(value, (list, tuple, np.ndarray)):
        return ", ".join(value_in_words(v) for v in value) or "none"
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return format_value(value, "count")
    if isinstance(value, (float, np.floating)):
        if math.isinf(value):
            return "not bounded"
        return format_value(value, "count" if float(value).is_integer() else "number")
    return str(value)


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


def format_value(value, kind: str, empty: str = EMPTY, *, currency: str = "", precise: bool = False) -> str:
    """One cell as people read it.

    Parameters
    ----------
    value : object
        The cell (a number, text, bool, None or NaN).
    kind : str
        A key of :data:`KINDS`.
    empty : str
        What a missing value (None, NaN) reads.
    currency : str
        Written before an amount of money (kind ``"money"``).
    precise : bool
        More digits: six significant, shares to two decimals of a percent (a printed appendix).

    Returns
    -------
    str
        The formatted cell: ``"5.2 %"``, ``"1,387"``, ``"0.4246"``, ``"0.3 ms"``, ``"yes"``,
        ``"−$0.85"``; an infinite threshold reads "∞ (flag nothing)".
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
    if kind in ("share", "percent"):
        return _percent(100.0 * v if kind == "share" else v, precise)
    if kind == "count":
        return f"{v:,.0f}".replace("-", "−")
    if kind == "estimate":  # a whole number stays whole (a count exact in a column of estimates)
        whole = v.is_integer() or abs(v) >= 100
        return (f"{v:,.0f}" if whole else f"{v:,.2f}" if precise else f"{v:,.1f}").replace("-", "−")
    if kind == "money":
        return ("−" if v < 0 else "") + currency + (f"{abs(v):,.2f}" if abs(v) < 1000 else f"{abs(v):,.0f}")
    if kind == "threshold":
        return _positional(v, 6)
    if kind == "seconds":
        return f"{v * 1e3:.2g} ms" if abs(v) < 0.01 else f"{v * 1e3:.0f} ms" if abs(v) < 1 else f"{v:,.1f} s"
    return _number(v, 6 if precise else 4)


def _percent(p: float, precise: bool = False) -> str:
    if p == 0:
        return "0 %"
    if precise:
        text = f"{p:.2f} %" if abs(p) >= 1 else f"{p:.3g} %"
    else:
        text = f"{p:.1f} %" if abs(p) >= 1 else f"{p:.2g} %"
    return text.replace("-", "−")


def _number(v: float, digits: int = 4) -> str:
    if v == 0:
        return "0"
    if abs(v) >= 1e12:  # astronomically large (an e-value): digits would only fill the line
        return _scientific(v)
    if abs(v) >= 10 ** (digits - 1):
        return f"{v:,.0f}".replace("-", "−")
    if abs(v) < 1e-6:  # tiny: digits after a row of zeros would only fill the line
        return _scientific(v)
    return _positional(v, digits)


def _positional(v: float, digits: int) -> str:
    """``digits`` significant digits written out in full (``0.000046``, never ``4.6e-05``)."""
    if v != 0 and 1e-6 <= abs(v) < 1e15:
        text = np.format_float_positional(v, precision=digits, unique=True, fractional=False, trim="-")
    else:
        text = f"{v:.{digits}g}"
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
    currency: str = "",
    precise: bool = False,
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
    currency : str
        Written before amounts of money.
    precise : bool
        More digits (:func:`format_value`).

    Returns
    -------
    pandas.DataFrame
        Same rows and column order (or, transposed, one row per other column); the index is
        reset; every cell is a string. A count that is not whole is labelled "(estimated)";
        an infinite bound reads "not bounded".
    """
    style: dict[str, Any] = {"empty": empty, "currency": currency, "precise": precise}
    if transpose_on is not None:
        shown = present_table(frame, labels=labels, kinds=kinds, compact=compact, **style)
        names = [str(v) for v in frame[transpose_on].tolist()]
        position = list(frame.columns).index(transpose_on)
        shown = shown.drop(columns=[shown.columns[position]])
        body = pd.DataFrame(shown.to_numpy(dtype=object).T, columns=names, dtype=object)
        body.insert(0, "Quantity", list(shown.columns))
        return body
    labels, kinds = dict(labels or {}), dict(kinds or {})
    columns, seen = [], set()
    quantities = frame[row_kinds].astype(str).tolist() if row_kinds is not None else None
    if quantities is not None:
        rows = frame.drop(columns=[row_kinds]).to_numpy(dtype=object)
        per_row = [_row_kind(q, row) for q, row in zip(quantities, rows)]
    for j, name in enumerate(frame.columns):
        values = frame.iloc[:, j]
        if quantities is not None and name != row_kinds:
            cells = [_cell(v, kind, **style) for v, kind in zip(values.tolist(), per_row)]
        elif quantities is not None:
            cells = [_row_label(q, kind) for q, kind in zip(quantities, per_row)]
        else:
            kind = kinds.get(str(name)) or column_kind(name, values)
            kind = "estimate" if kind == "count" and _estimated(values) else kind
            cells = [_cell(v, kind, bound=_BOUND.match(str(name)) is not None, **style) for v in values.tolist()]
        short = SHORT_LABELS.get(str(name).strip().lower().replace(" ", "_")) if compact else None
        label = labels.get(str(name)) or short or _short_bound(name, compact) or column_label(name)
        if quantities is None and kind == "estimate" and "estimat" not in label.lower():
            label = f"{label} (estimated)"
        if label in seen:  # two names with one label: keep them apart
            label = f"{label} ({name})"
        seen.add(label)
        columns.append((label, cells))
    result = pd.DataFrame({j: cells for j, (_, cells) in enumerate(columns)}, index=range(len(frame)), dtype=object)
    result.columns = [label for label, _ in columns]
    return result


def _cell(value, kind: str, *, empty: str, currency: str, precise: bool, bound: bool = False) -> str:
    text = format_value(value, kind, empty, currency=currency, precise=precise)
    return "not bounded" if bound and text in ("∞", "−∞") else text


def _short_bound(name, compact: bool) -> str | None:
    """The compact label of a bound whose quantity has a short label ("TP lower" -> "TP, lower bound")."""
    bound = _BOUND.match(str(name))
    if not compact or bound is None:
        return None
    short = SHORT_LABELS.get(bound["base"].strip().lower().replace(" ", "_"))
    side = "lower" if bound["side"].lower() in ("lower", "low") else "upper"
    return f"{short}, {side} bound" if short else None


def _row_kind(quantity: str, values=()) -> str:
    known = _known(quantity)
    kind = known[1] if known is not None else column_kind(quantity, pd.Series([0.5]))
    return "estimate" if kind == "count" and _estimated(pd.Series(list(values), dtype=object)) else kind


def _row_label(quantity: str, kind: str) -> str:
    label = column_label(quantity)
    return f"{label} (estimated)" if kind == "estimate" and "estimat" not in label.lower() else label
