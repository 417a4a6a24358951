"""The shipped sample data sets: which files there are, what they hold, and where they are.

This is the runtime registry (read by the Data page, the CLI's ``--sample`` and the
tests); the code that *makes* the files trains models on public data and lives in
:mod:`engine.sample_builders` (``python sample_data/make_samples.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..resources import dashboard_dir

__all__ = ["SAMPLE_DIR", "SAMPLES", "Sample", "samples_of_kind", "sample_path"]

#: the shipped samples: inside the installed package (engine._dashboard) or the checkout's sample_data/
SAMPLE_DIR = dashboard_dir() / "sample_data"


@dataclass(frozen=True)
class Sample:
    """A shipped file: its name in ``sample_data/``, a title, a description and the input kind it is
    (``None`` for raw public files the engine reads itself).

    Attributes
    ----------
    file : str
        File name in :data:`SAMPLE_DIR`.
    title : str
        Title for people.
    description : str
        What the file holds and where it comes from.
    kind : str or None
        Key of :data:`~engine.io._inputs.INPUT_KINDS`, or None for raw public files.
    companion : str or None
        Key of the rated sample this one goes with (an audit and its population go with the
        rated data above their review line), or None.
    """

    file: str
    title: str
    description: str
    kind: str | None = None
    companion: str | None = None


#: Shipped samples by key
SAMPLES: dict[str, Sample] = {
    "synthetic": Sample(
        "synthetic_rare_events.csv.gz",
        "Synthetic rare events (2 classifiers, 0.1 % prevalence)",
        "Synthetic extreme rare events: two correlated classifiers, 0.1 % prevalence, "
        "~20,000 documents above the review threshold rated",
        "rated",
    ),
    "bank": Sample(
        "bank_marketing_rated.csv.gz",
        "UCI Bank Marketing (2 models, CC BY 4.0)",
        "UCI Bank Marketing scored by a client-profile and a campaign-history model; "
        "rows above the review threshold rated (CC BY 4.0, Moro et al. 2014)",
        "rated",
    ),
    "monitoring": Sample(
        "monitoring_rated.csv.gz",
        "Synthetic year of dated ratings with a drift (monitoring)",
        "One classifier's rated documents over 52 weeks of 2025 with the day each was rated; from "
        "2025-07-07 on the same score is worth less (the drift an alert should catch)",
        "dated",
    ),
    "synthetic_counts": Sample(
        "synthetic_rare_events_counts.csv",
        "Synthetic rare events, aggregated counts",
        "The synthetic sample in the paper's aggregated format (t1, t2, tp, fp)",
        "counts",
    ),
    "bank_batches": Sample(
        "bank_marketing_batches.csv.gz",
        "UCI Bank Marketing, probability batches of 500 (CC BY 4.0)",
        "Calibrated probabilities (logistic regression) of 11,303 held-out Bank Marketing clients "
        "in 23 batches of 500 (the last one 303), with the true outcome (CC BY 4.0, Moro et al. 2014)",
        "batches",
    ),
    "adult_table": Sample(
        "adult_training_table.csv.gz",
        "UCI Adult census income, a training table (CC BY 4.0)",
        "UCI Adult: 48,842 people with 14 features, income over 50K (yes/no) as the label, sex as "
        "the protected attribute, and the original train/test split (CC BY 4.0, Becker & Kohavi "
        "1996)",
        "training_table",
    ),
    "adult_gbt": Sample(
        "adult_gbt.skops",
        "UCI Adult, 500 gradient boosted trees (skops model file, CC BY 4.0)",
        "scikit-learn HistGradientBoostingClassifier, 500 trees of depth 5, trained on the UCI Adult "
        "training file with categories as ordinal codes (features x0..x13 in the file's column "
        "order); the Early exit page's model (CC BY 4.0, Becker & Kohavi 1996)",
    ),
    "satimage_population": Sample(
        "satimage_population.csv.gz",
        "Statlog satimage-2, every scored document (CC BY 4.0)",
        "Every one of the 5,803 satimage-2 documents (UCI Statlog Landsat Satellite via "
        "ODDS / ADBench) with a cross-fitted logistic-regression score and, because this "
        "public set is fully labelled, its known label (CC BY 4.0)",
        "population",
        "satimage_rated",
    ),
    "satimage_rated": Sample(
        "satimage_rated.csv.gz",
        "Statlog satimage-2, rated above the review line (CC BY 4.0)",
        "The satimage-2 documents scoring at or above the review line 0.9, rated (CC BY 4.0)",
        "rated",
    ),
    "satimage_audit": Sample(
        "satimage_audit.csv",
        "Statlog satimage-2, a reviewed below-the-line audit (CC BY 4.0)",
        "A stratified random audit of 300 of the 5,747 satimage-2 documents below the review "
        "line 0.9 (6 score strata, seed 0), labels filled in (CC BY 4.0)",
        "audit",
        "satimage_rated",
    ),
    "satimage_audit_design": Sample(
        "satimage_audit.json",
        "Statlog satimage-2, the audit's design record (CC BY 4.0)",
        "The design record (plan.json) of the satimage-2 audit: the population's fingerprint, the review "
        "line 0.9, seed 0, its 6 strata and the 56 documents above the line; read beside the audit",
    ),
    "bank_holdout": Sample(
        "bank_marketing_scored.csv.gz",
        "UCI Bank Marketing, every scored row",
        "UCI Bank Marketing, every scored row with its true label and a tune/test split",
    ),
    "bank_full": Sample(
        "bank-full.csv.gz",
        "UCI Bank Marketing bank-full",
        "UCI Bank Marketing bank-full, unchanged (45,211 rows; CC BY 4.0)",
    ),
    "adult_train": Sample(
        "adult.data.gz", "UCI Adult training file", "UCI Adult training file, unchanged (32,561 rows; CC BY 4.0)"
    ),
    "adult_test": Sample(
        "adult.test.gz", "UCI Adult test file", "UCI Adult test file, unchanged (16,281 rows; CC BY 4.0)"
    ),
}


def samples_of_kind(kind: str) -> dict[str, Sample]:
    """The shipped samples that are inputs of ``kind``, in registry order (the first is the default).

    Parameters
    ----------
    kind : str
        Key of :data:`~engine.io._inputs.INPUT_KINDS`.

    Returns
    -------
    dict of str to Sample
        The matching entries of :data:`SAMPLES` (empty when none).
    """
    return {key: sample for key, sample in SAMPLES.items() if sample.kind == kind}


def sample_path(key: str) -> Path:
    """Path of a shipped sample by key (see :data:`SAMPLES`).

    Parameters
    ----------
    key : str
        Key of :data:`SAMPLES`.

    Returns
    -------
    pathlib.Path
        The file in :data:`SAMPLE_DIR`.

    Raises
    ------
    KeyError
        An unknown key.
    """
    if key not in SAMPLES:
        raise KeyError(f"unknown sample {key!r}; choose one of {', '.join(SAMPLES)}")
    return SAMPLE_DIR / SAMPLES[key].file
