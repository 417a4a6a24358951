"""Coverage of the audit's intervals, by simulation on a population whose every label is known.

The design is fixed (strata, allocation) and only the random selection changes from one
repetition to the next (seeds 0, 1, 2 ...), exactly as :func:`engine.audit._plan` draws it; each
repetition's audit "reviews" its documents by looking up their known labels and every interval
method brackets the positives below the line. The share of repetitions whose interval holds the
true number is the design-based coverage (its Monte Carlo standard error is
``sqrt(c (1 - c) / R)``); the mean width compares designs, e.g. stratified against simple random
sampling of the same budget (one stratum).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import InputError
from ._intervals import METHODS, total_interval
from ._plan import plan
from ._population import MemoryPopulation

__all__ = ["CoverageResult", "simulate_coverage"]


@dataclass(frozen=True)
class CoverageResult:
    """How one interval method did over the repetitions of one design.

    Attributes
    ----------
    method : str
        Interval method.
    design : str
        ``"<strata> strata, <allocation>"``.
    repetitions : int
        Audits simulated.
    level : float
        Nominal level.
    true_positives : int
        Positives below the line (known).
    coverage : float
        Share of intervals holding the true number.
    too_low, too_high : float
        Share of intervals entirely below / above it.
    mean_width : float
        Mean of upper - lower.
    mean_found : float
        Mean positives found per audit.
    """

    method: str
    design: str
    repetitions: int
    level: float
    true_positives: int
    coverage: float
    too_low: float
    too_high: float
    mean_width: float
    mean_found: float

    @property
    def standard_error(self) -> float:
        """Monte Carlo standard error of the coverage."""
        return math.sqrt(self.coverage * (1 - self.coverage) / self.repetitions)

    def as_dict(self) -> dict:
        """JSON-ready values (with the standard error)."""
        return {**self.__dict__, "standard_error": self.standard_error}


def simulate_coverage(
    scores,
    labels,
    *,
    below: float,
    budget: int,
    strata: int = 6,
    allocation: str | None = None,
    spacing: str = "geometric",
    prior=None,
    methods: Sequence[str] = METHODS,
    repetitions: int = 200,
    level: float = 0.95,
    first_seed: int = 0,
) -> list[CoverageResult]:
    """Simulate audits of a population with known labels and score each interval method.

    Parameters
    ----------
    scores : array_like of float
        Every document's score.
    labels : array_like of int
        Every document's true label (0/1).
    below : float
        Review threshold.
    budget : int
        Documents per audit.
    strata : int
    allocation : {"proportional", "neyman", "equal"}, optional
    spacing : {"geometric", "quantile"}
    prior : array_like of float, optional
        Prior probabilities (Neyman allocation).
    methods : sequence of str
        Interval methods to score.
    repetitions : int
        Audits (seeds ``first_seed`` ...).
    level : float
    first_seed : int

    Returns
    -------
    list of CoverageResult
        One per method.

    Raises
    ------
    InputError
        Labels that are not 0/1, or fewer than one repetition.
    """
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels)
    if not np.isin(y, (0, 1)).all() or y.shape != s.shape or repetitions < 1:
        raise InputError("simulate_coverage needs one 0/1 label per score and at least one repetition")
    ids = np.arange(s.size).astype(str).astype(object)
    population = MemoryPopulation(ids, s, None if prior is None else np.asarray(prior, dtype=np.float64))
    truth = int(y[s < below].sum())
    rows: dict[str, list] = {m: [] for m in methods}
    found = []
    design = ""
    for r in range(repetitions):
        p = plan(
            population,
            below=below,
            budget=budget,
            strata=strata,
            allocation=allocation,
            spacing=spacing,
            seed=first_seed + r,
            level=level,
        )
        design = f"{len(p.strata)} strata, {p.allocation}"
        hits = y[p.rows["id"].to_numpy(dtype=np.int64)]
        index = p.rows["stratum"].to_numpy() - 1
        docs, n = np.array([x.documents for x in p.strata]), np.array([x.sample for x in p.strata])
        y_h = np.bincount(index, weights=hits, minlength=docs.size).astype(np.int64)
        found.append(int(y_h.sum()))
        for m in methods:
            iv = total_interval(docs, n, y_h, level=level, method=m)
            rows[m].append((iv.lower, iv.upper))
    out = []
    for m in methods:
        b = pd.DataFrame(rows[m], columns=["lo", "hi"])
        out.append(
            CoverageResult(
                m,
                design,
                repetitions,
                level,
                truth,
                float(((b.lo <= truth) & (truth <= b.hi)).mean()),
                float((b.hi < truth).mean()),
                float((b.lo > truth).mean()),
                float((b.hi - b.lo).mean()),
                float(np.mean(found)),
            )
        )
    return out
