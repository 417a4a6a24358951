"""Per-segment thresholds at one marginal precision, and the allocation of a review budget across segments.

Robles, Zaidouni, Mavromoustaki & Refael (AAAI-MAKE 2020) maximise ``TP − λ·FP``
for one classifier. Traffic that comes in segments (market, language, surface)
with different score distributions is better served by one threshold per
segment: the Lagrangian of ``Σ_s TP_s`` under ``Σ_s flagged_s ≤ N`` (flagged =
TP + FP) is ``Σ_s (TP_s − μ·flagged_s)``, maximised separately in every segment
by the hull vertex where the segment's marginal precision crosses μ. So

* **for a target m** every segment takes its own operating point at m;
* **for a capacity N** the hull edges of all segments are merged in decreasing
  marginal precision and taken while they fit (greedy on the common marginal
  precision). Those vertices are optimal for the volume they spend (the Lagrangian
  bound). The budget rarely falls on a vertex: on small data the best combination
  of every segment's own thresholds is then found exactly by a Pareto-front search
  over (flagged, TP) (the optimum over every combination); on large data the
  reviews left go to the single segment whose own thresholds add the most. The
  result is never below the best single global threshold (one such combination;
  it is taken if better).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import InputError
from ._budget import FlaggedCounts, check_capacity, max_flagged_point
from ._curve import Hull, check_target, pn_curve, upper_hull
from ._operating_point import operating_point

__all__ = [
    "SegmentedCurves",
    "segment_curves",
    "SegmentPoint",
    "Allocation",
    "allocate_capacity",
    "allocate_target",
    "segment_intervals",
]


#: why a segment without rated documents gets no threshold (said in every result that lists it)
NO_RATED_REASON = (
    "every document of this segment is unrated: without rated documents it has no PN curve, so no "
    "threshold can be chosen for it; rate some of its documents"
)


@dataclass(frozen=True)
class SegmentedCurves:
    """Each segment's PN curve and hull, the pooled hull (one global threshold), and unrated counts.

    Attributes
    ----------
    names : tuple of str
        The segments with rated documents, sorted.
    hulls : tuple of Hull
        Each segment's upper concave hull (with its PN curve).
    pooled : Hull
        The hull of all rated documents together.
    n_rated, n_unrated : tuple of int
        Rated and unrated documents per segment.
    without_rated : tuple of (str, int)
        Segments whose documents are all unrated, with their number of documents, sorted:
        they have no curve and no threshold, and every result lists them with
        :data:`NO_RATED_REASON`.
    """

    names: tuple[str, ...]
    hulls: tuple[Hull, ...]
    pooled: Hull
    n_rated: tuple[int, ...]
    n_unrated: tuple[int, ...]
    without_rated: tuple[tuple[str, int], ...] = ()

    @property
    def total_flagged(self) -> float:
        """Reviews needed to flag every rated document (the largest capacity worth asking for)."""
        return float(self.pooled.tp[-1] + self.pooled.fp[-1])


def _segment_codes(groups) -> tuple[np.ndarray, np.ndarray]:
    """Each document's segment as a code into the sorted segment names, compared as text.

    Parameters
    ----------
    groups : array-like
        The segment of every document (any values; missing ones are the segment ``"(missing)"``).

    Returns
    -------
    (numpy.ndarray of intp, numpy.ndarray of object)
        What ``pd.factorize(text, sort=True)`` gives on the values' text, with a hash table the size of a chunk of
        rows instead of the whole column, and text already text not copied (issue 34: 56 MB of temporaries
        fewer at 10^6 rows, beside every session's first page).
    """
    g = np.asarray(groups, dtype=object)
    if g.ndim != 1 or pd.api.types.infer_dtype(g, skipna=False) != "string":  # anything but text: its text
        g = pd.Series(g).astype("string").fillna("(missing)").to_numpy(dtype=object)
    step = 1 << 16
    names = np.asarray(sorted({v for a in range(0, g.size, step) for v in pd.unique(g[a : a + step])}), dtype=object)
    return pd.Index(names, dtype=object).get_indexer(g), names


def segment_curves(scores, labels, groups, weights=None, *, unrated_groups=None, pooled=None) -> SegmentedCurves:
    """Split rated documents by ``groups`` and build every segment's PN curve and upper hull.

    Parameters
    ----------
    scores, labels, weights : array-like
        Rated documents of one classifier.
    groups : array-like
        The segment of every rated document (any values; compared as text).
    unrated_groups : array-like, optional
        The segment of every unrated document, to report per segment.
    pooled : Hull, optional
        ``upper_hull(pn_curve(scores, labels, weights))`` when the caller already holds it (the dashboard's page hull
        of in-memory rows, :func:`engine.backends.pn_hull`): kept as the pooled hull instead of a second one built
        and held beside it (issue 34: 15 MB and a 60 MB transient at 10^6 rows). Built here when None; a hull of other
        documents (other weights, positives or scores) is refused.

    Returns
    -------
    SegmentedCurves
        Segments in order of their name; a segment that only unrated documents have is in
        ``without_rated``, never dropped.
    """
    s = np.asarray(scores, dtype=float)
    y = np.asarray(labels)
    w = np.ones(s.size) if weights is None else np.asarray(weights, dtype=float)
    if pooled is not None:
        _check_pooled(pooled, s, y, w)
    codes, names = _segment_codes(groups)
    if codes.size != s.size:
        raise InputError(f"the segment column has {codes.size} values for {s.size} rated documents")
    if names.size == 0:
        raise InputError("no rated documents to split into segments")
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(names.size + 1))
    hulls = []
    for j, name in enumerate(names):
        rows = order[bounds[j] : bounds[j + 1]]
        if w[rows].sum() <= 0:
            raise InputError(
                f"segment {name!r}: every rated document has weight 0; give them positive weights "
                "or leave the segment out"
            )
        hulls.append(upper_hull(pn_curve(s[rows], y[rows], w[rows])))
    unrated = pd.Series(np.asarray(unrated_groups if unrated_groups is not None else [], dtype=object))
    unrated_counts = unrated.astype("string").fillna("(missing)").value_counts()
    rated_names = {str(n) for n in names}
    without = tuple(sorted((str(n), int(c)) for n, c in unrated_counts.items() if str(n) not in rated_names))
    return SegmentedCurves(
        tuple(str(n) for n in names),
        tuple(hulls),
        upper_hull(pn_curve(s, y, w)) if pooled is None else pooled,
        tuple(int(b - a) for a, b in zip(bounds[:-1], bounds[1:])),
        tuple(int(unrated_counts.get(n, 0)) for n in names),
        without,
    )


def _check_pooled(pooled: Hull, s: np.ndarray, y: np.ndarray, w: np.ndarray) -> None:
    """Refuse a pooled hull that is not these rated documents' own.

    Compared, to rounding (the hull's sums run in score order): the weight of all documents and of the positives, and
    their weighted score sums (what the curve's steps at each distinct score add up to). Cheap at 10^6 rows: no sort
    and no copy of the rows.
    """
    curve = pooled.curve
    positive = np.asarray(y, dtype=bool)
    w_positive = w[positive]
    mine = np.array([w.sum(), w_positive.sum(), np.dot(w, s), np.dot(w_positive, s[positive])], dtype=float)
    steps_all = np.diff(curve.tp + curve.fp, prepend=0.0)
    steps_positive = np.diff(curve.tp, prepend=0.0)
    theirs = np.array(
        [
            (curve.tp[-1] + curve.fp[-1]) if curve.tp.size else 0.0,
            curve.tp[-1] if curve.tp.size else 0.0,
            np.dot(steps_all, curve.thresholds),
            np.dot(steps_positive, curve.thresholds),
        ]
    )
    if not np.allclose(theirs, mine, rtol=1e-9, atol=1e-9):
        raise InputError(
            f"the pooled hull given is not these rated documents' own (it covers {theirs[0]:g} documents, "
            f"{theirs[1]:g} positive, weighted score sum {theirs[2]:g}; they are {mine[0]:g}, {mine[1]:g}, "
            f"{mine[2]:g}): pass upper_hull(pn_curve(scores, labels, weights)) of the same documents, "
            "or leave pooled out"
        )


@dataclass(frozen=True)
class SegmentPoint(FlaggedCounts):
    """One segment's operating point (``threshold = inf``: flag nothing in this segment)."""

    segment: str
    threshold: float
    tp: float
    fp: float
    marginal_precision_above: float
    marginal_precision_below: float
    n_rated: int
    n_unrated: int


def _global_point(curves: SegmentedCurves, capacity: float | None, target: float | None) -> dict:
    if capacity is not None:
        p = max_flagged_point(capacity=capacity, curve=curves.pooled.curve)
        return {"threshold": p.threshold, "tp": p.tp, "fp": p.fp, "flagged": p.flagged}
    op = operating_point(target=target, hull=curves.pooled)
    return {"threshold": float(op.threshold), "tp": op.tp, "fp": op.fp, "flagged": op.tp + op.fp}


@dataclass(frozen=True)
class Allocation:
    """Per-segment thresholds for a capacity or a target, their totals, and one global threshold beside them.

    ``common_marginal_precision`` is the target, or for a capacity the marginal
    precision of the last hull edge taken (every segment's next document is worth
    at most that). ``without_rated`` lists the segments whose documents are all unrated
    (segment, unrated documents): they get no threshold, and :meth:`as_dict`,
    :meth:`table` and ``note`` say so with the reason.

    Attributes
    ----------
    segments : tuple of SegmentPoint
        Each segment's threshold, TP and FP.
    common_marginal_precision : float
        The marginal precision every segment is cut at.
    global_point : dict
        The single global threshold for the same target or capacity: threshold, tp, fp, flagged.
    capacity : float, optional
        The review capacity allocated, or None for a target.
    target : float, optional
        The target marginal precision, or None for a capacity.
    note : str
        What the reader should know about the allocation (e.g. reviews left unspent, segments
        without rated documents).
    method : str
        How the thresholds were found, in words.
    without_rated : tuple of (str, int)
        Segments whose documents are all unrated, with their number: no threshold (see
        :data:`NO_RATED_REASON`).
    """

    segments: tuple[SegmentPoint, ...]
    common_marginal_precision: float
    global_point: dict
    capacity: float | None = None
    target: float | None = None
    note: str = ""
    method: str = ""
    without_rated: tuple[tuple[str, int], ...] = ()

    @property
    def total(self) -> dict:
        tp = float(sum(p.tp for p in self.segments))
        fp = float(sum(p.fp for p in self.segments))
        return {"tp": tp, "fp": fp, "flagged": tp + fp}

    @property
    def tp_gained(self) -> float:
        """True positives the per-segment thresholds find beyond the single global threshold."""
        return self.total["tp"] - self.global_point["tp"]

    def as_dict(self) -> dict:
        """The ``opstudio sweep --by`` JSON record."""
        return {
            "segments": [
                {
                    "segment": p.segment,
                    "threshold": p.threshold,
                    "tp": p.tp,
                    "fp": p.fp,
                    "flagged": p.flagged,
                    "marginal_precision_above": p.marginal_precision_above,
                    "marginal_precision_below": p.marginal_precision_below,
                }
                for p in self.segments
            ],
            "total": self.total,
            "global": dict(self.global_point),
            "common_marginal_precision": self.common_marginal_precision,
            "capacity": self.capacity,
            "target": self.target,
            "tp_gained": self.tp_gained,
            "method": self.method,
            "note": self.note,
            "segments_without_threshold": [
                {"segment": name, "rated_documents": 0, "unrated_documents": n, "reason": NO_RATED_REASON}
                for name, n in self.without_rated
            ],
        }

    def table(self) -> pd.DataFrame:
        """One row per segment, in words with units, then the total and the global threshold."""
        rows = [
            {
                "segment": p.segment,
                "threshold": p.threshold,
                "true positives": p.tp,
                "false positives": p.fp,
                "flagged (reviews)": p.flagged,
                "precision": p.precision,
                "marginal precision above": p.marginal_precision_above,
                "marginal precision below": p.marginal_precision_below,
                "rated documents": p.n_rated,
                "unrated documents": p.n_unrated,
            }
            for p in self.segments
        ]
        rows += [
            {"segment": name, "rated documents": 0, "unrated documents": n, "note": NO_RATED_REASON}
            for name, n in self.without_rated
        ]
        total = self.total
        rows.append(
            {
                "segment": "total (per-segment thresholds)",
                "true positives": total["tp"],
                "false positives": total["fp"],
                "flagged (reviews)": total["flagged"],
                "precision": total["tp"] / total["flagged"] if total["flagged"] else math.nan,
                "rated documents": sum(p.n_rated for p in self.segments),
                "unrated documents": sum(p.n_unrated for p in self.segments),
            }
        )
        g = self.global_point
        rows.append(
            {
                "segment": "one global threshold",
                "threshold": g["threshold"],
                "true positives": g["tp"],
                "false positives": g["fp"],
                "flagged (reviews)": g["flagged"],
                "precision": g["tp"] / g["flagged"] if g["flagged"] else math.nan,
            }
        )
        return pd.DataFrame(rows)

    def sentence(self) -> str:
        """The comparison with one global threshold in words a stakeholder reads."""
        gained, total, g = self.tp_gained, self.total, self.global_point
        budget = (
            f"the same budget of at most {self.capacity:,.0f} reviews"
            if self.capacity is not None
            else f"marginal precision {self.target:.3g}"
        )
        head = (
            f"Per-segment thresholds find {total['tp']:,.0f} true positives with {total['flagged']:,.0f} "
            f"reviews; one global threshold finds {g['tp']:,.0f} with {g['flagged']:,.0f}"
        )
        if self.capacity is None:
            return head + "."
        if gained > 0.5:
            return f"{head}: +{gained:,.0f} true positives for {budget}."
        return f"{head}: no gain for {budget} (the segments' score distributions agree here)."


def allocate_target(curves: SegmentedCurves, target: float) -> Allocation:
    """Every segment's operating point at the target marginal precision m (and the pooled one beside it).

    Parameters
    ----------
    curves : SegmentedCurves
        Every segment's PN curve and upper hull (:func:`segment_curves`).
    target : float
        Target marginal precision m in (0, 1); each segment takes the hull vertex where its
        marginal precision crosses m (Robles et al. 2020, applied per segment).

    Returns
    -------
    Allocation
        One point per segment, the pooled global point beside them.

    Raises
    ------
    InputError
        The target is not in (0, 1).
    """
    m = float(np.ravel(check_target(target))[0])
    points = []
    for name, hull, n, u in zip(curves.names, curves.hulls, curves.n_rated, curves.n_unrated):
        op = operating_point(target=m, hull=hull)
        points.append(SegmentPoint(name, float(op.threshold), op.tp, op.fp, op.mp_above, op.mp_below, n, u))
    return Allocation(
        tuple(points),
        m,
        _global_point(curves, None, m),
        target=m,
        note=_without_rated_note(curves),
        without_rated=curves.without_rated,
    )


def _without_rated_note(curves: SegmentedCurves) -> str:
    if not curves.without_rated:
        return ""
    listed = ", ".join(f"'{name}' ({n:,} unrated)" for name, n in curves.without_rated[:10])
    more = f" and {len(curves.without_rated) - 10:,} more" if len(curves.without_rated) > 10 else ""
    return f"No threshold for {listed}{more}: {NO_RATED_REASON}."


def _common_slope_vertices(curves: SegmentedCurves, capacity: float) -> tuple[np.ndarray, float]:
    """Every segment's hull vertex after the longest prefix of merged edges (decreasing marginal precision)
    that fits the budget, and the marginal precision of the first edge that does not fit (the common slope)."""
    seg, mp, cost = [], [], []
    for j, hull in enumerate(curves.hulls):
        seg.append(np.full(hull.edge_mp.size, j))
        mp.append(hull.edge_mp)
        cost.append(np.diff(hull.tp + hull.fp))
    seg, mp, cost = (np.concatenate(a) for a in (seg, mp, cost))
    order = np.lexsort((seg, -mp))  # stable within a segment: its edges stay in hull order
    spent = np.cumsum(cost[order])
    taken = int(np.searchsorted(spent, capacity * (1 + 1e-12) + 1e-9, side="right"))
    # an edge of marginal precision 0 adds reviews and no true positive: never worth taking, whatever the budget
    taken = min(taken, int((mp > 0).sum()))
    vertex = np.bincount(seg[order[:taken]], minlength=len(curves.hulls))
    common = float(mp[order[taken]]) if taken < order.size else (float(mp[order[-1]]) if order.size else math.nan)
    return vertex, common


def _window_options(hull: Hull, v: int, window: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(curve index, tp, flagged) of the curve points within ``window`` hull edges of vertex v (-1 = origin)."""
    last = hull.vertex_index.size - 1
    lo = hull.vertex_index[max(v - window, 0)]
    hi = hull.vertex_index[min(v + window, last)]
    idx = np.arange(lo, hi + 1)  # lo may be -1: the origin (flag nothing)
    inside = idx >= 0
    tp = np.where(inside, hull.curve.tp[np.maximum(idx, 0)], 0.0)
    fp = np.where(inside, hull.curve.fp[np.maximum(idx, 0)], 0.0)
    return idx, tp, tp + fp


def _pareto_choice(options: list, capacity: float) -> list[int]:
    """Exact best total TP with total flagged <= capacity over one option per segment (Pareto-front DP)."""
    flagged, tp = np.zeros(1), np.zeros(1)
    parents = []
    for _, o_tp, o_flagged in options:
        f = (flagged[:, None] + o_flagged[None, :]).ravel()
        t = (tp[:, None] + o_tp[None, :]).ravel()
        ok = np.flatnonzero(f <= capacity * (1 + 1e-12) + 1e-9)
        order = ok[np.lexsort((-t[ok], f[ok]))]  # by flagged, then most TP first
        best_so_far = np.maximum.accumulate(t[order])
        keep = order[np.r_[True, t[order][1:] > best_so_far[:-1] + 1e-12]]  # dominated states dropped
        parents.append(keep)
        flagged, tp = f[keep], t[keep]
    state = int(np.argmax(tp))
    picks = []
    for (idx, o_tp, _), keep in zip(reversed(options), reversed(parents)):
        parent, option = divmod(int(keep[state]), o_tp.size)
        picks.append(int(idx[option]))
        state = parent
    return picks[::-1]


def _point_at(name: str, hull: Hull, i: int, n_rated: int, n_unrated: int) -> SegmentPoint:
    """A segment's point at curve index i (-1 = flag nothing), with the hull's marginal precision around it."""
    fit = hull.mp_at_threshold
    if i < 0:
        return SegmentPoint(
            name, math.inf, 0.0, 0.0, math.nan, float(fit[0]) if fit.size else math.nan, n_rated, n_unrated
        )
    below = float(fit[i + 1]) if i + 1 < fit.size else math.nan
    c = hull.curve
    return SegmentPoint(
        name, float(c.thresholds[i]), float(c.tp[i]), float(c.fp[i]), float(fit[i]), below, n_rated, n_unrated
    )


def _best_step(curves: SegmentedCurves, at_vertices: list[int], left: float) -> list[int]:
    """The vertices with the single segment's own threshold that adds the most TP within ``left`` reviews."""
    best, best_gain = None, 0.0
    for j, (hull, i) in enumerate(zip(curves.hulls, at_vertices)):
        c = hull.curve
        base_tp = c.tp[i] if i >= 0 else 0.0
        base_flagged = c.tp[i] + c.fp[i] if i >= 0 else 0.0
        extra = c.tp[i + 1 :] + c.fp[i + 1 :] - base_flagged
        fits = int(np.searchsorted(extra, left * (1 + 1e-12) + 1e-9, side="right"))
        if fits and c.tp[i + fits] - base_tp > best_gain + 1e-12:
            top = c.tp[i + fits]  # the highest threshold with that TP has the fewest FP
            best = (j, i + 1 + int(np.searchsorted(c.tp[i + 1 : i + 1 + fits], top - 1e-12 * max(1.0, top))))
            best_gain = top - base_tp
    picks = list(at_vertices)
    if best is not None:
        picks[best[0]] = best[1]
    return picks


#: below this many rated documents the last step is searched exactly over every segment's thresholds
EXACT_SEARCH_ROWS = 20_000


def allocate_capacity(curves: SegmentedCurves, capacity: float, *, window: int | None = None) -> Allocation:
    """Per-segment thresholds maximising total true positives with total flagged <= capacity.

    Parameters
    ----------
    curves : SegmentedCurves
    capacity : float
        Review budget N (weighted rated documents flagged, summed over segments).
    window : int, optional
        Search exactly over every segment's thresholds within this many hull edges of its
        common-slope vertex (a Pareto-front search over flagged volume and TP; a window spanning
        the hulls gives the exact optimum over every combination). By default the exact search
        spans the hulls for up to :data:`EXACT_SEARCH_ROWS` rated documents; above that the reviews
        left at the vertices go to the single segment whose own thresholds add the most.

    Returns
    -------
    Allocation
        ``method`` says which search was used. Never dominated by the best single global
        threshold: at least its true positives, and for as many no more reviews (its split is
        taken otherwise). With the exact search, the most true positives within the capacity
        and, among those, the fewest reviews (a budget above what can be flagged does not buy
        false positives that find no true positive).

    References
    ----------
    Robles et al., AAAI-MAKE 2020: the operating point maximises TP − λ·FP; summed over segments
    with one multiplier, the segments' hulls share one marginal precision.
    """
    n = check_capacity(capacity)
    vertex, common = _common_slope_vertices(curves, n)
    at_vertices = [int(hull.vertex_index[v]) for hull, v in zip(curves.hulls, vertex)]
    spent = sum(float(h.tp[v] + h.fp[v]) for h, v in zip(curves.hulls, vertex))
    if window is None and sum(curves.n_rated) <= EXACT_SEARCH_ROWS:
        window = max(h.vertex_index.size for h in curves.hulls)
    if window is None:
        picks, method = _best_step(curves, at_vertices, n - spent), "common slope + best single-segment step"
    else:
        options = [_window_options(hull, int(v), window) for hull, v in zip(curves.hulls, vertex)]
        picks, method = _pareto_choice(options, n), f"exact search within {window} hull edges of the common slope"

    def totals(indices) -> tuple[float, float]:
        tp = sum(float(h.curve.tp[i]) if i >= 0 else 0.0 for h, i in zip(curves.hulls, indices))
        return tp, tp + sum(float(h.curve.fp[i]) if i >= 0 else 0.0 for h, i in zip(curves.hulls, indices))

    if _no_worse(totals(at_vertices), totals(picks)):  # the vertices are optimal already: keep them
        picks = at_vertices
    points = tuple(
        _point_at(name, hull, i, r, u)
        for name, hull, i, r, u in zip(curves.names, curves.hulls, picks, curves.n_rated, curves.n_unrated)
    )
    global_point = _global_point(curves, n, None)
    allocation = Allocation(
        points,
        common,
        global_point,
        capacity=n,
        method=method,
        note=_without_rated_note(curves),
        without_rated=curves.without_rated,
    )
    if not _no_worse(
        (allocation.total["tp"], allocation.total["flagged"]), (global_point["tp"], global_point["flagged"])
    ):
        return _global_split(curves, n, global_point)
    return allocation


def _no_worse(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """(TP, flagged) ``a`` is at least as good as ``b``: more true positives, or as many for no more reviews."""
    return a[0] > b[0] + 1e-9 or (a[0] >= b[0] - 1e-9 and a[1] <= b[1] + 1e-9)


def _global_split(curves: SegmentedCurves, capacity: float, global_point: dict) -> Allocation:
    """The global threshold applied in every segment (used when it beats the greedy allocation)."""
    t = global_point["threshold"]
    points = []
    for name, hull, r, u in zip(curves.names, curves.hulls, curves.n_rated, curves.n_unrated):
        c = hull.curve
        i = int(np.searchsorted(-c.thresholds, -t, side="right")) - 1  # last curve index with threshold >= t
        tp, fp, th = (0.0, 0.0, math.inf) if i < 0 else (float(c.tp[i]), float(c.fp[i]), float(c.thresholds[i]))
        mp = math.nan if i < 0 else float(hull.mp_at_threshold[i])
        points.append(SegmentPoint(name, th, tp, fp, mp, mp, r, u))
    note = " ".join(
        filter(
            None,
            (
                "One global threshold spends this budget best here: it is used in every segment.",
                _without_rated_note(curves),
            ),
        )
    )
    return Allocation(
        tuple(points),
        math.nan,
        global_point,
        capacity=capacity,
        method="one global threshold",
        note=note,
        without_rated=curves.without_rated,
    )


def segment_intervals(
    scores, labels, groups, weights=None, *, target: float, n_boot: int = 100, level: float = 0.95, seed: int = 0
) -> pd.DataFrame:
    """Bootstrap intervals of every segment's threshold, TP and FP at the target marginal precision.

    Each segment's rated documents are resampled on their own (:func:`~engine.pn.bootstrap`,
    percentile intervals), so a segment's interval reflects its own sample size.

    Parameters
    ----------
    scores : array_like of float, shape (n,)
        One classifier's scores of the rated documents.
    labels : array_like of {0, 1}, shape (n,)
        Rated labels.
    groups : array_like, shape (n,)
        Segment of each document (missing values form the segment "(missing)").
    weights : array_like of float, shape (n,), optional
        Documents each rating stands for (default 1).
    target : float
        Target marginal precision in (0, 1).
    n_boot : int
        Bootstrap replicates per segment.
    level : float
        Interval level.
    seed : int
        Random seed.

    Returns
    -------
    pandas.DataFrame
        One row per segment (sorted by name): threshold, TP and FP, each low and high.
    """
    from ._bootstrap import bootstrap

    s = np.asarray(scores, dtype=float)
    y = np.asarray(labels)
    w = np.ones(s.size) if weights is None else np.asarray(weights, dtype=float)
    g = pd.Series(np.asarray(groups, dtype=object)).astype("string").fillna("(missing)").to_numpy(dtype=object)
    rows = []
    for name in sorted(set(g)):
        mask = g == name
        point = bootstrap(s[mask], y[mask], w[mask], n_boot=n_boot, level=level, seed=seed).at(target)
        rows.append(
            {
                "segment": str(name),
                "threshold low": point.threshold_ci[0],
                "threshold high": point.threshold_ci[1],
                "TP low": point.tp_ci[0],
                "TP high": point.tp_ci[1],
                "FP low": point.fp_ci[0],
                "FP high": point.fp_ci[1],
            }
        )
    return pd.DataFrame(rows)
