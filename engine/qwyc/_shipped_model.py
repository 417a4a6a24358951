"""The shipped Adult model (sample ``adult_gbt``), read like a user's model file.

The Early exit page starts from it instead of training 500 trees per server; the file is
:func:`engine.qwyc._ensembles.train_adult_gbt` with :data:`~engine.qwyc._ensembles.ADULT_GBT`
(Wang, Gupta & You, *Quit When You Can*, arXiv:1806.11202, 2018, use the same data set).
"""

from __future__ import annotations

from ..errors import InputError
from ..io._samples import SAMPLES, sample_path
from ._ensembles import ADULT_GBT, AdditiveEnsemble, TrainedEnsemble, encoded_adult
from ._models import load_model

__all__ = ["adult_gbt_sample"]


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
        ``model`` is the :class:`~engine.qwyc._models.ModelFile`; ``fit_seconds`` is 0 (nothing trained).

    Raises
    ------
    InputError
        ``max_iter`` outside 1 to 500.
    """
    if not 1 <= max_iter <= ADULT_GBT["max_iter"]:
        raise InputError(f"max_iter must be between 1 and {ADULT_GBT['max_iter']}, not {max_iter}")
    model = load_model(sample_path("adult_gbt").read_bytes(), name=SAMPLES["adult_gbt"].file)
    full = model.ensemble
    ensemble = AdditiveEnsemble(full.trees[:max_iter], full.bias, full.source)
    if max_iter < full.n_models:
        model = type(model)(
            ensemble, model.feature_names, model.file_format, model.fingerprint, model.name, model.float32_inputs
        )
    x_train, y_train, x_test, y_test = encoded_adult()
    return TrainedEnsemble(model, ensemble, x_train, y_train, x_test, y_test, 0.0)
