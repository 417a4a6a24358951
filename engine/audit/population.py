"""The scored population an audit samples from: every document's id and score, flagged or not.

A plan needs from the population only counts and a few rows, which every backend provides
through the same calls (:class:`PopulationScan`): a check-and-count scan of the scores, order
statistics of the below-line scores (the strata bounds), and one scan returning the documents
per stratum (and the prior column's sum, for Neyman allocation) together with the *candidates*
of :mod:`engine.audit.selection` (a second candidates scan only when a stratum falls short).
Ids are checked where they matter: a document below the line without an id is refused.
:class:`MemoryPopulation` answers them with numpy; :mod:`engine.backends.duckdb_audit` and
:mod:`engine.backends.spark_audit` answer them where the rows are. Every backend refuses the
same bad rows with the same message (:func:`check_counts`).
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Protocol

import numpy as np
import pandas as pd

from ..errors import InputError
from .selection import cutoff_limits, id_texts, selection_keys

__all__ = [
    "PopulationColumns",
    "PopulationSummary",
    "PopulationScan",
    "MemoryPopulation",
    "check_counts",
    "memory_population",
    "read_population",
    "stratum_index",
    "detect_population_columns",
]

#: column names taken for the document id (``doc_id``, ``id``, anything ending in ``_id``)
_ID_NAME = re.compile(r"^(id|doc|doc_id|document|document_id|uid|key|row_id)$|_id$", re.IGNORECASE)
#: column names taken for a prior probability
_PRIOR_NAME = re.compile(r"^(prior|prior_probability|prior_prob|probability|prob|p_positive)$", re.IGNORECASE)
#: column names that are labels, never scores (a fully labelled public set carries its known label)
_LABEL_NAME = re.compile(r"^(label|y|target|class|outcome|rating|verdict)$|_label$|^label_", re.IGNORECASE)


@dataclass(frozen=True)
class PopulationColumns:
    """Which columns of the population hold the id, the score and (optionally) a prior probability.

    Attributes
    ----------
    id : str
        Unique document ids (whole numbers or text).
    score : str
        The classifier's score (the review line is a threshold on it).
    prior : str or None
        A prior probability that the document is positive (for Neyman allocation), in [0, 1].
    """

    id: str
    score: str
    prior: str | None = None

    def names(self) -> list[str]:
        """The distinct columns read, in order (id, score, prior; the prior may be the score itself)."""
        return list(dict.fromkeys([self.id, self.score] + ([self.prior] if self.prior else [])))


@dataclass(frozen=True)
class PopulationSummary:
    """What one check scan found.

    Attributes
    ----------
    rows : int
        Documents in the population.
    above : int
        Documents with score >= the review threshold (flagged).
    below : int
        Documents with score < the review threshold (the audit's population).
    low, high : float
        Lowest and highest below-line score (NaN when none).
    """

    rows: int
    above: int
    below: int
    low: float
    high: float


def check_counts(
    where: str,
    columns: PopulationColumns,
    *,
    missing_id: int = 0,
    non_numeric: int = 0,
    missing_score: int = 0,
    infinite: int = 0,
    bad_prior: int = 0,
) -> None:
    """Refuse a population with bad rows: the column, how many rows, and the fix (the same on every backend).

    Parameters
    ----------
    where : str
        The population's name (a path, a table, "the DataFrame").
    columns : PopulationColumns
        The columns read.
    missing_id, non_numeric, missing_score, infinite, bad_prior : int
        Rows without an id; with a score that is text but not a number, missing, or infinite;
        with a prior that is missing, not a number or outside [0, 1].

    Raises
    ------
    InputError
        Any count above zero.
    """
    if missing_id:
        raise InputError(
            f"Id column '{columns.id}' of {where}: {missing_id:,} rows have no id. Every document needs a unique id."
        )
    if non_numeric:
        raise InputError(
            f"Score column '{columns.score}' of {where}: {non_numeric:,} rows hold non-numeric values. "
            "Make every score a number (dot as decimal separator)."
        )
    if missing_score:
        raise InputError(
            f"Score column '{columns.score}' of {where}: {missing_score:,} rows have no score. The "
            "population is every scored document: score them or leave them out."
        )
    if infinite:
        raise InputError(
            f"Score column '{columns.score}' of {where}: {infinite:,} rows have infinite scores. "
            "Replace them with finite scores."
        )
    if bad_prior:
        raise InputError(
            f"Prior column '{columns.prior}' of {where}: {bad_prior:,} rows have a prior that is "
            "missing, not a number, or outside [0, 1]. Priors are probabilities."
        )


def stratum_index(scores: np.ndarray, lowers: np.ndarray) -> np.ndarray:
    """0-based stratum of each below-line score: the number of stratum lower bounds at or below it, minus one.

    Parameters
    ----------
    scores : numpy.ndarray
        Scores below the line (each at least ``lowers[0]``).
    lowers : numpy.ndarray
        Ascending lower bounds of the strata.

    Returns
    -------
    numpy.ndarray of int64
    """
    return np.searchsorted(lowers, scores, side="right").astype(np.int64) - 1


class PopulationScan(Protocol):
    """What a backend answers about a population (see the module docstring); a context manager."""

    @property
    def backend(self) -> str: ...

    def summary(self, threshold: float) -> PopulationSummary: ...

    def order_statistics(self, ranks: np.ndarray, threshold: float, low: float, high: float) -> np.ndarray: ...

    def strata(
        self, lowers: np.ndarray, threshold: float, cutoffs: Sequence[str | None] | None = None, seed: int = 0
    ) -> tuple[np.ndarray, np.ndarray | None, pd.DataFrame | None]: ...

    def candidates(
        self, lowers: np.ndarray, threshold: float, cutoffs: Sequence[str | None], seed: int
    ) -> pd.DataFrame: ...

    def __enter__(self) -> PopulationScan: ...

    def __exit__(self, *exc) -> None: ...


@dataclass(frozen=True)
class MemoryPopulation:
    """A population held in memory (numpy), checked.

    Attributes
    ----------
    ids : numpy.ndarray of object
        Each document's id text (:func:`engine.audit.selection.id_texts`; None when missing).
    scores : numpy.ndarray of float64
        Finite scores.
    prior : numpy.ndarray of float64 or None
        Prior probabilities in [0, 1].
    name : str
        For messages.
    id_column : str
        The id column's name, for messages.
    """

    ids: np.ndarray
    scores: np.ndarray
    prior: np.ndarray | None = None
    name: str = "the population"
    id_column: str = "id"
    backend: ClassVar[str] = "memory"

    def __enter__(self) -> MemoryPopulation:
        return self

    def __exit__(self, *exc) -> None:
        return None

    def summary(self, threshold: float) -> PopulationSummary:
        """Documents above and below the line, and the range of the below-line scores.

        Parameters
        ----------
        threshold : float
            The review threshold.

        Returns
        -------
        PopulationSummary
        """
        below = self.scores[self.scores < threshold]
        return PopulationSummary(
            int(self.scores.size),
            int(self.scores.size - below.size),
            int(below.size),
            float(below.min()) if below.size else float("nan"),
            float(below.max()) if below.size else float("nan"),
        )

    def order_statistics(self, ranks: np.ndarray, threshold: float, low: float, high: float) -> np.ndarray:
        """The below-line scores at 0-based ranks (ascending order).

        Parameters
        ----------
        ranks : numpy.ndarray of int
        threshold : float
        low, high : float
            The below-line range (unused here; the out-of-core backends search within it).

        Returns
        -------
        numpy.ndarray
        """
        below = self.scores[self.scores < threshold]
        ranks = np.asarray(ranks, dtype=np.int64)
        return np.partition(below, ranks)[ranks] if ranks.size else np.zeros(0)

    def strata(
        self, lowers: np.ndarray, threshold: float, cutoffs: Sequence[str | None] | None = None, seed: int = 0
    ) -> tuple[np.ndarray, np.ndarray | None, pd.DataFrame | None]:
        """Documents per stratum, the prior's sum over each, and (with ``cutoffs``) the candidates.

        Parameters
        ----------
        lowers : numpy.ndarray
            Ascending stratum lower bounds.
        threshold : float
        cutoffs : sequence of (str or None), optional
            Per stratum: also return the candidates under these cutoffs.
        seed : int

        Returns
        -------
        (numpy.ndarray, numpy.ndarray or None, pandas.DataFrame or None)

        Raises
        ------
        InputError
            A document below the line without an id.
        """
        below = self.scores < threshold
        check_counts(self.name, PopulationColumns(self.id_column, ""), missing_id=int(pd.isna(self.ids[below]).sum()))
        h = stratum_index(self.scores[below], lowers)
        docs = np.bincount(h, minlength=lowers.size)
        prior = None if self.prior is None else np.bincount(h, weights=self.prior[below], minlength=lowers.size)
        found = None if cutoffs is None else self.candidates(lowers, threshold, cutoffs, seed)
        return docs, prior, found

    def candidates(
        self, lowers: np.ndarray, threshold: float, cutoffs: Sequence[str | None], seed: int
    ) -> pd.DataFrame:
        """Every below-line document whose selection key is under its stratum's cutoff.

        Parameters
        ----------
        lowers : numpy.ndarray
        threshold : float
        cutoffs : sequence of (str or None)
            Per stratum (None: no cutoff).
        seed : int

        Returns
        -------
        pandas.DataFrame
            ``id``, ``score``, ``stratum``, ``key``.
        """
        below = np.flatnonzero(self.scores < threshold)
        h = stratum_index(self.scores[below], lowers)
        keys = selection_keys(self.ids[below], seed)
        limit = np.array(cutoff_limits(cutoffs), dtype=object)[h]
        keep = keys < limit
        return pd.DataFrame(
            {"id": self.ids[below][keep], "score": self.scores[below][keep], "stratum": h[keep], "key": keys[keep]}
        )


def _numbers(column: pd.Series, name: str) -> tuple[np.ndarray, int]:
    """(float64 values, how many were text that is not a number)."""
    if pd.api.types.is_bool_dtype(column):
        return np.full(len(column), np.nan), len(column)
    if pd.api.types.is_numeric_dtype(column):
        return column.to_numpy(dtype=np.float64, na_value=np.nan), 0
    text = column.astype("string").str.strip()
    values = pd.to_numeric(text, errors="coerce")
    bad = text.notna() & (text != "") & values.isna()
    return values.to_numpy(dtype=np.float64, na_value=np.nan), int(bad.sum())


def memory_population(frame: pd.DataFrame, columns: PopulationColumns, name: str = "the DataFrame") -> MemoryPopulation:
    """Check a population held as a DataFrame and keep its ids, scores and prior.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per scored document.
    columns : PopulationColumns
        The id, score and (optional) prior columns.
    name : str
        For messages.

    Returns
    -------
    MemoryPopulation

    Raises
    ------
    InputError
        A missing column, decimal ids, non-numeric / missing / infinite scores, or a prior
        outside [0, 1] (missing ids are refused by the scans, below the line).
    """
    absent = [c for c in columns.names() if c not in frame.columns]
    if absent:
        raise InputError(
            f"{name} has no column {', '.join(repr(c) for c in absent)}; its columns are "
            f"{', '.join(map(str, frame.columns))}."
        )
    missing = frame[columns.id].isna().to_numpy()
    ids = np.full(len(frame), None, dtype=object)  # a missing id is refused if its document is below the line
    ids[~missing] = id_texts(frame[columns.id][~missing], columns.id)
    scores, non_numeric = _numbers(frame[columns.score], columns.score)
    prior = None
    bad_prior = 0
    if columns.prior:
        prior, text = _numbers(frame[columns.prior], columns.prior)
        bad_prior = text + int(np.sum(~((prior >= 0) & (prior <= 1))))
    check_counts(
        name,
        columns,
        non_numeric=non_numeric,
        missing_score=int(np.isnan(scores).sum()) - non_numeric,
        infinite=int(np.isinf(scores).sum()),
        bad_prior=bad_prior,
    )
    return MemoryPopulation(ids, scores, prior, name, columns.id)


def read_population(path: str, columns: PopulationColumns) -> MemoryPopulation:
    """Read a population from a Parquet or CSV file (or a glob of them) into memory.

    CSV ids are read as text (``007`` stays ``007``), as every backend reads them.

    Parameters
    ----------
    path : str
        A ``.parquet`` / ``.csv`` / ``.csv.gz`` / ``.tsv`` path or a glob.
    columns : PopulationColumns

    Returns
    -------
    MemoryPopulation

    Raises
    ------
    InputError
        No file matches, an unknown file type, a missing column, or bad rows.
    """
    files = sorted(glob.glob(path))
    if not files:
        raise InputError(f"No file matches '{path}'. Check the path or glob.")
    frames = []
    for f in files:
        lower = f.lower()
        try:
            if lower.endswith((".parquet", ".parq", ".pq")):
                import pyarrow as pa
                import pyarrow.parquet as pq

                names = pq.read_schema(f).names
                table = pq.read_table(f, columns=[c for c in columns.names() if c in names])
                # integers stay integers when some are missing (not floats): ids are hashed as their decimal text
                frames.append(
                    table.to_pandas(types_mapper=lambda t: pd.Int64Dtype() if pa.types.is_integer(t) else None)
                )
            elif lower.endswith((".csv", ".csv.gz", ".tsv", ".txt")):
                frames.append(
                    pd.read_csv(
                        f,
                        sep="\t" if lower.endswith(".tsv") else ",",
                        dtype={columns.id: str},
                        usecols=lambda c: c in columns.names(),
                        keep_default_na=False,
                        na_values={columns.score: [""], **({columns.prior: [""]} if columns.prior else {})},
                    )
                )
            else:
                raise InputError(
                    f"'{f}': the memory backend reads .parquet and .csv(.gz) files; for a DuckDB "
                    "database use --backend duckdb --table NAME."
                )
        except InputError:
            raise
        except (OSError, ValueError) as exc:  # pyarrow / pandas parse errors
            raise InputError(f"Could not read '{f}': {str(exc).splitlines()[0][:300]}") from None
    frame = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    if columns.id in frame.columns and not pd.api.types.is_numeric_dtype(frame[columns.id]):
        empty = (frame[columns.id].astype("string").fillna("") == "").to_numpy(dtype=bool)
        if empty.any():  # an empty id is a missing one, as DuckDB and Spark read it
            frame[columns.id] = frame[columns.id].where(~empty, None)
    return memory_population(frame, columns, name=f"'{path}'" if len(files) > 1 else f"'{os.path.basename(path)}'")


def _numeric_share(column: pd.Series) -> float:
    if pd.api.types.is_bool_dtype(column):
        return 0.0
    if pd.api.types.is_numeric_dtype(column):
        return 1.0
    values = pd.to_numeric(column.astype("string").str.strip(), errors="coerce")
    return float(values.notna().mean()) if len(column) else 0.0


def detect_population_columns(
    frame: pd.DataFrame, *, id: str | None = None, score: str | None = None, prior: str | None = None
) -> PopulationColumns:
    """Guess a population's id, score and prior columns; any column given explicitly is kept (and checked).

    Id: a column named ``id``, ``doc_id``, ``document`` … or ending in ``_id``. Score: a column
    named ``score`` (or containing it), else the first numeric column that is neither the id, a
    prior nor a label (``label``, ``known_label`` …). Prior: only a column named ``prior``,
    ``probability`` … (never guessed from values).

    Parameters
    ----------
    frame : pandas.DataFrame
        The population as read.
    id, score, prior : str, optional
        Columns chosen by the user.

    Returns
    -------
    PopulationColumns

    Raises
    ------
    InputError
        A named column is missing, or no id or score column is found.
    """
    cols = [str(c) for c in frame.columns]
    for role, given in (("id", id), ("score", score), ("prior", prior)):
        if given is not None and given not in cols:
            raise InputError(f"The {role} column '{given}' is not in the file. Columns are: {', '.join(cols)}.")
    if id is None:
        id = next((c for c in cols if _ID_NAME.search(c)), None)
    if id is None:
        raise InputError(
            f"No id column found (a column named id, doc_id or ending in _id); columns are "
            f"{', '.join(cols)}. Choose the column of unique document ids."
        )
    if prior is None:
        prior = next((c for c in cols if _PRIOR_NAME.search(c) and c != id and c != score), None)
    if score is None:
        free = [c for c in cols if c not in (id, prior) and not _LABEL_NAME.search(c)]
        named = [c for c in free if "score" in c.lower()]
        score = next((c for c in named + free if _numeric_share(frame[c]) >= 0.9), None)
    if score is None:
        raise InputError(
            f"No score column found (a numeric column other than the id, a prior or a label); columns "
            f"are {', '.join(cols)}. Choose the classifier's score column."
        )
    return PopulationColumns(id, score, prior)
