"""Linear classifiers trained under rate constraints: fairness, churn, coverage, recall.

Goh, G., Cotter, A., Gupta, M. & Friedlander, M. P. (2016). *Satisfying
Real-world Goals with Dataset Constraints.* Advances in Neural Information
Processing Systems 29 (NIPS 2016).

Rate expressions (:mod:`~engine.constraints.rates`: sp, sn and the Table 2 counts and
rates on the ramp of Problem 2), constraints (:mod:`~engine.constraints.goals`, Table 2),
the ramp-loss majorization-minimization solver (:mod:`~engine.constraints.solver`,
Algorithm 1 and Problem 3), the Adult experiments with post-hoc baselines
(:mod:`~engine.constraints.experiments`, Section 4) and their figures
(:mod:`~engine.constraints.figures`), and training on a user's table with a deployable
model file (:mod:`~engine.constraints.tabular`).

A constraint object has ``expression(y)``, a :class:`RateExpr` that must be ``<= 0`` on
the training rows, and ``describe()``; labels are 1, 0, or -1 for an unlabelled row.
"""

from .experiments import (
    AdultData,
    ThresholdedModel,
    adult_data,
    churn_sweep,
    fairness_sweep,
    goal_values,
    group_thresholds,
    rate_table,
    shift_bias,
)
from .figures import churn_tradeoff_figure, fairness_tradeoff_figure
from .goals import (
    DemographicParity,
    Egregious,
    EqualOpportunity,
    MaxChurn,
    MaxCoverage,
    MinCoverage,
    MinRecall,
)
from .rates import (
    RateExpr,
    churn,
    churn_rate,
    coverage,
    demographic_parity_ratio,
    equal_opportunity_ratio,
    error_rate,
    false_negatives,
    false_positives,
    positive_rate,
    ramp,
    recall,
    sn,
    sp,
    true_negatives,
    true_positives,
)
from .solver import (
    ConstrainedModel,
    ConstraintsMissedWarning,
    InfeasibleConstraintsError,
    fit_constrained,
    fit_sweep,
    linear_svm,
)
from .tabular import (
    MAX_CATEGORIES,
    MAX_COEFFICIENT,
    MAX_DESIGN_CELLS,
    MAX_FEATURES,
    MODEL_FORMAT,
    Preprocessing,
    TableModel,
    TableSpec,
    TrainingColumns,
    detect_training_columns,
    fit_preprocessing,
    model_json,
    rates_frame,
    read_model_json,
    train_on_table,
)

__all__ = [
    "Preprocessing",
    "fit_preprocessing",
    "TableSpec",
    "TableModel",
    "train_on_table",
    "model_json",
    "read_model_json",
    "TrainingColumns",
    "detect_training_columns",
    "rates_frame",
    "MODEL_FORMAT",
    "MAX_CATEGORIES",
    "MAX_FEATURES",
    "MAX_DESIGN_CELLS",
    "MAX_COEFFICIENT",
    "RateExpr",
    "ramp",
    "sp",
    "sn",
    "coverage",
    "true_positives",
    "false_positives",
    "false_negatives",
    "true_negatives",
    "error_rate",
    "recall",
    "churn",
    "positive_rate",
    "demographic_parity_ratio",
    "equal_opportunity_ratio",
    "churn_rate",
    "DemographicParity",
    "EqualOpportunity",
    "MaxChurn",
    "MinRecall",
    "MaxCoverage",
    "MinCoverage",
    "Egregious",
    "ConstrainedModel",
    "InfeasibleConstraintsError",
    "ConstraintsMissedWarning",
    "fit_constrained",
    "fit_sweep",
    "linear_svm",
    "AdultData",
    "adult_data",
    "shift_bias",
    "group_thresholds",
    "fairness_sweep",
    "churn_sweep",
    "ThresholdedModel",
    "goal_values",
    "rate_table",
    "fairness_tradeoff_figure",
    "churn_tradeoff_figure",
]
