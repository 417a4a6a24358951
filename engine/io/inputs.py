"""The kinds of input the studio takes, and a first guess of an upload's kind.

A session holds several named inputs, each of one kind; each page uses the kind
it needs. Every kind has a loader (in :mod:`engine.io`; dated ratings:
:func:`engine.monitor.dated_from_frame`) that returns a validated object or raises
:class:`~engine.errors.InputError`.

To add a kind: write its loader, register an :class:`InputKind` here (and its
test in :func:`guess_kind` if its bytes or columns give it away), add its shipped
sample to :data:`~engine.io.samples.SAMPLES`, its column-mapping form to the
dashboard's ``views/forms`` package, and the kind to the ``input_kinds`` of the pages
that read it (:data:`engine.pages.PAGES`, from which "used by" is derived).
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass

from .model_formats import how_to_save_models, model_file_example, model_format, model_formats_sentence
from .tables import Table

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


def _is_npz(raw: bytes) -> bool:
    if raw[:2] != b"PK":
        return False
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as z:
            return any(n.endswith(".npy") for n in z.namelist())
    except zipfile.BadZipFile:
        return False


def guess_kind(raw: bytes, table: Table | None = None) -> str:
    """A first guess of an upload's kind from its bytes and, for tables, its columns.

    NPZ archives are score matrices; a table with columns named ``tp`` and ``fp``
    is aggregated counts; one with the audit plan's stratum columns is a reviewed audit; one
    with a column named like ``probability`` is probability batches; anything else is taken
    for rated data. The user can
    always choose another kind.

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
        ``"audit"``, ``"batches"`` or ``"rated"``.
    """
    if model_format(raw) is not None:
        return "model_file"
    if _is_npz(raw):
        return "score_matrix"
    if table is not None:
        names = {str(c).strip().lower() for c in table.frame.columns}
        if {"tp", "fp"} <= names:
            return "counts"
        if names >= _AUDIT_COLUMNS:
            return "audit"
        if any(n in ("probability", "prob", "eta") or n.startswith("prob") for n in names):
            return "batches"
    return "rated"
