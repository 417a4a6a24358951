"""Below-the-line audits: how many positives does the review line miss?

Everything above the review line is rated (true and false positives, Robles et al.,
AAAI-MAKE 2020); nothing below it is. An audit reviews a random sample of the unflagged
documents, stratified by score, and estimates the positives below the line with a
design-based interval (Cochran, *Sampling Techniques*, 3rd ed., 1977, ch. 5):

* :func:`plan` — strata of the below-line scores (the same bounds on every backend), sample
  sizes (proportional, Neyman with a prior or a pilot, or equal; never an empty stratum), and
  the documents: in each stratum the ``n_h`` smallest ``md5(seed:id)`` keys, so a seed selects
  the same documents in memory, in DuckDB and in Spark (:func:`engine.backends.open_population`).
* :mod:`engine.audit.designs` — the design record, what the plan was made for (``plan.json`` beside ``plan.csv``): the
  population's fingerprint and score column, the review line, the seed, the strata, the documents
  at or above the line and the SHA-256 of the plan's rows; :func:`~engine.audit.designs.load_design` reads one
  within limits, :func:`~engine.audit.designs.check_design` holds a reviewed plan to it and
  :func:`~engine.audit.designs.check_rated` rated data.
* :func:`estimate` — positives below the line, all positives and recall at the line, per
  stratum and at any threshold, with intervals, refused unless the reviewed plan and the rated
  data are those of its design record; :mod:`engine.audit.display` says it in one sentence,
  headlines it (intervals where the data cannot pin a point down) and draws it; :func:`half_width_after` / :func:`audits_for_half_width` what more reviews would buy, .

**Interval** (:mod:`~engine.audit._intervals`): the default is the stratified **score**
interval — Wilson's score interval generalised to a stratified total (Rao's score test of
``sum_h (y_h + m_h p_h) = T0``, the variance at the constrained maximum-likelihood prevalences,
the finite-population correction; Wilson 1927; Decrouez & Robinson 2012). Under the null a
stratum where the audit found nothing gets the prevalence the likelihood allows, so its
unreviewed documents still widen the interval: it stays honest with zero or few positives per
stratum. Chosen by simulation (``benchmarks/bench_audit.py``: ADBench mammography and
satimage-2 scored by a cross-fitted logistic regression, review lines leaving 34 % and 21 % of
the positives below, 300 audits per design): the score interval covered 94–97 % at 95 % in every
design (simple random sampling, 6 strata proportional, 6 strata Neyman); 6 proportional strata
narrowed it by 7 % against simple random sampling of the same budget on both sets, Neyman
allocation on the score by 10 % on mammography (1 % wider on satimage-2, where it found 3 times
more positives). The Wald interval fell to 52–92 %
(no width when nothing is found); per-stratum Jeffreys posteriors, summed, drifted high with
several strata (41–88 %: half a pseudo-positive per stratum, scaled by its weight); Wilson with
an effective sample size over-covered (up to 100 %) and did not narrow with strata; the
Bonferroni-exact interval was 4–6 times wider.

Intervals at other thresholds below the line are the same method on domain totals (the
positives and negatives at or above the threshold, the positives under it); precision and recall
there combine two totals at level ``1 - (1 - level) / 2`` (Bonferroni; conservative).
"""

from ._audit_file import PLAN_COLUMNS, load_audit
from ._design import ALLOCATIONS, MAX_STRATA, SPACINGS
from ._estimate import AuditEstimate, estimate
from ._followup import audits_for_half_width, half_width_after
from ._intervals import METHODS
from ._plan import AuditPlan, plan
from ._population import PopulationColumns, detect_population_columns, read_population
from ._simulation import simulate_coverage
from .designs import design_json, design_path, design_record, load_design, plan_rows_sha256
from .display import (
    audit_headlines,
    audit_pn_figure,
    audit_pr_figure,
    audit_sentence,
    audit_settings,
    extended_curve,
    plan_table,
    recall_card,
    recall_sentence,
    strata_figure,
    strata_table,
    thresholds_table,
)

#: the package's public modules beside this front (every other module is private)
__public_modules__ = ("designs", "display")

__all__ = [
    "plan",
    "AuditPlan",
    "ALLOCATIONS",
    "MAX_STRATA",
    "SPACINGS",
    "METHODS",
    "PLAN_COLUMNS",
    "PopulationColumns",
    "detect_population_columns",
    "read_population",
    "load_audit",
    "estimate",
    "AuditEstimate",
    "half_width_after",
    "audits_for_half_width",
    "simulate_coverage",
    # what the pages, views and the CLI draw and say (defined in audit.designs and audit.display)
    "design_json",
    "design_path",
    "design_record",
    "load_design",
    "plan_rows_sha256",
    "audit_headlines",
    "audit_pn_figure",
    "audit_pr_figure",
    "audit_sentence",
    "audit_settings",
    "extended_curve",
    "plan_table",
    "recall_card",
    "recall_sentence",
    "strata_figure",
    "strata_table",
    "thresholds_table",
]
