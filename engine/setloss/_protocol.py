"""The paper's experimental protocol for batch decisions (Natarajan et al., ICML 2016, section 5.2).

A labelled test set is split into batches of n items. Each method decides every
batch from calibrated probabilities and is scored by the set loss on the batch's
true labels; the table reports the mean test loss over batches:

(a) **threshold 0.5** - flag items with eta >= 0.5;
(b) **plug-in threshold** - one threshold tuned on validation batches of the same
    size to minimise the mean loss (the empirical-utility-maximisation baseline);
(c) **expected-loss-optimal top-k** - :func:`~engine.setloss._decisions.optimal_decision` per batch.

Probabilities come from a logistic regression (well calibrated by construction:
it minimises the log loss, a strictly proper scoring rule) trained on public
data available offline (:mod:`engine.io._public_data`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import InputError
from ..io._public_data import PUBLIC_DATASETS, load_public_dataset
from ._decisions import optimal_decision
from ._expected import check_probabilities
from ._losses import SetLoss, get_loss

__all__ = [
    "ScoredSplit",
    "batch_indices",
    "train_probabilities",
    "tune_threshold",
    "BaselineComparison",
    "compare_baselines",
    "scored_split_from_arrays",
]


@dataclass(frozen=True)
class ScoredSplit:
    """Calibrated probabilities and labels on a validation and a test split.

    Attributes
    ----------
    name : str
        Data set name.
    eta_val, y_val : numpy.ndarray
        Validation probabilities and 0/1 labels.
    eta_test, y_test : numpy.ndarray
        Test probabilities and 0/1 labels.
    description : str
        What the data set is.
    """

    name: str
    eta_val: np.ndarray
    y_val: np.ndarray
    eta_test: np.ndarray
    y_test: np.ndarray
    description: str = ""


def scored_split_from_arrays(eta, y, *, name: str = "data", val_fraction: float = 0.5, seed: int = 0) -> ScoredSplit:
    """Split labelled probabilities (e.g. an uploaded column) into validation and test halves.

    Parameters
    ----------
    eta : array_like of float, shape (n,)
        Calibrated probabilities.
    y : array_like of int, shape (n,)
        0/1 labels.
    name : str, optional
        Data set name.
    val_fraction : float, optional
        Share of the items (rounded) in the validation split.
    seed : int, optional
        Seed of the random permutation.

    Returns
    -------
    ScoredSplit
        The two splits.

    Raises
    ------
    ValueError
        Probabilities not in [0, 1].
    """
    e = check_probabilities(eta)
    y = np.asarray(y).astype(int)
    rng = np.random.default_rng(seed)
    perm = rng.permutation(e.size)
    cut = int(round(val_fraction * e.size))
    return ScoredSplit(name, e[perm[:cut]], y[perm[:cut]], e[perm[cut:]], y[perm[cut:]])


def train_probabilities(name: str, *, seed: int = 0) -> ScoredSplit:
    """Train a logistic regression and return probabilities on validation and test data.

    Splits: breast cancer and Bank 50 % train / 25 % validation / 25 % test
    (stratified); Adult trains on 75 % of ``adult.data``, validates on the rest and
    tests on ``adult.test``.

    Parameters
    ----------
    name : str
        A key of :data:`~engine.io._public_data.PUBLIC_DATASETS`.
    seed : int, optional
        Seed of the splits.

    Returns
    -------
    ScoredSplit
        Validation and test probabilities of the fitted model, with labels.

    Raises
    ------
    InputError
        The data set is unknown or cannot be loaded.
    """
    from sklearn.compose import make_column_transformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    data = load_public_dataset(name)
    x, y, x_test, y_test = data.x, data.y, data.x_test, data.y_test
    if x_test is None:
        x_rest, x_test, y_rest, y_test = train_test_split(x, y, test_size=0.25, stratify=y, random_state=seed)
        x_train, x_val, y_train, y_val = train_test_split(
            x_rest, y_rest, test_size=1 / 3, stratify=y_rest, random_state=seed
        )
    else:
        x_train, x_val, y_train, y_val = train_test_split(x, y, test_size=0.25, stratify=y, random_state=seed)
    categorical = [c for c in x.columns if not pd.api.types.is_numeric_dtype(x[c])]
    numeric = [c for c in x.columns if c not in categorical]
    prep = make_column_transformer(
        (make_pipeline(StandardScaler()), numeric),
        (OneHotEncoder(handle_unknown="ignore", min_frequency=10), categorical),
    )
    model = make_pipeline(prep, LogisticRegression(max_iter=2000, C=1.0))
    fill = {c: "missing" for c in categorical}
    model.fit(x_train.fillna(fill), y_train)
    return ScoredSplit(
        name,
        model.predict_proba(x_val.fillna(fill))[:, 1],
        np.asarray(y_val),
        model.predict_proba(x_test.fillna(fill))[:, 1],
        np.asarray(y_test),
        PUBLIC_DATASETS[name],
    )


def batch_indices(size: int, batch_size: int, seed: int) -> list[np.ndarray]:
    """Items cut into full batches after a seeded random permutation.

    Parameters
    ----------
    size : int
        Number of items.
    batch_size : int
        Items per batch (>= 1).
    seed : int
        Seed of the permutation.

    Returns
    -------
    list of numpy.ndarray of int
        ``size // batch_size`` disjoint index arrays; the remainder is left out.
    """
    perm = np.random.default_rng(seed).permutation(size)
    n_batches = size // batch_size
    return [perm[i * batch_size : (i + 1) * batch_size] for i in range(n_batches)]


def _batch_losses(pred: np.ndarray, y: np.ndarray, loss: SetLoss) -> np.ndarray:
    """Loss of each row of (batches x items) decisions against labels."""
    tp = (pred & (y == 1)).sum(axis=-1)
    fp = (pred & (y == 0)).sum(axis=-1)
    fn = (~pred & (y == 1)).sum(axis=-1)
    tn = (~pred & (y == 0)).sum(axis=-1)
    return loss(tp, fp, fn, tn)


def tune_threshold(
    eta_val, y_val, loss: str | SetLoss, batch_size: int, *, seed: int = 0, candidates: int = 200
) -> float:
    """Threshold minimising the mean loss over validation batches of ``batch_size`` items.

    Parameters
    ----------
    eta_val : array_like of float
        Validation probabilities.
    y_val : array_like of int
        Validation 0/1 labels.
    loss : str or SetLoss
        The set loss.
    batch_size : int
        Items per validation batch (at most all items).
    seed : int, optional
        Seed of the batching.
    candidates : int, optional
        Quantiles of the probabilities tried as thresholds (plus 0.5 and just above 1).

    Returns
    -------
    float
        The candidate with the lowest mean batch loss (the smallest among ties).
    """
    loss = get_loss(loss)
    e = check_probabilities(eta_val)
    y = np.asarray(y_val)
    batches = batch_indices(e.size, min(batch_size, e.size), seed)
    eb = np.stack([e[b] for b in batches])
    yb = np.stack([y[b] for b in batches])
    grid = np.unique(np.r_[np.quantile(e, np.linspace(0, 1, candidates)), 0.5, 1.0 + 1e-12])
    means = [float(_batch_losses(eb >= t, yb, loss).mean()) for t in grid]
    return float(grid[int(np.argmin(means))])


@dataclass(frozen=True)
class BaselineComparison:
    """Mean test loss per method (``summary``) and every batch's loss (``per_batch``).

    Attributes
    ----------
    summary : pandas.DataFrame
        One row per method: ``method``, ``mean_test_loss``, ``batches``, ``std_error``.
    per_batch : pandas.DataFrame
        One row per batch and method: ``batch``, ``method``, ``loss``, ``flagged``.
    threshold : float
        The tuned plug-in threshold.
    batch_size : int
        Items per batch.
    loss_name : str
        Name of the set loss.
    """

    summary: pd.DataFrame
    per_batch: pd.DataFrame
    threshold: float
    batch_size: int
    loss_name: str


def compare_baselines(
    split: ScoredSplit, loss: str | SetLoss, batch_size: int, *, seed: int = 0, progress=None
) -> BaselineComparison:
    """Run (a) threshold 0.5, (b) tuned plug-in threshold, (c) optimal top-k on test batches.

    Parameters
    ----------
    split : ScoredSplit
        Validation (for the plug-in threshold) and test probabilities with labels.
    loss : str or SetLoss
        The set loss.
    batch_size : int
        Items per batch (>= 1).
    seed : int, optional
        Seed of the validation batching; the test batching uses ``seed + 1``.
    progress : callable, optional
        ``progress(done, total)`` after each test batch.

    Returns
    -------
    BaselineComparison
        Mean test loss per method and every batch's loss.

    Raises
    ------
    ValueError
        ``batch_size < 1`` or an unknown loss name.
    """
    loss = get_loss(loss)
    if batch_size < 1:
        raise InputError("batch size must be >= 1")
    threshold = tune_threshold(split.eta_val, split.y_val, loss, batch_size, seed=seed)
    batches = batch_indices(split.eta_test.size, min(batch_size, split.eta_test.size), seed + 1)
    rows = []
    for i, b in enumerate(batches):
        e, y = split.eta_test[b], split.y_test[b]
        decision = optimal_decision(e, loss)
        for method, pred in (
            ("threshold 0.5", e >= 0.5),
            (f"plug-in threshold {threshold:.3g}", e >= threshold),
            ("expected-loss-optimal top-k", decision.mask),
        ):
            rows.append(
                {"batch": i, "method": method, "loss": float(_batch_losses(pred, y, loss)), "flagged": int(pred.sum())}
            )
        if progress is not None:
            progress(i + 1, len(batches))
    per_batch = pd.DataFrame(rows)
    summary = per_batch.groupby("method", sort=False)["loss"].agg(["mean", "std", "count"]).reset_index()
    summary["std_error"] = summary["std"] / np.sqrt(summary["count"])
    summary = summary.rename(columns={"mean": "mean_test_loss", "count": "batches"}).drop(columns="std")
    return BaselineComparison(summary, per_batch, threshold, batch_size, loss.name)
