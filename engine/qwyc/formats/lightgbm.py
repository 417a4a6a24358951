"""LightGBM text models (``Booster.save_model``), parsed and checked here: no byte reaches LightGBM's library.

LightGBM's own parser trusts its input (a truncated file, a non-numeric threshold,
an out-of-range ``split_feature`` or a huge ``num_leaves`` crash the process), so the
text is read by this module: the header, then each ``Tree=`` block up to
``end of trees``. Every array length must agree with ``num_leaves``, children must
form one tree (each node reached once from the root), features must be in range,
thresholds numbers (±inf allowed: LightGBM writes ``inf`` for a split that only separates
missing values) and leaf values finite, and ``decision_type`` must hold a known missing
rule (LightGBM ``tree.h``: bit 0 categorical, bit 1 default left, bits 2-3 the
missing type None / Zero / NaN). A node sends ``x`` left when ``x <= threshold``,
with LightGBM's missing-value rules (``Tree::NumericalDecision``): NaN is read as 0
unless the missing type is NaN, and values that are missing under the node's type
(NaN, or |x| <= 1e-35 for Zero) go the default way. The initial score is folded into
the first tree by LightGBM, so the bias is 0 and the trees sum to the raw score.

Refused, with the kind named: multiclass or non-binary objectives, categorical
splits, ``linear_tree`` (leaves are linear models) and random forests
(``boosting=rf`` averages its trees).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import InputError
from .._ensembles import AdditiveEnsemble, Tree, tree_depth
from ._common import MAX_FEATURES, MAX_TREE_NODES, ReadModel, check_counts, check_size, checked_tree, refuse

__all__ = ["read_lightgbm"]

KEY = "lightgbm"
# missing-value rules of a node (LightGBM's MissingType): None (NaN read as 0), Zero (0 and NaN go the
# default way), NaN (NaN goes the default way)
_MISSING_NONE, _MISSING_ZERO, _MISSING_NAN = 0, 1, 2
_ZERO = 1e-35  # LightGBM's kZeroThreshold


def _predict_with_missing(tree: MissingAwareTree, x: np.ndarray) -> np.ndarray:
    node = np.zeros(x.shape[0], dtype=np.int64)
    rows = np.arange(x.shape[0])
    for _ in range(tree.depth):
        val = x[rows, tree.feature[node]]
        kind = tree.missing_kind[node]
        nan = np.isnan(val)
        val = np.where(nan & (kind != _MISSING_NAN), 0.0, val)
        default = (nan & (kind == _MISSING_NAN)) | ((kind == _MISSING_ZERO) & (np.abs(val) <= _ZERO))
        go_left = np.where(default, tree.missing_left[node], val <= tree.threshold[node])
        nxt = np.where(go_left, tree.left[node], tree.right[node])
        node = np.where(tree.is_leaf[node], node, nxt)
    return tree.value[node]


@dataclass(frozen=True)
class MissingAwareTree(Tree):
    """A tree whose nodes also say how a missing value is routed (LightGBM's three missing types)."""

    missing_kind: np.ndarray = None  # type: ignore[assignment]

    def predict(self, x: np.ndarray) -> np.ndarray:
        return _predict_with_missing(self, x)


def _fields(lines: list[str], start: int, stop_prefixes: tuple[str, ...]) -> tuple[dict[str, str], int]:
    """``key=value`` lines from ``start`` until a line starting with one of ``stop_prefixes``."""
    out, i = {}, start
    while i < len(lines) and not lines[i].startswith(stop_prefixes):
        line = lines[i]
        if line:
            key, _, value = line.partition("=")
            out[key.strip()] = value.strip()
        i += 1
    return out, i


def _int(fields: dict, key: str, where: str, name: str, default: str | None = None) -> int:
    text = fields.get(key, default)
    if text is None:
        raise refuse(name, KEY, f"{where} has no '{key}=' line")
    try:
        return int(text)
    except ValueError:
        raise refuse(name, KEY, f"{where}: '{key}={text[:40]}' is not an integer") from None


def _array(fields: dict, key: str, size: int, dtype, where: str, name: str) -> np.ndarray:
    tokens = fields.get(key)
    if tokens is None:
        raise refuse(name, KEY, f"{where} has no '{key}=' line")
    parts = tokens.split() if tokens else []
    if len(parts) != size:
        raise refuse(name, KEY, f"{where}: '{key}' has {len(parts):,} values, but num_leaves says {size:,}")
    try:
        values = np.array(parts, dtype=dtype) if parts else np.zeros(0, dtype=dtype)
    except (ValueError, OverflowError):
        bad = next(p for p in parts if not _parses(p, dtype))
        kind = "an integer" if dtype is np.int64 else "a number"
        raise refuse(name, KEY, f"{where}: '{key}' holds {bad[:40]!r}, not {kind}") from None
    # thresholds may be ±inf (a split that only separates missing values); leaf values must be finite
    bad = (np.isnan(values) if key == "threshold" else ~np.isfinite(values)) if dtype is np.float64 else None
    if bad is not None and bad.any():
        raise refuse(
            name,
            KEY,
            f"{where}: '{key}' holds {parts[int(np.flatnonzero(bad)[0])][:40]!r}, "
            f"not a {'number' if key == 'threshold' else 'finite number'}",
        )
    return values


def _parses(token: str, dtype) -> bool:
    try:
        np.array([token], dtype=dtype)
        return True
    except (ValueError, OverflowError):
        return False


def _tree(fields: dict, index: int, n_features: int, name: str) -> MissingAwareTree:
    where = f"tree {index}"
    leaves = _int(fields, "num_leaves", where, name)
    if not 1 <= leaves <= MAX_TREE_NODES // 2:
        raise refuse(name, KEY, f"{where}: num_leaves={leaves:,}; between 1 and {MAX_TREE_NODES // 2:,} are read")
    if _int(fields, "num_cat", where, name, "0") != 0:
        raise InputError(
            f"'{name}' is a LightGBM model with categorical splits, which are not supported: train it "
            "with the categories encoded as numbers (no categorical_feature)."
        )
    if fields.get("is_linear", "0") != "0":
        raise InputError(
            f"'{name}' is a LightGBM linear_tree model (leaves are linear models), whose trees this "
            "evaluator cannot reproduce: train it without linear_tree."
        )
    value_at_leaves = _array(fields, "leaf_value", leaves, np.float64, where, name)
    if leaves == 1:
        return MissingAwareTree(
            feature=np.zeros(1, np.int64),
            threshold=np.zeros(1),
            left=np.zeros(1, np.int64),
            right=np.zeros(1, np.int64),
            value=value_at_leaves,
            missing_left=np.zeros(1, bool),
            is_leaf=np.ones(1, bool),
            depth=0,
            missing_kind=np.zeros(1, np.int8),
        )
    inner = leaves - 1
    split_feature = _array(fields, "split_feature", inner, np.int64, where, name)
    threshold = _array(fields, "threshold", inner, np.float64, where, name)
    decision = _array(fields, "decision_type", inner, np.int64, where, name)
    left_child = _array(fields, "left_child", inner, np.int64, where, name)
    right_child = _array(fields, "right_child", inner, np.int64, where, name)
    if ((decision < 0) | (decision > 15)).any():
        raise refuse(
            name,
            KEY,
            f"{where}: decision_type {int(decision[(decision < 0) | (decision > 15)][0])} is not one LightGBM writes",
        )
    if (decision & 1).any():
        raise InputError(
            f"'{name}' is a LightGBM model with categorical splits, which are not supported: train it "
            "with the categories encoded as numbers (no categorical_feature)."
        )
    missing = (decision >> 2) & 3
    if (missing == 3).any():
        raise refuse(name, KEY, f"{where}: a decision_type has missing type 3, which LightGBM does not define")
    # internal nodes keep their numbers 0..L-2, leaf j becomes node L-1+j (LightGBM writes a leaf child as ~j)
    children = np.concatenate([left_child, right_child])
    out = ((children >= 0) & (children >= inner)) | ((children < 0) & (~children >= leaves))
    if out.any():
        raise refuse(name, KEY, f"{where}: child {int(children[out][0])} does not exist (num_leaves={leaves})")
    renumber = np.where(children >= 0, children, inner + ~children)
    is_leaf = np.r_[np.zeros(inner, bool), np.ones(leaves, bool)]
    left = np.r_[renumber[:inner], np.zeros(leaves, np.int64)]
    right = np.r_[renumber[inner:], np.zeros(leaves, np.int64)]
    try:
        depth = tree_depth(left, right, is_leaf)
    except ValueError as exc:
        raise refuse(name, KEY, f"{where}: the children do not form a tree ({exc})") from None
    tree = MissingAwareTree(
        feature=np.r_[split_feature, np.zeros(leaves, np.int64)],
        threshold=np.r_[threshold, np.zeros(leaves)],
        left=left,
        right=right,
        value=np.r_[np.zeros(inner), value_at_leaves],
        missing_left=np.r_[(decision & 2).astype(bool), np.zeros(leaves, bool)],
        is_leaf=is_leaf,
        depth=depth,
        missing_kind=np.r_[missing.astype(np.int8), np.zeros(leaves, np.int8)],
    )
    try:
        return checked_tree(tree, n_features, where)  # type: ignore[return-value]
    except ValueError as exc:
        raise refuse(name, KEY, str(exc)) from None


def read_lightgbm(raw: bytes, name: str) -> ReadModel:
    """Read a LightGBM text model into trees whose sum is LightGBM's raw score.

    Parameters
    ----------
    raw : bytes
        The file (``Booster.save_model`` / ``model_to_string``).
    name : str
        The file name, for messages.

    Returns
    -------
    ReadModel
        The trees (bias 0: LightGBM folds the initial score into the first tree) and feature names.

    Raises
    ------
    InputError
        Not UTF-8 text, truncated (no ``end of trees``), an inconsistent or out-of-range value
        (named with its tree and field), or a kind the evaluator cannot reproduce exactly
        (multiclass, non-binary objective, categorical splits, linear_tree, random forest).
    """
    check_size(raw, name, KEY)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise refuse(name, KEY, f"byte {exc.start} is not UTF-8 text") from None
    lines = text.replace("\r\n", "\n").split("\n")
    if not lines or lines[0].strip() != "tree":
        raise refuse(name, KEY, "the first line is not 'tree'")
    header, i = _fields(lines, 1, ("Tree=", "end of trees"))
    if i == len(lines) or "end of trees" not in lines[i:]:
        raise refuse(name, KEY, "the file ends before 'end of trees' (it is truncated)")
    classes = _int(header, "num_class", "the header", name)
    per_iteration = _int(header, "num_tree_per_iteration", "the header", name, "1")
    objective = header.get("objective", "").split(" ")[0]
    if classes != 1 or per_iteration != 1 or objective != "binary":
        raise InputError(
            f"'{name}' is a LightGBM model with objective {objective or '?'!r} and {classes} classes; "
            "only binary classifiers (objective binary) are supported."
        )
    if "average_output" in header:
        raise InputError(
            f"'{name}' is a LightGBM random forest (boosting rf averages its trees rather than "
            "summing them); only boosted models (gbdt, dart, goss) are supported."
        )
    max_feature = _int(header, "max_feature_idx", "the header", name)
    if not 0 <= max_feature < MAX_FEATURES:
        raise refuse(name, KEY, f"max_feature_idx={max_feature:,} is outside 0..{MAX_FEATURES - 1:,}")
    n_features = max_feature + 1
    names = header.get("feature_names", "").split()
    if len(names) != n_features:
        raise refuse(name, KEY, f"feature_names lists {len(names):,} names, but max_feature_idx says {n_features:,}")
    blocks, end = [], lines.index("end of trees", i)
    while i < end:
        title = lines[i]
        fields, i = _fields(lines, i + 1, ("Tree=", "end of trees"))
        blocks.append((title, fields))
    for k, (title, _) in enumerate(blocks):
        if title != f"Tree={k}":
            raise refuse(name, KEY, f"tree block {k} is headed {title[:40]!r}, not 'Tree={k}'")
    leaves = [_int(f, "num_leaves", f"tree {k}", name) for k, (_, f) in enumerate(blocks)]
    check_counts(len(blocks), sum(2 * max(v, 0) for v in leaves), n_features, name, KEY)
    if "tree_sizes" in header and len(header["tree_sizes"].split()) != len(blocks):
        raise refuse(
            name,
            KEY,
            f"tree_sizes lists {len(header['tree_sizes'].split()):,} trees, but the file holds {len(blocks):,}",
        )
    trees = tuple(_tree(fields, k, n_features, name) for k, (_, fields) in enumerate(blocks))
    return ReadModel(AdditiveEnsemble(trees, 0.0, "lightgbm"), tuple(names), False)
