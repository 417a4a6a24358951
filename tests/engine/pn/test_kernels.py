"""The compiled replicate hull against the numpy/SciPy reference (bit for bit)."""

import importlib

import numpy as np
import pytest

from engine.pn import kernels
from engine.pn._bootstrap import bootstrap, replicate_hull

bootstrap_module = importlib.import_module("engine.pn._bootstrap")

pytestmark = pytest.mark.skipif(not kernels.AVAILABLE, reason="numba not installed")


def _increments(rng, kind: int, m: int):
    if kind == 0:  # small integer counts: many ties in the fit
        return rng.integers(0, 3, m).astype(float), rng.integers(0, 3, m).astype(float)
    if kind == 1:  # real weights, many empty thresholds
        return rng.random(m) * (rng.random(m) < 0.5), rng.random(m) * (rng.random(m) < 0.5)
    if kind == 2:  # decimal weights (rounding in the sums)
        return rng.integers(0, 4, m) * 0.1, rng.integers(0, 4, m) * 0.3
    d_tp, d_fp = np.zeros(m), np.zeros(m)  # at most one document: a replicate may have no mass
    if rng.random() < 0.7:
        d_fp[rng.integers(0, m)] = 1.0
    return d_tp, d_fp


def test_replicate_hull_band_equals_the_reference_bit_for_bit():
    rng = np.random.default_rng(0)
    for trial in range(2000):
        m = int(rng.integers(1, 60))
        thresholds = np.sort(rng.random(m))[::-1]
        d_tp, d_fp = _increments(rng, trial % 4, m)
        band_index = np.unique(rng.integers(0, m, 5))
        reference, fit = replicate_hull(thresholds, d_tp, d_fp)
        compiled, band = kernels.replicate_hull_band(thresholds, d_tp, d_fp, band_index)
        for a, b in zip(reference, compiled):
            np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(fit[band_index], band)


@pytest.mark.parametrize("case", ["equal", "weights", "poisson", "poisson-weights"])
def test_bootstrap_compiled_equals_numpy_path(case, monkeypatch):
    rng = np.random.default_rng(5)
    n = 3000
    y = (rng.random(n) < 0.1).astype(int)
    s = np.round(rng.normal(y, 1.0), 2)  # ties
    w = rng.random(n) + 0.5 if case.endswith("weights") else None
    resample = "poisson" if case.startswith("poisson") else "multinomial"
    fast = bootstrap(s, y, w, n_boot=30, seed=3, resample=resample)
    monkeypatch.setattr(bootstrap_module, "_COMPILED", False)
    slow = bootstrap(s, y, w, n_boot=30, seed=3, resample=resample)
    np.testing.assert_array_equal(fast.mp_band, slow.mp_band)
    for a, b in zip(fast.replicates, slow.replicates):
        for u, v in zip(a, b):
            np.testing.assert_array_equal(u, v)


def _numpy_poisson_hulls(ids, s, y, w, reps, seed):
    """The numpy reference: hashed counts of every row, np.add.reduceat per score, then replicate_hull."""
    from engine.pn._replicates import poisson_counts

    order = np.argsort(-s, kind="stable")
    s_sorted = s[order]
    group_start = np.flatnonzero(np.r_[True, s_sorted[1:] != s_sorted[:-1]])
    counts = poisson_counts(ids, reps, seed).astype(np.float64)[:, order]
    tp_g = np.add.reduceat(counts * (w * y)[order], group_start, axis=1)
    fp_g = np.add.reduceat(counts * (w * (1.0 - y))[order], group_start, axis=1)
    return order, group_start, [replicate_hull(s_sorted[group_start], tp_g[r], fp_g[r]) for r in range(len(reps))]


def _weights(rng, kind: int, n: int):
    return [np.ones(n), rng.random(n) + 0.5, rng.integers(0, 4, n).astype(float), np.round(rng.random(n), 1)][kind]


@pytest.mark.parametrize("exact", [None, False])
def test_poisson_hulls_equal_the_numpy_reference_bit_for_bit(exact):
    from engine.pn._replicates import replicate_key

    rng = np.random.default_rng(11)
    for trial in range(400):
        n = int(rng.integers(1, 90))
        s = np.round(rng.random(n), int(rng.integers(1, 3)))  # ties; one score or many
        if trial % 7 == 0:
            s[: n // 2] = 2.0  # a score shared by many rows: numpy's pairwise summation
        y = (rng.random(n) < rng.random()).astype(float)
        w = _weights(rng, trial % 4, n)
        ids = rng.permutation(3 * n)[:n]
        reps, seed = np.arange(int(rng.integers(1, 6))) + int(rng.integers(0, 50)), int(rng.integers(0, 9))
        order, group_start, expected = _numpy_poisson_hulls(ids, s, y, w, reps, seed)
        band_index = np.unique(rng.integers(0, group_start.size, 6))
        keys = np.array([replicate_key(int(r), seed) for r in reps], dtype=np.uint64)
        done = []
        got, band = kernels.poisson_hulls(
            ids[order],
            (w * y)[order],
            (w * (1.0 - y))[order],
            keys,
            group_start,
            s[order][group_start],
            band_index,
            exact=exact,
            chunk=int(rng.integers(1, 40)),
            block=2,
            progress=done.append,
        )
        assert done == list(range(2, len(reps), 2)) + [len(reps)]
        for (replicate, fit), compiled, fit_at_band in zip(expected, got, band):
            for a, b in zip(replicate, compiled):
                assert a.shape == b.shape
                np.testing.assert_array_equal(a, b)
            np.testing.assert_array_equal(fit[band_index], fit_at_band)


def test_poisson_hulls_at_scale_equal_the_reference():
    """Long runs of negatives-only scores (the exact fast path), 1 % positives, unit and integer weights; real
    weights with a score shared by 1,500 rows (numpy's pairwise summation over several blocks of 128)."""
    from engine.pn._replicates import replicate_key

    rng = np.random.default_rng(4)
    n = 20_000
    s = np.round(rng.random(n), 4)
    s[:1500] = 0.25
    y = (rng.random(n) < 0.01 + 0.2 * s**8).astype(float)
    for w in (np.ones(n), rng.integers(1, 4, n).astype(float), rng.random(n) + 0.5):
        ids = np.arange(n) * 3 + 1
        order, group_start, expected = _numpy_poisson_hulls(ids, s, y, w, np.arange(4), 5)
        band_index = np.unique(np.linspace(0, group_start.size - 1, 300).astype(int))
        keys = np.array([replicate_key(r, 5) for r in range(4)], dtype=np.uint64)
        got, band = kernels.poisson_hulls(
            ids[order],
            (w * y)[order],
            (w * (1.0 - y))[order],
            keys,
            group_start,
            s[order][group_start],
            band_index,
            chunk=1000,
        )
        for (replicate, fit), compiled, fit_at_band in zip(expected, got, band):
            for a, b in zip(replicate, compiled):
                np.testing.assert_array_equal(a, b)
            np.testing.assert_array_equal(fit[band_index], fit_at_band)


def test_compiled_poisson_path_still_rejects_negative_ids():
    from engine.errors import InputError

    with pytest.raises(InputError, match="non-negative"):
        bootstrap([0.1, 0.2, 0.3], [0, 1, 0], n_boot=2, resample="poisson", ids=[0, -1, 2])


def test_in_one_thread_the_next_block_starts_only_when_the_progress_report_returns(monkeypatch):
    """The contract a caller pauses the work with (views.state.hold_background): start, report, start, report ..."""
    import engine.pn.kernels as kernels

    events = []
    compiled = kernels._poisson_hulls

    def block(*args):
        events.append("start")
        return compiled(*args)

    monkeypatch.setattr(kernels, "_poisson_hulls", block)
    rng = np.random.default_rng(3)
    s, y = np.round(rng.random(3000), 3), (rng.random(3000) < 0.1).astype(int)
    reference = bootstrap(s, y, n_boot=35, seed=4, resample="poisson")
    events.clear()
    paused = bootstrap(
        s, y, n_boot=35, seed=4, resample="poisson", progress=lambda done, total: events.append(("report", done))
    )
    assert events == [
        "start",
        ("report", 10),
        "start",
        ("report", 20),
        "start",
        ("report", 30),
        "start",
        ("report", 35),
    ]
    np.testing.assert_array_equal(reference.mp_band, paused.mp_band)


def test_poisson_bootstrap_in_two_threads_gives_the_same_replicates():
    rng = np.random.default_rng(2)
    s, y = np.round(rng.random(4000), 3), (rng.random(4000) < 0.1).astype(int)
    one = bootstrap(s, y, n_boot=60, seed=1, resample="poisson")
    calls = []
    two = bootstrap(
        s, y, n_boot=60, seed=1, resample="poisson", workers=2, progress=lambda done, total: calls.append((done, total))
    )
    assert len(calls) == 6 and calls[-1] == (60, 60)  # blocks of 10, in the order they finish
    np.testing.assert_array_equal(one.mp_band, two.mp_band)
    for a, b in zip(one.replicates, two.replicates):
        for u, v in zip(a, b):
            np.testing.assert_array_equal(u, v)
