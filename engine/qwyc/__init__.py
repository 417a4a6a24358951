"""Quit When You Can: early exit for additive ensembles with an optimised evaluation order.

Wang, S., Gupta, M. & You, S. (2018). *Quit When You Can: Efficient Evaluation
of Ensembles with Ordering Optimization.* arXiv:1806.11202.

Ensembles as contribution matrices (:mod:`~engine.qwyc.ensembles`), the QWYC
policy (:mod:`~engine.qwyc.policy`: Algorithm 1 order, Algorithm 2 thresholds),
baselines and trade-off curves (:mod:`~engine.qwyc.baselines`) and wall-clock
timing (:mod:`~engine.qwyc.timing`).
"""

from .baselines import (
    FanPolicy,
    SmallerEnsemble,
    fit_fan,
    pareto_front,
    smaller_ensemble,
    tradeoff_curves,
)
from .ensembles import (
    AdditiveEnsemble,
    TrainedEnsemble,
    Tree,
    from_lightgbm,
    from_sklearn,
    train_adult_gbt,
)
from .policy import (
    ORDERS,
    EarlyExitPolicy,
    fit_qwyc,
    fixed_order,
    lightgbm_early_stop_policy,
    step_thresholds,
)
from .timing import EarlyExitTiming, time_early_exit

__all__ = [
    "Tree", "AdditiveEnsemble", "from_sklearn", "from_lightgbm", "TrainedEnsemble", "train_adult_gbt",
    "EarlyExitPolicy", "step_thresholds", "fit_qwyc", "fixed_order", "lightgbm_early_stop_policy", "ORDERS",
    "FanPolicy", "fit_fan", "SmallerEnsemble", "smaller_ensemble", "pareto_front", "tradeoff_curves",
    "EarlyExitTiming", "time_early_exit",
]
