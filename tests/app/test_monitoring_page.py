"""Monitoring page: the engine's periods and alerts on the shipped sample, money, reviewers, the record, an upload."""

import io

import numpy as np
import pandas as pd
import pytest

from engine.io import sample_path
from engine.monitor import backlog, baseline_threshold, capacity_per_day, capacity_segments, load_dated, monitor
from engine.pn import Economics
from engine.reporting import csv_bytes
from tests.app.conftest import download_buttons, upload_input

PAGE = "pages/monitoring.py"


@pytest.fixture(scope="module")
def sample():
    return load_dated(sample_path("monitoring"))


def cards(at):
    return {m.label: m.value for m in at.main.metric}


def test_the_sample_shows_the_engines_periods_alerts_and_charts(app, served, sample):
    at = app(page=PAGE)
    assert at.number_input(key="mon_threshold").value == pytest.approx(0.568)  # the first quarter's operating point
    expected = monitor(sample.counts("week"), 0.568, 0.3)
    shown = cards(at)
    assert shown["Periods"] == "52" and shown["Alerts"] == str(len(expected.alerts))
    assert shown["First alert"] == expected.alerts[0]["period"] == "2025-07-28"
    assert expected.alerts[0]["reason"] in at.error[0].value.replace("\\", "")
    assert [c.key for c in at.get("plotly_chart")] == ["mon_threshold_chart", "mon_mp_chart"]
    table = expected.table()
    shown_table = at.dataframe[-1].value  # the columns a meeting reads, in words; the CSV has every column
    assert list(shown_table.columns)[:5] == ["Period start", "Rated documents", "TP", "FP", "Marginal precision at T"]
    assert len(shown_table) == len(table) == 52
    assert served(download_buttons(at)["Download the periods (CSV)"]) == csv_bytes(table)
    assert "No alert" not in " ".join(s.value for s in at.success)


def test_money_gives_the_same_alerts_as_its_break_even_target_and_states_the_value(app, sample):
    at = app(page=PAGE)
    at.toggle(key="mon_money").set_value(True).run()
    at.number_input(key="mon_review_cost").set_value(3.0).run()
    at.number_input(key="mon_value_per_positive").set_value(10.0).run()
    assert not at.exception
    money = monitor(sample.counts("week"), 0.568, economics=Economics(3.0, 10.0))
    assert money.alerts == monitor(sample.counts("week"), 0.568, 0.3).alerts
    assert cards(at)["First alert"] == money.alerts[0]["period"]
    text = at.text[0].value
    assert "break-even for a review cost of $3" in text and "Net value" in text
    assert "mon_money_chart" in [c.key for c in at.get("plotly_chart")]
    assert "Net value per day" in at.dataframe[-1].value.columns


def test_reviewers_show_the_engines_backlog(app, sample):
    at = app(page=PAGE)
    at.toggle(key="mon_reviewers_on").set_value(True).run()
    at.number_input(key="mon_reviewers").set_value(1.0).run()
    at.number_input(key="mon_reviews_per_day").set_value(40.0).run()
    assert not at.exception
    queue = backlog(sample.scores, sample.dates, 0.568, capacity_per_day(1, 40))
    assert queue.peak > 0  # 54 flagged a day against 40 reviews
    written = " ".join(m.value for m in at.main.markdown)
    assert queue.sentence().split(":")[0] in written.replace("\\", "")
    assert {"mon_backlog_chart", "mon_flagged_chart"} <= {c.key for c in at.get("plotly_chart")}
    segments = capacity_segments(
        sample.scores, sample.data.labels, sample.dates, sample.data.groups, reviewers=1, reviews_per_day=40
    )
    assert list(at.dataframe[-1].value["Segment"])[:3] == ["north", "south", "west"]
    assert segments.sentence() in written.replace("\\", "")
    at.button(key="record_monitoring").click().run()
    item = at.session_state["_decision_record"][-1]
    assert "1 reviewer × 40 reviews a day" in item.details
    assert [n for n, _ in item.figures][-2:] == ["Review backlog", "Flagged per day at every threshold"]


def test_add_to_record_keeps_the_decision_with_its_money(app):
    at = app(page=PAGE)
    at.toggle(key="mon_money").set_value(True).run()
    at.button(key="record_monitoring").click().run()
    assert not at.exception
    item = at.session_state["_decision_record"][-1]
    assert item.kind == "monitoring" and "Alert from the week of 2025-07-28" in item.details
    assert "from the week of 2025-07-28" in item.sentence and "net value" in item.sentence  # the decision, one breath
    assert "Net value" in item.details
    settings = item.provenance["settings"]
    assert settings["threshold"] == pytest.approx(0.568) and settings["review_cost"] == pytest.approx(3.0)
    assert [name for name, _ in item.figures][:2] == ["Re-solved threshold", "Marginal precision at T"]
    assert item.provenance["link"].startswith("/monitoring")


def test_an_uploaded_dated_file_with_other_column_names(app):
    rng = np.random.default_rng(7)
    days = np.datetime64("2024-03-01") + rng.integers(0, 120, 6000).astype("timedelta64[D]")
    score = rng.uniform(0, 1, days.size).round(3)
    frame = pd.DataFrame(
        {
            "rated_on": days.astype(str),
            "model_score": score,
            "verdict": np.where(rng.uniform(size=days.size) < score, "yes", "no"),
        }
    )
    buf = io.BytesIO()
    frame.to_csv(buf, index=False)
    at = app(page=PAGE)  # the sample first: its threshold 0.568 must not stay for the upload
    at.number_input(key="mon_threshold").set_value(0.6).run()
    at = upload_input(at, "shop_reviews.csv", buf.getvalue(), kind="dated")
    assert not at.exception and not at.error
    at.switch_page(PAGE).run()  # the page keeps its own input until it is told
    assert at.selectbox(key="mon_dated").value == "sample:monitoring"
    at.selectbox(key="mon_dated").set_value("shop_reviews.csv").run()
    assert not at.exception
    assert "shop_reviews.csv" in at.selectbox(key="mon_dated").value
    dated = load_dated(buf.getvalue())
    threshold = baseline_threshold(dated, 0.3)
    assert at.number_input(key="mon_threshold").value == pytest.approx(threshold)
    expected = monitor(dated.counts("week"), threshold, 0.3)
    assert cards(at)["Periods"] == str(len(expected.periods))
    assert expected.alerts == [] and "No alert" in at.success[0].value  # no drift: no alert


def test_the_baseline_button_restores_the_first_quarters_threshold(app):
    at = app(page=PAGE)
    at.number_input(key="mon_threshold").set_value(0.7).run()
    assert cards(at)["First alert"] != "2025-07-28"
    at.button(key="mon_use_baseline").click().run()
    assert at.number_input(key="mon_threshold").value == pytest.approx(0.568)
    assert cards(at)["First alert"] == "2025-07-28"


def test_a_file_whose_first_quarter_flags_nothing_starts_at_its_highest_score(app):
    # one positive in five everywhere: at target 0.3 no threshold is worth it (the operating point flags nothing)
    rows = "\n".join(f"2025-01-{1 + i % 28:02d},{i / 400:.4f},{1 if i % 5 == 1 else 0}" for i in range(400))
    raw = f"date,score,label\n{rows}\n".encode()
    assert baseline_threshold(load_dated(raw), 0.3) == float("inf")
    at = upload_input(app(), "few.csv", raw, kind="dated")
    at.switch_page(PAGE).run()
    assert not at.exception
    assert at.number_input(key="mon_threshold").value == pytest.approx(399 / 400)


def test_the_monitoring_item_exports_with_the_record(app, served):
    import json

    at = app(page=PAGE)
    at.toggle(key="mon_reviewers_on").set_value(True).run()
    at.button(key="record_monitoring").click().run()
    at.switch_page("pages/record.py").run()
    assert not at.exception
    record = json.loads(served(download_buttons(at)["Download JSON"]))
    item = record["items"][-1]
    assert item["kind"] == "monitoring" and "2025-07-28" in item["sentence"]
    html = served(download_buttons(at)["Download HTML"]).decode()
    assert "Monitoring of score" in html and "Plotly.newPlot" in html
