"""Exact binomial intervals shared by the paper packages: one Clopper–Pearson, its coverage spelled ``level``.

QWYC's fidelity promise (a one-sided upper bound on the calibration disagreement, and the test
disagreement's interval) and monitoring's per-period intervals (precision at the threshold, the
windows either side of it that bound the marginal precision) use :func:`clopper_pearson`.

References
----------
Clopper, C. J. & Pearson, E. S. (1934). The use of confidence or fiducial limits illustrated in
the case of the binomial. *Biometrika* 26(4):404-413.
"""

from __future__ import annotations

import numpy as np

from ._arguments import choice, number
from .errors import InputError

__all__ = ["clopper_pearson"]


def clopper_pearson(k, n, level: float = 0.95, side: str = "both"):
    """Exact (Clopper–Pearson) bounds on a binomial proportion from k successes in n trials.

    Parameters
    ----------
    k, n : int or array_like of int
        Successes and trials, ``0 <= k <= n``. No trials (``n = 0``) give the whole interval [0, 1].
    level : float, optional
        Coverage, in (0, 1): each tail of a two-sided interval holds ``(1 - level) / 2``, a one-sided
        bound's ``1 - level``.
    side : {"both", "lower", "upper"}, optional
        Which bounds: the unrequested side is 0 (lower) or 1 (upper).

    Returns
    -------
    (float, float) or (numpy.ndarray, numpy.ndarray)
        Lower and upper bounds: floats for scalar ``k`` and ``n``, arrays of their broadcast shape otherwise.

    Raises
    ------
    InputError
        A level outside (0, 1), an unknown side, or counts with ``k < 0`` or ``k > n``.

    Examples
    --------
    >>> lo, hi = clopper_pearson(3, 10)
    >>> round(lo, 4), round(hi, 4)
    (0.0667, 0.6525)
    >>> clopper_pearson(0, 50, level=0.95, side="upper")[1] > 0.05
    True
    """
    level = number(level, "level", low=0, high=1, low_open=True, high_open=True)
    tail = (1 - level) / 2 if choice(side, "side", ("both", "lower", "upper")) == "both" else 1 - level
    k_arr, n_arr = np.asarray(k, dtype=np.float64), np.asarray(n, dtype=np.float64)
    if np.any(~(k_arr >= 0)) or np.any(~(k_arr <= n_arr)):
        raise InputError("clopper_pearson needs counts with 0 <= k <= n (successes k of n trials)")
    # here, not at the top: importing scipy.stats costs a fresh process ~0.2 s (engine.qwyc's import)
    from scipy.stats import beta

    with np.errstate(invalid="ignore", divide="ignore"):
        lower = np.where(k_arr > 0, beta.ppf(tail, np.maximum(k_arr, 1e-300), n_arr - k_arr + 1), 0.0)
        upper = np.where(k_arr < n_arr, beta.ppf(1 - tail, k_arr + 1, np.maximum(n_arr - k_arr, 1e-300)), 1.0)
    if side == "lower":
        upper = np.ones_like(upper)
    elif side == "upper":
        lower = np.zeros_like(lower)
    if lower.ndim == 0:
        return float(lower), float(upper)
    return lower, upper
