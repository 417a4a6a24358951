"""Rated data: column detection and validation.

Rated data are documents whose score from one or more classifiers reached a low
review threshold and that a human then rated as positive (a true positive) or
negative (a false positive). True and false negatives are never observed
(Robles et al., AAAI-MAKE 2020, "Problem Description").

Everything a user uploads passes through :func:`~engine.io._tables.read_table`
(bytes -> DataFrame) and :func:`rated_from_frame` (DataFrame + column mapping ->
:class:`RatedData`). Every problem raises :class:`~engine.errors.RatedDataError`
with the column, up to five offending row numbers (row 1 = first data row, header
not counted) and how to fix it. Rows without a label are *unrated*: they are
excluded, counted and listed, never an error.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import MAX_LISTED, RatedDataError, describe_rows, row_problem, shown_values
from ._numbers import to_floats
from ._tables import Source, read_table

__all__ = [
    "LABEL_VALUES",
    "ColumnMapping",
    "RatedData",
    "detect_columns",
    "parse_labels",
    "numeric_column",
    "rated_from_frame",
    "load_rated",
    "DATE_NAMES",
    "DATE_TEXT_PATTERN",
    "detect_date_column",
    "parse_dates",
]


#: Accepted label spellings (compared after ``strip().lower()``).
LABEL_VALUES: dict[str, int] = {
    "1": 1,
    "1.0": 1,
    "true": 1,
    "yes": 1,
    "y": 1,
    "tp": 1,
    "pos": 1,
    "positive": 1,
    "t": 1,
    "0": 0,
    "0.0": 0,
    "false": 0,
    "no": 0,
    "n": 0,
    "fp": 0,
    "neg": 0,
    "negative": 0,
    "f": 0,
}


_LABEL_NAMES = (
    "label",
    "labels",
    "y",
    "rating",
    "rated_label",
    "verdict",
    "is_positive",
    "target",
    "class",
    "outcome",
    "truth",
    "human_label",
    "rater_label",
    "tp_fp",
)


_WEIGHT_NAMES = ("weight", "weights", "w", "sample_weight", "doc_weight", "case_weight")


_GROUP_NAMES = ("group", "groups", "segment", "cohort", "region", "market", "country", "sex", "gender")


#: names of a date column (the day a document was rated), compared in lower case
DATE_NAMES = (
    "date",
    "day",
    "rated_on",
    "rated_at",
    "review_date",
    "reviewed_at",
    "rating_date",
    "timestamp",
    "datetime",
    "created_at",
    "time",
)

#: a date as text: ``YYYY-MM-DD``, optionally followed by a time (`` 10:00`` or ``T10:00:00Z``); the same
#: pattern in Python and in DuckDB's ``regexp_full_match`` (RE2)
DATE_TEXT_PATTERN = r"\d{4}-\d{2}-\d{2}(?:[ T].*)?"
_DATE_TEXT = re.compile(f"^{DATE_TEXT_PATTERN}$")


#: most classifiers detected automatically in one file (more must be chosen explicitly)
MAX_SCORE_COLUMNS = 50


_ID_PATTERN = re.compile(
    r"^(unnamed: ?\d+|id|index|row|row_id|doc|doc_id|document|document_id|uid|key)$|(_id)$", re.IGNORECASE
)


def is_id_name(column: str) -> bool:
    """Whether a column is named like an identifier (``id``, ``doc_id``, ``row``, ``Unnamed: 0`` …): never a score.

    Parameters
    ----------
    column : str
        The column's name.

    Returns
    -------
    bool
    """
    return bool(_ID_PATTERN.search(str(column)))


@dataclass(frozen=True)
class ColumnMapping:
    """Which columns hold the scores, the label, the weight and the group.

    Attributes
    ----------
    score_cols : tuple of str
        One column per classifier, holding its scores.
    label_col : str
        The raters' verdicts (spellings of :data:`LABEL_VALUES`; empty = unrated).
    weight_col : str or None
        Non-negative document weights; every document weighs 1 when None.
    group_col : str or None
        Segment of each document (for per-segment thresholds).
    ignored_cols : tuple of str
        Columns left out on purpose.
    """

    score_cols: tuple[str, ...]
    label_col: str
    weight_col: str | None = None
    group_col: str | None = None
    ignored_cols: tuple[str, ...] = ()


def _numeric_share(col: pd.Series) -> float:
    if pd.api.types.is_bool_dtype(col):
        return 0.0
    if pd.api.types.is_numeric_dtype(col):
        return 1.0
    nonnull = col.dropna()
    if len(nonnull) == 0:
        return 0.0
    sample = nonnull.iloc[:5000]
    return float(pd.to_numeric(sample, errors="coerce").notna().mean())


def _looks_like_label(col: pd.Series) -> bool:
    nonnull = col.dropna()
    if len(nonnull) == 0:
        return False
    if pd.api.types.is_bool_dtype(col):
        return True
    values = pd.unique(nonnull.astype(str).str.strip().str.lower())
    return len(values) <= 2 and all(v in LABEL_VALUES for v in values)


def likely_label_column(frame: pd.DataFrame) -> str | None:
    """The column most like a label when none passes :func:`detect_columns`' test (a stray value in it).

    The column, by name or otherwise not an id, whose non-empty values are mostly label
    spellings (1/0, yes/no, tp/fp …; at least 90 % of them): mapping it as the label lets
    validation name the unknown values and their rows instead of failing on the scores.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table as read.

    Returns
    -------
    str or None
        The column with the largest share of label spellings (ties: the first), or None
        when no column reaches 90 %.
    """
    best, best_share = None, 0.9
    for column in frame.columns:
        values = frame[column].dropna()
        if len(values) == 0 or _ID_PATTERN.search(str(column)):
            continue
        share = float(values.astype(str).str.strip().str.lower().isin(LABEL_VALUES).mean())
        if share >= best_share and values.astype(str).str.strip().str.lower().nunique() >= 2:
            best, best_share = str(column), share + 1e-12
    return best


def detect_columns(
    frame: pd.DataFrame,
    *,
    score_cols: Sequence[str] | None = None,
    label_col: str | None = None,
    weight_col: str | None = None,
    group_col: str | None = None,
) -> ColumnMapping:
    """Guess the column roles; any role given explicitly is kept (and checked to exist).

    Label: a conventional name (``label``, ``y``, ``rating``, ``verdict`` ...) or
    else the first column holding only label spellings. Weight and group:
    conventional names only. Scores: every other column that is (at least 90 %)
    numeric and not an identifier (``id``, ``doc_id``, ``Unnamed: 0`` ...).

    Parameters
    ----------
    frame : pandas.DataFrame
        The table as read.
    score_cols : sequence of str, optional
        Score columns; detected when None.
    label_col, weight_col, group_col : str, optional
        Columns of the label, weight and group; detected when None.

    Returns
    -------
    ColumnMapping
        The roles, explicit ones kept.

    Raises
    ------
    RatedDataError
        A named column is missing, no label column is found, or no score column is found.
    """
    cols = [str(c) for c in frame.columns]
    lower = {c.lower(): c for c in cols}
    for role, given in (("label", label_col), ("weight", weight_col), ("group", group_col)):
        if given is not None and given not in cols:
            raise RatedDataError(f"The {role} column '{given}' is not in the file. Columns are: {', '.join(cols)}.")
    for c in score_cols or ():
        if c not in cols:
            raise RatedDataError(f"The score column '{c}' is not in the file. Columns are: {', '.join(cols)}.")

    if label_col is None:
        label_col = next((lower[n] for n in _LABEL_NAMES if n in lower), None)
    if label_col is None:
        excluded = set(score_cols or ())
        label_col = next((c for c in cols if c not in excluded and _looks_like_label(frame[c])), None)
    if label_col is None:
        raise RatedDataError(
            "No label column found. Name the column with the raters' verdicts 'label' "
            "(values such as 1/0, yes/no, tp/fp) or choose it explicitly."
        )
    if weight_col is None:
        weight_col = next((lower[n] for n in _WEIGHT_NAMES if n in lower and lower[n] != label_col), None)
    if group_col is None:
        group_col = next((lower[n] for n in _GROUP_NAMES if n in lower and lower[n] != label_col), None)
    taken = {label_col, weight_col, group_col} - {None}
    if score_cols is None:
        candidates = [c for c in cols if c not in taken and not _ID_PATTERN.search(c)]
        score_cols = [
            c for c in candidates if _numeric_share(frame[c]) >= 0.9 and not pd.api.types.is_bool_dtype(frame[c])
        ]
        if not score_cols:
            raise RatedDataError(
                "No numeric score column found. Each classifier needs a column of numeric "
                f"scores (columns seen: {', '.join(cols[:20])}{' ...' if len(cols) > 20 else ''})."
            )
        if len(score_cols) > MAX_SCORE_COLUMNS:
            raise RatedDataError(
                f"{len(score_cols):,} numeric columns could be scores; at most {MAX_SCORE_COLUMNS} "
                f"classifiers are used. Choose the score columns explicitly (first ones seen: "
                f"{', '.join(score_cols[:5])} ...)."
            )
    overlap = taken & set(score_cols)
    if overlap:
        raise RatedDataError(
            f"Column {sorted(str(c) for c in overlap)[0]!r} is used both as a score and as label/weight/group. "
            "Give each column one role."
        )
    ignored = tuple(c for c in cols if c not in taken and c not in score_cols)
    return ColumnMapping(tuple(score_cols), label_col, weight_col, group_col, ignored)


@dataclass(frozen=True)
class RatedData:
    """Validated rated documents (only rated rows are kept).

    Attributes
    ----------
    scores : numpy.ndarray of float64, shape (n, k)
        Scores of the n rated documents by the k classifiers.
    labels : numpy.ndarray of int8, shape (n,)
        1 = rated positive (true positive), 0 = rated negative (false positive).
    weights : numpy.ndarray of float64, shape (n,)
        1.0 unless a weight column is given: a weight lets a sampled rating count for
        the documents it stands for.
    score_names : tuple of str
        The k classifier names (the score columns).
    groups : numpy.ndarray of object, shape (n,), or None
        Group of each rated document when a group column is mapped.
    n_read : int
        Rows in the file.
    n_unrated : int
        Rows without a label (excluded).
    unrated_rows : numpy.ndarray of int
        0-based positions in the file of the rows without a label.
    rating_floor : numpy.ndarray of float64, shape (k,)
        Lowest rated score of each classifier: below it nothing is known.
    mapping : ColumnMapping
        The column roles the data was read with.
    name : str
        Display name of the data set.
    fingerprint : str
        SHA-256 of the file.
    warnings : tuple of str
        Problems that did not stop the read (unrated rows, one class only ...).
    unrated_groups : numpy.ndarray or None
        The group of every unrated row (in ``unrated_rows`` order) when a group column is mapped.
    """

    scores: np.ndarray
    labels: np.ndarray
    weights: np.ndarray
    score_names: tuple[str, ...]
    groups: np.ndarray | None
    n_read: int
    n_unrated: int
    unrated_rows: np.ndarray
    rating_floor: np.ndarray
    mapping: ColumnMapping
    name: str = "data"
    fingerprint: str = ""
    warnings: tuple[str, ...] = field(default=())
    #: the group of every unrated row (in ``unrated_rows`` order) when a group column is mapped
    unrated_groups: np.ndarray | None = None

    @property
    def n_rated(self) -> int:
        return int(self.labels.shape[0])

    @property
    def n_classifiers(self) -> int:
        return int(self.scores.shape[1])

    @property
    def positives(self) -> float:
        """Weighted count of rated positives (true positives at the review threshold)."""
        return float(self.weights @ self.labels)

    @property
    def negatives(self) -> float:
        return float(self.weights.sum() - self.positives)

    @property
    def prevalence_among_rated(self) -> float:
        total = self.weights.sum()
        return float(self.positives / total) if total > 0 else float("nan")

    def summary(self) -> dict:
        """What identifies the data set a choice was made on (for reports and records)."""
        return {
            "name": self.name,
            "fingerprint_sha256": self.fingerprint,
            "rows_read": self.n_read,
            "rated_rows": self.n_rated,
            "unrated_rows": self.n_unrated,
            "score_columns": list(self.score_names),
            "label_column": self.mapping.label_col,
            "weight_column": self.mapping.weight_col,
            "group_column": self.mapping.group_col,
            "rated_positives_weighted": self.positives,
            "prevalence_among_rated": self.prevalence_among_rated,
        }

    def columns(self, names: Sequence[str]) -> np.ndarray:
        """Scores of several classifiers by name, one column each (n_rated x len(names)).

        Parameters
        ----------
        names : sequence of str
            Classifier names (score columns).

        Returns
        -------
        numpy.ndarray of float64, shape (n_rated, len(names))
            Their scores, in the order of ``names``.

        Raises
        ------
        RatedDataError
            An unknown name.
        """
        return np.column_stack([self.column(name) for name in names])

    def column(self, name: str) -> np.ndarray:
        """Scores of one classifier by name.

        Parameters
        ----------
        name : str
            A classifier name (score column).

        Returns
        -------
        numpy.ndarray of float64, shape (n_rated,)
            Its scores.

        Raises
        ------
        RatedDataError
            An unknown name.
        """
        try:
            return self.scores[:, self.score_names.index(name)]
        except ValueError:
            raise RatedDataError(
                f"No classifier named {name!r}; choose one of {', '.join(self.score_names)}."
            ) from None


def parse_labels(values: pd.Series | np.ndarray, column: str = "label") -> tuple[np.ndarray, np.ndarray]:
    """Map label spellings to 0/1; return (labels int8 with -1 for unrated, unrated mask).

    Parameters
    ----------
    values : pandas.Series or numpy.ndarray
        The label column: booleans, 0/1 numbers or spellings of :data:`LABEL_VALUES`
        (compared after ``strip().lower()``); missing or blank = unrated.
    column : str, optional
        The column's name, for messages.

    Returns
    -------
    (numpy.ndarray of int8, numpy.ndarray of bool)
        Labels (1, 0, or -1 for unrated) and the unrated mask, both of the column's length.

    Raises
    ------
    RatedDataError
        Values outside :data:`LABEL_VALUES` (the message lists them and their rows).
    """
    s = pd.Series(values)
    missing = s.isna().to_numpy().copy()
    if pd.api.types.is_string_dtype(s) or s.dtype == object:
        stripped = s.astype("string").str.strip()
        missing |= (stripped == "").fillna(False).to_numpy(dtype=bool)
    out = np.full(len(s), -1, dtype=np.int8)
    present = ~missing
    if pd.api.types.is_bool_dtype(s):
        out[present] = s[present].astype(bool).to_numpy().astype(np.int8)
        return out, missing
    if pd.api.types.is_numeric_dtype(s):
        v = s.to_numpy(dtype=float)
        ok = present & ((v == 0) | (v == 1))
        bad = present & ~ok
        if bad.any():
            raise RatedDataError(row_problem("label", column, f"{shown_values(v[bad], True)} at {describe_rows(bad)}"))
        out[ok] = v[ok].astype(np.int8)
        return out, missing
    key = s.astype("string").str.strip().str.lower()
    mapped = key.map(LABEL_VALUES).to_numpy(dtype=float, na_value=np.nan)
    number = to_floats(key)  # a number written otherwise ("1.00", "0e0") is the label it equals, as in a numeric column
    mapped = np.where(np.isnan(mapped) & ((number == 0) | (number == 1)), number, mapped)
    bad = present & np.isnan(mapped)
    if bad.any():
        raise RatedDataError(
            row_problem("label", column, f"{shown_values(s[bad].astype(str))} at {describe_rows(bad)}")
        )
    out[present] = mapped[present].astype(np.int8)
    return out, missing


def numeric_column(frame: pd.DataFrame, name: str, role: str) -> np.ndarray:
    """Column ``name`` as float64 (NaN where empty); non-numbers raise :class:`RatedDataError` naming the rows.

    ``role`` ("score", "weight", "probability" ...) words the message.
    """
    col = frame[name]
    if pd.api.types.is_bool_dtype(col):
        raise RatedDataError(row_problem("boolean", name, role=role))
    if pd.api.types.is_numeric_dtype(col):
        return col.to_numpy(dtype=np.float64, na_value=np.nan)
    text = col.astype("string").str.strip()
    numbers = to_floats(text)
    bad = (text.notna() & (text != "")).to_numpy(dtype=bool) & np.isnan(numbers)
    if bad.any():
        shown = shown_values(text[bad])
        raise RatedDataError(row_problem("not_number", name, f"{shown} at {describe_rows(bad)}", role=role))
    return numbers


def _score_matrix(frame: pd.DataFrame, mapping: ColumnMapping, rated: np.ndarray) -> np.ndarray:
    """Every chosen score column as float64; infinite scores, or missing ones on rated rows, refused."""
    scores = np.empty((len(frame), len(mapping.score_cols)), dtype=np.float64)
    for j, col in enumerate(mapping.score_cols):
        values = numeric_column(frame, col, "score")
        inf = np.isinf(values)
        if inf.any():
            raise RatedDataError(row_problem("infinite", col, f"at {describe_rows(inf)}", role="score"))
        missing = np.isnan(values) & rated
        if missing.any():
            raise RatedDataError(row_problem("missing_score", col, f"at {describe_rows(missing)}", role="score"))
        scores[:, j] = values
    return scores


def _weights(frame: pd.DataFrame, mapping: ColumnMapping, rated: np.ndarray) -> np.ndarray:
    """The weight column (finite, >= 0 on rated rows), or 1 per row."""
    if mapping.weight_col is None:
        return np.ones(len(frame))
    weights = numeric_column(frame, mapping.weight_col, "weight")
    bad = rated & (~np.isfinite(weights) | (weights < 0))
    if bad.any():
        raise RatedDataError(row_problem("weight", mapping.weight_col, f"at {describe_rows(bad)}", role="weight"))
    return weights


def _groups(frame: pd.DataFrame, mapping: ColumnMapping, rated: np.ndarray, warnings: list[str]):
    """(groups of rated rows, groups of unrated rows), or (None, None) without a group column."""
    if mapping.group_col is None:
        return None, None
    g = frame[mapping.group_col]
    gmiss = g.isna().to_numpy() & rated
    # every row of a group refers to one text object: 10^6 rows of four regions hold 8 MB of references instead of
    # 10^6 separate texts (58 MB), and weighing the data for the server's cache follows four objects, not 10^6
    codes, names = pd.factorize(g.astype("string").fillna("(missing)"))
    all_groups = np.asarray(names, dtype=object)[codes]
    if gmiss.any():
        warnings.append(
            f"Group column '{mapping.group_col}': {int(gmiss.sum())} rated rows have no group; "
            f"they are grouped as '(missing)' ({describe_rows(gmiss)})."
        )
    return all_groups[rated], all_groups[~rated]


def _class_warnings(labels_r: np.ndarray, weights_r: np.ndarray, mapping: ColumnMapping, warnings: list[str]) -> None:
    pos_w = float(weights_r @ labels_r)
    neg_w = float(weights_r.sum() - pos_w)
    if pos_w == 0 or neg_w == 0:
        only = "negative" if pos_w == 0 else "positive"
        warnings.append(
            f"All rated documents are {only}: marginal precision is degenerate "
            f"({'0' if pos_w == 0 else '1'} everywhere) and every target gives the same operating point."
        )
    if weights_r.sum() == 0:
        raise RatedDataError(row_problem("zero_weight", mapping.weight_col, role="weight"))


def rated_from_frame(
    frame: pd.DataFrame, mapping: ColumnMapping | None = None, *, name: str = "data", fingerprint: str = ""
) -> RatedData:
    """Validate a frame under a column mapping (detected when ``None``) and keep the rated rows.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table as read, one row per document.
    mapping : ColumnMapping, optional
        Column roles; the ones not given are detected (:func:`detect_columns`).
    name, fingerprint : str
        The file's name (for messages) and SHA-256.

    Returns
    -------
    RatedData
        The rated rows; unrated rows are counted, listed and excluded.

    Raises
    ------
    RatedDataError
        With the column, the rows and the fix.
    """
    if mapping is None:
        mapping = detect_columns(frame)
    else:
        mapping = detect_columns(
            frame,
            score_cols=mapping.score_cols,
            label_col=mapping.label_col,
            weight_col=mapping.weight_col,
            group_col=mapping.group_col,
        )
    n_read = len(frame)
    if n_read == 0:
        raise RatedDataError(f"'{name}' has no data rows. Add one row per rated document.")
    labels, unrated = parse_labels(frame[mapping.label_col], mapping.label_col)
    rated = ~unrated
    scores = _score_matrix(frame, mapping, rated)
    weights = _weights(frame, mapping, rated)
    if not rated.any():
        raise RatedDataError(row_problem("no_rated", mapping.label_col))
    warnings: list[str] = []
    groups, unrated_groups = _groups(frame, mapping, rated, warnings)
    labels_r, weights_r, scores_r = labels[rated], weights[rated], np.ascontiguousarray(scores[rated])
    _class_warnings(labels_r, weights_r, mapping, warnings)
    unrated_rows = np.flatnonzero(unrated)
    if len(unrated_rows):
        warnings.append(
            f"{len(unrated_rows)} rows have no label and are excluded as unrated ({describe_rows(unrated_rows)})."
        )
    return RatedData(
        scores=scores_r,
        labels=labels_r,
        weights=weights_r,
        score_names=tuple(mapping.score_cols),
        groups=groups,
        n_read=n_read,
        n_unrated=int(len(unrated_rows)),
        unrated_rows=unrated_rows,
        rating_floor=scores_r.min(axis=0),
        mapping=mapping,
        name=name,
        fingerprint=fingerprint,
        warnings=tuple(warnings),
        unrated_groups=unrated_groups,
    )


def load_rated(
    source: Source,
    *,
    score_cols: Sequence[str] | None = None,
    label_col: str | None = None,
    weight_col: str | None = None,
    group_col: str | None = None,
) -> RatedData:
    """Read and validate rated data from a path, bytes or file object (CSV, CSV.gz, Parquet).

    Parameters
    ----------
    source : str, pathlib.Path, bytes or file object
        The file: a path, its raw bytes or an open binary file.
    score_cols : sequence of str, optional
        Score columns; detected when None (:func:`detect_columns`).
    label_col, weight_col, group_col : str, optional
        Columns of the label, weight and group; detected when None.

    Returns
    -------
    RatedData
        The validated rated rows.

    Raises
    ------
    RatedDataError
        The file cannot be read, or its columns or values are invalid.

    Examples
    --------
    >>> from engine import load_rated
    >>> data = load_rated("sample_data/synthetic_rare_events.csv.gz")
    >>> data.score_names
    ('score_image', 'score_text')
    >>> len(data.labels), int(data.labels.sum())
    (19770, 1671)
    """
    table = read_table(source)
    mapping = detect_columns(
        table.frame, score_cols=score_cols, label_col=label_col, weight_col=weight_col, group_col=group_col
    )
    return rated_from_frame(table.frame, mapping, name=table.name, fingerprint=table.fingerprint)


def detect_date_column(frame: pd.DataFrame, date_col: str | None = None) -> str:
    """The column holding the day each document was rated: ``date_col`` if given, else detected.

    Detected: a column with a date or datetime type, else the first column named like
    :data:`DATE_NAMES` (any case).

    Parameters
    ----------
    frame : pandas.DataFrame
        The table as read.
    date_col : str, optional
        The column to use; checked to exist.

    Returns
    -------
    str
        The date column's name.

    Raises
    ------
    RatedDataError
        ``date_col`` is not in the table, or no date column is found.
    """
    cols = [str(c) for c in frame.columns]
    if date_col is not None:
        if date_col not in cols:
            raise RatedDataError(f"The date column '{date_col}' is not in the file. Columns are: {', '.join(cols)}.")
        return date_col
    typed = [c for c in cols if pd.api.types.is_datetime64_any_dtype(frame[c])]
    if typed:
        return typed[0]
    lower = {c.lower(): c for c in cols}
    found = next((lower[n] for n in DATE_NAMES if n in lower), None)
    if found is None:
        raise RatedDataError(
            "No date column found. Name the column with the day each document was rated 'date' "
            f"(values like 2025-01-06) or choose it explicitly (columns: {', '.join(cols[:20])})."
        )
    return found


def _text_days(text: pd.Series) -> np.ndarray:
    """``YYYY-MM-DD`` prefixes (already matched) as ``datetime64[D]``, NaT where the day does not exist.

    Computed from the digits, so every year 0000-9999 is read (pandas' nanosecond timestamps stop in
    2262); year 0000 is 1 BC of the proleptic Gregorian calendar, as in DuckDB.
    """
    digits = text.str.slice(0, 10)
    year = digits.str.slice(0, 4).astype(np.int64).to_numpy()
    month = digits.str.slice(5, 7).astype(np.int64).to_numpy()
    day = digits.str.slice(8, 10).astype(np.int64).to_numpy()
    ok = (month >= 1) & (month <= 12) & (day >= 1)
    months = ((year - 1970) * 12 + np.clip(month, 1, 12) - 1).astype("timedelta64[M]") + np.datetime64(0, "M")
    first = months.astype("datetime64[D]")
    length = ((months + np.timedelta64(1, "M")).astype("datetime64[D]") - first).astype(np.int64)
    ok &= day <= length
    return np.where(ok, first + (np.clip(day, 1, 31) - 1).astype("timedelta64[D]"), np.datetime64("NaT", "D"))


def parse_dates(values: pd.Series | np.ndarray, column: str = "date") -> np.ndarray:
    """Calendar days of a date column: ``datetime64[D]``, NaT where the cell is empty.

    **The day of a document** is the calendar day written: text must start with ``YYYY-MM-DD``
    (a time, and a time-zone offset, may follow after a space or ``T``; the day is the one
    written, whatever the offset). A date or time-zone-naive datetime type is taken as it is;
    a time-zone-aware datetime type holds instants, whose day is their day in UTC. Every year
    0000-9999 is read (no nanosecond limit), and DuckDB reads the same days
    (:mod:`engine.backends._duckdb_monitor`). Each distinct value is parsed once.

    Parameters
    ----------
    values : pandas.Series or numpy.ndarray
        The column.
    column : str, optional
        Its name, for messages.

    Returns
    -------
    numpy.ndarray of datetime64[D]
        One day per value; NaT for empty cells.

    Raises
    ------
    RatedDataError
        Values that are not dates (the message lists them and their rows) or a numeric column.
    """
    s = pd.Series(values)
    if pd.api.types.is_datetime64_any_dtype(s):
        if getattr(s.dt, "tz", None) is not None:
            s = s.dt.tz_convert("UTC").dt.tz_localize(None)
        return s.to_numpy().astype("datetime64[D]")  # the column's own unit: no nanosecond overflow
    if pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s):
        raise RatedDataError(
            f"Date column '{column}' holds numbers, not dates. Write the day each document was "
            "rated as YYYY-MM-DD (e.g. 2025-01-06)."
        )
    # each distinct value is parsed once (dates repeat: a year of ratings holds a few hundred distinct days)
    codes, uniques = pd.factorize(s, use_na_sentinel=True)
    text = pd.Series(uniques, dtype=object).astype("string").str.strip()
    ok = text.str.match(_DATE_TEXT.pattern).fillna(False).to_numpy(dtype=bool)
    days = np.full(len(text), np.datetime64("NaT"), dtype="datetime64[D]")
    if ok.any():
        days[ok] = _text_days(text[ok])
    empty = (text == "").fillna(False).to_numpy(dtype=bool)
    bad_unique = np.isnat(days) & ~empty
    bad = (codes >= 0) & bad_unique[np.maximum(codes, 0)]
    if bad.any():
        shown = ", ".join(repr(str(x)[:40]) for x in pd.unique(s[bad].astype(str))[:MAX_LISTED])
        raise RatedDataError(
            f"Date column '{column}': values that are not dates {shown} at {describe_rows(bad)}. "
            "Write dates as YYYY-MM-DD (a time may follow, e.g. 2025-01-06 14:30)."
        )
    out = np.full(len(s), np.datetime64("NaT"), dtype="datetime64[D]")
    known = codes >= 0
    out[known] = days[codes[known]]
    return out
