"""The decision record: JSON round trip, escaped HTML with figures, PDF through Chromium."""

import io
import json
import os
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
import pytest

from engine.errors import InputError
from engine.record import (
    FIGURE_TRACES,
    chromium_path,
    new_item,
    read_record_json,
    record_attachments,
    record_html,
    record_json,
    record_pdf,
)


def item(title="Threshold for <b>score</b>"):
    return new_item(
        "operating point",
        title,
        "Flag documents with score ≥ 0.5: 10 true positives.",
        tables=[("Sweep", pd.DataFrame({"threshold": [0.5, None], "name": ["a", "<i>b</i>"]}))],
        figures=[("PN curve", go.Figure(go.Scatter(x=[0, 1, 2], y=[0, 3, 4])))],
        data_fingerprint="f" * 64,
        settings={"target": 0.3, "classifier": "score"},
        link="/operating-point?target=0.3",
    ).annotated("<script>alert('x')</script> approved")


def test_json_round_trip_keeps_everything():
    items = [item(), item("Second")]
    back = read_record_json(record_json(items))
    assert [b.title for b in back] == ["Threshold for <b>score</b>", "Second"]
    assert back[0].note.endswith("approved") and back[0].provenance["settings"]["target"] == 0.3
    pd.testing.assert_frame_equal(back[0].tables[0][1], items[0].tables[0][1], check_dtype=False)
    assert back[0].figures[0][1].data[0].y == (0, 3, 4)
    again, first = json.loads(record_json(back)), json.loads(record_json(items))
    for record in (again, first):  # the template's defaults of trace types a record may not hold are dropped
        for entry in record["items"]:
            for figure in entry["figures"]:
                data = figure["plotly"]["layout"]["template"]["data"]
                figure["plotly"]["layout"]["template"]["data"] = {k: v for k, v in data.items() if k in FIGURE_TRACES}
    assert again == first


def test_html_escapes_user_text_and_inlines_plotly():
    page = record_html([item()])
    assert "<script>alert" not in page and "&lt;script&gt;alert" in page
    assert "<b>score</b>" not in page
    assert page.count("plotly.js v") <= 2 and "Plotly.newPlot" in page
    assert "/operating-point?target=0.3" in page


def test_bad_records_are_refused():
    for text in (b"{}", b"not json", json.dumps({"format": "x"}).encode()):
        with pytest.raises(InputError, match="not a decision record"):
            read_record_json(text)
    with pytest.raises(InputError, match="empty"):
        record_html([])


NO_CHROMIUM = pytest.mark.skipif(
    not Path(chromium_path()).exists() and not os.environ.get("CI"), reason="Debian chromium missing"
)


@NO_CHROMIUM
def test_pdf_is_printed_by_chromium():
    pdf = record_pdf(record_html([item()]))
    assert pdf.startswith(b"%PDF-") and len(pdf) > 5_000


# --- hostile imports (issue 21): one InputError naming item and field, nothing rendered as markup ---


def exported_record(**changes) -> dict:
    record = json.loads(record_json([item()]))
    record["items"][0].update(changes)
    return record


@pytest.mark.parametrize(
    "changes, named",
    [
        ({"provenance": ["a", "b"]}, "item 1 'provenance' is a list, not an object"),
        ({"provenance": {"settings": "target=0.3"}}, "item 1 'provenance' 'settings' is text, not an object"),
        ({"provenance": {"link": "javascript:alert(1)"}}, "item 1 'provenance' 'link' is not a web address"),
        ({"provenance": {"link": "//evil.example/x"}}, "'link' is not a web address"),
        ({"provenance": {"data_sha256": 500}}, "'data_sha256' is a number, not text"),
        ({"title": None}, "item 1 'title' is null, not text"),
        ({"note": {"x": 1}}, "item 1 'note' is an object, not text"),
        ({"tables": {"name": "x"}}, "item 1 'tables' is an object, not a list"),
        ({"tables": [{"name": "t", "columns": ["a"], "rows": [[1, 2]]}]}, "item 1 table 1 row 1 is not a list of 1"),
        ({"tables": [{"name": "t", "columns": ["a"], "rows": [[{"x": 1}]]}]}, "has a cell that is an object"),
        (
            {"figures": [{"name": "f", "plotly": {"data": [{"type": "image", "source": "http://x/b.png"}]}}]},
            "item 1 figure 1 trace 1 is of type 'image'",
        ),
        ({"figures": [{"name": "f", "plotly": {"data": [{"type": "scattermapbox"}]}}]}, "type 'scattermapbox'"),
        (
            {"figures": [{"name": "f", "plotly": {"data": [{"type": "scatter", "nonsense": 1}]}}]},
            "item 1 figure 1 is not a plotly figure",
        ),
        ({"figures": "x"}, "item 1 'figures' is text, not a list"),
    ],
)
def test_items_of_the_wrong_shape_are_refused_with_one_message_naming_the_field(changes, named):
    with pytest.raises(InputError) as caught:
        read_record_json(json.dumps(exported_record(**changes)))
    message = str(caught.value)
    assert message.startswith("This is not a decision record written by the studio") and named in message, message
    assert message.endswith("Nothing was imported.") and "\n" not in message


def test_size_items_and_nesting_limits_are_refused_clearly():
    with pytest.raises(InputError, match=r"the file is .* MB; at most 1 MB of JSON is read"):
        read_record_json(b" " * (2 * 2**20) + record_json([item()]).encode(), max_bytes=2**20)
    with pytest.raises(InputError, match="nests objects or arrays"):
        read_record_json('{"format": "opstudio-decision-record/1", "items": ' + "[" * 200 + "]" * 200 + "}")
    many = {"format": "opstudio-decision-record/1", "items": [{"kind": "k", "title": "t", "sentence": "s"}] * 501}
    with pytest.raises(InputError, match="it holds 501 items"):
        read_record_json(json.dumps(many))


def test_imported_markup_is_text_and_fetches_nothing():
    beacon = "![beacon](http://evil.example/b.png) <img src=http://evil.example/i.png> [x](javascript:alert(1))"
    figure = {
        "data": [
            {
                "type": "scatter",
                "x": [0, 1],
                "y": [1, 2],
                "name": "<a href='http://evil.example'>t</a>",
                "hovertemplate": "x %{x}<br><span style='fill:url(http://evil.example/s)'>y</span>",
            }
        ],
        "layout": {
            "title": {"text": "<b>bold</b> <img src='http://evil.example/t.png'>"},
            "images": [{"source": "http://evil.example/layout.png"}],
            "mapbox": {"style": "http://evil.example/style.json"},
            "updatemenus": [
                {
                    "buttons": [
                        {"method": "relayout", "args": [{"images": [{"source": "http://evil.example/click.png"}]}]}
                    ]
                }
            ],
            "template": {
                "layout": {"images": [{"source": "http://evil.example/template.png"}]},
                "data": {"image": [{"source": "http://evil.example/d.png"}], "scatter": [{"mode": "lines"}]},
            },
        },
    }
    record = exported_record(
        title=beacon,
        sentence=beacon,
        note=beacon,
        kind=beacon,
        figures=[{"name": beacon, "plotly": figure}],
        provenance={"settings": {beacon: beacon}, "link": "http://localhost:8501/op?t=1"},
    )
    back = read_record_json(json.dumps(record))
    assert back[0].title == beacon and back[0].note == beacon  # kept as text, shown as text
    fig = back[0].figures[0][1]
    assert not fig.layout.images and "evil" not in fig.to_json()
    assert fig.layout.title.text == "<b>bold</b> "
    page = record_html(back)
    assert "evil.example" in page  # as escaped text ...
    import re

    assert "<img" not in page and "&lt;img src=http://evil.example/i.png&gt;" in page  # ... never as markup
    assert not re.search(r"<[^<>]*\b(href|src)\s*=\s*['\"]?\s*(javascript|http://evil)", page, re.IGNORECASE)
    assert "href='http://localhost:8501/op?t=1'" in page


def test_a_categorical_column_with_formulas_exports_and_is_neutralised():
    table = pd.DataFrame({"segment": pd.Categorical(["=1+1", "@SUM(A1)", "north"]), "n": [1, 2, 3]})
    record = [new_item("segments", "Segments", "s", tables=[("Segments", table)], data_fingerprint="a" * 64)]
    page = record_html(record)
    assert ">=1+1<" in page  # shown as it is on the page; the CSV attachment holds it neutralised
    import base64
    import re

    attached = base64.b64decode(re.search(r"data:text/csv;base64,([A-Za-z0-9+/=]+)", page).group(1))
    assert attached.decode().splitlines() == ["segment,n", "'=1+1,1", "'@SUM(A1),2", "north,3"]
    assert read_record_json(record_json(record))[0].tables[0][1]["segment"].tolist() == ["=1+1", "@SUM(A1)", "north"]


# --- print grade (issues 26 and 36) ---


def meeting_item(**settings) -> object:
    """An item with the tables the issue found printed raw: machine names, shares as fractions, fractional counts,
    infinite bounds, money without its currency, 500 rows, a table wider than the page."""
    wide = pd.DataFrame(
        {
            "method": ["graph", "analytic-power", "best grid point"],
            **{f"objective_gap_to_{j}": [0.0522876 * j, 2.70982e7, 5.66667] for j in range(12)},
        }
    )
    periods = pd.DataFrame(
        {
            "period start": [f"2025-01-{d:02d}" for d in range(6, 26)],
            **{name: [0.4546] * 20 for name in ("marginal precision at T", "precision", "recall", "coverage")},
            **{f"evidence_{j}": [13253.0] * 20 for j in range(10)},
        }
    )
    bounds = pd.DataFrame(
        {
            "side": ["at or above the line", "below the line"],
            "TP": [56.0, 60.186],
            "TP upper": [56.0, float("inf")],
            "net value": [-0.848, 1234.5],
            "alert": [False, True],
        }
    )
    decided = pd.DataFrame({"item_id": [f"A-{k}" for k in range(500)], "probability": [k / 500 for k in range(500)]})
    return new_item(
        "joint thresholds",
        "Joint",
        "Flag a document when a ≥ 0.4 or b ≥ 0.7: 931 true positives. For comparison: the analytic path.",
        tables=[("Compared", wide), ("Periods", periods), ("Below the line", bounds), ("Decided", decided)],
        figures=[("F", go.Figure(go.Scatter(y=[1, 2])))],
        data_fingerprint="b" * 64,
        settings={
            "alpha": 0.006,
            "neg_only": False,
            "capacity": 2000.0,
            "target": None,
            "classifiers": ["score_image", "score_text"],
            "currency": "$",
            "backend": "memory",
            "seconds": 0.0572,
            **settings,
        },
        link="http://localhost:8765/early-exit?alpha_pct=0.6",
    )


def test_the_sentence_is_one_sentence_and_the_rest_are_details_kept_in_json():
    item = meeting_item()
    assert item.sentence == "Flag a document when a ≥ 0.4 or b ≥ 0.7: 931 true positives."
    assert item.details == "For comparison: the analytic path."
    assert read_record_json(record_json([item]))[0].details == item.details


def test_every_table_reads_in_words_and_fits_the_page():
    page = record_html([meeting_item()], static=True)
    assert '"displayModeBar": false' in page and ".modebar" in page and "class='figure'" in page
    assert "data:text/csv" not in page and "landscape'>" not in page  # the PDF attaches; nothing printed sideways
    body, appendix = page.split("id='appendix'")
    # the wide comparison of three rows: one quantity per row, a column per method, labels in words
    assert "<th class=t>Quantity</th><th>graph</th><th>analytic-power</th><th>best grid point</th>" in body
    assert "Objective gap to 11" in body and "objective_gap" not in body
    assert "<td class='n'>27,098,200</td>" in body and "5.667" in body
    # the wide periods: split into groups of columns, each led by the period's start, shares in percent
    periods = body.split("id='T2'")[1].split("id='T3'")[0]
    assert periods.count("<table>") >= 2 and periods.count("<tr><th>Period start</th>") == periods.count("<table>")
    assert "45.5 %" in periods and "0.4546" not in periods and "13,253" in periods and "13253" not in periods
    # estimates, bounds, flags and money in words
    bounds = body.split("id='T3'")[1].split("id='T4'")[0]
    for words in ("True positives (estimated)", "60.2", "not bounded", "−$0.85", "$1,234<", ">no<", ">yes<"):
        assert words in bounds, words
    for raw in ("inf", "False", "True", "None", "-0.848"):
        assert f">{raw}<" not in bounds, raw
    # the 500 rows: summarised, attached, not printed
    assert "A-9<" in body and "A-10<" not in body and "First 10 of 500 rows" in body and "item1-table4.csv" in body
    assert "A-499" not in page and "item1-table4.csv" in appendix and "Attached files" in appendix
    # the periods' 20 rows are complete in the body: the appendix prints none
    assert "none in this record" in appendix


def test_provenance_is_in_words():
    page = record_html([meeting_item()], static=True)
    facts = page.split("class='facts'")[1].split("</table>")[0]
    for python in (">None<", "['score_image', 'score_text']", "False", "2000.0", "0.006", "memory", "0.0572"):
        assert python not in facts, python
    for words in ("score_image, score_text", "0.60 %", "capacity (reviews) 2,000", "negative exits only no"):
        assert words in facts, words
    assert "target marginal precision not set" in facts and "b" * 64 in facts
    assert "href='http://localhost:8765/early-exit?alpha_pct=0.6'" in facts
    assert "alpha_pct" not in facts.split("href=")[1].split(">", 1)[1]  # the link's words are not its parameters


def test_an_audits_design_is_a_small_table_of_strata():
    strata = [
        {
            "stratum": 1,
            "lower": 0.0,
            "upper": 4.6e-05,
            "documents": 2865,
            "sample": 132,
            "anticipated_prevalence": 1.27e-05,
        },
        {
            "stratum": 2,
            "lower": 4.6e-05,
            "upper": 0.9,
            "documents": 180,
            "sample": 43,
            "anticipated_prevalence": 0.0676,
        },
    ]
    item = new_item("audit plan", "Plan", "Review 175 documents.", settings={"strata": strata, "budget": 300})
    page = record_html([item], static=True)
    assert "Strata of the design" in page and "<tr><th>Stratum</th><th>Scores from</th><th>Scores below</th>" in page
    assert "0.000046" in page and "4.6e-05" not in page and "0.00127 %" in page
    assert "stratum: 1" not in page and "reviews planned 300" in page and "budget rule" not in page


def test_links_use_the_public_address(monkeypatch):
    monkeypatch.setenv("OPSTUDIO_PUBLIC_URL", "https://opstudio.example.com/team/")
    page = record_html([meeting_item(), item()], static=True)
    assert "href='https://opstudio.example.com/team/early-exit?alpha_pct=0.6'" in page
    assert "href='https://opstudio.example.com/team/operating-point?target=0.3'" in page
    assert "localhost" not in page.split("id='appendix'")[0].split("</style>")[1]
    monkeypatch.setenv("OPSTUDIO_PUBLIC_URL", "javascript:alert(1)")  # not an address: links stay as recorded
    assert "href='/operating-point?target=0.3'" in record_html([item()])


def test_chromium_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("OPSTUDIO_CHROMIUM", "/nowhere/chromium")
    assert chromium_path() == "/nowhere/chromium"
    monkeypatch.setenv("PATH", "/nowhere")
    with pytest.raises(InputError, match="OPSTUDIO_CHROMIUM"):
        record_pdf([item()])
    monkeypatch.delenv("OPSTUDIO_CHROMIUM")
    assert chromium_path() == "/usr/bin/chromium"


def test_provenance_says_not_recorded_for_a_fingerprint_that_is_not_a_hash():
    page = record_html([new_item("early-exit policy", "E", "s", data_fingerprint="500")])
    assert "not recorded" in page and ">500<" not in page


@NO_CHROMIUM
def test_the_pdf_carries_every_table_as_a_file_and_prints_no_data_link():
    pytest.importorskip("pypdf")
    from pypdf import PdfReader

    items = [meeting_item(), item()]
    pdf = record_pdf(items)
    attached = PdfReader(io.BytesIO(pdf)).attachments
    files = record_attachments(items)
    assert [name for name, _ in files] == [
        "item1-table1.csv",
        "item1-table2.csv",
        "item1-table3.csv",
        "item1-table4.csv",
        "item2-table1.csv",
    ]
    assert {name: [data] for name, data in files} == attached
    decided = pd.read_csv(io.BytesIO(attached["item1-table4.csv"][0]))
    assert len(decided) == 500 and decided["probability"].iloc[7] == 7 / 500  # every row, every digit
    assert b"data:text/csv" not in pdf


@NO_CHROMIUM
def test_pdf_of_a_500_row_batch_and_a_wide_table_stays_short():
    pdfium = pytest.importorskip("pypdfium2")
    decided = pd.DataFrame(
        {
            "item_id": [f"A-{k}" for k in range(500)],
            "probability": [k / 500 for k in range(500)],
            "flag": [k < 37 for k in range(500)],
        }
    )
    wide = pd.DataFrame([[0.0522876 * k] * 16 for k in range(3)], columns=[f"objective_gap_to_{j}" for j in range(16)])
    items = [
        new_item(
            "batch decision",
            "Batch",
            "Flag the 37 most probable items.",
            tables=[("Decided items", decided), ("Compared", wide)],
            figures=[("Expected loss", go.Figure(go.Scatter(y=list(range(500)))))],
            data_fingerprint="c" * 64,
        )
    ]
    # one page of body and the appendix's (printed in full, the 500 rows alone took 9 pages)
    assert 1 <= len(pdfium.PdfDocument(record_pdf(items))) <= 3


def test_an_imported_table_with_two_columns_of_one_name_or_a_hostile_name_prints_as_text():
    record = json.loads(record_json([item()]))
    record["items"][0]["tables"] = [
        {"name": "![x](http://evil.example/b.png)", "columns": ["quantity", "quantity"], "rows": [["a", 1], ["b", 2]]},
        {"name": "<script>", "columns": ["m", "m", "n"], "rows": [["a", "b", 1.5]] * 5},
    ]
    page = record_html(read_record_json(json.dumps(record)))
    assert "<script>" not in page.split("</style>")[1].replace("<script type", "").split("<script")[0]
    assert "item1-table1.csv" in page and "evil" not in page.split("download=")[1].split(">")[0]
