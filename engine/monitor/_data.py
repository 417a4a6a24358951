"""Rated documents with the day each was rated: one classifier's scores, labels and dates."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._arguments import column_name, instance, number, whole
from ..errors import RatedDataError, describe_rows
from ..io._rated import ColumnMapping, RatedData, detect_columns, detect_date_column, parse_dates, rated_from_frame
from ..io._tables import Source, read_table
from ..pn._curve import check_target
from ..pn._operating_point import operating_point
from ._counts import PeriodCounts, period_counts

__all__ = [
    "DatedMapping",
    "DatedRated",
    "detect_dated",
    "dated_from_frame",
    "load_dated",
    "baseline_threshold",
    "BASELINE_DAYS",
]

#: days at the start of the data on which :func:`baseline_threshold` chooses the threshold (a quarter)
BASELINE_DAYS = 91


@dataclass(frozen=True)
class DatedMapping:
    """Column roles of dated rated data.

    Attributes
    ----------
    classifier : str
        The score column.
    date_col : str
        The day each document was rated.
    label_col : str
        The raters' verdict (empty = not rated yet).
    group_col : str or None
        Segments (market, region ...), optional.
    """

    classifier: str
    date_col: str
    label_col: str
    group_col: str | None = None


@dataclass(frozen=True)
class DatedRated:
    """One classifier's rated documents and their dates.

    Attributes
    ----------
    data : RatedData
        The validated rated rows (one score column: the classifier).
    dates : numpy.ndarray of datetime64[D], shape (n_rated,)
        The day each rated document was rated.
    date_col : str
        The date column.
    """

    data: RatedData
    dates: np.ndarray
    date_col: str

    @property
    def classifier(self) -> str:
        return self.data.score_names[0]

    @property
    def mapping(self) -> DatedMapping:
        """The column roles the data was read with."""
        m = self.data.mapping
        return DatedMapping(self.classifier, self.date_col, m.label_col, m.group_col)

    @property
    def scores(self) -> np.ndarray:
        """The classifier's scores of the rated documents."""
        return self.data.scores[:, 0]

    @property
    def days(self) -> int:
        """Calendar days from the first to the last date."""
        return int((self.dates.max() - self.dates.min()).astype(np.int64)) + 1

    def counts(self, period: str = "week") -> PeriodCounts:
        """Counts per (period, score) of the rated documents.

        Parameters
        ----------
        period : {"day", "week", "month"}

        Returns
        -------
        PeriodCounts
        """
        return period_counts(
            self.data.scores[:, 0],
            self.data.labels,
            self.dates,
            period,
            rows_scanned=self.data.n_read,
            unrated=self.data.n_unrated,
        )


def detect_dated(
    frame: pd.DataFrame,
    *,
    classifier: str | None = None,
    date_col: str | None = None,
    label_col: str | None = None,
    group_col: str | None = None,
) -> DatedMapping:
    """Column roles of dated rated data: the ones given, the others detected.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table as read.
    classifier, date_col, label_col, group_col : str, optional
        Columns to use (default: detected, :func:`engine.io.detect_columns` and
        :func:`engine.io._rated.detect_date_column`; the classifier is the first score column).

    Returns
    -------
    DatedMapping

    Raises
    ------
    RatedDataError
        No date column, no score or label column, the date taken for a score, or a weight column
        (monitoring counts each rated document once).
    """
    for value, name in ((classifier, "classifier"), (date_col, "date_col"), (label_col, "label_col")):
        column_name(value, name)
    column_name(group_col, "group_col")
    date_col = detect_date_column(frame, date_col)
    guess = detect_columns(
        frame.drop(columns=[date_col]),
        score_cols=[classifier] if classifier else None,
        label_col=label_col,
        group_col=group_col,
    )
    if classifier is None and date_col in guess.score_cols:
        raise RatedDataError(
            f"Column '{date_col}' is both the date and a score; name the classifier with --classifier."
        )
    if guess.weight_col is not None:
        raise RatedDataError(
            f"Column '{guess.weight_col}' looks like a weight: monitoring counts every rated document "
            "once (its intervals and alerts are for documents, not weights). Remove or rename the "
            "weight column."
        )
    return DatedMapping(guess.score_cols[0], date_col, guess.label_col, guess.group_col)


def dated_from_frame(
    frame: pd.DataFrame, mapping: DatedMapping | None = None, *, name: str = "data", fingerprint: str = ""
) -> DatedRated:
    """Validate a frame as dated rated data and keep the rated rows with their days.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table as read, one row per document.
    mapping : DatedMapping, optional
        Column roles (default: :func:`detect_dated`).
    name, fingerprint : str
        The file's name (for messages) and SHA-256.

    Returns
    -------
    DatedRated

    Raises
    ------
    RatedDataError
        As :func:`engine.io.rated_from_frame` and :func:`detect_dated`; a date column that is also
        the classifier or the label; dates that do not parse or are missing on rated rows (the rows are named).
    """
    if mapping is None:
        mapping = detect_dated(frame)
    if mapping.date_col not in frame.columns:
        raise RatedDataError(f"The date column '{mapping.date_col}' is not in the file.")
    if mapping.date_col in (mapping.classifier, mapping.label_col, mapping.group_col):
        raise RatedDataError(
            f"Column '{mapping.date_col}' cannot be both the date and another role; choose the "
            "day each document was rated as the date column."
        )
    columns = ColumnMapping((mapping.classifier,), mapping.label_col, None, mapping.group_col)
    data = rated_from_frame(frame.drop(columns=[mapping.date_col]), columns, name=name, fingerprint=fingerprint)
    if data.mapping.weight_col is not None:
        raise RatedDataError(
            f"Column '{data.mapping.weight_col}' looks like a weight: monitoring counts every rated "
            "document once. Remove or rename the weight column."
        )
    all_days = parse_dates(frame[mapping.date_col], mapping.date_col)
    rated = np.ones(len(frame), dtype=bool)
    rated[data.unrated_rows] = False
    missing = rated & np.isnat(all_days)
    if missing.any():
        raise RatedDataError(
            f"Date column '{mapping.date_col}': missing dates on rated {describe_rows(missing)}. "
            "Every rated document needs the day it was rated (YYYY-MM-DD)."
        )
    return DatedRated(data, all_days[rated], mapping.date_col)


def load_dated(
    source: Source,
    *,
    classifier: str | None = None,
    date_col: str | None = None,
    label_col: str | None = None,
    group_col: str | None = None,
) -> DatedRated:
    """Read rated data with a date column (CSV, CSV.gz or Parquet) for monitoring.

    Parameters
    ----------
    source : str, pathlib.Path, bytes or file object
        The file.
    classifier : str, optional
        The score column (default: the first detected score column other than the date).
    date_col : str, optional
        The date column (default: detected, :func:`engine.io._rated.detect_date_column`).
    label_col, group_col : str, optional
        Label and segment columns (default: detected).

    Returns
    -------
    DatedRated

    Raises
    ------
    RatedDataError
        As :func:`engine.io.load_rated`; no date column; dates that do not parse or are missing on rated
        rows (the rows are named); a weight column (monitoring counts each rated document once).
    """
    table = read_table(source)
    mapping = detect_dated(
        table.frame, classifier=classifier, date_col=date_col, label_col=label_col, group_col=group_col
    )
    return dated_from_frame(table.frame, mapping, name=table.name, fingerprint=table.fingerprint)


def baseline_threshold(dated: DatedRated, target: float, days: int = BASELINE_DAYS) -> float:
    """The threshold chosen once: the operating point for ``target`` on the data's first ``days`` days.

    Parameters
    ----------
    dated : DatedRated
    target : float
        Target marginal precision in (0, 1).
    days : int, optional
        Days from the first date (default :data:`BASELINE_DAYS`, a quarter).

    Returns
    -------
    float
        The threshold (+inf: flag nothing).

    Raises
    ------
    InputError
        ``days`` is not a whole number >= 1, or a target outside (0, 1).

    References
    ----------
    Robles et al., AAAI-MAKE 2020 (the operating point).
    """
    instance(dated, "dated", DatedRated, "from load_dated(...) or dated_from_frame(...)")
    days = whole(days, "days", low=1)
    target = float(check_target(number(target, "target"))[0])
    first = dated.dates < dated.dates.min() + np.timedelta64(min(days, dated.days), "D")
    return float(operating_point(dated.scores[first], dated.data.labels[first], target).threshold)
