"""Below the line in a real browser: plan on the shipped population, review the list, upload it, estimate."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from playwright.sync_api import expect

from engine.audit import PopulationColumns, estimate, load_audit, plan
from engine.audit._population import memory_population
from engine.audit.designs import design_record
from engine.audit.display import audit_headlines
from engine.io import load_rated, sample_path
from tests.e2e.conftest import assert_healthy, choose_file, metric, settle, shot

pytestmark = pytest.mark.e2e


def test_plan_review_and_estimate_on_the_shipped_samples(server, page, tmp_path):
    population = pd.read_csv(sample_path("satimage_population"))
    rated = load_rated(sample_path("satimage_rated"))
    page.goto(f"{server}/audit")  # then navigate inside the app: a reload would start a new session
    settle(page, "Missed positives")
    assert_healthy(page, 3)
    # the shipped audit, estimated with its shipped rated data
    shipped = estimate(rated, load_audit(sample_path("satimage_audit")))
    assert metric(page, "To review") == "300" and metric(page, "Documents below the line") == "5,747"
    assert metric(page, "Recall at the review line") == audit_headlines(shipped)[2].value
    expect(page.locator('[data-testid="stSidebar"]')).to_contain_text("satimage_rated.csv.gz")
    # plan another audit: seed 5
    seed = page.get_by_label("Seed", exact=True)
    seed.fill("5")
    seed.press("Enter")
    page.wait_for_function("() => window.location.search.includes('audit_seed=5')", timeout=30_000)
    settle(page, "Missed positives")
    with page.expect_download() as download:
        page.get_by_role("button", name="Download the plan (plan.csv)").click()
    plan_path = tmp_path / "plan.csv"
    download.value.save_as(plan_path)
    pop = memory_population(population, PopulationColumns("doc_id", "score", "score"))
    planned = plan(pop, below=0.9, budget=300, strata=6, seed=5, prior_column="score")
    assert plan_path.read_bytes() == planned.csv()
    shot(page, "audit_plan")
    # the reviewers fill in 'label' (the public set's known labels), the audit is uploaded on the Data page
    reviewed = pd.read_csv(plan_path)
    reviewed["label"] = population.set_index("doc_id")["known_label"].loc[reviewed["id"]].to_numpy()
    reviewed_path = tmp_path / "reviewed.csv"
    reviewed.to_csv(reviewed_path, index=False)
    nav = page.locator('[data-testid="stSidebarNav"]')
    nav.get_by_text("Data", exact=True).click()
    settle(page, "Validation report")
    choose_file(page, reviewed_path)  # not upload(): the kind must be guessed, not chosen
    settle(page, "Validation report")
    expect(page.get_by_role("combobox", name="Kind of input")).to_have_value("Reviewed audit")  # guessed
    expect(page.locator('[data-testid="stSidebar"]')).to_contain_text("reviewed.csv", timeout=30_000)
    # Below the line was opened already: it keeps its audit until it is told (no page changes another's input)
    page.get_by_role("button", name="Use on Below the line").click()
    expect(page.get_by_text("Below the line uses it.")).to_be_visible(timeout=30_000)
    nav.get_by_text("Below the line", exact=True).click()
    settle(page, "Missed positives")
    # this session planned it: the page knows its design record (no plan.json uploaded)
    result = estimate(rated, load_audit(reviewed_path), design=design_record(planned))
    assert metric(page, "Missed positives") == audit_headlines(result)[0].value
    assert metric(page, "Recall at the review line") == audit_headlines(result)[2].value
    expect(page.get_by_text("An audit of 300 of the 5,747 unflagged documents found")).to_be_visible()
    page.get_by_role("button", name="Add to decision record").last.click()
    expect(page.get_by_text("The record now holds 1 decision")).to_be_visible(timeout=60_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    shot(page, "audit_estimate")
    # the Operating point page opens on its own rated data (the synthetic sample: Below the line changed nothing
    # there); on the audit's rated data it shows recall at its threshold
    nav.get_by_text("Operating point", exact=True).click()
    settle(page, "Sweep of target marginal precisions")
    expect(page.locator('[data-testid="stSidebar"]')).to_contain_text("synthetic_rare_events.csv.gz")
    page.get_by_role("combobox", name="Rated data").click()
    page.get_by_role("option", name=re.compile("Statlog satimage")).click()
    settle(page, "Sweep of target marginal precisions")
    expect(
        page.locator('[data-testid="stMetric"]').filter(has=page.get_by_text("Recall (audit)", exact=True))
    ).to_have_count(1, timeout=30_000)
