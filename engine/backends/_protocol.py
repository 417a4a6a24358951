"""The counting primitives a backend provides: everything else (checks, curves, grids, replicates) is written once.

A backend opens a :class:`Counter` over its rows for a set of columns and answers a few aggregate
queries; :mod:`engine.backends._counted` builds the checks, the PN curve, the operating points, the
joint threshold grid and the bootstrap replicates on top of them, identically for every backend.

The counter's rows are the source's rows with these columns (their names inside the backend's own
query language):

``s0 .. s{k-1}``
    the numeric scores of the k score columns (missing when the text is not a number);
``y``
    the label: 1, 0, NULL for unrated (empty), -1 for a value that is no label;
``w``
    the numeric weight (1 without a weight column);
``id``
    the row id, when the counter was opened for bootstrap replicates.

"Rated rows" are the rows whose ``y`` is not NULL. A counter is a context manager: the backend
translates its own errors into :class:`~engine.errors.InputError` naming the source, and releases
its connection on exit.

Adding a backend (see ``docs/backends.md``): a source type (with ``first_rows(n)``, the sample the columns are
detected on), a counter implementing this protocol,
one line in :data:`engine.backends._counted.COUNTERS`, and a :class:`~engine.backends.DataSource`
entry.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

__all__ = ["Counter", "FINE_BINS", "MAX_REPLICATE_CELLS"]

#: equal-width bins per pass when order statistics are located by counting
FINE_BINS = 1 << 16
#: most (replicate, distinct score) rows one replicate scan returns
MAX_REPLICATE_CELLS = 5_000_000


class Counter(Protocol):
    """The counting primitives of one backend over one source's rows (columns ``s0..``, ``y``, ``w``, ``id``).

    Every method returns aggregates only (one row per distinct score, bin, cell or replicate at most);
    no method returns the rows themselves.

    Attributes
    ----------
    backend : str
        The backend's name in :class:`~engine.backends._duckdb.ScanStats` (``"duckdb"``, ``"spark"``).
    where : str
        The rows' place as messages name it (``"'data/*.parquet'"``).
    scores, label, weight : str
        The source's columns behind ``s0..``, ``y`` and ``w`` (weight None: every row weighs 1).
    """

    backend: str
    where: str
    scores: list[str]
    label: str
    weight: str | None

    def __enter__(self) -> Counter: ...

    def __exit__(self, *exc) -> None: ...

    def check_counts(self, distinct: bool) -> list:
        """The one checking scan, in the order :func:`~engine.backends._counting.check_counted_rows` reads.

        Rows, unrated rows, rows with an unknown label; per score column: not-a-number text, infinite,
        rated without a score, rated minimum and maximum; weight: not-a-number text, bad rated
        weights, rated total weight. With ``distinct`` the backend may append an estimate of the
        distinct rated ``s0`` values (for :meth:`score_counts`)."""
        ...

    def boolean_columns(self, values: list) -> set[str]:
        """Score and weight columns the memory engine reads as true/false (refused), given the check counts."""
        ...

    def locate(self, kind: str, column: str, n: int) -> str:
        """The first offending values and rows of a failed check, worded as the memory engine words them."""
        ...

    def score_counts(self, cap: int | None = None) -> tuple[int, tuple[np.ndarray, np.ndarray, np.ndarray] | None]:
        """Distinct rated ``s0`` values, and (when at most ``cap``, or always without a cap) the values
        descending with their summed ``w*y`` and ``w*(1-y)``."""
        ...

    def score_quantiles(self, qs: np.ndarray) -> np.ndarray:
        """``s0`` at the probabilities ``qs`` over the rated rows; approximate values are allowed (any edges
        give exact results, the bins are only narrower)."""
        ...

    def bin_counts(self, edges: np.ndarray, wanted: list[int] | None) -> dict[str, np.ndarray]:
        """Rated rows binned by the last edge at or below ``s0`` (bin b: ``edges[b] <= s0 < edges[b+1]``):
        ``b``, ``tp``, ``fp`` per bin, or with ``wanted`` per (bin, distinct ``s0``) of those bins, keys
        ``b``, ``s``, ``tp``, ``fp`` (any order)."""
        ...

    def fine_bins(self, col: str, params: dict) -> list[tuple[int, int, float, float]]:
        """Rated ``col`` values in ``[low, high]`` in :data:`FINE_BINS` equal-width bins,
        ``floor((v/2 - low/2) * scale)`` capped at ``top`` (params: low, high, scale, top): (bin, rows, min, max) per non-empty bin."""
        ...

    def value_counts(self, col: str, params: dict, bin_ids: list[int] | None) -> tuple[np.ndarray, np.ndarray]:
        """Distinct rated ``col`` values in ``[low, high]`` (only in the given fine bins unless None) and their
        row counts, ascending."""
        ...

    def cell_counts(self, axes: tuple[np.ndarray, ...]) -> dict[str, np.ndarray]:
        """One group-by of the rated rows over k level indices ``e{j}`` (number of ``axes[j][:-1]`` levels at
        or below ``s{j}``): keys ``e0..``, ``tp``, ``fp``."""
        ...

    def bad_ids(self) -> int:
        """Rated rows whose id is missing, negative or not an integer."""
        ...

    def replicate_counts(self, replicates: np.ndarray, seed: int) -> dict[str, np.ndarray]:
        """Per (replicate, distinct rated ``s0``) the summed ``w*y*p`` and ``w*(1-y)*p``, ``p`` the hashed
        Poisson(1) count of :mod:`engine.pn._replicates` for (id, replicate key): keys ``r``, ``s``,
        ``tp``, ``fp``."""
        ...
