"""Early exit with a fidelity promise on new data: held-out disagreement at most D, at a stated level.

QWYC (Wang, Gupta & You, arXiv:1806.11202, 2018) fits its exit thresholds exactly to
the fit rows, so α bounds the disagreement on those rows only; on unseen rows it
is higher. Here the fit rows are split: QWYC* chooses the order and thresholds on
one part; on the other (calibration) part every step's exit region is narrowed by a
margin ``m · σ_r`` (σ_r = spread of the running score after step r), and m is the
smallest value whose disagreement passes a **fixed-sequence test**: margins are
tried from the widest down, and each must have a Clopper–Pearson upper bound (at
the chosen ``level``, :func:`engine.intervals.clopper_pearson`) on its calibration disagreement at most D. Disagreement
only falls as m grows, so this is a Learn-then-Test procedure (Angelopoulos et al.,
2021): with probability at least ``level``, the chosen policy's disagreement
rate on new rows from the same distribution is at most D. When not even the
widest margin passes (too few calibration rows for so small a D: with no
disagreement at all the bound is about 3/n at 95 %), no early exit is certified
and every tree is evaluated.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ..errors import InputError
from ..intervals import clopper_pearson
from ._full_ensemble import full_decisions
from ._policy import EarlyExitPolicy, fit_qwyc, lightgbm_early_stop_policy

__all__ = [
    "FidelityPolicy",
    "FidelityCalibration",
    "calibrate_fidelity",
    "fit_fidelity",
    "fidelity_curve",
    "measured_row",
    "MARGINS",
]

#: margins tried, in units of each step's running-score spread (0 = QWYC*'s own thresholds)
MARGINS = np.r_[0.0, np.geomspace(0.005, 20.0, 48)]


def _upper(k: int, n: int, level: float) -> float:
    """One-sided upper Clopper-Pearson bound on the rate at ``level``."""
    return clopper_pearson(k, n, level, side="upper")[1]


@dataclass(frozen=True)
class FidelityPolicy:
    """A QWYC policy widened to keep new-data disagreement at most D, and the evidence for it.

    Attributes
    ----------
    policy : EarlyExitPolicy
        The widened policy (every tree evaluated when no margin could be certified).
    max_disagreement : float
        D, the promised share of new rows deciding unlike the full model.
    level : float
        Level of the one-sided Clopper-Pearson bound.
    margin : float
        Chosen margin, in units of each step's running-score spread (inf: no early exit).
    calibration_rows : int
        Rows the margin was calibrated on.
    calibration_disagreements : int
        Of those, rows deciding unlike the full model at the chosen margin.
    certified : bool
        Whether a margin with an upper bound <= D was found.
    """

    policy: EarlyExitPolicy
    max_disagreement: float
    level: float
    margin: float
    calibration_rows: int
    calibration_disagreements: int
    certified: bool

    @property
    def calibration_upper_bound(self) -> float:
        return _upper(self.calibration_disagreements, self.calibration_rows, self.level)

    def as_dict(self) -> dict:
        return {
            "max_disagreement": self.max_disagreement,
            "level": self.level,
            "margin": self.margin,
            "calibration_rows": self.calibration_rows,
            "calibration_disagreements": self.calibration_disagreements,
            "calibration_upper_bound": self.calibration_upper_bound,
            "certified": self.certified,
        }


def _widened(policy: EarlyExitPolicy, spread: np.ndarray, margin: float) -> EarlyExitPolicy:
    if math.isinf(margin):
        steps = policy.eps_minus.size
        return replace(policy, eps_minus=np.full(steps, -np.inf), eps_plus=np.full(steps, np.inf))
    return replace(policy, eps_minus=policy.eps_minus - margin * spread, eps_plus=policy.eps_plus + margin * spread)


def _spread(f: np.ndarray, order: np.ndarray, bias: float) -> np.ndarray:
    """Standard deviation of the running score after each step of ``order`` (positive; 1 where constant)."""
    running = bias + np.cumsum(f[:, order], axis=1)
    s = running.std(axis=0)
    return np.where(s > 0, s, 1.0)


def fit_fidelity(
    f_fit,
    *,
    max_disagreement: float,
    level: float = 0.95,
    calibration_share: float = 0.4,
    alpha: float | None = None,
    neg_only: bool = False,
    bias: float = 0.0,
    seed: int = 0,
    progress=None,
) -> FidelityPolicy:
    """QWYC* on part of the fit rows, exit margins calibrated on the rest for new-data disagreement <= D.

    Parameters
    ----------
    f_fit : array (N, T)
        Base-model contributions of the fit rows.
    max_disagreement : float
        D, the share of new rows whose early decision may differ from the full model (0.001 = 0.1 %).
    level : float
        Probability that the guarantee holds (the fixed-sequence test's level).
    calibration_share : float
        Share of the fit rows kept out of the QWYC* fit to calibrate the margin.
    alpha, neg_only, bias : as for :func:`~engine.qwyc._policy.fit_qwyc`; α applies to the fitting part
        (default 0: thresholds exact on the fitting rows; measured on Adult, spending D / 2 there left the
        test disagreement at 0.117 % for D = 0.1 %, at the edge of the promise, for 27 % fewer trees).
    seed : int
        Seed of the random split into fitting and calibration rows.
    progress : callable, optional
        ``progress(done, total)`` during the QWYC* fit.

    Returns
    -------
    FidelityPolicy

    References
    ----------
    Wang, Gupta & You (2018), Algorithms 1–2; Clopper & Pearson (1934); Angelopoulos, Bates,
    Candès, Jordan & Lei, *Learn then Test* (2021), fixed-sequence testing.
    """
    _check_promise(max_disagreement)
    calibration = calibrate_fidelity(
        f_fit,
        calibration_share=calibration_share,
        alpha=alpha,
        neg_only=neg_only,
        bias=bias,
        seed=seed,
        progress=progress,
    )
    return calibration.promise(max_disagreement, level)


def _check_promise(max_disagreement: float) -> None:
    if not 0 < max_disagreement < 1:
        raise InputError("the maximum disagreement D must be a fraction in (0, 1), e.g. 0.001 for 0.1 %")


@dataclass(frozen=True)
class FidelityCalibration:
    """What every promise D shares: the split, the QWYC* fit, the spreads and the disagreement at every margin.

    Built by :func:`calibrate_fidelity`; :meth:`promise` turns it into the policy for one D without
    refitting, so a page can fit once and answer every D.

    Attributes
    ----------
    base : EarlyExitPolicy
        QWYC* fitted on the fitting part of the rows.
    spread : numpy.ndarray
        Spread of the running score after each step of ``base.order`` (the margin's unit).
    calibration_rows : int
        Rows kept out of the fit to calibrate the margin.
    disagreements : numpy.ndarray of int
        Calibration rows deciding unlike the full model, per entry of :data:`MARGINS`.
    alpha : float
        α of the QWYC* fit.
    """

    base: EarlyExitPolicy
    spread: np.ndarray
    calibration_rows: int
    disagreements: np.ndarray
    alpha: float

    def promise(self, max_disagreement: float, level: float = 0.95) -> FidelityPolicy:
        """The policy promising new-row disagreement at most D: the widest-first fixed-sequence test.

        Parameters
        ----------
        max_disagreement : float
            D, the share of new rows whose early decision may differ from the full model.
        level : float
            Level of the one-sided Clopper-Pearson bound.

        Returns
        -------
        FidelityPolicy
            Equal to :func:`fit_fidelity` with the same rows and settings.

        Raises
        ------
        InputError
            D outside (0, 1).
        """
        _check_promise(max_disagreement)
        chosen, chosen_k = math.inf, 0
        for margin, k in zip(MARGINS[::-1], self.disagreements[::-1]):  # widest first; stop at the first failure
            if _upper(int(k), self.calibration_rows, level) > max_disagreement:
                break
            chosen, chosen_k = float(margin), int(k)
        policy = replace(
            _widened(self.base, self.spread, chosen),
            method=f"QWYC* with calibrated margin (D = {max_disagreement:g})",
            alpha=self.alpha,
        )
        return FidelityPolicy(
            policy,
            float(max_disagreement),
            float(level),
            chosen,
            self.calibration_rows,
            chosen_k,
            not math.isinf(chosen),
        )


def calibrate_fidelity(
    f_fit,
    *,
    calibration_share: float = 0.4,
    alpha: float | None = None,
    neg_only: bool = False,
    bias: float = 0.0,
    seed: int = 0,
    progress=None,
) -> FidelityCalibration:
    """The part of :func:`fit_fidelity` that does not depend on D: QWYC* on some rows, margins measured on the rest.

    Parameters
    ----------
    f_fit : array (N, T)
        Base-model contributions of the fit rows.
    calibration_share, alpha, neg_only, bias, seed, progress : as for :func:`fit_fidelity`.

    Returns
    -------
    FidelityCalibration
        ``calibrate_fidelity(f, ...).promise(D, level)`` equals ``fit_fidelity(f, max_disagreement=D, ...)``.
    """
    f = np.asarray(f_fit, dtype=np.float64)
    alpha = 0.0 if alpha is None else float(alpha)
    n = f.shape[0]
    calibration = np.zeros(n, dtype=bool)
    calibration[np.random.default_rng(seed).permutation(n)[: int(round(calibration_share * n))]] = True
    base = fit_qwyc(f[~calibration], alpha=alpha, neg_only=neg_only, bias=bias, progress=progress)
    spread = _spread(f[~calibration], base.order, bias)
    f_cal = np.ascontiguousarray(f[calibration])
    full = full_decisions(f_cal, bias, base.threshold)
    disagreements = np.array([int(np.sum(_widened(base, spread, m).predict(f_cal)[0] != full)) for m in MARGINS])
    return FidelityCalibration(base, spread, int(f_cal.shape[0]), disagreements, alpha)


def fidelity_curve(
    f_fit,
    f_test,
    *,
    bias: float = 0.0,
    disagreements=(0.0005, 0.001, 0.002, 0.003, 0.005, 0.01, 0.02),
    lightgbm_margins=(1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0),
    lightgbm_freqs=(1, 5, 10, 20),
    level: float = 0.95,
    seed: int = 0,
    calibration: FidelityCalibration | None = None,
    progress=None,
) -> pd.DataFrame:
    """Test disagreement against mean trees: QWYC with a fidelity promise per D, and LightGBM's own rule.

    LightGBM's ``pred_early_stop`` checks every ``freq`` trees whether the margin
    ``|2·score|`` exceeds ``margin`` (reproduced by
    :func:`~engine.qwyc._policy.lightgbm_early_stop_policy`); every (margin, freq) is a point.

    Parameters
    ----------
    f_fit, f_test : array_like of float, shape (N, T)
        Base-model contributions of the fit and test rows.
    bias : float
        Constant of the score ``bias + F.sum(1)``.
    disagreements : sequence of float
        The promises D fitted (:func:`fit_fidelity`).
    lightgbm_margins, lightgbm_freqs : sequence
        LightGBM's ``pred_early_stop_margin`` and ``pred_early_stop_freq`` values tried.
    level : float
        Level of each promise.
    seed : int
        Seed of each promise's calibration split.
    calibration : FidelityCalibration, optional
        ``calibrate_fidelity(f_fit, bias=bias, seed=seed)`` when already computed (a page that fitted a promise):
        reused instead of refitting; the curve is the same.
    progress : callable, optional
        ``progress(done, total)`` over the steps of the one QWYC* fit every promise shares, then the promises.

    Returns
    -------
    pandas.DataFrame
        One :func:`measured_row` per promise and per LightGBM setting.
    """
    f_fit, f_test = np.asarray(f_fit, dtype=float), np.asarray(f_test, dtype=float)
    for d in disagreements:
        _check_promise(d)
    t_count = f_fit.shape[1]
    total = t_count + len(disagreements)
    # the QWYC* fit and the calibration at every margin do not depend on D: done once, shared by every promise
    if calibration is None:
        calibration = calibrate_fidelity(
            f_fit, bias=bias, seed=seed, progress=None if progress is None else lambda done, _: progress(done, total)
        )
    rows = []
    for i, d in enumerate(disagreements):
        fitted = calibration.promise(d, level)
        rows.append(
            measured_row("QWYC with fidelity promise", f"D = {d:.2%}", fitted.policy, f_test, bias, d, fitted.certified)
        )
        if progress is not None:
            progress(t_count + i + 1, total)
    for margin in lightgbm_margins:
        for freq in lightgbm_freqs:
            policy = lightgbm_early_stop_policy(f_fit.shape[1], freq, margin, bias=bias)
            rows.append(
                measured_row(
                    "LightGBM pred_early_stop", f"margin {margin:g}, freq {freq}", policy, f_test, bias, math.nan, None
                )
            )
    return pd.DataFrame(rows)


def measured_row(
    method: str,
    setting: str,
    policy: EarlyExitPolicy,
    f_test: np.ndarray,
    bias: float,
    promised: float,
    certified: bool | None,
) -> dict:
    """Mean trees and disagreement with the full model on test rows, with its exact 95 % interval.

    Parameters
    ----------
    method, setting : str
        How the policy was made, written into the row.
    policy : EarlyExitPolicy
        The policy measured.
    f_test : numpy.ndarray of float, shape (N, T)
        Base-model contributions of the test rows.
    bias : float
        Constant of the score.
    promised : float
        The promise D (NaN when there is none).
    certified : bool or None
        Whether the promise was certified; None without a promise (LightGBM's own early
        stopping promises nothing, so nothing is certified or refused).

    Returns
    -------
    dict
        ``method``, ``setting``, ``promised D``, ``certified``, ``mean trees (test)``,
        ``test disagreement`` and its Clopper-Pearson ``interval low`` / ``interval high``.
    """
    decision, n_eval = policy.predict(f_test)
    full = full_decisions(f_test, bias, policy.threshold)
    k = int(np.sum(decision != full))
    lo, hi = clopper_pearson(k, f_test.shape[0], 0.95)
    return {
        "method": method,
        "setting": setting,
        "promised D": promised,
        "certified": certified,
        "mean trees (test)": float(n_eval.mean()),
        "test disagreement": k / f_test.shape[0],
        "interval low": lo,
        "interval high": hi,
    }
