"""What every model reader shares: the result type, the limits, the checks of a tree's values and the messages."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import InputError
from ...io._model_formats import model_format_by_key
from .._ensembles import AdditiveEnsemble, Tree

#: largest model file read (bytes)
MAX_MODEL_BYTES = 256 * 1024 * 1024
#: most trees in a model
MAX_TREES = 100_000
#: most nodes in one tree (LightGBM's own limit on leaves is 131,072)
MAX_TREE_NODES = 2 * 131_072
#: most nodes over all trees (about 60 bytes each once read)
MAX_TOTAL_NODES = 20_000_000
#: most features a model may test
MAX_FEATURES = 1_000_000
#: deepest tree (the evaluator makes one pass over the rows per level)
MAX_TREE_DEPTH = 10_000


@dataclass(frozen=True)
class ReadModel:
    """What a reader returns: the trees, the feature names, and whether inputs are rounded to float32."""

    ensemble: AdditiveEnsemble
    feature_names: tuple[str, ...]
    float32_inputs: bool = False


def refuse(name: str, key: str, detail: str) -> InputError:
    """The error for a damaged or unsupported file: what is wrong, and how to save a file that works."""
    return InputError(
        f"'{name}' is not a readable {model_format_by_key(key).title} model: {detail}. Save "
        f"{model_format_by_key(key).how_to_save} again (an unedited file), or see which models "
        "are supported in the Early exit help."
    )


def check_size(raw: bytes, name: str, key: str) -> None:
    """Refuse a file over :data:`MAX_MODEL_BYTES`."""
    if len(raw) > MAX_MODEL_BYTES:
        raise refuse(
            name,
            key,
            f"the file is {len(raw) / 2**20:,.0f} MB, over the {MAX_MODEL_BYTES / 2**20:,.0f} MB read for a model",
        )


def check_counts(n_trees: int, nodes: int, n_features: int, name: str, key: str) -> None:
    """Refuse models over the tree, node and feature limits before their arrays are built."""
    if n_trees < 1:
        raise refuse(name, key, "it holds no trees")
    if n_trees > MAX_TREES:
        raise refuse(name, key, f"it holds {n_trees:,} trees; at most {MAX_TREES:,} are read")
    if nodes > MAX_TOTAL_NODES:
        raise refuse(name, key, f"its trees hold {nodes:,} nodes; at most {MAX_TOTAL_NODES:,} are read")
    if not 1 <= n_features <= MAX_FEATURES:
        raise refuse(name, key, f"it declares {n_features:,} features; between 1 and {MAX_FEATURES:,} are read")


def checked_tree(tree: Tree, n_features: int, where: str) -> Tree:
    """Check a built tree's values (features in range, finite thresholds and leaf values, sane depth).

    Parameters
    ----------
    tree : Tree
        A tree whose structure :func:`~engine.qwyc._ensembles.tree_depth` has checked.
    n_features : int
        Number of features the model declares.
    where : str
        ``"tree 7"``, for messages.

    Returns
    -------
    Tree
        The same tree.

    Raises
    ------
    InputError
        A split on a feature outside ``[0, n_features)``, a NaN threshold, a non-finite leaf
        value, or a tree deeper than :data:`MAX_TREE_DEPTH`.
    """
    inner = ~tree.is_leaf
    feature = tree.feature[inner]
    bad = (feature < 0) | (feature >= n_features)
    if bad.any():
        node = int(np.flatnonzero(inner)[bad][0])
        raise InputError(
            f"{where}, node {node} splits on feature {int(tree.feature[node])}, but the model has "
            f"{n_features} features (0 to {n_features - 1})"
        )
    # ±inf is a real threshold (LightGBM writes 'inf' for a split that only separates missing values)
    if np.isnan(tree.threshold[inner]).any():
        node = int(np.flatnonzero(inner)[np.isnan(tree.threshold[inner])][0])
        raise InputError(f"{where}, node {node} has threshold NaN, not a number")
    if not np.isfinite(tree.value[tree.is_leaf]).all():
        raise InputError(f"{where} has a leaf value that is not a finite number")
    if tree.depth > MAX_TREE_DEPTH:
        raise InputError(f"{where} is {tree.depth:,} levels deep; at most {MAX_TREE_DEPTH:,} are read")
    return tree
