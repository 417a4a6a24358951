"""Rated documents with the day each was rated: one classifier's scores, labels and dates."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import RatedDataError, describe_rows
from ..io.rated import ColumnMapping, RatedData, detect_columns, detect_date_column, parse_dates, rated_from_frame
from ..io.tables import Source, read_table
from .counts import PeriodCounts, period_counts

__all__ = ["DatedRated", "load_dated"]


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
        return period_counts(self.data.scores[:, 0], self.data.labels, self.dates, period,
                             rows_scanned=self.data.n_read, unrated=self.data.n_unrated)


def load_dated(source: Source, *, classifier: str | None = None, date_col: str | None = None,
               label_col: str | None = None, group_col: str | None = None) -> DatedRated:
    """Read rated data with a date column (CSV, CSV.gz or Parquet) for monitoring.

    Parameters
    ----------
    source : str, pathlib.Path, bytes or file object
        The file.
    classifier : str, optional
        The score column (default: the first detected score column other than the date).
    date_col : str, optional
        The date column (default: detected, :func:`engine.io.rated.detect_date_column`).
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
    frame = table.frame
    date_col = detect_date_column(frame, date_col)
    guess = detect_columns(frame.drop(columns=[date_col]), score_cols=[classifier] if classifier else None,
                           label_col=label_col, group_col=group_col)
    if classifier is None and date_col in guess.score_cols:
        raise RatedDataError(f"Column '{date_col}' is both the date and a score; name the classifier with --classifier.")
    if guess.weight_col is not None:
        raise RatedDataError(f"Column '{guess.weight_col}' looks like a weight: monitoring counts every rated document "
                             "once (its intervals and alerts are for documents, not weights). Remove or rename the "
                             "weight column.")
    mapping = ColumnMapping((guess.score_cols[0],), guess.label_col, None, guess.group_col)
    data = rated_from_frame(frame.drop(columns=[date_col]), mapping, name=table.name, fingerprint=table.fingerprint)
    all_days = parse_dates(frame[date_col], date_col)
    rated = np.ones(len(frame), dtype=bool)
    rated[data.unrated_rows] = False
    missing = rated & np.isnat(all_days)
    if missing.any():
        raise RatedDataError(f"Date column '{date_col}': missing dates on rated {describe_rows(missing)}. Every rated "
                             "document needs the day it was rated (YYYY-MM-DD).")
    return DatedRated(data, all_days[rated], date_col)
