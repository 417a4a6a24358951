"""An audit's population counted where it lies: the answers of :class:`~engine.audit._population.PopulationScan`
written once over a few queries each backend provides (:class:`CountedPopulation`).

:func:`engine.audit.plan` needs from the population a check-and-count scan, the order statistics that bound
the strata, the documents per stratum and the candidates of the selection (:mod:`engine.audit._selection`).
DuckDB (:mod:`~engine.backends._duckdb_audit`) and Spark (:mod:`~engine.backends._spark_audit`) write only
the queries, in their own language, over the rows ``id`` (text), ``rs`` (raw score), ``s`` (numeric score)
and ``pr`` (prior); the checks, the order statistics by counting, the strata and the candidates' frame are
here, the same for both.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..audit._population import PopulationColumns, PopulationSummary, check_counts
from ._counted import order_statistics
from ._spark import sql_double  # CAST('<repr>' AS DOUBLE): exact in DuckDB as in Spark SQL

__all__ = ["CountedPopulation", "connection_identity", "stratum_sql", "strata_result", "candidate_frame"]


def connection_identity(backend: str, facts: dict) -> dict:
    """A population's fingerprint when it is read where it lies: the SHA-256 of what identifies the connection.

    Parameters
    ----------
    backend : str
        ``duckdb`` or ``spark``.
    facts : dict
        JSON-ready facts of the connection (path, table, files with size and modification time ...).

    Returns
    -------
    dict
        ``{"kind": "connection", "sha256": ...}``.
    """
    text = json.dumps({"backend": backend, **facts}, sort_keys=True, ensure_ascii=False)
    return {"kind": "connection", "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()}


def stratum_sql(lowers: np.ndarray) -> str:
    """SQL (DuckDB and Spark alike) of the 0-based stratum of ``s``: how many lower bounds above the first it reaches.

    Parameters
    ----------
    lowers : numpy.ndarray
        Ascending stratum lower bounds (written as exact doubles).

    Returns
    -------
    str
    """
    parts = [f"CAST(s >= {sql_double(v)} AS INT)" for v in lowers[1:]]
    return "(" + " + ".join(parts) + ")" if parts else "0"


def strata_result(groups, size: int, name: str, columns: PopulationColumns, with_candidates: bool):
    """The strata scan's answer from its groups ``(stratum, documents, prior sum, ids missing, candidates)``.

    Parameters
    ----------
    groups : iterable of tuple
        One per non-empty stratum; candidates a list of records with ``id``, ``s`` and ``key`` (or None).
    size : int
        Number of strata.
    name : str
        The population, for messages.
    columns : PopulationColumns
        Its columns, for messages and whether there is a prior.
    with_candidates : bool
        Whether the scan collected candidates.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray or None, pandas.DataFrame or None)
        Documents and prior sums per stratum, and the candidates.

    Raises
    ------
    InputError
        A document below the line without an id.
    """
    groups = list(groups)
    check_counts(name, columns, missing_id=sum(int(g[3]) for g in groups))
    docs, sums = np.zeros(size, dtype=np.int64), np.zeros(size)
    rows = []
    for h, count, prior, _, found in groups:
        docs[int(h)], sums[int(h)] = int(count), float(prior or 0.0)
        rows += [(d["id"], d["s"], int(h), d["key"]) for d in (found or [])]
    frame = (
        candidate_frame({k: [r[i] for r in rows] for i, k in enumerate(("id", "s", "h", "key"))})
        if with_candidates
        else None
    )
    return docs, (sums if columns.prior else None), frame


def candidate_frame(out: dict) -> pd.DataFrame:
    """The candidates a backend returned (columns ``id``, ``s``, ``h``, ``key``) as the selection reads them.

    Parameters
    ----------
    out : dict
        Column name -> array.

    Returns
    -------
    pandas.DataFrame
        ``id`` (text), ``score``, ``stratum`` (0-based), ``key``.
    """
    return pd.DataFrame(
        {
            "id": np.asarray(out["id"], dtype=object),
            "score": np.asarray(out["s"], dtype=float),
            "stratum": np.asarray(out["h"], dtype=np.int64),
            "key": np.asarray(out["key"], dtype=object),
        }
    )


class CountedPopulation:
    """The answers of a population counted where it lies, over the backend's queries.

    A backend subclasses it with ``name``, ``columns`` and these queries: ``_summary_counts(threshold)`` (rows,
    non-numeric scores, missing scores, infinite scores, bad priors, above, below, lowest and highest
    below-line score), ``_below_counts(threshold)`` (the ``fine_bins`` and ``value_counts`` primitives of
    :class:`~engine.backends._protocol.Counter` over the below-line scores, and their column),
    ``_strata_groups(lowers, threshold, cutoffs, seed)`` (per stratum: documents, prior sum, ids missing,
    candidates) and ``_candidate_columns(lowers, threshold, cutoffs, seed)`` (``id``, ``s``, ``h``, ``key``).
    """

    columns: PopulationColumns

    @property
    def name(self) -> str:
        """The population for messages."""
        raise NotImplementedError

    def summary(self, threshold: float) -> PopulationSummary:
        """One scan: bad rows refused (:func:`~engine.audit._population.check_counts`), documents above and below.

        Parameters
        ----------
        threshold : float

        Returns
        -------
        PopulationSummary
        """
        rows, non_numeric, missing, infinite, bad_prior, above, below, low, high = self._summary_counts(threshold)
        check_counts(
            self.name,
            self.columns,
            non_numeric=non_numeric,
            missing_score=missing - non_numeric,
            infinite=infinite,
            bad_prior=bad_prior,
        )
        return PopulationSummary(
            int(rows),
            int(above),
            int(below),
            math.nan if low is None else float(low),
            math.nan if high is None else float(high),
        )

    def order_statistics(self, ranks: np.ndarray, threshold: float, low: float, high: float) -> np.ndarray:
        """The below-line scores at 0-based ranks, by counting (:func:`engine.backends._counted.order_statistics`).

        Parameters
        ----------
        ranks : numpy.ndarray of int
        threshold : float
        low, high : float
            The lowest and highest below-line score.

        Returns
        -------
        numpy.ndarray
        """
        if len(ranks) == 0:
            return np.zeros(0)
        fine_bins, value_counts, col = self._below_counts(threshold)
        found = order_statistics(fine_bins, value_counts, col, np.asarray(ranks), low=low, high=high)
        return np.array([found[int(r)] for r in ranks])

    def strata(
        self, lowers: np.ndarray, threshold: float, cutoffs: Sequence[str | None] | None = None, seed: int = 0
    ) -> tuple[np.ndarray, np.ndarray | None, pd.DataFrame | None]:
        """One scan: documents, the prior's sum and ids missing per stratum, and the candidates under ``cutoffs``.

        Parameters
        ----------
        lowers : numpy.ndarray
        threshold : float
        cutoffs : sequence of (str or None), optional
            With them, the same scan hashes every id and returns the candidates (a list per stratum).
        seed : int

        Returns
        -------
        (numpy.ndarray, numpy.ndarray or None, pandas.DataFrame or None)

        Raises
        ------
        InputError
            A document below the line without an id.
        """
        groups = self._strata_groups(lowers, threshold, cutoffs, seed)
        return strata_result(groups, lowers.size, self.name, self.columns, cutoffs is not None)

    def candidates(
        self, lowers: np.ndarray, threshold: float, cutoffs: Sequence[str | None], seed: int
    ) -> pd.DataFrame:
        """The below-line documents whose key is under their stratum's cutoff: one scan hashing every id.

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
        return candidate_frame(self._candidate_columns(lowers, threshold, cutoffs, seed))

    def _summary_counts(self, threshold: float) -> tuple:
        raise NotImplementedError

    def _below_counts(self, threshold: float) -> tuple:
        raise NotImplementedError

    def _strata_groups(self, lowers, threshold: float, cutoffs, seed: int) -> list:
        raise NotImplementedError

    def _candidate_columns(self, lowers, threshold: float, cutoffs, seed: int) -> dict:
        raise NotImplementedError
