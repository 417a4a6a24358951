"""A year of rated documents with the day each was rated, and a drift at a known date (the monitoring sample).

Every day from Monday 2025-01-06 to Sunday 2026-01-04 (52 weeks) the documents whose score
reached the review floor 0.2 are rated: about 120 on a weekday and 50 on a weekend day. Scores
are uniform on [0.2, 1] (four decimals), and a document with score s is positive with
probability ``m(s) = 1 / (1 + exp(-10 (s - c)))`` — the marginal precision at s, increasing as
the engine assumes. Until Sunday 2025-07-06, ``c = 0.65``; **from Monday 2025-07-07 (week 27)
on, c = 0.78**: the same score is worth less (the score distribution of the negatives moved up,
say a new campaign the classifier rates too high), and the marginal precision at the threshold
chosen for m = 0.3 on the first quarter (0.568) falls from about 0.31 to about 0.11. The last three
days hold documents not rated yet (empty label), as a live queue does. ``region`` gives three
segments.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["DRIFT_DATE", "FIRST_DAY", "DAYS", "marginal_precision", "monitoring_sample", "build"]

#: first day of the sample (a Monday) and number of days (52 weeks)
FIRST_DAY = np.datetime64("2025-01-06", "D")
DAYS = 364
#: the first day of the drift
DRIFT_DATE = np.datetime64("2025-07-07", "D")
_SLOPE, _CENTRE_BEFORE, _CENTRE_AFTER = 10.0, 0.65, 0.78


def marginal_precision(scores, days) -> np.ndarray:
    """P(positive | score, day): the sample's true marginal precision.

    Parameters
    ----------
    scores : array_like of float
    days : array_like of datetime64[D]

    Returns
    -------
    numpy.ndarray
    """
    centre = np.where(np.asarray(days, dtype="datetime64[D]") >= DRIFT_DATE, _CENTRE_AFTER, _CENTRE_BEFORE)
    return 1.0 / (1.0 + np.exp(-_SLOPE * (np.asarray(scores, dtype=np.float64) - centre)))


def monitoring_sample(seed: int = 20250106) -> pd.DataFrame:
    """The dated rated sample (see the module docstring).

    Parameters
    ----------
    seed : int, optional

    Returns
    -------
    pandas.DataFrame
        ``doc_id, date, score, label, region`` (label empty = not rated yet).
    """
    rng = np.random.default_rng(seed)
    days = FIRST_DAY + np.arange(DAYS).astype("timedelta64[D]")
    weekend = ((days - FIRST_DAY).astype(np.int64) % 7) >= 5
    per_day = rng.poisson(np.where(weekend, 50, 120))
    date = np.repeat(days, per_day)
    score = np.round(rng.uniform(0.2, 1.0, date.size), 4)
    label = (rng.random(date.size) < marginal_precision(score, date)).astype(int).astype(str).astype(object)
    pending = (date > days[-4]) & (rng.random(date.size) < 0.3)
    label[pending] = ""
    region = rng.choice(np.array(["north", "south", "west"]), size=date.size, p=[0.5, 0.3, 0.2])
    return pd.DataFrame(
        {"doc_id": np.arange(date.size), "date": date.astype(str), "score": score, "label": label, "region": region}
    )


def build(shared_dir: Path | None = None) -> dict[str, pd.DataFrame]:
    """The ``monitoring`` sample.

    Parameters
    ----------
    shared_dir : pathlib.Path, optional
        Not used (the sample is generated).

    Returns
    -------
    dict of str to pandas.DataFrame
        By key of :data:`engine.io.SAMPLES`.
    """
    return {"monitoring": monitoring_sample()}
