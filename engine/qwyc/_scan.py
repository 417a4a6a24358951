"""QWYC*'s candidate scan over blocks of rows sorted by their running sum (compiled, exact).

Algorithm 2 (Wang, Gupta & You, *Quit When You Can*, arXiv:1806.11202, 2018) only looks at the
extremes of every candidate's sums ``g + f_t``: the smallest sums of the positives (the negative
thresholds), the largest of the negatives (the positive ones), and the rows of the other side
beyond them. The undecided rows are kept in blocks of ``block`` rows, positives first, each side
sorted by ``g`` when the layout is (re)built; each block knows, for every candidate, the least
and greatest contribution of its rows, and at every step the least and greatest running sum of
its undecided rows. A block whose bounds ``[min g + min f, max g + max f]`` cannot reach the
current extreme is skipped, one wholly beyond a threshold is counted without being read, and a
side's scan stops once no later block can matter. Rounding is monotone, so the bounds hold for
the float64 sums themselves: the exits, and so the chosen model, are exactly those of the full
scan (:func:`~engine.qwyc._policy.step_thresholds` on every candidate). Rows that exited keep
their place until the next rebuild with sums of +inf (``lo``) and -inf (``hi``): never a
minimum, a maximum or a count.

Algorithm 2 only ever looks at the ``budget + 1`` smallest sums of the positives and the
``budget + 1`` largest of the negatives: they are selected with a bounded heap (:func:`_select`)
and every other value counted against them with a binary search (:func:`_count_below`),
O(n log budget) per candidate with the counts (and ties) of the sorted formulation.

The candidates' exits are independent of each other: the compiled loops release the GIL and
:func:`dense_pick`, :func:`scan_pick` and :func:`build` split the candidates over threads
(:func:`~engine.qwyc.kernels.in_parts`), then pick over all of them as one thread would.

The chosen model's thresholds are Algorithm 2 without sorting (the order statistics selected,
the rest counted, the two midpoints found in one pass each); only the rare step where every
undecided row can exit is handed back to the sorted NumPy formulation.
"""

from __future__ import annotations

import numpy as np

from .kernels import AVAILABLE, in_parts, njit, prefetch

__all__ = [
    "BLOCK",
    "Layout",
    "build",
    "dense_pick",
    "dense_tables",
    "table_pick",
    "scan_pick",
    "split",
    "add_and_split",
    "drop_exited",
    "thresholds_along",
]

BLOCK = 32  # rows per block: small enough to skip most of a candidate, large enough to keep the checks cheap

INF = np.inf


def _heap_push_max(heap: np.ndarray, size: int, value: float) -> None:
    """Sift ``value`` up a max-heap of ``size`` elements (``heap[size]`` is free)."""
    i = size
    while i > 0:
        parent = (i - 1) // 2
        if heap[parent] >= value:
            break
        heap[i] = heap[parent]
        i = parent
    heap[i] = value


def _heap_replace_max(heap: np.ndarray, size: int, value: float) -> None:
    """Replace the top of a max-heap of ``size`` elements by a smaller ``value``."""
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and heap[child + 1] > heap[child]:
            child += 1
        if heap[child] <= value:
            break
        heap[i] = heap[child]
        i = child
    heap[i] = value


def _offer(heap: np.ndarray, size: int, k: int, v: float) -> int:
    """Offer ``v`` to a max-heap keeping the k smallest values (+inf, an exited row, never enters); new size."""
    if size < k:
        if v == np.inf:
            return size
        _heap_push_max(heap, size, v)
        return size + 1
    if v < heap[0]:
        _heap_replace_max(heap, size, v)
    return size


def _select(values: np.ndarray, n: int, k: int, heap: np.ndarray, sign: float) -> int:
    """The min(k, n) smallest of ``sign * values[:n]``, ascending into ``heap[:m]``; returns m."""
    size = 0
    for i in range(n):
        size = _offer(heap, size, k, sign * values[i])
    heap[:size].sort()
    return size


def _count_below(x: np.ndarray, m: int, v: float) -> int:
    """``#{j < m : x[j] <= v}`` for ascending ``x`` (``searchsorted(x[:m], v, 'right')``)."""
    if m == 0 or v < x[0]:
        return 0
    if v >= x[m - 1]:
        return m
    base, size = 0, m  # branch-free binary search (the comparison becomes a conditional move)
    while size > 1:
        half = size >> 1
        base = base + half if x[base + half] <= v else base
        size -= half
    return base + (x[base] <= v)


class Layout:
    """The undecided rows and the remaining candidates' contributions, blocked (see the module docstring).

    Attributes
    ----------
    rows : numpy.ndarray of int64, shape (n,)
        Data row of each position: positives by ascending ``g``, then negatives.
    n_pos : int
        Positions ``[0, n_pos)`` hold the rows whose full decision is positive.
    bstart : numpy.ndarray of int64, shape (blocks + 1,)
        Block boundaries; blocks ``[0, nbp)`` are positive.
    nbp : int
        Number of positive blocks.
    ft : numpy.ndarray of float64, shape (candidates, n)
        Contributions, one contiguous row per candidate.
    bfmin, bfmax : numpy.ndarray of float64, shape (candidates, blocks)
        Least / greatest contribution of each candidate on each block.
    cfmin, cfmax : numpy.ndarray of float64, shape (candidates,)
        Least / greatest contribution of each candidate on the layout.
    lo, hi : numpy.ndarray of float64, shape (n,)
        Running sums; +inf / -inf for rows that exited since the layout was built.
    slot : numpy.ndarray of int64, shape (models,)
        Row of ``ft`` of each model (-1: not a candidate of this layout).
    """

    def __init__(self, rows, n_pos, bstart, nbp, ft, bfmin, bfmax, cfmin, cfmax, g, models, t_count):
        self.rows, self.n_pos, self.bstart, self.nbp = rows, int(n_pos), bstart, int(nbp)
        self.ft, self.bfmin, self.bfmax, self.cfmin, self.cfmax = ft, bfmin, bfmax, cfmin, cfmax
        self.lo, self.hi = g.copy(), g.copy()
        self.slot = np.full(t_count, -1, dtype=np.int64)
        self.slot[models] = np.arange(models.size)
        nb = bstart.size - 1
        self.bgmin, self.bgmax = np.empty(nb), np.empty(nb)
        self.bcnt = np.empty(nb, dtype=np.int64)
        self.sufmin, self.premax = np.empty(nb), np.empty(nb)
        self.n_active = rows.size
        self.built_active = rows.size

    def undecided(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(data rows, running sums, is positive) of the rows still undecided."""
        keep = self.lo != np.inf
        pos = np.zeros(self.rows.size, dtype=bool)
        pos[: self.n_pos] = True
        return self.rows[keep], self.lo[keep], pos[keep]


def build(
    source: np.ndarray,
    by_row: bool,
    cols: np.ndarray,
    rows: np.ndarray,
    g: np.ndarray,
    d: np.ndarray,
    models: np.ndarray,
    source_slots: np.ndarray,
    t_count: int,
    block: int = BLOCK,
    out: np.ndarray | None = None,
    pool=None,
    parts: int = 1,
) -> Layout:
    """A :class:`Layout` of the given undecided rows and candidate models.

    Parameters
    ----------
    source : numpy.ndarray of float64
        F (N, T) when ``by_row``, else a previous layout's ``ft``.
    by_row : bool
        Whether ``source`` is F (rows x models) or candidate-major.
    cols : numpy.ndarray of int64
        Column (or row of F) of each undecided row in ``source``.
    rows, g, d : numpy.ndarray
        Their data rows, running sums and full decisions.
    models : numpy.ndarray of int64
        The candidates, in the order kept.
    source_slots : numpy.ndarray of int64
        Index of each candidate in ``source`` (its model index for F).
    t_count : int
        Number of models.
    block : int, optional
        Rows per block.
    out : numpy.ndarray of float64, optional
        A flat buffer (not ``source``'s) to hold ``ft`` when large enough: memory already
        touched, so a rebuild does not pay the page faults of a fresh allocation.
    pool, parts : optional
        :func:`~engine.qwyc.kernels.worker_pool` threads and the number of candidate ranges copied at once.

    Returns
    -------
    Layout
        Its ``buffer`` attribute is the flat memory behind ``ft``.
    """
    perm = np.concatenate(
        [np.flatnonzero(d)[np.argsort(g[d], kind="stable")], np.flatnonzero(~d)[np.argsort(g[~d], kind="stable")]]
    )
    n_pos = int(d.sum())
    n = perm.size
    bstart = np.unique(np.concatenate([np.arange(0, n_pos, block), np.arange(n_pos, n, block), [n_pos, n]]))
    nbp = int(np.searchsorted(bstart, n_pos, side="left"))
    need = models.size * n
    buffer = out if out is not None and out.size >= need else np.empty(need)
    ft = buffer[:need].reshape(models.size, n)
    bfmin = np.empty((models.size, bstart.size - 1))
    bfmax = np.empty_like(bfmin)
    cols, cuts = cols[perm], np.linspace(0, models.size, parts + 1).astype(np.int64)
    in_parts(
        pool,
        parts,
        lambda p: _gather(source, by_row, cols, source_slots, bstart, ft, bfmin, bfmax, cuts[p], cuts[p + 1]),
    )
    cfmin = bfmin.min(axis=1) if bfmin.shape[1] else np.zeros(models.size)
    cfmax = bfmax.max(axis=1) if bfmax.shape[1] else np.zeros(models.size)
    lay = Layout(rows[perm], n_pos, bstart, nbp, ft, bfmin, bfmax, cfmin, cfmax, g[perm], models, t_count)
    lay.buffer = buffer  # type: ignore[attr-defined]
    return lay


def _gather(source, by_row, cols, slots, bstart, ft, bfmin, bfmax, first, stop):
    """``ft[j, i] = source[slots[j], cols[i]]`` (or ``source[cols[i], slots[j]]``) with each block's min and max,
    for the candidates ``first <= j < stop``."""
    nb = bstart.size - 1
    if by_row:  # a transpose, in tiles that stay in cache; the block bounds read back
        tile = 64
        for i0 in range(0, cols.size, tile):
            i1 = min(i0 + tile, cols.size)
            for j0 in range(first, stop, tile):
                j1 = min(j0 + tile, stop)
                for i in range(i0, i1):
                    src = source[cols[i]]
                    for j in range(j0, j1):
                        ft[j, i] = src[slots[j]]
        for j in range(first, stop):
            row = ft[j]
            for b in range(nb):
                lo, hi = INF, -INF
                for i in range(bstart[b], bstart[b + 1]):
                    lo = min(lo, row[i])
                    hi = max(hi, row[i])
                bfmin[j, b], bfmax[j, b] = lo, hi
        return
    for j in range(first, stop):  # candidate-major: each value's block bounds taken as it is written
        row = ft[j]
        src = source[slots[j]]
        for b in range(nb):
            lo, hi = INF, -INF
            for i in range(bstart[b], bstart[b + 1]):
                v = src[cols[i]]
                row[i] = v
                lo = min(lo, v)
                hi = max(hi, v)
            bfmin[j, b], bfmax[j, b] = lo, hi


def _block_stats(lo, hi, bstart, nbp, bgmin, bgmax, bcnt, sufmin, premax):
    """Each block's least and greatest undecided sum and count; suffix minima and prefix maxima per side."""
    nb = bstart.size - 1
    for b in range(nb):
        a, z, c = INF, -INF, 0
        for i in range(bstart[b], bstart[b + 1]):
            v = lo[i]
            if v != INF:
                c += 1
                a = min(a, v)
                z = max(z, v)
        bgmin[b], bgmax[b], bcnt[b] = a, z, c
    for first, last in ((0, nbp), (nbp, nb)):
        run = INF
        for b in range(last - 1, first - 1, -1):
            run = min(run, bgmin[b])
            sufmin[b] = run
        run = -INF
        for b in range(first, last):
            run = max(run, bgmax[b])
            premax[b] = run


def _prefetch_block(values, first, stop):
    """Ask for the cache lines of ``values[first:stop]`` ahead of reading them."""
    for i in range(first, stop, 8):
        prefetch(values, i)


def _spent_exits(
    fj, bmin, bmax, cmin, cmax, lo, hi, bstart, nbp, bgmin, bgmax, bcnt, sufmin, premax, neg_only, total, listed
):
    """Budget 0: negatives below every positive plus positives above every negative."""
    nb = bstart.size - 1
    m = INF  # smallest positive sum
    for b in range(nbp):
        if sufmin[b] + cmin >= m:
            break
        if bgmin[b] + bmin[b] >= m:
            continue
        for i in range(bstart[b], bstart[b + 1]):
            m = min(m, lo[i] + fj[i])
    exits = 0
    todo = 0  # the blocks to read, listed (and their rows prefetched) before any is read: their misses overlap
    for b in range(nbp, nb):
        if sufmin[b] + cmin >= m:
            break
        if bgmin[b] + bmin[b] >= m:
            continue
        if bgmax[b] + bmax[b] < m:
            exits += bcnt[b]
            continue
        _prefetch_block(fj, bstart[b], bstart[b + 1])
        listed[todo] = b
        todo += 1
    for q in range(todo):
        b = listed[q]
        for i in range(bstart[b], bstart[b + 1]):
            exits += lo[i] + fj[i] < m
    if neg_only:
        return min(exits, total)
    big = -INF  # largest negative sum
    for b in range(nb - 1, nbp - 1, -1):
        if premax[b] + cmax <= big:
            break
        if bgmax[b] + bmax[b] <= big:
            continue
        for i in range(bstart[b], bstart[b + 1]):
            big = max(big, hi[i] + fj[i])
    todo = 0
    for b in range(nbp - 1, -1, -1):
        if premax[b] + cmax <= big:
            break
        if bgmax[b] + bmax[b] <= big:
            continue
        if bgmin[b] + bmin[b] > big:
            exits += bcnt[b]
            continue
        _prefetch_block(fj, bstart[b], bstart[b + 1])
        listed[todo] = b
        todo += 1
    for q in range(todo):
        b = listed[q]
        for i in range(bstart[b], bstart[b + 1]):
            exits += hi[i] + fj[i] > big
    return min(exits, total)


def _select_low(fj, bmin, cmin, lo, bstart, first, last, sufmin, bgmin, k, heap):
    """The min(k, undecided) smallest of ``lo + fj`` over blocks [first, last), ascending into ``heap``; returns m."""
    size = 0
    for b in range(first, last):
        if size == k and (sufmin[b] + cmin >= heap[0]):
            break
        if size == k and bgmin[b] + bmin[b] >= heap[0]:
            continue
        for i in range(bstart[b], bstart[b + 1]):
            size = _offer(heap, size, k, lo[i] + fj[i])
    heap[:size].sort()
    return size


def _select_high(fj, bmax, cmax, hi, bstart, first, last, premax, bgmax, k, heap):
    """The min(k, undecided) largest of ``hi + fj`` over blocks [first, last), negated, ascending; returns m."""
    size = 0
    for b in range(last - 1, first - 1, -1):
        if size == k and -(premax[b] + cmax) >= heap[0]:
            break
        if size == k and -(bgmax[b] + bmax[b]) >= heap[0]:
            continue
        for i in range(bstart[b], bstart[b + 1]):
            size = _offer(heap, size, k, -(hi[i] + fj[i]))
    heap[:size].sort()
    return size


def _hist_low(fj, bmin, bmax, cmin, lo, bstart, first, last, sufmin, bgmin, bgmax, bcnt, x, m, hist):
    """``hist[c] = #{rows: #{x <= lo + fj} = c}`` for c < m over blocks [first, last) (bucket m not kept)."""
    hist[: m + 1] = 0
    if m == 0:
        return
    for b in range(first, last):
        if sufmin[b] + cmin >= x[m - 1]:
            break
        if bgmin[b] + bmin[b] >= x[m - 1]:
            continue
        if bgmax[b] + bmax[b] < x[0]:
            hist[0] += bcnt[b]
            continue
        for i in range(bstart[b], bstart[b + 1]):
            hist[_count_below(x, m, lo[i] + fj[i])] += 1


def _hist_high(fj, bmin, bmax, cmax, hi, bstart, first, last, premax, bgmin, bgmax, bcnt, y, m, hist):
    """As :func:`_hist_low` for the negated sums ``-(hi + fj)``, blocks visited from the top."""
    hist[: m + 1] = 0
    if m == 0:
        return
    for b in range(last - 1, first - 1, -1):
        if -(premax[b] + cmax) >= y[m - 1]:
            break
        if -(bgmax[b] + bmax[b]) >= y[m - 1]:
            continue
        if -(bgmin[b] + bmin[b]) < y[0]:
            hist[0] += bcnt[b]
            continue
        for i in range(bstart[b], bstart[b + 1]):
            hist[_count_below(y, m, -(hi[i] + fj[i]))] += 1


def _side_totals(x, m, hist, k, total, exits):
    """``exits[b] = #{own < x[b]} + #{others < x[b]}`` from the selected order statistics and the histogram."""
    below = 0
    first = 0
    for b in range(k):
        if b < m:
            below += hist[b]
            if b > 0 and x[b] != x[b - 1]:
                first = b
            exits[b] = first + below
        else:
            exits[b] = total


def _budget_exits(
    fj,
    bmin,
    bmax,
    cmin,
    cmax,
    lo,
    hi,
    bstart,
    nbp,
    bgmin,
    bgmax,
    bcnt,
    sufmin,
    premax,
    budget,
    neg_only,
    total,
    x,
    hist,
    neg_exits,
    pos_exits,
):
    """Budget > 0: Algorithm 2's best exits from the selected order statistics, the rest counted."""
    nb = bstart.size - 1
    k = budget + 1
    mx = _select_low(fj, bmin, cmin, lo, bstart, 0, nbp, sufmin, bgmin, k, x)
    _hist_low(fj, bmin, bmax, cmin, lo, bstart, nbp, nb, sufmin, bgmin, bgmax, bcnt, x, mx, hist)
    _side_totals(x, mx, hist, k, total, neg_exits)
    if not neg_only:
        my = _select_high(fj, bmax, cmax, hi, bstart, nbp, nb, premax, bgmax, k, x)
        _hist_high(fj, bmin, bmax, cmax, hi, bstart, 0, nbp, premax, bgmin, bgmax, bcnt, x, my, hist)
        _side_totals(x, my, hist, k, total, pos_exits)
    return _best_of(neg_exits, pos_exits, budget, neg_only, total)


def _best_of(neg_exits, pos_exits, budget, neg_only, total):
    """The most exits over the splits ``b + c = budget`` of the mistakes between the two sides."""
    best = 0
    for b in range(budget + 1):
        best = max(best, neg_exits[b] if neg_only else neg_exits[b] + pos_exits[budget - b])
    return min(best, total)


def _pick(exits, costs):
    """The candidate with the smallest ``cost / exits`` (first on ties); with no exits, the first cheapest."""
    pick, best = -1, INF
    for j in range(exits.size):
        if exits[j] > 0 and costs[j] / exits[j] < best:
            pick, best = j, costs[j] / exits[j]
    if pick < 0:
        cheapest = INF
        for j in range(exits.size):
            if costs[j] < cheapest:
                pick, cheapest = j, costs[j]
    return pick


def dense_pick(f, g0, full, costs, budget, neg_only, exits, pool=None, parts=1):
    """The first step, read straight from F (N, T) row by row: every row undecided with running sum ``g0``.

    The same exits as :func:`scan_pick` on a layout of every row, without copying F; the
    candidates are split into ``parts`` ranges run at once in ``pool``
    (:func:`~engine.qwyc.kernels.worker_pool`). Returns the index of the chosen candidate
    (every model is a candidate).
    """
    neg_tab, pos_tab = dense_tables(f, g0, full, budget + 1, neg_only, pool, parts)
    return table_pick(neg_tab, pos_tab, costs, budget, neg_only, f.shape[0], exits)


def dense_tables(f, g0, full, k, neg_only=False, pool=None, parts=1):
    """The first step's exits of every candidate for every budget below ``k``, read straight from F (N, T).

    ``neg_tab[t, b]``: the rows below the (b+1)-th smallest positive sum ``g0 + F[:, t]`` (its
    negative exits spending b mistakes; N past the positives), ``pos_tab[t, c]`` the rows above
    the (c+1)-th largest negative sum (zeros with ``neg_only``). Neither depends on the budget
    beyond ``k``: a fit with any budget below ``k`` picks its first model from them
    (:func:`table_pick`). Candidates are split into ``parts`` ranges run at once in ``pool``.

    Returns
    -------
    (numpy.ndarray of int32, numpy.ndarray of int32), shape (T, k) each
    """
    t_count = f.shape[1]
    neg_tab = np.zeros((t_count, k), dtype=np.int32)
    pos_tab = np.zeros((t_count, k), dtype=np.int32)
    cuts = np.linspace(0, t_count, parts + 1).astype(np.int64)
    in_parts(pool, parts, lambda p: _dense_sides(f, g0, full, k, neg_only, neg_tab, pos_tab, cuts[p], cuts[p + 1]))
    return neg_tab, pos_tab


def table_pick(neg_tab, pos_tab, costs, budget, neg_only, n, exits):
    """The first step's pick from :func:`dense_tables` (``budget`` below their width) over ``n`` rows.

    Writes every candidate's exits into ``exits``; returns the index of the chosen one, as :func:`dense_pick`.
    """
    _table_exits(neg_tab, pos_tab, budget, neg_only, n, exits)
    return int(_pick(exits[: neg_tab.shape[0]], costs))


def _table_exits(neg_tab, pos_tab, budget, neg_only, n, exits):
    """``exits[t]``: Algorithm 2's most exits of candidate t from its rows of the tables."""
    for t in range(neg_tab.shape[0]):
        exits[t] = _best_of(neg_tab[t], pos_tab[t], budget, neg_only, n) if n > 0 else 0


def _dense_sides(f, g0, full, k, neg_only, neg_tab, pos_tab, first, stop):
    """:func:`dense_tables`' rows of the candidates ``first <= j < stop``.

    Each candidate's current cut-offs (the largest of its k smallest positive sums, the smallest of
    its k largest negative ones) are kept side by side, so that the common case — a sum that changes
    nothing — reads one contiguous array instead of a line of every candidate's heap.
    """
    n = f.shape[0]
    m_count = stop - first
    x, y = np.empty((m_count, k)), np.empty((m_count, k))
    mx, my = np.zeros(m_count, dtype=np.int64), np.zeros(m_count, dtype=np.int64)
    xtop, ytop = np.full(m_count, INF), np.full(m_count, INF)  # a sum enters a heap only below its top
    for i in range(n):  # the k smallest positive and k largest negative sums of every candidate
        row = f[i]
        if full[i]:
            for c in range(m_count):
                v = g0 + row[first + c]
                if v < xtop[c]:
                    mx[c] = _offer(x[c], mx[c], k, v)
                    if mx[c] == k:
                        xtop[c] = x[c, 0]
        elif not neg_only:
            for c in range(m_count):
                v = -(g0 + row[first + c])
                if v < ytop[c]:
                    my[c] = _offer(y[c], my[c], k, v)
                    if my[c] == k:
                        ytop[c] = y[c, 0]
    xlo, xhi = np.full(m_count, -INF), np.full(m_count, -INF)  # each side's least and greatest selected sum
    ylo, yhi = np.full(m_count, -INF), np.full(m_count, -INF)
    for c in range(m_count):
        x[c, : mx[c]].sort()
        y[c, : my[c]].sort()
        if mx[c] > 0:
            xlo[c], xhi[c] = x[c, 0], x[c, mx[c] - 1]
        if my[c] > 0:
            ylo[c], yhi[c] = y[c, 0], y[c, my[c] - 1]
    hx, hy = np.zeros((m_count, k + 1), dtype=np.int64), np.zeros((m_count, k + 1), dtype=np.int64)
    x0, y0 = np.zeros(m_count, dtype=np.int64), np.zeros(m_count, dtype=np.int64)  # bucket 0, side by side
    for i in range(n):  # the other side counted against them
        row = f[i]
        if not full[i]:
            for c in range(m_count):
                v = g0 + row[first + c]
                if v < xlo[c]:
                    x0[c] += 1
                elif v < xhi[c]:
                    hx[c, _count_below(x[c], mx[c], v)] += 1
        elif not neg_only:
            for c in range(m_count):
                v = -(g0 + row[first + c])
                if v < ylo[c]:
                    y0[c] += 1
                elif v < yhi[c]:
                    hy[c, _count_below(y[c], my[c], v)] += 1
    for c in range(m_count):
        hx[c, 0] += x0[c]
        hy[c, 0] += y0[c]
        _side_totals(x[c], mx[c], hx[c], k, n, neg_tab[first + c])
        if not neg_only:
            _side_totals(y[c], my[c], hy[c], k, n, pos_tab[first + c])


def scan_pick(
    ft,
    bfmin,
    bfmax,
    cfmin,
    cfmax,
    lo,
    hi,
    bstart,
    nbp,
    bgmin,
    bgmax,
    bcnt,
    sufmin,
    premax,
    slots,
    costs,
    budget,
    neg_only,
    exits,
    pool=None,
    parts=1,
):
    """Every candidate's best exits into ``exits``; returns the index of the one with the smallest cost / exits.

    Ties go to the first candidate; with no exits, to the first cheapest (as ``numpy.argmin``
    over ``costs / exits`` and then over ``costs``). The candidates are dealt to ``parts``
    threads of ``pool`` (:func:`~engine.qwyc.kernels.worker_pool`) in turn: pruning makes
    some candidates far cheaper than others, and dealing them spreads those evenly.
    """
    _block_stats(lo, hi, bstart, nbp, bgmin, bgmax, bcnt, sufmin, premax)
    in_parts(
        pool,
        parts,
        lambda p: _scan_exits(
            ft,
            bfmin,
            bfmax,
            cfmin,
            cfmax,
            lo,
            hi,
            bstart,
            nbp,
            bgmin,
            bgmax,
            bcnt,
            sufmin,
            premax,
            slots,
            budget,
            neg_only,
            exits,
            p,
            parts,
        ),
    )
    return int(_pick(exits[: slots.size], costs))


def _scan_exits(
    ft,
    bfmin,
    bfmax,
    cfmin,
    cfmax,
    lo,
    hi,
    bstart,
    nbp,
    bgmin,
    bgmax,
    bcnt,
    sufmin,
    premax,
    slots,
    budget,
    neg_only,
    exits,
    first,
    stride,
):
    """:func:`scan_pick`'s exits of the candidates ``first, first + stride, ...`` (block statistics already made)."""
    total = 0
    for b in range(bcnt.size):
        total += bcnt[b]
    k = budget + 1
    x = np.empty(k)
    hist = np.empty(k + 1, dtype=np.int64)
    neg_exits = np.empty(k, dtype=np.int64)
    pos_exits = np.empty(k, dtype=np.int64)
    listed = np.empty(bcnt.size, dtype=np.int64)
    for j in range(first, slots.size, stride):
        s = slots[j]
        if total == 0:
            exits[j] = 0
        elif budget == 0:
            exits[j] = _spent_exits(
                ft[s],
                bfmin[s],
                bfmax[s],
                cfmin[s],
                cfmax[s],
                lo,
                hi,
                bstart,
                nbp,
                bgmin,
                bgmax,
                bcnt,
                sufmin,
                premax,
                neg_only,
                total,
                listed,
            )
        else:
            exits[j] = _budget_exits(
                ft[s],
                bfmin[s],
                bfmax[s],
                cfmin[s],
                cfmax[s],
                lo,
                hi,
                bstart,
                nbp,
                bgmin,
                bgmax,
                bcnt,
                sufmin,
                premax,
                budget,
                neg_only,
                total,
                x,
                hist,
                neg_exits,
                pos_exits,
            )


def _midpoint(a, b):
    m = a + (b - a) / 2
    return m if a < m < b else b


def _side(own, others, k, sign, total, thr, cost, exits):
    """One side of Algorithm 2 for every budget b < k, from the b-th smallest of ``sign * own``.

    ``thr[b]``: the threshold (``sign * inf`` past the side's rows), ``cost[b]``: own rows
    beyond it (the mistakes), ``exits[b]``: all rows beyond it (counts of the sorted formulation).
    """
    hist = np.empty(k + 1, dtype=np.int64)
    xs = np.empty(k)
    m = _select(own, own.size, k, xs, sign)
    for i in range(m + 1):
        hist[i] = 0
    if m > 0:
        for i in range(others.size):
            hist[_count_below(xs, m, sign * others[i])] += 1
    below, first = 0, 0
    for b in range(k):
        if b < m:
            below += hist[b]
            if b > 0 and xs[b] != xs[b - 1]:
                first = b
            thr[b], cost[b], exits[b] = sign * xs[b], first, first + below
        else:
            thr[b], cost[b], exits[b] = sign * INF, own.size, total


def _gap(pos, neg, cut, closed):
    """Midpoint between the largest value below ``cut`` (or at it, when ``closed``) and the smallest other."""
    under, over = -INF, INF
    for side in (pos, neg):
        for v in side:
            if v < cut or (closed and v == cut):
                under = max(under, v)
            else:
                over = min(over, v)
    return _midpoint(under, over)


def split(pos, neg, budget, neg_only):
    """Algorithm 2 on unsorted sums: the thresholds of :func:`~engine.qwyc._policy.step_thresholds`.

    Parameters
    ----------
    pos, neg : numpy.ndarray of float64
        Running sums of the undecided examples whose full decision is positive / negative.
    budget : int
        Mistakes allowed (>= 0).
    neg_only : bool
        Only negative exits.

    Returns
    -------
    (float, float, int, int, bool)
        ``eps_minus``, ``eps_plus``, exits, mistakes and ``everyone_exits``: when every
        example can exit, the thresholds are not computed and the caller uses
        :func:`~engine.qwyc._policy.step_thresholds` (its one-cut rule) instead.
    """
    total = pos.size + neg.size
    if total == 0:
        return -INF, INF, 0, 0, False
    k = budget + 1
    big = np.iinfo(np.int64).max
    x = np.empty(k)
    neg_cost = np.empty(k, dtype=np.int64)
    neg_exits = np.empty(k, dtype=np.int64)
    _side(pos, neg, k, 1.0, total, x, neg_cost, neg_exits)
    y = np.full(k, INF)
    pos_cost = np.zeros(k, dtype=np.int64)
    pos_exits = np.zeros(k, dtype=np.int64)
    if not neg_only:
        _side(neg, pos, k, -1.0, total, y, pos_cost, pos_exits)
    best = 0
    for b in range(k):
        best = max(best, neg_exits[b] + pos_exits[budget - b])
    best = min(best, total)
    if best == 0:
        return -INF, INF, 0, 0, False
    if best == total:
        return -INF, INF, total, 0, True
    i_best, cost_best, c_best = 0, big, 0
    for b in range(k):  # the fewest mistakes reaching `best` (first b on ties, as numpy.argmin)
        need = best - neg_exits[b]
        c = 0
        if need > 0:
            while c < k and pos_exits[c] < need:
                c += 1
        ok = need <= 0 or c <= budget - b
        cost = neg_cost[b] + pos_cost[min(c, budget)] if ok else big
        if cost < cost_best:
            i_best, cost_best, c_best = b, cost, c
    eps_minus = _gap(pos, neg, x[i_best], False) if neg_exits[i_best] > 0 else -INF
    eps_plus = _gap(pos, neg, y[c_best], True) if pos_exits[c_best] > 0 else INF
    return eps_minus, eps_plus, best, cost_best, False


def add_and_split(fj, lo, hi, n_pos, budget, neg_only):
    """Add the chosen model's contributions, then its Algorithm 2 thresholds on the undecided rows."""
    n = lo.size
    for i in range(n):
        lo[i] += fj[i]
        hi[i] += fj[i]
    n_p, n_n = 0, 0
    for i in range(n):
        if lo[i] != INF:
            if i < n_pos:
                n_p += 1
            else:
                n_n += 1
    pos, neg = np.empty(n_p), np.empty(n_n)
    a, z = 0, 0
    for i in range(n):
        if lo[i] != INF:
            if i < n_pos:
                pos[a] = lo[i]
                a += 1
            else:
                neg[z] = lo[i]
                z += 1
    return split(pos, neg, budget, neg_only)


def drop_exited(lo, hi, eps_minus, eps_plus):
    """Rows with ``g > eps_plus`` or ``g < eps_minus`` leave (sums set to ±inf); returns the undecided count."""
    left = 0
    for i in range(lo.size):
        v = lo[i]
        if v == INF:
            continue
        if v > eps_plus or v < eps_minus:
            lo[i], hi[i] = INF, -INF
        else:
            left += 1
    return left


def thresholds_along(f_t, order, full, allowance, neg_only, start, g, active, n_active, eps_minus, eps_plus, spent):
    """Algorithm 2 along a fixed order from step ``start``: (step reached, undecided left, mistakes spent).

    ``f_t`` is F transposed (one contiguous row per model; the undecided rows are read in
    ascending order).
    ``g`` (all rows), ``active[:n_active]`` (undecided rows) and the thresholds are updated in
    place. Stops early at a step where every undecided row can exit (returned as the step
    reached, its model already added): the caller places that cut and continues at the next step.
    """
    steps = order.size
    for r in range(start, steps):
        t = order[r]
        for a in range(n_active):
            g[active[a]] += f_t[t, active[a]]
        if r == steps - 1 or n_active == 0:
            return steps, n_active, spent
        n_p = 0
        for a in range(n_active):
            n_p += full[active[a]]
        pos, neg = np.empty(n_p), np.empty(n_active - n_p)
        p, q = 0, 0
        for a in range(n_active):
            i = active[a]
            if full[i]:
                pos[p] = g[i]
                p += 1
            else:
                neg[q] = g[i]
                q += 1
        lo, hi, _, mistakes, everyone = split(pos, neg, allowance[r] - spent, neg_only)
        if everyone:
            return r, n_active, spent
        eps_minus[r], eps_plus[r] = lo, hi
        spent += mistakes
        left = 0
        for a in range(n_active):
            v = g[active[a]]
            if not (v > hi or v < lo):
                active[left] = active[a]
                left += 1
        n_active = left
    return steps, n_active, spent


if AVAILABLE:
    _heap_push_max = njit(inline="always", cache=True)(_heap_push_max)
    _heap_replace_max = njit(inline="always", cache=True)(_heap_replace_max)
    _offer = njit(inline="always", cache=True)(_offer)
    _select = njit(cache=True)(_select)
    _count_below = njit(inline="always", cache=True)(_count_below)
    _gather = njit(cache=True, nogil=True)(_gather)
    _block_stats = njit(cache=True, nogil=True)(_block_stats)
    _prefetch_block = njit(inline="always", cache=True)(_prefetch_block)
    _spent_exits = njit(cache=True)(_spent_exits)
    _select_low = njit(cache=True)(_select_low)
    _select_high = njit(cache=True)(_select_high)
    _hist_low = njit(cache=True)(_hist_low)
    _hist_high = njit(cache=True)(_hist_high)
    _side_totals = njit(cache=True)(_side_totals)
    _budget_exits = njit(cache=True)(_budget_exits)
    _best_of = njit(cache=True)(_best_of)
    _pick = njit(cache=True)(_pick)
    _scan_exits = njit(cache=True, nogil=True)(_scan_exits)
    _dense_sides = njit(cache=True, nogil=True)(_dense_sides)
    _table_exits = njit(cache=True)(_table_exits)
    _midpoint = njit(inline="always", cache=True)(_midpoint)
    _side = njit(cache=True)(_side)
    _gap = njit(cache=True)(_gap)
    split = njit(cache=True)(split)
    add_and_split = njit(cache=True, nogil=True)(add_and_split)
    drop_exited = njit(cache=True, nogil=True)(drop_exited)
    thresholds_along = njit(cache=True, nogil=True)(thresholds_along)
