"""The audit's tables, recall cards and record settings, against the estimate they are read from."""

import math

import numpy as np
import pandas as pd
import pytest

from engine.audit import PopulationColumns, estimate, load_audit, plan
from engine.audit._estimate import at_thresholds
from engine.audit._population import memory_population
from engine.audit._report import recall_at
from engine.audit.display import (
    audit_headlines,
    audit_settings,
    plan_table,
    recall_card,
    recall_sentence,
    thresholds_table,
)
from engine.io import load_rated, sample_path


@pytest.fixture(scope="module")
def shipped():
    return estimate(
        load_rated(sample_path("satimage_rated")),
        load_audit(sample_path("satimage_audit")),
        thresholds=[0.95, 0.5, 0.001],
    )


@pytest.fixture(scope="module")
def population():
    frame = pd.read_csv(sample_path("satimage_population"))
    return memory_population(frame, PopulationColumns("doc_id", "score", "score"))


def test_thresholds_table_holds_each_threshold_in_order(shipped):
    table = thresholds_table(shipped)
    assert table["threshold"].tolist() == [0.95, 0.5, 0.001]
    assert table["side"].tolist() == ["at or above the line", "below the line", "below the line"]
    for row, t in zip(table.to_dict("records"), shipped.thresholds):
        for name, label in (("tp", "TP"), ("fp", "FP"), ("precision", "precision"), ("recall", "recall")):
            q = getattr(t, name)
            assert (row[label], row[f"{label} lower"], row[f"{label} upper"]) == (q.estimate, q.lower, q.upper)
    assert list(table.columns[2:5]) == ["TP", "TP lower", "TP upper"]


def test_recall_at_is_the_threshold_estimate_and_zero_when_nothing_is_flagged(shipped):
    assert recall_at(shipped, 0.5) == at_thresholds(shipped, [0.5])[0].recall
    assert recall_at(shipped, shipped.review_threshold) == shipped.recall  # at the line: the headline recall
    nothing = recall_at(shipped, math.inf)
    assert (nothing.estimate, nothing.lower, nothing.upper) == (0, 0, 0)


def test_recall_card_and_sentence_say_the_interval(shipped):
    r = recall_at(shipped, 0.95)
    card = recall_card(shipped, 0.95)
    assert card.label == "Recall (audit)" and card.value == f"{r.lower * 100:.0f} % – {r.upper * 100:.0f} %"
    assert card.caption == f"95 % interval; point estimate {r.estimate * 100:.0f} %"
    assert "satimage_audit.csv" in card.help and "300 of 5,747" in card.help
    sentence = recall_sentence(shipped, 0.95)
    assert sentence.startswith(f"Recall at threshold 0.95 is between {r.lower * 100:.0f} % and {r.upper * 100:.0f} %")
    assert "review line 0.9" in sentence
    assert recall_sentence(shipped, math.inf).startswith("Recall at flagging nothing is between 0 % and 0 %")
    assert recall_card(shipped, math.inf).value == "0 %"  # flagging nothing: recall is exactly 0


def test_headlines_are_intervals_with_the_point_in_the_caption(shipped):
    missed, total, recall, found = audit_headlines(shipped)
    b, r = shipped.positives, shipped.recall
    assert (missed.label, missed.value) == ("Missed positives", f"{b.lower:,.0f} – {b.upper:,.0f}")
    assert missed.caption == f"95 % interval; point estimate {b.estimate:,.0f}"
    assert recall.value == f"{r.lower * 100:.0f} % – {r.upper * 100:.0f} %" and total.label == "All positives"
    assert (found.label, found.value) == ("Positives found", "1")


def test_the_shipped_audit_is_the_plan_of_its_population_and_its_design_record(population, shipped):
    """The sample was planned with the score as the prior, 300 documents, 6 strata, seed 0: the same plan again."""
    from engine.audit.designs import design_record

    again = plan(population, below=0.9, budget=300, strata=6, seed=0, prior_column="score")
    assert set(again.rows["id"]) == set(shipped.audit.ids)
    record = design_record(again)
    assert record["rows_sha256"] == shipped.audit.design["rows_sha256"]
    assert {k: v for k, v in record.items() if k != "population"} == {
        k: v for k, v in shipped.audit.design.items() if k != "population"
    }
    assert record["population"]["fingerprint"] == shipped.audit.design["population"]["fingerprint"]


def test_plan_table_lists_the_strata_highest_first(population):
    p = plan(population, below=0.9, budget=200, strata=4, seed=3, prior_column="score")
    table = plan_table(p)
    assert table["stratum"].tolist() == [4, 3, 2, 1]
    assert table["to review"].sum() == 200 and table["documents"].sum() == p.below
    np.testing.assert_allclose(table["inclusion probability"], table["to review"] / table["documents"])
    assert table["scores below"].iloc[0] == 0.9
    assert table["anticipated prevalence"].notna().all()
    bare = memory_population(pd.DataFrame({"d": population.ids, "s": population.scores}), PopulationColumns("d", "s"))
    assert plan_table(plan(bare, below=0.9, budget=200, seed=3))["anticipated prevalence"].isna().all()


def test_audit_settings_record_the_design_record(shipped):
    s = audit_settings(shipped, rated_sha256="r" * 64)
    assert s["audit_sha256"] == shipped.audit.fingerprint and s["rated_sha256"] == "r" * 64
    assert [h["planned"] for h in s["strata"]] == shipped.audit.planned.tolist()
    assert sum(h["positives_found"] for h in s["strata"]) == s["positives_found"] == shipped.positives_found
    design = shipped.audit.design
    assert (s["seed"], s["allocation"], s["population_rows"], s["population"]) == (
        0,
        "neyman",
        5803,
        "'satimage_population.csv.gz'",
    )
    assert s["population_sha256"] == design["population"]["fingerprint"]["sha256"]
    assert s["plan_rows_sha256"] == design["rows_sha256"] and s["above_line"]["documents"] == 56


def test_an_audit_record_item_round_trips_and_renders(shipped):
    from engine.audit.display import audit_pn_figure, audit_sentence, strata_table
    from engine.record import new_item, read_record_json, record_html, record_json

    item = new_item(
        "audit",
        "Below-the-line audit",
        audit_sentence(shipped),
        tables=[("Strata", strata_table(shipped)), ("Thresholds", thresholds_table(shipped))],
        figures=[("PN", audit_pn_figure(shipped))],
        data_fingerprint=shipped.audit.fingerprint,
        settings=audit_settings(shipped, rated_sha256="r" * 64),
    )
    again = read_record_json(record_json([item]))[0]
    assert again.sentence == item.sentence and again.provenance["settings"]["strata"][0]["planned"] == 132
    pd.testing.assert_frame_equal(again.tables[1][1], thresholds_table(shipped), check_dtype=False)
    html = record_html([item])
    assert "An audit of 300 of the 5,747 unflagged documents found 1 positive" in html
