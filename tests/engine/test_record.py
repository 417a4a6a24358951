"""The decision record: JSON round trip, escaped HTML with figures, PDF through Chromium."""

import json
import os
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
import pytest

from engine.errors import InputError
from engine.record import CHROMIUM, FIGURE_TRACES, new_item, read_record_json, record_html, record_json, record_pdf


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


@pytest.mark.skipif(not Path(CHROMIUM).exists() and not os.environ.get("CI"), reason="Debian chromium missing")
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


# --- print grade (issue 26) ---


def test_export_has_no_mode_bar_unsplittable_figures_fitting_tables_and_an_appendix():
    wide = pd.DataFrame(
        [[0.0522876 * k, 2.70982e7, 5.66667, "graph"] * 4 for k in range(3)],
        columns=[f"objective_gap_to_{j}" for j in range(16)],
    )
    long = pd.DataFrame({"item_id": [f"A-{k}" for k in range(500)], "probability": [k / 500 for k in range(500)]})
    items = [
        new_item(
            "joint thresholds",
            "Joint",
            "The pair chosen.",
            tables=[("Compared", wide), ("Decided", long)],
            figures=[("F", go.Figure(go.Scatter(y=[1, 2])))],
            data_fingerprint="b" * 64,
            settings={
                "alpha": 0.006,
                "neg_only": False,
                "capacity": 2000.0,
                "target": None,
                "classifiers": ["score_image", "score_text"],
            },
            link="http://localhost:8501/early-exit?alpha_pct=0.6",
        )
    ]
    page = record_html(items)
    assert '"displayModeBar": false' in page and ".modebar" in page
    assert "break-inside:avoid" in page and "class='figure'" in page
    assert "table.wide{width:100%" in page and "@page landscape{size:A4 landscape" in page
    assert "<td class='n'>27,098,200</td>" in page and "td.n{white-space:nowrap" in page  # numbers never broken
    body, appendix = page.split("id='appendix'")
    assert "A-11" in body and "A-12" not in body and "First 12 of 500 rows" in body  # summarised inline
    a2 = appendix.split("id='A2'")[1]
    assert "<table" not in a2 and "500 rows of 2 columns: attached as a CSV file" in a2  # not printed
    assert "0.0522876" in appendix and "5.66667" in appendix  # full precision only in the appendix
    assert "0.0522876" not in body and "27,098,200" in body and "5.67" in body
    facts = body.split("class='facts'")[1].split("</table>")[0]
    for python in (">None<", "['score_image', 'score_text']", ">False<", "2000.0", ">0.006<"):
        assert python not in facts, python
    assert "score_image, score_text" in facts and "0.60 %" in facts and ">2,000<" in facts and ">no<" in facts
    assert "href='http://localhost:8501/early-exit?alpha_pct=0.6'" in body
    assert "b" * 64 in body


def test_provenance_says_not_recorded_for_a_fingerprint_that_is_not_a_hash():
    page = record_html([new_item("early-exit policy", "E", "s", data_fingerprint="500")])
    assert "not recorded" in page and ">500<" not in page


def pdf_text(pdf: bytes) -> str:
    """Text of a Chromium (Skia) PDF, page by page (form feeds between): no PDF library is a dependency."""
    import re
    import unicodedata
    import zlib

    objects = {int(m.group(1)): m.group(2) for m in re.finditer(rb"(\d+) 0 obj(.*?)endobj", pdf, re.DOTALL)}

    def stream(body: bytes) -> bytes:
        m = re.search(rb"stream\r?\n(.*?)\r?\nendstream", body, re.DOTALL)
        if not m:
            return b""
        data = m.group(1)
        return zlib.decompress(data) if b"/FlateDecode" in body[: m.start()] else data

    def cmap(num: int) -> dict:
        text, out = stream(objects[num]), {}
        for block in re.findall(rb"beginbfchar(.*?)endbfchar", text, re.DOTALL):
            for src, dst in re.findall(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>", block):
                out[int(src, 16)] = bytes.fromhex(dst.decode()).decode("utf-16-be", "replace")
        for block in re.findall(rb"beginbfrange(.*?)endbfrange", text, re.DOTALL):
            for lo, hi, dst in re.findall(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>", block):
                base = int(dst, 16)
                for k, code in enumerate(range(int(lo, 16), int(hi, 16) + 1)):
                    out[code] = chr(base + k)
        return out

    fonts = {}
    for num, body in objects.items():
        m = re.search(rb"/ToUnicode (\d+) 0 R", body)
        if m:
            fonts[num] = cmap(int(m.group(1)))
    pages = []
    for body in objects.values():
        if not re.search(rb"/Type\s*/Page\b", body):
            continue
        res = body
        rm = re.search(rb"/Resources (\d+) 0 R", body)
        if rm:
            res = objects[int(rm.group(1))]
        fm = re.search(rb"/Font\s*<<(.*?)>>", res, re.DOTALL)
        if not fm:
            fr = re.search(rb"/Font (\d+) 0 R", res)
            fm = re.search(rb"<<(.*?)>>", objects[int(fr.group(1))], re.DOTALL) if fr else None
        names = {n: int(o) for n, o in re.findall(rb"/(\w+) (\d+) 0 R", fm.group(1))} if fm else {}
        contents = re.search(rb"/Contents (\d+) 0 R", body)
        if not contents:
            continue
        text, current, parts = stream(objects[int(contents.group(1))]), {}, []
        for token in re.finditer(rb"/(\w+) [\d.]+ Tf|<([0-9A-Fa-f]*)>|(ET)", text):
            if token.group(1):
                current = fonts.get(names.get(token.group(1)), {})
            elif token.group(3):
                parts.append("\n")
            else:
                h = token.group(2)
                parts.append("".join(current.get(int(h[i : i + 4], 16), "") for i in range(0, len(h), 4)))
        pages.append("".join(parts))
    return unicodedata.normalize("NFKC", "\f".join(pages))  # ligatures (ﬁ) as letters


@pytest.mark.skipif(not Path(CHROMIUM).exists() and not os.environ.get("CI"), reason="Debian chromium missing")
def test_the_printed_pdf_reads_in_words_with_an_appendix_and_without_the_batch_rows():
    decided = pd.DataFrame({"item_id": [f"A-{k}" for k in range(500)], "probability": [k / 500 for k in range(500)]})
    wide = pd.DataFrame(
        {
            "method": ["graph", "analytic", "best grid point"],
            **{f"objective_gap_to_{j}": [0.0522876 * j, 2.70982e7, 856.364] for j in range(12)},
        }
    )
    items = [
        new_item(
            "early-exit policy",
            "Early exit (α = 0.60 %)",
            "Evaluate 41.2 of 500 models per row.",
            tables=[("Decided items", decided), ("Compared", wide)],
            figures=[("Models evaluated", go.Figure(go.Histogram(x=[1, 2, 2, 3])))],
            data_fingerprint="d" * 64,
            settings={
                "alpha": 0.006,
                "neg_only": False,
                "capacity": 2000.0,
                "target": None,
                "classifiers": ["score_image", "score_text"],
            },
            link="http://localhost:8501/early-exit?alpha_pct=0.6",
        )
    ]
    text = pdf_text(record_pdf(record_html(items, static=True)))
    body, appendix = text.split("Appendix: the tables at full precision")
    assert "0.60 %" in body and "score_image, score_text" in body and "2,000" in body and "not set" in body
    provenance = body.split("Provenance")[1]
    for python in ("None", "False", "['", "2000.0", "0.006\n"):
        assert python not in provenance, python
    assert "A-11" in body and "A-12" not in text and "A-499" not in text  # summarised, attached, not printed
    assert "27,098,200" in body and "0.0522876" in appendix and "objective_gap_to_11" in appendix
    assert "http://localhost:8501/early-exit?alpha_pct=0.6" in body and "d" * 64 in body.replace("\n", "")


@pytest.mark.skipif(not Path(CHROMIUM).exists() and not os.environ.get("CI"), reason="Debian chromium missing")
def test_pdf_of_a_500_row_batch_and_a_wide_table_stays_short():
    import re

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
    pdf = record_pdf(record_html(items, static=True))
    pages = len(re.findall(rb"/Type\s*/Page\b", pdf))
    assert 1 <= pages <= 3, pages  # printed in full, the 500 rows alone took 9 pages


def test_a_wide_table_of_many_rows_is_printed_across_a_landscape_page():
    table = pd.DataFrame(
        [[0.0522876 * k] * 12 for k in range(20)], columns=[f"objective_gap_to_{j}" for j in range(12)]
    )
    page = record_html([new_item("k", "T", "s", tables=[("Wide", table)])])
    appendix = page.split("id='appendix'")[1]
    assert "<div class='landscape'>" in appendix and 'class="dataframe wide"' in appendix
    assert "<th>objective_gap_to_11</th>" in appendix and "<td>0.0522876</td>" in appendix  # full precision
    # the appendix's heading is printed on the landscape page of its first table, not alone on a portrait page
    assert "<div class='landscape'><div class='appendix'><div class='block'><h2 id='appendix'>" in page


def test_a_wide_comparison_of_few_rows_is_transposed_with_its_rows_named():
    table = pd.DataFrame(
        {
            "method": ["graph", "analytic (logistic)", "best grid point"],
            **{f"objective_gap_to_{j}": [0.5 * j, 1000.0 * j, 2.0] for j in range(10)},
        }
    )
    page = record_html([new_item("joint thresholds", "J", "Decision: flag ...", tables=[("Compared", table)])])
    body = page.split("id='appendix'")[0]
    assert "<th>graph</th>" in body and "<th>best grid point</th>" in body and "<td>objective gap to 9</td>" in body
