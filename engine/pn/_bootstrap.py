"""Bootstrap intervals for single-classifier operating points and the marginal-precision band.

Robles, Zaidouni, Mavromoustaki & Refael, *Threshold Optimization in Multiple Binary Classifiers for Extreme Rare Events using Predicted Positive Data*, AAAI-MAKE 2020 (CEUR-WS Vol-2600, paper 19): the paper's operating point is a point estimate; resampling the rated
documents shows how far it moves.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ._curve import (
    PNCurve,
    curve_from_sorted,
    hull_from_increments,
    sorted_masses,
    target_slope,
    validate_rated_arrays,
)
from ._operating_point import optimal_vertex
from ._replicates import poisson_counts, replicate_key
from .kernels import AVAILABLE as _COMPILED
from .kernels import poisson_hulls, replicate_hull_band

__all__ = ["Bootstrap", "BootstrapPoint", "bootstrap", "RESAMPLING", "replicate_hull", "points_at"]

#: how replicates are drawn: a seeded multinomial of n (default), or hashed Poisson(1) counts per row id
RESAMPLING = ("multinomial", "poisson")


@dataclass(frozen=True)
class BootstrapPoint:
    """Bootstrap distribution of the operating point at one target (threshold ``+inf`` = flag nothing).

    Attributes
    ----------
    target : float
        Target marginal precision m.
    level : float
        Confidence level of the intervals, in (0, 1).
    thresholds, tp, fp : numpy.ndarray of float64, shape (B,)
        Each replicate's operating point: threshold, weighted TP and FP.
    """

    target: float
    level: float
    thresholds: np.ndarray
    tp: np.ndarray
    fp: np.ndarray

    def interval(self, values: np.ndarray) -> tuple[float, float]:
        """Percentile interval (order statistics, no interpolation: +inf stays meaningful).

        Parameters
        ----------
        values : numpy.ndarray, shape (B,)
            One quantity over the replicates (``thresholds``, ``tp`` or ``fp``).

        Returns
        -------
        (float, float)
            The lower ``(1 − level) / 2`` and upper ``(1 + level) / 2`` order statistics.
        """
        a = (1.0 - self.level) / 2
        return (float(np.quantile(values, a, method="lower")), float(np.quantile(values, 1 - a, method="higher")))

    @property
    def threshold_ci(self) -> tuple[float, float]:
        return self.interval(self.thresholds)

    @property
    def tp_ci(self) -> tuple[float, float]:
        return self.interval(self.tp)

    @property
    def fp_ci(self) -> tuple[float, float]:
        return self.interval(self.fp)


@dataclass(frozen=True)
class Bootstrap:
    """Bootstrap (documents resampled with replacement) of the hull, for any target.

    Each replicate keeps its hull vertices (``replicates[r] = (edge_mp, tp, fp,
    thresholds)``), so :meth:`at` gives the operating point of every replicate for
    a new target with one binary search each.

    Attributes
    ----------
    level : float
        Confidence level of the band and the intervals, in (0, 1).
    curve : PNCurve
        PN curve of the original documents.
    band_thresholds : numpy.ndarray of float64, shape (m,)
        At most ``max_band_points`` of the curve's thresholds, evenly spaced in document count.
    mp_band : numpy.ndarray of float64, shape (3, m)
        Lower quantile, median and upper quantile of the hull marginal precision at
        ``band_thresholds``.
    n_at_or_above : numpy.ndarray of int, shape (m,)
        Rated documents with score >= ``band_thresholds[i]`` (few documents -> wide band).
    replicates : tuple
        Per replicate ``(edge_mp, tp, fp, thresholds)`` of its hull vertices.
    """

    level: float
    curve: PNCurve
    band_thresholds: np.ndarray
    mp_band: np.ndarray
    n_at_or_above: np.ndarray
    replicates: tuple

    @property
    def n_boot(self) -> int:
        return len(self.replicates)

    def at(self, target: float) -> BootstrapPoint:
        """Every replicate's operating point for a target.

        Parameters
        ----------
        target : float
            Target marginal precision m in (0, 1).

        Returns
        -------
        BootstrapPoint
            The replicates' thresholds, TP and FP, each maximising TP − λ·FP on its own hull.

        Raises
        ------
        InputError
            ``target`` outside (0, 1).
        """
        return points_at(self.replicates, target, self.level)


def points_at(replicates, target: float, level: float) -> BootstrapPoint:
    """The operating point of every replicate for one target (one binary search on each replicate's hull).

    Parameters
    ----------
    replicates : sequence
        ``(edge_mp, tp, fp, thresholds)`` per replicate, as :func:`replicate_hull` returns them.
    target : float
        Target marginal precision in (0, 1).
    level : float
        Interval level.

    Returns
    -------
    BootstrapPoint

    References
    ----------
    Robles et al., AAAI-MAKE 2020: the operating point maximises TP − λ·FP on the hull.
    """
    lam = target_slope(target)
    th, tp, fp = (np.empty(len(replicates)) for _ in range(3))
    for r, (edge_mp, r_tp, r_fp, r_th) in enumerate(replicates):
        v = optimal_vertex(edge_mp, r_tp, r_fp, target, lam)
        th[r], tp[r], fp[r] = r_th[v], r_tp[v], r_fp[v]
    return BootstrapPoint(float(target), level, th, tp, fp)


def replicate_hull(thresholds: np.ndarray, d_tp: np.ndarray, d_fp: np.ndarray):
    """One replicate's hull vertices from its per-threshold counts, and its per-threshold marginal-precision fit.

    Parameters
    ----------
    thresholds : numpy.ndarray
        The original curve's thresholds (descending); every replicate lives on them.
    d_tp, d_fp : numpy.ndarray
        The replicate's weighted positives / negatives at each threshold.

    Returns
    -------
    (tuple, numpy.ndarray)
        ``(edge_mp, tp, fp, thresholds)`` of the hull vertices (starting at "flag nothing", threshold
        +inf) and the fit; a replicate without mass (possible with Poisson counts) flags nothing and
        has a NaN fit.

    References
    ----------
    Robles et al., AAAI-MAKE 2020 (the PN hull); PAV as in :func:`engine.pn._curve.hull_from_increments`.
    """
    if not np.any(d_tp + d_fp > 0):
        return (np.zeros(0), np.zeros(1), np.zeros(1), np.array([np.inf])), np.full(thresholds.shape, np.nan)
    ends, edge_mp, mp_fit = hull_from_increments(thresholds, d_tp, d_fp)
    tp_c, fp_c = np.cumsum(d_tp), np.cumsum(d_fp)
    th_ext = np.r_[np.inf, thresholds]
    return (edge_mp, np.r_[0.0, tp_c[ends]], np.r_[0.0, fp_c[ends]], th_ext[np.r_[0, ends + 1]]), mp_fit


#: most replicates drawn per chunk (finer progress; chunking does not change the draws)
_MAX_CHUNK = 10


def _draws(rng, start: int, b: int, n: int, order, group_start, y, w, units, equal, poisson):
    """Per-threshold positives and negatives of replicates ``start .. start + b - 1`` (b x groups each).

    With equal weights the counts come back as integers with the weight as scale (``count * scale``
    is the weighted count, converted a replicate at a time); otherwise the scale is None.
    """
    if poisson is not None:  # hashed Poisson(1) counts per row id: the same on every backend
        ids, seed = poisson[:2]
        counts = poisson_counts(ids, np.arange(start, start + b), seed).astype(np.float64)[:, order]
    elif equal:
        n_groups = group_start.size
        draws = rng.multinomial(n, units / n, size=b)
        return draws[:, :n_groups], draws[:, n_groups:], w[0]
    else:
        counts = rng.multinomial(n, np.full(n, 1.0 / n), size=b).astype(np.float64)[:, order]
    tp_g = np.add.reduceat(counts * (w * y)[order], group_start, axis=1)
    fp_g = np.add.reduceat(counts * (w * (1.0 - y))[order], group_start, axis=1)
    return tp_g, fp_g, None


def _sorted_curve(
    s: np.ndarray, y: np.ndarray, w: np.ndarray, order: np.ndarray, held: PNCurve | None = None
) -> tuple[PNCurve, np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """The curve, the first sorted row of each distinct score and the sorted masses, each computed once.

    Parameters
    ----------
    s, y, w : numpy.ndarray of float64, shape (n,)
        Validated scores, labels and weights.
    order : numpy.ndarray of int, shape (n,)
        ``np.argsort(-s, kind="stable")``.
    held : PNCurve, optional
        A curve the caller already holds: returned instead of the new one when equal to it bit for bit.

    Returns
    -------
    (PNCurve, numpy.ndarray, tuple)
        :func:`engine.pn._curve.curve_in_order`'s curve (or ``held``), ``group_start`` and ``((w * y)[order],
        (w * (1.0 - y))[order])`` (the Poisson draws' masses), bit for bit; the sorted scores and the products are
        made once, so a 10^6-row run allocates about half the temporaries it did (issue 34).
    """
    masses = sorted_masses(y, w, order)
    s_sorted = s[order]
    curve = curve_from_sorted(s_sorted, *masses)
    group_start = np.flatnonzero(np.r_[True, s_sorted[1:] != s_sorted[:-1]])
    if held is not None and all(
        a.dtype == b.dtype == np.float64 and a.shape == b.shape and np.array_equal(a.view(np.int64), b.view(np.int64))
        for a, b in ((held.thresholds, curve.thresholds), (held.tp, curve.tp), (held.fp, curve.fp))
    ):  # the same bits
        curve = held
    return curve, group_start, masses


def _drawn_hulls(n_boot: int, chunk: int, thresholds, band_index, progress, draw):
    """Every replicate's hull and band fit, ``draw(start, b)`` giving the counts of ``chunk`` replicates at a time."""
    replicates, fits = [], []
    for start in range(0, n_boot, chunk):
        b = min(chunk, n_boot - start)
        tp_g, fp_g, scale = draw(start, b)
        for r in range(b):
            d_tp, d_fp = (tp_g[r], fp_g[r]) if scale is None else (tp_g[r] * scale, fp_g[r] * scale)
            if _COMPILED:  # the same hull, compiled (engine.pn.kernels), without holding the GIL
                replicate, band = replicate_hull_band(thresholds, d_tp, d_fp, band_index)
            else:  # pragma: no cover - exercised only without numba
                replicate, mp_fit = replicate_hull(thresholds, d_tp, d_fp)
                band = mp_fit[band_index]
            replicates.append(replicate)
            fits.append(band)
        if progress is not None:
            progress(start + b, n_boot)
    return replicates, np.vstack(fits)


def bootstrap(
    scores,
    labels,
    weights=None,
    *,
    n_boot: int = 200,
    level: float = 0.95,
    seed: int = 0,
    max_cells: int = 20_000_000,
    max_band_points: int = 2000,
    progress=None,
    resample: str = "multinomial",
    ids=None,
    workers: int = 1,
    curve: PNCurve | None = None,
) -> Bootstrap:
    """Nonparametric bootstrap of the PN hull: operating-point intervals and the marginal-precision band.

    Each replicate redraws the n rated documents with replacement (multinomial
    counts, seeded). Documents with equal score and label are exchangeable, so
    when all weights are equal the draw is made directly over these cells (the
    same distribution, far fewer categories); with unequal weights it is made
    over documents. Every replicate lives on the original threshold set and
    needs only sums and one PAV; multinomial replicates are drawn in chunks of at
    most ``max_cells`` counts (and at most 10 replicates) to bound memory and report
    progress (chunking does not change the draws); compiled Poisson replicates need
    no count matrix and come in blocks of 25. ``progress(done, total)`` is
    called after each chunk. Each replicate's hull is compiled, and the Poisson
    replicates are drawn, summed per score and fitted in one compiled pass per block
    of 25 (:mod:`engine.pn.kernels`, the same numbers bit for bit); both release the
    GIL, so the bootstrap can run beside a server's scripts.

    ``resample="poisson"`` gives each document a Poisson(1) count hashed from
    (``ids[d]``, replicate, ``seed``) (:mod:`engine.pn._replicates`; ``ids`` default
    ``0 .. n-1``): the replicates any backend reproduces (DuckDB:
    :func:`engine.backends._counted.counted_bootstrap`), independent of
    the order of the documents.

    Parameters
    ----------
    scores : array_like of float, shape (n,)
        One classifier's scores of the rated documents.
    labels : array_like of {0, 1}, shape (n,)
        1 = true positive, 0 = false positive.
    weights : array_like of float, shape (n,), optional
        Non-negative document weights; 1 each when None.
    n_boot : int, optional
        Number of replicates B (>= 1).
    level : float, optional
        Confidence level of intervals and band, in (0, 1).
    seed : int, optional
        Seed of the random generator (the same seed gives the same replicates).
    max_cells : int, optional
        Most multinomial counts drawn at once (memory bound).
    max_band_points : int, optional
        Most thresholds at which the marginal-precision band is kept.
    progress : callable, optional
        ``progress(done, total)`` after each chunk of replicates, in the caller's thread; with ``workers=1`` the
        next chunk starts when it returns (a caller can pause the work there).
    resample : {"multinomial", "poisson"}, optional
        Multinomial redraws (seeded generator) or hashed Poisson(1) counts.
    ids : array_like of int, shape (n,), optional
        Row ids hashed by ``resample="poisson"`` (default ``0 .. n-1``).
    workers : int, optional
        Threads drawing Poisson replicates side by side (compiled, without the GIL); the same replicates
        whatever their number.
    curve : PNCurve, optional
        The PN curve of these documents when the caller already holds it (the dashboard's page hull): the result
        keeps that object as its ``curve`` when it equals the bootstrap's own bit for bit (checked), so a server
        holds one copy (issue 34: 11 MB at 10^6 rows); otherwise its own.

    Returns
    -------
    Bootstrap
        The replicates' hulls and the marginal-precision band; :meth:`Bootstrap.at`
        gives the operating-point distribution for any target.

    Raises
    ------
    RatedDataError
        Invalid scores, labels or weights.
    ValueError
        ``level`` not in (0, 1) or ``n_boot < 1``.

    References
    ----------
    .. [1] Robles, E., Zaidouni, F., Mavromoustaki, A. & Refael, P. (2020). *Threshold
       Optimization in Multiple Binary Classifiers for Extreme Rare Events using Predicted
       Positive Data.* AAAI-MAKE 2020, CEUR-WS Vol-2600, paper 19: "For a single classifier" (the operating point that the bootstrap resamples).

    Examples
    --------
    >>> from engine import bootstrap, load_rated
    >>> data = load_rated("sample_data/synthetic_rare_events.csv.gz")
    >>> boot = bootstrap(data.column("score_image"), data.labels, data.weights, n_boot=50, seed=0)
    >>> low, high = boot.at(0.3).threshold_ci  # 95 % interval of the threshold for m = 0.3
    >>> print(f"{low:.3f} to {high:.3f}")
    0.348 to 0.390
    """
    s, y, w = validate_rated_arrays(scores, labels, weights)
    if not 0 < level < 1:
        raise InputError("level must be in (0, 1)")
    if n_boot < 1:
        raise InputError("n_boot must be >= 1")
    if resample not in RESAMPLING:
        raise InputError(f"resample must be one of {RESAMPLING}, got {resample!r}")
    poisson = None
    if resample == "poisson":
        row_ids = np.arange(s.size) if ids is None else np.asarray(ids)
        if row_ids.shape != s.shape:
            raise InputError(f"ids must hold one row id per document ({s.size}); got shape {row_ids.shape}")
        if row_ids.size and (not np.issubdtype(row_ids.dtype, np.integer) or row_ids.min() < 0):
            raise InputError("row ids must be non-negative integers")  # as engine.pn._replicates.row_hash says
    order = np.argsort(-s, kind="stable")
    curve, group_start, (wy_sorted, wn_sorted) = _sorted_curve(s, y, w, order, curve)  # without sorting twice
    if resample == "poisson":  # ids and weights in score order, for the compiled draws
        poisson = (row_ids, seed, row_ids[order], wy_sorted, wn_sorted)
    del wy_sorted, wn_sorted  # the run keeps only what it needs: it may run beside every session's page (issue 34)
    n = s.size
    n_groups = group_start.size
    docs_per_group = np.diff(np.r_[group_start, n])
    equal_weights = bool(np.all(w == w[0]))
    units = None
    if equal_weights and poisson is None:  # the multinomial draws over (score, label) cells
        pos_per_group = np.add.reduceat(y[order], group_start)
        # categories: [positives of each group, negatives of each group]
        units = np.r_[pos_per_group, docs_per_group - pos_per_group]
    rng = np.random.default_rng(seed)
    n_units = 2 * n_groups if equal_weights and poisson is None else n
    chunk = max(1, min(n_boot, _MAX_CHUNK, max_cells // max(n_units, 1)))
    band_index = np.unique(
        np.searchsorted(np.cumsum(docs_per_group), np.linspace(1, n, min(max_band_points, n_groups)), side="left")
    )
    if poisson is not None and _COMPILED:  # drawn, summed and fitted in one compiled pass (the same numbers)
        keys = np.array([replicate_key(r, seed) for r in range(n_boot)], dtype=np.uint64)
        del y, w, order  # the draws read only the sorted ids and masses: 3 x n floats fewer beside the sessions
        replicates, fits = poisson_hulls(
            *poisson[2:],
            keys,
            group_start,
            curve.thresholds,
            band_index,
            workers=workers,
            progress=None if progress is None else lambda done: progress(done, n_boot),
        )
    else:
        replicates, fits = _drawn_hulls(
            n_boot,
            chunk,
            curve.thresholds,
            band_index,
            progress,
            lambda start, b: _draws(rng, start, b, n, order, group_start, y, w, units, equal_weights, poisson),
        )
    a = (1.0 - level) / 2
    mp_band = (np.nanquantile if np.isnan(fits).any() else np.quantile)(fits, [a, 0.5, 1 - a], axis=0)
    return Bootstrap(
        level=level,
        curve=curve,
        band_thresholds=curve.thresholds[band_index],
        mp_band=mp_band,
        n_at_or_above=np.cumsum(docs_per_group)[band_index],
        replicates=tuple(replicates),
    )
