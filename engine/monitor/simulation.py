"""Simulated monitoring runs: the false-alarm rate and detection delay of the alerts, against a per-period test.

Each run has ``periods`` periods; in each, ``window`` rated documents just above the
deployed threshold and ``window`` just below it are labelled independently with
probabilities that straddle the target M: the window above has share ``target + gap``
and the window below ``target − gap`` (``gap = 0`` is the hardest case for false alarms:
the threshold sits exactly at the crossing). From period ``drift_at`` on, both windows'
shares fall by ``drop`` (the documents at T became worse: T no longer meets M). This is
what :func:`engine.monitor.monitor` sees of every period (the windows' counts), so the
detector and the per-period test run on exactly their inputs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .alerts import e_detector, naive_alarms

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
        """Share of runs with an alarm before the drift (or at all, when stationary)."""
        first = self.first_naive if naive else self.first_alarm
        end = first.size and (self.drift_at if self.drift_at is not None else np.iinfo(np.int64).max)
        return float(np.mean((first >= 0) & (first < end)))

    def delays(self, naive: bool = False) -> np.ndarray:
        """Periods from the drift to the first alarm, for runs without an earlier alarm (NaN: never detected)."""
        first = self.first_naive if naive else self.first_alarm
        ok = ~((first >= 0) & (first < self.drift_at))
        return np.where(first[ok] >= 0, first[ok] - self.drift_at, np.nan).astype(np.float64)


def _first(alarms: np.ndarray) -> np.ndarray:
    return np.where(alarms.any(axis=-1), np.argmax(alarms, axis=-1), -1)


def simulate_alerts(*, runs: int = 1000, periods: int = 52, window: int = 100, target: float = 0.3,
                    gap: float = 0.0, drift_at: int | None = None, drop: float = 0.1, level: float = 0.95,
                    seed: int = 0, chunk: int = 250) -> AlertSimulation:
    """Simulate monitoring runs and record the first alarm of each.

    Parameters
    ----------
    runs, periods, window : int, optional
        Runs, periods per run and documents per window.
    target : float, optional
        M.
    gap : float, optional
        Share above T = M + gap, below T = M − gap (0: the null's boundary, where false alarms are likeliest).
    drift_at : int, optional
        First drifted period (0-based); None for stationary runs.
    drop : float, optional
        How much both windows' shares fall after the drift.
    level : float, optional
        1 − α.
    seed : int, optional
    chunk : int, optional
        Runs simulated at once (memory).

    Returns
    -------
    AlertSimulation
    """
    rng = np.random.default_rng(seed)
    alpha = 1.0 - level
    p_above = np.full(periods, target + gap)
    p_below = np.full(periods, target - gap)
    if drift_at is not None:
        p_above[drift_at:] -= drop
        p_below[drift_at:] -= drop
    first, first_naive = [], []
    for start in range(0, runs, chunk):
        b = min(chunk, runs - start)
        n = np.full((b, periods), window)
        xa = rng.binomial(window, np.clip(p_above, 0, 1), size=(b, periods))
        xb = rng.binomial(window, np.clip(p_below, 0, 1), size=(b, periods))
        first.append(_first(e_detector(xa, n, xb, n, target, alpha).alarms))
        first_naive.append(_first(naive_alarms(xa, n, xb, n, target, alpha)))
    return AlertSimulation(np.concatenate(first), np.concatenate(first_naive), drift_at)
