"""The kinds of input the studio takes, and a first guess of an upload's kind.

A session holds several named inputs, each of one kind; each page uses the kind
it needs. Every kind has a loader (in :mod:`engine.io`; dated ratings:
:func:`engine.monitor.dated_from_frame`) that returns a validated object or raises
:class:`~engine.errors.InputError`.

To add a kind: write its loader, register an :class:`InputKind` here (and its
test in :func:`guess_kind` if its bytes or columns give it away), add its shipped
sample to :data:`~engine.io._samples.SAMPLES`, its column-mapping form to the
dashboard's ``views/forms`` package, and the kind to the ``input_kinds`` of the pages
that read it (:data:`engine.pages.PAGES`, from which "used by" is derived).
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass

import pandas as pd

from ..errors import RatedDataError
from ._model_formats import how_to_save_models, model_file_example, model_format, model_formats_sentence
from ._rated import DATE_NAMES, DATE_TEXT_PATTERN, ColumnMapping, detect_columns, is_id_name
from ._tables import Table

__all__ = ["InputKind", "INPUT_KINDS", "guess_kind"]


@dataclass(frozen=True)
class InputKind:
    """One kind of input: what it holds and a short example (the pages that read it: :func:`engine.pages.pages_using`).

    Attributes
    ----------
    key : str
        Identifier (``"rated"``, ``"counts"``, ``"batches"`` ...).
    title : str
        Title for people.
    what : str
        What the input holds.
    example : str
        A short example of the content.
    tabular : bool
        True when the input is parsed as a table (CSV / Parquet) before its columns are
        mapped; otherwise its loader reads the raw bytes.
    """

    key: str
    title: str
    what: str
    example: str
    tabular: bool = True


INPUT_KINDS: dict[str, InputKind] = {
    "rated": InputKind(
        "rated",
        "Rated data",
        "One row per rated document: a numeric score column per classifier and the raters' verdict "
        "(1/0, yes/no, tp/fp ...; empty = not rated yet); optionally a weight and a group column.",
        "doc_id,score_image,score_text,label,region\n1,0.91,0.40,1,north\n2,0.62,0.88,0,south\n"
        "3,0.55,0.97,,west\n4,0.47,0.31,0,north",
    ),
    "dated": InputKind(
        "dated",
        "Dated ratings",
        "Rated data over time: one row per rated document with one classifier's score, the raters' verdict "
        "(empty = not rated yet) and the day it was rated (YYYY-MM-DD); optionally a group column. The Monitoring "
        "page follows a deployed threshold period by period.",
        "doc_id,date,score,label,region\n1,2025-01-06,0.91,1,north\n2,2025-01-06,0.62,0,south\n"
        "3,2025-01-07,0.55,,west\n4,2025-01-08,0.47,0,north",
    ),
    "counts": InputKind(
        "counts",
        "Aggregated counts",
        "The paper's aggregated format: one row per threshold tuple t1..tk with the true and false positives "
        "counted there (with or without a header).",
        "t1,t2,tp,fp\n0.1,0.1,120,4000\n0.1,0.5,96,2100\n0.5,0.1,90,1900\n0.5,0.5,41,310",
    ),
    "batches": InputKind(
        "batches",
        "Probability batches",
        "One row per item with its calibrated probability P(positive); optionally a batch id (items decided "
        "together; none = one batch), an item id and the true label (empty = not known yet).",
        "item_id,batch,probability,label\nA-17,mon,0.91,1\nA-18,mon,0.12,0\nB-02,tue,0.47,\nB-03,tue,0.08,0",
    ),
    "population": InputKind(
        "population",
        "Scored population",
        "Every scored document, flagged or not: a unique id and the classifier's score (optionally a prior "
        "probability of being positive). A below-the-line audit samples the documents under the review line.",
        "doc_id,score\n1,0.91\n2,0.12\n3,0.47\n4,0.03",
    ),
    "audit": InputKind(
        "audit",
        "Reviewed audit",
        "The plan file of 'opstudio audit plan' (id, score, stratum, stratum bounds and sizes, inclusion "
        "probability, weight) with the reviewers' verdicts in 'label' (1/0, yes/no ...; empty = not reviewed).",
        "id,score,stratum,stratum_lower,stratum_upper,stratum_documents,stratum_sample,inclusion_probability,weight,"
        "label\n17,0.83,6,0.61,0.9,180,9,0.05,20.0,1\n942,0.02,1,0.0,0.004,2874,150,0.0522,19.16,0",
    ),
    "score_matrix": InputKind(
        "score_matrix",
        "Score matrix",
        "Each base model's contribution to an ensemble's score: one numeric column per model, optional "
        "'label' and 'split' (fit/test) columns; or an NPZ file with an array F (and optional labels, split, bias).",
        "tree_0,tree_1,tree_2,label,split\n0.12,-0.05,0.31,1,fit\n-0.40,-0.22,0.02,0,fit\n"
        "0.08,0.11,-0.09,1,test\n-0.15,0.03,-0.27,0,test",
        tabular=False,
    ),
    "training_table": InputKind(
        "training_table",
        "Training table",
        "One row per example: feature columns (numbers or categories), a binary label (empty = unlabelled row); "
        "optionally a protected-group column, the deployed model's decisions, an egregious-example flag and a "
        "train/test split column.",
        "age,occupation,sex,deployed,label\n39,clerk,Female,0,0\n50,exec,Male,1,1\n38,tech,Female,1,\n"
        "53,sales,Male,0,0",
    ),
    "model_file": InputKind(
        "model_file",
        "Model file",
        f"A binary boosted-tree model: {model_formats_sentence()} ({how_to_save_models()}). Pickle and joblib "
        "files are never loaded.",
        model_file_example(),
        tabular=False,
    ),
    "feature_table": InputKind(
        "feature_table",
        "Feature table",
        "Rows to run a model on: the model's feature columns by name (other columns are ignored) and, "
        "optionally, a label column.",
        "age,hours_per_week,capital_gain,label\n39,40,2174,0\n50,13,0,0\n38,40,0,1\n53,40,0,0",
    ),
}


#: columns only an audit plan has (:data:`engine.audit.PLAN_COLUMNS`; not imported: engine.audit reads engine.io)
_AUDIT_COLUMNS = {"stratum", "stratum_lower", "stratum_upper", "stratum_documents", "stratum_sample"}
#: values of a column read to guess its role (the first ones: a guess, not a validation)
_GUESS_ROWS = 5000
#: non-numeric feature columns that make a labelled table a training table (rated data has at most a group)
_TRAINING_TEXT_COLUMNS = 3
#: columns that are neither features nor scores in a training table
_NOT_FEATURES = re.compile(r"^(split|fold|set|partition|deployed|flag|egregious)$", re.IGNORECASE)


def _is_npz(raw: bytes) -> bool:
    if raw[:2] != b"PK":
        return False
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as z:
            return any(n.endswith(".npy") for n in z.namelist())
    except zipfile.BadZipFile:
        return False


def _roles(frame: pd.DataFrame) -> ColumnMapping | None:
    """The label, weight and group a rated file's columns would take (scores not looked for), or None without a
    label column (by name or by values: :func:`engine.io.detect_columns`)."""
    try:
        return detect_columns(frame, score_cols=[])
    except RatedDataError:
        return None


def _mostly_numbers(column: pd.Series) -> bool:
    if pd.api.types.is_bool_dtype(column):
        return False
    if pd.api.types.is_numeric_dtype(column):
        return True
    values = column.dropna()
    return len(values) > 0 and bool(
        pd.to_numeric(values.astype(str).str.strip(), errors="coerce").notna().mean() >= 0.9
    )


def _is_date_column(column: pd.Series) -> bool:
    if pd.api.types.is_datetime64_any_dtype(column):
        return True
    values = column.dropna()
    if len(values) == 0 or pd.api.types.is_numeric_dtype(values):
        return False
    return bool(values.astype(str).str.strip().str.fullmatch(DATE_TEXT_PATTERN).mean() >= 0.9)


def _has_dates(frame: pd.DataFrame) -> bool:
    """A column of days: a date type, or a date-named column (``date``, ``rated_on`` …) of YYYY-MM-DD text."""
    names = {n.lower() for n in DATE_NAMES}
    return any(
        pd.api.types.is_datetime64_any_dtype(frame[c])
        or (str(c).strip().lower() in names and _is_date_column(frame[c]))
        for c in frame.columns
    )


def _is_population(frame: pd.DataFrame, roles: ColumnMapping | None) -> bool:
    """Every scored document without verdicts: an id column, a numeric column, and no label column."""
    cols = [str(c) for c in frame.columns]
    ids = [c for c in cols if is_id_name(c)]
    return roles is None and bool(ids) and any(c not in ids and _mostly_numbers(frame[c]) for c in cols)


def _is_training_table(frame: pd.DataFrame, roles: ColumnMapping | None) -> bool:
    """A labelled table with several non-numeric features (categories): rated data has scores and at most a group."""
    if roles is None:
        return False
    text = [
        c
        for c in map(str, frame.columns)
        if c not in (roles.label_col, roles.group_col, roles.weight_col)
        and not is_id_name(c)
        and not _NOT_FEATURES.match(c.strip())
        and not _mostly_numbers(frame[c])
    ]
    return len(text) >= _TRAINING_TEXT_COLUMNS


def guess_kind(raw: bytes, table: Table | None = None) -> str:
    """A first guess of an upload's kind from its bytes and, for tables, its columns.

    NPZ archives are score matrices. A table with columns named ``tp`` and ``fp`` is aggregated
    counts; one with the audit plan's stratum columns is a reviewed audit; one with a column
    named like ``probability`` and none like ``score`` is probability batches; one with an id
    column, a numeric score and no label column (by name or by values) is a scored population
    (``doc_id, fraud_score``, a prior probability beside it or not; a population with a label
    column is ambiguous and taken for rated data); one with a label
    and a column of days (a date type, or ``date``, ``rated_on`` … holding YYYY-MM-DD) is dated
    ratings; one with a label and three or more non-numeric feature columns is a training table;
    anything else is taken for rated data. The user can always choose another kind.

    Parameters
    ----------
    raw : bytes
        The uploaded bytes.
    table : Table, optional
        The upload parsed as a table, when it parses.

    Returns
    -------
    str
        Key of :data:`INPUT_KINDS`: ``"model_file"``, ``"score_matrix"``, ``"counts"``,
        ``"audit"``, ``"population"``, ``"batches"``, ``"dated"``, ``"training_table"`` or ``"rated"``.
    """
    if model_format(raw) is not None:
        return "model_file"
    if _is_npz(raw):
        return "score_matrix"
    if table is None:
        return "rated"
    frame = table.frame.head(_GUESS_ROWS)
    names = {str(c).strip().lower() for c in frame.columns}
    if {"tp", "fp"} <= names:
        return "counts"
    if names >= _AUDIT_COLUMNS:
        return "audit"
    probability = any(n in ("probability", "prob", "eta") or n.startswith("prob") for n in names)
    if probability and not any("score" in n for n in names):  # batches: the probability is what is decided on
        return "batches"
    roles = _roles(frame)
    if _is_population(frame, roles):  # a probability beside a score is a population's prior
        return "population"
    if probability:
        return "batches"
    if roles is not None and _has_dates(frame):
        return "dated"
    if _is_training_table(frame, roles):
        return "training_table"
    return "rated"
