"""An audit's design record: what a plan was made for, so that its estimate is bound to it.

A reviewed plan (``plan.csv`` with labels) says nothing about the population it was drawn
from: a stratum's size edited tenfold, a stratum's rows deleted, or rated data of another
population would be estimated as if true. :func:`design_record` writes down, when the plan is
made, what the estimate must hold it to — a JSON-ready dict (the ``plan.json`` written beside
``plan.csv``):

* ``population``: its name, the backend that read it, its documents, its id / score / prior
  columns and a **fingerprint**: the SHA-256 of its id and score columns (a population read in
  memory: every id's text and every score, in row order) or of the server connection's identity
  (DuckDB: the path, the table and every file's real path, size and modification time; Spark:
  the name and the Connect URL);
* ``score_column``, ``review_threshold``, ``seed``, ``allocation``, ``spacing``, ``level`` and
  the ``strata`` (bounds, documents, sample sizes);
* ``above``: the documents at or above the review line — their number, the SHA-256 of their
  sorted scores (as little-endian doubles) and, up to :data:`MAX_LISTED_ABOVE` documents, the
  scores themselves (rated data carry no ids, so the rated documents are recognised by their
  scores, exactly: the rated data and the population come from the same scoring);
* ``rows_sha256``: the SHA-256 of the plan's rows without labels (id, score, stratum), the key a
  workspace can store design records under (:func:`plan_rows_sha256` computes it from a reviewed
  plan).

The plan's rows are compared with their scores at 15 significant digits (what a spreadsheet keeps
when the reviewers save the file); the rated data's scores are compared exactly.
:func:`check_design` holds a reviewed plan to a record (every stratum's bounds and sizes, every
row present, the rows' digest) and :func:`check_rated` holds rated data to it (every rated
document at or above the line is one of the population's documents there, and all of them are
there); each refusal is an :class:`~engine.errors.InputError` naming the column, the row or
stratum, and the fix. :func:`load_design` reads a record within limits (:func:`engine.untrusted.parse_json`)
and checks it field by field.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InputError, describe_rows
from ..io._rated import RatedData
from ..io._tables import Source, read_source
from ..untrusted import parse_json
from ._audit_file import MAX_DOCUMENTS, AuditSample
from ._design import ALLOCATIONS, MAX_STRATA, SPACINGS

if TYPE_CHECKING:
    from ._plan import AuditPlan

__all__ = [
    "DESIGN_FORMAT",
    "MAX_LISTED_ABOVE",
    "MAX_DESIGN_BYTES",
    "design_record",
    "design_json",
    "load_design",
    "check_design",
    "check_rated",
    "plan_rows_sha256",
    "rows_sha256",
    "above_record",
    "canonical_scores",
    "design_path",
]

#: the record's ``format`` field
DESIGN_FORMAT = "opstudio audit design"
#: the record's ``version`` field this engine writes and reads
DESIGN_VERSION = 1
#: most documents at or above the line whose scores the record lists (beyond: their digest only)
MAX_LISTED_ABOVE = 100_000
#: largest design record read (the listed scores take about 25 bytes each)
MAX_DESIGN_BYTES = 8 * 2**20
_HEX64 = re.compile(r"[0-9a-f]{64}")


def canonical_scores(values) -> np.ndarray:
    """Scores at 15 significant digits (what a spreadsheet keeps): the form the plan's rows are compared in.

    Parameters
    ----------
    values : array_like of float
        Finite scores.

    Returns
    -------
    numpy.ndarray of float64
        ``float(format(x, ".15g"))`` of each (``-0.0`` as ``0.0``).
    """
    return np.array([float(format(v + 0.0, ".15g")) for v in np.asarray(values, dtype=np.float64)], dtype=np.float64)


def _sha256(payload) -> str:
    return hashlib.sha256(json.dumps(payload, ensure_ascii=False, allow_nan=False).encode("utf-8")).hexdigest()


def rows_sha256(ids, scores, strata) -> str:
    """The SHA-256 of a plan's rows without labels: ``(id, score, stratum)`` sorted by id.

    Parameters
    ----------
    ids : sequence of str
        The documents' id texts.
    scores : array_like of float
        Their scores (compared at 15 significant digits, :func:`canonical_scores`).
    strata : array_like of int
        Their stratum numbers (1 = the lowest scores).

    Returns
    -------
    str
        64 hex digits of the SHA-256 of the JSON list ``[[id, score, stratum], ...]``.
    """
    texts = [str(i) for i in ids]
    order = sorted(range(len(texts)), key=texts.__getitem__)
    canon, numbers = canonical_scores(scores), np.asarray(strata, dtype=np.int64)
    return _sha256([[texts[k], float(canon[k]), int(numbers[k])] for k in order])


def plan_rows_sha256(audit: AuditSample) -> str:
    """The rows digest of a reviewed plan: the key its design record is stored under.

    Parameters
    ----------
    audit : AuditSample
        A reviewed plan (:func:`engine.audit.load_audit`).

    Returns
    -------
    str
        :func:`rows_sha256` of its ids, scores and stratum numbers (labels left out).
    """
    if not isinstance(audit, AuditSample):
        raise InputError(f"A reviewed audit is an AuditSample (engine.audit.load_audit), not {type(audit).__name__}.")
    return rows_sha256(audit.ids, audit.scores, audit.stratum_numbers[audit.strata])


def _scores_sha256(ascending: np.ndarray) -> str:
    return hashlib.sha256(np.asarray(ascending, dtype="<f8").tobytes()).hexdigest()


def above_record(scores) -> dict:
    """The record of the documents at or above the line: how many, their scores' digest, the scores (when few).

    Parameters
    ----------
    scores : array_like of float
        The population's scores at or above the review line.

    Returns
    -------
    dict
        ``documents``, ``scores_sha256`` (of the ascending scores as little-endian doubles, ``-0.0``
        as ``0.0``) and ``scores`` (that ascending list, or None above :data:`MAX_LISTED_ABOVE` documents).
    """
    ascending = np.sort(np.asarray(scores, dtype=np.float64) + 0.0)
    return {
        "documents": int(ascending.size),
        "scores_sha256": _scores_sha256(ascending),
        "scores": ascending.tolist() if ascending.size <= MAX_LISTED_ABOVE else None,
    }


def design_record(plan: AuditPlan) -> dict:
    """The design record of a plan (JSON-ready; ``plan.json``).

    Parameters
    ----------
    plan : AuditPlan
        A plan made by :func:`engine.audit._plan`.

    Returns
    -------
    dict
        ``format``, ``version``, ``population`` (name, backend, documents, fingerprint, id /
        prior columns), ``score_column``, ``review_threshold``, ``seed``, ``allocation``,
        ``spacing``, ``level``, ``strata`` (stratum, lower, upper, documents, sample), ``above``
        (:func:`above_record`) and ``rows_sha256`` (:func:`rows_sha256` of the plan's rows).
    """
    if not hasattr(plan, "rows") or not hasattr(plan, "identity"):
        raise InputError(f"A design record is made from a plan (engine.audit._plan), not {type(plan).__name__}.")
    rows = plan.rows
    columns = plan.columns
    if columns is None:
        raise InputError("This plan does not name its population's columns; plan it again with engine.audit._plan.")
    return {
        "format": DESIGN_FORMAT,
        "version": DESIGN_VERSION,
        "population": {
            "name": plan.population_name,
            "backend": plan.backend,
            "documents": int(plan.population),
            "fingerprint": dict(plan.identity),
            "id_column": columns.id,
            "prior_column": columns.prior,
        },
        "score_column": columns.score,
        "review_threshold": float(plan.review_threshold),
        "seed": int(plan.seed),
        "allocation": plan.allocation,
        "spacing": plan.spacing,
        "level": float(plan.level),
        "strata": [
            {"stratum": s.stratum, "lower": s.lower, "upper": s.upper, "documents": s.documents, "sample": s.sample}
            for s in plan.strata
        ],
        "above": above_record(plan.above_scores),
        "rows_sha256": rows_sha256(rows["id"], rows["score"], rows["stratum"]),
    }


def design_json(design: dict) -> bytes:
    """A design record as the bytes of ``plan.json`` (UTF-8, indented; the scores on one line).

    Parameters
    ----------
    design : dict
        A record of :func:`design_record` or :func:`load_design`.

    Returns
    -------
    bytes
    """
    return (json.dumps(_validated(design, "design record"), indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def design_path(path: str | os.PathLike) -> Path:
    """Where a plan's design record lies: beside it, with the suffix ``.json`` (``plan.csv`` -> ``plan.json``).

    Parameters
    ----------
    path : str or pathlib.Path
        The plan file (``.csv``, ``.csv.gz``, ``.parquet`` ...).

    Returns
    -------
    pathlib.Path
    """
    p = Path(path)
    name = p.name
    for suffix in (".csv.gz", ".csv", ".tsv", ".txt", ".parquet", ".gz"):
        if name.lower().endswith(suffix) and len(name) > len(suffix):
            return p.with_name(name[: -len(suffix)] + ".json")
    return p.with_name(name + ".json")


# --- reading and checking a record --------------------------------------------------------------------------------


class _Fields:
    """Field-by-field checks of a parsed record; every refusal names the field."""

    def __init__(self, what: str) -> None:
        self.what = what

    def fail(self, where: str, must: str) -> InputError:
        return InputError(
            f"The {self.what}: field '{where}' {must}. Use the plan.json written with the plan (it is not to "
            "be edited)."
        )

    def get(self, obj: dict, key: str, where: str) -> Any:
        if not isinstance(obj, dict) or key not in obj:
            raise self.fail(where, "is missing")
        return obj[key]

    def text(self, obj: dict, key: str, where: str, *, optional: bool = False) -> str | None:
        value = self.get(obj, key, where)
        if value is None and optional:
            return None
        if not isinstance(value, str) or not value:
            raise self.fail(where, "must be a non-empty text")
        return value

    def whole(self, obj: dict, key: str, where: str, low: int, high: int) -> int:
        value = self.get(obj, key, where)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise self.fail(where, f"must be a whole number from {low:,} to {high:,}")
        return int(value)

    def number(self, obj: dict, key: str, where: str) -> float:
        value = self.get(obj, key, where)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise self.fail(where, "must be a finite number")
        return float(value)

    def digest(self, obj: dict, key: str, where: str) -> str:
        value = self.get(obj, key, where)
        if not isinstance(value, str) or not _HEX64.fullmatch(value):
            raise self.fail(where, "must be a SHA-256 (64 lowercase hex digits)")
        return value

    def choice(self, obj: dict, key: str, where: str, choices) -> str:
        value = self.get(obj, key, where)
        if value not in choices:
            raise self.fail(where, f"must be one of {', '.join(map(str, choices))}")
        return value


def _population(f: _Fields, obj) -> dict:
    pop = f.get(obj, "population", "population")
    print_ = f.get(pop, "fingerprint", "population.fingerprint")
    return {
        "name": f.text(pop, "name", "population.name"),
        "backend": f.text(pop, "backend", "population.backend"),
        "documents": f.whole(pop, "documents", "population.documents", 1, 2**62),
        "fingerprint": {
            "kind": f.choice(print_, "kind", "population.fingerprint.kind", ("columns", "connection")),
            "sha256": f.digest(print_, "sha256", "population.fingerprint.sha256"),
        },
        "id_column": f.text(pop, "id_column", "population.id_column"),
        "prior_column": f.text(pop, "prior_column", "population.prior_column", optional=True),
    }


def _strata(f: _Fields, obj, line: float) -> list[dict]:
    strata = f.get(obj, "strata", "strata")
    if not isinstance(strata, list) or not 1 <= len(strata) <= MAX_STRATA:
        raise f.fail("strata", f"must be a list of 1 to {MAX_STRATA} strata")
    out: list[dict] = []
    for h, s in enumerate(strata):
        at = f"strata[{h}]"
        f.whole(s, "stratum", f"{at}.stratum", h + 1, h + 1)
        docs = f.whole(s, "documents", f"{at}.documents", 1, MAX_DOCUMENTS)
        row = {
            "stratum": h + 1,
            "lower": f.number(s, "lower", f"{at}.lower"),
            "upper": f.number(s, "upper", f"{at}.upper"),
            "documents": docs,
            "sample": f.whole(s, "sample", f"{at}.sample", 1, docs),
        }
        if not row["lower"] < row["upper"] or (out and row["lower"] != out[-1]["upper"]):
            raise f.fail(f"{at}.lower", "must continue the stratum below it (strata [lower, upper) end to end)")
        out.append(row)
    if out[-1]["upper"] != line:
        raise f.fail(f"strata[{len(out) - 1}].upper", "must be the review threshold (the top stratum ends at it)")
    return out


def _above(f: _Fields, obj, line: float) -> dict:
    above = f.get(obj, "above", "above")
    count = f.whole(above, "documents", "above.documents", 0, 2**62)
    digest = f.digest(above, "scores_sha256", "above.scores_sha256")
    scores = f.get(above, "scores", "above.scores")
    if scores is not None:
        ok = (
            isinstance(scores, list)
            and len(scores) == count
            and all(not isinstance(v, bool) and isinstance(v, (int, float)) and math.isfinite(v) for v in scores)
        )
        if not ok:
            raise f.fail("above.scores", f"must be null or a list of {count:,} finite numbers")
        listed = np.asarray(scores, dtype=np.float64) + 0.0
        if np.any(np.diff(listed) < 0) or (listed.size and listed[0] < line):
            raise f.fail("above.scores", "must be ascending, each at or above the review threshold")
        if _scores_sha256(listed) != digest:
            raise f.fail("above.scores", "does not match above.scores_sha256")
        scores = listed.tolist()
    return {"documents": count, "scores_sha256": digest, "scores": scores}


def _validated(design, what: str) -> dict:
    """The record checked field by field, as a new JSON-ready dict."""
    f = _Fields(what)
    if not isinstance(design, dict):
        raise InputError(f"The {what} is not a JSON object: use the plan.json written with the plan.")
    if f.get(design, "format", "format") != DESIGN_FORMAT:
        raise f.fail("format", f"must be '{DESIGN_FORMAT}' (this is not an audit's design record)")
    if f.get(design, "version", "version") != DESIGN_VERSION:
        raise f.fail("version", f"must be {DESIGN_VERSION} (written by another version of the studio)")
    line = f.number(design, "review_threshold", "review_threshold")
    level = f.number(design, "level", "level")
    if not 0 < level < 1:
        raise f.fail("level", "must be in (0, 1)")
    out: dict[str, Any] = {
        "format": DESIGN_FORMAT,
        "version": DESIGN_VERSION,
        "population": _population(f, design),
        "score_column": f.text(design, "score_column", "score_column"),
        "review_threshold": line,
        "seed": f.whole(design, "seed", "seed", 0, 2**32 - 1),
        "allocation": f.choice(design, "allocation", "allocation", ALLOCATIONS),
        "spacing": f.choice(design, "spacing", "spacing", SPACINGS),
        "level": level,
        "strata": _strata(f, design, line),
        "above": _above(f, design, line),
        "rows_sha256": f.digest(design, "rows_sha256", "rows_sha256"),
    }
    below = sum(s["documents"] for s in out["strata"])
    if out["population"]["documents"] != below + out["above"]["documents"]:
        raise f.fail("population.documents", "must be the documents of the strata plus those above the line")
    return out


def load_design(source: Source | dict, *, name: str | None = None) -> dict:
    """Read a design record (``plan.json``) within limits and check it field by field.

    Parameters
    ----------
    source : str, pathlib.Path, bytes, file object or dict
        The JSON file, its bytes, or the parsed record.
    name : str, optional
        Its name for messages (default: the file's name).

    Returns
    -------
    dict
        The record, normalised (:func:`design_record`'s fields only).

    Raises
    ------
    InputError
        Not readable, larger than :data:`MAX_DESIGN_BYTES`, not JSON, or a field missing or
        out of range (the message names the field).
    """
    if isinstance(source, dict):
        return _validated(source, f"design record '{name or 'plan.json'}'")
    if isinstance(source, (str, Path)) and Path(source).is_file() and Path(source).stat().st_size > MAX_DESIGN_BYTES:
        raise InputError(f"The design record '{Path(source).name}' is larger than {MAX_DESIGN_BYTES // 2**20} MB.")
    raw, shown = read_source(source, name)
    what = f"design record '{shown}'"
    if len(raw) > MAX_DESIGN_BYTES:
        raise InputError(f"The {what} is larger than {MAX_DESIGN_BYTES // 2**20} MB.")
    try:  # a linear first pass: only well-formed JSON (every string closed) reaches the limits' scan
        json.loads(raw.decode("utf-8-sig"))
    except json.JSONDecodeError as exc:
        raise InputError(f"The {what} is not valid JSON ({exc.msg}: line {exc.lineno}, column {exc.colno}).") from None
    except RecursionError:
        raise InputError(f"The {what} nests objects or arrays too deep to be a design record.") from None
    except (UnicodeDecodeError, ValueError):
        pass  # parse_json says what is wrong
    return _validated(parse_json(raw, what=what, max_bytes=MAX_DESIGN_BYTES), what)


# --- holding a reviewed plan and rated data to a record ------------------------------------------------------------


def _refuse_stratum(audit: AuditSample, h: int, column: str, got, want, what: str) -> InputError:
    row = int(np.argmax(audit.strata == h)) if (audit.strata == h).any() else None
    at = f" at row {row + 1}" if row is not None else ""
    return InputError(
        f"Column '{column}' of '{audit.name}'{at} (stratum {h + 1}): {got} where the plan's design record says "
        f"{want}{what}. The plan was edited: use the plan file as it was downloaded and fill in only 'label'."
    )


def _same_strata(audit: AuditSample, design: dict) -> None:
    strata = design["strata"]
    if audit.documents.size != len(strata):
        raise InputError(
            f"'{audit.name}' has {audit.documents.size} strata where the plan's design record has {len(strata)}: "
            "strata were deleted or added. Use the plan file as it was downloaded (leave 'label' empty for a "
            "document not reviewed)."
        )
    lowers, uppers = canonical_scores(audit.lowers), canonical_scores(audit.uppers)
    for h, s in enumerate(strata):
        line = " (the review line)" if h == len(strata) - 1 else ""
        checks = (
            ("stratum_lower", lowers[h], float(format(s["lower"], ".15g")), ""),
            ("stratum_upper", uppers[h], float(format(s["upper"], ".15g")), line),
            ("stratum_documents", int(audit.documents[h]), s["documents"], ""),
            ("stratum_sample", int(audit.planned[h]), s["sample"], ""),
        )
        for column, got, want, what in checks:
            if got != want:
                shown = (f"{got:,}", f"{want:,}") if isinstance(want, int) else (f"{got:.15g}", f"{want:.15g}")
                raise _refuse_stratum(audit, h, column, *shown, what)


def check_design(audit: AuditSample, design: dict | None) -> AuditSample:
    """Hold a reviewed plan to its design record; the plan carrying the record when it holds.

    Parameters
    ----------
    audit : AuditSample
        The reviewed plan (:func:`engine.audit.load_audit`).
    design : dict
        Its design record (:func:`design_record` or :func:`load_design`).

    Returns
    -------
    AuditSample
        ``audit`` with ``design`` set to the checked record.

    Raises
    ------
    InputError
        A record of the wrong shape; another number of strata; a stratum whose bounds, documents or
        sample size differ (the review line included); rows missing from a stratum; ids or scores
        that are not the plan's (its rows' SHA-256 differs).
    """
    if not isinstance(audit, AuditSample):
        raise InputError(f"A reviewed audit is an AuditSample (engine.audit.load_audit), not {type(audit).__name__}.")
    if design is None:
        raise InputError(
            f"The audit '{audit.name}' has no design record: its plan.json (written beside plan.csv by the Below the "
            "line page or 'opstudio audit plan') says which population, review line and strata it was planned "
            "for. Give it with the reviewed plan."
        )
    design = _validated(design, "design record")
    _same_strata(audit, design)
    present = np.bincount(audit.strata, minlength=audit.documents.size)
    short = np.flatnonzero(present < audit.planned)
    if short.size:
        h = int(short[0])
        raise InputError(
            f"'{audit.name}': stratum {h + 1} lists {present[h]:,} of its {audit.planned[h]:,} planned documents: rows "
            "were deleted. Keep every row of the plan (leave 'label' empty for a document not reviewed)."
        )
    if plan_rows_sha256(audit) != design["rows_sha256"]:
        raise InputError(
            f"The ids or scores of '{audit.name}' are not the rows its design record was planned with (their "
            "SHA-256 differs): ids or scores were edited, or a spreadsheet changed them (leading zeros dropped, "
            "digits rounded). Fill in 'label' in the plan file as it was downloaded, keeping every other cell."
        )
    return dataclasses.replace(audit, design=design)


def _file_rows(rated: RatedData, positions: np.ndarray) -> np.ndarray:
    """Rows of the rated file (0-based) of rated rows given by their position among the rated rows."""
    rated_rows = np.setdiff1d(np.arange(rated.n_read), rated.unrated_rows)
    return rated_rows[positions] if rated_rows.size == rated.n_rated else positions


def check_rated(rated: RatedData, design: dict | None, classifier: str) -> list[str]:
    """Hold rated data to a design record: its documents at or above the line are the population's documents there.

    Parameters
    ----------
    rated : RatedData
        The rated data.
    design : dict
        The audit's design record (checked).
    classifier : str
        The rated data's score column the audit was planned on.

    Returns
    -------
    list of str
        Warnings (the rated data checked by their number only: more than :data:`MAX_LISTED_ABOVE`
        documents above the line, with weights or unrated rows).

    Raises
    ------
    InputError
        A rated row at or above the line whose score no population document there has (the row
        named), more rated rows there than the population's documents, or fewer than them (with
        the unrated rows).
    """
    if design is None:
        raise InputError("An audit is estimated only with its design record (plan.json beside plan.csv).")
    line, above = design["review_threshold"], design["above"]
    population = design["population"]["name"]
    scores = rated.column(classifier)
    at = np.flatnonzero(scores >= line)
    exact = scores[at] + 0.0
    unit = bool(np.all(rated.weights[at] == 1))
    count, unrated = int(at.size), int(rated.n_unrated)
    where = f"Rated data '{rated.name}' ({classifier!r})"
    if above["scores"] is not None:
        listed, listed_counts = np.unique(np.asarray(above["scores"], dtype=np.float64), return_counts=True)
        values, inverse, counts = np.unique(exact, return_inverse=True, return_counts=True)
        if listed.size:
            k = np.minimum(np.searchsorted(listed, values), listed.size - 1)
            found = listed[k] == values
            fits = found & (counts <= np.where(found, listed_counts[k], 0))
        else:
            fits = np.zeros(values.size, dtype=bool)
        bad = ~fits[inverse]
        if bad.any():
            rows = _file_rows(rated, at[bad])
            raise InputError(
                f"{where} is not the audit's population at or above its review line {line:.6g}: at "
                f"{describe_rows(rows)} it scores {scores[at[bad]][0]:.10g}, and the population {population} has "
                "no (other) document scoring that there. Estimate the audit with the rated data of the documents "
                "it was planned on (the population's documents at or above the line)."
            )
    if count > above["documents"] or (unit and unrated == 0 and count != above["documents"]):
        raise InputError(
            f"{where} has {count:,} rated rows at or above the audit's review line {line:.6g}, the population "
            f"{population} has {above['documents']:,} documents there: they are not the documents the audit was "
            "planned on. Every document at or above the line belongs in the rated data (leave 'label' empty for "
            "one not rated yet)."
        )
    if unit and count + unrated < above["documents"]:  # weighted rows stand for more documents each
        raise InputError(
            f"{where} has {count:,} rated rows at or above the audit's review line {line:.6g} and {unrated:,} unrated "
            f"rows, the population {population} has {above['documents']:,} documents there: some are missing. "
            "Every document at or above the line belongs in the rated data (leave 'label' empty for one not rated)."
        )
    if above["scores"] is None and unit and unrated == 0:
        if _scores_sha256(np.sort(exact)) != above["scores_sha256"]:
            raise InputError(
                f"{where}: the scores of its {count:,} rows at or above the review line {line:.6g} are not those of "
                f"the population {population}'s documents there (their SHA-256 differs). Estimate the audit with "
                "the rated data of the documents it was planned on."
            )
        return []
    if above["scores"] is None:
        return [
            f"{where} was checked against the audit's population by its number of documents at or above the line "
            "only (the population has too many to list, and the rated data hold weights or unrated rows)."
        ]
    return []
