"""Wall-clock timing of early exit against full evaluation (Wang, Gupta & You, *Quit When You Can: Efficient Evaluation of Ensembles with Ordering Optimization*, arXiv:1806.11202, 2018)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._ensembles import AdditiveEnsemble
from ._evaluator import flatten_ensemble

__all__ = ["EarlyExitTiming", "time_early_exit", "timing_table"]


@dataclass(frozen=True)
class EarlyExitTiming:
    """Wall-clock comparison of full evaluation and early exit on the same rows.

    Attributes
    ----------
    rows : int
        Rows timed.
    full_seconds : float
        Best time of evaluating every tree.
    early_seconds : float
        Best time of the early-exit evaluation.
    reference_seconds : float or None
        Best time of the reference callable, None without one.
    mean_models : float
        Mean trees evaluated per row with early exit.
    decisions_match_policy : bool
        Whether the lazy evaluation decided every row as the policy does on F.
    """

    rows: int
    full_seconds: float
    early_seconds: float
    reference_seconds: float | None
    mean_models: float
    decisions_match_policy: bool

    @property
    def speedup(self) -> float:
        return self.full_seconds / self.early_seconds


def time_early_exit(ensemble: AdditiveEnsemble, policy, x, *, reference=None, repeat: int = 3) -> EarlyExitTiming:
    """Time ``policy.predict_lazy`` (compiled: each row stops at its first exit) against evaluating every tree.

    Parameters
    ----------
    ensemble : AdditiveEnsemble
        The ensemble.
    policy : EarlyExitPolicy
        A policy fitted on its contributions.
    x : array_like of float, shape (N, features)
        Rows to time.
    reference : callable, optional
        ``reference(x)``, e.g. the model's own ``decision_function``, timed on the same rows.
    repeat : int, optional
        Runs of each; the fastest counts.

    Returns
    -------
    EarlyExitTiming
        The timings, mean trees evaluated and the consistency check.
    """
    x = np.asarray(x, dtype=np.float64)

    def best(fn):
        times, out = [], None
        for _ in range(repeat):
            t0 = time.perf_counter()
            out = fn()
            times.append(time.perf_counter() - t0)
        return min(times), out

    flat = flatten_ensemble(ensemble)  # type: ignore[arg-type]
    full_s, score = best(lambda: (flat or ensemble).decision_function(x))
    early_s, (decisions, n_eval) = best(lambda: policy.predict_lazy(ensemble, x, workers=1))  # as the full pass
    ref_s = best(lambda: reference(x))[0] if reference is not None else None
    f = ensemble.contributions(x)
    expected, _ = policy.predict(f)
    return EarlyExitTiming(
        rows=x.shape[0],
        full_seconds=full_s,
        early_seconds=early_s,
        reference_seconds=ref_s,
        mean_models=float(n_eval.mean()),
        decisions_match_policy=bool(np.array_equal(decisions, expected)),
    )


def timing_table(timing: EarlyExitTiming, n_models: int) -> pd.DataFrame:
    """The timings side by side: seconds, mean trees and the speed-up of early exit over each evaluation.

    Parameters
    ----------
    timing : EarlyExitTiming
        What :func:`time_early_exit` measured.
    n_models : int
        Trees in the ensemble (every tree is evaluated without early exit).

    Returns
    -------
    pandas.DataFrame
        One row per evaluation (every tree with this engine, early exit, and the reference when one
        was timed): ``evaluation``, ``seconds``, ``mean # trees`` and ``speed-up of early exit``
        (that evaluation's seconds over early exit's; NaN — no comparison — on early exit's own row).
    """
    rows = [
        ("all trees (this engine)", timing.full_seconds, n_models),
        (
            "early exit (this engine, compiled: each row stops at its first exit)",
            timing.early_seconds,
            timing.mean_models,
        ),
    ]
    if timing.reference_seconds is not None:
        rows.append(("scikit-learn decision_function (compiled, all trees)", timing.reference_seconds, n_models))
    return pd.DataFrame(
        {
            "evaluation": [r[0] for r in rows],
            "seconds": [r[1] for r in rows],
            "mean # trees": [r[2] for r in rows],
            "speed-up of early exit": [math.nan if i == 1 else r[1] / timing.early_seconds for i, r in enumerate(rows)],
        }
    )
