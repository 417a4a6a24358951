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
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import InputError, describe_rows
from ..io._numbers import to_floats
from ..io._rated import parse_labels
from ..presentation import format_bound, format_value
from ..reporting import ENGINE_VERSION, json_safe
from ..untrusted import parse_json
from ._goals import DemographicParity, Egregious, EqualOpportunity, MaxChurn, MaxCoverage, MinCoverage, MinRecall
from ._rates import churn_rate, demographic_parity_ratio, equal_opportunity_ratio, positive_rate
from ._solver import ConstrainedModel, ConstraintsMissedWarning, fit_constrained

__all__ = [
    "Preprocessing",
    "fit_preprocessing",
    "TableSpec",
    "TableModel",
    "train_on_table",
    "model_json",
    "read_model_json",
    "MODEL_FORMAT",
    "TrainingColumns",
    "detect_training_columns",
    "rates_frame",
    "MAX_CATEGORIES",
    "MAX_FEATURES",
    "MAX_DESIGN_CELLS",
    "MAX_COEFFICIENT",
]

#: the ``format`` field of a model file written by :func:`model_json`
MODEL_FORMAT = "opstudio-constrained-linear/1"
MISSING_CATEGORY = "(missing)"
#: most categories one categorical column may have (more is an identifier or free text, not a feature)
MAX_CATEGORIES = 1_000
#: most design-matrix columns (numeric columns + categories): the solver's Newton steps use a dense
#: (d + 1) x (d + 1) Hessian, 32 MB and seconds per solve at this size (7 GB at 30,000)
MAX_FEATURES = 2_000
#: most cells (rows x features) of a training design matrix, 8 bytes each (400 MB)
MAX_DESIGN_CELLS = 50_000_000
#: rows transformed at once when a model is applied (bounds the memory of predicting on a large table)
TRANSFORM_CHUNK_CELLS = 5_000_000


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
            A column the model uses is absent, a numeric column holds a non-numeric or infinite
            value, or a standardised value is not finite (an extreme mean or scale).
        """
        missing = [c for c in (*self.numeric, *self.categorical) if c not in frame.columns]
        if missing:
            raise InputError(
                f"The table has no column {missing[0]!r}, which the model uses"
                f"{f' (and {len(missing) - 1} more)' if len(missing) > 1 else ''}."
            )
        # one 0/1 per row and categorical column, written by index: no (rows x categories) comparison
        # table is ever built, so memory is the design matrix itself
        x = np.zeros((len(frame), len(self.feature_names)))
        for j, (c, mean, scale) in enumerate(zip(self.numeric, self.means, self.scales)):
            values = _numbers(frame[c], c)
            with np.errstate(over="ignore", invalid="ignore"):  # an overflow is reported just below
                x[:, j] = (np.where(np.isnan(values), mean, values) - mean) / scale
            overflow = ~np.isfinite(x[:, j])
            if overflow.any():
                raise InputError(
                    f"Numeric column '{c}': standardised with the model's mean {mean:g} and scale "
                    f"{scale:g}, the values at {describe_rows(overflow)} are not finite numbers. Check "
                    "the model's preprocessing for that column, or those values."
                )
        offset = len(self.numeric)
        for c, cats in zip(self.categorical, self.categories):
            codes = pd.Index(cats, dtype=object).get_indexer(_categories(frame[c]))
            rows = np.flatnonzero(codes >= 0)
            x[rows, offset + codes[rows]] = 1.0
            offset += len(cats)
        return x

    def as_dict(self) -> dict:
        """The preprocessing as the model file writes it.

        Returns
        -------
        dict
            ``{"numeric": [{"column", "mean", "scale"}, ...], "categorical": [{"column",
            "categories"}, ...]}``.
        """
        return {
            "numeric": [{"column": c, "mean": m, "scale": s} for c, m, s in zip(self.numeric, self.means, self.scales)],
            "categorical": [{"column": c, "categories": list(v)} for c, v in zip(self.categorical, self.categories)],
        }


def _numbers(values: pd.Series, column: str) -> np.ndarray:
    numbers = to_floats(values)
    bad = np.isnan(numbers) & (values.notna() & (values.astype(str).str.strip() != "")).to_numpy()
    if bad.any():
        raise InputError(f"Numeric column '{column}': non-numeric values at {describe_rows(bad)}.")
    infinite = np.isinf(numbers)
    if infinite.any():
        raise InputError(
            f"Numeric column '{column}': infinite values at {describe_rows(infinite)}. Replace them "
            "with finite numbers or leave them empty (a missing value counts as the column's mean)."
        )
    return numbers


def _categories(values: pd.Series) -> np.ndarray:
    return (
        values.astype("string")
        .str.strip()
        .fillna(MISSING_CATEGORY)
        .replace("", MISSING_CATEGORY)
        .to_numpy(dtype=object)
    )


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

    Raises
    ------
    InputError
        A numeric column holds a non-numeric or infinite value or overflows when standardised;
        a categorical column has more than :data:`MAX_CATEGORIES` distinct values (an identifier
        or free text: the message says to exclude, drop or bucket it); or the features would be
        more than :data:`MAX_FEATURES` design columns. Wide columns are refused rather than
        encoded sparsely: the solver's Newton steps use a dense Hessian over the features.
    """
    numeric = [c for c in columns if _is_numeric(frame[c])]
    categorical = [c for c in columns if c not in numeric]
    means, scales = [], []
    for c in numeric:
        v = _numbers(frame[c], c)
        with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused below, without NumPy's warning
            mean = float(np.nanmean(v)) if np.isfinite(v).any() else 0.0
            scale = float(np.nanstd(v)) if np.isfinite(v).any() else 1.0
        if not (math.isfinite(mean) and math.isfinite(scale)):
            raise InputError(
                f"Numeric column '{c}': its values are too large to standardise (their mean or "
                "standard deviation overflows). Rescale the column (for example to thousands) or "
                "exclude it."
            )
        means.append(mean)
        scales.append(scale if scale > 0 else 1.0)
    cats = []
    for c in categorical:
        values = _categories(frame[c])
        distinct = pd.unique(values)
        if distinct.size > MAX_CATEGORIES:
            raise InputError(
                f"Categorical column '{c}' has {distinct.size:,} distinct values in the {len(frame):,} "
                f"fitting rows; at most {MAX_CATEGORIES:,} categories per column are one-hot encoded "
                "(a column this varied is an identifier or free text, not a feature). Exclude it "
                f"(--exclude {c} / the page's excluded columns), drop it from the table, or bucket it "
                "into fewer categories."
            )
        cats.append(tuple(sorted(str(v) for v in distinct)))
    prep = Preprocessing(tuple(numeric), tuple(means), tuple(scales), tuple(categorical), tuple(cats))
    width = len(prep.feature_names)
    if width > MAX_FEATURES:
        widest = sorted(zip(categorical, cats), key=lambda t: -len(t[1]))[:3]
        raise InputError(
            f"The features would be {width:,} design columns (numeric columns plus one per category); "
            f"at most {MAX_FEATURES:,} are trained on. The widest categorical columns: "
            + ", ".join(f"'{c}' ({len(v):,} categories)" for c, v in widest)
            + ". Exclude, drop or bucket some of them."
        )
    return prep


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
    for role, c in (
        ("label", spec.label),
        ("group", spec.group),
        ("deployed", spec.deployed),
        ("flag", spec.flag),
        ("split", spec.split),
        *(("excluded", c) for c in spec.exclude),
    ):
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
            raise InputError(
                f"No row of column '{spec.group}' is in the {name} group "
                f"({spec.group_value if name == 'protected' else spec.reference_value!r}); values are "
                f"{', '.join(sorted(set(text))[:10])}."
            )
    return protected, reference


def _test_rows(frame: pd.DataFrame, spec: TableSpec) -> np.ndarray:
    """Rows held out: ``split`` column values 'test' (others train), else a seeded random share."""
    if spec.split is not None:
        text = _categories(frame[spec.split]).astype(str)
        lowered = np.char.lower(text.astype(str))
        unknown = sorted(set(lowered) - {"train", "fit", "test"})
        if unknown:
            raise InputError(
                f"Split column '{spec.split}': values must be train (or fit) and test; found {', '.join(unknown[:5])}."
            )
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
    out = {
        "rows": int(rows.sum()),
        "labelled_rows": int(labelled.sum()),
        "error": float(np.mean(decision[labelled] != labels[labelled])) if labelled.any() else math.nan,
        "positive_rate": positive_rate(decision, rows),
    }
    if labelled.any() and (labels[labelled] == 1).any():
        out["recall"] = float(decision[labelled & (labels == 1)].mean())
    if groups is not None:
        protected, reference = groups
        out["positive_rate_protected"] = positive_rate(decision, protected & rows)
        out["positive_rate_reference"] = positive_rate(decision, reference & rows)
        out["demographic_parity_ratio"] = demographic_parity_ratio(decision[rows], protected[rows], reference[rows])
        if labelled.any():
            out["equal_opportunity_ratio"] = equal_opportunity_ratio(
                decision[labelled], labels[labelled], protected[labelled], reference[labelled]
            )
    if deployed is not None:
        out["churn"] = churn_rate(decision, deployed, rows)
    return out


#: (setting, the bound in words as its slider names it, the training rate that meets it)
_BOUNDS_IN_WORDS = (
    ("demographic_parity", "demographic parity ratio (protected / reference) ≥ κ =", "demographic_parity_ratio"),
    ("equal_opportunity", "equal opportunity ratio ≥ κ =", "equal_opportunity_ratio"),
    ("max_coverage", "share flagged ≤", "positive_rate"),
    ("min_coverage", "share flagged ≥", "positive_rate"),
    ("min_recall", "recall ≥", "recall"),
    ("max_churn", "decisions changed ≤", "churn"),
    ("min_egregious_correct", "flagged egregious rows decided correctly ≥", ""),
)


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
        text = (
            f"A linear model over {len(self.preprocessing.feature_names)} features flags "
            f"{r.get('positive_rate', math.nan):.1%} of the {part} rows with error rate {r.get('error', math.nan):.1%}"
        )
        if "demographic_parity_ratio" in r:
            text += f", demographic parity ratio {r['demographic_parity_ratio']:.2f}"
        if "churn" in r:
            text += f", churn {r['churn']:.1%} against the deployed decisions"
        constraints = "; ".join(self.bounds_in_words() or self.constraints) or "no constraints"
        return text + f" (trained under: {constraints})."

    def bounds_in_words(self) -> tuple[str, ...]:
        """Each bound asked for, as its slider shows it, and what the model's decisions achieve on the training rows.

        Returns
        -------
        tuple of str
            One phrase per bound in ``settings`` (``"demographic parity ratio (protected / reference) ≥ κ = 0.80
            requested, 0.8041 achieved on the training rows"``); the requested value reads as its slider
            (:func:`engine.presentation.format_bound`), the achieved one as the rates table. Empty when the
            settings name no bound (a model file written without them).
        """
        achieved = self.rates.get("train", {})
        out = []
        for key, label, rate in _BOUNDS_IN_WORDS:
            if isinstance(self.settings.get(key), (int, float)):
                phrase = f"{label} {format_bound(self.settings[key])} requested"
                if isinstance(achieved.get(rate), (int, float)):
                    phrase += f", {format_value(achieved[rate], 'number')} achieved on the training rows"
                out.append(phrase)
        return tuple(out)

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
            A feature column is absent, a numeric one holds a non-numeric or infinite value, or a
            score is not a finite number (named by its rows).
        """
        width = max(len(self.preprocessing.feature_names), 1)
        step = max(TRANSFORM_CHUNK_CELLS // width, 1)  # rows at a time: memory bounded on any table
        with np.errstate(over="ignore", invalid="ignore"):  # an overflow is reported just below
            score = (
                np.concatenate(
                    [
                        self.preprocessing.transform(frame.iloc[i : i + step]) @ self.coef
                        for i in range(0, max(len(frame), 1), step)
                    ]
                )
                + self.intercept
            )
        bad = ~np.isfinite(score)
        if bad.any():
            raise InputError(
                f"The model's score is not a finite number at {describe_rows(bad)}: the model's "
                "coefficients, means or scales, or the table's values there, are too large. Check the "
                "model file and those rows."
            )
        return score, (score >= 0).astype(np.int8)


def train_on_table(
    frame: pd.DataFrame, spec: TableSpec, *, progress=None, warm_start: TableModel | None = None
) -> TableModel:
    """Fit the constrained linear model on the table's training rows and measure it on train and test rows.

    The constraints hold for the randomised (ramp) classifier; the model file applies the
    deterministic decision score >= 0, so a bound those decisions miss is tightened and the
    model refitted (:func:`~engine.constraints._solver.fit_constrained`, deterministic bounds).

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
        bound slider): the solver starts from it (:func:`~engine.constraints._solver.fit_constrained`).

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
        flag value cannot be read, no feature column is left, or the features are too wide
        (:func:`fit_preprocessing`; more than :data:`MAX_DESIGN_CELLS` design-matrix cells).
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
    cells = len(frame) * len(prep.feature_names)
    if cells > MAX_DESIGN_CELLS:
        raise InputError(
            f"The design matrix would have {len(frame):,} rows x {len(prep.feature_names):,} features "
            f"({cells * 8 / 2**30:,.1f} GB); at most {MAX_DESIGN_CELLS:,} cells are trained on. Train "
            "on a sample of the rows, or exclude or bucket wide categorical columns."
        )
    x = prep.transform(frame)
    constraints = _constraints(
        spec,
        None if groups is None else tuple(g[train] for g in groups),
        None if deployed is None else deployed[train],
        None if flag is None else flag[train],
        np.ones(int(train.sum()), dtype=bool),
    )
    warm = (
        warm_start.fitted
        if warm_start is not None and warm_start.preprocessing.feature_names == prep.feature_names
        else None
    )
    with warnings.catch_warnings():  # a miss is reported in the rates (constraints_unmet_by_decisions)
        warnings.simplefilter("ignore", ConstraintsMissedWarning)
        fitted = fit_constrained(x[train], labels[train], constraints, progress=progress, warm_start=warm)
    decision = (x @ fitted.coef_ + fitted.intercept_ >= 0).astype(int)
    rates = {"train": _rates(decision, labels, train, groups, deployed)}
    if test.any():
        rates["test"] = _rates(decision, labels, test, groups, deployed)
    rates["train"]["constraints_unmet_by_decisions"] = list(fitted.unmet_)
    settings = {k: v for k, v in spec.__dict__.items() if v not in (None, ())}
    return TableModel(
        prep,
        np.asarray(fitted.coef_, dtype=float),
        float(fitted.intercept_),
        tuple(fitted.constraint_names),
        rates,
        settings,
        fitted,
    )


def model_json(model: TableModel) -> str:
    """The model file: feature names, preprocessing, coefficients, intercept, constraints, train/test rates.

    Strict JSON: a rate that is not a number (NaN, infinite) is written as ``null``, and a
    model whose coefficients, intercept, means or scales are not finite is refused, so
    every file written here is read back by :func:`read_model_json`.

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

    Raises
    ------
    InputError
        A coefficient, the intercept, a mean or a scale is not a finite number.
    """
    prep = model.preprocessing
    numbers = np.r_[np.asarray(model.coef, dtype=float), model.intercept, prep.means, prep.scales]
    if not np.isfinite(numbers).all():
        raise InputError(
            "The model has a coefficient, intercept, mean or scale that is not a finite number; it "
            "cannot be written as a model file."
        )
    record = {
        "format": MODEL_FORMAT,
        "engine_version": ENGINE_VERSION,
        "feature_names": list(prep.feature_names),
        "preprocessing": prep.as_dict(),
        "coefficients": [float(c) for c in model.coef],
        "intercept": float(model.intercept),
        "decision": "score = features @ coefficients + intercept; flag if >= 0",
        "constraints": list(model.constraints),
        "rates": model.rates,
        "settings": model.settings,
        "flags_nobody": model.flags_nobody,
    }
    return json.dumps(json_safe(record), indent=2, allow_nan=False)


#: largest |coefficient| and |intercept| a model file may hold (fitted ones are many orders smaller);
#: beyond it a score overflows or loses every other feature's contribution
MAX_COEFFICIENT = 1e12
_MODEL_KEYS = {
    "format",
    "engine_version",
    "feature_names",
    "preprocessing",
    "coefficients",
    "intercept",
    "decision",
    "constraints",
    "rates",
    "settings",
    "flags_nobody",
}
_MODEL_REQUIRED = ("format", "feature_names", "preprocessing", "coefficients", "intercept")


class _ModelFile:
    """Checks of one model file's fields; every problem is an InputError naming the field."""

    def __init__(self, what: str):
        self.what = what

    def error(self, field_name: str, problem: str) -> InputError:
        return InputError(
            f"The {self.what} is not a valid model file ({MODEL_FORMAT}): '{field_name}' {problem}. "
            "Write the model again with 'opstudio constrain --model-out' or the Constrained training "
            "page; do not edit it by hand."
        )

    def mapping(self, value, field_name: str, keys: set, required=()) -> dict:
        if not isinstance(value, dict):
            raise self.error(field_name, f"must be an object, not {_json_type(value)}")
        for key in value:
            if key not in keys:
                raise self.error(f"{field_name}.{key}" if field_name else key, "is not a field of the format")
        for key in required:
            if key not in value:
                raise self.error(f"{field_name}.{key}" if field_name else key, "is missing")
        return value

    def array(self, value, field_name: str, limit: int | None = None) -> list:
        if not isinstance(value, list):
            raise self.error(field_name, f"must be a list, not {_json_type(value)}")
        if limit is not None and len(value) > limit:
            raise self.error(field_name, f"has {len(value):,} entries; at most {limit:,} are read")
        return value

    def text(self, value, field_name: str) -> str:
        if not isinstance(value, str):
            raise self.error(field_name, f"must be text, not {_json_type(value)}")
        return value

    def texts(self, value, field_name: str, limit: int | None = None, unique: bool = False) -> tuple[str, ...]:
        out = tuple(self.text(v, f"{field_name}[{i}]") for i, v in enumerate(self.array(value, field_name, limit)))
        if unique and len(set(out)) < len(out):
            twice = next(v for i, v in enumerate(out) if v in out[:i])
            raise self.error(field_name, f"lists {twice!r} twice")
        return out

    def number(self, value, field_name: str, *, bound: float | None = None, positive: bool = False) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.error(field_name, f"must be a number, not {_json_type(value)}")
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
        if not math.isfinite(number) or (bound is not None and abs(number) > bound):
            raise self.error(
                field_name,
                f"is {str(value)[:40]}; it must be a finite number"
                + (f" of magnitude at most {bound:g}" if bound is not None else ""),
            )
        if positive and not number > 0:
            raise self.error(field_name, f"is {number:g}; a scale must be > 0")
        return number

    def preprocessing(self, value) -> Preprocessing:
        p = self.mapping(value, "preprocessing", {"numeric", "categorical"}, ("numeric", "categorical"))
        numeric = [
            self.mapping(d, f"preprocessing.numeric[{i}]", {"column", "mean", "scale"}, ("column", "mean", "scale"))
            for i, d in enumerate(self.array(p["numeric"], "preprocessing.numeric", MAX_FEATURES))
        ]
        categorical = [
            self.mapping(d, f"preprocessing.categorical[{i}]", {"column", "categories"}, ("column", "categories"))
            for i, d in enumerate(self.array(p["categorical"], "preprocessing.categorical", MAX_FEATURES))
        ]
        prep = Preprocessing(
            tuple(self.text(d["column"], f"preprocessing.numeric[{i}].column") for i, d in enumerate(numeric)),
            tuple(self.number(d["mean"], f"preprocessing.numeric[{i}].mean") for i, d in enumerate(numeric)),
            tuple(
                self.number(d["scale"], f"preprocessing.numeric[{i}].scale", positive=True)
                for i, d in enumerate(numeric)
            ),
            tuple(self.text(d["column"], f"preprocessing.categorical[{i}].column") for i, d in enumerate(categorical)),
            tuple(
                self.texts(d["categories"], f"preprocessing.categorical[{i}].categories", MAX_CATEGORIES, True)
                for i, d in enumerate(categorical)
            ),
        )
        columns = prep.numeric + prep.categorical
        if len(set(columns)) < len(columns):
            twice = next(c for i, c in enumerate(columns) if c in columns[:i])
            raise self.error("preprocessing", f"uses column {twice!r} twice")
        if sum(map(len, prep.categories)) + len(prep.numeric) > MAX_FEATURES:
            raise self.error("preprocessing", f"defines more than {MAX_FEATURES:,} features")
        return prep

    def rates(self, value) -> dict:
        out = {}
        for part, measures in self.mapping(value, "rates", {"train", "test"}).items():
            if not isinstance(measures, dict):
                raise self.error(f"rates.{part}", f"must be an object, not {_json_type(measures)}")
            out[part] = {}
            for key, v in measures.items():
                name = f"rates.{part}.{key}"
                if v is None:
                    out[part][key] = math.nan
                elif isinstance(v, list):
                    out[part][key] = list(self.texts(v, name))
                else:  # a count stays an integer
                    number = self.number(v, name)
                    out[part][key] = v if isinstance(v, int) else number
        return out

    def settings(self, value) -> dict:
        out = {}
        for key, v in self.mapping(value, "settings", set(TableSpec.__dataclass_fields__)).items():
            if isinstance(v, list):
                out[key] = self.texts(v, f"settings.{key}")
            elif isinstance(v, float):
                out[key] = self.number(v, f"settings.{key}")
            elif v is None or isinstance(v, (str, int)):
                out[key] = v
            else:
                raise self.error(f"settings.{key}", f"must be text or a number, not {_json_type(v)}")
        return out


def _json_type(value) -> str:
    return {dict: "an object", list: "a list", str: "text", bool: "true/false", type(None): "null"}.get(
        type(value), "a number"
    )


def read_model_json(text: str | bytes, *, name: str = "model file") -> TableModel:
    """A model written by :func:`model_json`, every field checked before it is used.

    The document is parsed by :func:`engine.untrusted.parse_json` (size and nesting limited,
    ``NaN`` / ``Infinity`` refused); then only the format's fields are accepted, each of its
    type: coefficients, intercept, means and scales finite (coefficients and intercept of
    magnitude at most :data:`MAX_COEFFICIENT`), scales > 0, categories lists of distinct
    text (at most :data:`MAX_CATEGORIES` per column, :data:`MAX_FEATURES` features in all),
    columns distinct, ``feature_names`` exactly the preprocessing's and one coefficient per
    feature.

    Parameters
    ----------
    text : str or bytes
        The model file's content.
    name : str, optional
        How messages name the file (``"model file 'm.json'"``).

    Returns
    -------
    TableModel
        The model as written: preprocessing, coefficients, intercept, constraints, rates
        (``null`` read as NaN) and settings.

    Raises
    ------
    InputError
        Naming the field: not JSON or too large or deep, another ``format``, a missing,
        unknown or mistyped field, a number that is not finite or out of range, feature
        names that do not match the preprocessing, or not one coefficient per feature.
    """
    check = _ModelFile(name)
    record = check.mapping(parse_json(text, what=name), "", _MODEL_KEYS, _MODEL_REQUIRED)
    if record["format"] != MODEL_FORMAT:
        raise check.error("format", f"is {str(record['format'])[:60]!r}, not {MODEL_FORMAT!r}")
    prep = check.preprocessing(record["preprocessing"])
    names = check.texts(record["feature_names"], "feature_names", MAX_FEATURES)
    if names != prep.feature_names:
        first = next(
            (i for i, (a, b) in enumerate(zip(names, prep.feature_names)) if a != b),
            min(len(names), len(prep.feature_names)),
        )
        written = repr(names[first][:60]) if first < len(names) else "nothing"
        made = repr(prep.feature_names[first][:60]) if first < len(prep.feature_names) else "nothing"
        raise check.error(
            "feature_names",
            f"do not match the preprocessing: entry {first} is {written} where the preprocessing makes {made} "
            f"({len(names):,} names for {len(prep.feature_names):,} features; a renamed column must be renamed "
            "in both)",
        )
    coef = np.array(
        [
            check.number(v, f"coefficients[{i}]", bound=MAX_COEFFICIENT)
            for i, v in enumerate(check.array(record["coefficients"], "coefficients", MAX_FEATURES))
        ],
        dtype=float,
    )
    if coef.size != len(names):
        raise check.error(
            "coefficients",
            f"has {coef.size:,} entries for {len(names):,} features; one coefficient per feature is needed",
        )
    intercept = check.number(record["intercept"], "intercept", bound=MAX_COEFFICIENT)
    for key in ("engine_version", "decision"):
        if key in record:
            check.text(record[key], key)
    if "flags_nobody" in record and not isinstance(record["flags_nobody"], bool):
        raise check.error("flags_nobody", f"must be true or false, not {_json_type(record['flags_nobody'])}")
    constraints = check.texts(record.get("constraints", []), "constraints")
    return TableModel(
        prep,
        coef,
        intercept,
        constraints,
        check.rates(record.get("rates", {})),
        check.settings(record.get("settings", {})),
    )


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
        raise InputError(
            "No label column found: name it 'label' (values 1/0, yes/no ...; empty = unlabelled) or choose it."
        )
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
    names = {
        "rows": "rows",
        "labelled_rows": "labelled rows",
        "error": "error rate",
        "positive_rate": "share flagged",
        "recall": "recall",
        "positive_rate_protected": "share flagged, protected group",
        "positive_rate_reference": "share flagged, reference group",
        "demographic_parity_ratio": "demographic parity ratio (protected / reference)",
        "equal_opportunity_ratio": "equal opportunity ratio",
        "churn": "churn against the deployed model",
    }
    parts = {part: values for part, values in model.rates.items()}
    return pd.DataFrame(
        [
            {"measure": label, **{part: values.get(key) for part, values in parts.items()}}
            for key, label in names.items()
            if any(key in v for v in parts.values())
        ]
    )
