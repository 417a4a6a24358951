"""The estimate: rated counts above the line, the audit's totals below it, recall, thresholds, sentences."""

import math

import numpy as np
import pandas as pd
import pytest

from engine.audit import audits_for_half_width, estimate, half_width_after
from engine.audit._audit_file import audit_from_frame
from engine.audit._estimate import AboveLine, at_thresholds
from engine.audit._intervals import total_interval
from engine.audit.display import audit_sentence, strata_table
from engine.errors import InputError
from engine.io._rated import rated_from_frame

from .helpers import with_design
from .test_audit_file import reviewed_plan

#: the population's documents at or above the review line 0.5: the rated rows there (0.95 unrated)
ABOVE = [0.5, 0.6, 0.6, 0.9, 0.95]


@pytest.fixture()
def rated():
    return rated_from_frame(
        pd.DataFrame(
            {"score": [0.5, 0.6, 0.6, 0.9, 0.95, 0.3], "label": ["1", "0", "1", "1", "", "0"], "w": [1, 1, 2, 1, 1, 1]}
        )
    )


@pytest.fixture()
def audit():
    frame = reviewed_plan()
    frame["label"] = ["no", "1", "tp", "0", "1", "no"]
    return with_design(audit_from_frame(frame), ABOVE)


def test_json_has_exactly_the_contracts_keys(rated, audit):
    out = estimate(rated, audit, thresholds=[0.7, 0.2]).as_dict()
    assert list(out) == ["review_threshold", "level", "above", "below", "total_positives", "recall", "thresholds"]
    assert list(out["above"]) == ["tp", "fp", "unrated"]
    assert list(out["below"]) == ["documents", "audited", "positives_found", "positives", "strata"]
    assert list(out["below"]["strata"][0]) == [
        "lower",
        "upper",
        "documents",
        "audited",
        "positives_found",
        "prevalence",
    ]
    for key in ("positives",):
        assert list(out["below"][key]) == ["estimate", "lower", "upper"]
    assert list(out["thresholds"][0]) == ["threshold", "tp", "fp", "precision", "recall"]
    assert all(
        list(t[k]) == ["estimate", "lower", "upper"]
        for t in out["thresholds"]
        for k in ("tp", "fp", "precision", "recall")
    )


def test_above_and_below_the_line_by_hand(rated, audit):
    r = estimate(rated, audit)
    # rated rows at or above 0.5: labels 1, 0, 1 (weight 2), 1; the 0.3 row is below the line, the 0.95 unrated
    assert (r.above.tp, r.above.fp, r.unrated) == (4.0, 1.0, 1)
    assert any("below the review threshold" in w for w in r.warnings)
    assert r.positives.estimate == pytest.approx(1000 * 1 / 2 + 300 * 1 / 2 + 40 * 1 / 2)
    assert (r.documents_below, r.audited, r.positives_found) == (1340, 6, 3)
    assert r.total_positives.lower == pytest.approx(4 + r.positives.lower)
    assert r.recall.estimate == pytest.approx(4 / (4 + r.positives.estimate))
    assert r.recall.lower == pytest.approx(4 / (4 + r.positives.upper))
    assert r.recall.upper == pytest.approx(4 / (4 + r.positives.lower))


def test_above_line_counts_are_cumulative_by_score():
    above = AboveLine.from_rated(np.array([0.9, 0.5, 0.9, 0.7]), np.array([1, 0, 0, 1]), np.array([1.0, 2, 3, 4]), "s")
    assert above.counts_at(0.9) == (1.0, 3.0) and above.counts_at(0.6) == (5.0, 3.0)
    assert above.counts_at(0.1) == (5.0, 5.0) and above.counts_at(0.95) == (0.0, 0.0)


def test_thresholds_above_the_line_are_exact_but_for_recall(rated, audit):
    r = estimate(rated, audit)
    (t,) = at_thresholds(r, [0.7])
    assert (t.tp.lower, t.tp.upper, t.fp.estimate, t.precision.estimate) == (1.0, 1.0, 0.0, 1.0)
    assert t.recall.lower == pytest.approx(1 / (4 + r.positives.upper))


def test_thresholds_below_the_line_are_stratified_totals_of_domains(rated, audit):
    r = estimate(rated, audit)
    (t,) = at_thresholds(r, [0.2])
    # at or above 0.2: strata 2 (0.2 tp, 0.25 no) and 3 (0.4 yes, 0.45 no); stratum 1 lies below
    a = total_interval([300, 40], [2, 2], [1, 1])
    assert (t.tp.estimate, t.tp.lower, t.tp.upper) == pytest.approx((4 + a.estimate, 4 + a.lower, 4 + a.upper))
    c = total_interval([300, 40], [2, 2], [1, 1])
    assert t.fp.estimate == pytest.approx(1 + c.estimate)
    # precision and recall hold their estimates; at the lowest score everything is flagged: recall 1
    assert t.precision.lower <= t.precision.estimate <= t.precision.upper
    assert t.recall.lower <= t.recall.estimate <= t.recall.upper
    (everything,) = at_thresholds(r, [0.0])
    assert everything.recall.as_dict() == {"estimate": 1.0, "lower": 1.0, "upper": 1.0}
    assert everything.tp.upper == pytest.approx(r.total_positives.upper)


def test_sentence_and_strata_table(rated, audit):
    r = estimate(rated, audit)
    text = audit_sentence(r)
    assert text.startswith("An audit of 6 of the 1,340 unflagged documents found 3 positives: between ")
    assert (
        f"{r.positives.upper:,.0f} positives (95 %) are missed below the line; recall at the review line is "
        f"between {r.recall.lower * 100:.0f} % and {r.recall.upper * 100:.0f} %." in text
    )
    table = strata_table(r)
    assert len(table) == 3 and table.iloc[0]["documents"] == "40"


def test_follow_up_audits(rated, audit):
    r = estimate(rated, audit)
    now = half_width_after(r, 0)
    assert now.half_width == pytest.approx(r.positives.half_width) and now.extra == 0
    widths = [half_width_after(r, k).half_width for k in (10, 100, 1000)]
    assert widths[0] > widths[1] > widths[2]
    assert half_width_after(r, 1334).half_width == 0  # every document reviewed
    want = widths[1]
    plan = audits_for_half_width(r, want)
    assert plan.half_width <= want + 1e-9 and half_width_after(r, plan.extra - 1).half_width > want
    assert "more audited documents would shrink the 95 % interval" in plan.sentence()
    with pytest.raises(InputError):
        half_width_after(r, 10**6)
    with pytest.raises(InputError):
        audits_for_half_width(r, -1)


def test_bad_arguments(rated, audit):
    with pytest.raises(InputError, match="level"):
        estimate(rated, audit, level=0)
    with pytest.raises(InputError, match="No classifier"):
        estimate(rated, audit, classifier="other")
    with pytest.raises(InputError, match="--threshold"):
        estimate(rated, audit, thresholds=[math.inf])
    with pytest.raises(InputError, match="--threshold must be a list of numbers"):
        estimate(rated, audit, thresholds=0.5)
    with pytest.raises(InputError, match="--threshold must be a finite number"):
        estimate(rated, audit, thresholds=["0.5"])
    with pytest.raises(InputError, match="--level"):
        estimate(rated, audit, level="0.95")
    with pytest.raises(InputError, match="RatedData"):
        estimate("rated.csv", audit)
    with pytest.raises(InputError, match="AuditSample"):
        estimate(rated, "audit.csv")
    with pytest.raises(InputError, match="method"):
        estimate(rated, audit, method="bootstrap")
    nothing_above = rated_from_frame(pd.DataFrame({"score": [0.1, 0.2], "label": [1, 0]}))
    with pytest.raises(InputError, match="has 0 rated rows at or above the audit's review line 0.5"):
        estimate(nothing_above, audit)
