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
from ..io._rated import parse_labels
from ..reporting import ENGINE_VERSION
from ..untrusted import parse_json
from ._fidelity import fit_fidelity
from ._full_ensemble import full_decisions
from ._models import ModelFile
from ._policy import ORDERS, EarlyExitPolicy, fit_qwyc

__all__ = [
    "ModelRows",
    "model_rows",
    "FittedPolicy",
    "fit_policy",
    "policy_json",
    "read_policy",
    "apply_policy",
    "decisions_frame",
    "POLICY_FORMAT",
]

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


def model_rows(
    model: ModelFile, frame: pd.DataFrame, *, label: str | None = None, test_fraction: float = 0.3, seed: int = 0
) -> ModelRows:
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
        raise InputError(
            f"Label column '{label}': {int((labels < 0).sum())} rows have no label; give every row one "
            "or choose no label column."
        )
    if len(frame) < 10:
        raise InputError(f"The table has {len(frame)} rows; early exit needs at least 10 (fit and test rows).")
    test = np.zeros(len(frame), dtype=bool)
    test[np.random.default_rng(seed).permutation(len(frame))[: int(round(test_fraction * len(frame)))]] = True
    f = model.ensemble.contributions(x)

    def pick(v, m):
        return None if v is None else v[m]

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
        raise InputError(
            f"No label column {label!r} in the data; columns are {', '.join(map(str, frame.columns[:10]))}."
        )
    values, missing = parse_labels(frame[label], label)
    return np.where(missing, -1, values)


def fit_policy(
    model: ModelFile,
    frame: pd.DataFrame,
    *,
    alpha: float | None = None,
    neg_only: bool = False,
    label: str | None = None,
    max_disagreement: float | None = None,
    progress=None,
) -> FittedPolicy:
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
        (:func:`~engine.qwyc._fidelity.fit_fidelity`).
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
        raise InputError(
            f"the maximum disagreement must be a fraction in (0, 1) (0.001 = 0.1 %); got {max_disagreement}"
        )
    f = model.ensemble.contributions(model.features(frame))
    fidelity = None
    if max_disagreement is not None:
        fidelity = fit_fidelity(
            f, max_disagreement=max_disagreement, neg_only=neg_only, bias=model.ensemble.bias, progress=progress
        )
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
        full = full_decisions(f[known], model.ensemble.bias, 0.0)
        stats.update(
            {
                "labelled_rows": int(known.sum()),
                "accuracy": float(np.mean(decision == labels[known])),
                "full_model_accuracy": float(np.mean(full == labels[known])),
            }
        )
    return FittedPolicy(policy, stats)


def _encode_thresholds(values: np.ndarray, side: str) -> list:
    """Thresholds as written in the file: a finite number, None (no exit on this side) or "all"."""
    none, every = (-math.inf, math.inf) if side == "minus" else (math.inf, -math.inf)
    return [None if v == none else "all" if v == every else float(v) for v in values]


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
        JSON (format :data:`POLICY_FORMAT`). Exit thresholds are finite numbers, or ``null`` for no
        exit on that side at that step (``eps_minus`` −∞, ``eps_plus`` +∞), or ``"all"`` when every
        row still undecided exits on that side (``eps_minus`` +∞, ``eps_plus`` −∞) — JSON has no
        infinities.
    """
    policy = fitted.policy.as_dict()
    policy["eps_minus"] = _encode_thresholds(fitted.policy.eps_minus, "minus")
    policy["eps_plus"] = _encode_thresholds(fitted.policy.eps_plus, "plus")
    about = (
        None
        if model is None
        else {
            "file": model.name,
            "sha256": model.fingerprint,
            "format": model.file_format,
            "trees": model.n_trees,
            "features": list(model.feature_names),
        }
    )
    record = {
        "format": POLICY_FORMAT,
        "engine_version": ENGINE_VERSION,
        "model": about,
        "policy": policy,
        "fit": fitted.stats,
    }
    return json.dumps(record, indent=2, allow_nan=False, default=float)


def _known_method(method: str) -> bool:
    return (
        method in ORDERS
        or method in ("explicit", "lightgbm pred_early_stop")
        or method.startswith("QWYC* with calibrated margin")
    )


class _PolicyFields:
    """Reads the fields of a parsed policy file, each checked; problems name the field."""

    def __init__(self, what: str):
        self.what = what

    def bad(self, field: str, problem: str) -> InputError:
        return InputError(
            f"The {self.what} cannot be applied: field '{field}' {problem}. Fit the policy again for "
            "this model ('opstudio qwyc fit' or the Early exit page); do not edit the file."
        )

    def get(self, obj: dict, key: str, field: str, kind, kind_name: str):
        if key not in obj:
            raise self.bad(field, "is missing")
        value = obj[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):  # JSON true is not 1
            raise self.bad(field, f"is {_show(value)}, not {kind_name}")
        return value

    def number(self, obj: dict, key: str, field: str) -> float:
        value = float(self.get(obj, key, field, (int, float), "a number"))
        if not math.isfinite(value):
            raise self.bad(field, f"is {value}, not a finite number")
        return value

    def numbers(self, obj: dict, key: str, field: str, n: int) -> list:
        values = self.get(obj, key, field, list, "a list")
        if len(values) != n:
            raise self.bad(field, f"has {len(values):,} values; the model has {n:,} trees")
        return values

    def thresholds(self, values: list, field: str, side: str) -> np.ndarray:
        none, every = (-math.inf, math.inf) if side == "minus" else (math.inf, -math.inf)
        out = np.empty(len(values))
        for r, v in enumerate(values):
            if v is None:
                out[r] = none
            elif v == "all":
                out[r] = every
            elif isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
                out[r] = float(v)
            else:
                raise self.bad(
                    f"{field}[{r}]",
                    f"is {_show(v)}; a threshold is a finite number, null (no exit) or "
                    '"all" (every undecided row exits)',
                )
        return out


def _show(value) -> str:
    text = json.dumps(value) if isinstance(value, (str, int, float, bool, type(None))) else type(value).__name__
    return text[:40]


def read_policy(text: str | bytes, model: ModelFile, *, name: str = "policy file") -> EarlyExitPolicy:
    """The policy of a policy file, every field checked against the model it is applied with.

    Checked before anything is applied: the ``format``; the model's SHA-256 and tree count;
    ``order`` a permutation of all the model's trees (integers, no duplicates); ``eps_minus``
    and ``eps_plus`` one per tree, each a finite number, ``null`` (no exit on that side) or
    ``"all"`` (every undecided row exits on that side), with ``eps_minus <= eps_plus``;
    ``threshold`` finite; ``bias`` equal to the model's; ``costs`` positive and finite;
    ``alpha`` in [0, 1); a known ``method``.

    Parameters
    ----------
    text : str or bytes
        The policy file (read through :func:`engine.untrusted.parse_json`: size and nesting limits).
    model : ModelFile
        The model it is applied with.
    name : str
        The file name, for messages.

    Returns
    -------
    EarlyExitPolicy

    Raises
    ------
    InputError
        Not a policy file, written for another model, or any field invalid (the message names it).
    """
    fields = _PolicyFields(f"policy '{name}'")
    record = parse_json(text, what=f"policy '{name}'")
    n = _check_model(record, model, fields)
    p = fields.get(record, "policy", "policy", dict, "an object")
    order = _check_order(fields.numbers(p, "order", "policy.order", n), n, fields)
    eps_minus = fields.thresholds(fields.numbers(p, "eps_minus", "policy.eps_minus", n), "policy.eps_minus", "minus")
    eps_plus = fields.thresholds(fields.numbers(p, "eps_plus", "policy.eps_plus", n), "policy.eps_plus", "plus")
    crossed = eps_minus > eps_plus
    if crossed.any():
        r = int(np.flatnonzero(crossed)[0])
        raise fields.bad(f"policy.eps_minus[{r}]", f"is above policy.eps_plus[{r}] (a row cannot exit both ways)")
    threshold = fields.number(p, "threshold", "policy.threshold")
    bias = fields.number(p, "bias", "policy.bias")
    if bias != model.ensemble.bias:
        raise fields.bad("policy.bias", f"is {bias!r}, but the model's bias (initial score) is {model.ensemble.bias!r}")
    costs = fields.numbers(p, "costs", "policy.costs", n)
    for r, c in enumerate(costs):
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not (math.isfinite(c) and c > 0):
            raise fields.bad(f"policy.costs[{r}]", f"is {_show(c)}, not a positive number")
    alpha = fields.number(p, "alpha", "policy.alpha")
    if not 0 <= alpha < 1:
        raise fields.bad("policy.alpha", f"is {alpha}, not a fraction in [0, 1)")
    method = fields.get(p, "method", "policy.method", str, "a string")
    if not _known_method(method):
        raise fields.bad("policy.method", f"is {_show(method)}, not a method the studio fits")
    fit_seconds = fields.number(p, "fit_seconds", "policy.fit_seconds") if "fit_seconds" in p else 0.0
    if fit_seconds < 0:
        raise fields.bad("policy.fit_seconds", f"is {fit_seconds}, not a duration")
    mistakes = (
        fields.get(p, "fit_disagreements", "policy.fit_disagreements", int, "an integer")
        if "fit_disagreements" in p
        else 0
    )
    if mistakes < 0:
        raise fields.bad("policy.fit_disagreements", f"is {mistakes}, not a count")
    return EarlyExitPolicy(
        order,
        eps_minus,
        eps_plus,
        threshold,
        bias,
        np.asarray(costs, dtype=np.float64),
        alpha,
        method,
        fit_seconds,
        mistakes,
    )


def _check_model(record, model: ModelFile, fields: _PolicyFields) -> int:
    """The file's format and the model it names (SHA-256, tree count); returns the number of trees."""
    if not isinstance(record, dict):
        raise fields.bad("(the file)", "is not a JSON object; this is not a policy file written by 'opstudio qwyc fit'")
    fmt = record.get("format")
    if fmt != POLICY_FORMAT:
        raise fields.bad(
            "format",
            f"is {_show(fmt)}, not {POLICY_FORMAT!r}: this is not a policy file written by 'opstudio qwyc fit'",
        )
    about = fields.get(record, "model", "model", dict, "an object")
    expected = fields.get(about, "sha256", "model.sha256", str, "a SHA-256")
    if expected != model.fingerprint:
        raise InputError(
            f"The policy was fitted for another model (field 'model.sha256' is {_show(expected[:12])}…), not "
            f"'{model.name}' ({model.fingerprint[:12]}…). Fit a policy for this model."
        )
    trees = fields.get(about, "trees", "model.trees", int, "an integer")
    if trees != model.n_trees:
        raise fields.bad("model.trees", f"is {trees}, but '{model.name}' has {model.n_trees:,} trees")
    return model.n_trees


def _check_order(order: list, n: int, fields: _PolicyFields) -> np.ndarray:
    """``order`` as a permutation of 0..n-1 (integers, in range, each once)."""
    for r, t in enumerate(order):
        if isinstance(t, bool) or not isinstance(t, int):
            raise fields.bad(f"policy.order[{r}]", f"is {_show(t)}, not a tree index (an integer)")
        if not 0 <= t < n:
            raise fields.bad(f"policy.order[{r}]", f"is {t}, not a tree of the model (0 to {n - 1})")
    seen: set[int] = set()
    for r, t in enumerate(order):
        if t in seen:
            raise fields.bad(f"policy.order[{r}]", f"repeats tree {t}: the order must list every tree once")
        seen.add(t)
    return np.asarray(order, dtype=np.int64)


def apply_policy(policy: EarlyExitPolicy, model: ModelFile, rows) -> tuple[np.ndarray, np.ndarray]:
    """(decisions, trees evaluated) per row, evaluating each tree only on the rows still undecided.

    Parameters
    ----------
    policy : EarlyExitPolicy
        The policy (:func:`read_policy`).
    model : ModelFile
        The model whose trees are evaluated.
    rows : pandas.DataFrame, mapping or array_like
        Rows with the model's feature columns; or one row as a mapping from feature name to value, or an
        array in the model's feature order (:meth:`ModelFile.features`: no DataFrame is built for them).

    Returns
    -------
    (numpy.ndarray of bool, numpy.ndarray of int)
        Decision and trees evaluated per row, in input order.
    """
    return policy.predict_lazy(model.ensemble, model.features(rows))


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
