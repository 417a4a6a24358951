"""Linear classifiers trained under rate constraints: fairness, churn, coverage, recall.

Goh, G., Cotter, A., Gupta, M. & Friedlander, M. P. (2016). *Satisfying
Real-world Goals with Dataset Constraints.* Advances in Neural Information
Processing Systems 29 (NIPS 2016).

The constraints of Table 2 (:class:`DemographicParity`, :class:`EqualOpportunity`, :class:`MaxChurn`,
:class:`MinRecall`, :class:`MaxCoverage`, :class:`MinCoverage`, :class:`Egregious`), the ramp-loss
majorization-minimization solver (:func:`fit_constrained`, :func:`fit_sweep`; Algorithm 1 and Problem 3)
and the paper's Adult experiments (:func:`adult_data`, :func:`fairness_sweep`, :func:`churn_sweep`;
Section 4). Training on a user's table with a deployable model file is :mod:`engine.constraints.tabular`;
what is drawn for people, :mod:`engine.constraints.display`.

A constraint object has ``expression(y)``, a :class:`RateExpr` that must be ``<= 0`` on
the training rows, and ``describe()``; labels are 1, 0, or -1 for an unlabelled row.
"""

from ._experiments import adult_data, churn_sweep, fairness_sweep
from ._goals import DemographicParity, Egregious, EqualOpportunity, MaxChurn, MaxCoverage, MinCoverage, MinRecall
from ._solver import ConstrainedModel, fit_constrained, fit_sweep
from .display import churn_tradeoff_figure, fairness_tradeoff_figure, rates_frame
from .tabular import (
    TableModel,
    TableSpec,
    TrainingColumns,
    detect_training_columns,
    model_json,
    read_model_json,
    train_on_table,
)

#: the package's public modules beside this front (every other module is private)
__public_modules__ = ("display", "tabular")

__all__ = [
    "fit_constrained",
    "fit_sweep",
    "ConstrainedModel",
    "DemographicParity",
    "EqualOpportunity",
    "MaxChurn",
    "MinRecall",
    "MaxCoverage",
    "MinCoverage",
    "Egregious",
    "adult_data",
    "fairness_sweep",
    "churn_sweep",
    # what the pages, views and the CLI draw and say (defined in constraints.display and constraints.tabular)
    "churn_tradeoff_figure",
    "fairness_tradeoff_figure",
    "rates_frame",
    "TableModel",
    "TableSpec",
    "TrainingColumns",
    "detect_training_columns",
    "model_json",
    "read_model_json",
    "train_on_table",
]
