"""The synthetic rare-event sample: two correlated classifiers on a population with 0.1 % positives.

Also written in the paper's aggregated 4-column format (``t1, t2, tp, fp``): Robles,
Zaidouni, Mavromoustaki & Refael, AAAI-MAKE 2020.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..io._counts import counts_table
from ..pn._grid import threshold_grid

__all__ = ["synthetic_rare_events", "build"]


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def synthetic_rare_events(
    seed: int = 20200323,
    population: int = 2_000_000,
    prevalence: float = 0.001,
    review_share: float = 0.0055,
    unrated_share: float = 0.004,
    correlation: float = 0.55,
) -> pd.DataFrame:
    """Rated documents from a population with extremely rare positives.

    Scores: ``logit(s_j) = a_j * y + sqrt(rho) * z + sqrt(1 - rho) * e_j - b_j`` with
    a shared latent ``z`` (the classifiers are correlated with ``rho``) and
    separations ``a = (3.2, 2.6)``. A document is sent to raters when either
    score is in its top ``review_share`` of the population, so about 1 % of the
    population (~20,000 documents) is rated; ``unrated_share`` of those are still
    waiting for a rating (empty label). A ``region`` column gives three groups.
    """
    rng = np.random.default_rng(seed)
    y = rng.random(population) < prevalence
    z = rng.standard_normal(population)
    sep = (3.2, 2.6)
    bias = (4.0, 3.5)
    logits = []
    for a, b in zip(sep, bias):
        e = rng.standard_normal(population)
        logits.append(a * y + np.sqrt(correlation) * z + np.sqrt(1 - correlation) * e - b)
    scores = np.round(_sigmoid(np.column_stack(logits)), 4)
    review = np.quantile(scores, 1 - review_share, axis=0)
    rated = (scores >= review).any(axis=1)
    idx = np.flatnonzero(rated)
    labels = np.where(y[idx], "1", "0").astype(object)
    pending = rng.random(idx.size) < unrated_share
    labels[pending] = ""
    region = rng.choice(np.array(["north", "south", "west"]), size=idx.size, p=[0.5, 0.3, 0.2])
    return pd.DataFrame(
        {
            "doc_id": idx.astype(np.int64),
            "score_image": scores[idx, 0],
            "score_text": scores[idx, 1],
            "label": labels,
            "region": region,
        }
    )


def build(shared_dir: Path | None = None) -> dict[str, pd.DataFrame]:
    """The ``synthetic`` rated sample and its ``synthetic_counts`` (41 x 41 uniform grid of the rated rows).

    Parameters
    ----------
    shared_dir : pathlib.Path, optional
        Not used (the sample is generated).

    Returns
    -------
    dict of str to pandas.DataFrame
        By key of :data:`engine.io.SAMPLES`.
    """
    synth = synthetic_rare_events()
    rated = synth[synth["label"] != ""]
    grid = threshold_grid(
        rated[["score_image", "score_text"]].to_numpy(),
        rated["label"].astype(int).to_numpy(),
        bins=41,
        spacing="uniform",
    )
    return {"synthetic": synth, "synthetic_counts": counts_table(grid)}
