"""The compiled kernels of the inner solver against their numpy / SciPy reference."""

import numpy as np
import pytest
from scipy import sparse

from engine.constraints import kernels
from engine.constraints._weighted_hinge import _curvature, _slope_of_margins

pytestmark = pytest.mark.skipif(not kernels.AVAILABLE, reason="numba not installed")


def margins(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    z = rng.normal(0, 0.6, n)
    z[:50] = np.r_[-0.6, -0.5, -0.4, 0.4, 0.5, 0.6, 0.0, 0.1, -0.1, 0.3][np.arange(50) % 10]  # kink edges exactly
    hp = rng.random(n) * (rng.random(n) < 0.7)
    hn = rng.random(n) * (rng.random(n) < 0.5)
    return z, hp, hn


@pytest.mark.parametrize("smoothing", [0.2, 1e-3])
def test_hinge_slopes_and_curvature_equal_numpy_elementwise(monkeypatch, smoothing):
    z, hp, hn = margins()
    got = kernels.hinge_slopes(z, hp, hn, 1.0 / smoothing), kernels.hinge_curvature(z, hp, hn, smoothing)
    monkeypatch.setattr(kernels, "AVAILABLE", False)
    want = _slope_of_margins(z, hp, hn, smoothing), _curvature(z, hp, hn, smoothing)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    dz = np.random.default_rng(1).normal(size=z.size)
    for s in (0.0, 0.3, 1.0, 2.5):
        assert kernels.line_slope(z, dz, s, hp, hn, 1.0 / smoothing) == pytest.approx(
            float(_slope_of_margins(z + s * dz, hp, hn, smoothing) @ dz), rel=1e-12, abs=1e-12
        )


def test_csr_products_and_hessian_sums_equal_scipy():
    rng = np.random.default_rng(3)
    n, dd, ds = 800, 3, 9
    a = sparse.random(n, ds, density=0.2, format="csr", random_state=4) + sparse.csr_matrix(
        np.eye(ds)[rng.integers(0, ds, n)]
    )
    a = sparse.csr_matrix(a)
    dense = rng.normal(size=(n, dd))
    w, v = rng.normal(size=ds), rng.normal(size=n)
    out = dense[:, 0].copy()
    kernels.csr_matvec_add(a.indptr, a.indices, a.data, w, 0.25, out)
    np.testing.assert_allclose(out, dense[:, 0] + (a @ w - 0.25), rtol=1e-13)
    out, total = kernels.csr_rmatvec(a.indptr, a.indices, a.data, v, ds)
    np.testing.assert_allclose(out, a.T @ v, rtol=1e-12, atol=1e-12)
    assert total == pytest.approx(v.sum(), rel=1e-12)
    rows = np.flatnonzero(rng.random(n) < 0.5)
    c = rng.random(n) * (rng.random(n) < 0.8)
    nn, na, aa, nc, ac, tot = kernels.split_hessian_sums(dense, a.indptr, a.indices, a.data, rows, c, ds)
    ck, nk, ak = c[rows], dense[rows], a[rows].toarray()
    np.testing.assert_allclose(nn, (nk * ck[:, None]).T @ nk, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(na, (nk * ck[:, None]).T @ ak, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(aa, (ak * ck[:, None]).T @ ak, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(nc, nk.T @ ck, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ac, ak.T @ ck, rtol=1e-12, atol=1e-12)
    assert tot == pytest.approx(ck.sum(), rel=1e-12)
