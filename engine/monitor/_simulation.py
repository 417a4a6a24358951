"""Simulated monitoring runs: the false-alarm rate and detection delay of the alerts, against a per-period test.

Each run has ``periods`` periods. In each, ``docs`` rated documents lie just above the
deployed threshold T and ``docs`` just below it; the document at rank r from T (r = 1, 2, ...,
negative below) is positive with probability

    p(r) = 1 / (1 + exp(−(logit(M) + slope · r / 100 − shift))),

so the marginal precision equals the target M at T and rises with the score by ``slope``
(in log-odds per 100 documents). Before the drift ``shift = 0``: T is exactly the operating
point, and ``slope = 0`` (a flat curve at M) is the hardest case for false alarms — every band
is at the null's boundary. From period ``drift_at`` on, ``shift = drop`` (in log-odds): the
documents at T became worse and T no longer meets M. The bands (:data:`~.alerts.BAND_SIZES`)
and the per-period window are counted exactly as :func:`engine.monitor.monitor` counts them,
so the detector and the per-period test see exactly their inputs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._arguments import number, whole
from ._alerts import BAND_SIZES, e_detector, naive_alarms

__all__ = ["AlertSimulation", "simulate_alerts"]


@dataclass(frozen=True)
class AlertSimulation:
    """First alarm of every run under the sequential detector and the per-period test.

    Attributes
    ----------
    first_alarm : numpy.ndarray of int, shape (runs,)
        0-based period of the detector's first alarm (-1: none).
    first_naive : numpy.ndarray of int, shape (runs,)
        The same for the per-period test.
    drift_at : int or None
        0-based period where the drift starts (None: stationary).
    """

    first_alarm: np.ndarray
    first_naive: np.ndarray
    drift_at: int | None

    def false_alarm_rate(self, naive: bool = False) -> float:
        """Share of runs with an alarm before the drift (or at all, when stationary).

        Parameters
        ----------
        naive : bool, optional
            The per-period test instead of the detector.

        Returns
        -------
        float
        """
        first = self.first_naive if naive else self.first_alarm
        end = self.drift_at if self.drift_at is not None else np.iinfo(np.int64).max
        return float(np.mean((first >= 0) & (first < end)))

    def delays(self, naive: bool = False) -> np.ndarray:
        """Periods from the drift to the first alarm (0 = in the drift's first period), for runs without an
        earlier alarm; NaN for runs never alarmed.

        Parameters
        ----------
        naive : bool, optional
            The per-period test instead of the detector.

        Returns
        -------
        numpy.ndarray of float
        """
        first = self.first_naive if naive else self.first_alarm
        ok = ~((first >= 0) & (first < self.drift_at))
        return np.where(first[ok] >= 0, first[ok] - self.drift_at, np.nan).astype(np.float64)


def _first(alarms: np.ndarray) -> np.ndarray:
    return np.where(alarms.any(axis=-1), np.argmax(alarms, axis=-1), -1)


def _side(rng, b: int, periods: int, docs: int, logit_p: np.ndarray, sizes: np.ndarray, window: int):
    """Labels of ``docs`` documents per period ordered away from T; (band positives, band documents, window)."""
    p = 1.0 / (1.0 + np.exp(-logit_p))  # (periods, docs)
    labels = rng.random((b, periods, docs)) < p
    cum = np.concatenate([np.zeros((b, periods, 1)), np.cumsum(labels, axis=-1)], axis=-1)
    n = np.minimum(sizes, docs)
    return cum[..., n], np.broadcast_to(n.astype(np.float64), (b, periods, n.size)), cum[..., min(window, docs)]


def simulate_alerts(
    *,
    runs: int = 1000,
    periods: int = 52,
    docs: int = 200,
    target: float = 0.3,
    slope: float = 0.0,
    drift_at: int | None = None,
    drop: float = 0.7,
    window: int = 50,
    level: float = 0.95,
    seed: int = 0,
    chunk: int = 100,
) -> AlertSimulation:
    """Simulate monitoring runs and record the first alarm of each (model in the module docstring).

    Parameters
    ----------
    runs, periods, docs : int, optional
        Runs, periods per run and rated documents on each side of T per period.
    target : float, optional
        M.
    slope : float, optional
        Rise of the log-odds of the marginal precision per 100 documents away from T (0: flat at M).
    drift_at : int, optional
        First drifted period (0-based); None for stationary runs.
    drop : float, optional
        Fall of the log-odds at every rank after the drift (0.7 takes m at T from 0.30 to about 0.18).
    window : int, optional
        Documents per side of the per-period test (as ``monitor``'s ``window``).
    level : float, optional
        1 − α.
    seed : int, optional
    chunk : int, optional
        Runs simulated at once (memory).

    Returns
    -------
    AlertSimulation

    Raises
    ------
    InputError
        An argument of the wrong type or out of its range (named).
    """
    runs, periods, docs = (whole(v, n, low=1) for v, n in ((runs, "runs"), (periods, "periods"), (docs, "docs")))
    window, chunk = whole(window, "window", low=1), whole(chunk, "chunk", low=1)
    target = number(target, "target", low=0, high=1, low_open=True, high_open=True)
    slope, drop = number(slope, "slope"), number(drop, "drop")
    if drift_at is not None:
        drift_at = whole(drift_at, "drift_at", low=0, high=periods - 1)
    rng = np.random.default_rng(whole(seed, "seed", low=0))
    alpha = 1.0 - number(level, "level", low=0, high=1, low_open=True, high_open=True)
    rank = np.arange(1, docs + 1) / 100.0
    base = np.log(target / (1 - target))
    shift = np.zeros((periods, 1))
    if drift_at is not None:
        shift[drift_at:] = drop
    sizes = np.asarray(BAND_SIZES)
    first, first_naive = [], []
    for start in range(0, runs, chunk):
        b = min(chunk, runs - start)
        xa, na, wa = _side(rng, b, periods, docs, base + slope * rank - shift, sizes, window)
        xb, nb, wb = _side(rng, b, periods, docs, base - slope * rank - shift, sizes, window)
        first.append(_first(e_detector(xa, na, xb, nb, target, alpha).alarms))
        n_window = np.full(wa.shape, float(min(window, docs)))
        first_naive.append(_first(naive_alarms(wa, n_window, wb, n_window, target, alpha)))
    return AlertSimulation(np.concatenate(first), np.concatenate(first_naive), drift_at)
