"""An audit's population counted by Apache Spark: checks, strata and the selection's candidates where the rows live.

The same five answers as :mod:`engine.backends._duckdb_audit` (the :class:`~engine.audit._population.PopulationScan`
protocol), over a DataFrame, a catalog table or Parquet / CSV paths and globs, on a local
session or a cluster through Spark Connect (:class:`~engine.backends._spark.SparkSource`). Only
counts, the order statistics' bins and the selection's candidates (about the sample size)
are collected to the driver.

* **Ids** are hashed as text: an integral column in decimal, a string column as it is (CSV
  columns are read as text, so ``007`` stays ``007``); other types are refused.
* **Order statistics** by counting, as every backend: :class:`~engine.backends._population.CountedPopulation`.
* **Keys**: ``substr(md5(concat('<seed>:', id)), 1, 16)``, the same hex digits as Python's hashlib.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..audit._population import PopulationColumns, check_counts, missing_columns
from ..audit._selection import KEY_DIGITS, cutoff_limits, key_prefix
from ..errors import InputError
from ._population import CountedPopulation, connection_identity, stratum_sql
from ._spark import SparkSource, collect_columns, fine_bins, spark_errors, sql_double, value_counts

__all__ = ["SparkPopulation"]


def _expr(sql: str):
    from pyspark.sql import functions

    return functions.expr(sql)


def _quote(name: str) -> str:
    return "`" + str(name).replace("`", "``") + "`"


@dataclass
class SparkPopulation(CountedPopulation):
    """A population counted by Spark; a context manager (the frame is built on entry).

    Attributes
    ----------
    source : SparkSource
        A DataFrame, a catalog table, or Parquet / CSV paths and globs (local or Spark Connect).
    columns : PopulationColumns
        The id, score and (optional) prior columns.
    """

    source: SparkSource
    columns: PopulationColumns
    backend: str = field(default="spark", init=False)
    _rows: Any = field(default=None, init=False, repr=False)
    _numeric_score: bool = field(default=True, init=False, repr=False)

    @property
    def name(self) -> str:
        """The source for messages."""
        return self.source.name

    def __enter__(self) -> SparkPopulation:
        from pyspark.sql.types import BooleanType, IntegralType, NumericType, StringType

        frame = self.source.frame()
        with spark_errors(self.source, "read"):
            types = {f.name: f.dataType for f in frame.schema.fields}
        cols = self.columns
        missing_columns(self.source.name, cols, list(types))
        check_counts(self.source.name, cols, boolean_score=isinstance(types[cols.score], BooleanType))
        if isinstance(types[cols.id], IntegralType):
            ident = f"CAST({_quote(cols.id)} AS STRING)"
        elif isinstance(types[cols.id], StringType):
            ident = f"nullif({_quote(cols.id)}, '')"
        else:
            raise InputError(
                f"Id column '{cols.id}' of {self.source.name} holds {types[cols.id].simpleString()} "
                "values: ids must be whole numbers or text (their text is hashed to select documents)."
            )
        score = _quote(cols.score)
        parts = [f"{ident} AS id", f"{score} AS rs", f"try_cast({score} AS DOUBLE) AS s"]
        if cols.prior:
            parts.append(f"try_cast({_quote(cols.prior)} AS DOUBLE) AS pr")
        self._numeric_score = isinstance(types[cols.score], NumericType)
        with spark_errors(self.source, "read"):
            self._rows = frame.selectExpr(*parts)
        return self

    def __exit__(self, *exc) -> None:
        self._rows = None

    def _summary_counts(self, threshold: float) -> tuple:
        t, inf = sql_double(threshold), "CAST('Infinity' AS DOUBLE)"
        text = "FALSE" if self._numeric_score else "(s IS NULL AND rs IS NOT NULL AND trim(CAST(rs AS STRING)) <> '')"
        prior = "count_if(pr IS NULL OR isnan(pr) OR pr < 0 OR pr > 1)" if self.columns.prior else "0"
        below = f"(s < {t} AND NOT isnan(s))"  # Spark orders NaN above every number
        parts = [
            "count(*)",
            f"count_if({text})",
            "count_if(s IS NULL OR isnan(s))",
            f"count_if(abs(s) = {inf})",
            prior,
            f"count_if(s >= {t} AND NOT isnan(s))",
            f"count_if({below})",
            f"min(CASE WHEN {below} THEN s END)",
            f"max(CASE WHEN {below} THEN s END)",
        ]
        with spark_errors(self.source):
            return tuple(self._rows.selectExpr(*[f"{p} AS c{i}" for i, p in enumerate(parts)]).collect()[0])

    def identity(self) -> dict:
        """The connection's fingerprint: the table or path and the Spark Connect URL (a DataFrame: its plan).

        Returns
        -------
        dict
            :func:`engine.backends._population.connection_identity`.
        """
        data = self.source.data
        what = data if isinstance(data, str) else f"DataFrame {id(data)}"
        return connection_identity("spark", {"data": what, "remote": self.source.remote})

    def above_scores(self, threshold: float) -> np.ndarray:
        """The scores at or above the line, ascending.

        Parameters
        ----------
        threshold : float

        Returns
        -------
        numpy.ndarray
        """
        above = self._rows.where(f"s >= {sql_double(threshold)} AND NOT isnan(s)").select("s")
        with spark_errors(self.source):
            return np.sort(np.asarray(collect_columns(above)["s"], dtype=np.float64))

    def _below(self, threshold: float):
        return self._rows.where(f"s < {sql_double(threshold)}")

    def _below_counts(self, threshold: float) -> tuple:
        below, errors = self._below(threshold), spark_errors(self.source)

        def fine(col, params):
            with errors:
                return fine_bins(below, col, params)

        def values(col, params, ids):
            with errors:
                return value_counts(below, col, params, ids)

        return fine, values, "s"

    def _strata_groups(self, lowers, threshold: float, cutoffs, seed: int) -> list:
        prior = "pr" if self.columns.prior else "CAST(0.0 AS DOUBLE)"
        aggregates = [
            _expr("count(*)").alias("c"),
            _expr("sum(p)").alias("p"),
            _expr("count_if(id IS NULL)").alias("no_id"),
        ]
        columns = ["id", "s", f"{stratum_sql(lowers)} AS h", f"{prior} AS p"]
        if cutoffs is not None:
            limits = "array(" + ", ".join(f"'{c}'" for c in cutoff_limits(cutoffs)) + ")"
            columns.append(f"substr(md5(concat('{key_prefix(seed)}', id)), 1, {KEY_DIGITS}) AS key")
            aggregates.append(
                _expr(
                    f"collect_list(named_struct('id', id, 's', s, 'key', key)) FILTER (WHERE key < "
                    f"element_at({limits}, h + 1))"
                ).alias("found")
            )
        with spark_errors(self.source):
            out = self._below(threshold).selectExpr(*columns).groupBy("h").agg(*aggregates).collect()
        return [(r["h"], r["c"], r["p"], r["no_id"], r["found"] if cutoffs is not None else None) for r in out]

    def _candidate_columns(self, lowers, threshold: float, cutoffs, seed: int) -> dict:
        limits = "array(" + ", ".join(f"'{c}'" for c in cutoff_limits(cutoffs)) + ")"
        keyed = self._below(threshold).selectExpr(
            "id",
            "s",
            f"{stratum_sql(lowers)} AS h",
            f"substr(md5(concat('{key_prefix(seed)}', id)), 1, {KEY_DIGITS}) AS key",
        )
        with spark_errors(self.source):
            return collect_columns(keyed.where(f"key < element_at({limits}, h + 1)"))
