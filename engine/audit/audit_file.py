"""A reviewed audit: the plan file with the reviewers' labels, checked.

The file is the ``plan.csv`` of ``opstudio audit plan`` (:data:`PLAN_COLUMNS`, any order,
extra columns ignored) with ``label`` filled in with the spellings of rated data
(:data:`engine.io.LABEL_VALUES`: 1/0, yes/no, tp/fp ...). An empty label means the document
was not reviewed: it is counted and reported, and its stratum's reviewed documents stand for
the whole stratum (weights ``N_h / reviewed_h``; this assumes the unreviewed documents are
like the reviewed ones — a warning says so). Every other problem is an
:class:`~engine.errors.InputError` naming the column, the rows and the fix.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import InputError, describe_rows
from ..io.rated import parse_labels
from ..io.tables import Source, read_table
from .selection import id_texts

__all__ = ["PLAN_COLUMNS", "AuditSample", "audit_from_frame", "load_audit"]

#: the plan file's columns, in order
PLAN_COLUMNS = (
    "id",
    "score",
    "stratum",
    "stratum_lower",
    "stratum_upper",
    "stratum_documents",
    "stratum_sample",
    "inclusion_probability",
    "weight",
    "label",
)


@dataclass(frozen=True)
class AuditSample:
    """A reviewed audit: the audited documents and the design they were drawn with.

    Attributes
    ----------
    ids : numpy.ndarray of str
        Audited document ids.
    scores : numpy.ndarray of float64
        Their scores.
    strata : numpy.ndarray of int64
        Their stratum (0-based index into the per-stratum arrays).
    labels : numpy.ndarray of int8
        1 positive, 0 negative, -1 not reviewed (empty label).
    lowers, uppers : numpy.ndarray of float64
        Each stratum's score bounds ``[lower, upper)``, ascending.
    documents : numpy.ndarray of int64
        Documents in each stratum (``N_h``).
    planned : numpy.ndarray of int64
        Documents the plan drew in each stratum.
    stratum_numbers : numpy.ndarray of int64
        The plan's stratum numbers.
    name : str
        The file's name.
    fingerprint : str
        SHA-256 of the file.
    warnings : tuple of str
        Unreviewed documents and how they were handled.
    """

    ids: np.ndarray
    scores: np.ndarray
    strata: np.ndarray
    labels: np.ndarray
    lowers: np.ndarray
    uppers: np.ndarray
    documents: np.ndarray
    planned: np.ndarray
    stratum_numbers: np.ndarray
    name: str = "audit"
    fingerprint: str = ""
    warnings: tuple[str, ...] = field(default=())

    @property
    def review_threshold(self) -> float:
        """The review line: the top stratum's upper bound (documents at or above it were flagged)."""
        return float(self.uppers[-1])

    @property
    def reviewed(self) -> np.ndarray:
        """Reviewed documents per stratum."""
        return np.bincount(self.strata[self.labels >= 0], minlength=self.documents.size)

    @property
    def positives(self) -> np.ndarray:
        """Positives found per stratum."""
        return np.bincount(self.strata[self.labels == 1], minlength=self.documents.size)

    @property
    def weights(self) -> np.ndarray:
        """Each audited document's design weight ``N_h / reviewed_h`` (NaN for an unreviewed one)."""
        w = self.documents / np.maximum(self.reviewed, 1)
        return np.where(self.labels >= 0, w[self.strata], np.nan)


def _numbers(frame: pd.DataFrame, column: str, name: str) -> np.ndarray:
    values = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isfinite(values)
    if bad.any():
        raise InputError(
            f"Column '{column}' of '{name}': missing or non-numeric values at {describe_rows(bad)}. "
            "Keep the plan's columns as the plan wrote them; fill in only 'label'."
        )
    return values


def _design(frame: pd.DataFrame, name: str) -> tuple:
    """Per stratum (ascending bounds): numbers, lowers, uppers, documents, planned; each row's stratum index."""
    numbers = _numbers(frame, "stratum", name)
    table = pd.DataFrame(
        {c: _numbers(frame, c, name) for c in ("stratum_lower", "stratum_upper", "stratum_documents", "stratum_sample")}
    )
    table["stratum"] = numbers
    per = table.groupby("stratum", sort=True).nunique()
    varying = per.columns[(per > 1).any()].tolist()
    if varying:
        raise InputError(
            f"'{name}': column '{varying[0]}' differs within a stratum. Keep the plan's columns as the "
            "plan wrote them; fill in only 'label'."
        )
    design = table.groupby("stratum", sort=True).first().sort_values("stratum_lower")
    lowers, uppers = design["stratum_lower"].to_numpy(), design["stratum_upper"].to_numpy()
    docs, planned = design["stratum_documents"].to_numpy(), design["stratum_sample"].to_numpy()
    whole = np.all(docs == np.round(docs)) and np.all(planned == np.round(planned))
    if not (
        whole
        and np.all(planned >= 1)
        and np.all(planned <= docs)
        and np.all(lowers < uppers)
        and np.all(uppers[:-1] <= lowers[1:])
    ):
        raise InputError(
            f"'{name}': the strata's bounds or sizes are inconsistent (each stratum needs lower < "
            "upper, non-overlapping bounds and 1 <= stratum_sample <= stratum_documents)."
        )
    index = np.searchsorted(design.index.to_numpy(), numbers)
    return (
        design.index.to_numpy().astype(np.int64),
        lowers,
        uppers,
        docs.astype(np.int64),
        planned.astype(np.int64),
        index,
    )


def _unreviewed_warnings(reviewed, planned, present, numbers) -> list[str]:
    out = []
    for h in range(reviewed.size):
        if reviewed[h] < planned[h]:
            missing = "" if present[h] == planned[h] else f" ({planned[h] - present[h]:,} rows removed from the file)"
            out.append(
                f"Stratum {numbers[h]}: {planned[h] - reviewed[h]:,} of its {planned[h]:,} planned documents "
                f"were not reviewed{missing}; its {reviewed[h]:,} reviewed documents stand for the whole "
                "stratum (weights adjusted), which assumes the unreviewed ones are like them."
            )
    return out


def audit_from_frame(frame: pd.DataFrame, *, name: str = "audit", fingerprint: str = "") -> AuditSample:
    """Check a reviewed plan held as a DataFrame.

    Parameters
    ----------
    frame : pandas.DataFrame
        The plan's columns (:data:`PLAN_COLUMNS`) with ``label`` filled in.
    name, fingerprint : str
        The file's name (for messages) and SHA-256.

    Returns
    -------
    AuditSample

    Raises
    ------
    InputError
        A missing column, edited design columns, duplicated ids, a score outside its stratum,
        unknown labels, more rows than planned, or a stratum with no reviewed document.
    """
    absent = [c for c in PLAN_COLUMNS if c not in frame.columns]
    if absent:
        raise InputError(
            f"'{name}' is not an audit plan: no column {', '.join(repr(c) for c in absent)}. Use the "
            "plan.csv of 'opstudio audit plan' with the 'label' column filled in."
        )
    if len(frame) == 0:
        raise InputError(f"'{name}' has no audited documents.")
    ids = id_texts(frame["id"].astype("string") if not pd.api.types.is_integer_dtype(frame["id"]) else frame["id"])
    dup = pd.Series(ids).duplicated().to_numpy()
    if dup.any():
        raise InputError(
            f"Column 'id' of '{name}': ids repeated at {describe_rows(dup)}. Each audited document appears once."
        )
    numbers, lowers, uppers, docs, planned, index = _design(frame, name)
    scores = _numbers(frame, "score", name)
    outside = (scores < lowers[index]) | (scores >= uppers[index])
    if outside.any():
        raise InputError(
            f"Column 'score' of '{name}': scores outside their stratum's bounds at "
            f"{describe_rows(outside)}. Keep the plan's columns as the plan wrote them."
        )
    labels, _ = parse_labels(frame["label"], "label")
    present = np.bincount(index, minlength=docs.size)
    if (present > planned).any():
        h = int(np.argmax(present > planned))
        raise InputError(
            f"'{name}': stratum {numbers[h]} lists {present[h]:,} documents but its plan drew "
            f"{planned[h]:,}. Audit the plan's documents only."
        )
    reviewed = np.bincount(index[labels >= 0], minlength=docs.size)
    if (reviewed == 0).any():
        h = int(np.argmin(reviewed))
        raise InputError(
            f"Column 'label' of '{name}': stratum {numbers[h]} has no reviewed document, so nothing "
            "bounds its positives. Review some of its documents (1/0, yes/no, tp/fp ...)."
        )
    return AuditSample(
        ids=np.asarray(ids, dtype=object),
        scores=scores,
        strata=index.astype(np.int64),
        labels=labels,
        lowers=lowers,
        uppers=uppers,
        documents=docs,
        planned=planned,
        stratum_numbers=numbers,
        name=name,
        fingerprint=fingerprint,
        warnings=tuple(_unreviewed_warnings(reviewed, planned, present, numbers)),
    )


def load_audit(source: Source) -> AuditSample:
    """Read and check a reviewed audit plan (CSV, CSV.gz or Parquet).

    Parameters
    ----------
    source : str, pathlib.Path, bytes or file object

    Returns
    -------
    AuditSample

    Raises
    ------
    InputError
        The file cannot be read or is not a consistent reviewed plan (see :func:`audit_from_frame`).
    """
    table = read_table(source)
    return audit_from_frame(table.frame, name=table.name, fingerprint=table.fingerprint)
