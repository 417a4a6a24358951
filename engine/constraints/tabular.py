"""Constrained training on a user's table: preprocessing, the constraint form, and a model file to deploy.

Goh, Cotter, Gupta & Friedlander, *Satisfying Real-world Goals with Dataset
Constraints* (NIPS 2016): a linear classifier trained under rate constraints. Here
the data is an analyst's own table — feature columns of any type, a binary label
(empty = unlabelled row, still used by churn and coverage constraints), a
protected group given as ``column = value``, optionally the deployed model's
decisions and an egregious-example flag. Categorical columns are one-hot encoded
and numeric ones standardised; the preprocessing is part of the fitted model, which
is written as JSON (feature names, preprocessing, coefficients, intercept,
constraints, train/test rates) and applied by :meth:`TableModel.decide` exactly as
fitted.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from ..errors import InputError, describe_rows
from ..io.rated import parse_labels
from ..reporting import ENGINE_VERSION
from .goals import DemographicParity, Egregious, EqualOpportunity, MaxChurn, MaxCoverage, MinCoverage, MinRecall
from .rates import churn_rate, demographic_parity_ratio, equal_opportunity_ratio, positive_rate
from .solver import ConstrainedModel, InfeasibleConstraintsError, fit_constrained

__all__ = ["Preprocessing", "fit_preprocessing", "TableSpec", "TableModel", "train_on_table", "model_json",
           "read_model_json", "MODEL_FORMAT", "TrainingColumns", "detect_training_columns", "rates_frame"]

#: the ``format`` field of a model file written by :func:`model_json`
MODEL_FORMAT = "opstudio-constrained-linear/1"
MISSING_CATEGORY = "(missing)"


@dataclass(frozen=True)
class Preprocessing:
    """Numeric columns standardised (mean, scale; a missing value becomes the mean), categorical ones one-hot.

    The design matrix has the numeric columns first, then one 0/1 column per
    (categorical column, category); a value not among a column's categories gets zeros
    in all of them.

    Parameters
    ----------
    numeric : tuple of str
        The numeric columns, in design-matrix order.
    means : tuple of float
        Each numeric column's mean on the fitting rows (missing values left out).
    scales : tuple of float
        Each numeric column's standard deviation on the fitting rows (1 where it is 0 or
        undefined); the feature is ``(value - mean) / scale``.
    categorical : tuple of str
        The categorical columns, in design-matrix order.
    categories : tuple of tuple of str
        Each categorical column's categories (stripped text; a missing or blank value is
        the category ``"(missing)"``), sorted.
    """

    numeric: tuple[str, ...]
    means: tuple[float, ...]
    scales: tuple[float, ...]
    categorical: tuple[str, ...]
    categories: tuple[tuple[str, ...], ...]

    @property
    def feature_names(self) -> tuple[str, ...]:
        """The design matrix's column names: the numeric columns, then ``column=category``."""
        return self.numeric + tuple(f"{c}={v}" for c, cats in zip(self.categorical, self.categories) for v in cats)

    def transform(self, frame: pd.DataFrame) -> np.ndarray:
        """The model's design matrix of ``frame`` (columns found by name; any other column ignored).

        Parameters
        ----------
        frame : pandas.DataFrame
            A table with every column of :attr:`numeric` and :attr:`categorical`.

        Returns
        -------
        numpy.ndarray of float of shape (len(frame), len(feature_names))
            Standardised numeric columns, then the one-hot blocks, in :attr:`feature_names` order.

        Raises
        ------
        InputError
            A column the model uses is absent, or a numeric column holds a non-numeric value.
        """
        missing = [c for c in (*self.numeric, *self.categorical) if c not in frame.columns]
        if missing:
            raise InputError(f"The table has no column {missing[0]!r}, which the model uses"
                             f"{f' (and {len(missing) - 1} more)' if len(missing) > 1 else ''}.")
        parts = []
        for c, mean, scale in zip(self.numeric, self.means, self.scales):
            values = _numbers(frame[c], c)
            parts.append(((np.where(np.isnan(values), mean, values) - mean) / scale)[:, None])
        for c, cats in zip(self.categorical, self.categories):
            text = _categories(frame[c])
            parts.append((text[:, None] == np.asarray(cats, dtype=object)[None, :]).astype(float))
        return np.hstack(parts) if parts else np.zeros((len(frame), 0))

    def as_dict(self) -> dict:
        """The preprocessing as the model file writes it.

        Returns
        -------
        dict
            ``{"numeric": [{"column", "mean", "scale"}, ...], "categorical": [{"column",
            "categories"}, ...]}``.
        """
        return {"numeric": [{"column": c, "mean": m, "scale": s} for c, m, s in zip(self.numeric, self.means,
                                                                                   self.scales)],
                "categorical": [{"column": c, "categories": list(v)} for c, v in zip(self.categorical,
                                                                                    self.categories)]}


def _numbers(values: pd.Series, column: str) -> np.ndarray:
    out = pd.to_numeric(values, errors="coerce")
    bad = out.isna() & values.notna() & (values.astype(str).str.strip() != "")
    if bad.any():
        raise InputError(f"Numeric column '{column}': non-numeric values at {describe_rows(bad.to_numpy())}.")
    return out.to_numpy(dtype=float)


def _categories(values: pd.Series) -> np.ndarray:
    return values.astype("string").str.strip().fillna(MISSING_CATEGORY).replace("", MISSING_CATEGORY) \
        .to_numpy(dtype=object)


def _is_numeric(values: pd.Series) -> bool:
    if pd.api.types.is_bool_dtype(values):
        return False
    if pd.api.types.is_numeric_dtype(values):
        return True
    present = values.dropna().astype(str).str.strip()
    present = present[present != ""]
    return len(present) > 0 and pd.to_numeric(present, errors="coerce").notna().all()


def fit_preprocessing(frame: pd.DataFrame, columns: list[str]) -> Preprocessing:
    """Numeric columns (every value a number) standardised on ``frame``; the others one-hot on their values.

    A column is numeric when its dtype is numeric (not boolean) or every non-blank value
    parses as a number.

    Parameters
    ----------
    frame : pandas.DataFrame
        The fitting rows (the training rows of :func:`train_on_table`).
    columns : list of str
        The feature columns of ``frame``.

    Returns
    -------
    Preprocessing
        Means and standard deviations of the numeric columns on ``frame`` (0 and 1 for a
        column without values), the sorted categories of the others.
    """
    numeric = [c for c in columns if _is_numeric(frame[c])]
    categorical = [c for c in columns if c not in numeric]
    means, scales = [], []
    for c in numeric:
        v = _numbers(frame[c], c)
        mean = float(np.nanmean(v)) if np.isfinite(v).any() else 0.0
        scale = float(np.nanstd(v)) if np.isfinite(v).any() else 1.0
        means.append(mean)
        scales.append(scale if scale > 0 else 1.0)
    cats = tuple(tuple(sorted(set(_categories(frame[c])))) for c in categorical)
    return Preprocessing(tuple(numeric), tuple(means), tuple(scales), tuple(categorical), cats)


@dataclass(frozen=True)
class TableSpec:
    """Which columns play which role and which constraints hold (``None`` = not asked for).

    Every column that is not the label, deployed, flag or split column and not in
    ``exclude`` is a feature (the group column included). Constraints hold on the
    training rows.

    Parameters
    ----------
    label : str
        The label column: 1/0, yes/no, true/false ...; empty = unlabelled row.
    group : str, optional
        The column that defines the protected group.
    group_value : str, optional
        The ``group`` value of the protected rows.
    reference_value : str, optional
        The ``group`` value of the reference rows; None: every row outside the protected group.
    deployed : str, optional
        The column of the deployed model's 0/1 decisions (every row needs one).
    flag : str, optional
        The 0/1 egregious-example flag column (every row needs one).
    exclude : tuple of str, optional
        Columns that are not features.
    demographic_parity : float, optional
        kappa: positive rate(protected) >= kappa x positive rate(reference).
    equal_opportunity : float, optional
        kappa: true positive rate(protected) >= kappa x true positive rate(reference).
    max_churn : float, optional
        The largest share of rows whose decision differs from the deployed one.
    min_recall : float, optional
        The smallest recall.
    max_coverage, min_coverage : float, optional
        The largest / smallest share of rows flagged.
    min_egregious_correct : float, optional
        The smallest share of flagged rows classified correctly.
    test_fraction : float, optional
        Share of rows held out at random, in [0, 1) (default 0.3), when there is no ``split``.
    seed : int, optional
        Seed of the random hold-out.
    split : str, optional
        A column of ``train`` (or ``fit``) / ``test`` values that fixes the hold-out.

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), Table 2 (the constraints).
    """

    label: str
    group: str | None = None
    group_value: str | None = None
    reference_value: str | None = None
    deployed: str | None = None
    flag: str | None = None
    exclude: tuple[str, ...] = ()
    demographic_parity: float | None = None
    equal_opportunity: float | None = None
    max_churn: float | None = None
    min_recall: float | None = None
    max_coverage: float | None = None
    min_coverage: float | None = None
    min_egregious_correct: float | None = None
    test_fraction: float = 0.3
    seed: int = 0
    split: str | None = None

    def roles(self) -> tuple[str, ...]:
        """The role columns that are not features: label, deployed, flag and split, those set.

        Returns
        -------
        tuple of str
        """
        return tuple(c for c in (self.label, self.deployed, self.flag, self.split) if c)


def _check_columns(frame: pd.DataFrame, spec: TableSpec) -> None:
    cols = [str(c) for c in frame.columns]
    for role, c in (("label", spec.label), ("group", spec.group), ("deployed", spec.deployed), ("flag", spec.flag),
                    ("split", spec.split),
                    *(("excluded", c) for c in spec.exclude)):
        if c is not None and c not in cols:
            raise InputError(f"No {role} column {c!r} in the table; columns are {', '.join(cols[:15])}.")
    if (spec.demographic_parity or spec.equal_opportunity) and spec.group is None:
        raise InputError("Demographic parity and equal opportunity need the protected group: --group COL=VALUE.")
    if spec.max_churn is not None and spec.deployed is None:
        raise InputError("A churn constraint needs the deployed model's decisions: --deployed COL.")
    if spec.min_egregious_correct is not None and spec.flag is None:
        raise InputError("An egregious-example constraint needs the flag column.")
    if not 0 <= spec.test_fraction < 1:
        raise InputError(f"The test fraction must be in [0, 1); got {spec.test_fraction}.")


def _groups(frame: pd.DataFrame, spec: TableSpec) -> tuple[np.ndarray, np.ndarray] | None:
    if spec.group is None:
        return None
    text = _categories(frame[spec.group])
    protected = text == str(spec.group_value).strip()
    reference = (text == str(spec.reference_value).strip()) if spec.reference_value is not None else ~protected
    for name, rows in (("protected", protected), ("reference", reference)):
        if not rows.any():
            raise InputError(f"No row of column '{spec.group}' is in the {name} group "
                             f"({spec.group_value if name == 'protected' else spec.reference_value!r}); values are "
                             f"{', '.join(sorted(set(text))[:10])}.")
    return protected, reference


def _test_rows(frame: pd.DataFrame, spec: TableSpec) -> np.ndarray:
    """Rows held out: ``split`` column values 'test' (others train), else a seeded random share."""
    if spec.split is not None:
        text = _categories(frame[spec.split]).astype(str)
        lowered = np.char.lower(text.astype(str))
        unknown = sorted(set(lowered) - {"train", "fit", "test"})
        if unknown:
            raise InputError(f"Split column '{spec.split}': values must be train (or fit) and test; found "
                             f"{', '.join(unknown[:5])}.")
        test = lowered == "test"
        if test.all():
            raise InputError(f"Split column '{spec.split}' marks every row 'test'; mark the training rows 'train'.")
        return test
    test = np.zeros(len(frame), dtype=bool)
    test[np.random.default_rng(spec.seed).permutation(len(frame))[: int(round(spec.test_fraction * len(frame)))]] = True
    return test


def _binary(frame: pd.DataFrame, column: str, what: str) -> np.ndarray:
    values, missing = parse_labels(frame[column], column)
    if missing.any():
        raise InputError(f"{what} column '{column}': empty values at {describe_rows(missing)}; every row needs one.")
    return values.astype(int)


def _constraints(spec: TableSpec, groups, deployed, flag, rows: np.ndarray) -> list:
    out = []
    if groups is not None:
        protected, reference = (g & rows for g in groups)
        if spec.demographic_parity is not None:
            out.append(DemographicParity(protected, reference, spec.demographic_parity))
        if spec.equal_opportunity is not None:
            out.append(EqualOpportunity(protected, reference, spec.equal_opportunity))
    if spec.max_churn is not None:
        out.append(MaxChurn(deployed, spec.max_churn, rows))
    if spec.min_recall is not None:
        out.append(MinRecall(spec.min_recall, rows))
    if spec.max_coverage is not None:
        out.append(MaxCoverage(spec.max_coverage, rows))
    if spec.min_coverage is not None:
        out.append(MinCoverage(spec.min_coverage, rows))
    if spec.min_egregious_correct is not None:
        out.append(Egregious(flag.astype(bool) & rows, spec.min_egregious_correct))
    return out


def _rates(decision, labels, rows, groups, deployed) -> dict:
    labelled = rows & (labels >= 0)
    out = {"rows": int(rows.sum()), "labelled_rows": int(labelled.sum()),
           "error": float(np.mean(decision[labelled] != labels[labelled])) if labelled.any() else math.nan,
           "positive_rate": positive_rate(decision, rows)}
    if labelled.any() and (labels[labelled] == 1).any():
        out["recall"] = float(decision[labelled & (labels == 1)].mean())
    if groups is not None:
        protected, reference = groups
        out["positive_rate_protected"] = positive_rate(decision, protected & rows)
        out["positive_rate_reference"] = positive_rate(decision, reference & rows)
        out["demographic_parity_ratio"] = demographic_parity_ratio(decision[rows], protected[rows], reference[rows])
        if labelled.any():
            out["equal_opportunity_ratio"] = equal_opportunity_ratio(
                decision[labelled], labels[labelled], protected[labelled], reference[labelled])
    if deployed is not None:
        out["churn"] = churn_rate(decision, deployed, rows)
    return out


@dataclass(frozen=True)
class TableModel:
    """A fitted constrained linear model with its preprocessing: ``score = X(frame) @ coef + intercept``.

    A row is flagged (decision 1) when its score is >= 0.

    Parameters
    ----------
    preprocessing : Preprocessing
        The map from a table to the design matrix X(frame).
    coef : numpy.ndarray of float of shape (len(preprocessing.feature_names),)
        One coefficient per feature.
    intercept : float
        The intercept.
    constraints : tuple of str
        The constraints trained under, in words.
    rates : dict, optional
        ``{"train": {...}, "test": {...}}`` (test only when rows were held out): ``rows``,
        ``labelled_rows``, ``error``, ``positive_rate`` and, where they apply, ``recall``,
        ``positive_rate_protected``, ``positive_rate_reference``, ``demographic_parity_ratio``,
        ``equal_opportunity_ratio`` and ``churn``, all of the deterministic decisions; the
        training part also lists ``constraints_unmet_by_decisions``.
    settings : dict, optional
        The :class:`TableSpec` fields that were set.
    fitted : ConstrainedModel, optional
        The solver's model on the preprocessed training rows; it warm-starts the next fit
        (``train_on_table(..., warm_start=model)``) and is not written to the model file.
    """

    preprocessing: Preprocessing
    coef: np.ndarray
    intercept: float
    constraints: tuple[str, ...]
    rates: dict = field(default_factory=dict)
    settings: dict = field(default_factory=dict)
    fitted: ConstrainedModel | None = field(default=None, compare=False, repr=False)

    @property
    def flags_nobody(self) -> bool:
        """True when the fitted model flags no training row (say so: it is the trivial classifier)."""
        return self.rates.get("train", {}).get("positive_rate", 1.0) == 0.0

    def sentence(self) -> str:
        """What the model does on the held-out rows (or the training rows), in one sentence.

        Returns
        -------
        str
        """
        part = "test" if "test" in self.rates else "train"
        r = self.rates.get(part, {})
        text = (f"A linear model over {len(self.preprocessing.feature_names)} features flags "
                f"{r.get('positive_rate', math.nan):.1%} of the {part} rows with error rate {r.get('error', math.nan):.1%}")
        if "demographic_parity_ratio" in r:
            text += f", demographic parity ratio {r['demographic_parity_ratio']:.2f}"
        if "churn" in r:
            text += f", churn {r['churn']:.1%} against the deployed decisions"
        constraints = "; ".join(self.constraints) or "no constraints"
        return text + f" (trained under: {constraints})."

    def decide(self, frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        """(score, decision 0/1) for every row of ``frame``, in order; decision = score >= 0.

        Parameters
        ----------
        frame : pandas.DataFrame
            A table with the model's feature columns (other columns are ignored).

        Returns
        -------
        score : numpy.ndarray of float of shape (len(frame),)
            ``X(frame) @ coef + intercept``.
        decision : numpy.ndarray of int8 of shape (len(frame),)
            1 where ``score >= 0``, else 0.

        Raises
        ------
        InputError
            A feature column is absent or a numeric one holds a non-numeric value.
        """
        score = self.preprocessing.transform(frame) @ self.coef + self.intercept
        return score, (score >= 0).astype(np.int8)


#: refits with tightened bounds when the deterministic decisions miss a bound the ramp classifier meets
DETERMINISTIC_REFITS = 5
#: extra margin (in rate units) added to a bound when it is tightened
TIGHTEN_SLACK = 0.005


def _tighten(constraint, excess: float, decisions: np.ndarray, y: np.ndarray):
    """The same constraint with its bound moved by ``excess`` (plus a little slack) towards stricter.

    ``excess`` is in rate units; a ratio bound κ moves by excess / (the reference group's rate).
    """
    step = excess + TIGHTEN_SLACK
    if isinstance(constraint, (DemographicParity, EqualOpportunity)):
        reference = constraint.reference & ((y == 1) if isinstance(constraint, EqualOpportunity) else True)
        rate = max(float(decisions[reference].mean()) if reference.any() else 1.0, 0.05)
        return replace(constraint, kappa=constraint.kappa + excess / rate + TIGHTEN_SLACK)
    if isinstance(constraint, (MaxChurn, MaxCoverage)):
        return replace(constraint, rate=max(constraint.rate - step, 0.0))
    if isinstance(constraint, (MinRecall, MinCoverage)):
        return replace(constraint, rate=min(constraint.rate + step, 1.0))
    if isinstance(constraint, Egregious):
        return replace(constraint, min_correct=min(constraint.min_correct + step, 1.0))
    return constraint


def _fit_deterministic(x: np.ndarray, y: np.ndarray, constraints: list, progress, warm=None):
    """Fit; while the deterministic decisions (score >= 0) miss a bound, tighten it and refit.

    The paper's constraints hold for the randomised (ramp) classifier; a model file is
    applied deterministically, so the bounds are tightened until its decisions meet
    them too (at most :data:`DETERMINISTIC_REFITS` times; what is still unmet is reported).
    Each refit is warm-started from the previous fit, the first one from ``warm``.
    """
    fitted = fit_constrained(x, y, constraints, progress=progress, warm_start=warm)
    exprs = [c.expression(y) for c in constraints]
    current = list(constraints)
    for _ in range(DETERMINISTIC_REFITS):
        z = x @ fitted.coef_ + fitted.intercept_
        excess = [e.value(z, deterministic=True) for e in exprs]  # against the bounds asked for
        if all(v <= 1e-12 for v in excess):
            return fitted, []
        current = [_tighten(c, v, z >= 0, y) if v > 1e-12 else c for c, v in zip(current, excess)]
        try:
            fitted = fit_constrained(x, y, current, progress=progress, warm_start=fitted)
        except InfeasibleConstraintsError:
            break
    z = x @ fitted.coef_ + fitted.intercept_
    return fitted, [f"{c.describe()}: missed by {v:.4f}" for c, v in
                    zip(constraints, (e.value(z, deterministic=True) for e in exprs)) if v > 1e-12]


def train_on_table(frame: pd.DataFrame, spec: TableSpec, *, progress=None,
                   warm_start: TableModel | None = None) -> TableModel:
    """Fit the constrained linear model on the table's training rows and measure it on train and test rows.

    The constraints hold for the randomised (ramp) classifier; the model file applies the
    deterministic decision score >= 0, so a bound those decisions miss is tightened and the
    model refitted, at most :data:`DETERMINISTIC_REFITS` times.

    Parameters
    ----------
    frame : DataFrame
        Feature columns (every column except the label, deployed, flag and excluded ones), the label
        (empty = unlabelled), and the columns the constraints name.
    spec : TableSpec
        Roles, constraints (demographic parity K: positive rate(protected) >= K x positive rate
        (reference) on the training rows; max churn R: share of training rows whose decision differs
        from the deployed one <= R; ...), the test fraction and the seed of the split.
    progress : callable(iteration, max_iter), optional
        Called after every majorization-minimization iteration of each fit.
    warm_start : TableModel, optional
        A model trained on the same table and features (for example at the previous position of a
        bound slider): the solver starts from it (:func:`~engine.constraints.solver.fit_constrained`).

    Returns
    -------
    TableModel
        Preprocessing fitted on the training rows, coefficients and intercept on its design
        matrix, the constraints, the rates on the training and held-out rows (with the
        bounds the deterministic decisions still miss) and the settings.

    Raises
    ------
    InputError
        A named column is absent, a constraint lacks the column it needs, a group value
        matches no row, the split column or test fraction is invalid, a label, deployed or
        flag value cannot be read, or no feature column is left.
    InfeasibleConstraintsError
        No feasible start was found for the constraints on the training rows.
    ValueError
        The training rows have no labelled row, or a constraint selects no row (for
        example a recall bound without a labelled positive).

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016): rate constraints (Table 2) and the ramp
    majorization-minimization (Algorithm 1).
    """
    _check_columns(frame, spec)
    labels, _ = parse_labels(frame[spec.label], spec.label)
    labels = labels.astype(int)
    groups = _groups(frame, spec)
    deployed = None if spec.deployed is None else _binary(frame, spec.deployed, "Deployed-decision")
    flag = None if spec.flag is None else _binary(frame, spec.flag, "Egregious-flag")
    test = _test_rows(frame, spec)
    train = ~test
    features = [str(c) for c in frame.columns if c not in spec.roles() and c not in spec.exclude]
    if not features:
        raise InputError("No feature columns are left after the label, deployed, flag and excluded columns.")
    prep = fit_preprocessing(frame[train], features)
    x = prep.transform(frame)
    constraints = _constraints(spec, None if groups is None else tuple(g[train] for g in groups),
                               None if deployed is None else deployed[train], None if flag is None else flag[train],
                               np.ones(int(train.sum()), dtype=bool))
    warm = warm_start.fitted if warm_start is not None and \
        warm_start.preprocessing.feature_names == prep.feature_names else None
    fitted, unmet = _fit_deterministic(x[train], labels[train], constraints, progress, warm)
    decision = (x @ fitted.coef_ + fitted.intercept_ >= 0).astype(int)
    rates = {"train": _rates(decision, labels, train, groups, deployed)}
    if test.any():
        rates["test"] = _rates(decision, labels, test, groups, deployed)
    rates["train"]["constraints_unmet_by_decisions"] = unmet
    settings = {k: v for k, v in spec.__dict__.items() if v not in (None, ())}
    return TableModel(prep, np.asarray(fitted.coef_, dtype=float), float(fitted.intercept_),
                      tuple(fitted.constraint_names), rates, settings, fitted)


def model_json(model: TableModel) -> str:
    """The model file: feature names, preprocessing, coefficients, intercept, constraints, train/test rates.

    Parameters
    ----------
    model : TableModel
        A fitted model (from :func:`train_on_table` or :func:`read_model_json`).

    Returns
    -------
    str
        Indented JSON with ``format`` (:data:`MODEL_FORMAT`), ``engine_version``,
        ``feature_names``, ``preprocessing``, ``coefficients``, ``intercept``, ``decision``
        (the rule in words), ``constraints``, ``rates``, ``settings`` and ``flags_nobody``.
    """
    record = {"format": MODEL_FORMAT, "engine_version": ENGINE_VERSION,
              "feature_names": list(model.preprocessing.feature_names),
              "preprocessing": model.preprocessing.as_dict(), "coefficients": [float(c) for c in model.coef],
              "intercept": model.intercept, "decision": "score = features @ coefficients + intercept; flag if >= 0",
              "constraints": list(model.constraints), "rates": model.rates, "settings": model.settings,
              "flags_nobody": model.flags_nobody}
    return json.dumps(record, indent=2, default=lambda v: None if isinstance(v, float) and math.isnan(v) else v)


def read_model_json(text: str | bytes) -> TableModel:
    """A model written by :func:`model_json`.

    Parameters
    ----------
    text : str or bytes
        The model file's content.

    Returns
    -------
    TableModel
        The model as written: preprocessing, coefficients, intercept, constraints, rates and
        settings.

    Raises
    ------
    InputError
        Not such a model file (not JSON, another ``format``, a missing field), or not one
        coefficient per feature.
    """
    try:
        record = json.loads(text)
        if record.get("format") != MODEL_FORMAT:
            raise KeyError("format")
        p = record["preprocessing"]
        prep = Preprocessing(tuple(d["column"] for d in p["numeric"]), tuple(float(d["mean"]) for d in p["numeric"]),
                             tuple(float(d["scale"]) for d in p["numeric"]),
                             tuple(d["column"] for d in p["categorical"]),
                             tuple(tuple(d["categories"]) for d in p["categorical"]))
        coef = np.asarray(record["coefficients"], dtype=float)
    except (ValueError, KeyError, TypeError):
        raise InputError(f"This is not a model file written by 'opstudio constrain' (format {MODEL_FORMAT}).") \
            from None
    if coef.size != len(prep.feature_names):
        raise InputError("The model file is inconsistent: one coefficient per feature is needed.")
    return TableModel(prep, coef, float(record["intercept"]), tuple(record.get("constraints", ())),
                      record.get("rates", {}), record.get("settings", {}))


@dataclass(frozen=True)
class TrainingColumns:
    """The role columns of a training table (every other column is a feature unless excluded).

    Parameters
    ----------
    label : str
        The label column.
    group : str, optional
        The column that defines the protected group.
    deployed : str, optional
        The column of the deployed model's decisions.
    flag : str, optional
        The egregious-example flag column.
    split : str, optional
        The train / test split column.
    """

    label: str
    group: str | None = None
    deployed: str | None = None
    flag: str | None = None
    split: str | None = None


_ROLE_NAMES = {
    "label": ("label", "y", "target", "outcome", "class", "income_over_50k", "subscribed"),
    "group": ("group", "sex", "gender", "race", "protected", "segment"),
    "deployed": ("deployed", "deployed_decision", "current_decision", "baseline_decision"),
    "flag": ("egregious", "flag", "egregious_flag"),
    "split": ("split", "partition", "fold"),
}


def detect_training_columns(frame: pd.DataFrame) -> TrainingColumns:
    """Role columns by conventional names (the label also as the first column of label spellings).

    Names are compared after ``strip().lower()`` (label: ``label``, ``y``, ``target``,
    ``outcome`` ...; group: ``group``, ``sex``, ``gender``, ``race`` ...; deployed:
    ``deployed``, ``deployed_decision`` ...; flag: ``egregious``, ``flag`` ...; split:
    ``split``, ``partition``, ``fold``). Without a label by name, the label is the first
    column, not already a role, whose values all read as labels with at least one present.

    Parameters
    ----------
    frame : pandas.DataFrame
        The training table.

    Returns
    -------
    TrainingColumns

    Raises
    ------
    InputError
        No column can be the label.
    """
    lower = {str(c).strip().lower(): str(c) for c in frame.columns}
    found = {role: next((lower[n] for n in names if n in lower), None) for role, names in _ROLE_NAMES.items()}
    if found["label"] is None:
        for c in frame.columns:
            try:
                _, missing = parse_labels(frame[c], str(c))
            except InputError:
                continue
            if (~missing).any() and str(c) not in found.values():
                found["label"] = str(c)
                break
    if found["label"] is None:
        raise InputError("No label column found: name it 'label' (values 1/0, yes/no ...; empty = unlabelled) or "
                         "choose it.")
    return TrainingColumns(**found)


def rates_frame(model: TableModel) -> pd.DataFrame:
    """The fitted model's rates in words, one row per measure, a column per part (train, test).

    Parameters
    ----------
    model : TableModel
        A fitted model.

    Returns
    -------
    pandas.DataFrame
        Column ``measure`` (rows, labelled rows, error rate, share flagged, recall, the
        groups' shares flagged, the parity ratios, churn: those the model has), then one
        column per part of :attr:`TableModel.rates` (None where a part lacks the measure).
    """
    names = {"rows": "rows", "labelled_rows": "labelled rows", "error": "error rate", "positive_rate":
             "share flagged", "recall": "recall", "positive_rate_protected": "share flagged, protected group",
             "positive_rate_reference": "share flagged, reference group",
             "demographic_parity_ratio": "demographic parity ratio (protected / reference)",
             "equal_opportunity_ratio": "equal opportunity ratio", "churn": "churn against the deployed model"}
    parts = {part: values for part, values in model.rates.items()}
    return pd.DataFrame([{"measure": label, **{part: values.get(key) for part, values in parts.items()}}
                         for key, label in names.items() if any(key in v for v in parts.values())])
