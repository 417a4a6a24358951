"""UCI Bank Marketing samples: rated scores of two models, a fully labelled hold-out, probability batches.

Moro, S., Cortez, P. & Rita, P. (2014). *A data-driven approach to predict the success of
bank telemarketing.* Decision Support Systems 62:22-31 (CC BY 4.0).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..setloss import train_probabilities

__all__ = ["bank_marketing_scored", "bank_probability_batches", "BATCH_SIZE", "build_batches", "build_scored"]

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
            (OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1), cats), remainder="passthrough"
        )
        model = make_pipeline(
            enc,
            HistGradientBoostingClassifier(
                max_iter=200, learning_rate=0.05, categorical_features=list(range(len(cats))), random_state=seed
            ),
        )
        model.fit(df.iloc[train][cols], y[train])
        out[f"score_{name}"] = np.round(model.predict_proba(df.iloc[scored][cols])[:, 1], 5)
    rng = np.random.default_rng(seed)
    split = np.where(rng.random(scored.size) < 0.5, "tune", "test")
    return pd.DataFrame({"row": scored, **out, "y": np.where(y[scored] == 1, "yes", "no"), "split": split})


BATCH_SIZE = 500


def bank_probability_batches(seed: int = 0) -> pd.DataFrame:
    """Held-out Bank Marketing clients with calibrated probabilities, cut into batches of about 500.

    Probabilities come from :func:`engine.setloss._protocol.train_probabilities` (a
    logistic regression, calibrated because it minimises the log loss); the test
    clients are shuffled with ``seed`` and cut into consecutive batches of
    :data:`BATCH_SIZE` (the last one holds the remainder).
    """
    split = train_probabilities("bank", seed=seed)
    order = np.random.default_rng(seed).permutation(split.eta_test.size)
    return pd.DataFrame(
        {
            "client_id": [f"test-{i + 1:05d}" for i in order],
            "batch": [f"batch-{b + 1:02d}" for b in np.arange(order.size) // BATCH_SIZE],
            "probability": np.round(split.eta_test[order], 6),
            "subscribed": np.where(split.y_test[order] == 1, "yes", "no"),
        }
    )


def build_batches(shared_dir: Path | None = None) -> dict[str, pd.DataFrame]:
    """The ``bank_batches`` sample (from the shipped ``bank-full`` copy).

    Parameters
    ----------
    shared_dir : pathlib.Path, optional
        Not used.

    Returns
    -------
    dict of str to pandas.DataFrame
        ``{"bank_batches": ...}``.
    """
    return {"bank_batches": bank_probability_batches()}


def build_scored(shared_dir: Path) -> dict[str, pd.DataFrame | bytes]:
    """``bank_full`` (an unchanged copy), ``bank_holdout`` (every scored row) and ``bank`` (the rated tune half).

    Parameters
    ----------
    shared_dir : pathlib.Path
        The ``shared`` folder holding ``data/bank_marketing/bank-full.csv.gz``.

    Returns
    -------
    dict of str to pandas.DataFrame or bytes
        By key of :data:`engine.io.SAMPLES`; bytes are written unchanged.
    """
    source = Path(shared_dir) / "data" / "bank_marketing" / "bank-full.csv.gz"
    bank = bank_marketing_scored(source)
    tune = bank[bank["split"] == "tune"].copy()
    # review threshold: either model's score in its top 40 % of the tune half
    review = tune[["score_profile", "score_campaign"]].quantile(0.6)
    above = (tune["score_profile"] >= review["score_profile"]) | (tune["score_campaign"] >= review["score_campaign"])
    tune["label"] = np.where(above, tune["y"], "")
    return {
        "bank_full": source.read_bytes(),
        "bank_holdout": bank,
        "bank": tune[["row", "score_profile", "score_campaign", "label"]],
    }
