"""Quit When You Can: early exit for additive ensembles with an optimised evaluation order.

Wang, S., Gupta, M. & You, S. (2018). *Quit When You Can: Efficient Evaluation
of Ensembles with Ordering Optimization.* arXiv:1806.11202.

Ensembles as contribution matrices (:mod:`~engine.qwyc.ensembles`), the full ensemble's
scores and decisions (:mod:`~engine.qwyc.full_ensemble`), the QWYC
policy (:mod:`~engine.qwyc.policy`: Algorithm 1 order, Algorithm 2 thresholds),
baselines and trade-off curves (:mod:`~engine.qwyc.baselines`), wall-clock
timing (:mod:`~engine.qwyc.timing`), a promise on new rows
(:mod:`~engine.qwyc.fidelity`), a user's model file (:mod:`~engine.qwyc.models`),
policy files and their application (:mod:`~engine.qwyc.deployment`), a policy's statistics, figures and file
in one call (:mod:`~engine.qwyc.summary`) and figures (:mod:`~engine.qwyc.figures`). Pages and the CLI import these names from here.
"""

from .baselines import (
    FanPolicy,
    SmallerEnsemble,
    fit_fan,
    pareto_front,
    smaller_ensemble,
    tradeoff_curves,
)
from .deployment import (
    POLICY_FORMAT,
    FittedPolicy,
    ModelRows,
    apply_policy,
    decisions_frame,
    fit_policy,
    model_rows,
    policy_json,
    read_policy,
)
from .ensembles import (
    ADULT_GBT,
    AdditiveEnsemble,
    TrainedEnsemble,
    Tree,
    from_lightgbm,
    from_sklearn,
    train_adult_gbt,
)
from .fidelity import (
    FidelityCalibration,
    FidelityPolicy,
    calibrate_fidelity,
    clopper_pearson,
    fidelity_curve,
    fit_fidelity,
    measured_row,
)
from .figures import blank_figure, fidelity_figure, models_histogram_figure, thresholds_figure, tradeoff_figure
from .full_ensemble import full_decisions, full_scores
from .kernels import default_workers
from .models import ModelFile, load_model
from .policy import (
    ORDERS,
    START_ALPHAS,
    EarlyExitPolicy,
    QwycStart,
    fit_qwyc,
    fixed_order,
    fixed_order_sweep,
    lightgbm_early_stop_policy,
    qwyc_start,
    start_alpha,
    step_thresholds,
)
from .shipped_model import adult_gbt_sample
from .summary import PolicySummary, summarise_policy
from .timing import EarlyExitTiming, time_early_exit, timing_table

__all__ = [
    "Tree",
    "AdditiveEnsemble",
    "from_sklearn",
    "from_lightgbm",
    "TrainedEnsemble",
    "train_adult_gbt",
    "ADULT_GBT",
    "adult_gbt_sample",
    "EarlyExitPolicy",
    "QwycStart",
    "qwyc_start",
    "START_ALPHAS",
    "start_alpha",
    "step_thresholds",
    "fit_qwyc",
    "default_workers",
    "fixed_order",
    "fixed_order_sweep",
    "lightgbm_early_stop_policy",
    "ORDERS",
    "full_decisions",
    "full_scores",
    "FanPolicy",
    "fit_fan",
    "SmallerEnsemble",
    "smaller_ensemble",
    "pareto_front",
    "tradeoff_curves",
    "EarlyExitTiming",
    "time_early_exit",
    "timing_table",
    "FidelityPolicy",
    "FidelityCalibration",
    "calibrate_fidelity",
    "fit_fidelity",
    "fidelity_curve",
    "measured_row",
    "clopper_pearson",
    "ModelFile",
    "load_model",
    "ModelRows",
    "model_rows",
    "FittedPolicy",
    "fit_policy",
    "policy_json",
    "read_policy",
    "apply_policy",
    "decisions_frame",
    "POLICY_FORMAT",
    "PolicySummary",
    "summarise_policy",
    "tradeoff_figure",
    "models_histogram_figure",
    "thresholds_figure",
    "fidelity_figure",
    "blank_figure",
]
