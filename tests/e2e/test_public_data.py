"""Below the line and Monitoring in a real browser on public data we did not make (``../shared/data``).

ADBench's mammography set (Han et al. 2022) goes through the whole audit: scored, uploaded as a
population, planned on the page, the plan "reviewed" with the set's labels, uploaded with the rated
data above the line and estimated; UCI Bank Marketing (Moro et al. 2014) is uploaded as dated
ratings and followed month by month. Each page's numbers must equal the engine's on the same files.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import Page, expect

from engine.audit import estimate, load_audit
from engine.audit.display import audit_headlines
from engine.io import load_rated
from engine.monitor import baseline_threshold, load_dated, monitor
from tests.e2e.conftest import expect_metric, metric, settle, shot, upload

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
#: the public data next to the repository (or next to the worktrees' folder), as the sample builders' tests find it
SHARED = next((p for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared") if p.exists()), ROOT / "shared")
MAMMOGRAPHY = SHARED / "data" / "adbench" / "23_mammography.npz"
BANK = SHARED / "data" / "bank_marketing" / "bank-full.csv.gz"
MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]


def logistic_scores(x: np.ndarray, y: np.ndarray, seed: int = 0) -> np.ndarray:
    """Every row scored by a logistic regression fitted on a random half of the rows (rounded to 6 decimals)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    half = np.random.default_rng(seed).permutation(y.size)[: y.size // 2]
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)).fit(x[half], y[half])
    return np.round(model.predict_proba(x)[:, 1], 6)


def fill_number(page: Page, label: str, value: str, param: str) -> None:
    """Type a number into a bound number input and wait until the URL carries it."""
    box = page.get_by_label(label, exact=True)
    box.fill(value)
    box.press("Enter")
    page.wait_for_function(f"() => window.location.search.includes('{param}={value}')", timeout=30_000)


@pytest.mark.skipif(not MAMMOGRAPHY.exists(), reason=f"public data absent: {MAMMOGRAPHY} (../shared is not here)")
def test_audit_on_mammography(server, page, tmp_path):
    with np.load(MAMMOGRAPHY, allow_pickle=False) as data:
        x, y = data["X"], data["y"].astype(np.int64)
    score = logistic_scores(x, y)
    # the review line: the 98 % score quantile, to 4 significant digits (the page shows 6): 224 documents flagged
    line = float(f"{np.quantile(score, 0.98):.4g}")
    population_path = tmp_path / "mammography_population.csv"
    pd.DataFrame({"doc_id": np.arange(y.size), "score": score}).to_csv(population_path, index=False)
    flagged = score >= line
    rated_path = tmp_path / "mammography_rated.csv"
    pd.DataFrame({"doc_id": np.flatnonzero(flagged), "score": score[flagged], "label": y[flagged]}).to_csv(
        rated_path, index=False
    )
    page.goto(f"{server}/data")  # then navigate inside the app: a reload would start a new session
    settle(page, "Validation report")
    upload(page, population_path, "Scored population")
    nav = page.locator('[data-testid="stSidebarNav"]')
    nav.get_by_text("Below the line", exact=True).click()
    settle(page, "Plan the audit")
    fill_number(page, "Review line (documents scoring below it are audited)", f"{line:g}", "audit_below")
    fill_number(page, "Documents to review", "200", "audit_budget")
    settle(page, "Documents below the line")
    expect_metric(page, "To review", "200")  # the plan of the typed budget (not the default 300 still shown)
    expect_metric(page, "Documents below the line", f"{int((~flagged).sum()):,}")
    with page.expect_download() as download:
        page.get_by_role("button", name="Download the plan (plan.csv)").click()
    plan_path = tmp_path / "plan.csv"
    download.value.save_as(plan_path)
    with page.expect_download() as download:
        page.get_by_role("button", name="Download its design (plan.json)").click()
    design_path = tmp_path / "plan.json"
    download.value.save_as(design_path)
    shot(page, "public_audit_plan")
    # the reviewers' verdicts: the public set's labels
    reviewed = pd.read_csv(plan_path)
    assert len(reviewed) == 200 and (reviewed["score"] < line).all()
    reviewed["label"] = y[reviewed["id"].to_numpy()]
    reviewed_path = tmp_path / "mammography_reviewed.csv"
    reviewed.to_csv(reviewed_path, index=False)
    nav.get_by_text("Data", exact=True).click()
    settle(page, "Validation report")
    upload(page, rated_path, "Rated data")
    # Below the line was opened already: it takes an upload when told (no page changes another's input)
    page.get_by_role("button", name="Use on Below the line").click()
    expect(page.get_by_text("Below the line uses it.")).to_be_visible(timeout=30_000)
    # the uploader holds one file: leave the Data page (its uploader is cleared) and come back for the next one
    nav.get_by_text("Below the line", exact=True).click()
    settle(page, "Plan the audit")
    nav.get_by_text("Data", exact=True).click()
    settle(page, "Validation report")
    upload(page, reviewed_path, "Reviewed audit")
    page.get_by_role("button", name="Use on Below the line").click()
    expect(page.get_by_text("Below the line uses it.")).to_be_visible(timeout=30_000)
    nav.get_by_text("Below the line", exact=True).click()
    settle(page, "Missed positives")
    assert page.locator('[data-testid="stException"]').count() == 0
    # our uploads are the inputs estimated (not the shipped satimage audit)
    expect(page.get_by_role("combobox", name="Reviewed audit (the plan with 'label' filled in)")).to_have_value(
        re.compile(r"mammography_reviewed\.csv.*your upload"), timeout=30_000
    )
    expect(page.get_by_role("combobox", name="Rated data above the line")).to_have_value(
        re.compile(r"mammography_rated\.csv.*your upload"), timeout=30_000
    )
    expect(
        page.get_by_text(f"An audit of 200 of the {int((~flagged).sum()):,} unflagged documents found")
    ).to_be_visible()
    # planned in this session: the page knows the design; the engine reads it from plan.json
    result = estimate(load_rated(rated_path), load_audit(reviewed_path, design=design_path))
    missed, _, recall, _ = audit_headlines(result)
    assert metric(page, "Missed positives") == missed.value
    assert metric(page, "Recall at the review line") == recall.value
    assert metric(page, "Positives found") == f"{result.positives_found:,}"
    assert result.positives_found == int(reviewed["label"].sum())
    assert page.locator('[data-testid="stException"]').count() == 0
    shot(page, "public_audit_estimate")


def bank_dated(path: Path) -> pd.DataFrame:
    """Bank Marketing's rows with their day: the year is not in the file, it is counted.

    The rows are in time order, May 2008 to November 2010 (Moro et al. 2014), with ``month`` and
    ``day`` but no year: the year starts at 2008 and goes up by one each time the month goes back
    (dec -> jan ...) from one row to the next. The dates so derived never decrease.
    """
    bank = pd.read_csv(path, sep=";")
    month = bank["month"].map(MONTHS.index).to_numpy()
    year = 2008 + np.concatenate([[0], np.cumsum(np.diff(month) < 0)])
    dates = pd.to_datetime(pd.DataFrame({"year": year, "month": month + 1, "day": bank["day"]}))
    assert dates.is_monotonic_increasing and dates.iloc[0].year == 2008 and dates.iloc[-1] <= pd.Timestamp("2010-11-30")
    return bank.assign(date=dates.dt.strftime("%Y-%m-%d"))


@pytest.mark.skipif(not BANK.exists(), reason=f"public data absent: {BANK} (../shared is not here)")
def test_monitoring_on_bank_marketing(server, page, tmp_path):
    bank = bank_dated(BANK)
    numeric = bank.select_dtypes("number").columns  # age, balance, day, duration, campaign, pdays, previous
    y = (bank["y"] == "yes").to_numpy().astype(np.int64)
    score = logistic_scores(bank[numeric].to_numpy(float), y)
    # rated: the rows flagged above the 80 % score quantile (the others were never reviewed)
    rated = bank.assign(score=score)[score > np.quantile(score, 0.8)]
    dated_path = tmp_path / "bank_dated.csv"
    rated[["date", "score", "y"]].rename(columns={"y": "label"}).to_csv(dated_path, index=False)
    page.goto(f"{server}/data")
    settle(page, "Validation report")
    upload(page, dated_path, "Dated ratings")
    expect(page.locator('[data-testid="stMain"]')).to_contain_text("Days covered", timeout=30_000)
    page.locator('[data-testid="stSidebarNav"]').get_by_text("Monitoring", exact=True).click()  # same session
    settle(page, "Periods")
    page.locator('[data-testid="stSelectbox"]').filter(has_text="Period").first.click()
    page.get_by_role("option", name="month", exact=True).click()
    page.wait_for_function("() => window.location.search.includes('mon_period=month')", timeout=30_000)
    settle(page, "Periods")
    expect(page.get_by_role("combobox", name="Dated ratings")).to_have_value(
        re.compile(r"bank_dated\.csv.*your upload"), timeout=30_000
    )  # the upload is the active dated input
    assert page.locator('[data-testid="stException"]').count() == 0
    # the engine on the same file, with the page's defaults: target 0.3, T = the first quarter's threshold, 95 %
    dated = load_dated(dated_path)
    threshold = round(baseline_threshold(dated, 0.3), 6)
    result = monitor(dated.counts("month"), threshold, 0.3, level=0.95)
    assert len(result.periods) > 20  # May 2008 - Nov 2010
    # the months' figures (the period was chosen just before: waited for, not read)
    expect_metric(page, "Periods", f"{len(result.periods)}")
    expect_metric(page, "Alerts", f"{len(result.alerts)}")
    expect_metric(page, "First alert", result.alerts[0]["period"] if result.alerts else "none")
    assert page.locator('[data-testid="stException"]').count() == 0
    shot(page, "public_monitoring")
