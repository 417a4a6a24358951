"""Expected-loss-optimal batch decisions for set metrics (every loss of ``LOSSES``: F-beta, Jaccard, AM, ...).

Natarajan, N., Koyejo, O., Ravikumar, P. & Dhillon, I. S. (2016). *Optimal
Classification with Multivariate Losses.* Proceedings of the 33rd International
Conference on Machine Learning (ICML 2016), PMLR 48.

Losses (:mod:`~engine.setloss.losses`), exact expected losses of every top-k
decision (:mod:`~engine.setloss.expected`, Algorithm 1), optimal decisions
(:mod:`~engine.setloss.decisions`, Theorem 1) and the paper's evaluation protocol
(:mod:`~engine.setloss.protocol`, section 5.2), and a user's probability batches decided
batch by batch (:mod:`~engine.setloss.batches`), and their figures
(:mod:`~engine.setloss.figures`). Pages and the CLI import these names from here.
"""

from .batches import (
    SMALL_BATCH,
    THRESHOLD_HALF,
    BatchDecisions,
    BatchOutcome,
    MonteCarloCheck,
    batches_from_split,
    decide_batch,
    decide_batches,
    decided_items,
    labelled_split,
    monte_carlo_check,
    small_batch_losses,
)
from .decisions import Decision, early_stop_decision, monte_carlo_loss, optimal_class_set, optimal_decision
from .expected import (
    check_probabilities,
    expected_losses,
    expected_losses_reference,
    poisson_binomial,
)
from .figures import baselines_figure, batch_items_figure, expected_loss_figure
from .losses import (
    F1_COEFFICIENTS,
    LOSS_SPELLINGS,
    LOSSES,
    LinearFractional,
    LossChoice,
    SetLoss,
    build_loss,
    fbeta,
    get_loss,
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
    "SetLoss",
    "LinearFractional",
    "LossChoice",
    "LOSSES",
    "LOSS_SPELLINGS",
    "F1_COEFFICIENTS",
    "build_loss",
    "get_loss",
    "fbeta",
    "linear_fractional",
    "check_probabilities",
    "poisson_binomial",
    "expected_losses",
    "expected_losses_reference",
    "Decision",
    "optimal_decision",
    "early_stop_decision",
    "BatchOutcome",
    "decide_batch",
    "BatchDecisions",
    "decide_batches",
    "decided_items",
    "MonteCarloCheck",
    "monte_carlo_check",
    "batches_from_split",
    "labelled_split",
    "THRESHOLD_HALF",
    "SMALL_BATCH",
    "small_batch_losses",
    "optimal_class_set",
    "monte_carlo_loss",
    "ScoredSplit",
    "batch_indices",
    "scored_split_from_arrays",
    "train_probabilities",
    "tune_threshold",
    "BaselineComparison",
    "compare_baselines",
    "expected_loss_figure",
    "batch_items_figure",
    "baselines_figure",
]
