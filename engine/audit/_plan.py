"""Plan a below-the-line audit: strata, sample sizes and the documents to review, on any backend.

:func:`plan` asks a population (:class:`~engine.audit._population.PopulationScan`: memory,
DuckDB or Spark) for counts, the strata bounds' order statistics and the selection's
candidates, and does everything else — bounds, allocation, selection — here, once, so every
backend plans the same audit: the same strata, sizes and documents for the same seed.

The plan also keeps what its design record (:func:`engine.audit.designs.design_record`, ``plan.json``)
binds the audit to: the population's fingerprint and columns, and the scores of its documents at
or above the line.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._arguments import real_number, whole_number
from ..errors import InputError
from ..reporting import csv_bytes
from ._audit_file import PLAN_COLUMNS, AuditSample, check_plan_ids, plan_id_cells
from ._design import (
    ALLOCATIONS,
    SPACINGS,
    allocate,
    budget_for_half_width,
    expected_half_width,
    pilot_prevalence,
    quantile_ranks,
    strata_bounds,
    stratum_levels,
)
from ._intervals import check_level
from ._population import PopulationColumns, PopulationScan
from ._selection import check_seed, cutoffs, select

__all__ = ["PlanStratum", "AuditPlan", "plan", "MAX_WIDENINGS"]

#: most times a stratum short of candidates is read again (each time with 4x the expected candidates)
MAX_WIDENINGS = 12
#: most candidates the scan that counts the strata collects (else the candidates are read in a scan of their own)
MERGED_CANDIDATES = 2_000_000


@dataclass(frozen=True)
class PlanStratum:
    """One stratum of the plan.

    Attributes
    ----------
    stratum : int
        Its number (1 = the lowest scores).
    lower, upper : float
        Score bounds ``[lower, upper)``.
    documents : int
        Documents below the line in it (``N_h``).
    sample : int
        Documents to review (``n_h``).
    prevalence : float
        Anticipated prevalence (from the prior column or a pilot; NaN when none was given).
    """

    stratum: int
    lower: float
    upper: float
    documents: int
    sample: int
    prevalence: float = math.nan

    def as_dict(self) -> dict:
        """The stratum as JSON-ready values (``anticipated_prevalence`` None when unknown)."""
        return {
            "stratum": self.stratum,
            "lower": self.lower,
            "upper": self.upper,
            "documents": self.documents,
            "sample": self.sample,
            "inclusion_probability": self.sample / self.documents,
            "anticipated_prevalence": None if math.isnan(self.prevalence) else self.prevalence,
        }


@dataclass(frozen=True)
class AuditPlan:
    """A planned audit: the design and the documents to review.

    Attributes
    ----------
    review_threshold : float
        The review line T: documents with score < T are below it.
    strata : tuple of PlanStratum
        Ascending by score.
    rows : pandas.DataFrame
        The selected documents with :data:`~engine.audit._audit_file.PLAN_COLUMNS` (``label`` empty),
        highest score first.
    seed : int
        Selection seed.
    allocation : str
        ``proportional``, ``neyman`` or ``equal``.
    spacing : str
        ``geometric`` or ``quantile`` strata.
    level : float
        Level of the planned interval.
    expected_half_width : float or None
        Planned half-width of the interval of the positives below the line (normal
        approximation; None without an anticipated prevalence).
    prevalence_source : str or None
        Where the anticipated prevalences come from.
    population : int
        Documents in the population (above and below the line).
    above : int
        Documents at or above the line.
    backend : str
        ``memory``, ``duckdb`` or ``spark``.
    seconds : float
        Time taken.
    warnings : tuple of str
        Merged strata (tied scores) and fully reviewed strata.
    population_name : str
        The population's name (a file, a path on the server, "the DataFrame").
    identity : dict
        The population's fingerprint: ``kind`` (``columns`` or ``connection``) and ``sha256``.
    columns : PopulationColumns or None
        The id, score and prior columns read.
    above_scores : numpy.ndarray or None
        The scores of the population's documents at or above the line, ascending.
    """

    review_threshold: float
    strata: tuple[PlanStratum, ...]
    rows: pd.DataFrame
    seed: int
    allocation: str
    spacing: str
    level: float
    expected_half_width: float | None
    prevalence_source: str | None
    population: int
    above: int
    backend: str
    seconds: float
    warnings: tuple[str, ...] = field(default=())
    population_name: str = ""
    identity: dict = field(default_factory=dict)
    columns: PopulationColumns | None = None
    above_scores: np.ndarray | None = field(default=None, repr=False, compare=False)

    @property
    def budget(self) -> int:
        """Documents to review."""
        return int(sum(s.sample for s in self.strata))

    @property
    def below(self) -> int:
        """Documents below the line."""
        return int(sum(s.documents for s in self.strata))

    def table(self) -> pd.DataFrame:
        """The plan file's cells: one row per selected document, :data:`PLAN_COLUMNS` in order, ``label`` empty.

        Returns
        -------
        pandas.DataFrame
            Ids as the file writes them (:func:`engine.audit.plan_id_cells`: numbers when every id
            is a canonical whole number, else text with a leading apostrophe where a reader would
            not give the text back); :func:`engine.audit.audit_from_frame` reads them back.
        """
        return self.rows.loc[:, list(PLAN_COLUMNS)].assign(id=plan_id_cells(self.rows["id"]).to_numpy())

    def csv(self) -> bytes:
        """The plan file's bytes (``plan.csv``).

        Returns
        -------
        bytes
            UTF-8 CSV of :meth:`table` (:func:`engine.reporting.csv_bytes`: no text cell starts a
            spreadsheet formula; ids are already marked where they would).
        """
        return csv_bytes(self.table())

    def as_dict(self) -> dict:
        """The design as JSON-ready values (what ``opstudio audit plan --json`` prints)."""
        return {
            "review_threshold": self.review_threshold,
            "population": self.population,
            "above": self.above,
            "below": self.below,
            "budget": self.budget,
            "seed": self.seed,
            "allocation": self.allocation,
            "spacing": self.spacing,
            "level": self.level,
            "expected_half_width": self.expected_half_width,
            "prevalence_source": self.prevalence_source,
            "strata": [s.as_dict() for s in self.strata],
            "backend": self.backend,
            "seconds": self.seconds,
            "warnings": list(self.warnings),
        }

    def sentence(self) -> str:
        """The plan in one sentence."""
        text = (
            f"Review {self.budget:,} of the {self.below:,} documents below the line (score < "
            f"{self.review_threshold:.6g}), drawn at random in {len(self.strata)} score strata "
            f"({self.allocation} allocation, seed {self.seed})"
        )
        if self.expected_half_width is None:
            return text + "."
        return (
            text + f"; the {self.level * 100:g} % interval of the missed positives is expected to be about "
            f"±{self.expected_half_width:,.0f}."
        )


def _check_arguments(scan, below, budget, half_width, allocation, spacing, pilot, prior_column, level, seed) -> tuple:
    """Every argument of :func:`plan` checked before the population is read: (threshold, level, seed)."""
    if not all(hasattr(scan, m) for m in ("summary", "strata", "candidates", "__enter__")):
        raise InputError(
            "plan() takes a population opened by engine.backends.open_population (or engine.audit.memory_population), "
            f"not {type(scan).__name__}."
        )
    threshold = real_number(below, "--below", what="the review threshold")
    if (budget is None) == (half_width is None):
        raise InputError(
            "give either --budget N (documents to review) or --half-width W (the wanted precision), not both"
        )
    if budget is not None:
        whole_number(budget, "--budget", 1, what="(documents to review)")
    if half_width is not None:
        real_number(half_width, "--half-width", positive=True, what="missed positives")
    if allocation is not None and allocation not in ALLOCATIONS:
        raise InputError(f"unknown allocation {allocation!r}; choose one of {', '.join(ALLOCATIONS)}")
    if spacing not in SPACINGS:
        raise InputError(f"unknown strata spacing {spacing!r}; choose one of {', '.join(SPACINGS)}")
    if pilot is not None and not isinstance(pilot, AuditSample):
        raise InputError(f"--pilot must be a reviewed audit (engine.audit.load_audit), not {type(pilot).__name__}")
    if prior_column is not None and not isinstance(prior_column, str):
        raise InputError(f"--prior must be a column name, got {prior_column!r}")
    return threshold, check_level(level), check_seed(seed)


def _prevalence(scan_prior, docs, pilot: AuditSample | None, prior_column: str | None, lowers, uppers):
    """(anticipated prevalence per stratum or None, where it came from)."""
    if scan_prior is not None:
        # rounded to 9 significant digits: backends sum the prior in different orders (last bits differ), and
        # the allocation must not depend on that
        mean = np.array([float(f"{v:.9g}") for v in np.clip(scan_prior / docs, 0.0, 1.0)])
        return mean, f"prior column '{prior_column}'"
    if pilot is not None:
        done = pilot.labels >= 0
        return (
            pilot_prevalence(pilot.scores[done], pilot.labels[done], pilot.weights[done], lowers, uppers),
            f"pilot audit '{pilot.name}'",
        )
    return None, None


def _merged_cutoffs(
    found: np.ndarray, ranks: np.ndarray, lowers: np.ndarray, below: int, budget: int | None
) -> list[str | None] | None:
    """Cutoffs for the scan that counts the strata: each stratum may need up to the whole budget.

    The strata's sizes are not known yet, so they are approximated from the ranks of their lower
    bounds (exact without ties); None (a separate candidates scan) for a half-width plan or when
    that many candidates would be too many to collect.
    """
    if budget is None:
        return None
    first = [0] + [int(ranks[found == v].min()) for v in lowers[1:]] + [below]
    approx = np.maximum(np.diff(first), 1)
    want = np.minimum(approx, budget)
    return cutoffs(approx, want) if want.sum() <= MERGED_CANDIDATES else None


def _selection(scan: PopulationScan, lowers, threshold, docs, sizes, seed, found) -> pd.DataFrame:
    """The selected documents: the smallest keys among the candidates, read again wider for a stratum short of them."""
    widen = np.ones(docs.size, dtype=np.int64)
    for _ in range(MAX_WIDENINGS):
        if found is None:
            cut = [cutoffs([d], [n], int(w))[0] for d, n, w in zip(docs, sizes, widen)]
            found = scan.candidates(lowers, threshold, cut, seed)
        chosen, short = select(found, sizes)
        if not short:
            return chosen
        widen[short] *= 4
        found = None
    raise InputError(
        "the selection found fewer documents in a stratum than it holds; the population changed "
        "while it was read (plan again)."
    )


def _rows(chosen: pd.DataFrame, strata: tuple[PlanStratum, ...]) -> pd.DataFrame:
    h = chosen["stratum"].to_numpy(dtype=np.int64)
    docs = np.array([s.documents for s in strata])[h]
    sizes = np.array([s.sample for s in strata])[h]
    rows = pd.DataFrame(
        {
            "id": chosen["id"].to_numpy(dtype=object),
            "score": chosen["score"].to_numpy(dtype=np.float64),
            "stratum": np.array([s.stratum for s in strata])[h],
            "stratum_lower": np.array([s.lower for s in strata])[h],
            "stratum_upper": np.array([s.upper for s in strata])[h],
            "stratum_documents": docs,
            "stratum_sample": sizes,
            "inclusion_probability": sizes / docs,
            "weight": docs / sizes,
            "label": "",
        }
    )
    return rows.sort_values(["score", "id"], ascending=[False, True], kind="stable").reset_index(drop=True)


def _warnings(asked: int, strata: tuple[PlanStratum, ...]) -> list[str]:
    out = []
    if len(strata) < asked:
        out.append(
            f"{asked} strata were asked for but tied scores leave {len(strata)} (strata bounds are distinct scores)."
        )
    full = [s.stratum for s in strata if s.sample == s.documents]
    if full:
        out.append(f"Strata {', '.join(map(str, full))} are reviewed in full (every document).")
    return out


def plan(
    scan: PopulationScan,
    *,
    below: float,
    budget: int | None = None,
    half_width: float | None = None,
    strata: int = 6,
    allocation: str | None = None,
    spacing: str = "geometric",
    pilot: AuditSample | None = None,
    prior_column: str | None = None,
    seed: int = 0,
    level: float = 0.95,
) -> AuditPlan:
    """Plan a stratified random audit of the documents below the review line.

    Parameters
    ----------
    scan : PopulationScan
        The population (:func:`engine.backends.open_population`, or a
        :class:`~engine.audit._population.MemoryPopulation`), opened as a context manager here.
    below : float
        The review threshold T: documents with score < T are audited.
    budget : int, optional
        Documents to review (give this or ``half_width``).
    half_width : float, optional
        Wanted half-width of the interval of the positives below the line; the smallest budget
        expected to achieve it is chosen (needs a prior column or a pilot).
    strata : int
        Strata asked for (ties in the scores can merge some).
    allocation : {"proportional", "neyman", "equal"}, optional
        Default: Neyman with a prior column or a pilot, proportional otherwise.
    spacing : {"geometric", "quantile"}
        Strata halving towards the line, or equal-count strata.
    pilot : AuditSample, optional
        An earlier reviewed audit: its prevalence within each new stratum's bounds.
    prior_column : str, optional
        Name of the scan's prior column (for the plan's description).
    seed : int
        Selection seed in [0, 2**32): the same seed selects the same documents on every backend.
    level : float
        Level of the planned interval.

    Returns
    -------
    AuditPlan

    Raises
    ------
    InputError
        Bad arguments, bad population rows, no document below the line, a budget outside what
        the strata allow, or Neyman / ``half_width`` without an anticipated prevalence.

    References
    ----------
    Cochran (1977), *Sampling Techniques*, ch. 5 (stratified random sampling, allocation);
    Cohen & Kaplan (2007), bottom-k samples.

    Examples
    --------
    >>> from engine.audit import plan
    >>> from engine.backends import open_population
    >>> population = open_population("sample_data/satimage_population.csv.gz", id="doc_id", score="score")
    >>> audit = plan(population, below=0.9, budget=300, seed=0)
    >>> [s.sample for s in audit.strata], audit.allocation  # documents to review per stratum
    ([150, 75, 38, 19, 9, 9], 'proportional')
    """
    started = time.perf_counter()
    threshold, level, seed = _check_arguments(
        scan, below, budget, half_width, allocation, spacing, pilot, prior_column, level, seed
    )
    levels = stratum_levels(strata, spacing)
    with scan:
        summary = scan.summary(threshold)
        if summary.below == 0:
            raise InputError(
                f"No document of the population scores below {threshold:.6g}: nothing to audit. Check "
                "--below (the review threshold) and --score."
            )
        ranks = quantile_ranks(summary.below, levels)
        found = scan.order_statistics(ranks, threshold, summary.low, summary.high)
        lowers, uppers = strata_bounds(found, summary.low, threshold)
        merged = _merged_cutoffs(found, ranks, lowers, summary.below, budget)
        docs, prior_sums, candidates = scan.strata(lowers, threshold, merged, seed)
        prevalence, source = _prevalence(prior_sums, docs, pilot, prior_column, lowers, uppers)
        allocation = allocation or ("neyman" if prevalence is not None else "proportional")
        if half_width is not None:
            if prevalence is None:
                raise InputError(
                    "--half-width needs an anticipated prevalence: a prior probability column (--prior "
                    "COL) or a pilot audit (--pilot FILE)."
                )
            budget = budget_for_half_width(half_width, docs, allocation, prevalence, level=level)
        sizes = allocate(budget, docs, allocation, prevalence)  # type: ignore[arg-type]
        chosen = _selection(scan, lowers, threshold, docs, sizes, seed, candidates)
        check_plan_ids(chosen["id"], scan.columns.id)
        identity, above_scores = scan.identity(), scan.above_scores(threshold)
    prev = prevalence if prevalence is not None else np.full(docs.size, np.nan)
    plan_strata = tuple(
        PlanStratum(h + 1, float(lowers[h]), float(uppers[h]), int(docs[h]), int(sizes[h]), float(prev[h]))
        for h in range(docs.size)
    )
    expected = None if prevalence is None else expected_half_width(docs, sizes, prevalence, level=level)
    return AuditPlan(
        threshold,
        plan_strata,
        _rows(chosen, plan_strata),
        seed,
        allocation,
        spacing,
        level,
        expected,
        source,
        summary.rows,
        summary.above,
        scan.backend,
        time.perf_counter() - started,
        tuple(_warnings(strata, plan_strata)),
        scan.name,
        identity,
        scan.columns,
        above_scores,
    )
