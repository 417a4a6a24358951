"""A reviewed audit: the plan file with the reviewers' labels, checked.

The file is the ``plan.csv`` of ``opstudio audit plan`` (:data:`PLAN_COLUMNS`, any order,
extra columns ignored) with ``label`` filled in with the spellings of rated data
(:data:`engine.io.LABEL_VALUES`: 1/0, yes/no, tp/fp ...). An empty label means the document
was not reviewed: it is counted and reported, and its stratum's reviewed documents stand for
the whole stratum (weights ``N_h / reviewed_h``; this assumes the unreviewed documents are
like the reviewed ones — a warning says so). Every other problem is an
:class:`~engine.errors.InputError` naming the column, the rows and the fix.

**Ids read back exactly.** Ids that are all canonical whole numbers (``140``, ``-7``; not
``00140``) are written as numbers. Otherwise every id is text, and a text id that a table
reader would not give back as itself — empty, a number (``00140``, ``1e5``, ``inf``), a
missing-value or boolean word (``NA``, ``null``, ``TRUE``), one starting or ending with a space,
or one starting with ``'`` or with a spreadsheet formula's ``=``, ``+``, ``-``, ``@`` — is written
with a leading apostrophe (:func:`plan_id_cells`), which :func:`read_plan_ids` removes. A
neutralised ``=A1`` (``'=A1``) therefore never collides with an id ``'=A1`` (written ``''=A1``).
Ids holding a character a plan file does not carry (a control character other than tab and
newline — NUL, a carriage return, U+0085 ... — or U+2028, U+2029) are refused when the plan is made.

**Intrinsic checks** (with or without the plan's design record, :mod:`engine.audit`): strata
numbered 1 .. K from the lowest scores up with contiguous bounds, the same design values on every
row of a stratum, ``inclusion_probability = stratum_sample / stratum_documents`` and ``weight =
stratum_documents / stratum_sample`` on every row, whole sizes with ``1 <= stratum_sample <=
stratum_documents <= 2**53``, scores inside their stratum and at most ``stratum_sample`` rows
per stratum.
"""

from __future__ import annotations

import os
import re
import zlib
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import InputError, describe_rows
from ..io._numbers import is_number, to_floats
from ..io._rated import parse_labels
from ..io._tables import Source, read_source, read_table
from ._selection import id_texts

__all__ = [
    "PLAN_COLUMNS",
    "MAX_DOCUMENTS",
    "AuditSample",
    "audit_from_frame",
    "load_audit",
    "plan_id_cells",
    "read_plan_ids",
    "check_plan_ids",
]

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
#: most documents a stratum may hold: every count below it is exact in a double
MAX_DOCUMENTS = 2**53
#: the mark before a text id that would not read back as itself
ID_MARK = "'"
#: characters a plan file does not carry in an id: control characters but tab and newline (the table reader
#: splits lines at some and takes a file full of them for binary data), and the Unicode line separators
UNWRITABLE_ID = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")
#: words a table reader takes for a missing value or a boolean (compared in lower case)
_OTHER_WORDS = frozenset(
    {"", "#n/a", "#n/a n/a", "#na", "-1.#ind", "-1.#qnan", "-nan", "1.#ind", "1.#qnan", "<na>", "n/a", "na", "null"}
    | {"nan", "none", "true", "false"}
)
_CANONICAL_INTEGER = re.compile(r"-?(0|[1-9]\d{0,17})")
_RELATIVE = 1e-9  # tolerance of the derived columns (a spreadsheet keeps 15 significant digits)


def check_plan_ids(ids, column: str = "id") -> None:
    """Refuse ids a plan file does not carry: a control character but tab and newline (NUL, CR ...), U+2028, U+2029.

    Parameters
    ----------
    ids : sequence of str
        The ids' texts.
    column : str
        The population's id column, for the message.

    Raises
    ------
    InputError
        Naming the first such id (escaped) and its character.
    """
    for text in ids:
        found = UNWRITABLE_ID.search(text)
        if found:
            raise InputError(
                f"Id column '{column}': the id {text!r} holds the control character U+{ord(found.group()):04X}, "
                "which a plan file (CSV) does not carry. Give such documents ids without control characters (a "
                "newline or a tab is fine)."
            )


def _needs_mark(text: str) -> bool:
    return (
        text.strip().lower() in _OTHER_WORDS
        or text[0] in "'=+-@"
        or text[0].isspace()
        or text[-1].isspace()
        or is_number(text)
    )


def plan_id_cells(ids) -> pd.Series:
    """The plan file's id cells: numbers when every id is a canonical whole number, else marked text.

    Parameters
    ----------
    ids : sequence of str
        The ids' texts (:func:`engine.audit._selection.id_texts`).

    Returns
    -------
    pandas.Series
        int64 when every id reads as a canonical 64-bit whole number; otherwise text, with
        :data:`ID_MARK` before every id that a table reader would not give back as itself (see
        the module docstring). :func:`read_plan_ids` inverts it.
    """
    texts = [str(i) for i in ids]
    if texts and all(_CANONICAL_INTEGER.fullmatch(t) for t in texts):
        values = [int(t) for t in texts]
        if all(-(2**63) <= v < 2**63 for v in values):
            return pd.Series(values, dtype=np.int64)
    return pd.Series([ID_MARK + t if _needs_mark(t) else t for t in texts], dtype=object)


def read_plan_ids(column: pd.Series, name: str = "audit") -> np.ndarray:
    """The ids of a plan file's ``id`` column as the population's texts (:func:`plan_id_cells` inverted).

    Parameters
    ----------
    column : pandas.Series
        The ``id`` column as read: whole numbers, or text (with :data:`ID_MARK` where the plan put it).
    name : str
        The file's name, for messages.

    Returns
    -------
    numpy.ndarray of str

    Raises
    ------
    InputError
        Missing ids, decimal numbers, or values that are neither whole numbers nor text.
    """
    missing = column.isna().to_numpy()
    if missing.any():
        raise InputError(
            f"Column 'id' of '{name}': no id at {describe_rows(missing)}. Keep the plan's ids as it wrote "
            "them; fill in only 'label'."
        )
    if pd.api.types.is_bool_dtype(column) or pd.api.types.is_float_dtype(column):
        raise InputError(
            f"Column 'id' of '{name}' holds {'true/false' if pd.api.types.is_bool_dtype(column) else 'decimal'} "
            "values, not the plan's ids (whole numbers or text). A spreadsheet may have converted them: fill "
            "in 'label' in the plan file as it was downloaded."
        )
    if pd.api.types.is_integer_dtype(column):
        return id_texts(column, "id")
    values = column.to_numpy(dtype=object)
    odd = np.fromiter((not isinstance(v, str) for v in values), dtype=bool, count=values.size)
    if odd.any():
        raise InputError(
            f"Column 'id' of '{name}': values at {describe_rows(odd)} are neither whole numbers nor text. "
            "Keep the plan's ids as it wrote them."
        )
    return np.array([v[1:] if v.startswith(ID_MARK) else v for v in values], dtype=object)


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
    design : dict or None
        The design record the reviewed plan was checked against (:func:`engine.audit.designs.check_design`),
        None until it is.
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
    design: dict | None = field(default=None, compare=False)

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


def _numbers(frame: pd.DataFrame, column: str, name: str, *, whole: bool = False) -> np.ndarray:
    values = to_floats(frame[column])
    bad = ~np.isfinite(values)
    if bad.any():
        raise InputError(
            f"Column '{column}' of '{name}': missing or non-numeric values at {describe_rows(bad)}. "
            "Keep the plan's columns as the plan wrote them; fill in only 'label'."
        )
    if whole:
        bad = (values != np.round(values)) | (values < 1) | (values > MAX_DOCUMENTS)
        if bad.any():
            raise InputError(
                f"Column '{column}' of '{name}': values at {describe_rows(bad)} are not whole numbers from 1 to "
                f"2**53. Keep the plan's columns as the plan wrote them; fill in only 'label'."
            )
    return values


def _constant_within_strata(table: pd.DataFrame, name: str) -> None:
    """Every design column holds one value per stratum: the first row that differs from its stratum's first row."""
    first = table.groupby("stratum", sort=False).transform("first")
    for column in ("stratum_lower", "stratum_upper", "stratum_documents", "stratum_sample"):
        differs = (table[column] != first[column]).to_numpy()
        if differs.any():
            raise InputError(
                f"Column '{column}' of '{name}' differs within a stratum at {describe_rows(differs)} (from the "
                "stratum's first row). Keep the plan's columns as the plan wrote them; fill in only 'label'."
            )


def _derived(frame: pd.DataFrame, table: pd.DataFrame, name: str) -> None:
    """``inclusion_probability`` and ``weight`` are the stratum's sample over its documents and its inverse."""
    docs, sample = table["stratum_documents"].to_numpy(), table["stratum_sample"].to_numpy()
    for column, expected, formula in (
        ("inclusion_probability", sample / docs, "stratum_sample / stratum_documents"),
        ("weight", docs / sample, "stratum_documents / stratum_sample"),
    ):
        values = _numbers(frame, column, name)
        bad = np.abs(values - expected) > _RELATIVE * np.abs(expected)
        if bad.any():
            k = int(np.argmax(bad))
            raise InputError(
                f"Column '{column}' of '{name}' at {describe_rows(bad)} is not {formula} (row {k + 1}: "
                f"{values[k]:.10g}, expected {expected[k]:.10g}): the plan's design was edited. Use the plan "
                "file as it was downloaded; fill in only 'label'."
            )


def _strata_order(numbers, lowers, uppers, name: str) -> None:
    """Strata numbered 1 .. K from the lowest scores up, each ``[lower, upper)`` and ending where the next begins."""
    k = numbers.size
    if not np.array_equal(numbers, np.arange(1, k + 1)):
        absent = sorted(set(range(1, int(numbers.max()) + 1)) - set(numbers.astype(int).tolist()))
        what = (
            f"stratum {absent[0]} has no row"
            if absent and numbers.min() == 1
            else f"its strata are numbered {', '.join(f'{v:g}' for v in numbers[:6])}{' ...' if k > 6 else ''}"
        )
        raise InputError(
            f"Column 'stratum' of '{name}': {what}, but a plan numbers its strata 1 to {k} and keeps every row. "
            "Use the plan file as it was downloaded (leave 'label' empty for a document not reviewed)."
        )
    by_bounds = np.argsort(lowers, kind="stable")
    if not np.array_equal(by_bounds, np.arange(k)):
        raise InputError(
            f"Column 'stratum' of '{name}': stratum {int(numbers[by_bounds[0]])} holds the lowest scores, but a "
            "plan numbers its strata 1, 2, ... from the lowest scores up (renumbered or reversed?). Use the plan "
            "file as it was downloaded."
        )
    if not (np.all(lowers < uppers) and np.array_equal(uppers[:-1], lowers[1:])):
        h = int(np.argmax(~np.r_[lowers[1:] == uppers[:-1], True] | (lowers >= uppers)))
        raise InputError(
            f"Columns 'stratum_lower' and 'stratum_upper' of '{name}': stratum {h + 1} spans "
            f"[{lowers[h]:.10g}, {uppers[h]:.10g}), but a plan's strata are [lower, upper) intervals, each ending "
            "where the next begins. Use the plan file as it was downloaded."
        )


def _design(frame: pd.DataFrame, name: str) -> tuple:
    """Per stratum (ascending): numbers, lowers, uppers, documents, planned; each row's stratum index."""
    table = pd.DataFrame(
        {
            "stratum": _numbers(frame, "stratum", name, whole=True),
            "stratum_lower": _numbers(frame, "stratum_lower", name),
            "stratum_upper": _numbers(frame, "stratum_upper", name),
            "stratum_documents": _numbers(frame, "stratum_documents", name, whole=True),
            "stratum_sample": _numbers(frame, "stratum_sample", name, whole=True),
        }
    )
    _constant_within_strata(table, name)
    design = table.groupby("stratum", sort=True).first()
    numbers = design.index.to_numpy()
    lowers, uppers = design["stratum_lower"].to_numpy(), design["stratum_upper"].to_numpy()
    docs, planned = design["stratum_documents"].to_numpy(), design["stratum_sample"].to_numpy()
    _strata_order(numbers, lowers, uppers, name)
    if np.any(planned > docs):
        h = int(np.argmax(planned > docs))
        raise InputError(
            f"'{name}': stratum {h + 1} samples {planned[h]:,.0f} of its {docs[h]:,.0f} documents (stratum_sample "
            "above stratum_documents): the plan's design was edited. Use the plan file as it was downloaded."
        )
    _derived(frame, table, name)
    index = table["stratum"].to_numpy().astype(np.int64) - 1
    return numbers.astype(np.int64), lowers, uppers, docs.astype(np.int64), planned.astype(np.int64), index


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
    """Check a reviewed plan held as a DataFrame (the plan file's cells, as read from the file).

    Parameters
    ----------
    frame : pandas.DataFrame
        The plan's columns (:data:`PLAN_COLUMNS`) with ``label`` filled in; ids as the file holds
        them (:func:`read_plan_ids`).
    name, fingerprint : str
        The file's name (for messages) and SHA-256.

    Returns
    -------
    AuditSample
        Without a design record (:func:`engine.audit.designs.check_design` attaches one).

    Raises
    ------
    InputError
        A missing column, edited design columns (see the module docstring), duplicated ids, a
        score outside its stratum, unknown labels, more rows than planned, or a stratum with no
        reviewed document.
    """
    if not isinstance(frame, pd.DataFrame):
        raise InputError(f"A reviewed audit is a table (a DataFrame), not {type(frame).__name__}.")
    absent = [c for c in PLAN_COLUMNS if c not in frame.columns]
    if absent:
        raise InputError(
            f"'{name}' is not an audit plan: no column {', '.join(repr(c) for c in absent)}. Use the "
            "plan.csv of 'opstudio audit plan' with the 'label' column filled in."
        )
    if len(frame) == 0:
        raise InputError(f"'{name}' has no audited documents.")
    frame = frame.reset_index(drop=True)
    ids = read_plan_ids(frame["id"], name)
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
        strata=index,
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


def _plan_delimiter(raw: bytes) -> str | None:
    """The delimiter whose split of the first line holds every plan column (ids never fool a sniffer), or None."""
    head = raw[: 1 << 16]
    if raw[:2] == b"\x1f\x8b":
        try:
            head = zlib.decompressobj(wbits=31).decompress(raw, 1 << 16)
        except zlib.error:
            return None
    text = head.decode("utf-8-sig", errors="replace")
    first = next((line for line in text.splitlines() if line.strip()), "")
    return next((d for d in ",;\t|" if set(PLAN_COLUMNS) <= {f.strip() for f in first.split(d)}), None)


def load_audit(source: Source, *, design=None, name: str | None = None) -> AuditSample:
    """Read and check a reviewed audit plan (CSV, CSV.gz or Parquet), with its design record when there is one.

    Parameters
    ----------
    source : str, pathlib.Path, bytes or file object
        The reviewed plan.
    design : dict, str, pathlib.Path or bytes, optional
        Its design record (``plan.json``: parsed, a path or its bytes). Default: for a path, the
        record beside it when there is one (``reviewed.csv`` -> ``reviewed.json``,
        :func:`engine.audit.designs.design_path`); else none.
    name : str, optional
        The file's name for messages (default: the path's name, or "upload").

    Returns
    -------
    AuditSample
        Carrying its checked design record (:func:`engine.audit.designs.check_design`), or none.

    Raises
    ------
    InputError
        The file cannot be read or is not a consistent reviewed plan (see :func:`audit_from_frame`);
        a design record that cannot be read or does not describe this plan.
    """
    from ._design_records import check_design, design_path, load_design  # the record's module reads this one

    raw, shown = read_source(source, name)
    table = read_table(raw, name=shown, delimiter=_plan_delimiter(raw))
    audit = audit_from_frame(table.frame, name=table.name, fingerprint=table.fingerprint)
    if design is None and isinstance(source, (str, os.PathLike)) and design_path(source).is_file():
        design = design_path(source)
    return audit if design is None else check_design(audit, load_design(design))
