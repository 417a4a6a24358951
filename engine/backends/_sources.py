"""Where the rows live, registered once: callers ask for a result, not for a backend.

Every result a page or a command computes from rated rows — the upper hull of one
classifier's PN curve (:func:`pn_hull`), operating points for targets (:func:`sweep_points`),
the joint threshold grid of several classifiers (:func:`joint_grid`), hashed bootstrap
intervals (:func:`bootstrap_points`) — is one call here, whatever holds the rows:

* ``memory``: a :class:`engine.io.RatedData` (rows read and validated in this process);
* ``duckdb``: rows counted by DuckDB where they lie (Parquet / CSV paths and globs, a DuckDB
  table): a :class:`ConnectedData` of the dashboard or a :class:`CountedRows`;
* ``spark``: rows counted by Apache Spark (locally or through Spark Connect), a :class:`CountedRows`.

The same places hold the two other kinds of rows the engine reads out of core: an audit's
population (every scored document, :func:`open_population`) and dated ratings counted per
period (:func:`dated_counts`).

:data:`DATA_SOURCES` holds one :class:`DataSource` per place; a new place is one entry
(its functions live in its own module). :func:`open_rows` opens a path with a backend
(``auto`` picks memory or DuckDB by size) and :func:`data_source` finds the entry of data
already opened. Every backend returns what the in-memory engine returns on the same rows,
with a :class:`ScanStats` saying what was read.
"""

from __future__ import annotations

import glob
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..audit._population import MemoryPopulation, PopulationColumns, PopulationScan, memory_population, read_population
from ..errors import InputError
from ..io import ColumnMapping, RatedData, detect_columns, load_rated, read_table
from ..io._rated import detect_date_column
from ..monitor._counts import PeriodCounts
from ..monitor._data import DatedRated, load_dated
from ..pn import DEFAULT_SWEEP_TARGETS, Hull, ThresholdGrid, bootstrap, pn_curve, sweep, threshold_grid, upper_hull
from ..pn.counting import check_target
from ._confine import checked_files, readable_roots
from ._connect import ScanProgress
from ._counted import counted_bootstrap, counted_curve, counted_grid, counted_points
from ._duckdb import DuckSource, ScanStats
from ._duckdb_audit import DuckPopulation
from ._duckdb_monitor import duckdb_period_counts
from ._spark import SparkSource
from ._spark_audit import SparkPopulation

__all__ = [
    "choose_backend",
    "AUTO_DUCKDB_BYTES",
    "BACKENDS",
    "DataSource",
    "DATA_SOURCES",
    "CountedRows",
    "data_source",
    "open_rows",
    "pn_hull",
    "sweep_points",
    "joint_grid",
    "bootstrap_points",
    "rated_row_ids",
    "resampling_note",
    "scan_sentence",
    "ROWS_NEEDED",
    "open_population",
    "DatedCounts",
    "dated_counts",
    "period_backends",
]

#: why the results that resample or split rows need them in memory, and the way round
ROWS_NEEDED = (
    "they resample or split the rows in memory. Upload the rows (or a sample of them) for the "
    "dashboard, or run `opstudio sweep PATH --backend duckdb --bootstrap N` on the server."
)


@dataclass(frozen=True)
class CountedRows:
    """Rows that stay where they are (a DuckDB or Spark source) with their column mapping.

    Attributes
    ----------
    source : DuckSource or SparkSource
        Where the rows are.
    mapping : ColumnMapping
        Score, label and weight columns (detected on the first rows, or given).
    """

    source: Any
    mapping: ColumnMapping

    @property
    def name(self) -> str:
        return str(getattr(self.source, "path", None) or getattr(self.source, "data", "the DataFrame"))

    @property
    def score_names(self) -> tuple[str, ...]:
        return tuple(self.mapping.score_cols)


@dataclass(frozen=True)
class DataSource:
    """One place rated rows can live, and how each result is computed there.

    Attributes
    ----------
    name : str
        The ``--backend`` name.
    title : str
        For people (``"DuckDB"``).
    holds : callable
        ``holds(data)``: True for data opened on this source.
    open : callable or None
        ``open(path, *, table, remote, label, scores, group)`` -> data (None: not opened from a path).
    hull : callable
        ``hull(data, classifier, progress)`` -> (Hull, ScanStats).
    points : callable
        ``points(data, classifier, targets)`` -> (list of OperatingPoint, ScanStats).
    grid : callable
        ``grid(data, classifiers, bins, rule, spacing, progress)`` -> (ThresholdGrid, ScanStats).
    boot : callable
        ``boot(data, classifier, targets, n_boot, level, seed, id_column, path)`` -> list of BootstrapPoint.
    rows_in_memory : bool
        The rows are here: results that resample or split them (page bootstraps, segments) are offered.
    phrase : str
        How a status line says where the counting runs (``"with DuckDB"``, ``"in memory"``).
    source_type : type or None
        The class of this backend's own source objects (:class:`DuckSource`, :class:`SparkSource`), which
        :func:`open_population` accepts as they are.
    population : callable or None
        ``population(where, columns, *, table, remote)`` -> PopulationScan (None: audits not planned here).
    periods : callable or None
        ``periods(path, *, table, classifier, date, label, period, threshold, group)`` -> :class:`DatedCounts`
        (None: dated ratings are not counted here).
    """

    name: str
    title: str
    holds: Callable[[Any], bool]
    open: Callable[..., Any] | None
    hull: Callable[..., tuple]
    points: Callable[..., tuple]
    grid: Callable[..., tuple]
    boot: Callable[..., list]
    rows_in_memory: bool = False
    phrase: str = ""
    source_type: type | None = None
    population: Callable[..., PopulationScan] | None = None
    periods: Callable[..., DatedCounts] | None = None

    @property
    def counted_where(self) -> str:
        """``phrase``, or ``"with <title>"``."""
        return self.phrase or f"with {self.title}"


# --- memory -------------------------------------------------------------------------------------------------------


def _memory_stats(data: RatedData, distinct: int, started: float) -> ScanStats:
    return ScanStats(
        "memory", int(data.n_read), int(data.n_rated), int(data.n_unrated), int(distinct), time.perf_counter() - started
    )


def _memory_hull(data: RatedData, classifier: str, progress=None):
    started = time.perf_counter()
    curve = pn_curve(data.column(classifier), data.labels, data.weights)
    return upper_hull(curve), _memory_stats(data, len(curve.thresholds), started)


def _memory_points(data: RatedData, classifier: str, targets):
    hull, stats = _memory_hull(data, classifier)
    return sweep(targets=targets, hull=hull), stats


def _memory_grid(data: RatedData, classifiers, bins, rule, spacing, progress=None):
    started = time.perf_counter()
    cols = list(classifiers)
    grid = threshold_grid(
        data.columns(cols), data.labels, data.weights, bins=bins, rule=rule, spacing=spacing, score_names=cols
    )
    return grid, _memory_stats(data, 0, started)


def rated_row_ids(data: RatedData, id_column: str | None = None, path=None) -> np.ndarray:
    """Row ids of the rated rows for hashed Poisson replicates: the id column, or positions in the file.

    The CLI's memory backend and the Operating point page hash the same ids, so their intervals are equal
    (and equal DuckDB's and Spark's on the same file).

    Parameters
    ----------
    data : RatedData
        Rated rows in memory.
    id_column : str, optional
        Integer row-id column of the file (default: each rated row's position among the rows read).
    path : str, optional
        The file the rows were read from (needed with ``id_column``).

    Returns
    -------
    numpy.ndarray of int64
        One id per rated row, in the rows' order.

    Raises
    ------
    InputError
        A missing or invalid id column.
    """
    # positions not among the unrated ones, in order: a mask, not setdiff1d's sort of 10^6 positions
    kept = np.ones(data.n_read, dtype=bool)
    kept[data.unrated_rows] = False
    rated = np.flatnonzero(kept)
    if id_column is None:
        return rated
    if path is None:
        raise InputError(f"An id column ('{id_column}') needs the file the rows were read from.")
    frame = read_table(path).frame
    if id_column not in frame.columns:
        raise InputError(f"No column '{id_column}' for --id; columns: {', '.join(map(str, frame.columns))}.")
    ids = pd.to_numeric(frame[id_column], errors="coerce").to_numpy(dtype=float)[rated]
    bad = ~np.isfinite(ids) | (ids < 0) | (ids != np.round(ids))
    if bad.any():
        raise InputError(
            f"Column '{id_column}': {int(bad.sum()):,} rated rows have a missing, negative or "
            "non-integer id. Row ids must be integers >= 0."
        )
    return ids.astype(np.int64)


def _memory_boot(data: RatedData, classifier, targets, n_boot, level, seed, id_column, path):
    boot = bootstrap(
        data.column(classifier),
        data.labels,
        data.weights,
        n_boot=n_boot,
        level=level,
        seed=seed,
        resample="poisson",
        ids=rated_row_ids(data, id_column, path),
    )
    return [boot.at(t) for t in np.atleast_1d(check_target(targets))]


def _check_options(backend: str, table, remote, operand: str = "FILE") -> None:
    """One message per option given to a backend that does not take it."""
    if remote is not None and backend != "spark":
        raise InputError("--spark-remote needs --backend spark")
    if table is not None and backend == "spark":
        raise InputError(
            f"--table is for a DuckDB database file; with --backend spark give the table name as {operand}"
        )
    if table is not None and backend != "duckdb":
        raise InputError("--table reads a DuckDB database file: use --backend duckdb (or auto)")


def _memory_open(path, *, table=None, remote=None, label=None, scores=None, weight=None, group=None):
    return load_rated(path, score_cols=scores, label_col=label, weight_col=weight, group_col=group)


def _memory_population(where, columns: PopulationColumns, *, table=None, remote=None) -> PopulationScan:
    # the files are matched and checked against OPSTUDIO_DATA_ROOTS here (links resolved), then read by their real paths
    return read_population(where, columns, files=checked_files(str(where), readable_roots()))


def _memory_periods(
    path, *, table=None, classifier=None, date=None, label=None, period="week", threshold=None, group=None
) -> DatedCounts:
    dated = load_dated(path, classifier=classifier, date_col=date, label_col=label, group_col=group)
    return DatedCounts(dated.counts(period), dated.classifier, dated)


# --- DuckDB and Spark: counted where the rows are ------------------------------------------------------------------


def _mapping(sample: pd.DataFrame, source, label, scores, weight) -> ColumnMapping:
    if {"tp", "fp"} <= {str(c).strip().lower() for c in sample.columns}:
        raise InputError(
            f"'{getattr(source, 'path', None) or getattr(source, 'data', '')}' holds aggregated counts (columns "
            "tp, fp): they are read in memory; use --backend memory."
        )
    return detect_columns(sample, label_col=label, score_cols=scores, weight_col=weight)


def _duck_open(path, *, table=None, remote=None, label=None, scores=None, weight=None, group=None):
    source = DuckSource(path, table=table)
    return CountedRows(source, _mapping(source.first_rows(), source, label, scores, weight))


def _spark_open(path, *, table=None, remote=None, label=None, scores=None, weight=None, group=None):
    source = SparkSource(path, remote=remote)
    return CountedRows(source, _mapping(source.first_rows(), source, label, scores, weight))


def _duck_population(where, columns: PopulationColumns, *, table=None, remote=None) -> PopulationScan:
    source = where if isinstance(where, DuckSource) else DuckSource(where, table=table, roots=readable_roots())
    return DuckPopulation(source, columns)


def _spark_population(where, columns: PopulationColumns, *, table=None, remote=None) -> PopulationScan:
    return SparkPopulation(where if isinstance(where, SparkSource) else SparkSource(where, remote=remote), columns)


def _duck_periods(
    path, *, table=None, classifier=None, date=None, label=None, period="week", threshold=None, group=None
) -> DatedCounts:
    if group is not None:
        raise InputError("--by needs the rows in memory (per-segment thresholds); use --backend memory")
    source = DuckSource(path, table=table)
    sample = source.first_rows()
    date = detect_date_column(sample, date)
    mapping = detect_columns(
        sample.drop(columns=[date]), label_col=label, score_cols=[classifier] if classifier else None
    )
    if mapping.weight_col is not None:
        raise InputError(
            f"Column '{mapping.weight_col}' looks like a weight: monitoring counts every rated document "
            "once. Remove or rename the weight column."
        )
    name = mapping.score_cols[0]
    counts, _ = duckdb_period_counts(
        source, score=name, label=mapping.label_col, date=date, period=period, threshold=threshold
    )
    return DatedCounts(counts, name, None)


def _columns(data) -> dict:
    return {"label": data.mapping.label_col, "weight": data.mapping.weight_col}


def _check_classifiers(data, names) -> None:
    for name in names:
        if name not in data.score_names:
            raise InputError(
                f"No classifier named '{name}' in '{data.name}'; choose one of {', '.join(data.score_names)}."
            )


def _followed(data, progress: ScanProgress | None):
    """The rows' source, read through connections ``progress`` follows (DuckDB reports its progress)."""
    return progress.source(data.source) if progress is not None and isinstance(data.source, DuckSource) else data.source


def _counted_hull(data, classifier, progress=None):
    _check_classifiers(data, [classifier])
    curve, stats = counted_curve(_followed(data, progress), score=classifier, **_columns(data))
    return upper_hull(curve), stats


def _counted_grid(data, classifiers, bins, rule, spacing, progress=None):
    _check_classifiers(data, classifiers)
    return counted_grid(
        _followed(data, progress), scores=list(classifiers), bins=bins, rule=rule, spacing=spacing, **_columns(data)
    )


def _counted_points(data, classifier, targets):
    _check_classifiers(data, [classifier])
    return counted_points(data.source, score=classifier, targets=targets, **_columns(data))


def _counted_boot(data, classifier, targets, n_boot, level, seed, id_column, path):
    _check_classifiers(data, [classifier])
    points, _ = counted_bootstrap(
        data.source,
        score=classifier,
        targets=targets,
        id_column=id_column,
        n_boot=n_boot,
        level=level,
        seed=seed,
        **_columns(data),
    )
    return points


#: Every place rows can live, in ``--backend`` order: the one place a data source is added.
DATA_SOURCES: dict[str, DataSource] = {
    s.name: s
    for s in (
        DataSource(
            "memory",
            "memory",
            lambda d: isinstance(d, RatedData),
            _memory_open,
            _memory_hull,
            _memory_points,
            _memory_grid,
            _memory_boot,
            rows_in_memory=True,
            phrase="in memory",
            population=_memory_population,
            periods=_memory_periods,
        ),
        DataSource(
            "duckdb",
            "DuckDB",
            lambda d: isinstance(getattr(d, "source", None), DuckSource),
            _duck_open,
            _counted_hull,
            _counted_points,
            _counted_grid,
            _counted_boot,
            source_type=DuckSource,
            population=_duck_population,
            periods=_duck_periods,
        ),
        DataSource(
            "spark",
            "Spark",
            lambda d: isinstance(getattr(d, "source", None), SparkSource),
            _spark_open,
            _counted_hull,
            _counted_points,
            _counted_grid,
            _counted_boot,
            source_type=SparkSource,
            population=_spark_population,
        ),
    )
}


#: the ``--backend`` choices: ``auto`` and every registered source
BACKENDS = ("auto", *DATA_SOURCES)
#: files (or globs) larger than this are counted by DuckDB under --backend auto
AUTO_DUCKDB_BYTES = 100 * 1024 * 1024


def choose_backend(path: str, backend: str = "auto", table: str | None = None) -> str:
    """The backend counting a path or glob; ``auto`` picks DuckDB for globs, tables and large files, never Spark.

    Parameters
    ----------
    path : str
        A file path or a glob.
    backend : {"auto", "memory", "duckdb", "spark"}, optional
        ``memory``, ``duckdb`` and ``spark`` are returned as given (Spark only when asked: it
        needs a JVM and, for a cluster, a Connect URL); ``auto`` means DuckDB for a glob
        (or a pattern matching other than exactly ``path``) and for a file larger than
        :data:`AUTO_DUCKDB_BYTES`, memory otherwise.
    table : str, optional
        A table of a DuckDB database file at ``path``: ``auto`` then means DuckDB.

    Returns
    -------
    str
        ``"memory"``, ``"duckdb"`` or ``"spark"``.

    Raises
    ------
    InputError
        ``backend`` is not one of :data:`BACKENDS`.
    """
    if backend not in BACKENDS:
        raise InputError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    if backend != "auto":
        return backend
    if table is not None:
        return "duckdb"
    files = glob.glob(path)
    if len(files) != 1 or files[0] != path:
        return "duckdb"  # a glob (or several files) is never read into memory whole
    return "duckdb" if os.path.getsize(path) > AUTO_DUCKDB_BYTES else "memory"


def data_source(data) -> DataSource:
    """The registered source holding ``data``.

    Parameters
    ----------
    data : RatedData, ConnectedData or CountedRows
        Rows opened by :func:`open_rows`, loaded by :func:`engine.io.load_rated` or connected on the Data page.

    Returns
    -------
    DataSource
        The entry of :data:`DATA_SOURCES` whose ``holds`` accepts it.

    Raises
    ------
    InputError
        No registered source holds it.
    """
    for source in DATA_SOURCES.values():
        if source.holds(data):
            return source
    raise InputError(f"{type(data).__name__} is not rated rows of any data source ({', '.join(DATA_SOURCES)}).")


def open_rows(
    path: str,
    backend: str = "auto",
    *,
    table: str | None = None,
    remote: str | None = None,
    label: str | None = None,
    scores: Sequence[str] | None = None,
    weight: str | None = None,
    group: str | None = None,
    needs_rows: str | None = None,
):
    """Rated rows at a path (or glob, or table) on the source that counts them.

    Parameters
    ----------
    path : str
        File, glob, DuckDB database file (with ``table``) or Spark table name.
    backend : str, optional
        A key of :data:`DATA_SOURCES` or ``"auto"`` (DuckDB for globs and large files, memory
        otherwise; see :func:`engine.backends.choose_backend`).
    table : str, optional
        The table of a DuckDB database file.
    remote : str, optional
        A Spark Connect URL.
    label : str, optional
        Label column (default: detected).
    scores : sequence of str, optional
        Score columns (default: detected).
    weight : str, optional
        Weight column (default: detected).
    group : str, optional
        Segment column (rows in memory only).
    needs_rows : str, optional
        What the caller will compute that resamples or splits the rows in memory (``"--by and
        --capacity"``): refused, before anything is read, on a source that counts them elsewhere.

    Returns
    -------
    RatedData or CountedRows
        Rows to pass to :func:`pn_hull`, :func:`sweep_points`, :func:`joint_grid` or :func:`bootstrap_points`.

    Raises
    ------
    InputError
        An unknown backend, options of another backend, a missing file or column, or invalid rows.
    """
    name = choose_backend(path, backend, table)
    _check_options(name, table, remote)
    source = DATA_SOURCES[name]
    if needs_rows is not None and not source.rows_in_memory:
        raise InputError(f"{needs_rows} run on the memory backend; use --backend memory")
    return source.open(  # type: ignore[misc]
        path,
        table=table,
        remote=remote,
        label=label,
        scores=list(scores) if scores else None,
        weight=weight,
        group=group,
    )


def pn_hull(data, classifier: str, *, progress: ScanProgress | None = None) -> tuple[Hull, ScanStats]:
    """The upper hull of one classifier's PN curve, counted where the rows are.

    Parameters
    ----------
    data : RatedData, ConnectedData or CountedRows
        The rows (any registered source).
    classifier : str
        One of their score columns.
    progress : ScanProgress, optional
        Follows a DuckDB scan (ignored elsewhere).

    Returns
    -------
    (Hull, ScanStats)
        The hull :func:`engine.pn.upper_hull` gives on the same rows in memory, and what was read.

    Raises
    ------
    InputError
        An unknown classifier, invalid rows, or (DuckDB, Spark) more distinct scores than
        :data:`engine.backends._counted.DISTINCT_CAP`.

    References
    ----------
    Robles et al., AAAI-MAKE 2020: the PN curve and its upper hull.

    Examples
    --------
    The same hull counted by DuckDB where the rows lie (only one row per distinct score reaches Python):

    >>> from engine.backends import open_rows, pn_hull
    >>> rows = open_rows("sample_data/synthetic_rare_events.csv.gz", "duckdb")
    >>> hull, stats = pn_hull(rows, "score_image")
    >>> stats.backend, stats.rated, stats.unrated, stats.distinct_scores
    ('duckdb', 19770, 77, 4502)
    """
    return data_source(data).hull(data, classifier, progress)


def sweep_points(data, classifier: str, targets=DEFAULT_SWEEP_TARGETS) -> tuple[list, ScanStats]:
    """Operating points of one classifier for target marginal precisions, counted where the rows are.

    Parameters
    ----------
    data : RatedData, ConnectedData or CountedRows
        The rows (any registered source).
    classifier : str
        One of their score columns.
    targets : float or sequence of float, optional
        Target marginal precisions in (0, 1).

    Returns
    -------
    (list of OperatingPoint, ScanStats)
        The in-memory engine's (threshold, TP, FP) on the same rows; DuckDB and Spark refine quantile
        bins exactly above the distinct-score cap (marginal precisions around the point NaN).

    Raises
    ------
    InputError
        A target outside (0, 1), an unknown classifier, or invalid rows.

    References
    ----------
    Robles et al., AAAI-MAKE 2020: the operating point maximises TP − λ·FP on the PN curve.
    """
    return data_source(data).points(data, classifier, targets)


def joint_grid(
    data,
    classifiers: Sequence[str],
    *,
    bins: int | Sequence[int] = 100,
    rule: str = "or",
    spacing: str = "quantile",
    progress: ScanProgress | None = None,
) -> tuple[ThresholdGrid, ScanStats]:
    """TP and FP on the joint threshold grid of several classifiers, counted where the rows are.

    Parameters
    ----------
    data : RatedData, ConnectedData or CountedRows
        The rows (any registered source).
    classifiers : sequence of str
        Score columns.
    bins : int or sequence of int, optional
        Thresholds per axis.
    rule : {"or", "and"}, optional
        A row is flagged when any (OR) / all (AND) of its scores reach their thresholds.
    spacing : {"quantile", "uniform"}, optional
        How the axis levels are placed.
    progress : ScanProgress, optional
        Follows a DuckDB scan (ignored elsewhere).

    Returns
    -------
    (ThresholdGrid, ScanStats)
        The grid :func:`engine.pn.threshold_grid` gives on the same rows, and what was read.

    Raises
    ------
    InputError
        An unknown classifier, a bad rule, spacing or size, or invalid rows.

    References
    ----------
    Robles et al., AAAI-MAKE 2020, eq. (1).
    """
    return data_source(data).grid(data, list(classifiers), bins, rule, spacing, progress)


def bootstrap_points(
    data,
    classifier: str,
    *,
    targets=DEFAULT_SWEEP_TARGETS,
    n_boot: int = 200,
    level: float = 0.95,
    seed: int = 0,
    id_column: str | None = None,
    path=None,
) -> list:
    """Hashed Poisson bootstrap intervals of the operating points: the same replicates on every source.

    Parameters
    ----------
    data : RatedData, ConnectedData or CountedRows
        The rows (any registered source).
    classifier : str
        One of their score columns.
    targets : float or sequence of float, optional
        Target marginal precisions.
    n_boot : int, optional
        Replicates, at least 1.
    level : float, optional
        Interval level in (0, 1).
    seed : int, optional
        Replicate seed.
    id_column : str, optional
        Integer row-id column hashed into the replicates (default: the row's position).
    path : str, optional
        The file in-memory rows were read from (to read ``id_column``).

    Returns
    -------
    list of BootstrapPoint
        One per target.

    Raises
    ------
    InputError
        Fewer than 1 replicate, a bad level or target, or a missing / invalid id column.
    """
    if n_boot < 1:
        raise InputError(f"--bootstrap needs at least 1 replicate, got {n_boot}")
    return data_source(data).boot(data, classifier, targets, n_boot, level, seed, id_column, path)


def resampling_note(data) -> str | None:
    """None when the rows are in memory (bootstraps and segments offered), else why they are not.

    Parameters
    ----------
    data : RatedData, ConnectedData or CountedRows
        The rows.

    Returns
    -------
    str or None
        The reason and the way round (:data:`ROWS_NEEDED`).
    """
    return None if data_source(data).rows_in_memory else ROWS_NEEDED


def scan_sentence(stats: ScanStats, what: str) -> str:
    """What was read, for a caption: empty for rows in memory.

    Parameters
    ----------
    stats : ScanStats
        From a result of this module.
    what : str
        What came back (``"distinct scores"``).

    Returns
    -------
    str
        ``"Counted by DuckDB over N rows (...) in s; only M <what> reached the dashboard."`` or ``""``.
    """
    source = DATA_SOURCES.get(stats.backend)
    if source is None or source.rows_in_memory:
        return ""
    return (
        f"Counted by {source.title} over {stats.rows_scanned:,} rows ({stats.rated:,} rated, {stats.unrated:,} "
        f"unrated) in {stats.seconds:.2f} s; only {stats.distinct_scores:,} {what} reached the dashboard."
    )


def open_population(
    population,
    *,
    id: str,
    score: str,
    prior: str | None = None,
    backend: str = "auto",
    table: str | None = None,
    spark_remote: str | None = None,
) -> PopulationScan:
    """The population to plan an audit on (every scored document), read where it lives.

    Parameters
    ----------
    population : pandas.DataFrame, str, DuckSource, SparkSource or MemoryPopulation
        The scored documents: a DataFrame, a Parquet / CSV path or glob, a DuckDB database file
        (with ``table``), a Spark catalog table name or DataFrame (with ``backend="spark"``).
    id, score : str
        The id and score columns.
    prior : str, optional
        A prior-probability column (Neyman allocation).
    backend : str, optional
        ``"auto"`` or a key of :data:`DATA_SOURCES`. ``auto``: DuckDB for globs, tables and files
        over :data:`AUTO_DUCKDB_BYTES`, memory otherwise (never Spark).
    table : str, optional
        The table of a DuckDB database file.
    spark_remote : str, optional
        A Spark Connect URL (with ``backend="spark"``).

    Returns
    -------
    PopulationScan
        For :func:`engine.audit._plan`; use it as a context manager (``plan`` does).

    Raises
    ------
    InputError
        An unknown backend, options of another backend (``--spark-remote`` without Spark,
        ``--table`` with Spark or memory), a path outside ``OPSTUDIO_DATA_ROOTS`` (memory and
        DuckDB: every file a path or glob names, links resolved; the same message whether it
        exists or not), or what the reader refuses.

    References
    ----------
    Cochran, *Sampling Techniques* (3rd ed., 1977): the stratified design the plan draws from this scan.
    """
    for flag, value, optional in (("--id", id, False), ("--score", score, False), ("--prior", prior, True)):
        if not (isinstance(value, str) and value) and not (optional and value is None):
            raise InputError(f"{flag} must be a column name, got {value!r}")
    columns = PopulationColumns(id, score, prior)
    if isinstance(population, MemoryPopulation):
        return population
    if isinstance(population, pd.DataFrame):
        return memory_population(population, columns)
    owner = next(
        (s.name for s in DATA_SOURCES.values() if s.source_type is not None and isinstance(population, s.source_type)),
        None,
    )
    if owner is None and not isinstance(population, str):
        if backend != "spark":  # a Spark DataFrame is the one object named by its backend alone
            raise InputError(f"A population is a DataFrame or a path, not {type(population).__name__}.")
        owner = "spark"
    name = owner or choose_backend(population, backend, table)
    _check_options(name, table, spark_remote, "POPULATION")
    source = DATA_SOURCES[name]
    if source.population is None:
        raise InputError(
            f"Audit populations are not read with {source.title}; use --backend "
            f"{' or '.join(n for n, s in DATA_SOURCES.items() if s.population)}."
        )
    return source.population(population, columns, table=table, remote=spark_remote)


@dataclass(frozen=True)
class DatedCounts:
    """Dated ratings counted per period, and the rows themselves when they are in memory.

    Attributes
    ----------
    counts : PeriodCounts
        Per (period, score) true and false positives, for :func:`engine.monitor.monitor`.
    classifier : str
        The score column counted.
    dated : DatedRated or None
        The rows (memory only): daily loads and per-segment thresholds need them.
    """

    counts: PeriodCounts
    classifier: str
    dated: DatedRated | None = None


def dated_counts(
    path: str,
    backend: str = "auto",
    *,
    table: str | None = None,
    classifier: str | None = None,
    date: str | None = None,
    label: str | None = None,
    period: str = "week",
    threshold: float | None = None,
    group: str | None = None,
) -> DatedCounts:
    """Dated ratings at a path (or glob, or DuckDB table) counted per period where they are.

    Parameters
    ----------
    path : str
        File, glob or DuckDB database file (with ``table``).
    backend : str, optional
        ``"auto"`` or a key of :data:`DATA_SOURCES` that counts periods (:func:`period_backends`).
    table : str, optional
        The table of a DuckDB database file.
    classifier, date, label : str, optional
        Score, date and label columns (default: detected).
    period : {"day", "week", "month"}, optional
        Period length (weeks start on Monday).
    threshold : float, optional
        The deployed threshold (a bin edge when the scores are binned out of core).
    group : str, optional
        Segment column (rows in memory only).

    Returns
    -------
    DatedCounts
        Equal to :meth:`engine.monitor.DatedRated.counts` on the same rows, whatever counted them.

    Raises
    ------
    InputError
        An unknown backend or one that does not count periods, options of another backend, a missing
        file or column, or invalid rows.

    References
    ----------
    Robles et al., AAAI-MAKE 2020: the counts per score from which each period's PN curve is drawn.
    """
    name = choose_backend(path, backend, table)
    _check_options(name, table, None)
    source = DATA_SOURCES[name]
    if source.periods is None:
        raise InputError(
            f"Dated ratings are not counted with {source.title}; use --backend {' or '.join(period_backends()[1:])}."
        )
    return source.periods(
        path,
        table=table,
        classifier=classifier,
        date=date,
        label=label,
        period=period,
        threshold=threshold,
        group=group,
    )


def period_backends() -> tuple[str, ...]:
    """The ``--backend`` choices of commands that count dated ratings: ``auto`` and every source that can.

    Returns
    -------
    tuple of str
        ``("auto", "memory", "duckdb")`` with today's registry.
    """
    return ("auto", *(n for n, s in DATA_SOURCES.items() if s.periods is not None))
