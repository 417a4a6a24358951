"""Additive tree ensembles as base-model contribution matrices, and an evaluator that skips work.

For QWYC (Wang, Gupta & You, *Quit When You Can: Efficient Evaluation of Ensembles with Ordering Optimization*, arXiv:1806.11202, 2018) an ensemble is its matrix ``F`` (N examples x T base models)
of contributions and a bias: the full score is ``bias + F.sum(1)``. This module
extracts the trees of fitted scikit-learn ``GradientBoostingClassifier`` and
``HistGradientBoostingClassifier`` models (binary, numeric features) into flat
arrays and evaluates any tree on any subset of rows with a vectorised traversal,
so ``F`` is exact and the early-exit evaluator can really skip the trees an
example no longer needs.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InputError
from ..io._public_data import load_public_dataset
from ._evaluator import flatten_ensemble
from ._trees import Tree, tree_depth

__all__ = [
    "Tree",
    "AdditiveEnsemble",
    "tree_depth",
    "from_sklearn",
    "from_lightgbm",
    "TrainedEnsemble",
    "train_adult_gbt",
    "ADULT_GBT",
    "encoded_adult",
]


@dataclass(frozen=True)
class AdditiveEnsemble:
    """``decision_function(x) = bias + sum_t trees[t].predict(x)``.

    Attributes
    ----------
    trees : tuple of Tree
        The T base models (anything with ``predict(x)``), in the model's own order.
    bias : float
        Constant added to the sum (the initial log-odds).
    source : str
        The library class the ensemble was read from.
    """

    trees: tuple[Tree, ...]
    bias: float
    source: str = ""

    @property
    def n_models(self) -> int:
        return len(self.trees)

    def contributions(self, x) -> np.ndarray:
        """The (N, T) matrix F of base-model contributions.

        Parameters
        ----------
        x : array_like of float, shape (N, features)
            Examples.

        Returns
        -------
        numpy.ndarray of float64, shape (N, T)
            ``F[i, t] = trees[t].predict(x)[i]``; ``bias + F.sum(1)`` is the full score.
        """
        x = np.asarray(x, dtype=np.float64)
        flat = flatten_ensemble(self)
        if flat is not None:
            return flat.contributions(x)
        return np.column_stack([t.predict(x) for t in self.trees])

    def decision_function(self, x) -> np.ndarray:
        """The full score ``bias + sum_t trees[t].predict(x)`` (raw log-odds).

        Parameters
        ----------
        x : array_like of float, shape (N, features)
            Examples.

        Returns
        -------
        numpy.ndarray of float64, shape (N,)
            The score of every example.
        """
        x = np.asarray(x, dtype=np.float64)
        out = np.full(x.shape[0], self.bias)
        for t in self.trees:
            out += t.predict(x)
        return out


def sklearn_tree(left, right, feature, threshold, value, missing_left) -> Tree:
    """A :class:`Tree` from scikit-learn's ``sklearn.tree._tree.Tree`` arrays (leaves marked by ``left == -1``).

    Parameters
    ----------
    left, right, feature : numpy.ndarray of int, shape (nodes,)
        ``children_left``, ``children_right`` and ``feature`` (-1 / -2 at leaves).
    threshold : numpy.ndarray of float, shape (nodes,)
        Split values.
    value : numpy.ndarray of float64, shape (nodes,)
        Node outputs, learning rate included.
    missing_left : numpy.ndarray, shape (nodes,)
        ``missing_go_to_left`` (nonzero: NaN goes left).

    Returns
    -------
    Tree
        The tree, its structure checked by :func:`tree_depth`.
    """
    is_leaf = left == -1
    left = np.where(is_leaf, 0, left)
    right = np.where(is_leaf, 0, right)
    return Tree(
        feature=np.maximum(feature, 0),
        threshold=threshold.astype(np.float64),
        left=left,
        right=right,
        value=value,
        missing_left=missing_left.astype(bool),
        is_leaf=is_leaf,
        depth=tree_depth(left, right, is_leaf),
    )


def hist_tree(nodes: np.ndarray) -> Tree:
    """A :class:`Tree` from the node records of a ``HistGradientBoosting`` ``TreePredictor``.

    Parameters
    ----------
    nodes : numpy.ndarray of scikit-learn's ``PREDICTOR_RECORD_DTYPE``, shape (nodes,)
        ``TreePredictor.nodes``.

    Returns
    -------
    Tree
        The tree, its structure checked by :func:`tree_depth`.

    Raises
    ------
    InputError
        A categorical split.
    """
    if np.any(nodes["is_categorical"]):
        raise InputError(
            "categorical splits are not supported: encode categories as numbers (e.g. OrdinalEncoder) "
            "and train without categorical_features"
        )
    is_leaf = nodes["is_leaf"].astype(bool)
    left = nodes["left"].astype(np.int64)
    right = nodes["right"].astype(np.int64)
    return Tree(
        feature=nodes["feature_idx"].astype(np.int64),
        threshold=nodes["num_threshold"].astype(np.float64),
        left=left,
        right=right,
        value=nodes["value"].astype(np.float64),
        missing_left=nodes["missing_go_to_left"].astype(bool),
        is_leaf=is_leaf,
        depth=tree_depth(left, right, is_leaf),
    )


def _from_sklearn_tree(tree, scale: float) -> Tree:
    missing = getattr(tree, "missing_go_to_left", np.zeros(tree.children_left.size, dtype=np.uint8))
    return sklearn_tree(
        tree.children_left, tree.children_right, tree.feature, tree.threshold, tree.value[:, 0, 0] * scale, missing
    )


def from_sklearn(model) -> AdditiveEnsemble:
    """Trees and bias of a fitted binary ``GradientBoostingClassifier`` / ``HistGradientBoostingClassifier``.

    HistGradientBoosting must be trained with ``early_stopping=False`` so its
    ``max_iter`` trees are all there (the reconstruction test checks
    ``bias + F.sum(1) == decision_function`` to 1e-10).

    Parameters
    ----------
    model : GradientBoostingClassifier or HistGradientBoostingClassifier
        A fitted binary model with numeric splits only.

    Returns
    -------
    AdditiveEnsemble
        :func:`sklearn_ensemble` of the model.

    Raises
    ------
    InputError
        What :func:`sklearn_ensemble` refuses; TypeError for another model class.
    """
    from sklearn.ensemble import (
        GradientBoostingClassifier,
        HistGradientBoostingClassifier,
    )

    for cls in (HistGradientBoostingClassifier, GradientBoostingClassifier):
        if isinstance(model, cls):
            return sklearn_ensemble(cls.__name__, model)
    raise TypeError(
        f"unsupported model {type(model).__name__}; use GradientBoostingClassifier or HistGradientBoostingClassifier"
    )


def sklearn_ensemble(kind: str, model) -> AdditiveEnsemble:
    """Trees and bias of a binary scikit-learn gradient-boosting classifier, read from its fitted attributes.

    Parameters
    ----------
    kind : {"HistGradientBoostingClassifier", "GradientBoostingClassifier"}
        The model's class.
    model : object
        Anything with that class's fitted attributes (``_predictors``, ``_baseline_prediction``,
        ``n_trees_per_iteration_``; or ``estimators_`` whose ``tree_`` have scikit-learn's tree
        arrays, ``init_``, ``learning_rate``, ``loss``): a fitted model (:func:`from_sklearn`), or
        the attributes a skops file stores, read without constructing the model
        (:func:`engine.qwyc.formats.read_skops`).

    Returns
    -------
    AdditiveEnsemble
        Its trees (learning rate folded into the leaf values) and bias.

    Raises
    ------
    InputError
        Not binary, categorical splits, or a non-default ``init`` estimator.
    """
    if kind == "HistGradientBoostingClassifier":
        if model.n_trees_per_iteration_ != 1:
            raise InputError("only binary classifiers are supported")
        trees = tuple(hist_tree(p[0].nodes) for p in model._predictors)
        bias = float(np.ravel(model._baseline_prediction)[0])
        return AdditiveEnsemble(trees, bias, kind)
    if model.estimators_.shape[1] != 1:
        raise InputError("only binary classifiers are supported")
    prior = getattr(model.init_, "class_prior_", None)
    if prior is None:
        raise InputError("GradientBoostingClassifier must use the default (prior) init estimator")
    bias = float(np.log(prior[1] / prior[0]))
    if getattr(model, "loss", "log_loss") == "exponential":
        bias /= 2  # the exponential loss's link is half the logit (sklearn._loss.link.HalfLogitLink)
    trees = tuple(_from_sklearn_tree(est[0].tree_, model.learning_rate) for est in model.estimators_)
    return AdditiveEnsemble(trees, bias, "GradientBoostingClassifier")


@dataclass(frozen=True)
class TrainedEnsemble:
    """A fitted model, its extracted ensemble and the encoded train / test data.

    Attributes
    ----------
    model : object
        The fitted scikit-learn model, or the :class:`~engine.qwyc._models.ModelFile` it was read from.
    ensemble : AdditiveEnsemble
        Its trees and bias.
    x_train, x_test : numpy.ndarray of float, shape (n, features)
        Encoded features (categories as ordinal codes, NaN kept).
    y_train, y_test : numpy.ndarray
        0/1 labels.
    fit_seconds : float
        Training time.
    """

    model: object
    ensemble: AdditiveEnsemble
    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    fit_seconds: float

    def decision_function(self, x) -> np.ndarray:
        """The model's own raw score: its ``decision_function`` when it has one, else the trees' sum.

        Parameters
        ----------
        x : array_like of float, shape (N, features)
            Examples.

        Returns
        -------
        numpy.ndarray of float64, shape (N,)
        """
        own = getattr(self.model, "decision_function", None)
        return own(x) if own is not None else self.ensemble.decision_function(x)


#: the shipped Adult model's settings (sample ``adult_gbt``): :func:`train_adult_gbt`'s defaults
ADULT_GBT = {"max_iter": 500, "max_depth": 5}


def ordinal_codes(train, other) -> tuple[np.ndarray, np.ndarray]:
    """A text column's categories as codes 0, 1, ... in sorted order of the training values (NaN kept as NaN).

    What scikit-learn's ``OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1)``
    fitted on ``train`` gives, without importing scikit-learn, for columns whose missing values are NaN
    (as read from a CSV file); a ``None`` in an object column is missing here too, where the encoder
    would make it a category of its own.

    Parameters
    ----------
    train, other : pandas.Series
        The training column (its distinct values are the categories) and a column to encode like it.

    Returns
    -------
    tuple of (numpy.ndarray, numpy.ndarray) of float64
        The codes of ``train`` and of ``other`` (-1 for a value not seen in training, NaN for a missing one).
    """
    import pandas as pd

    categories = pd.Index(np.unique(train.dropna().to_numpy(dtype=object)))

    def encode(column):
        codes = categories.get_indexer(column.to_numpy(dtype=object)).astype(np.float64)  # -1: not a category
        codes[column.isna().to_numpy()] = np.nan
        return codes

    return encode(train), encode(other)


def encoded_adult():
    """UCI Adult train / test as float matrices, categories ordinal-encoded on the training file (NaN kept).

    Returns
    -------
    tuple of (numpy.ndarray, numpy.ndarray, numpy.ndarray, numpy.ndarray)
        ``x_train, y_train, x_test, y_test``.
    """
    import pandas as pd

    adult = load_public_dataset("adult")
    x_train, y_train, x_test, y_test = adult.x, adult.y, adult.x_test, adult.y_test
    xtr = x_train.copy()
    xte = x_test.copy()
    for c in x_train.columns:
        if not pd.api.types.is_numeric_dtype(x_train[c]):
            xtr[c], xte[c] = ordinal_codes(x_train[c], x_test[c])
    return xtr.to_numpy(dtype=float), y_train, xte.to_numpy(dtype=float), y_test


def train_adult_gbt(
    *,
    max_iter: int = 500,
    max_depth: int = 5,
    learning_rate: float = 0.1,
    seed: int = 0,
    progress=None,
    chunk: int = 50,
) -> TrainedEnsemble:
    """``HistGradientBoostingClassifier`` on UCI Adult (train 32,561 / test 16,281 rows).

    Categorical columns are ordinal-encoded (numeric splits, missing values kept as
    NaN) so every split is a numeric threshold. Trained with ``warm_start`` in
    chunks of ``chunk`` trees so ``progress(trees, max_iter)`` can be reported;
    ``early_stopping=False`` keeps all ``max_iter`` trees.

    Parameters
    ----------
    max_iter : int, optional
        Trees T.
    max_depth : int, optional
        Depth limit of each tree.
    learning_rate : float, optional
        Shrinkage of each tree.
    seed : int, optional
        ``random_state`` of the model.
    progress : callable, optional
        ``progress(trees, max_iter)`` after each chunk.
    chunk : int, optional
        Trees added per ``warm_start`` fit.

    Returns
    -------
    TrainedEnsemble
        The model, its ensemble and the encoded Adult train / test data.
    """
    from sklearn.ensemble import HistGradientBoostingClassifier

    x_train, y_train, x_test, y_test = encoded_adult()
    model = HistGradientBoostingClassifier(
        max_iter=0,
        max_depth=max_depth,
        learning_rate=learning_rate,
        early_stopping=False,
        warm_start=True,
        random_state=seed,
    )
    t0 = time.perf_counter()
    done = 0
    while done < max_iter:
        done = min(max_iter, done + chunk)
        model.set_params(max_iter=done)
        model.fit(x_train, y_train)
        if progress is not None:
            progress(done, max_iter)
    return TrainedEnsemble(model, from_sklearn(model), x_train, y_train, x_test, y_test, time.perf_counter() - t0)


@dataclass(frozen=True)
class _BoosterTree:
    """One iteration of a LightGBM booster, evaluated through LightGBM itself."""

    booster: Any
    iteration: int

    def predict(self, x: np.ndarray) -> np.ndarray:
        if x.shape[0] == 0:
            return np.zeros(0)
        return self.booster.predict(x, start_iteration=self.iteration, num_iteration=1, raw_score=True)


def from_lightgbm(model) -> AdditiveEnsemble:
    """A fitted binary LightGBM model (``LGBMClassifier`` or ``Booster``) as an additive ensemble.

    Each base model is one boosting iteration evaluated by LightGBM on the rows
    asked for (``start_iteration=t, num_iteration=1``); LightGBM folds its initial
    score into the first tree, so the bias is 0. Requires ``lightgbm``.

    Parameters
    ----------
    model : lightgbm.LGBMClassifier or lightgbm.Booster
        A fitted binary model.

    Returns
    -------
    AdditiveEnsemble
        One base model per boosting iteration, bias 0.

    Raises
    ------
    InputError
        More than one model per iteration (multiclass).
    """
    booster = getattr(model, "booster_", model)
    if booster.num_model_per_iteration() != 1:
        raise InputError("only binary LightGBM models are supported")
    trees = tuple(_BoosterTree(booster, t) for t in range(booster.num_trees()))
    return AdditiveEnsemble(trees, 0.0, "lightgbm")
