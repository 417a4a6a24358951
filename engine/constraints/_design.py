"""The standardised design matrix of the constrained training, kept sparse where its raw columns are.

The inner solver (:mod:`~engine.constraints._weighted_hinge`) needs three things of the
standardised features ``X = (x - mean) / scale``: ``X @ w``, ``X.T @ v`` and the data
Hessian ``[X, -1]^T diag(c) [X, -1]`` over some rows. Centring makes ``X`` dense, but on
one-hot encoded tables most raw columns are indicators that are zero on most rows (UCI
Adult: 102 of 108 columns, 89 % zeros). :func:`standardised_design` keeps such columns
raw in a CSR matrix ``A`` and applies the centring and scaling to the products instead:

    X_s = (A - 1 m^T) S^-1   so   X_s w = A (S^-1 w) - (m^T S^-1 w) 1,
                                  X_s^T v = S^-1 (A^T v - m sum(v)),

and the Hessian block ``X_s^T C X_s = S^-1 (A^T C A - u m^T - m u^T + sum(c) m m^T) S^-1``
with ``u = A^T c``. Every product stays in float64; the results differ from the dense
products by rounding only. The other columns are kept dense and standardised as before.
:class:`DenseDesign` is the plain dense matrix (the reference the sparse path is tested
against).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from . import kernels

__all__ = ["DenseDesign", "SplitDesign", "as_design", "standardised_design", "SPARSE_COLUMN_SHARE", "SPARSE_MIN_GAIN"]

#: a raw column is kept sparse when at most this share of its rows is non-zero
SPARSE_COLUMN_SHARE = 0.25
#: the split design is used only when it stores at most this share of the dense matrix's cells
SPARSE_MIN_GAIN = 0.5


@dataclass(frozen=True)
class DenseDesign:
    """A dense design matrix ``x`` (the reference products).

    Parameters
    ----------
    x : numpy.ndarray of float of shape (n, d)
        The (standardised) features.
    """

    x: np.ndarray

    @property
    def shape(self) -> tuple:
        """``(n, d)``."""
        return self.x.shape

    def matvec(self, w: np.ndarray) -> np.ndarray:
        """``x @ w``.

        Parameters
        ----------
        w : numpy.ndarray of shape (d,)

        Returns
        -------
        numpy.ndarray of shape (n,)
        """
        return self.x @ w

    def rmatvec(self, v: np.ndarray) -> np.ndarray:
        """``x.T @ v``.

        Parameters
        ----------
        v : numpy.ndarray of shape (n,)

        Returns
        -------
        numpy.ndarray of shape (d,)
        """
        return self.x.T @ v

    def hessian(self, rows: np.ndarray, curvature: np.ndarray) -> np.ndarray:
        """``[x, -1]^T diag(curvature) [x, -1]`` over ``rows`` (rows of zero curvature are skipped).

        Parameters
        ----------
        rows : numpy.ndarray of int
            Row indices.
        curvature : numpy.ndarray of float of shape (n,)
            Weight of each row.

        Returns
        -------
        numpy.ndarray of shape (d + 1, d + 1)
        """
        x = self.x
        d = x.shape[1]
        rows = rows[curvature[rows] != 0]
        xk = x[rows]
        ck = curvature[rows]
        hess = np.empty((d + 1, d + 1))
        hess[:d, :d] = (xk * ck[:, None]).T @ xk
        cross = -(xk.T @ ck)
        hess[:d, d] = cross
        hess[d, :d] = cross
        hess[d, d] = ck.sum()
        return hess


@dataclass(frozen=True)
class SplitDesign:
    """Standardised features with the sparse raw columns kept in CSR form (see the module's formulas).

    Parameters
    ----------
    dense_cols, sparse_cols : numpy.ndarray of int
        Positions of the dense and the sparse columns among the d features.
    dense : numpy.ndarray of float of shape (n, len(dense_cols))
        The dense columns, standardised.
    sparse : scipy.sparse.csr_matrix of shape (n, len(sparse_cols))
        The sparse columns, raw.
    mean, inv_scale : numpy.ndarray of float of shape (len(sparse_cols),)
        Mean and 1 / scale of the sparse columns.
    order : numpy.ndarray of int of shape (d + 1,)
        Position of each feature (and last, the intercept) in the order dense columns, sparse
        columns, intercept.
    """

    dense_cols: np.ndarray
    sparse_cols: np.ndarray
    dense: np.ndarray
    sparse: Any  # scipy.sparse.csr_matrix
    mean: np.ndarray
    inv_scale: np.ndarray
    order: np.ndarray

    @property
    def shape(self) -> tuple:
        """``(n, d)``."""
        return self.dense.shape[0], self.dense_cols.size + self.sparse_cols.size

    def matvec(self, w: np.ndarray) -> np.ndarray:
        """``X @ w`` of the standardised features.

        Parameters
        ----------
        w : numpy.ndarray of shape (d,)

        Returns
        -------
        numpy.ndarray of shape (n,)
        """
        ws = w[self.sparse_cols] * self.inv_scale
        shift = float(self.mean @ ws)
        if kernels.AVAILABLE:
            a = self.sparse
            out = self.dense @ w[self.dense_cols]
            kernels.csr_matvec_add(a.indptr, a.indices, a.data, ws, shift, out)
            return out
        return self.dense @ w[self.dense_cols] + (self.sparse @ ws - shift)

    def rmatvec(self, v: np.ndarray) -> np.ndarray:
        """``X.T @ v`` of the standardised features.

        Parameters
        ----------
        v : numpy.ndarray of shape (n,)

        Returns
        -------
        numpy.ndarray of shape (d,)
        """
        out = np.empty(self.shape[1])
        if kernels.AVAILABLE:
            a = self.sparse
            out_s, total = kernels.csr_rmatvec(a.indptr, a.indices, a.data, v, self.sparse_cols.size)
        else:
            out_s, total = self.sparse.T @ v, float(v.sum())
        out[self.dense_cols] = self.dense.T @ v
        out[self.sparse_cols] = (out_s - self.mean * total) * self.inv_scale
        return out

    def hessian(self, rows: np.ndarray, curvature: np.ndarray) -> np.ndarray:
        """``[X, -1]^T diag(curvature) [X, -1]`` over ``rows`` (rows of zero curvature are skipped).

        Parameters
        ----------
        rows : numpy.ndarray of int
            Row indices.
        curvature : numpy.ndarray of float of shape (n,)
            Weight of each row.

        Returns
        -------
        numpy.ndarray of shape (d + 1, d + 1)
        """
        d = self.shape[1]
        m, s = self.mean, self.inv_scale
        if kernels.AVAILABLE:
            a = self.sparse
            nd, nca, aca, nkc, u, total = kernels.split_hessian_sums(
                self.dense, a.indptr, a.indices, a.data, np.asarray(rows, np.int64), curvature, self.sparse_cols.size
            )
        else:
            rows = rows[curvature[rows] != 0]
            ck = curvature[rows]
            nk = self.dense[rows]
            ak = self.sparse[rows]
            weighted = ak.multiply(ck[:, None]).tocsr()  # C A_K
            nd = (nk * ck[:, None]).T @ nk  # N_K^T C N_K
            nca = (weighted.T @ nk).T  # N_K^T C A_K
            aca = (ak.T @ weighted).toarray()  # A_K^T C A_K
            nkc, u, total = nk.T @ ck, ak.T @ ck, float(ck.sum())
        um = np.outer(u, m)
        ss = (aca - um - um.T + total * np.outer(m, m)) * np.outer(s, s)
        ns = (nca - np.outer(nkc, m)) * s  # N_K^T C X_s,K
        dd = self.dense_cols.size
        block = np.empty((d + 1, d + 1))  # in the order dense columns, sparse columns, intercept
        block[:dd, :dd] = nd
        block[dd:d, dd:d] = ss
        block[:dd, dd:d] = ns
        block[dd:d, :dd] = ns.T
        cross = np.r_[-nkc, -(u - m * total) * s]
        block[:d, d] = cross
        block[d, :d] = cross
        block[d, d] = total
        return block[np.ix_(self.order, self.order)]


def as_design(x) -> DenseDesign | SplitDesign:
    """A design object as is, a matrix as a :class:`DenseDesign`.

    Parameters
    ----------
    x : array-like of shape (n, d), DenseDesign or SplitDesign

    Returns
    -------
    DenseDesign or SplitDesign
    """
    if isinstance(x, (DenseDesign, SplitDesign)):
        return x
    return DenseDesign(np.asarray(x, dtype=float))


def standardised_design(x: np.ndarray, mean: np.ndarray, scale: np.ndarray) -> DenseDesign | SplitDesign:
    """The features ``(x - mean) / scale``: split into sparse raw and dense standardised columns when that pays.

    Parameters
    ----------
    x : numpy.ndarray of float of shape (n, d)
        Raw features.
    mean, scale : numpy.ndarray of float of shape (d,)
        Centre and scale of each column (scale > 0).

    Returns
    -------
    DenseDesign or SplitDesign
        :class:`SplitDesign` when the columns with at most :data:`SPARSE_COLUMN_SHARE` non-zero
        rows, stored sparse, with the other columns make at most :data:`SPARSE_MIN_GAIN` of the
        dense matrix's cells; else the dense standardised matrix.
    """
    n, d = x.shape
    nonzero = np.count_nonzero(x, axis=0)
    is_sparse = nonzero <= SPARSE_COLUMN_SHARE * n
    stored = float(nonzero[is_sparse].sum()) + float(n) * int((~is_sparse).sum())
    if not is_sparse.any() or stored > SPARSE_MIN_GAIN * n * d:
        return DenseDesign((x - mean) / scale)
    from scipy import sparse

    dense_cols, sparse_cols = np.flatnonzero(~is_sparse), np.flatnonzero(is_sparse)
    dense = np.ascontiguousarray((x[:, dense_cols] - mean[dense_cols]) / scale[dense_cols])
    order = np.r_[np.argsort(np.r_[dense_cols, sparse_cols]), d]
    return SplitDesign(
        dense_cols,
        sparse_cols,
        dense,
        sparse.csr_matrix(x[:, sparse_cols]),
        np.asarray(mean[sparse_cols], float),
        1.0 / np.asarray(scale[sparse_cols], float),
        order,
    )
