"""Compiled QWYC loops against independent oracles: brute force over cut pairs, a plain QWYC* loop, the NumPy loop."""

import os
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import InputError
from engine.qwyc import fit_qwyc
from engine.qwyc._policy import early_exit_loop, step_thresholds
from engine.qwyc.kernels import (
    MAX_WORKERS,
    default_workers,
    in_parts,
    resolve_workers,
    run_policy,
    sorted_exits,
    step_exit,
    worker_pool,
)

from .test_policy import brute_force_step


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.integers(-3, 3), st.booleans()), min_size=0, max_size=14), st.integers(0, 5), st.booleans()
)
def test_sorted_exits_equal_brute_force_over_all_cut_pairs(rows, budget, neg_only):
    g = np.array([r[0] for r in rows], dtype=float) / 2
    d = np.array([r[1] for r in rows], dtype=bool)
    expected = brute_force_step(g, d, budget, neg_only)[0] if len(rows) else 0
    assert sorted_exits(np.sort(g[d]), np.sort(g[~d]), budget, neg_only) == expected


def plain_qwyc(f, alpha, bias, neg_only):
    """QWYC* written out: every remaining model, its exits by brute force, smallest 1 / exits (first on ties)."""
    n, t_count = f.shape
    full = bias + f.sum(axis=1) >= 0.0
    g = np.full(n, bias)
    active = np.ones(n, dtype=bool)
    remaining = list(range(t_count))
    order, spent = [], 0
    allowed = int(np.floor(alpha * n + 1e-9))
    while len(remaining) > 1 and active.any():
        exits = [
            brute_force_step(g[active] + f[active, t], full[active], allowed - spent, neg_only)[0] for t in remaining
        ]
        t = remaining[int(np.argmax(exits))] if max(exits) > 0 else remaining[0]
        order.append(t)
        remaining.remove(t)
        g = g + f[:, t]
        lo, hi, _, mistakes = step_thresholds(g[active], full[active], allowed - spent, neg_only)
        spent += mistakes
        active &= ~((g > hi) | (g < lo))
    return order + remaining, spent


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([0.0, 0.05, 0.15]), st.booleans())
def test_fit_qwyc_equals_a_plain_qwyc_loop(seed, alpha, neg_only):
    rng = np.random.default_rng(seed)
    n, t_count = int(rng.integers(5, 30)), int(rng.integers(2, 6))
    f = np.round(rng.normal(size=(n, t_count)) * 2) / 4  # coarse values: many ties
    policy = fit_qwyc(f, alpha=alpha, bias=0.25, neg_only=neg_only)
    order, spent = plain_qwyc(f, alpha, 0.25, neg_only)
    assert policy.order.tolist() == order
    assert policy.fit_disagreements == spent


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000))
def test_compiled_predict_equals_the_numpy_loop(seed):
    rng = np.random.default_rng(seed)
    n, t_count = int(rng.integers(1, 50)), int(rng.integers(1, 8))
    f = rng.normal(size=(n, t_count))
    order = rng.permutation(t_count)
    lo = np.where(rng.random(t_count) < 0.3, -np.inf, rng.normal(size=t_count) - 1)
    hi = np.where(rng.random(t_count) < 0.3, np.inf, rng.normal(size=t_count) + 1)
    hi[rng.random(t_count) < 0.2] = -np.inf  # overlapping regions: positive exits take precedence

    def exits(r, g):
        up = g > hi[r]
        return up, (g < lo[r]) & ~up

    expected = early_exit_loop(n, order, 0.1, 0.0, lambda rows, t: f[rows, t], exits)
    got = run_policy(f, order, lo, hi, 0.1, 0.0)
    assert np.array_equal(got[0], expected[0]) and np.array_equal(got[1], expected[1])


THRESHOLDS = st.sampled_from([-np.inf, -1.0, -0.5, 0.0, 0.5, 1.0, np.inf, np.nan])


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from([-1.0, -0.5, 0.0, 0.5, 1.0]),
    st.booleans(),
    THRESHOLDS,
    THRESHOLDS,
    st.sampled_from([-0.5, 0.0, 0.5]),
)
def test_step_exit_is_the_papers_rule(g, last, lo, hi, beta):
    """QWYC's rule, written out: the last step decides by g >= β; before it, exit positive when g > ε+ (first),
    negative when g < ε- (strict both; NaN never exits), else go on."""
    if last:
        expected = 1 if g >= beta else 0
    elif g > hi:
        expected = 1
    elif g < lo:
        expected = 0
    else:
        expected = -1
    assert step_exit(g, last, lo, hi, beta) == expected
    assert getattr(step_exit, "py_func", step_exit)(g, last, lo, hi, beta) == expected  # the plain-Python fallback


@pytest.mark.parametrize("parts", [1, 2, 5])
def test_in_parts_runs_every_part_once_and_raises_a_parts_error_after_all_stopped(parts):
    ran = {}
    with worker_pool(parts) as pool:
        in_parts(pool, parts, lambda p: ran.setdefault(p, threading.get_ident()))
        assert sorted(ran) == list(range(parts))
        assert ran[0] == threading.get_ident()  # part 0 in the caller's thread, the others in the pool's
        assert all(ran[p] != ran[0] for p in range(1, parts))

        stopped = []

        def fails(p):
            stopped.append(p)
            if p == parts - 1:
                raise ValueError("part failed")

        with pytest.raises(ValueError, match="part failed"):
            in_parts(pool, parts, fails)
        assert sorted(stopped) == list(range(parts))


@pytest.mark.parametrize("workers", [0, -1, 1.5, True, "2"])
def test_workers_must_be_a_whole_number_of_threads(workers):
    with pytest.raises(InputError, match="workers"):
        resolve_workers(workers)


def test_default_workers_are_the_cores_this_process_may_use():
    assert default_workers() == min(MAX_WORKERS, len(os.sched_getaffinity(0)))
    assert resolve_workers(None) == default_workers() and resolve_workers(3) == 3


def test_prefetch_is_a_hint_that_compiles_and_changes_nothing():
    from engine.qwyc.kernels import AVAILABLE, _no_prefetch, njit, prefetch

    def total(values):
        s = 0.0
        for i in range(values.size):
            prefetch(values, min(i + 8, values.size - 1))
            s += values[i]
        return s

    values = np.arange(100.0)
    assert _no_prefetch(values, 3) is None  # plain Python: the hint does nothing
    if AVAILABLE:
        assert njit(total)(values) == values.sum()
