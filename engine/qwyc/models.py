"""A user's boosted model from a file, as trees the early-exit evaluator runs one by one.

QWYC (Wang, Gupta & You, *Quit When You Can*, arXiv:1806.11202, 2018) needs each
base model's contribution ``F[:, t]`` and an evaluator that computes only the trees
an example still needs. Supported files, read into
:class:`~engine.qwyc.ensembles.Tree` arrays so that ``bias + Σ_t F[:, t]`` equals
the model's own raw margin:

* **LightGBM** text (``Booster.save_model``): numerical splits ``x <= threshold``
  with LightGBM's missing-value rules (NaN / zero / none), initial score folded
  into the first tree;
* **XGBoost** JSON or UBJSON (``save_model("m.json")`` / ``"m.ubj"``): splits
  ``x < threshold`` on float32 features (the inputs are rounded to float32 as
  XGBoost does), ``base_score`` as the bias (logit for ``binary:logistic``);
* **scikit-learn** ``GradientBoostingClassifier`` / ``HistGradientBoostingClassifier``
  saved with skops (``.skops``), loaded with an explicit list of trusted types —
  never pickle or joblib.

Only binary models with numerical splits are read; anything else raises
:class:`~engine.errors.InputError` with what to change.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import InputError, describe_rows
from .ensembles import AdditiveEnsemble, Tree, from_sklearn

__all__ = ["ModelFile", "load_model", "model_format", "SKOPS_TRUSTED_PREFIXES"]

#: type names a skops file may contain (scikit-learn's tree ensembles, their losses and NumPy);
#: anything else is refused before loading
SKOPS_TRUSTED_PREFIXES = ("sklearn.ensemble.", "sklearn._loss.", "sklearn.tree.", "sklearn.dummy.",
                          "sklearn.preprocessing.", "sklearn.utils.", "sklearn.ensemble._hist_gradient_boosting.",
                          "numpy.", "builtins.", "collections.")

# missing-value rules of a node: NaN goes the default way / NaN is read as 0 / 0 and NaN go the default way
_MISSING_NAN, _MISSING_AS_ZERO, _MISSING_ZERO_OR_NAN = 0, 1, 2
_LIGHTGBM_ZERO = 1e-35  # LightGBM's kZeroThreshold


@dataclass(frozen=True)
class ModelFile:
    """A loaded model: its trees, the feature names it expects, its format and the file's SHA-256.

    Attributes
    ----------
    ensemble : AdditiveEnsemble
        Its trees and bias: ``bias + Σ_t F[:, t]`` is the model's raw margin.
    feature_names : tuple of str
        The feature columns the model reads, by name, in its order.
    file_format : str
        The format the file was read as.
    fingerprint : str
        SHA-256 of the file's bytes (a policy file names its model by it).
    name : str
        The file name, for messages.
    float32_inputs : bool
        Whether features are rounded to float32 before the trees compare them (XGBoost does).
    """

    ensemble: AdditiveEnsemble
    feature_names: tuple[str, ...]
    file_format: str
    fingerprint: str
    name: str = "model"
    float32_inputs: bool = False

    @property
    def n_trees(self) -> int:
        return self.ensemble.n_models

    def features(self, frame: pd.DataFrame) -> np.ndarray:
        """The model's feature columns of ``frame`` (by name, every other column ignored) as a float matrix.

        Parameters
        ----------
        frame : pandas.DataFrame
            Rows with (at least) the model's feature columns.

        Returns
        -------
        numpy.ndarray of float64, shape (rows, features)

        Raises
        ------
        InputError
            A feature column is missing, or holds text.
        """
        missing = [c for c in self.feature_names if c not in frame.columns]
        if missing:
            raise InputError(f"The data has no column {missing[0]!r}, which model '{self.name}' needs"
                             f"{f' (and {len(missing) - 1} more)' if len(missing) > 1 else ''}. The model's features "
                             f"are {', '.join(self.feature_names[:8])}{' ...' if len(self.feature_names) > 8 else ''}.")
        out = np.empty((len(frame), len(self.feature_names)))
        for j, c in enumerate(self.feature_names):
            values = pd.to_numeric(frame[c], errors="coerce")
            bad = values.isna().to_numpy() & frame[c].notna().to_numpy() & (frame[c].astype(str).str.strip() != "")
            if bad.any():
                raise InputError(f"Feature column '{c}': non-numeric values at {describe_rows(bad)}. The model was "
                                 "trained on numbers: encode categories as the training pipeline did.")
            out[:, j] = values.to_numpy(dtype=np.float64)
        if self.float32_inputs:  # XGBoost compares float32 features with float32 thresholds
            out = out.astype(np.float32).astype(np.float64)
        return out


def _predict_with_missing(tree: "_MissingAwareTree", x: np.ndarray) -> np.ndarray:
    node = np.zeros(x.shape[0], dtype=np.int64)
    rows = np.arange(x.shape[0])
    for _ in range(tree.depth):
        val = x[rows, tree.feature[node]]
        kind = tree.missing_kind[node]
        nan = np.isnan(val)
        val = np.where(nan & (kind == _MISSING_AS_ZERO), 0.0, val)
        default = (nan & (kind != _MISSING_AS_ZERO)) | ((kind == _MISSING_ZERO_OR_NAN) & (np.abs(val) <= _LIGHTGBM_ZERO))
        go_left = np.where(default, tree.missing_left[node], val <= tree.threshold[node])
        nxt = np.where(go_left, tree.left[node], tree.right[node])
        node = np.where(tree.is_leaf[node], node, nxt)
    return tree.value[node]


@dataclass(frozen=True)
class _MissingAwareTree(Tree):
    """A tree whose nodes also say how a missing value is routed (LightGBM's three rules)."""

    missing_kind: np.ndarray = None

    def predict(self, x: np.ndarray) -> np.ndarray:
        return _predict_with_missing(self, x)


def _flatten(root: dict, child_keys=("left_child", "right_child")) -> list[dict]:
    """Nodes of a nested tree in depth-first order, each with the indices of its children."""
    nodes, stack = [], [(root, -1, 0)]
    while stack:
        node, parent, side = stack.pop()
        index = len(nodes)
        nodes.append({"node": node, "left": -1, "right": -1})
        if parent >= 0:
            nodes[parent]["left" if side == 0 else "right"] = index
        if child_keys[0] in node:
            stack.append((node[child_keys[1]], index, 1))
            stack.append((node[child_keys[0]], index, 0))
    return nodes


def _lightgbm_tree(structure: dict) -> _MissingAwareTree:
    nodes = _flatten(structure)
    n = len(nodes)
    arrays = {k: np.zeros(n, dtype=t) for k, t in (("feature", np.int64), ("threshold", np.float64),
                                                    ("left", np.int64), ("right", np.int64), ("value", np.float64),
                                                    ("missing_left", bool), ("is_leaf", bool),
                                                    ("missing_kind", np.int8))}
    depth = np.zeros(n, dtype=np.int64)
    for i, item in enumerate(nodes):
        node = item["node"]
        if "leaf_value" in node:
            arrays["is_leaf"][i], arrays["value"][i] = True, node["leaf_value"]
            continue
        if node.get("decision_type", "<=") != "<=":
            raise InputError("The LightGBM model has categorical splits; train it with the categories encoded as "
                             "numbers (no categorical_feature) to use it here.")
        arrays["feature"][i], arrays["threshold"][i] = node["split_feature"], node["threshold"]
        arrays["left"][i], arrays["right"][i] = item["left"], item["right"]
        depth[item["left"]] = depth[item["right"]] = depth[i] + 1
        arrays["missing_left"][i] = bool(node.get("default_left", True))
        arrays["missing_kind"][i] = {"NaN": _MISSING_NAN, "None": _MISSING_AS_ZERO,
                                     "Zero": _MISSING_ZERO_OR_NAN}[node.get("missing_type", "None")]
    return _MissingAwareTree(depth=int(depth.max()), **arrays)


def _load_lightgbm(raw: bytes, name: str) -> tuple[AdditiveEnsemble, tuple[str, ...], bool]:
    try:
        import lightgbm
    except ImportError:
        raise InputError("Reading LightGBM models needs the lightgbm package (pip install lightgbm).") from None
    try:
        booster = lightgbm.Booster(model_str=raw.decode("utf-8"))
    except Exception as exc:  # LightGBMError and decoding errors
        raise InputError(f"'{name}' is not a readable LightGBM model ({str(exc)[:120]}).") from None
    dump = booster.dump_model()
    if dump.get("num_tree_per_iteration", 1) != 1 or not str(dump.get("objective", "binary")).startswith("binary"):
        raise InputError(f"'{name}' is a {dump.get('objective', '?')} LightGBM model; only binary classifiers "
                         "(objective binary) are supported.")
    trees = tuple(_lightgbm_tree(t["tree_structure"]) for t in dump["tree_info"])
    return AdditiveEnsemble(trees, 0.0, "lightgbm"), tuple(dump["feature_names"]), False


def _xgboost_tree(tree: dict) -> Tree:
    left = np.asarray(tree["left_children"], dtype=np.int64)
    right = np.asarray(tree["right_children"], dtype=np.int64)
    if any(tree.get("split_type", [])):
        raise InputError("The XGBoost model has categorical splits; encode categories as numbers to use it here.")
    is_leaf = left < 0
    cond = np.asarray(tree["split_conditions"], dtype=np.float32)
    # x < t on float32  <=>  x <= the largest float32 below t
    below = np.nextafter(cond, np.float32(-np.inf)).astype(np.float64)
    left_i, right_i = np.where(is_leaf, 0, left), np.where(is_leaf, 0, right)
    depth = np.zeros(left.size, dtype=np.int64)
    for i in range(left.size):  # XGBoost numbers children after their parents
        if not is_leaf[i]:
            depth[left_i[i]] = depth[right_i[i]] = depth[i] + 1
    return Tree(feature=np.asarray(tree["split_indices"], dtype=np.int64), threshold=below, left=left_i,
                right=right_i, value=np.where(is_leaf, cond.astype(np.float64), 0.0),
                missing_left=np.asarray(tree["default_left"], dtype=bool), is_leaf=is_leaf, depth=int(depth.max()))


def _xgboost_json(raw: bytes, name: str) -> dict:
    try:
        return json.loads(raw)
    except ValueError:  # UBJSON (binary) or broken: let XGBoost read it
        pass
    try:
        import xgboost
    except ImportError:
        raise InputError("Reading XGBoost UBJSON needs the xgboost package (pip install xgboost-cpu), or save the "
                         "model as JSON (save_model('m.json')).") from None
    try:
        booster = xgboost.Booster()
        booster.load_model(bytearray(raw))
        return json.loads(booster.save_raw("json"))
    except Exception as exc:  # XGBoostError
        raise InputError(f"'{name}' is not a readable XGBoost model ({str(exc)[:120]}).") from None


def _load_xgboost(raw: bytes, name: str) -> tuple[AdditiveEnsemble, tuple[str, ...], bool]:
    learner = _xgboost_json(raw, name).get("learner", {})
    objective = learner.get("objective", {}).get("name", "?")
    if objective not in ("binary:logistic", "binary:logitraw", "reg:logistic"):
        raise InputError(f"'{name}' is an XGBoost model with objective {objective!r}; only binary classifiers "
                         "(binary:logistic, binary:logitraw) are supported.")
    booster = learner["gradient_booster"]
    if booster.get("name") != "gbtree":
        raise InputError(f"'{name}': only tree boosters (gbtree) are supported, not {booster.get('name')!r}.")
    base = float(str(learner["learner_model_param"]["base_score"]).strip("[]"))
    bias = math.log(base / (1 - base)) if objective != "binary:logitraw" else base
    trees = tuple(_xgboost_tree(t) for t in booster["model"]["trees"])
    n_features = int(learner["learner_model_param"]["num_feature"])
    names = tuple(learner.get("feature_names") or [f"f{j}" for j in range(n_features)])
    return AdditiveEnsemble(trees, float(np.float32(bias)), "xgboost"), names, True


def _load_skops(raw: bytes, name: str) -> tuple[AdditiveEnsemble, tuple[str, ...], bool]:
    try:
        import skops.io as sio
    except ImportError:
        raise InputError("Reading .skops models needs the skops package (pip install skops).") from None
    try:
        types = sio.get_untrusted_types(data=raw)
    except Exception as exc:
        raise InputError(f"'{name}' is not a readable skops file ({str(exc)[:120]}).") from None
    refused = [t for t in types if not t.startswith(SKOPS_TRUSTED_PREFIXES)]
    if refused:
        raise InputError(f"'{name}' contains types that are not trusted here: {', '.join(refused[:5])}. Only "
                         "scikit-learn gradient boosting models (and NumPy arrays) are loaded.")
    model = sio.loads(raw, trusted=types)
    try:
        ensemble = from_sklearn(model)
    except (TypeError, ValueError) as exc:
        raise InputError(f"'{name}': {exc}") from None
    names = getattr(model, "feature_names_in_", None)
    n = int(getattr(model, "n_features_in_", 0))
    return ensemble, tuple(str(c) for c in names) if names is not None else tuple(f"x{j}" for j in range(n)), False


def model_format(raw: bytes) -> str | None:
    """"lightgbm", "xgboost" or "skops" from a file's first bytes, or None."""
    head = raw[:4096]
    if head.startswith(b"tree\n") or b"\nversion=v" in head[:200]:
        return "lightgbm"
    if head[:2] == b"PK" and b"schema.json" in raw[-4096:] + head:
        return "skops"
    if head.lstrip()[:1] == b"{" and b'"learner"' in raw[:200_000]:
        return "xgboost"
    if head[:1] == b"{" and b"learner" in head:  # UBJSON object with a learner key
        return "xgboost"
    return None


def load_model(raw: bytes, *, name: str = "model") -> ModelFile:
    """Read a LightGBM text, XGBoost JSON/UBJSON or skops model file into trees.

    Parameters
    ----------
    raw : bytes
        The file's content.
    name : str
        The file name, for messages.

    Returns
    -------
    ModelFile

    Raises
    ------
    InputError
        Not one of the supported formats, not a binary classifier, categorical splits, or
        (skops) types outside :data:`SKOPS_TRUSTED_PREFIXES`.
    """
    kind = model_format(raw)
    loaders = {"lightgbm": _load_lightgbm, "xgboost": _load_xgboost, "skops": _load_skops}
    if kind is None:
        raise InputError(f"'{name}' is not a model file this studio reads: save a LightGBM model with "
                         "booster.save_model('model.txt'), an XGBoost model with save_model('model.json'), or a "
                         "scikit-learn gradient boosting model with skops.io.dump(model, 'model.skops').")
    ensemble, features, float32 = loaders[kind](raw, name)
    return ModelFile(ensemble, features, kind, hashlib.sha256(raw).hexdigest(), name, float32)
