"""Alerts whose false-alarm probability stays below α however many periods are checked.

**Null hypothesis** (the deployed threshold T still is the operating point for the target M):
in every period T maximises the expected ``TP − λ·FP`` (λ = M / (1 − M)) over thresholds, i.e.
for every band of documents between T and a higher threshold the expected share of positives
is at least M, and for every band between a lower threshold and T it is at most M — the
engine's definition of the operating point, with no assumption on the shape of the curve.
The labels are independent given the scores; the distributions may change freely from period
to period as long as that holds.

**Per-period e-values.** For a band ``A`` of documents just above T (x positives of n), the
likelihood ratio against an alternative share ``q < M``,

    LR(q) = (q / M)^x · ((1 − q) / (1 − M))^(n − x),

has expectation at most 1 under the null: document i contributes the factor
``1 − c·(p_i − M)`` in expectation (``c > 0``), and by the inequality of arithmetic and
geometric means ``Π (1 − c·(p_i − M)) <= (1 − c·(p̄ − M))^n <= 1`` whenever the band's mean
``p̄ >= M``. Symmetrically, ``q > M`` on a band ``B`` just below T. Neither the band's width
nor the drift's size is known, so every period offers the bands of the
:data:`BAND_SIZES` documents nearest T on each side (fewer if the period has fewer), and the
alternatives are a grid of odds ratios (:data:`ODDS_RATIOS`); each (band, alternative) pair is
one likelihood ratio process, mixed with equal weights.

**Detector.** The products of the ratios from period j on form test supermartingales
(Ville 1939; Ramdas, Grünwald, Vovk & Shafer 2023). A change may come after a long good
stretch, when a process started at period 1 has lost what it had, so one process is started
at every period and they are mixed with weights ``w_j = 1 / (j (j + 1))`` that sum to 1,
half on each side::

    D_n = Σ_side ½ Σ_{j <= n} w_j Σ_(band, q) π Π_{i=j..n} LR_i(band, q).

A mixture of test supermartingales with weights summing to 1 is a test supermartingale
(value 1 at the start), so by Ville's inequality ``P(sup_n D_n >= 1/α) <= α`` under the
null: **an alarm ever, in any of however many periods, has probability at most α**. This is
the e-detector construction of Shin, Ramdas & Rinaldo (2024) with weights summing to one,
which bounds the probability of any false alarm rather than the average run length. A period
is flagged while ``D_n >= 1/α``. The price of the start at period j is ``log(1/w_j)`` ≈ 2·log j
nats of evidence, so detection after a change at period j takes a few periods more than a
per-period test — which, checked at level α every period, raises false alarms in about
``1 − (1 − α)^n`` of the runs over n periods (:func:`naive_alarms`, for comparison).

References
----------
Ville, J. (1939). *Étude critique de la notion de collectif.* Gauthier-Villars.
Ramdas, A., Grünwald, P., Vovk, V. & Shafer, G. (2023). Game-theoretic statistics and safe
anytime-valid inference. *Statistical Science* 38(4):576-601.
Waudby-Smith, I. & Ramdas, A. (2024). Estimating means of bounded random variables by betting.
*JRSS-B* 86(1):1-27 (test supermartingales for a bounded mean; the likelihood-ratio mixtures
here are the Bernoulli case).
Shin, J., Ramdas, A. & Rinaldo, A. (2024). E-detectors: a nonparametric framework for sequential
change detection. *New England Journal of Statistics in Data Science* 2(2):229-260.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from .._arguments import number
from ._windows import lower_bound_reaches, upper_bound_reaches

__all__ = [
    "ODDS_RATIOS",
    "BAND_SIZES",
    "Evidence",
    "alternatives",
    "log_likelihood_ratios",
    "start_weights",
    "e_detector",
    "naive_alarms",
    "SIDES",
]

#: odds ratios of the alternatives (below the target for the window above T, above it for the window below)
ODDS_RATIOS = (1.25, 1.5, 2.0, 3.0, 5.0)
#: documents in the bands next to T whose labels the alerts test, on each side, per period
BAND_SIZES = (10, 20, 40, 80, 160, 320)
#: "low": the documents just above T are worse than the target (T too low); "high": those below are better
SIDES = ("low", "high")


def alternatives(target: float, side: str) -> np.ndarray:
    """The alternative shares q of one side: the target's odds divided (``"low"``) or multiplied by :data:`ODDS_RATIOS`.

    Parameters
    ----------
    target : float
        M in (0, 1).
    side : {"low", "high"}

    Returns
    -------
    numpy.ndarray, shape (K,)
    """
    odds = target / (1 - target) * (np.asarray(ODDS_RATIOS) ** (-1 if side == "low" else 1))
    return odds / (1 + odds)


def log_likelihood_ratios(x, n, target: float, side: str) -> np.ndarray:
    """``log LR(band, q)`` of every period for every band and alternative q of one side.

    Parameters
    ----------
    x, n : array_like, shape (..., P, S)
        Positives and documents of each of S bands in each period.
    target : float
        M in (0, 1).
    side : {"low", "high"}

    Returns
    -------
    numpy.ndarray, shape (..., P, S * K)
        Band-major: column ``s * K + k`` is band s against alternative k.
    """
    q = alternatives(target, side)
    x = np.asarray(x, dtype=np.float64)[..., None]
    n = np.asarray(n, dtype=np.float64)[..., None]
    llr = x * np.log(q / target) + (n - x) * np.log((1 - q) / (1 - target))
    return llr.reshape(llr.shape[:-2] + (-1,))


def start_weights(periods: int) -> np.ndarray:
    """``w_j = 1 / (j (j + 1))`` for j = 1 .. periods (they sum to 1 over all j >= 1)."""
    j = np.arange(1, periods + 1, dtype=np.float64)
    return 1.0 / (j * (j + 1))


def _prefix_argmax(values: np.ndarray, axis: int) -> np.ndarray:
    """Index of the first maximum of ``values[..., :n + 1, ...]`` along ``axis``, for every n."""
    values = np.moveaxis(values, axis, -1)
    running = np.maximum.accumulate(values, axis=-1)
    index = np.arange(values.shape[-1])
    new_max = np.concatenate([np.ones(values.shape[:-1] + (1,), dtype=bool), values[..., 1:] > running[..., :-1]], -1)
    return np.moveaxis(np.maximum.accumulate(np.where(new_max, index, 0), axis=-1), -1, axis)


def _log_side(llr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """log Σ_c π_c Σ_j w_j Π_{i=j..n} LR_i(c) for every n; the strongest component c and the start j (0-based)
    contributing most to it.

    Linear in the number of periods: with S_n(c) = Σ_{i<=n} log LR_i(c), component c's mixture over starts is
    ``exp(S_n(c)) · Σ_{j<=n} w_j exp(−S_{j−1}(c))``, a running log-sum-exp (the same value as summing the
    (n, j) table, without building it).
    """
    periods, k = llr.shape[-2], llr.shape[-1]
    s = np.cumsum(llr, axis=-2)  # S_n(c)
    before = np.concatenate([np.zeros(llr.shape[:-2] + (1, k)), s[..., :-1, :]], axis=-2)  # S_{j-1}(c)
    start_term = np.log(start_weights(periods))[:, None] - before  # log w_j − S_{j−1}(c)
    per_component = s + np.logaddexp.accumulate(start_term, axis=-2)
    value = logsumexp(per_component, axis=-1) - np.log(k)
    component = np.argmax(per_component, axis=-1)
    start = np.take_along_axis(_prefix_argmax(start_term, axis=-2), component[..., None], axis=-1)[..., 0]
    return value, start, component


@dataclass(frozen=True)
class Evidence:
    """The detector through the periods.

    Attributes
    ----------
    log_e : numpy.ndarray, shape (P,)
        ``log D_n`` after each period.
    bar : float
        ``log(1/α)``: a period is flagged while ``log_e >= bar``.
    side : numpy.ndarray of str, shape (P,)
        The side carrying most of the evidence (``"low"`` or ``"high"``).
    since : numpy.ndarray of int, shape (P,)
        On that side, the start (0-based period) contributing most to the strongest (band, alternative)
        process: where the change most likely began.
    band : numpy.ndarray of int, shape (P,)
        Index into the bands (:data:`BAND_SIZES`) of that strongest process (the one whose mixture over
        starts carries most evidence).
    """

    log_e: np.ndarray
    bar: float
    side: np.ndarray
    since: np.ndarray
    band: np.ndarray

    @property
    def alarms(self) -> np.ndarray:
        return self.log_e >= self.bar


def e_detector(x_above, n_above, x_below, n_below, target: float, alpha: float) -> Evidence:
    """The two-sided mixture e-detector on the windows around T (see the module docstring).

    Parameters
    ----------
    x_above, n_above : array_like, shape (..., P, S)
        Positives and documents of the S bands just above T in each period (the "low" side).
    x_below, n_below : array_like, shape (..., P, S)
        The same just below T (the "high" side); zeros where nothing below T is rated.
    target : float
        M in (0, 1).
    alpha : float
        Probability of any false alarm, in (0, 1).

    Returns
    -------
    Evidence
        Leading dimensions (e.g. simulation runs) are kept.

    References
    ----------
    Ville (1939); Ramdas, Grünwald, Vovk & Shafer (2023); Shin, Ramdas & Rinaldo (2024).
    """
    target = number(target, "target", low=0, high=1, low_open=True, high_open=True)
    alpha = number(alpha, "alpha", low=0, high=1, low_open=True, high_open=True)
    low, low_start, low_c = _log_side(log_likelihood_ratios(x_above, n_above, target, "low"))
    high, high_start, high_c = _log_side(log_likelihood_ratios(x_below, n_below, target, "high"))
    log_e = np.logaddexp(low, high) - np.log(2.0)
    is_low = low >= high
    k = len(ODDS_RATIOS)
    return Evidence(
        log_e,
        float(np.log(1 / alpha)),
        np.where(is_low, "low", "high"),
        np.where(is_low, low_start, high_start),
        np.where(is_low, low_c, high_c) // k,
    )


def naive_alarms(x_above, n_above, x_below, n_below, target: float, alpha: float) -> np.ndarray:
    """Per-period test at level α (α/2 per side): T outside that period's confidence set of the re-solved threshold.

    Parameters
    ----------
    x_above, n_above, x_below, n_below : array_like, shape (..., P)
        Windows just above and just below T.
    target : float
        M in (0, 1).
    alpha : float
        Level of each period's test.

    Returns
    -------
    numpy.ndarray of bool, shape (..., P)
        True where that period alone rejects; over many periods false alarms accumulate.
    """
    return ~upper_bound_reaches(x_above, n_above, target, alpha / 2) | ~lower_bound_reaches(
        x_below, n_below, target, alpha / 2
    )
