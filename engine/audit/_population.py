"""The scored population an audit samples from: every document's id and score, flagged or not.

A plan needs from the population only counts and a few rows, which every backend provides
through the same calls (:class:`PopulationScan`): a check-and-count scan of the scores, order
statistics of the below-line scores (the strata bounds), and one scan returning the documents
per stratum (and the prior column's sum, for Neyman allocation) together with the *candidates*
of :mod:`engine.audit._selection` (a second candidates scan only when a stratum falls short).
Ids are checked where they matter: a document below the line without an id is refused.
:class:`MemoryPopulation` answers them with numpy; :mod:`engine.backends._duckdb_audit` and
:mod:`engine.backends._spark_audit` answer them where the rows are. Every backend refuses the
same bad rows with the same message (:func:`check_counts`, :func:`missing_columns`).

Every scan also says who it is (:meth:`PopulationScan.identity`: the SHA-256 of the id and score
columns in memory, of the connection on a server) and returns the scores at or above the line
(:meth:`PopulationScan.above_scores`): the design record binds the audit to both.

**Reading files into memory** (:func:`read_population`) is bounded like an upload: a gzip file is
inflated in chunks and refused beyond :data:`engine.io._tables.MAX_TABLE_BYTES` (512 MB; a
compression bomb is never inflated whole), a plain CSV larger than that is refused, and a
Parquet file whose id / score / prior columns would inflate beyond it is refused from its
metadata. CSV is read with the delimiter an upload would be read with, every id as text (``007``
stays ``007``; an empty id is a missing one, as DuckDB and Spark read it) and every score
exactly (:mod:`engine.io._numbers`). The backends confine the paths (:func:`engine.backends.open_population`).
"""

from __future__ import annotations

import glob
import gzip
import hashlib
import io
import os
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Protocol

import numpy as np
import pandas as pd

from ..errors import InputError
from ..io._numbers import EXACT_READ_CSV, to_floats
from ..io._tables import MAX_TABLE_BYTES, sniff_delimiter
from ..untrusted import inflate_gzip
from ._selection import cutoff_limits, id_texts, selection_keys

__all__ = [
    "PopulationColumns",
    "PopulationSummary",
    "PopulationScan",
    "MemoryPopulation",
    "check_counts",
    "missing_columns",
    "columns_identity",
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
    boolean_score: bool = False,
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
    boolean_score : bool
        The score column holds true/false values (a type, not a score).

    Raises
    ------
    InputError
        Any count above zero.
    """
    if boolean_score:
        raise InputError(
            f"Score column '{columns.score}' of {where} holds true/false values, not scores. Choose the "
            "classifier's score column (numbers)."
        )
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


def missing_columns(where: str, columns: PopulationColumns, present: Sequence[str]) -> None:
    """Refuse columns that are not in the population, naming each one's role and every column there is.

    Parameters
    ----------
    where : str
        The population's name.
    columns : PopulationColumns
        The columns asked for.
    present : sequence of str
        Every column of the population (all of them, not only those asked for).

    Raises
    ------
    InputError
        ``Id column 'id' (--id) is not in 'x.csv'; its columns are doc_id, fraud_score.`` (every
        missing role named).
    """
    have = [str(c) for c in present]
    roles = [("Id", "--id", columns.id), ("Score", "--score", columns.score), ("Prior", "--prior", columns.prior)]
    absent = [(role, flag, name) for role, flag, name in roles if name and name not in have]
    if absent:
        said = " and ".join(
            f"{role.lower() if i else role} column '{name}' ({flag})" for i, (role, flag, name) in enumerate(absent)
        )
        raise InputError(
            f"{said} {'is' if len(absent) == 1 else 'are'} not in {where}; its columns are {', '.join(have) or 'none'}. "
            "Choose them from these."
        )


def columns_identity(ids, scores) -> dict:
    """The fingerprint of a population held in memory: the SHA-256 of its id and score columns, in row order.

    Parameters
    ----------
    ids : sequence of (str or None)
        Each document's id text (None when missing).
    scores : numpy.ndarray of float64
        Each document's score.

    Returns
    -------
    dict
        ``{"kind": "columns", "sha256": ...}``: the hash of every id's length in characters (a missing
        id has length -1), the ids' text joined (UTF-8), then the scores as little-endian doubles.
    """
    texts = ["" if i is None else str(i) for i in ids]
    lengths = np.fromiter((-1 if i is None else len(t) for i, t in zip(ids, texts)), dtype="<i8", count=len(texts))
    digest = hashlib.sha256(lengths.tobytes())  # lengths in characters: the joined text splits back one way
    digest.update("".join(texts).encode("utf-8", "surrogatepass"))
    digest.update(np.asarray(scores, dtype="<f8").tobytes())
    return {"kind": "columns", "sha256": digest.hexdigest()}


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

    # read-only members: a backend may keep them as class attributes, properties or frozen fields
    @property
    def backend(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def columns(self) -> PopulationColumns: ...

    def identity(self) -> dict:
        """The population's fingerprint for the design record.

        Returns
        -------
        dict
            ``{"kind": "columns" | "connection", "sha256": ...}``.
        """

    def above_scores(self, threshold: float) -> np.ndarray:
        """The scores of the documents at or above the line.

        Parameters
        ----------
        threshold : float
            The review line.

        Returns
        -------
        numpy.ndarray
            Ascending.
        """

    def summary(self, threshold: float) -> PopulationSummary:
        """One check-and-count scan: bad rows refused (:func:`check_counts`), documents above and below.

        Parameters
        ----------
        threshold : float
            The review line.

        Returns
        -------
        PopulationSummary
        """

    def order_statistics(self, ranks: np.ndarray, threshold: float, low: float, high: float) -> np.ndarray:
        """The below-line scores at 0-based ranks of their ascending order.

        Parameters
        ----------
        ranks : numpy.ndarray of int
        threshold : float
        low, high : float
            The lowest and highest below-line scores.

        Returns
        -------
        numpy.ndarray
        """

    def strata(
        self, lowers: np.ndarray, threshold: float, cutoffs: Sequence[str | None] | None = None, seed: int = 0
    ) -> tuple[np.ndarray, np.ndarray | None, pd.DataFrame | None]:
        """Documents and the prior's sum per stratum, and with ``cutoffs`` the selection's candidates.

        Parameters
        ----------
        lowers : numpy.ndarray
            Ascending stratum lower bounds.
        threshold : float
        cutoffs : sequence of (str or None), optional
        seed : int

        Returns
        -------
        (numpy.ndarray, numpy.ndarray or None, pandas.DataFrame or None)
        """

    def candidates(
        self, lowers: np.ndarray, threshold: float, cutoffs: Sequence[str | None], seed: int
    ) -> pd.DataFrame:
        """The below-line documents whose selection key is under their stratum's cutoff.

        Parameters
        ----------
        lowers : numpy.ndarray
        threshold : float
        cutoffs : sequence of (str or None)
        seed : int

        Returns
        -------
        pandas.DataFrame
            ``id``, ``score``, ``stratum``, ``key``.
        """

    def __enter__(self) -> PopulationScan: ...

    def __exit__(self, *exc) -> None: ...


@dataclass(frozen=True)
class MemoryPopulation:
    """A population held in memory (numpy), checked.

    Attributes
    ----------
    ids : numpy.ndarray of object
        Each document's id text (:func:`engine.audit._selection.id_texts`; None when missing).
    scores : numpy.ndarray of float64
        Finite scores.
    prior : numpy.ndarray of float64 or None
        Prior probabilities in [0, 1].
    name : str
        For messages.
    id_column : str
        The id column's name, for messages.
    score_column : str
        The score column's name.
    prior_column : str or None
        The prior column's name.
    """

    ids: np.ndarray
    scores: np.ndarray
    prior: np.ndarray | None = None
    name: str = "the population"
    id_column: str = "id"
    score_column: str = "score"
    prior_column: str | None = None
    backend: ClassVar[str] = "memory"

    @property
    def columns(self) -> PopulationColumns:
        """The id, score and prior columns read."""
        return PopulationColumns(self.id_column, self.score_column, self.prior_column)

    def identity(self) -> dict:
        """The SHA-256 of the id and score columns (:func:`columns_identity`), computed once per population.

        Returns
        -------
        dict
        """
        if "_identity" not in self.__dict__:  # frozen: the cache goes around __setattr__
            self.__dict__["_identity"] = columns_identity(self.ids, self.scores)
        return dict(self.__dict__["_identity"])

    def above_scores(self, threshold: float) -> np.ndarray:
        """The scores at or above the line, ascending.

        Parameters
        ----------
        threshold : float

        Returns
        -------
        numpy.ndarray
        """
        return np.sort(self.scores[self.scores >= threshold])

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


def _numbers(column: pd.Series) -> tuple[np.ndarray, int]:
    """(float64 values, how many were text that is not a number); text is parsed exactly (:func:`engine.io._numbers.to_floats`)."""
    if pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column):
        return column.to_numpy(dtype=np.float64, na_value=np.nan), 0
    text = column.astype("string").str.strip()
    values = to_floats(text)
    bad = (text.notna() & (text != "")).to_numpy(dtype=bool) & np.isnan(values)
    return values, int(bad.sum())


def _ids(column: pd.Series, name: str) -> np.ndarray:
    """Each id's text, None where it is missing or empty (as DuckDB and Spark read an empty id)."""
    missing = column.isna().to_numpy().copy()
    if not pd.api.types.is_numeric_dtype(column):
        missing |= np.fromiter(
            (isinstance(v, str) and v == "" for v in column.to_numpy(dtype=object)), bool, len(column)
        )
    ids = np.full(len(column), None, dtype=object)  # a missing id is refused if its document is below the line
    ids[~missing] = id_texts(column[~missing].reset_index(drop=True), name)
    return ids


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
        A missing column, decimal ids, a true/false score column, non-numeric / missing /
        infinite scores, or a prior outside [0, 1] (missing or empty ids are refused by the
        scans, below the line).
    """
    if not isinstance(frame, pd.DataFrame):
        raise InputError(f"A population is a DataFrame (one row per scored document), not {type(frame).__name__}.")
    if not isinstance(columns, PopulationColumns):
        raise InputError(f"The population's columns are a PopulationColumns, not {type(columns).__name__}.")
    missing_columns(name, columns, [str(c) for c in frame.columns])
    ids = _ids(frame[columns.id], columns.id)
    check_counts(name, columns, boolean_score=pd.api.types.is_bool_dtype(frame[columns.score]))
    scores, non_numeric = _numbers(frame[columns.score])
    prior = None
    bad_prior = 0
    if columns.prior:
        prior, text = _numbers(frame[columns.prior])
        bad_prior = text + int(np.sum(~((prior >= 0) & (prior <= 1))))
    check_counts(
        name,
        columns,
        non_numeric=non_numeric,
        missing_score=int(np.isnan(scores).sum()) - non_numeric,
        infinite=int(np.isinf(scores).sum()),
        bad_prior=bad_prior,
    )
    return MemoryPopulation(ids, scores, prior, name, columns.id, columns.score, columns.prior)


PARQUET_ENDINGS = (".parquet", ".parq", ".pq")
CSV_ENDINGS = (".csv", ".csv.gz", ".tsv", ".txt", ".gz")


def _too_large(where: str) -> InputError:
    return InputError(
        f"{where} holds more than {MAX_TABLE_BYTES / 2**20:,.0f} MB of rows (inflated): the memory backend reads at "
        "most that. Read it where it lies with --backend duckdb (or connect to it on the server)."
    )


def _inflated(raw: bytes, where: str) -> bytes:
    """The bytes of a file, inflated within :data:`MAX_TABLE_BYTES` when gzip-compressed."""
    if raw[:2] != b"\x1f\x8b":
        return raw
    try:
        return inflate_gzip(raw, what=f"population {where}", max_bytes=MAX_TABLE_BYTES)
    except InputError as exc:
        raise (_too_large(where) if "inflates to more than" in str(exc) else exc) from None


def _parquet_frame(data, columns: PopulationColumns, where: str) -> pd.DataFrame:
    import pyarrow as pa
    import pyarrow.parquet as pq

    parquet = pq.ParquetFile(data)
    names = parquet.schema_arrow.names
    missing_columns(where, columns, names)
    meta = parquet.metadata
    wanted = [names.index(c) for c in columns.names()]
    inflated = sum(
        meta.row_group(r).column(i).total_uncompressed_size for r in range(meta.num_row_groups) for i in wanted
    )
    if inflated > MAX_TABLE_BYTES:
        raise _too_large(where)
    table = parquet.read(columns=columns.names())
    # integers stay integers when some are missing (not floats): ids are hashed as their decimal text
    return table.to_pandas(types_mapper=lambda t: pd.Int64Dtype() if pa.types.is_integer(t) else None)


def _csv_frame(raw: bytes, columns: PopulationColumns, where: str) -> pd.DataFrame:
    """A CSV population: the delimiter an upload is read with, ids as text, scores exactly, all columns known."""
    text_head = raw[: 1 << 20].decode("utf-8-sig", errors="replace")
    lines = [line for line in text_head.splitlines()[:200] if line.strip()]
    if not lines:
        raise InputError(f"{where} is empty: a population has a header row and one row per scored document.")
    sep = sniff_delimiter("\n".join(lines))
    header = pd.read_csv(io.BytesIO(raw), sep=sep, nrows=0, encoding="utf-8-sig").columns
    missing_columns(where, columns, [str(c) for c in header])
    numbers = [c for c in (columns.score, columns.prior) if c]
    return pd.read_csv(
        io.BytesIO(raw),
        sep=sep,
        encoding="utf-8-sig",
        dtype={columns.id: str},
        usecols=lambda c: c in columns.names(),
        keep_default_na=False,
        na_values={c: [""] for c in numbers},
        low_memory=False,
        **EXACT_READ_CSV,
    )


def _frame(source, columns: PopulationColumns, where: str) -> pd.DataFrame:
    """One file (a path) or upload (bytes) as a frame of the columns asked for."""
    try:
        if isinstance(source, bytes):
            raw = _inflated(source, where)
            return (
                _parquet_frame(io.BytesIO(raw), columns, where)
                if raw[:4] == b"PAR1"
                else _csv_frame(raw, columns, where)
            )
        lower = source.lower()
        if lower.endswith(PARQUET_ENDINGS):
            return _parquet_frame(source, columns, where)
        if not lower.endswith(CSV_ENDINGS):
            raise InputError(
                f"{where}: the memory backend reads .parquet and .csv(.gz) files; for a DuckDB database use "
                "--backend duckdb --table NAME."
            )
        if os.path.getsize(source) > MAX_TABLE_BYTES:
            raise _too_large(where)
        with open(source, "rb") as handle:
            raw = _inflated(handle.read(), where)
        return _csv_frame(raw, columns, where)
    except InputError:
        raise
    except (OSError, ValueError, EOFError, zlib.error, gzip.BadGzipFile) as exc:  # pyarrow / pandas parse errors
        first = (str(exc).splitlines() or [type(exc).__name__])[0][:300]
        raise InputError(f"Could not read {where}: {first}") from None


def read_population(
    source, columns: PopulationColumns, *, name: str | None = None, files: Sequence[str] | None = None
) -> MemoryPopulation:
    """Read a population from Parquet or CSV files (a path or glob) or an upload's bytes into memory, within limits.

    CSV ids are read as text (``007`` stays ``007``), as every backend reads them. This function reads
    any path it is given; :func:`engine.backends.open_population` passes it only files inside
    ``OPSTUDIO_DATA_ROOTS``.

    Parameters
    ----------
    source : str or bytes
        A ``.parquet`` / ``.csv`` / ``.csv.gz`` / ``.tsv`` path or glob, or a file's bytes (CSV,
        gzip CSV or Parquet, recognised from the bytes).
    columns : PopulationColumns
    name : str, optional
        The population's name for messages (default: the path, or "upload").
    files : sequence of str, optional
        The files the path names, already matched (and checked) by the caller; default: the glob's matches.

    Returns
    -------
    MemoryPopulation

    Raises
    ------
    InputError
        No file matches, an unknown file type, more than :data:`~engine.io._tables.MAX_TABLE_BYTES`
        inflated, a truncated or corrupt file, a missing column (all columns listed), or bad rows.
    """
    if isinstance(source, (bytes, bytearray)):
        where = f"'{name or 'upload'}'"
        frame = _frame(bytes(source), columns, where)
    else:
        path = str(source)
        matched = sorted(glob.glob(path)) if files is None else [str(f) for f in files]
        if not matched:
            raise InputError(f"No file matches '{path}'. Check the path or glob.")
        where = f"'{name}'" if name else (f"'{path}'" if len(matched) > 1 else f"'{os.path.basename(path)}'")
        frames = [_frame(f, columns, where if len(matched) == 1 else f"'{os.path.basename(f)}'") for f in matched]
        if sum(int(f.memory_usage(deep=True).sum()) for f in frames) > 2 * MAX_TABLE_BYTES:
            raise _too_large(where)
        frame = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    return memory_population(frame, columns, name=where)


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
    if not isinstance(frame, pd.DataFrame):
        raise InputError(f"A population is a DataFrame (one row per scored document), not {type(frame).__name__}.")
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
