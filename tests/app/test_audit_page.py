"""Below the line (Audit page): the plan and the estimate are exactly the engine's, on the samples and on uploads."""

import hashlib
import io
import json

import numpy as np
import pandas as pd
import pytest

from engine.audit import MAX_STRATA, PLAN_COLUMNS, PopulationColumns, estimate, load_audit, plan
from engine.audit._audit_file import audit_from_frame
from engine.audit._population import memory_population
from engine.audit.designs import design_json, design_record
from engine.audit.display import audit_headlines, audit_sentence
from engine.io import load_rated, rated_from_frame, sample_path
from tests.app.conftest import download_buttons, shown, upload_input

PAGE = "pages/audit.py"
OP_PAGE = "pages/operating_point.py"


def metrics(at) -> dict:
    return {m.label: m.value for m in at.main.metric}


@pytest.fixture(scope="module")
def shipped():
    population = pd.read_csv(sample_path("satimage_population"))
    pop = memory_population(
        population, PopulationColumns("doc_id", "score", "score"), name="'satimage_population.csv.gz'"
    )
    return pop, load_rated(sample_path("satimage_rated")), load_audit(sample_path("satimage_audit"))


def test_the_shipped_samples_plan_the_shipped_audit_again_and_estimate_it(app, served, shipped):
    pop, rated, audit = shipped
    at = app(page=PAGE)
    assert not at.exception and not at.error
    expected = plan(pop, below=0.9, budget=300, strata=6, seed=0, prior_column="score")
    csv = served(download_buttons(at)["Download the plan (plan.csv)"])
    assert csv == expected.csv()
    assert served(download_buttons(at)["Download its design (plan.json)"]) == design_json(design_record(expected))
    got = pd.read_csv(io.BytesIO(csv))
    assert list(got.columns) == list(PLAN_COLUMNS) and got["label"].isna().all()
    assert set(got["id"].astype(str)) == set(audit.ids)  # the shipped audit is this plan, reviewed
    m = metrics(at)
    assert (m["Documents below the line"], m["To review"], m["Population"]) == ("5,747", "300", "5,803")
    assert m["Expected half-width"] == f"±{expected.expected_half_width:,.1f}"
    result = estimate(rated, audit)
    assert at.selectbox(key="audit_rated").value == "sample:satimage_rated"  # the shipped audit's rated data
    missed, total, recall, found = audit_headlines(result)  # intervals, the points in the captions
    assert (m["Missed positives"], m["All positives"]) == (missed.value, total.value) == ("1 – 87", "57 – 143")
    assert (m["Recall at the review line"], m["Positives found"]) == (recall.value, found.value) == ("39 % – 97 %", "1")
    captions = shown(at.main.caption)
    assert missed.caption in captions and recall.caption in captions
    assert audit_sentence(result) in shown(at.markdown)
    assert [c.key for c in at.get("plotly_chart")] == ["audit_pn_chart", "audit_pr_chart", "audit_strata_chart"]


def test_settings_change_the_plan_as_the_engine_does(app, served, shipped):
    pop = shipped[0]
    at = app(page=PAGE)
    at.number_input(key="audit_seed").set_value(7).run()
    at.number_input(key="audit_strata").set_value(4).run()
    at.selectbox(key="audit_allocation").set_value("equal").run()
    at.number_input(key="audit_budget").set_value(120).run()
    assert not at.exception
    expected = plan(pop, below=0.9, budget=120, strata=4, allocation="equal", seed=7, prior_column="score")
    assert served(download_buttons(at)["Download the plan (plan.csv)"]) == expected.csv()
    assert json.loads(served(download_buttons(at)["Download its design (plan.json)"]))["seed"] == 7
    at.radio(key="audit_size_by").set_value("Half-width").run()
    at.number_input(key="audit_half_width").set_value(10.0).run()
    wanted = plan(pop, below=0.9, half_width=10.0, strata=4, allocation="equal", seed=7, prior_column="score")
    assert metrics(at)["To review"] == f"{wanted.budget:,}"


def test_the_plan_is_made_once_for_its_settings_not_on_every_run(app, monkeypatch, fresh_server_cache):
    # it was memoised under the page script's PlanSettings object, a new class on every run: planned again each time
    import engine.audit

    made = []
    original = engine.audit.plan
    monkeypatch.setattr(engine.audit, "plan", lambda *a, **k: made.append(1) or original(*a, **k))
    at = app(page=PAGE)
    assert not at.exception and len(made) == 1
    at.run()
    at.run()
    assert not at.exception and len(made) == 1
    at.number_input(key="audit_strata").set_value(5).run()
    assert len(made) == 2


def test_a_review_line_under_every_score_is_an_error_not_a_crash(app):
    at = app(page=PAGE)
    at.number_input(key="audit_below").set_value(-1.0).run()
    assert not at.exception
    assert "No plan." in at.error[0].value and "nothing to audit" in at.error[0].value


def thresholds_shown(at):
    return next(d.value for d in at.dataframe if "Quantity" in d.value.columns).set_index("Quantity")


def test_any_threshold_is_estimated(app, shipped):
    _, rated, audit = shipped
    at = app(page=PAGE)
    at.number_input(key="audit_threshold").set_value(0.01).run()
    assert not at.exception
    # shown one quantity per row, a column per threshold (14 columns side by side scrolled at 1,280 px)
    table = thresholds_shown(at)
    last = table.columns[-1]
    assert float(last) == pytest.approx(0.01) and table.loc["Side", last] == "below the line"
    expected = estimate(rated, audit, thresholds=[0.01]).thresholds[0]
    shown_value = float(table.loc["Recall, lower bound", last].rstrip(" %")) / 100
    assert shown_value == pytest.approx(expected.recall.lower, abs=5e-4)  # a percentage with one decimal


def test_the_operating_point_threshold_is_quoted_as_that_page_shows_it_on_the_same_data_or_not_at_all(app):
    at = app(page=PAGE)
    assert "threshold shows here too while that page shows this rated data" in shown(at.caption)
    assert list(thresholds_shown(at).columns) == ["0.5"]  # only the threshold asked: nothing is quoted
    at.switch_page(OP_PAGE).run()  # the synthetic sample there: not this page's rated data
    at.switch_page(PAGE).run()
    assert list(thresholds_shown(at).columns) == ["0.5"]
    at.switch_page(OP_PAGE).run()
    at.selectbox(key="op_rated").set_value("sample:satimage_rated").run()
    at.toggle(key="op_money").set_value(True).run()  # a target from money: (C + F) / (V + F) = 2 / 10
    at.number_input(key="op_review_cost").set_value(2.0).run()
    assert not at.exception
    threshold = metrics(at)["Threshold"]  # as the Operating point page shows it
    at.switch_page(PAGE).run()
    assert not at.exception
    assert f"At the Operating point page's threshold ({threshold}, target marginal precision 0.2)" in shown(at.caption)
    first = thresholds_shown(at).columns[0]
    assert f"{float(first):.6g}" == threshold and thresholds_shown(at).loc["Side", first] == "at or above the line"
    at.switch_page(OP_PAGE).run()
    at.selectbox(key="op_rated").set_value("sample:synthetic").run()
    at.switch_page(PAGE).run()
    assert list(thresholds_shown(at).columns) == ["0.5"]


def test_both_steps_go_to_the_decision_record_with_the_design(app, shipped):
    at = app(page=PAGE)
    at.button(key="record_plan").click().run()
    at.button(key="record_audit").click().run()
    assert not at.exception
    plan_item, audit_item = at.session_state["_decision_record"]
    assert plan_item.kind == "audit plan" and plan_item.provenance["settings"]["seed"] == 0
    design = shipped[2].design
    assert plan_item.provenance["settings"]["plan_rows_sha256"] == design["rows_sha256"]
    assert audit_item.kind == "audit" and audit_item.sentence == audit_sentence(estimate(shipped[1], shipped[2]))
    settings = audit_item.provenance["settings"]
    assert settings["seed"] == 0 and settings["population_rows"] == 5803  # from the audit's design record
    assert settings["population_sha256"] == design["population"]["fingerprint"]["sha256"]
    assert settings["audit_sha256"] == shipped[2].fingerprint
    assert [s["planned"] for s in settings["strata"]] == shipped[2].planned.tolist()


def test_the_operating_point_page_shows_recall_with_the_shipped_audit_whatever_page_was_visited(app, shipped):
    _, rated, audit = shipped
    at = app(query={"sample": "satimage_rated"}, page=OP_PAGE)
    before = metrics(at)
    assert "Recall (audit)" in before  # the shipped audit goes with its rated data: no visit needed
    at.switch_page(PAGE).run()
    at.switch_page(OP_PAGE).run()
    assert not at.exception and metrics(at) == before  # visiting Below the line changed nothing here
    threshold = float(metrics(at)["Threshold"])
    r = estimate(rated, audit, thresholds=[threshold]).thresholds[0].recall
    assert metrics(at)["Recall (audit)"] == f"{r.lower * 100:.0f} % – {r.upper * 100:.0f} %"
    assert f"point estimate {r.estimate * 100:.0f} %" in " ".join(c.value for c in at.main.caption)
    at.button(key="record_op").click().run()
    item = at.session_state["_decision_record"][-1]
    assert (
        "Recall at threshold" in f"{item.sentence} {item.details}"
        and item.provenance["settings"]["audit"]["audited"] == 300
    )


def own_data():
    """A population whose labels are all known, the rated rows above its line, and a reviewed plan of it."""
    rng = np.random.default_rng(11)
    n = 4000
    score = np.round(rng.beta(0.5, 4, n), 5)
    truth = rng.random(n) < score
    frame = pd.DataFrame({"account_id": np.arange(n) * 3 + 1, "risk_score": score, "truth": truth.astype(int)})
    rated = frame[score >= 0.5].rename(columns={"truth": "label"})[["account_id", "risk_score", "label"]]
    p = plan(
        memory_population(frame, PopulationColumns("account_id", "risk_score")), below=0.5, budget=200, strata=5, seed=2
    )
    reviewed = p.table().assign(label=frame.set_index("account_id")["truth"].loc[p.table()["id"]].to_numpy())
    return frame, rated, reviewed, design_record(p)


def test_uploaded_population_rated_data_and_audit(app, served):
    frame, rated, reviewed, design = own_data()
    # a population with known labels is first guessed as rated data (the user changes the kind)
    at = upload_input(app(), "population.csv", frame.to_csv(index=False).encode(), kind="population")
    at = upload_input(at, "rated.csv", rated.to_csv(index=False).encode(), kind="rated")
    assert not at.exception and not at.error
    at = upload_input(at, "reviewed.csv", reviewed.to_csv(index=False).encode())  # guessed: a reviewed audit
    assert next(s for s in at.selectbox if s.label == "Kind of input").value == "audit"
    at.switch_page(PAGE).run()
    # no design record yet (the Data page got the reviewed plan alone): no estimate, no record button
    assert not at.exception and "has no design record" in at.error[0].value
    assert "record_audit" not in [b.key for b in at.button]
    assert at.selectbox(key="audit_population").value.startswith("population.csv")
    assert at.selectbox(key="audit_rated").value == "rated.csv"
    at.number_input(key="audit_below").set_value(0.5).run()
    at.number_input(key="audit_budget").set_value(200).run()
    at.number_input(key="audit_strata").set_value(5).run()
    at.number_input(key="audit_seed").set_value(2).run()
    assert not at.exception and not at.error  # this session planned it: its design record is known
    got = pd.read_csv(io.BytesIO(served(download_buttons(at)["Download the plan (plan.csv)"])))
    assert got["id"].tolist() == reviewed["id"].astype(int).tolist()
    # planned in this session: its design record is known, the reviewed copy is estimated with it
    expected = estimate(rated_from_frame(rated), audit_from_frame(reviewed), design=design)
    assert metrics(at)["Missed positives"] == audit_headlines(expected)[0].value
    at.button(key="record_audit").click().run()
    assert at.session_state["_decision_record"][-1].provenance["settings"]["seed"] == 2


def test_a_population_on_the_server_is_planned_by_duckdb_with_the_same_documents(app, served, tmp_path, shipped):
    population = pd.read_csv(sample_path("satimage_population"))
    path = tmp_path / "scored.parquet"
    population.to_parquet(path)
    at = app(page=PAGE)
    at.radio(key="audit_population_source").set_value("Rows on the server (DuckDB)").run()
    assert "Connect to the scored documents" in at.info[0].value
    at.text_input(key="audit_pop_path").set_value(str(path)).run()
    at.button(key="audit_pop_connect").click().run()
    assert not at.exception and not at.error
    expected = plan(
        memory_population(population, PopulationColumns("doc_id", "score")), below=0.9, budget=300, strata=6, seed=0
    )  # no prior column guessed: proportional
    csv = served(download_buttons(at)["Download the plan (plan.csv)"])
    assert csv == expected.csv()
    at.button(key="record_plan").click().run()
    item = at.session_state["_decision_record"][-1]
    assert item.provenance["settings"]["backend"] == "duckdb" and str(path) in item.provenance["settings"]["population"]


def test_a_server_path_that_does_not_exist_is_an_error(app):
    at = app(page=PAGE)
    at.radio(key="audit_population_source").set_value("Rows on the server (DuckDB)").run()
    at.text_input(key="audit_pop_path").set_value("/nowhere/scored-*.parquet").run()
    at.button(key="audit_pop_connect").click().run()
    assert not at.exception
    assert "Could not connect." in at.error[0].value


def test_a_pilot_audit_anticipates_the_prevalences_of_a_population_without_a_prior(app, served, shipped):
    _, _, audit = shipped
    frame = pd.read_csv(sample_path("satimage_population"))[["doc_id", "score"]]
    at = upload_input(app(), "bare.csv", frame.to_csv(index=False).encode(), kind="population")
    at.switch_page(PAGE).run()
    assert at.toggle(key="audit_pilot").proto.disabled is False  # no prior column: the audit may be the pilot
    at.toggle(key="audit_pilot").set_value(True).run()
    assert not at.exception
    expected = plan(
        memory_population(frame, PopulationColumns("doc_id", "score")),
        below=0.9,
        budget=300,
        strata=6,
        seed=0,
        pilot=audit,
    )
    assert expected.allocation == "neyman" and expected.expected_half_width is not None
    assert served(download_buttons(at)["Download the plan (plan.csv)"]) == expected.csv()
    at.selectbox(key="audit_population").set_value("sample:satimage_population").run()
    assert at.toggle(key="audit_pilot").proto.disabled is True  # the shipped population's prior column is the score


@pytest.mark.parametrize(
    "sample,metric,value", [("satimage_population", "Documents", "5,803"), ("satimage_audit", "Reviewed", "300 of 300")]
)
def test_the_data_page_reports_the_audit_samples_and_who_uses_them(app, sample, metric, value):
    at = app(page="pages/data.py")
    at.selectbox(key="sample_choice").set_value(sample).run()
    assert not at.exception
    assert {m.label: m.value for m in at.main.metric}[metric] == value
    lines = [line for m in at.markdown for line in m.value.splitlines() if line.startswith("- **")]
    assert [line.split("Used by ")[1] for line in lines if "rated data" not in line] == ["Below the line."]


def test_an_unpaired_audit_says_how_to_pair_it_and_the_shipped_one_goes_with_its_rated_data(app):
    at = app(page="pages/data.py")
    at.selectbox(key="sample_choice").set_value("satimage_audit").run()
    at.switch_page(OP_PAGE).run()  # the synthetic rated data: the audit is not its
    assert "Recall (audit)" not in metrics(at)
    assert "estimate it with this rated data and classifier on **Below the line**" in " ".join(
        c.value for c in at.main.caption
    )
    at.selectbox(key="op_rated").set_value("sample:satimage_rated").run()
    at.run()
    assert not at.exception and "Recall (audit)" in metrics(at)


def _upload_design(at, reviewed_bytes: bytes, design_bytes: bytes, name: str = "plan.json"):
    tag = hashlib.sha256(reviewed_bytes).hexdigest()[:12]
    at.file_uploader(key=f"design_{tag}").set_value((name, design_bytes, "application/json")).run()
    return at


def test_a_reviewed_plan_uploaded_with_its_design_record_is_estimated_without_planning_it_here(app):
    frame, rated, reviewed, design = own_data()
    raw = reviewed.to_csv(index=False).encode()
    at = upload_input(app(), "rated.csv", rated.to_csv(index=False).encode(), kind="rated")
    at = upload_input(at, "reviewed.csv", raw)
    at = _upload_design(at, raw, design_json(design))
    assert not at.exception and not at.error
    assert "with its design record" in shown(at.markdown)
    at.switch_page(PAGE).run()
    assert not at.exception and not at.error
    expected = estimate(rated_from_frame(rated), audit_from_frame(reviewed), design=design)
    assert metrics(at)["Missed positives"] == audit_headlines(expected)[0].value
    at.button(key="record_audit").click().run()
    settings = at.session_state["_decision_record"][-1].provenance["settings"]
    assert settings["plan_rows_sha256"] == design["rows_sha256"] and settings["seed"] == 2


def test_a_design_record_that_does_not_describe_the_plan_is_refused_on_the_data_page(app):
    _, _, reviewed, design = own_data()
    raw = reviewed.to_csv(index=False).encode()
    edited = json.loads(design_json(design))
    edited["strata"][0]["documents"] *= 10
    edited["population"]["documents"] += 9 * design["strata"][0]["documents"]
    at = _upload_design(upload_input(app(), "reviewed.csv", raw), raw, json.dumps(edited).encode())
    assert not at.exception
    assert "reviewed\\.csv and plan\\.json do not fit" in at.error[0].value and "stratum 1" in at.error[0].value


def test_the_shipped_audit_with_other_rated_data_is_refused_and_nothing_goes_to_the_record(app):
    at = app(page=PAGE)
    at.selectbox(key="audit_rated").set_value("sample:synthetic").run()
    assert not at.exception
    error = at.error[0].value
    assert "No estimate." in error and "is not the audit" in error and "review line 0\\.9" in error
    assert "record_audit" not in [b.key for b in at.button] and "Missed positives" not in metrics(at)


def test_an_audit_that_found_no_positive_headlines_the_interval(app):
    frame, rated, reviewed, design = own_data()
    nothing = reviewed.assign(label=0)
    raw = nothing.to_csv(index=False).encode()
    at = upload_input(app(), "rated.csv", rated.to_csv(index=False).encode(), kind="rated")
    at = _upload_design(upload_input(at, "nothing.csv", raw), raw, design_json(design))
    at.switch_page(PAGE).run()
    assert not at.exception and not at.error
    m = metrics(at)
    missed, recall = m["Missed positives"], m["Recall at the review line"]
    assert missed.startswith("0 – ") and recall.endswith("– 100 %") and recall != "100 %"
    assert "no positive found" in shown(at.main.caption)


def test_the_strata_widget_offers_what_the_engine_plans(app, served, shipped):
    at = app(page=PAGE)
    widget = at.number_input(key="audit_strata")
    assert widget.max == MAX_STRATA == 40
    at.number_input(key="audit_budget").set_value(600).run()
    widget.set_value(MAX_STRATA).run()
    assert not at.exception and not at.error
    expected = plan(shipped[0], below=0.9, budget=600, strata=40, seed=0, prior_column="score")
    assert served(download_buttons(at)["Download the plan (plan.csv)"]) == expected.csv()
