"""Regression trees as flat arrays: the base models every model reader produces and the evaluator runs.

A :class:`Tree` goes left when ``x[feature] <= threshold`` (NaN follows ``missing_left``);
:func:`tree_depth` checks that child arrays really form one tree (no cycle, nothing detached)
before anything walks them (Wang, Gupta & You, *Quit When You Can*, arXiv:1806.11202, 2018).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ..errors import InputError

__all__ = ["Tree", "TreeSum", "tree_depth"]


class TreeSum(Protocol):
    """What the evaluator reads of an ensemble (:class:`engine.qwyc._ensembles.AdditiveEnsemble`): base models, bias."""

    trees: Sequence
    bias: float


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
    InputError
        A child outside the tree, a node reached twice, too many unreachable nodes,
        or arrays of different lengths.
    """
    n = int(is_leaf.size)
    if n == 0 or left.size != n or right.size != n:
        raise InputError(f"the node arrays have different lengths or are empty ({left.size}, {right.size}, {n})")
    inner = np.flatnonzero(~is_leaf)
    children = np.concatenate([left[inner], right[inner]]).astype(np.int64)
    bad = (children < 0) | (children >= n)
    if bad.any():
        raise InputError(
            f"node {int(np.concatenate([inner, inner])[bad][0])} has child {int(children[bad][0])}, "
            f"outside the tree's {n} nodes"
        )
    # one parent per node and none for the root: then the walk from the root never meets a node twice
    parents = np.bincount(children, minlength=n)
    if parents[0] or (parents > 1).any():
        raise InputError("a node is reached twice (a cycle or a shared subtree)")
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
        raise InputError(f"{n - seen} of the {n} nodes are not reachable from the root (a cycle or a detached part)")
    return depth
