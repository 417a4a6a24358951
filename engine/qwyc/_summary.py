"""A fitted policy with everything a screen, a decision record or a file shows of it, computed once.

Wang, Gupta & You, *Quit When You Can* (arXiv:1806.11202, 2018): a policy is judged by the base models it
evaluates per row and by how often it decides unlike the full ensemble, on the rows it was fitted on and on
rows it was not. :func:`summarise_policy` measures both, draws the two figures and writes the policy file in
one call, so that the Early exit page keeps them per setting (a step back to an α already fitted only draws)
and any other caller shows the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from ._deployment import FittedPolicy, policy_json
from ._figures import models_histogram_figure, thresholds_figure
from ._full_ensemble import full_decisions
from ._models import ModelFile
from ._policy import EarlyExitPolicy

__all__ = ["PolicySummary", "summarise_policy"]


@dataclass(frozen=True)
class PolicySummary:
    """A policy, its statistics on the fit and test rows, its figures and its file.

    Attributes
    ----------
    policy : EarlyExitPolicy
        The fitted policy.
    fit, test : dict
        :meth:`EarlyExitPolicy.evaluate` on the fit rows and on the test rows.
    n_evaluated : numpy.ndarray of int
        Base models evaluated for each test row.
    histogram, thresholds : plotly.graph_objects.Figure
        :func:`~engine.qwyc._figures.models_histogram_figure` of the test rows and
        :func:`~engine.qwyc._figures.thresholds_figure` of the policy.
    policy_file : bytes
        :func:`~engine.qwyc._deployment.policy_json`, UTF-8: what a production job applies.
    """

    policy: EarlyExitPolicy
    fit: dict
    test: dict
    n_evaluated: np.ndarray
    histogram: go.Figure
    thresholds: go.Figure
    policy_file: bytes


def summarise_policy(
    policy: EarlyExitPolicy,
    f_fit,
    f_test,
    *,
    labels_fit=None,
    labels_test=None,
    full_fit=None,
    full_test=None,
    fitted_with: dict | None = None,
    model: ModelFile | None = None,
) -> PolicySummary:
    """Measure ``policy`` on its fit rows and on test rows, draw it and write its file.

    Parameters
    ----------
    policy : EarlyExitPolicy
        A fitted policy.
    f_fit, f_test : array_like of float, shape (N, T)
        Base-model contributions of the rows the policy was fitted on, and of other rows.
    labels_fit, labels_test : array_like of {0, 1}, optional
        True labels: accuracy is reported too.
    full_fit, full_test : numpy.ndarray of bool, optional
        The full ensemble's decisions on those rows (:func:`~engine.qwyc._full_ensemble.full_decisions` when None;
        a caller fitting several policies on one ensemble passes them once).
    fitted_with : dict, optional
        How the policy was fitted (e.g. ``{"neg_only": False, "budget": "greedy"}``), written into the file's
        ``fit`` beside the statistics.
    model : ModelFile, optional
        The model file the policy belongs to (its fingerprint goes into the file).

    Returns
    -------
    PolicySummary

    References
    ----------
    Wang, Gupta & You (2018), Section 5 (mean models evaluated and disagreement, on held-out rows).
    """
    if full_fit is None:
        full_fit = full_decisions(f_fit, policy.bias, policy.threshold)
    if full_test is None:
        full_test = full_decisions(f_test, policy.bias, policy.threshold)
    fit = policy.evaluate(f_fit, labels_fit, full=full_fit)
    predicted = policy.predict(f_test)
    test = policy.evaluate(f_test, labels_test, full=full_test, predicted=predicted)
    n_evaluated = predicted[1]
    fitted = FittedPolicy(policy, {**fit, **(fitted_with or {}), "test": test})
    return PolicySummary(
        policy,
        fit,
        test,
        n_evaluated,
        models_histogram_figure(n_evaluated, np.shape(f_test)[1]),
        thresholds_figure(policy),
        policy_json(fitted, model).encode(),
    )
