"""A user's boosted model from a file, as trees the early-exit evaluator runs one by one.

QWYC (Wang, Gupta & You, *Quit When You Can*, arXiv:1806.11202, 2018) needs each
base model's contribution ``F[:, t]`` and an evaluator that computes only the trees
an example still needs. The formats are listed once, in
:data:`engine.io.model_formats.MODEL_FORMATS` (title, extensions, sniffer, how to
save); each has its reader in :mod:`engine.qwyc.formats`, which returns
:class:`~engine.qwyc.ensembles.Tree` arrays so that ``bias + Σ_t F[:, t]`` equals the
model's own raw margin. No reader passes the bytes to a native library, and skops
files are audited, then read without constructing anything in them.

Only binary models with numerical splits are read; anything else raises
:class:`~engine.errors.InputError` with what to change.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import InputError, describe_rows
from ..io.model_formats import how_to_save_models, model_format, model_formats_sentence
from ..io.numbers import to_floats
from .ensembles import AdditiveEnsemble
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
            raise InputError(
                f"The data has no column {missing[0]!r}, which model '{self.name}' needs"
                f"{f' (and {len(missing) - 1} more)' if len(missing) > 1 else ''}. The model's features "
                f"are {', '.join(self.feature_names[:8])}{' ...' if len(self.feature_names) > 8 else ''}."
            )
        out = np.empty((len(frame), len(self.feature_names)))
        for j, c in enumerate(self.feature_names):
            values = to_floats(frame[c])
            bad = np.isnan(values) & frame[c].notna().to_numpy() & (frame[c].astype(str).str.strip() != "").to_numpy()
            if bad.any():
                raise InputError(
                    f"Feature column '{c}': non-numeric values at {describe_rows(bad)}. The model was "
                    "trained on numbers: encode categories as the training pipeline did."
                )
            out[:, j] = values
        if self.float32_inputs:  # XGBoost compares float32 features with float32 thresholds
            out = out.astype(np.float32).astype(np.float64)
        return out


def load_model(raw: bytes, *, name: str = "model") -> ModelFile:
    """Read a model file of any format in :data:`engine.io.model_formats.MODEL_FORMATS` into trees.

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
