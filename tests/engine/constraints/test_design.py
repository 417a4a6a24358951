"""The split design (sparse raw columns, centred and scaled in the products) against the dense standardised matrix."""

import numpy as np
import pytest

from engine.constraints import kernels
from engine.constraints._design import DenseDesign, SplitDesign, as_design, standardised_design


def one_hot_table(n=1500, seed=0):
    """Two numeric columns, a constant column and three categorical features one-hot encoded (a rare level too)."""
    rng = np.random.default_rng(seed)
    numeric = np.c_[rng.normal(40, 12, n), rng.exponential(1e5, n)]
    blocks = [
        np.eye(k)[rng.choice(k, n, p=p)] for k, p in ((3, [0.7, 0.2, 0.1]), (6, None), (4, [0.5, 0.3, 0.19, 0.01]))
    ]
    return np.column_stack([numeric[:, :1], *blocks[:2], np.ones(n), numeric[:, 1:], blocks[2]])


def standardise(x):
    mean, scale = x.mean(0), x.std(0)
    return mean, np.where(scale > 0, scale, 1.0)


@pytest.fixture(params=[True, False], ids=["compiled", "scipy"])
def compiled(request, monkeypatch):
    if request.param and not kernels.AVAILABLE:
        pytest.skip("numba not installed")
    monkeypatch.setattr(kernels, "AVAILABLE", request.param)
    return request.param


def test_products_and_hessian_equal_the_dense_standardised_matrix(compiled):
    x = one_hot_table()
    mean, scale = standardise(x)
    split, dense = standardised_design(x, mean, scale), DenseDesign((x - mean) / scale)
    assert isinstance(split, SplitDesign) and split.shape == x.shape
    assert 0 < split.dense_cols.size < x.shape[1]  # the numeric and the frequent indicator columns stay dense
    rng = np.random.default_rng(1)
    for _ in range(3):
        w, v = rng.normal(size=x.shape[1]), rng.normal(size=x.shape[0])
        np.testing.assert_allclose(split.matvec(w), dense.matvec(w), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(split.rmatvec(v), dense.rmatvec(v), rtol=1e-12, atol=1e-10)
        rows = np.flatnonzero(rng.random(x.shape[0]) < 0.3)
        c = rng.random(x.shape[0]) * (rng.random(x.shape[0]) < 0.7)  # zero curvature on some rows
        np.testing.assert_allclose(split.hessian(rows, c), dense.hessian(rows, c), rtol=1e-12, atol=1e-10)
    empty = np.zeros(0, np.int64)
    np.testing.assert_array_equal(split.hessian(empty, c), dense.hessian(empty, c))


def test_dense_data_stay_a_dense_matrix():
    x = np.random.default_rng(2).normal(size=(200, 4))
    mean, scale = standardise(x)
    design = standardised_design(x, mean, scale)
    assert isinstance(design, DenseDesign)
    np.testing.assert_array_equal(design.x, (x - mean) / scale)
    assert as_design(design) is design and isinstance(as_design(x), DenseDesign)
