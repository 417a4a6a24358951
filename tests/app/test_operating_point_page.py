"""Operating point page: the reported threshold is exactly the engine's, state lives in the URL."""

import json

import numpy as np
import pytest

from engine.io import load_rated, sample_path
from engine.pn import operating_point
from tests.app.conftest import download_buttons, finish_background, shown, upload_input

PAGE = "pages/operating_point.py"


def cards(at):
    return {m.label: m.value for m in at.main.metric}


def chart(at, key: str) -> dict:
    """The Plotly figure (JSON) the page sent for the chart ``key``."""
    return json.loads(next(c for c in at.get("plotly_chart") if c.key == key).proto.spec)


@pytest.mark.parametrize("target", [0.05, 0.3, 0.5, 0.8])
def test_moving_the_target_reports_the_engine_threshold(app, target):
    data = load_rated(sample_path("synthetic"))
    at = app(page=PAGE)
    at.slider(key="target").set_value(target).run()
    assert not at.exception
    op = operating_point(data.column("score_image"), data.labels, target, data.weights)
    shown = cards(at)
    expected = "flag nothing" if not np.isfinite(op.threshold) else f"{op.threshold:.6g}"
    assert shown["Threshold"] == expected
    assert shown["True positives"] == f"{op.tp:,.6g}" and shown["False positives"] == f"{op.fp:,.6g}"
    assert shown["FP per extra TP"] == f"{op.cost:.3g}"
    assert at.number_input(key="target_input").proto.placeholder == f"{100 * target:.1f}"  # percent, as the slider
    assert at.slider(key="target").proto.format == "percent"


def test_number_input_moves_the_slider(app, caplog):
    at = app(page=PAGE)
    at.number_input(key="target_input").set_value(42.0).run()  # in percent, as the slider shows the target
    assert at.slider(key="target").value == pytest.approx(0.42)
    assert at.number_input(key="target_input").value is None  # the box empties and shows the value
    at.number_input(key="target_input").set_value(43.21).run()  # snapped to the slider's step
    assert at.slider(key="target").value == pytest.approx(0.43)
    # no "created with a default value but also had its value set via the Session State API" stack trace
    assert "Session State API" not in caplog.text


def test_query_params_restore_state(app):
    data = load_rated(sample_path("bank"))
    at = app(
        query={
            "sample": "bank",
            "target": "0.45",
            "classifier": "score_campaign",
            "what_if_on": "true",
            "target2": "0.2",
        },
        page=PAGE,
    )
    assert at.slider(key="target").value == pytest.approx(0.45)
    assert at.selectbox(key="classifier").value == "score_campaign"
    op = operating_point(data.column("score_campaign"), data.labels, 0.45)
    assert cards(at)["Threshold"] == f"{op.threshold:.6g}"
    assert at.slider(key="target2").value == pytest.approx(0.2)
    assert len(at.dataframe) >= 2  # what-if table and sweep


def test_charts_and_sweep(app):
    at = app(page=PAGE)
    assert [c.key for c in at.get("plotly_chart")] == ["pn_chart", "mp_chart", "segments_chart"]
    buttons = download_buttons(at)
    assert "Download the sweep (CSV)" in buttons


def test_report_downloads(app, served):
    at = app(page=PAGE)
    at.button(key="build_op_report").click().run()
    assert not at.exception
    buttons = download_buttons(at)
    html = served(buttons["Download report (HTML)"]).decode()
    record = json.loads(served(buttons["Download operating point (JSON)"]))
    assert len(html) > 1_000_000 and "<html>" in html and "plotly" in html.lower()  # plotly.js inlined
    assert record["kind"] == "operating_point"
    assert record["dataset"]["fingerprint_sha256"] == load_rated(sample_path("synthetic")).fingerprint
    assert record["settings"]["target"] == pytest.approx(0.3)
    assert record["operating_point"]["threshold"] == pytest.approx(float(cards(at)["Threshold"]))
    assert len(record["sweep"]) == 19
    # the report goes stale when the settings change
    at.slider(key="target").set_value(0.6).run()
    assert "Download report (HTML)" not in download_buttons(at)


def test_sweep_csv_matches_engine(app, served):
    import io

    import pandas as pd

    from engine.pn import pn_curve, upper_hull
    from engine.pn.display import sweep_table

    at = app(page=PAGE)
    csv = served(download_buttons(at)["Download the sweep (CSV)"])
    data = load_rated(sample_path("synthetic"))
    expected = sweep_table(upper_hull(pn_curve(data.column("score_image"), data.labels)))
    pd.testing.assert_frame_equal(pd.read_csv(io.BytesIO(csv)), expected, check_dtype=False)


def test_a_large_bootstrap_runs_in_the_background_and_the_page_works_meanwhile(app, monkeypatch, fresh_server_cache):
    import views.state

    monkeypatch.setattr(views.state, "FOREGROUND_WORK", 0)
    at = app(page=PAGE)
    captions = " ".join(c.value for c in at.main.caption)
    assert "interval: computing" in captions
    assert {m.label for m in at.main.metric} >= {"Threshold", "True positives"}  # the point is there already
    progress = [p for p in at.get("progress")]
    assert progress and "Bootstrapping" in progress[0].proto.text
    finish_background(at)
    band = [t.get("name", "") for t in chart(at, "mp_chart")["data"] if "bootstrap band" in t.get("name", "")]
    assert not band  # no band before the replicates exist
    at.run()
    assert not at.exception
    captions = " ".join(c.value for c in at.main.caption)
    assert "95 % CI [" in captions and "computing" not in captions
    # the charts' still parts are kept between steps: the band arrives with the replicates, the marks follow
    # the slider
    assert any("bootstrap band (200 replicates)" in t.get("name", "") for t in chart(at, "mp_chart")["data"])
    data = load_rated(sample_path("synthetic"))
    for target in (0.25, 0.6):
        at.slider(key="target").set_value(target).run()
        op = operating_point(data.column("score_image"), data.labels, target, data.weights)
        star = chart(at, "pn_chart")["data"][-1]
        assert star["name"] == f"chosen: m = {target:.3g}" and (star["x"], star["y"]) == ([op.fp], [op.tp])
        mp = chart(at, "mp_chart")["layout"]
        assert [a["text"] for a in mp["annotations"]] == [f"target {target:.3g}", "chosen threshold"]
        assert mp["shapes"][0]["y0"] == target and mp["shapes"][1]["x0"] == pytest.approx(float(op.threshold))
        assert len(chart(at, "mp_chart")["data"]) == 3


def test_the_page_intervals_are_the_command_lines_hashed_poisson_intervals(app):
    from engine.backends import bootstrap_points
    from engine.pn.display import operating_point_cards

    data = load_rated(sample_path("synthetic"))
    at = app(page=PAGE)
    at.slider(key="target").set_value(0.4).run()
    finish_background(at)
    at.run()
    op = operating_point(data.column("score_image"), data.labels, 0.4, data.weights)
    cli = bootstrap_points(data, "score_image", targets=0.4, n_boot=200, level=0.95, seed=0)[0]
    expected = [c.caption for c in operating_point_cards(op, cli, level=0.95)[:3]]
    assert expected[0].startswith("95 % CI [") and all(caption.startswith("CI [") for caption in expected[1:])
    captions = [c.value for c in at.main.caption]
    assert captions[captions.index(expected[0]) :][:3] == expected


def test_segments_and_capacity_section(app, served):
    import io

    import pandas as pd

    from engine.io import load_rated, sample_path
    from engine.pn._segments import allocate_capacity, segment_curves

    at = app(page=PAGE)  # the synthetic sample has a region column
    assert any("Segments and capacity" in h.value for h in at.subheader)
    at.number_input(key="capacity").set_value(1500.0).run()
    assert not at.exception
    assert at.number_input(key="capacity").proto.format == "%.0f"  # "1500", not "1500.00" reviews
    d = load_rated(sample_path("synthetic"))
    score = d.column(at.selectbox(key="classifier").value)
    expected = allocate_capacity(segment_curves(score, d.labels, d.groups, d.weights), 1500)
    text = " ".join(m.value for m in at.markdown)
    assert expected.sentence() in text
    got = pd.read_csv(io.BytesIO(served(download_buttons(at)["Download the segment table (CSV)"])))
    assert list(got["segment"])[:3] == ["north", "south", "west"]
    assert got["flagged (reviews)"].iloc[3] <= 1500
    at.button(key="segment_boot").click().run()
    assert not at.exception and "TP, lower bound" in at.dataframe[-1].value.columns


def test_no_group_column_says_how_to_get_segments(app):
    at = upload_input(app(), "plain.csv", b"score,label\n0.9,1\n0.4,0\n0.7,1\n0.2,0\n", kind="rated")
    at.switch_page(PAGE).run()
    assert not at.exception
    assert "Map a group column" in " ".join(i.value for i in at.info)


def test_money_gives_the_operating_point_of_its_break_even_target_and_states_the_value(app, served):
    from engine.pn import Economics
    from engine.pn.display import money_statement

    data = load_rated(sample_path("synthetic"))
    at = app(page=PAGE)
    at.toggle(key="op_money").set_value(True).run()
    at.number_input(key="op_review_cost").set_value(2.0).run()
    at.number_input(key="op_value_per_positive").set_value(9.0).run()
    at.number_input(key="op_cost_per_fp").set_value(1.0).run()
    assert not at.exception
    e = Economics(2.0, 9.0, 1.0)
    assert e.target == pytest.approx(0.3)  # (2 + 1) / (9 + 1)
    op = operating_point(data.column("score_image"), data.labels, e.target, data.weights)
    assert cards(at)["Threshold"] == f"{op.threshold:.6g}"
    assert cards(at)["Target marginal precision (break-even)"] == "30.0 %"
    statement = money_statement(op.tp, op.fp, e, marginal_precision=op.mp_above).sentence("$")
    assert statement in " ".join(m.value for m in at.markdown).replace("\\", "")
    at.button(key="record_op").click().run()
    item = at.session_state["_decision_record"][-1]
    assert statement in f"{item.sentence} {item.details}" and item.provenance["settings"]["value_per_positive"] == 9.0
    at.button(key="build_op_report").click().run()
    record = json.loads(served(download_buttons(at)["Download operating point (JSON)"]))
    assert record["money"]["net_value"] == pytest.approx(9 * op.tp - 2 * (op.tp + op.fp) - op.fp)
    assert record["settings"]["review_cost"] == 2.0


def test_reviewers_give_the_allocation_of_their_capacity(app):
    from engine.pn._segments import allocate_capacity, segment_curves

    at = app(page=PAGE)
    at.radio(key="segments_budget").set_value("Reviewers").run()
    at.number_input(key="op_reviewers").set_value(3.0).run()
    at.number_input(key="op_reviews_per_day").set_value(25.0).run()
    at.number_input(key="op_rating_days").set_value(20).run()
    assert not at.exception
    d = load_rated(sample_path("synthetic"))
    score = d.column(at.selectbox(key="classifier").value)
    expected = allocate_capacity(segment_curves(score, d.labels, d.groups, d.weights), 3 * 25 * 20)
    text = " ".join(m.value for m in at.markdown).replace("\\", "")
    assert expected.sentence().replace("\\", "") in text
    assert "3 reviewers × 25 reviews a day × 20 days = 1,500 reviews" in text


def test_the_rated_data_picker_switches_and_takes_a_new_upload_only_when_told(app):
    at = upload_input(app(), "plain.csv", b"score,label\n0.9,1\n0.4,0\n0.7,1\n0.2,0\n", kind="rated")
    at.switch_page(PAGE).run()
    assert at.selectbox(key="op_rated").value == "plain.csv"  # first visit: the Data page's newest rated data
    at.selectbox(key="op_rated").set_value("sample:bank").run()
    at.run()
    assert not at.exception
    assert at.selectbox(key="op_rated").value == "sample:bank"  # the choice stands
    assert at.selectbox(key="classifier").options == ["score_profile", "score_campaign"]
    at.switch_page("pages/data.py").run()
    at.selectbox(key="report_of").set_value("plain.csv").run()  # reading a report changes no page's input
    at = upload_input(at, "other.csv", b"s2,label\n0.8,1\n0.3,0\n", kind="rated")
    assert "**Operating point** uses bank_marketing_rated.csv.gz" in shown(at.markdown)  # said, not done
    at.switch_page(PAGE).run()
    assert at.selectbox(key="op_rated").value == "sample:bank"
    at.switch_page("pages/data.py").run()
    at.button(key="use_on_operating-point").click().run()  # "Use on Operating point"
    at.switch_page(PAGE).run()
    assert at.selectbox(key="op_rated").value == "other.csv"
