"""The full ensemble's score and decisions: every base model evaluated.

QWYC (Wang, Gupta & You, *Quit When You Can: Efficient Evaluation of Ensembles with Ordering Optimization*,
arXiv:1806.11202, 2018) measures an early-exit policy against the decisions of the full ensemble: with
``F`` (N examples x T base models) the contributions, the full score is ``bias + F.sum(1)`` and the full
decision ``bias + F.sum(1) >= threshold``. Fitting, baselines, fidelity promises, policy files and the
Early exit page all take that rule from here.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError

__all__ = ["full_scores", "full_decisions"]


def _number(value, name: str) -> None:
    """``value`` is one real number (not an array, not a bool)."""
    if np.ndim(value) != 0 or np.asarray(value).dtype.kind not in "iuf":
        raise InputError(f"the {name} must be one number; got {value!r}")


def full_scores(f, bias) -> np.ndarray:
    """The full ensemble's score of every row: ``bias + F.sum(1)``.

    The sum runs in F's own precision (float32 contributions give float32 scores).

    Parameters
    ----------
    f : array_like of float, shape (N, T)
        Contributions of the T base models to the score of N examples (N may be 0).
    bias : float
        Constant of the score.

    Returns
    -------
    numpy.ndarray of float, shape (N,)
        ``bias + F.sum(1)``.

    Raises
    ------
    InputError
        F is not a (rows x models) matrix of numbers, or the bias is not one number.
    """
    f = np.asarray(f)
    if f.ndim != 2 or f.dtype.kind not in "iuf":
        raise InputError(
            f"the contributions F must be a (rows x models) matrix of numbers; got shape {f.shape} of {f.dtype}"
        )
    _number(bias, "bias")
    return bias + f.sum(axis=1)


def full_decisions(f, bias, threshold) -> np.ndarray:
    """The full ensemble's decision for every row: ``bias + F.sum(1) >= threshold``.

    A score equal to the threshold is a positive decision.

    Parameters
    ----------
    f, bias : as for :func:`full_scores`.
    threshold : float
        β: a row is positive when its full score is at least β.

    Returns
    -------
    numpy.ndarray of bool, shape (N,)
        True where ``bias + F.sum(1) >= threshold``.

    Raises
    ------
    InputError
        F is not a (rows x models) matrix of numbers, or the bias or the threshold is not one number.

    References
    ----------
    .. [1] Wang, S., Gupta, M. & You, S. (2018). *Quit When You Can: Efficient Evaluation of Ensembles with
       Ordering Optimization.* arXiv:1806.11202: the full ensemble's decision an early exit is measured against.
    """
    _number(threshold, "threshold")
    return full_scores(f, bias) >= threshold
