"""Shipped sample data sets and the code that makes them.

``python sample_data/make_samples.py`` regenerates every file in ``sample_data/``;
the generators are seeded, so the files are reproducible byte for byte (gzip
without timestamps).

1. :func:`synthetic_rare_events` - two correlated classifiers (an "image" and a
   "text" model) on a population with 0.1 % positives; only documents above a
   review threshold of either model are kept and rated (about 20,000 rows).
2. The same in the paper's aggregated 4-column format (``t1, t2, tp, fp``).
3. :func:`bank_marketing_scored` - UCI Bank Marketing (Moro, Cortez & Rita 2014,
   CC BY 4.0) scored by two models trained on different feature groups (client
   profile vs. campaign contact history, like an image and a text classifier);
   rated rows are those above a review threshold.
4. :func:`bank_probability_batches` - held-out Bank Marketing clients with calibrated
   probabilities in batches of 500 (the batch-decision input).
"""

from __future__ import annotations

import gzip
import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..pn.grid import threshold_grid
from ..resources import dashboard_dir
from .counts import counts_table

__all__ = [
    "SAMPLE_DIR",
    "SAMPLES",
    "Sample",
    "samples_of_kind",
    "synthetic_rare_events",
    "bank_marketing_scored",
    "bank_probability_batches",
    "adult_training_table",
    "write_samples",
    "write_csv",
    "sample_path",
]

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
        Key of :data:`~engine.io.inputs.INPUT_KINDS`, or None for raw public files.
    """

    file: str
    title: str
    description: str
    kind: str | None = None


#: Shipped samples by key
SAMPLES: dict[str, Sample] = {
    "synthetic": Sample("synthetic_rare_events.csv.gz", "Synthetic rare events (2 classifiers, 0.1 % prevalence)",
                        "Synthetic extreme rare events: two correlated classifiers, 0.1 % prevalence, "
                        "~20,000 documents above the review threshold rated", "rated"),
    "bank": Sample("bank_marketing_rated.csv.gz", "UCI Bank Marketing (2 models, CC BY 4.0)",
                   "UCI Bank Marketing scored by a client-profile and a campaign-history model; "
                   "rows above the review threshold rated (CC BY 4.0, Moro et al. 2014)", "rated"),
    "synthetic_counts": Sample("synthetic_rare_events_counts.csv", "Synthetic rare events, aggregated counts",
                               "The synthetic sample in the paper's aggregated format (t1, t2, tp, fp)", "counts"),
    "bank_batches": Sample("bank_marketing_batches.csv.gz", "UCI Bank Marketing, probability batches of 500 "
                           "(CC BY 4.0)",
                           "Calibrated probabilities (logistic regression) of 11,303 held-out Bank Marketing clients "
                           "in 23 batches of 500 (the last one 303), with the true outcome (CC BY 4.0, Moro et al. 2014)", "batches"),
    "adult_table": Sample("adult_training_table.csv.gz", "UCI Adult census income, a training table (CC BY 4.0)",
                          "UCI Adult: 48,842 people with 14 features, income over 50K (yes/no) as the label, sex as "
                          "the protected attribute, and the original train/test split (CC BY 4.0, Becker & Kohavi "
                          "1996)", "training_table"),
    "bank_holdout": Sample("bank_marketing_scored.csv.gz", "UCI Bank Marketing, every scored row",
                           "UCI Bank Marketing, every scored row with its true label and a tune/test split"),
    "bank_full": Sample("bank-full.csv.gz", "UCI Bank Marketing bank-full",
                        "UCI Bank Marketing bank-full, unchanged (45,211 rows; CC BY 4.0)"),
    "adult_train": Sample("adult.data.gz", "UCI Adult training file",
                          "UCI Adult training file, unchanged (32,561 rows; CC BY 4.0)"),
    "adult_test": Sample("adult.test.gz", "UCI Adult test file", "UCI Adult test file, unchanged (16,281 rows; CC BY 4.0)"),
}


def samples_of_kind(kind: str) -> dict[str, Sample]:
    """The shipped samples that are inputs of ``kind``, in registry order (the first is the default).

    Parameters
    ----------
    kind : str
        Key of :data:`~engine.io.inputs.INPUT_KINDS`.

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


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def synthetic_rare_events(seed: int = 20200323, population: int = 2_000_000, prevalence: float = 0.001,
                          review_share: float = 0.0055, unrated_share: float = 0.004,
                          correlation: float = 0.55) -> pd.DataFrame:
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
    return pd.DataFrame({
        "doc_id": idx.astype(np.int64),
        "score_image": scores[idx, 0],
        "score_text": scores[idx, 1],
        "label": labels,
        "region": region,
    })


_PROFILE = ["age", "job", "marital", "education", "default", "balance", "housing", "loan"]


_CAMPAIGN = ["contact", "day", "month", "campaign", "pdays", "previous", "poutcome"]


def bank_marketing_scored(bank_full_path: str | Path, seed: int = 0) -> pd.DataFrame:
    """Score UCI Bank Marketing with two models on disjoint feature groups.

    Half of ``bank-full`` (stratified) trains a gradient-boosted model on the
    client profile and another on the campaign contact history (``duration`` is
    dropped: it is only known after the call and leaks the label). The other
    half is scored by both and split into ``tune`` (where thresholds are chosen)
    and ``test`` (held out, fully labelled) halves.
    """
    from sklearn.compose import make_column_transformer
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OrdinalEncoder

    df = pd.read_csv(bank_full_path, sep=";")
    y = (df["y"] == "yes").astype(int).to_numpy()
    train, scored = train_test_split(np.arange(len(df)), test_size=0.5, stratify=y, random_state=seed)
    out = {}
    for name, cols in (("profile", _PROFILE), ("campaign", _CAMPAIGN)):
        cats = [c for c in cols if df[c].dtype == object or pd.api.types.is_string_dtype(df[c])]
        enc = make_column_transformer(
            (OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1), cats),
            remainder="passthrough")
        model = make_pipeline(enc, HistGradientBoostingClassifier(
            max_iter=200, learning_rate=0.05, categorical_features=list(range(len(cats))), random_state=seed))
        model.fit(df.iloc[train][cols], y[train])
        out[f"score_{name}"] = np.round(model.predict_proba(df.iloc[scored][cols])[:, 1], 5)
    rng = np.random.default_rng(seed)
    split = np.where(rng.random(scored.size) < 0.5, "tune", "test")
    return pd.DataFrame({"row": scored, **out, "y": np.where(y[scored] == 1, "yes", "no"), "split": split})


BATCH_SIZE = 500


def bank_probability_batches(seed: int = 0) -> pd.DataFrame:
    """Held-out Bank Marketing clients with calibrated probabilities, cut into batches of about 500.

    Probabilities come from :func:`engine.setloss.protocol.train_probabilities` (a
    logistic regression, calibrated because it minimises the log loss); the test
    clients are shuffled with ``seed`` and cut into consecutive batches of
    :data:`BATCH_SIZE` (the last one holds the remainder).
    """
    from ..setloss.protocol import train_probabilities

    split = train_probabilities("bank", seed=seed)
    order = np.random.default_rng(seed).permutation(split.eta_test.size)
    return pd.DataFrame({
        "client_id": [f"test-{i + 1:05d}" for i in order],
        "batch": [f"batch-{b + 1:02d}" for b in np.arange(order.size) // BATCH_SIZE],
        "probability": np.round(split.eta_test[order], 6),
        "subscribed": np.where(split.y_test[order] == 1, "yes", "no"),
    })


def adult_training_table() -> pd.DataFrame:
    """UCI Adult train and test files as one training table: features, ``income_over_50k``, ``split``."""
    from .public_data import load_public_dataset

    adult = load_public_dataset("adult")
    parts = []
    for x, y, split in ((adult.x, adult.y, "train"), (adult.x_test, adult.y_test, "test")):
        parts.append(x.assign(income_over_50k=np.where(np.asarray(y) == 1, "yes", "no"), split=split))
    return pd.concat(parts, ignore_index=True)


def write_csv(frame: pd.DataFrame, path: Path) -> None:
    text = frame.to_csv(index=False, lineterminator="\n").encode()
    if path.suffix == ".gz":
        buf = io.BytesIO()
        with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, compresslevel=9) as gz:
            gz.write(text)
        path.write_bytes(buf.getvalue())
    else:
        path.write_bytes(text)


def write_samples(out_dir: str | Path = SAMPLE_DIR, shared_dir: str | Path | None = None) -> dict[str, Path]:
    """Regenerate every shipped sample into ``out_dir``; Bank Marketing needs ``shared_dir``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = {}
    synth = synthetic_rare_events()
    write_csv(synth, out / SAMPLES["synthetic"].file)
    written["synthetic"] = out / SAMPLES["synthetic"].file
    rated = synth[synth["label"] != ""]
    grid = threshold_grid(rated[["score_image", "score_text"]].to_numpy(), rated["label"].astype(int).to_numpy(),
                          bins=41, spacing="uniform")
    write_csv(counts_table(grid), out / SAMPLES["synthetic_counts"].file)
    written["synthetic_counts"] = out / SAMPLES["synthetic_counts"].file
    write_csv(bank_probability_batches(), out / SAMPLES["bank_batches"].file)
    write_csv(adult_training_table(), out / SAMPLES["adult_table"].file)
    written["adult_table"] = out / SAMPLES["adult_table"].file
    written["bank_batches"] = out / SAMPLES["bank_batches"].file
    if shared_dir is not None:
        # unchanged copies of the public data sets the product trains on (gzip without timestamps)
        shared = Path(shared_dir) / "data"
        (out / SAMPLES["bank_full"].file).write_bytes((shared / "bank_marketing" / "bank-full.csv.gz").read_bytes())
        for key, name in (("adult_train", "adult.data"), ("adult_test", "adult.test")):
            buf = io.BytesIO()
            with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, compresslevel=9) as gz:
                gz.write((shared / "adult" / name).read_bytes())
            (out / SAMPLES[key].file).write_bytes(buf.getvalue())
        written.update({k: out / SAMPLES[k].file for k in ("bank_full", "adult_train", "adult_test")})
        bank = bank_marketing_scored(Path(shared_dir) / "data" / "bank_marketing" / "bank-full.csv.gz")
        write_csv(bank, out / SAMPLES["bank_holdout"].file)
        written["bank_holdout"] = out / SAMPLES["bank_holdout"].file
        tune = bank[bank["split"] == "tune"].copy()
        # review threshold: either model's score in its top 40 % of the tune half
        review = tune[["score_profile", "score_campaign"]].quantile(0.6)
        above = (tune["score_profile"] >= review["score_profile"]) | (tune["score_campaign"] >= review["score_campaign"])
        tune["label"] = np.where(above, tune["y"], "")
        write_csv(tune[["row", "score_profile", "score_campaign", "label"]], out / SAMPLES["bank"].file)
        written["bank"] = out / SAMPLES["bank"].file
    return written
