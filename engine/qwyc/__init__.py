"""Quit When You Can: early exit for additive ensembles with an optimised evaluation order.

Wang, S., Gupta, M. & You, S. (2018). *Quit When You Can: Efficient Evaluation
of Ensembles with Ordering Optimization.* arXiv:1806.11202.

The QWYC policy (:func:`fit_qwyc`: Algorithm 1 order, Algorithm 2 thresholds; :func:`qwyc_start` and
:func:`start_alpha` for the page's first fits) and the full ensemble's decisions it is measured against
(:func:`full_decisions`), baselines and trade-off curves (:func:`tradeoff_curves`), wall-clock timing
(:func:`time_early_exit`), a promise on new rows (:func:`calibrate_fidelity`, :func:`fidelity_curve`,
:func:`measured_row`), a user's model file (:func:`load_model`, :func:`model_rows`), policy files and their
application (:func:`fit_policy`, :func:`policy_json`, :func:`read_policy`, :func:`apply_policy`), a policy's
statistics and file in one call (:func:`summarise_policy`), and the shipped Adult model
(:func:`train_adult_gbt`, :func:`adult_gbt_sample`). What is drawn or tabulated for people is in
:mod:`engine.qwyc.display`; the compiled loops are in :mod:`engine.qwyc.kernels`, the model-file readers in
:mod:`engine.qwyc.formats`.
"""

from ._baselines import tradeoff_curves
from ._deployment import FittedPolicy, apply_policy, fit_policy, model_rows, policy_json, read_policy
from ._ensembles import ADULT_GBT, TrainedEnsemble, train_adult_gbt
from ._fidelity import FidelityCalibration, calibrate_fidelity, fidelity_curve, measured_row
from ._full_ensemble import full_decisions
from ._models import ModelFile, load_model
from ._policy import EarlyExitPolicy, fit_qwyc, qwyc_start, start_alpha
from ._shipped_model import adult_gbt_sample
from ._summary import PolicySummary, summarise_policy
from ._timing import time_early_exit
from .display import blank_figure, decisions_frame, fidelity_figure, timing_table, tradeoff_figure

#: the package's public modules beside this front (every other module is private)
__public_modules__ = ("display",)

__all__ = [
    "fit_qwyc",
    "EarlyExitPolicy",
    "qwyc_start",
    "start_alpha",
    "full_decisions",
    "tradeoff_curves",
    "time_early_exit",
    "calibrate_fidelity",
    "FidelityCalibration",
    "fidelity_curve",
    "measured_row",
    "load_model",
    "ModelFile",
    "model_rows",
    "fit_policy",
    "FittedPolicy",
    "policy_json",
    "read_policy",
    "apply_policy",
    "summarise_policy",
    "PolicySummary",
    "train_adult_gbt",
    "TrainedEnsemble",
    "ADULT_GBT",
    "adult_gbt_sample",
    # what the pages, views and the CLI draw and say (defined in qwyc.display)
    "blank_figure",
    "decisions_frame",
    "fidelity_figure",
    "timing_table",
    "tradeoff_figure",
]
