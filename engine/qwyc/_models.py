"""A user's boosted model from a file, as trees the early-exit evaluator runs one by one.

QWYC (Wang, Gupta & You, *Quit When You Can*, arXiv:1806.11202, 2018) needs each
base model's contribution ``F[:, t]`` and an evaluator that computes only the trees
an example still needs. The formats are listed once, in
:data:`engine.io._model_formats.MODEL_FORMATS` (title, extensions, sniffer, how to
save); each has its reader in :mod:`engine.qwyc.formats`, which returns
:class:`~engine.qwyc._ensembles.Tree` arrays so that ``bias + Σ_t F[:, t]`` equals the
model's own raw margin. No reader passes the bytes to a native library, and skops
files are audited, then read without constructing anything in them.

Only binary models with numerical splits are read; anything else raises
:class:`~engine.errors.InputError` with what to change.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..io._model_formats import how_to_save_models, model_format, model_formats_sentence
from ._ensembles import AdditiveEnsemble
from ._features import feature_matrix
from .formats import READERS, SKOPS_ALLOWED_TYPES

__all__ = ["ModelFile", "load_model", "model_format", "SKOPS_ALLOWED_TYPES"]


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

    def features(self, rows) -> np.ndarray:
        """The model's features of ``rows`` as a float matrix (a table's other columns ignored).

        Numeric columns are taken as they are and text columns parsed once; no number is formatted as text
        (:mod:`engine.qwyc._features`). One row given as a mapping or an array builds no DataFrame.

        Parameters
        ----------
        rows : pandas.DataFrame, mapping, pandas.Series or array_like
            Rows with (at least) the model's feature columns, found by name; or one row as a mapping (or a
            Series) from feature name to value; or an array of shape (features,) or (rows, features) in the
            order of :attr:`feature_names`.

        Returns
        -------
        numpy.ndarray of float64, shape (rows, features)
            NaN where a value is missing (the trees route it as the model does).

        Raises
        ------
        InputError
            A feature column is missing, an array has another number of features, or a cell holds text that
            is not a number (the column and the rows named).
        """
        out = feature_matrix(self.feature_names, rows, self.name)
        if self.float32_inputs:  # XGBoost compares float32 features with float32 thresholds
            with np.errstate(over="ignore"):  # beyond float32's range: infinite, as XGBoost reads it
                out = out.astype(np.float32).astype(np.float64)
        return out


def load_model(raw: bytes, *, name: str = "model") -> ModelFile:
    """Read a model file of any format in :data:`engine.io._model_formats.MODEL_FORMATS` into trees.

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
        Not one of the supported formats, a damaged or edited file, not a binary classifier,
        a kind whose contributions cannot be reproduced exactly (named), or (skops) a type
        outside :data:`SKOPS_ALLOWED_TYPES`.
    """
    kind = model_format(raw)
    if kind is None:
        raise InputError(
            f"'{name}' is not a model file this studio reads ({model_formats_sentence()}): {how_to_save_models()}."
        )
    read = READERS[kind](raw, name)
    return ModelFile(
        read.ensemble, read.feature_names, kind, hashlib.sha256(raw).hexdigest(), name, read.float32_inputs
    )
