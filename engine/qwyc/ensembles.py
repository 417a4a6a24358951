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

import numpy as np

from ..io.public_data import load_public_dataset

__all__ = ["Tree", "AdditiveEnsemble", "tree_depth", "from_sklearn", "from_lightgbm", "TrainedEnsemble", "train_adult_gbt",
           "ADULT_GBT", "adult_gbt_sample"]


@dataclass(frozen=True)
class Tree:
    """One regression tree: go left when ``x[feature] <= threshold`` (NaN follows ``missing_left``).

    Attributes
    ----------
    feature : numpy.ndarray of int, shape (nodes,)
        Feature index tested at each node (0 at leaves).
    threshold : numpy.ndarray of float64, shape (nodes,)
        Split value of each node.
    left, right : numpy.ndarray of int, shape (nodes,)
        Children of each node (0 at leaves).
    value : numpy.ndarray of float64, shape (nodes,)
        Output of each node (read at leaves), learning rate included.
    missing_left : numpy.ndarray of bool, shape (nodes,)
        Whether a NaN feature value goes left.
    is_leaf : numpy.ndarray of bool, shape (nodes,)
        Leaf flags.
    depth : int
        Depth of the deepest leaf (the number of traversal steps).
    """

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray
    missing_left: np.ndarray
    is_leaf: np.ndarray
    depth: int

    def predict(self, x: np.ndarray) -> np.ndarray:
        """The tree's output for every row, by a vectorised traversal of ``depth`` steps.

        Parameters
        ----------
        x : numpy.ndarray of float, shape (n, features)
            Numeric features (NaN allowed).

        Returns
        -------
        numpy.ndarray of float64, shape (n,)
            The leaf value reached by each row.
        """
        node = np.zeros(x.shape[0], dtype=np.int64)
        rows = np.arange(x.shape[0])
        for _ in range(self.depth):
            feat = self.feature[node]
            val = x[rows, feat]
            go_left = np.where(np.isnan(val), self.missing_left[node], val <= self.threshold[node])
            nxt = np.where(go_left, self.left[node], self.right[node])
            node = np.where(self.is_leaf[node], node, nxt)
        return self.value[node]


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
        from .evaluator import flatten_ensemble  # compiled when every base model is a tree of arrays

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


def tree_depth(left: np.ndarray, right: np.ndarray, is_leaf: np.ndarray, *, unreachable: int = 0) -> int:
    """Depth of a tree given as child arrays, after checking that they really form one tree.

    Walks the nodes level by level from the root (node 0): every child index must be a
    node of the tree, and no node may be reached twice (no shared subtrees, no cycle
    back to an ancestor). Nodes never reached are refused beyond ``unreachable``
    (XGBoost keeps deleted nodes in its arrays).

    Parameters
    ----------
    left, right : numpy.ndarray of int, shape (nodes,)
        Children of each node (ignored at leaves).
    is_leaf : numpy.ndarray of bool, shape (nodes,)
        Leaf flags.
    unreachable : int, optional
        How many nodes may be unreachable from the root.

    Returns
    -------
    int
        Depth of the deepest leaf (0 for a single leaf).

    Raises
    ------
    ValueError
        A child outside the tree, a node reached twice, too many unreachable nodes,
        or arrays of different lengths.
    """
    n = int(is_leaf.size)
    if n == 0 or left.size != n or right.size != n:
        raise ValueError(f"the node arrays have different lengths or are empty ({left.size}, {right.size}, {n})")
    inner = np.flatnonzero(~is_leaf)
    children = np.concatenate([left[inner], right[inner]]).astype(np.int64)
    bad = (children < 0) | (children >= n)
    if bad.any():
        raise ValueError(f"node {int(np.concatenate([inner, inner])[bad][0])} has child {int(children[bad][0])}, "
                         f"outside the tree's {n} nodes")
    # one parent per node and none for the root: then the walk from the root never meets a node twice
    parents = np.bincount(children, minlength=n)
    if parents[0] or (parents > 1).any():
        raise ValueError("a node is reached twice (a cycle or a shared subtree)")
    seen = 1
    frontier = np.zeros(1, dtype=np.int64)
    depth = 0
    while True:
        frontier = frontier[~is_leaf[frontier]]
        if frontier.size == 0:
            break
        frontier = np.concatenate([left[frontier], right[frontier]]).astype(np.int64)
        seen += frontier.size
        depth += 1
    if n - seen > unreachable:
        raise ValueError(f"{n - seen} of the {n} nodes are not reachable from the root (a cycle or a detached part)")
    return depth


def _from_sklearn_tree(tree, scale: float) -> Tree:
    is_leaf = tree.children_left == -1
    left = np.where(is_leaf, 0, tree.children_left)
    right = np.where(is_leaf, 0, tree.children_right)
    missing = getattr(tree, "missing_go_to_left", np.zeros(left.size, dtype=np.uint8)).astype(bool)
    return Tree(feature=np.maximum(tree.feature, 0), threshold=tree.threshold.astype(np.float64), left=left,
                right=right, value=tree.value[:, 0, 0] * scale, missing_left=missing, is_leaf=is_leaf,
                depth=tree_depth(left, right, is_leaf))


def _from_hist_predictor(predictor) -> Tree:
    nodes = predictor.nodes
    if np.any(nodes["is_categorical"]):
        raise ValueError("categorical splits are not supported: encode categories as numbers (e.g. OrdinalEncoder) "
                         "and train without categorical_features")
    is_leaf = nodes["is_leaf"].astype(bool)
    left = nodes["left"].astype(np.int64)
    right = nodes["right"].astype(np.int64)
    return Tree(feature=nodes["feature_idx"].astype(np.int64), threshold=nodes["num_threshold"].astype(np.float64),
                left=left, right=right, value=nodes["value"].astype(np.float64),
                missing_left=nodes["missing_go_to_left"].astype(bool), is_leaf=is_leaf,
                depth=tree_depth(left, right, is_leaf))


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
        Its trees (learning rate folded into the leaf values) and bias.

    Raises
    ------
    ValueError
        Not binary, categorical splits, or a non-default ``init`` estimator.
    TypeError
        Another model class.
    """
    from sklearn.ensemble import (
        GradientBoostingClassifier,
        HistGradientBoostingClassifier,
    )

    if isinstance(model, HistGradientBoostingClassifier):
        if model.n_trees_per_iteration_ != 1:
            raise ValueError("only binary classifiers are supported")
        trees = tuple(_from_hist_predictor(p[0]) for p in model._predictors)
        bias = float(np.ravel(model._baseline_prediction)[0])
        return AdditiveEnsemble(trees, bias, "HistGradientBoostingClassifier")
    if isinstance(model, GradientBoostingClassifier):
        if model.estimators_.shape[1] != 1:
            raise ValueError("only binary classifiers are supported")
        prior = getattr(model.init_, "class_prior_", None)
        if prior is None:
            raise ValueError("GradientBoostingClassifier must use the default (prior) init estimator")
        bias = float(np.log(prior[1] / prior[0]))
        if getattr(model, "loss", "log_loss") == "exponential":
            bias /= 2  # the exponential loss's link is half the logit (sklearn._loss.link.HalfLogitLink)
        trees = tuple(_from_sklearn_tree(est[0].tree_, model.learning_rate) for est in model.estimators_)
        return AdditiveEnsemble(trees, bias, "GradientBoostingClassifier")
    raise TypeError(f"unsupported model {type(model).__name__}; use GradientBoostingClassifier or "
                    "HistGradientBoostingClassifier")


@dataclass(frozen=True)
class TrainedEnsemble:
    """A fitted model, its extracted ensemble and the encoded train / test data.

    Attributes
    ----------
    model : object
        The fitted scikit-learn model, or the :class:`~engine.qwyc.models.ModelFile` it was read from.
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


def _encoded_adult():
    """UCI Adult train / test as float matrices, categories ordinal-encoded on the training file (NaN kept)."""
    import pandas as pd
    from sklearn.preprocessing import OrdinalEncoder

    adult = load_public_dataset("adult")
    x_train, y_train, x_test, y_test = adult.x, adult.y, adult.x_test, adult.y_test
    cats = [c for c in x_train.columns if not pd.api.types.is_numeric_dtype(x_train[c])]
    enc = OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1)
    xtr = x_train.copy()
    xte = x_test.copy()
    xtr[cats] = enc.fit_transform(x_train[cats])
    xte[cats] = enc.transform(x_test[cats])
    return xtr.to_numpy(dtype=float), y_train, xte.to_numpy(dtype=float), y_test


def adult_gbt_sample(max_iter: int = 500) -> TrainedEnsemble:
    """The shipped Adult model (sample ``adult_gbt``), read like a user's model file, with the encoded Adult rows.

    The file holds :func:`train_adult_gbt` with :data:`ADULT_GBT`; its first ``max_iter``
    trees are exactly the model that function trains with ``max_iter`` trees (boosting adds
    trees in the same chunks, so a shorter run is a prefix of the longer one).

    Parameters
    ----------
    max_iter : int, optional
        Trees kept, 1 to 500.

    Returns
    -------
    TrainedEnsemble
        ``model`` is the :class:`~engine.qwyc.models.ModelFile`; ``fit_seconds`` is 0 (nothing trained).

    Raises
    ------
    ValueError
        ``max_iter`` outside 1 to 500.
    """
    from ..io.samples import SAMPLES, sample_path
    from .models import load_model

    if not 1 <= max_iter <= ADULT_GBT["max_iter"]:
        raise ValueError(f"max_iter must be between 1 and {ADULT_GBT['max_iter']}, not {max_iter}")
    model = load_model(sample_path("adult_gbt").read_bytes(), name=SAMPLES["adult_gbt"].file)
    full = model.ensemble
    ensemble = AdditiveEnsemble(full.trees[:max_iter], full.bias, full.source)
    if max_iter < full.n_models:
        model = type(model)(ensemble, model.feature_names, model.file_format, model.fingerprint, model.name,
                            model.float32_inputs)
    x_train, y_train, x_test, y_test = _encoded_adult()
    return TrainedEnsemble(model, ensemble, x_train, y_train, x_test, y_test, 0.0)


def train_adult_gbt(*, max_iter: int = 500, max_depth: int = 5, learning_rate: float = 0.1, seed: int = 0,
                    progress=None, chunk: int = 50) -> TrainedEnsemble:
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

    x_train, y_train, x_test, y_test = _encoded_adult()
    model = HistGradientBoostingClassifier(max_iter=0, max_depth=max_depth, learning_rate=learning_rate,
                                           early_stopping=False, warm_start=True, random_state=seed)
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

    booster: object
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
    ValueError
        More than one model per iteration (multiclass).
    """
    booster = getattr(model, "booster_", model)
    if booster.num_model_per_iteration() != 1:
        raise ValueError("only binary LightGBM models are supported")
    trees = tuple(_BoosterTree(booster, t) for t in range(booster.num_trees()))
    return AdditiveEnsemble(trees, 0.0, "lightgbm")
