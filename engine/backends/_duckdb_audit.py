"""An audit's population counted by DuckDB: checks, strata and the selection's candidates, out of core.

:func:`engine.audit._plan` needs from the population a check-and-count scan, the order
statistics that bound the strata, the documents per stratum and the candidates of the
selection (:mod:`engine.audit._selection`); :class:`DuckPopulation` answers each with one query
over Parquet / CSV paths or globs or a table of a DuckDB database file, through the
connection :meth:`~engine.backends._duckdb.DuckSource.connect` opens. Only counts, a few
thousand order-statistic candidates and the selection's candidates (about the sample size)
come back to Python.

* **Ids** are hashed as text: an integer column in decimal (``CAST(id AS VARCHAR)``), a text
  column as it is; CSV files are read with every column as text (so ``007`` stays ``007``, as
  the memory and Spark backends read it). Other id types are refused.
* **Order statistics** of the below-line scores are found by counting (no sort):
  :class:`~engine.backends._population.CountedPopulation`, the machinery of the joint-threshold
  grids' axes.
* **Keys**: ``substr(md5('<seed>:' || id), 1, 16)``, the same hex digits as Python's hashlib. The
  cutoff is compared with the whole digest (for a 16-digit cutoff ``c``, ``digest < c`` exactly when
  ``digest[:16] < c``), so only the candidates' keys are cut out of their digests.
* **Identity** (the design record's population fingerprint): the SHA-256 of the connection — the
  path as given, the table, and every file read with its real path, size and modification time.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..audit._population import PopulationColumns, check_counts, missing_columns
from ..audit._selection import KEY_DIGITS, cutoff_limits, key_prefix
from ..errors import InputError
from ._duckdb import NUMERIC_TYPES, DuckSource, duckdb_problem, fine_bins, quote_identifier, value_counts
from ._population import CountedPopulation, connection_identity, stratum_sql
from ._spark import sql_double

__all__ = ["DuckPopulation", "INTEGER_TYPES"]

#: DuckDB column types whose values are whole numbers (hashed in decimal)
INTEGER_TYPES = (
    "TINYINT",
    "SMALLINT",
    "INTEGER",
    "BIGINT",
    "HUGEINT",
    "UTINYINT",
    "USMALLINT",
    "UINTEGER",
    "UBIGINT",
    "UHUGEINT",
)


def _relation(source: DuckSource) -> str:
    """The FROM clause: CSV with every column as text (ids keep their text), else the source's own."""
    return source.relation(text=True)


@dataclass
class DuckPopulation(CountedPopulation):
    """A population counted by DuckDB; a context manager holding one connection.

    Attributes
    ----------
    source : DuckSource
        Parquet / CSV paths or globs, or a DuckDB database file and table.
    columns : PopulationColumns
        The id, score and (optional) prior columns.
    """

    source: DuckSource
    columns: PopulationColumns
    backend: str = field(default="duckdb", init=False)
    _con: Any = field(default=None, init=False, repr=False)
    _numeric_score: bool = field(default=True, init=False, repr=False)

    @property
    def name(self) -> str:
        """The source for messages."""
        return f"'{self.source.path}'" + (f" (table {self.source.table})" if self.source.table else "")

    def __enter__(self) -> DuckPopulation:
        self._con = self.source.connect()
        try:
            self._view()
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc) -> None:
        if self._con is not None:
            self._con.close()
            self._con = None

    def _types(self, relation: str) -> dict[str, str]:
        try:
            described = self._con.execute(f"DESCRIBE SELECT * FROM {relation}").fetchall()
        except Exception as exc:  # duckdb's own error types (IO, parser)
            raise InputError(f"DuckDB could not read {self.name}: {duckdb_problem(self.source, exc)}") from None
        return {str(name): str(kind).upper().split("(")[0] for name, kind, *_ in described}

    def _view(self) -> None:
        relation = _relation(self.source)
        types = self._types(relation)
        cols = self.columns
        missing_columns(self.name, cols, list(types))
        check_counts(self.name, cols, boolean_score=types[cols.score] == "BOOLEAN")
        if types[cols.id] in INTEGER_TYPES:
            ident = f"CAST({quote_identifier(cols.id)} AS VARCHAR)"
        elif types[cols.id] == "VARCHAR":
            ident = f"nullif({quote_identifier(cols.id)}, '')"
        else:
            raise InputError(
                f"Id column '{cols.id}' of {self.name} holds {types[cols.id]} values: ids must be whole "
                "numbers or text (their text is hashed to select documents)."
            )
        score = quote_identifier(cols.score)
        parts = [f"{ident} AS id", f"{score} AS rs", f"TRY_CAST({score} AS DOUBLE) AS s"]
        if cols.prior:
            parts.append(f"TRY_CAST({quote_identifier(cols.prior)} AS DOUBLE) AS pr")
        self._numeric_score = types[cols.score] in NUMERIC_TYPES
        self._con.execute(f"CREATE OR REPLACE TEMP VIEW audit_population AS SELECT {', '.join(parts)} FROM {relation}")

    def identity(self) -> dict:
        """The connection's fingerprint: path, table and every file's real path, size and modification time.

        Returns
        -------
        dict
            :func:`engine.backends._population.connection_identity`.
        """
        files = []
        for f in self.source.files():
            info = os.stat(f)
            files.append([f, int(info.st_size), int(info.st_mtime_ns)])
        return connection_identity("duckdb", {"path": self.source.path, "table": self.source.table, "files": files})

    def above_scores(self, threshold: float) -> np.ndarray:
        """The scores at or above the line, ascending.

        Parameters
        ----------
        threshold : float

        Returns
        -------
        numpy.ndarray
        """
        out = self._query(f"SELECT s FROM audit_population WHERE s >= {sql_double(threshold)} ORDER BY s").fetchnumpy()[
            "s"
        ]
        return np.asarray(out, dtype=np.float64)

    def _query(self, sql: str, params=None):
        try:
            return self._con.execute(sql, params) if params else self._con.execute(sql)
        except Exception as exc:  # duckdb's own error types (IO, conversion)
            raise InputError(f"DuckDB could not read {self.name}: {duckdb_problem(self.source, exc)}") from None

    def _summary_counts(self, threshold: float) -> tuple:
        t = sql_double(threshold)
        text = "FALSE" if self._numeric_score else "(s IS NULL AND rs IS NOT NULL AND trim(CAST(rs AS VARCHAR)) <> '')"
        prior = "count(*) FILTER (WHERE pr IS NULL OR isnan(pr) OR pr < 0 OR pr > 1)" if self.columns.prior else "0"
        return self._query(
            f"SELECT count(*), count(*) FILTER (WHERE {text}), "
            "count(*) FILTER (WHERE s IS NULL OR isnan(s)), count(*) FILTER (WHERE isinf(s)), "
            f"{prior}, count(*) FILTER (WHERE s >= {t}), count(*) FILTER (WHERE s < {t}), "
            f"min(s) FILTER (WHERE s < {t}), max(s) FILTER (WHERE s < {t}) FROM audit_population"
        ).fetchall()[0]

    def _below_counts(self, threshold: float) -> tuple:
        self._query(
            f"CREATE OR REPLACE TEMP VIEW grid_rows AS SELECT s AS s0, 0 AS y FROM audit_population "
            f"WHERE s < {sql_double(threshold)}"
        )
        return (
            lambda col, params: fine_bins(self._con, col, params),
            lambda col, params, ids: value_counts(self._con, col, params, ids),
            "s0",
        )

    def _strata_groups(self, lowers, threshold: float, cutoffs, seed: int) -> list:
        prior = "sum(pr)" if self.columns.prior else "0.0"
        key, found, params = "NULL AS digest", "NULL", None
        if cutoffs is not None:
            key = f"md5('{key_prefix(seed)}' || id) AS digest"
            found = (
                f"list({{'id': id, 's': s, 'key': substr(digest, 1, {KEY_DIGITS})}}) FILTER (WHERE digest < "
                "$cut[h + 1])"
            )
            params = {"cut": cutoff_limits(cutoffs)}
        return self._query(
            f"SELECT h, count(*), {prior}, count(*) FILTER (WHERE id IS NULL), {found} FROM (SELECT id, s, "
            f"{'pr' if self.columns.prior else 'NULL AS pr'}, {stratum_sql(lowers)} AS h, {key} FROM "
            f"audit_population WHERE s < {sql_double(threshold)}) GROUP BY h",
            params,
        ).fetchall()

    def _candidate_columns(self, lowers, threshold: float, cutoffs, seed: int) -> dict:
        sql = (
            f"SELECT id, s, h, substr(digest, 1, {KEY_DIGITS}) AS key FROM (SELECT id, s, {stratum_sql(lowers)} AS h, "
            f"md5('{key_prefix(seed)}' || id) AS digest FROM audit_population WHERE s < {sql_double(threshold)}) "
            "WHERE digest < $cut[h + 1]"
        )
        return self._query(sql, {"cut": cutoff_limits(cutoffs)}).fetchnumpy()
