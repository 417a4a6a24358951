"""A fitted early-exit policy as a file a production job applies, and the apply step itself.

Wang, Gupta & You, *Quit When You Can* (arXiv:1806.11202, 2018): the policy is an
evaluation order with exit thresholds after each step. The policy JSON records the
model it belongs to (its file's SHA-256, format, trees and features), the order and
thresholds, α, and what the fit measured; :func:`apply_policy` evaluates, row by
row, only the trees the row needs (each step runs one tree on the rows still
undecided), so its decisions and tree counts equal the engine policy's.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import InputError
from ..io.rated import parse_labels
from ..reporting import ENGINE_VERSION
from .models import ModelFile
from .fidelity import fit_fidelity
from .policy import EarlyExitPolicy, fit_qwyc

__all__ = ["ModelRows", "model_rows", "FittedPolicy", "fit_policy", "policy_json", "read_policy", "apply_policy", "decisions_frame",
           "POLICY_FORMAT"]

POLICY_FORMAT = "opstudio-qwyc-policy/1"


@dataclass(frozen=True)
class ModelRows:
    """A model's contributions on a table, split into fit and test rows (labels where a column is given).

    Attributes
    ----------
    f_fit, f_test : numpy.ndarray of float, shape (rows, trees)
        Every tree's contribution on the fit and the test rows.
    labels_fit, labels_test : numpy.ndarray of int or None
        0/1 labels of those rows, None without a label column.
    x_fit, x_test : numpy.ndarray of float, shape (rows, features)
        The model's features of those rows.
    """

    f_fit: np.ndarray
    f_test: np.ndarray
    labels_fit: np.ndarray | None
    labels_test: np.ndarray | None
    x_fit: np.ndarray
    x_test: np.ndarray


def model_rows(model: ModelFile, frame: pd.DataFrame, *, label: str | None = None, test_fraction: float = 0.3,
               seed: int = 0) -> ModelRows:
    """Contributions of every tree on every row, rows split at random (seeded) into fit and test parts.

    Labels, when a label column is given, must be known on every row (the accuracy is measured on all).

    Parameters
    ----------
    model : ModelFile
        The model.
    frame : pandas.DataFrame
        Rows with the model's feature columns (found by name; others ignored).
    label : str, optional
        A label column (1/0, yes/no, ...), known on every row.
    test_fraction : float
        Share of the rows held out for testing.
    seed : int
        Seed of the random split.

    Returns
    -------
    ModelRows

    Raises
    ------
    InputError
        A feature or label column is missing or invalid, a row has no label, or fewer than 10 rows.
    """
    x = model.features(frame)
    labels = _labels(frame, label)
    if labels is not None and (labels < 0).any():
        raise InputError(f"Label column '{label}': {int((labels < 0).sum())} rows have no label; give every row one "
                         "or choose no label column.")
    if len(frame) < 10:
        raise InputError(f"The table has {len(frame)} rows; early exit needs at least 10 (fit and test rows).")
    test = np.zeros(len(frame), dtype=bool)
    test[np.random.default_rng(seed).permutation(len(frame))[: int(round(test_fraction * len(frame)))]] = True
    f = model.ensemble.contributions(x)
    pick = (lambda v, m: None if v is None else v[m])
    return ModelRows(f[~test], f[test], pick(labels, ~test), pick(labels, test), x[~test], x[test])


@dataclass(frozen=True)
class FittedPolicy:
    """A policy with what its fit rows measured (rows, mean trees, disagreement, accuracy when labelled).

    Attributes
    ----------
    policy : EarlyExitPolicy
        The fitted policy.
    stats : dict
        What was measured (and how it was fitted), written into the policy file under ``fit``.
    """

    policy: EarlyExitPolicy
    stats: dict


def _labels(frame: pd.DataFrame, label: str | None) -> np.ndarray | None:
    if label is None:
        return None
    if label not in frame.columns:
        raise InputError(f"No label column {label!r} in the data; columns are {', '.join(map(str, frame.columns[:10]))}.")
    values, missing = parse_labels(frame[label], label)
    return np.where(missing, -1, values)


def fit_policy(model: ModelFile, frame: pd.DataFrame, *, alpha: float | None = None, neg_only: bool = False,
               label: str | None = None, max_disagreement: float | None = None, progress=None) -> FittedPolicy:
    """QWYC* on every row of ``frame``: disagreement with the full model on those rows at most α.

    Parameters
    ----------
    model : ModelFile
    frame : DataFrame
        Rows with the model's feature columns (found by name; others ignored).
    alpha : float
        Allowed share of fit rows whose early decision differs from the full model (0.005 = 0.5 %).
    max_disagreement : float, optional
        Instead of α: the share D of *new* rows that may differ; the thresholds are fitted on part of
        the rows and widened on the rest so that, with 95 % confidence, new-row disagreement is <= D
        (:func:`~engine.qwyc.fidelity.fit_fidelity`).
    neg_only : bool
        Exit early on negatives only ("filter then score").
    label : str, optional
        A label column: accuracy of both decisions is reported.
    progress : callable, optional
        ``progress(done, total)`` during the fit.

    Returns
    -------
    FittedPolicy

    References
    ----------
    Wang, Gupta & You (2018), Algorithm 1 (order) and Algorithm 2 (thresholds).
    """
    if (alpha is None) == (max_disagreement is None):
        raise InputError("give either --alpha (disagreement on the fit rows) or --max-disagreement (on new rows)")
    if alpha is not None and not 0 <= alpha < 1:
        raise InputError(f"alpha must be a fraction in [0, 1) (0.005 = 0.5 %); got {alpha}")
    if max_disagreement is not None and not 0 < max_disagreement < 1:
        raise InputError(f"the maximum disagreement must be a fraction in (0, 1) (0.001 = 0.1 %); got {max_disagreement}")
    f = model.ensemble.contributions(model.features(frame))
    fidelity = None
    if max_disagreement is not None:
        fidelity = fit_fidelity(f, max_disagreement=max_disagreement, neg_only=neg_only, bias=model.ensemble.bias,
                                progress=progress)
        policy = fidelity.policy
    else:
        policy = fit_qwyc(f, alpha=alpha, neg_only=neg_only, bias=model.ensemble.bias, progress=progress)
    labels = _labels(frame, label)
    known = None if labels is None else labels >= 0
    stats = {"rows": int(f.shape[0]), **policy.evaluate(f)}
    if fidelity is not None:
        stats["fidelity"] = fidelity.as_dict()
    if labels is not None and known.any():
        decision, _ = policy.predict(f[known])
        full = model.ensemble.bias + f[known].sum(axis=1) >= 0
        stats.update({"labelled_rows": int(known.sum()), "accuracy": float(np.mean(decision == labels[known])),
                      "full_model_accuracy": float(np.mean(full == labels[known]))})
    return FittedPolicy(policy, stats)


def policy_json(fitted: FittedPolicy, model: ModelFile | None = None) -> str:
    """The policy file: model fingerprint, order, thresholds, α and the fit statistics.

    Parameters
    ----------
    fitted : FittedPolicy
        The policy and what its fit measured.
    model : ModelFile, optional
        The model file the policy belongs to. Without one (a policy fitted on a score matrix, or on
        an ensemble trained in the studio) ``model`` is ``null``: the file records the policy, and
        :func:`read_policy` refuses to apply it to any model file.

    Returns
    -------
    str
        JSON (format :data:`POLICY_FORMAT`; infinite thresholds written as ``null``: no exit there).
    """
    about = None if model is None else {"file": model.name, "sha256": model.fingerprint, "format": model.file_format,
                                        "trees": model.n_trees, "features": list(model.feature_names)}
    record = {"format": POLICY_FORMAT, "engine_version": ENGINE_VERSION, "model": about,
              "policy": fitted.policy.as_dict(), "fit": fitted.stats}
    return json.dumps(record, indent=2, allow_nan=False, default=float)


def _thresholds(values) -> np.ndarray:
    return np.array([(-math.inf if v is None else float(v)) for v in values])


def read_policy(text: str | bytes, model: ModelFile) -> EarlyExitPolicy:
    """The policy of a policy file, checked against the model it is applied with.

    Parameters
    ----------
    text : str or bytes
        The policy file (:func:`policy_json`).
    model : ModelFile
        The model it is applied with.

    Returns
    -------
    EarlyExitPolicy

    Raises
    ------
    InputError
        Not a policy file, or written for another model (the SHA-256 differs).
    """
    try:
        record = json.loads(text)
        p = record["policy"]
        expected = record["model"]["sha256"]
    except (ValueError, KeyError, TypeError):
        raise InputError("This is not a policy file written by 'opstudio qwyc fit' (format "
                         f"{POLICY_FORMAT}).") from None
    if expected != model.fingerprint:
        raise InputError(f"The policy was fitted for another model (SHA-256 {expected[:12]}…), not "
                         f"'{model.name}' ({model.fingerprint[:12]}…). Fit a policy for this model.")
    order = np.asarray(p["order"], dtype=np.int64)
    eps_plus = np.array([(math.inf if v is None else float(v)) for v in p["eps_plus"]])
    return EarlyExitPolicy(order, _thresholds(p["eps_minus"]), eps_plus, float(p["threshold"]), float(p["bias"]),
                           np.asarray(p["costs"], dtype=np.float64), float(p["alpha"]), str(p["method"]),
                           float(p.get("fit_seconds", 0.0)), int(p.get("fit_disagreements", 0)))


def apply_policy(policy: EarlyExitPolicy, model: ModelFile, frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(decisions, trees evaluated) per row, evaluating each tree only on the rows still undecided.

    Parameters
    ----------
    policy : EarlyExitPolicy
        The policy (:func:`read_policy`).
    model : ModelFile
        The model whose trees are evaluated.
    frame : pandas.DataFrame
        Rows with the model's feature columns.

    Returns
    -------
    (numpy.ndarray of bool, numpy.ndarray of int)
        Decision and trees evaluated per row, in input order.
    """
    return policy.predict_lazy(model.ensemble, model.features(frame))


def decisions_frame(decision: np.ndarray, n_evaluated: np.ndarray) -> pd.DataFrame:
    """One row per input row, in input order: ``decision`` (0/1) and ``n_evaluated``.

    Parameters
    ----------
    decision : numpy.ndarray of bool, shape (rows,)
        Decisions.
    n_evaluated : numpy.ndarray of int, shape (rows,)
        Trees evaluated per row.

    Returns
    -------
    pandas.DataFrame
    """
    return pd.DataFrame({"decision": decision.astype(np.int8), "n_evaluated": n_evaluated.astype(np.int64)})
