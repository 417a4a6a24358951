"""The audit sample: Statlog (Landsat Satellite) "satimage-2", every document scored and every label known.

ADBench's copy (Han et al., NeurIPS 2022 Datasets & Benchmarks; BSD-2-Clause) of the ODDS
satimage-2 set (Rayana 2016) from the UCI Statlog Landsat Satellite data (Srinivasan 1993,
CC BY 4.0): 5,803 documents, 71 of the rare class. A logistic regression cross-fitted on two
halves scores every document; the top scores are "flagged" and rated (labels known), a
stratified audit below the line is planned with :func:`engine.audit._plan` and "reviewed" by
looking up the known labels — so the interval the audit gives can be checked against the true
number of positives below the line, which the population file also carries (``known_label``).
The audit's design record (``satimage_audit.json``, :func:`engine.audit.designs.design_record`) ships
beside it, as ``opstudio audit plan`` writes it beside its plan.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..audit import plan
from ..audit._population import PopulationColumns, memory_population
from ..audit.designs import design_json, design_record

__all__ = ["satimage_scores", "build", "REVIEW_THRESHOLD", "AUDIT_BUDGET", "AUDIT_STRATA", "AUDIT_SEED"]

#: the review line of the sample: 56 documents (about 1 %) score at or above it; 15 of the 71 positives do not
REVIEW_THRESHOLD = 0.9
#: the shipped audit's design
AUDIT_BUDGET, AUDIT_STRATA, AUDIT_SEED = 300, 6, 0


def satimage_scores(npz_path: str | Path, seed: int = 0) -> pd.DataFrame:
    """Every satimage-2 document with a cross-fitted logistic-regression score and its true label.

    Parameters
    ----------
    npz_path : str or pathlib.Path
        ADBench's ``31_satimage-2.npz`` (arrays ``X`` and ``y``; no objects, read without pickle).
    seed : int
        Seed of the two-fold split.

    Returns
    -------
    pandas.DataFrame
        ``doc_id`` (the row), ``score`` (rounded to 6 decimals), ``known_label`` (0/1).
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    with np.load(npz_path, allow_pickle=False) as data:
        x, y = data["X"], data["y"].astype(np.int64)
    score = np.zeros(y.size)
    for train, test in StratifiedKFold(2, shuffle=True, random_state=seed).split(x, y):
        model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)).fit(x[train], y[train])
        score[test] = model.predict_proba(x[test])[:, 1]
    return pd.DataFrame({"doc_id": np.arange(y.size), "score": np.round(score, 6), "known_label": y})


def build(shared_dir: Path | None) -> dict[str, pd.DataFrame | bytes]:
    """The population, the rated documents above the line and the reviewed audit below it.

    Parameters
    ----------
    shared_dir : pathlib.Path
        The ``shared`` folder (``data/adbench/31_satimage-2.npz``).

    Returns
    -------
    dict of str to pandas.DataFrame or bytes
        ``satimage_population`` (doc_id, score, known_label), ``satimage_rated`` (the documents at
        or above the line with their label), ``satimage_audit`` (the plan of
        :data:`AUDIT_BUDGET` documents in :data:`AUDIT_STRATA` strata, Neyman allocation with the
        score as the prior, seed :data:`AUDIT_SEED`, labels filled in from the known labels) and
        ``satimage_audit_design`` (the plan's design record, JSON bytes).
    """
    population = satimage_scores(Path(shared_dir) / "data" / "adbench" / "31_satimage-2.npz")  # type: ignore[arg-type]
    flagged = population["score"] >= REVIEW_THRESHOLD
    rated = population.loc[flagged, ["doc_id", "score", "known_label"]].rename(columns={"known_label": "label"})
    # the calibrated score is also the prior: Neyman allocation (floored at the below-line average)
    planned = plan(
        memory_population(
            population, PopulationColumns("doc_id", "score", "score"), name="'satimage_population.csv.gz'"
        ),
        below=REVIEW_THRESHOLD,
        budget=AUDIT_BUDGET,
        strata=AUDIT_STRATA,
        seed=AUDIT_SEED,
        prior_column="score",
    )
    audit = planned.table()
    truth = population.set_index("doc_id")["known_label"]
    audit = audit.assign(label=truth.loc[audit["id"].astype(np.int64)].to_numpy())
    return {
        "satimage_population": population,
        "satimage_rated": rated.reset_index(drop=True),
        "satimage_audit": audit,
        "satimage_audit_design": design_json(design_record(planned)),
    }
