"""Per-segment thresholds: capacity allocation against exhaustive search over every combination."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.pn import operating_point
from engine.pn._budget import max_flagged_point
from engine.pn._segments import allocate_capacity, allocate_target, segment_curves


def segment_options(scores, labels, weights, groups):
    """Every segment's (tp, fp) at each of its thresholds (and flag nothing)."""
    out = []
    for g in sorted(set(groups)):
        m = groups == g
        opts = [(0.0, 0.0)]
        for t in np.unique(scores[m]):
            f = m & (scores >= t)
            opts.append((float(weights[f] @ labels[f]), float(weights[f] @ (1 - labels[f]))))
        out.append(opts)
    return out


def exhaustive_best_tp(options, capacity):
    best = 0.0
    for combo in itertools.product(*options):
        if sum(tp + fp for tp, fp in combo) <= capacity + 1e-9:
            best = max(best, sum(tp for tp, _ in combo))
    return best


def data(rows):
    s = np.array([r[0] / 6 for r in rows])
    y = np.array([r[1] for r in rows])
    w = np.array([r[2] for r in rows], dtype=float)
    g = np.array(["abc"[r[3]] for r in rows], dtype=object)
    return s, y, w, g


ROWS = st.lists(
    st.tuples(st.integers(0, 6), st.integers(0, 1), st.integers(1, 2), st.integers(0, 2)), min_size=2, max_size=14
)


@given(ROWS, st.integers(0, 30))
@settings(max_examples=200, deadline=None)
def test_equals_exhaustive_search_over_every_combination(rows, capacity):
    s, y, w, g = data(rows)
    curves = segment_curves(s, y, g, w)
    best = exhaustive_best_tp(segment_options(s, y, w, g), capacity)
    exact = allocate_capacity(curves, capacity, window=100)  # the window spans every hull
    assert exact.total["tp"] == pytest.approx(best)
    default = allocate_capacity(curves, capacity)
    global_tp = max_flagged_point(s, y, w, capacity=capacity).tp
    for a in (exact, default):
        assert a.total["flagged"] <= capacity + 1e-9
        assert global_tp - 1e-9 <= a.total["tp"] <= best + 1e-9  # never below one threshold; a real combination
        assert a.global_point["tp"] == global_tp
        for p in a.segments:  # each segment's point is on its own curve: recount it from the data
            m = (g == p.segment) & (s >= p.threshold)
            assert (float(w[m] @ y[m]), float(w[m] @ (1 - y[m]))) == (p.tp, p.fp)


def test_budgets_on_hull_vertices_share_one_marginal_precision_and_are_optimal():
    rng = np.random.default_rng(4)
    n = 300
    g = rng.choice(np.array(["a", "b", "c"], dtype=object), n)
    y = (rng.random(n) < 0.3).astype(int)
    s = np.round(np.clip(rng.normal(0.5 + 0.25 * y + np.where(g == "a", 0.2, 0.0), 0.2), 0, 1), 3)
    curves = segment_curves(s, y, g)
    mp = np.concatenate([h.edge_mp for h in curves.hulls])
    cost = np.concatenate([np.diff(h.tp + h.fp) for h in curves.hulls])
    order = np.argsort(-mp, kind="stable")
    budgets = np.cumsum(cost[order])[mp[order] > 0]  # an edge of marginal precision 0 buys only false positives
    assert (mp == 0).any()
    hulls = dict(zip(curves.names, curves.hulls))
    for budget in budgets[::5]:
        a = allocate_capacity(curves, float(budget))
        assert a.total["flagged"] == budget
        assert all(p.threshold in hulls[p.segment].thresholds for p in a.segments)  # every segment at a vertex
        above = [p.marginal_precision_above for p in a.segments if p.flagged > 0]
        below = [p.marginal_precision_below for p in a.segments if not math.isnan(p.marginal_precision_below)]
        assert min(above, default=1.0) >= max(below, default=0.0) - 1e-12  # one common marginal precision
        # the Lagrangian bound: nothing spending this volume finds more (the wide-window search is exact)
        assert a.total["tp"] == pytest.approx(allocate_capacity(curves, float(budget), window=10_000).total["tp"])


def test_target_gives_each_segment_its_own_operating_point():
    rng = np.random.default_rng(5)
    n = 400
    g = rng.choice(np.array(["x", "y"], dtype=object), n)
    y = (rng.random(n) < 0.2).astype(int)
    s = np.round(rng.random(n) * 0.5 + 0.4 * y + np.where(g == "x", 0.1, 0.0), 3)
    a = allocate_target(segment_curves(s, y, g), 0.3)
    for p in a.segments:
        m = g == p.segment
        op = operating_point(s[m], y[m], 0.3)
        assert (p.threshold, p.tp, p.fp) == (op.threshold, op.tp, op.fp)
        assert math.isnan(p.marginal_precision_above) or p.marginal_precision_above >= 0.3
        assert math.isnan(p.marginal_precision_below) or p.marginal_precision_below <= 0.3
    pooled = operating_point(s, y, 0.3)
    assert a.global_point["tp"] == pooled.tp and "true positives" in a.sentence()


def test_segments_with_different_distributions_gain_over_one_threshold_and_say_so():
    rng = np.random.default_rng(6)
    parts = []
    for name, shift in (("web", 0.3), ("app", 0.0)):
        y = (rng.random(3000) < 0.05).astype(int)
        s = np.clip(rng.normal(0.3 + shift + 0.3 * y, 0.1), 0, 1).round(4)
        parts.append((s, y, np.full(3000, name, dtype=object)))
    s, y, g = (np.concatenate(x) for x in zip(*parts))
    a = allocate_capacity(segment_curves(s, y, g, unrated_groups=np.array(["web", "web", "app"], dtype=object)), 400)
    assert a.tp_gained > 0 and a.sentence().endswith("for the same budget of at most 400 reviews.")
    assert f"+{a.tp_gained:,.0f} true positives" in a.sentence()
    assert {p.segment: p.n_unrated for p in a.segments} == {"app": 1, "web": 2}
    table = a.table()
    assert list(table["segment"])[-2:] == ["total (per-segment thresholds)", "one global threshold"]
    record = a.as_dict()
    assert set(record) >= {"segments", "total", "global"}
    assert set(record["segments"][0]) >= {
        "segment",
        "threshold",
        "tp",
        "fp",
        "flagged",
        "marginal_precision_above",
        "marginal_precision_below",
    }


@given(ROWS, st.integers(0, 30))
@settings(max_examples=120, deadline=None)
def test_large_data_mode_is_feasible_and_never_below_one_threshold(rows, capacity):
    import engine.pn._segments as segments

    s, y, w, g = data(rows)
    curves = segment_curves(s, y, g, w)
    saved, segments.EXACT_SEARCH_ROWS = segments.EXACT_SEARCH_ROWS, 0
    try:
        fast = allocate_capacity(curves, capacity)
    finally:
        segments.EXACT_SEARCH_ROWS = saved
    assert fast.method in ("common slope + best single-segment step", "one global threshold")
    assert fast.total["flagged"] <= capacity + 1e-9
    assert max_flagged_point(s, y, w, capacity=capacity).tp - 1e-9 <= fast.total["tp"]
    assert fast.total["tp"] <= exhaustive_best_tp(segment_options(s, y, w, g), capacity) + 1e-9


# --- budgets above what can be flagged; segments without rated documents ---------------------------------------------


def exhaustive_best(options, capacity):
    """(most TP, fewest reviews among those) over every combination of the segments' thresholds."""
    best = (0.0, 0.0)
    for combo in itertools.product(*options):
        flagged = sum(tp + fp for tp, fp in combo)
        tp = sum(tp for tp, _ in combo)
        if flagged <= capacity + 1e-9 and (tp > best[0] + 1e-9 or (abs(tp - best[0]) <= 1e-9 and flagged < best[1])):
            best = (tp, flagged)
    return best


def dominated(a, global_point) -> bool:
    tp, flagged = a.total["tp"], a.total["flagged"]
    return (
        global_point["tp"] >= tp - 1e-9
        and global_point["flagged"] <= flagged + 1e-9
        and (global_point["tp"] > tp + 1e-9 or global_point["flagged"] < flagged - 1e-9)
    )


@given(ROWS, st.integers(0, 40))
@settings(max_examples=250, deadline=None)
def test_the_fewest_reviews_for_the_most_true_positives_and_never_dominated_by_one_threshold(rows, capacity):
    import engine.pn._segments as segments

    s, y, w, g = data(rows)
    curves = segment_curves(s, y, g, w)
    best_tp, fewest = exhaustive_best(segment_options(s, y, w, g), capacity)
    exact = allocate_capacity(curves, capacity)  # small data: the exact search
    assert exact.total["tp"] == pytest.approx(best_tp) and exact.total["flagged"] == pytest.approx(fewest)
    saved, segments.EXACT_SEARCH_ROWS = segments.EXACT_SEARCH_ROWS, 0
    try:
        fast = allocate_capacity(curves, capacity)
    finally:
        segments.EXACT_SEARCH_ROWS = saved
    for a in (exact, fast):
        assert not dominated(a, a.global_point)
        assert a.global_point["tp"] == max_flagged_point(s, y, w, capacity=capacity).tp


def test_a_capacity_above_the_row_count_flags_no_document_that_finds_no_true_positive():
    rng = np.random.default_rng(8)
    n = 2000
    g = rng.choice(np.array(["north", "south", "west"], dtype=object), n)
    y = (rng.random(n) < 0.1).astype(int)
    s = np.round(rng.random(n) * 0.5 + 0.4 * y, 3)
    curves = segment_curves(s, y, g)
    for capacity in (n, 10 * n, 1e12):
        a = allocate_capacity(curves, capacity)
        assert a.total["tp"] == y.sum()  # every positive is found ...
        lowest_positive = {name: s[(g == name) & (y == 1)].min() for name in curves.names}
        for p in a.segments:  # ... at each segment's lowest positive score, not below it
            assert p.threshold == lowest_positive[p.segment]
            assert p.fp == ((g == p.segment) & (s >= p.threshold) & (y == 0)).sum()
        assert a.total["flagged"] <= a.global_point["flagged"]


def test_a_segment_whose_documents_are_all_unrated_is_reported_with_the_reason():
    s = np.array([0.9, 0.8, 0.3, 0.7, 0.2])
    y = np.array([1, 0, 0, 1, 0])
    g = np.array(["a", "a", "a", "b", "b"], dtype=object)
    unrated = np.array(["c", "c", "a", "d", None], dtype=object)
    curves = segment_curves(s, y, g, unrated_groups=unrated)
    assert curves.names == ("a", "b") and curves.without_rated == (("(missing)", 1), ("c", 2), ("d", 1))
    for a in (allocate_capacity(curves, 3), allocate_target(curves, 0.3), allocate_capacity(curves, 0)):
        assert a.without_rated == curves.without_rated
        listed = a.as_dict()["segments_without_threshold"]
        assert [(e["segment"], e["unrated_documents"], e["rated_documents"]) for e in listed] == [
            ("(missing)", 1, 0),
            ("c", 2, 0),
            ("d", 1, 0),
        ]
        assert all(e["reason"].startswith("every document of this segment is unrated") for e in listed)
        table = a.table()
        assert list(table["segment"]) == [
            "a",
            "b",
            "(missing)",
            "c",
            "d",
            "total (per-segment thresholds)",
            "one global threshold",
        ]
        assert table.set_index("segment").loc["c", "unrated documents"] == 2
        assert "No threshold for '(missing)' (1 unrated), 'c' (2 unrated), 'd' (1 unrated)" in a.note


def test_a_pooled_hull_the_caller_holds_is_kept_and_gives_the_same_segments():
    from engine.pn import pn_curve, upper_hull

    rng = np.random.default_rng(4)
    s, y = np.round(rng.random(3000), 3), (rng.random(3000) < 0.2).astype(int)
    g = np.array(list("abc"), dtype=object)[rng.integers(0, 3, 3000)]
    hull = upper_hull(pn_curve(s, y))
    built, kept = segment_curves(s, y, g), segment_curves(s, y, g, pooled=hull)
    assert kept.pooled is hull
    for field in ("thresholds", "tp", "fp", "edge_mp", "mp_at_threshold"):
        assert getattr(built.pooled, field).tobytes() == getattr(hull, field).tobytes()
    for capacity in (100.0, 700.0):
        a, b = allocate_capacity(built, capacity), allocate_capacity(kept, capacity)
        assert repr(a) == repr(b)
    assert repr(allocate_target(built, 0.3)) == repr(allocate_target(kept, 0.3))


def test_a_pooled_hull_of_other_documents_is_refused():
    from engine.errors import InputError
    from engine.pn import pn_curve, upper_hull

    rng = np.random.default_rng(5)
    s, y = np.round(rng.random(2000), 3), (rng.random(2000) < 0.2).astype(int)
    w = rng.integers(1, 4, 2000).astype(float)
    g = np.array(list("ab"), dtype=object)[rng.integers(0, 2, 2000)]
    segment_curves(s, y, g, w, pooled=upper_hull(pn_curve(s, y, w)))  # its own: kept
    others = {
        "another classifier's scores": upper_hull(pn_curve(np.round(rng.random(2000), 3), y, w)),
        "other labels": upper_hull(pn_curve(s, 1 - y, w)),
        "no weights": upper_hull(pn_curve(s, y)),
        "a subset": upper_hull(pn_curve(s[:1500], y[:1500], w[:1500])),
    }
    for what, hull in others.items():
        with pytest.raises(InputError, match="not these rated documents' own"):
            segment_curves(s, y, g, w, pooled=hull)
            pytest.fail(f"a pooled hull of {what} was kept")


@given(
    st.lists(
        st.one_of(
            st.sampled_from(["north", "south", "", "(missing)", "Été", "b", "a"]),
            st.none(),
            st.just(float("nan")),
            st.integers(-2, 2),
            st.floats(allow_nan=False, width=16),
        ),
        max_size=40,
    )
)
@settings(max_examples=200, deadline=None)
def test_segment_codes_equal_factorizing_the_whole_column_as_text(values):
    """The oracle: pandas' factorize of the text of the whole column (what segment_curves did before issue 34)."""
    import pandas as pd

    from engine.pn._segments import _segment_codes

    g = np.empty(len(values), dtype=object)
    g[:] = values
    text = pd.Series(g.copy()).astype("string").fillna("(missing)").to_numpy(dtype=object)
    expected_codes, expected_names = pd.factorize(text, sort=True)
    codes, names = _segment_codes(g)
    assert codes.tolist() == expected_codes.tolist() and names.tolist() == list(expected_names)


def test_segment_codes_of_a_long_text_column_span_the_chunks():
    from engine.pn._segments import _segment_codes

    rng = np.random.default_rng(2)
    g = np.array(["west", "east", "north", "south", "zz"], dtype=object)[rng.integers(0, 4, 200_000)]
    g[-1] = "zz"  # only in the last chunk
    codes, names = _segment_codes(g)
    assert names.tolist() == ["east", "north", "south", "west", "zz"]
    assert (names[codes] == g).all()
