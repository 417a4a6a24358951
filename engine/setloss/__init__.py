"""Expected-loss-optimal batch decisions for set metrics (every loss of ``LOSSES``: F-beta, Jaccard, AM, ...).

Natarajan, N., Koyejo, O., Ravikumar, P. & Dhillon, I. S. (2016). *Optimal
Classification with Multivariate Losses.* Proceedings of the 33rd International
Conference on Machine Learning (ICML 2016), PMLR 48.

The losses (the registry :data:`LOSSES`, :func:`get_loss`, :func:`linear_fractional`), the exact
expected losses of every top-k decision (:func:`expected_losses`, Algorithm 1), optimal decisions
(:func:`optimal_decision`, Theorem 1; :func:`optimal_class_set`), a user's probability batches
decided batch by batch (:func:`decide_batch`, :func:`decide_batches`, :func:`monte_carlo_check`)
and the paper's evaluation protocol (:func:`train_probabilities`, :func:`batches_from_split`,
:func:`labelled_split`, :func:`compare_baselines`, section 5.2). What is drawn for people is in
:mod:`engine.setloss.display`.
"""

from ._batches import batches_from_split, decide_batch, decide_batches, labelled_split, monte_carlo_check
from ._decisions import Decision, optimal_class_set, optimal_decision
from ._expected import expected_losses
from ._losses import LOSS_SPELLINGS, LOSSES, SetLoss, get_loss, linear_fractional
from ._protocol import compare_baselines, train_probabilities
from .display import baselines_figure, batch_items_figure, decided_items, expected_loss_figure

#: the package's public modules beside this front (every other module is private)
__public_modules__ = ("display",)

__all__ = [
    "LOSSES",
    "LOSS_SPELLINGS",
    "SetLoss",
    "get_loss",
    "linear_fractional",
    "expected_losses",
    "Decision",
    "optimal_decision",
    "optimal_class_set",
    "decide_batch",
    "decide_batches",
    "monte_carlo_check",
    "train_probabilities",
    "batches_from_split",
    "labelled_split",
    "compare_baselines",
    # what the pages, views and the CLI draw and say (defined in setloss.display)
    "baselines_figure",
    "batch_items_figure",
    "decided_items",
    "expected_loss_figure",
]
