"""Expected-loss-optimal batch decisions for set metrics (F-beta, Jaccard, AM, G-mean, ...).

Natarajan, N., Koyejo, O., Ravikumar, P. & Dhillon, I. S. (2016). *Optimal
Classification with Multivariate Losses.* Proceedings of the 33rd International
Conference on Machine Learning (ICML 2016), PMLR 48.

Losses (:mod:`~engine.setloss.losses`), exact expected losses of every top-k
decision (:mod:`~engine.setloss.expected`, Algorithm 1), optimal decisions
(:mod:`~engine.setloss.decisions`, Theorem 1) and the paper's evaluation protocol
(:mod:`~engine.setloss.protocol`, section 5.2).
"""

from .decisions import Decision, monte_carlo_loss, optimal_class_set, optimal_decision
from .expected import (
    check_probabilities,
    expected_losses,
    expected_losses_reference,
    poisson_binomial,
)
from .losses import (
    LOSS_NAMES,
    LinearFractional,
    SetLoss,
    am,
    binary_auc,
    fbeta,
    get_loss,
    gmean,
    gtppr,
    hmean,
    jaccard,
    linear_fractional,
)
from .protocol import (
    BaselineComparison,
    ScoredSplit,
    batch_indices,
    compare_baselines,
    scored_split_from_arrays,
    train_probabilities,
    tune_threshold,
)

__all__ = [
    "SetLoss", "LinearFractional", "LOSS_NAMES", "get_loss", "fbeta", "jaccard", "am", "gmean", "hmean", "gtppr",
    "binary_auc", "linear_fractional",
    "check_probabilities", "poisson_binomial", "expected_losses", "expected_losses_reference",
    "Decision", "optimal_decision", "optimal_class_set", "monte_carlo_loss",
    "ScoredSplit", "batch_indices", "scored_split_from_arrays", "train_probabilities", "tune_threshold", "BaselineComparison",
    "compare_baselines",
]
