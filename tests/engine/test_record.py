"""The decision record: JSON round trip, escaped HTML with figures, PDF through Chromium."""

import json
import os
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
import pytest

from engine.errors import InputError
from engine.record import CHROMIUM, new_item, read_record_json, record_html, record_json, record_pdf


def item(title="Threshold for <b>score</b>"):
    return new_item("operating point", title, "Flag documents with score ≥ 0.5: 10 true positives.",
                    tables=[("Sweep", pd.DataFrame({"threshold": [0.5, None], "name": ["a", "<i>b</i>"]}))],
                    figures=[("PN curve", go.Figure(go.Scatter(x=[0, 1, 2], y=[0, 3, 4])))],
                    data_fingerprint="f" * 64, settings={"target": 0.3, "classifier": "score"},
                    link="/operating-point?target=0.3").annotated("<script>alert('x')</script> approved")


def test_json_round_trip_keeps_everything():
    items = [item(), item("Second")]
    back = read_record_json(record_json(items))
    assert [b.title for b in back] == ["Threshold for <b>score</b>", "Second"]
    assert back[0].note.endswith("approved") and back[0].provenance["settings"]["target"] == 0.3
    pd.testing.assert_frame_equal(back[0].tables[0][1], items[0].tables[0][1], check_dtype=False)
    assert back[0].figures[0][1].data[0].y == (0, 3, 4)
    assert json.loads(record_json(back)) == json.loads(record_json(items))


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
