"""The compiled replicate hull against the numpy/SciPy reference (bit for bit)."""

import importlib

import numpy as np
import pytest

from engine.pn import kernels
from engine.pn.bootstrap import bootstrap, replicate_hull

bootstrap_module = importlib.import_module("engine.pn.bootstrap")

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


def test_poisson_group_sums_equal_counts_then_reduceat():
    from engine.pn.replicates import poisson_counts, replicate_key

    rng = np.random.default_rng(9)
    n = 5000
    s = np.round(rng.random(n), 2)  # groups of ~50 rows: numpy's pairwise summation is exercised
    s[:400] = 2.0  # one group above 128 rows
    y = (rng.random(n) < 0.3).astype(float)
    w = rng.random(n) + 0.5
    ids = rng.permutation(10 * n)[:n]
    order = np.argsort(-s, kind="stable")
    group_start = np.flatnonzero(np.r_[True, np.diff(s[order]) != 0])
    reps, seed = np.arange(3, 9), 7
    counts = poisson_counts(ids, reps, seed).astype(np.float64)[:, order]
    expected_tp = np.add.reduceat(counts * (w * y)[order], group_start, axis=1)
    expected_fp = np.add.reduceat(counts * (w * (1.0 - y))[order], group_start, axis=1)
    keys = np.array([replicate_key(int(r), seed) for r in reps], dtype=np.uint64)
    tp_g, fp_g = kernels.poisson_group_sums(ids[order], (w * y)[order], (w * (1.0 - y))[order], keys, group_start)
    np.testing.assert_array_equal(tp_g, expected_tp)
    np.testing.assert_array_equal(fp_g, expected_fp)


def test_compiled_poisson_path_still_rejects_negative_ids():
    from engine.errors import InputError

    with pytest.raises(InputError, match="non-negative"):
        bootstrap([0.1, 0.2, 0.3], [0, 1, 0], n_boot=2, resample="poisson", ids=[0, -1, 2])
