"""Decision record page: items added from pages, reordered, annotated, removed, exported and imported."""

import json

from engine.record import read_record_json
from tests.app.conftest import download_buttons

RECORD = "views/record.py"


def titles(at):
    return [m.value for m in at.main.markdown if m.value.startswith("**")]


def test_items_from_two_pages_then_order_note_remove_export(app, served):
    at = app(page="views/operating_point.py")
    at.button(key="record_op").click().run()
    assert not at.exception
    at.switch_page("views/batch_decisions.py").run()
    at.button(key="record_batch").click().run()
    assert not at.exception
    at.switch_page(RECORD).run()
    assert not at.exception
    shown = titles(at)
    assert len(shown) == 2 and "Operating point of" in shown[0] and "optimal decision" in shown[1]
    at.button(key="down_0").click().run()
    assert "optimal decision" in titles(at)[0]
    notes = [t for t in at.text_area]
    notes[0].set_value("Approved by the review board").run()
    record = json.loads(served(download_buttons(at)["Download JSON"]))
    assert record["items"][0]["note"] == "Approved by the review board"
    assert record["items"][1]["provenance"]["link"].startswith("/operating-point")
    html = served(download_buttons(at)["Download HTML"]).decode()
    assert "Approved by the review board" in html and "Plotly.newPlot" in html
    at.button(key="remove_0").click().run()
    assert len(titles(at)) == 1 and not at.exception


def test_empty_record_says_what_to_do_and_import_works(app, served):
    at = app(page="views/operating_point.py")
    at.button(key="record_op").click().run()
    at.switch_page(RECORD).run()
    exported = served(download_buttons(at)["Download JSON"])
    fresh = app(page=RECORD)
    assert "The record is empty" in " ".join(i.value for i in fresh.info)
    fresh.get("file_uploader")[0].set_value(("record.json", exported, "application/json")).run()
    fresh.button(key="record_import").click().run()
    assert not fresh.exception
    shown = titles(fresh)
    assert len(shown) == 1 and "Operating point of" in shown[0]
    assert read_record_json(served(download_buttons(fresh)["Download JSON"]))[0].title == \
        read_record_json(exported)[0].title
