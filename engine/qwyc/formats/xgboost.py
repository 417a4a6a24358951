"""XGBoost JSON and UBJSON models (``save_model('m.json')`` / ``'m.ubj'``), decoded and checked here.

No byte reaches XGBoost's library: JSON goes through :func:`engine.untrusted.parse_json`
(size and nesting limits), UBJSON through :func:`~engine.qwyc.formats.ubjson.decode_ubjson`,
and the schema is checked field by field: ``learner_model_param`` (``num_feature``,
``num_class``, ``num_target``, ``base_score`` valid for the objective), the booster
kind, and every tree — array lengths equal to ``num_nodes``, children in range and
forming one tree, split indices in ``[0, num_feature)``, finite split conditions and
leaf values. A node sends ``x`` left when ``x < condition`` on float32 values (the
inputs are rounded to float32 as XGBoost's DMatrix does; ``x < c`` is ``x <= the
largest float32 below c``); a missing value goes the node's default way. The bias is
``base_score`` in margin space (its logit for the logistic objectives).

Refused, with the kind named: objectives other than binary logistic / logitraw,
``gblinear``, ``dart`` (its ``weight_drop`` scales trees at prediction), multi-class,
multi-target and categorical splits.
"""

from __future__ import annotations

import math

import numpy as np

from ...errors import InputError
from ...untrusted import parse_json
from .._ensembles import AdditiveEnsemble, Tree, tree_depth
from ._common import MAX_FEATURES, MAX_TREE_NODES, ReadModel, check_counts, check_size, checked_tree, refuse
from .ubjson import decode_ubjson

__all__ = ["read_xgboost"]

KEY = "xgboost"
_OBJECTIVES = ("binary:logistic", "binary:logitraw", "reg:logistic")
_JSON_MAX_BYTES = 256 * 1024 * 1024


class _Bad(Exception):
    """A schema problem: the message says which field."""


def _get(obj, key: str, path: str, kind=dict):
    if not isinstance(obj, dict):
        raise _Bad(f"'{path or '(the file)'}' is not an object")
    if key not in obj:
        raise _Bad(f"'{path or '(the file)'}' has no '{key}'")
    value = obj[key]
    if kind is not None and not isinstance(value, kind):
        field = f"{path}.{key}" if path else key
        raise _Bad(f"'{field}' is not {'an object' if kind is dict else 'a list' if kind is list else 'a string'}")
    return value


def _int_text(value, path: str) -> int:
    """XGBoost writes most parameters as strings ("5"); integers are accepted too, bools and floats not."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise _Bad(f"'{path}' is {value!r:.40}, not an integer")
    try:
        return int(value)
    except ValueError:
        raise _Bad(f"'{path}' is {value!r:.40}, not an integer") from None


def _array(tree: dict, key: str, n: int, kind: str, path: str) -> np.ndarray:
    """A tree array of ``n`` values: ``kind`` "int" (bools refused), "flag" (0/1 or bool) or "float"."""
    value = _get(tree, key, path, None)
    if not isinstance(value, (list, np.ndarray)):
        raise _Bad(f"'{path}.{key}' is not a list")
    if len(value) != n:
        raise _Bad(f"'{path}.{key}' has {len(value):,} values, but the tree has {n:,} nodes")
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError):
        raise _Bad(f"'{path}.{key}' is not a list of numbers") from None
    if n == 0:
        return arr.astype(np.float64 if kind == "float" else np.int64)
    ok = {"int": "iu", "flag": "iub", "float": "iuf"}[kind]
    if arr.ndim != 1 or arr.dtype.kind not in ok:
        raise _Bad(f"'{path}.{key}' holds values that are not {'integers' if kind != 'float' else 'numbers'}")
    if kind == "flag" and not ((arr == 0) | (arr == 1)).all():
        raise _Bad(f"'{path}.{key}' holds values other than 0 and 1")
    return arr


def _tree(tree, t: int, n_features: int) -> Tree:
    path = f"trees[{t}]"
    if not isinstance(tree, dict):
        raise _Bad(f"'{path}' is not an object")
    param = _get(tree, "tree_param", path)
    n = _int_text(_get(param, "num_nodes", f"{path}.tree_param", None), f"{path}.tree_param.num_nodes")
    if not 1 <= n <= MAX_TREE_NODES:
        raise _Bad(f"'{path}.tree_param.num_nodes' is {n:,}; between 1 and {MAX_TREE_NODES:,} are read")
    if _int_text(param.get("size_leaf_vector", "1"), f"{path}.tree_param.size_leaf_vector") > 1:
        raise InputError("multi-target trees (vector leaves)")
    deleted = _int_text(param.get("num_deleted", "0"), f"{path}.tree_param.num_deleted")
    left = _array(tree, "left_children", n, "int", path).astype(np.int64)
    right = _array(tree, "right_children", n, "int", path).astype(np.int64)
    index = _array(tree, "split_indices", n, "int", path).astype(np.int64)
    cond = _array(tree, "split_conditions", n, "float", path).astype(np.float64)
    default_left = _array(tree, "default_left", n, "flag", path).astype(bool)
    if "split_type" in tree and _array(tree, "split_type", n, "int", path).any():
        raise InputError("categorical splits")
    if any(len(tree.get(k, [])) for k in ("categories", "categories_nodes")):
        raise InputError("categorical splits")
    is_leaf = left == -1
    if not np.array_equal(is_leaf, right == -1):
        node = int(np.flatnonzero(is_leaf != (right == -1))[0])
        raise _Bad(f"'{path}' node {node} has one child only (left {int(left[node])}, right {int(right[node])})")
    if not 0 <= deleted < n:
        raise _Bad(f"'{path}.tree_param.num_deleted' is {deleted:,}, outside 0..{n - 1:,}")
    try:
        depth = tree_depth(left, right, is_leaf, unreachable=deleted)
    except ValueError as exc:
        raise _Bad(f"'{path}': the children do not form a tree ({exc})") from None
    with np.errstate(over="ignore"):  # a value beyond float32 becomes inf, refused next
        cond32 = cond.astype(np.float32)
    if not np.isfinite(cond32).all():
        node = int(np.flatnonzero(~np.isfinite(cond32))[0])
        raise _Bad(f"'{path}.split_conditions[{node}]' is {float(cond[node])!r}, not a finite float32")
    # x < c on float32  <=>  x <= the largest float32 below c
    below = np.nextafter(cond32, np.float32(-np.inf)).astype(np.float64)
    zero = np.zeros(n, np.int64)
    built = Tree(
        feature=np.where(is_leaf, 0, index),
        threshold=np.where(is_leaf, 0.0, below),
        left=np.where(is_leaf, zero, left),
        right=np.where(is_leaf, zero, right),
        value=np.where(is_leaf, cond32.astype(np.float64), 0.0),
        missing_left=default_left,
        is_leaf=is_leaf,
        depth=depth,
    )
    if deleted:  # only the nodes reachable from the root are checked and evaluated
        reach = np.zeros(n, bool)
        reach[0] = True
        for i in range(n):
            if reach[i] and not is_leaf[i]:
                reach[left[i]] = reach[right[i]] = True
        built = Tree(
            **{
                **built.__dict__,
                "is_leaf": built.is_leaf | ~reach,
                "value": np.where(reach, built.value, 0.0),
                "feature": np.where(reach, built.feature, 0),
                "threshold": np.where(reach, built.threshold, 0.0),
            }
        )
    try:
        return checked_tree(built, n_features, f"tree {t}")
    except ValueError as exc:
        raise _Bad(str(exc)) from None


def _base_margin(learner_param: dict, objective: str) -> float:
    text = _get(learner_param, "base_score", "learner.learner_model_param", None)
    if isinstance(text, bool) or not isinstance(text, (str, int, float)):
        raise _Bad("'learner.learner_model_param.base_score' is not a number")
    parts = str(text).strip().strip("[]").split(",")
    if len(parts) != 1:
        raise InputError("multi-target models (several base scores)")
    try:
        base = float(parts[0])
    except ValueError:
        raise _Bad(f"'learner.learner_model_param.base_score' is {text!r:.40}, not a number") from None
    if not math.isfinite(base):
        raise _Bad(f"'learner.learner_model_param.base_score' is {text!r:.40}, not a finite number")
    if objective == "binary:logitraw":
        return float(np.float32(base))
    if not 0 < base < 1:
        raise _Bad(
            f"'learner.learner_model_param.base_score' is {base:g}; objective {objective} needs a "
            "probability strictly between 0 and 1"
        )
    return float(np.float32(math.log(base / (1 - base))))


def _schema(doc, name: str) -> ReadModel:
    learner = _get(doc, "learner", "")
    objective = _get(_get(learner, "objective", "learner"), "name", "learner.objective", str)
    if objective not in _OBJECTIVES:
        raise InputError(
            f"'{name}' is an XGBoost model with objective {objective[:60]!r}; only binary classifiers "
            "(binary:logistic, binary:logitraw) are supported."
        )
    param = _get(learner, "learner_model_param", "learner")
    n_features = _int_text(
        _get(param, "num_feature", "learner.learner_model_param", None), "learner.learner_model_param.num_feature"
    )
    if not 1 <= n_features <= MAX_FEATURES:
        raise _Bad(
            f"'learner.learner_model_param.num_feature' is {n_features:,}; between 1 and {MAX_FEATURES:,} are read"
        )
    if _int_text(param.get("num_class", "0"), "learner.learner_model_param.num_class") > 1:
        raise InputError("multi-class models")
    if _int_text(param.get("num_target", "1"), "learner.learner_model_param.num_target") > 1:
        raise InputError("multi-target models")
    bias = _base_margin(param, objective)
    booster = _get(learner, "gradient_booster", "learner")
    kind = _get(booster, "name", "learner.gradient_booster", str)
    if kind in ("dart", "gblinear"):
        raise InputError(
            f"{kind} boosters"
            + (" (weight_drop scales the trees at prediction)" if kind == "dart" else " (a linear model, no trees)")
        )
    if kind != "gbtree":
        raise _Bad(f"'learner.gradient_booster.name' is {kind[:40]!r}, not gbtree")
    model = _get(booster, "model", "learner.gradient_booster")
    trees = _get(model, "trees", "learner.gradient_booster.model", list)
    cats = model.get("cats", {})
    if isinstance(cats, dict) and any(len(v) for v in cats.values() if isinstance(v, (list, np.ndarray))):
        raise InputError("categorical features")
    info = model.get("tree_info", [])
    if isinstance(info, (list, np.ndarray)) and len(info) and np.any(np.asarray(info) != 0):
        raise InputError("multi-class models (trees for several outputs)")
    total = 0
    for t, tree in enumerate(trees):  # count the nodes before any array is built
        param = tree.get("tree_param") if isinstance(tree, dict) else None
        if isinstance(param, dict) and "num_nodes" in param:
            total += max(_int_text(param["num_nodes"], f"trees[{t}].tree_param.num_nodes"), 0)
    check_counts(len(trees), total, n_features, name, KEY)
    types = learner.get("feature_types") or []
    if isinstance(types, list) and "c" in types:
        raise InputError("categorical features")
    names = learner.get("feature_names") or [f"f{j}" for j in range(n_features)]
    if not isinstance(names, list) or len(names) != n_features or not all(isinstance(c, str) for c in names):
        raise _Bad(f"'learner.feature_names' is not a list of {n_features:,} names")
    built = tuple(_tree(tree, t, n_features) for t, tree in enumerate(trees))
    return ReadModel(AdditiveEnsemble(built, bias, "xgboost"), tuple(names), True)


def read_xgboost(raw: bytes, name: str) -> ReadModel:
    """Read an XGBoost JSON or UBJSON model into trees whose sum plus the bias is XGBoost's margin.

    Parameters
    ----------
    raw : bytes
        The file (``Booster.save_model('m.json')`` or ``'m.ubj'``).
    name : str
        The file name, for messages.

    Returns
    -------
    ReadModel
        The trees, the bias (base score as a margin), the feature names (``f0``... when the
        model has none); inputs are rounded to float32.

    Raises
    ------
    InputError
        Malformed JSON/UBJSON, a missing or invalid field (named by its path), or a kind the
        evaluator cannot reproduce exactly (objective, dart, gblinear, multi-class,
        multi-target, categorical).
    """
    check_size(raw, name, KEY)
    what = f"XGBoost model '{name}'"
    if raw.lstrip()[:1] == b"{" and raw.lstrip()[1:2] in (b'"', b"\n", b"\r", b" ", b"\t", b"}"):
        # XGBoost itself writes NaN into some models (categorical splits); the schema checks every number
        doc = parse_json(raw, what=what, max_bytes=_JSON_MAX_BYTES, allow_nan=True)
    else:
        doc = decode_ubjson(raw, what=what)
    try:
        return _schema(doc, name)
    except _Bad as exc:
        raise refuse(name, KEY, str(exc)) from None
    except InputError as exc:
        if str(exc).startswith("'"):
            raise
        raise InputError(
            f"'{name}' is an XGBoost model with {exc}, which early exit does not support: train a "
            "binary gbtree model on numeric features."
        ) from None
