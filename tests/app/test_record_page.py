"""Decision record page: items added from pages, reordered, annotated, removed, exported and imported."""

import json

from engine.record import read_record_json
from engine.workspace import open_workspace
from tests.app.conftest import OPERATOR, download_buttons

RECORD = "pages/record.py"


def saved(link: str) -> tuple[dict, list]:
    """A record link is a saved view (``/<page>?view=<id>``): its widgets' values and its inputs."""
    assert "?view=" in link, link
    view = open_workspace().view(int(link.rsplit("=", 1)[1]), OPERATOR)
    return view.settings["widgets"], view.settings["inputs"]


def titles(at):
    return [m.value for m in at.main.markdown if m.value.startswith("**")]


def test_items_from_two_pages_then_order_note_remove_export(app, served):
    at = app(page="pages/operating_point.py")
    at.button(key="record_op").click().run()
    assert not at.exception
    at.switch_page("pages/batch_decisions.py").run()
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
    at = app(page="pages/operating_point.py")
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
    assert (
        read_record_json(served(download_buttons(fresh)["Download JSON"]))[0].title
        == read_record_json(exported)[0].title
    )


def test_every_item_has_a_true_sha256_and_a_link_with_its_settings(app, served):
    import re

    at = app(page="pages/operating_point.py")
    at.button(key="record_op").click().run()
    at.button(key="record_segments").click().run()
    at.switch_page("pages/batch_decisions.py").run()
    at.selectbox(key="loss").set_value("fbeta").run()
    at.button(key="record_batch").click().run()
    assert not at.exception
    at.switch_page(RECORD).run()
    record = json.loads(served(download_buttons(at)["Download JSON"]))
    for entry in record["items"]:
        assert re.fullmatch(r"[0-9a-f]{64}", entry["provenance"]["data_sha256"]), entry["title"]
    links = [saved(e["provenance"]["link"]) for e in record["items"]]
    assert "target" in links[0][0] and "classifier" in links[0][0] and links[0][1][0]["kind"] == "rated"
    assert "capacity" in links[1][0] and "segments_budget" in links[1][0] and links[1] == links[0]  # one page, one view
    assert "batch_name" in links[2][0] and links[2][0]["beta"] == 2 and links[2][0]["loss"] == "fbeta"
    assert record["items"][2]["provenance"]["settings"]["beta"] == 2.0
    settings = record["items"][1]["provenance"]["settings"]
    assert "segment" in settings and ("capacity" in settings) != ("target" in settings)


def test_a_hostile_record_is_refused_in_one_message_and_markup_stays_text(app):
    hostile = {
        "format": "opstudio-decision-record/1",
        "items": [{"kind": "x", "title": "t", "sentence": "s", "provenance": ["not", "an", "object"]}],
    }
    at = app(page=RECORD)
    at.get("file_uploader")[0].set_value(("r.json", json.dumps(hostile).encode(), "application/json")).run()
    at.button(key="record_import").click().run()
    assert not at.exception
    assert [e.value for e in at.error] and "item 1 'provenance' is a list" in at.error[0].value.replace("\\", "")
    beacon = "![beacon](http://evil.example/b.png)"
    markup = {
        "format": "opstudio-decision-record/1",
        "items": [
            {
                "kind": beacon,
                "title": beacon,
                "sentence": beacon,
                "note": beacon,
                "provenance": {"link": "http://localhost:8501/operating-point?target=0.3", "settings": {"a": beacon}},
            }
        ],
    }
    at.get("file_uploader")[0].set_value(("r.json", json.dumps(markup).encode(), "application/json")).run()
    at.button(key="record_import").click().run()
    assert not at.exception
    for m in at.main.markdown:  # every Markdown element escapes the file's text: no image, no link from it
        assert "![beacon](" not in m.value and "](http://evil" not in m.value
    assert any("beacon" in m.value for m in at.main.markdown)


def test_a_link_whose_data_is_not_loaded_says_which_data_it_needs(app, served):
    at = app(page="pages/operating_point.py")
    at.button(key="record_op").click().run()
    at.switch_page(RECORD).run()
    link = json.loads(served(download_buttons(at)["Download JSON"]))["items"][0]["provenance"]["link"]
    widgets, _ = saved(link)
    reopened = app(query={"view": link.rsplit("=", 1)[1]}, page="pages/operating_point.py")  # the saved view
    assert not reopened.exception and not reopened.warning
    assert reopened.slider(key="target").value == widgets["target"]
    # a link that carries its settings and names data by SHA-256 (the link of someone who may not save views)
    query = {"target": str(widgets["target"]), "classifier": widgets["classifier"], "data": "0123456789abcdef"}
    missing = app(query=query, page="pages/operating_point.py")
    assert not missing.exception
    assert "SHA-256 begins with 0123456789abcdef" in missing.warning[0].value
    assert not [m for m in missing.main.markdown if "Sweep" in m.value]  # no silent switch to a sample
    missing.button(key="op_rated_ignore_link").click().run()
    assert not missing.exception and not missing.warning


def test_the_early_exit_item_records_the_sha256_of_its_rows_and_alpha_in_percent(app, served):
    import re

    at = app(query={"qwyc_trees": "100", "qwyc_depth": "3", "alpha_pct": "0.6"}, page="pages/early_exit.py")
    at.button(key="record_qwyc").click().run()
    assert not at.exception
    at.switch_page(RECORD).run()
    entry = json.loads(served(download_buttons(at)["Download JSON"]))["items"][0]
    assert re.fullmatch(r"[0-9a-f]{64}", entry["provenance"]["data_sha256"])  # it was "100", the number of trees
    widgets, _ = saved(entry["provenance"]["link"])
    assert widgets["alpha_pct"] == 0.6 and widgets["qwyc_trees"] == 100
    html = served(download_buttons(at)["Download HTML"]).decode()
    assert "0.60 %" in html and "α = 0.60 %" in html


def test_reopen_links_are_absolute_under_the_apps_base_path_and_name_every_input_in_full():
    from types import SimpleNamespace
    from unittest import mock
    from urllib.parse import parse_qs, urlsplit

    import views.navigation as nav

    rated = SimpleNamespace(kind="rated", fingerprint="ab" * 32, name="my rated.csv")
    audit = SimpleNamespace(kind="audit", fingerprint="cd" * 32, name="reviewed:plan.csv")
    with mock.patch.object(nav, "st") as fake:
        fake.query_params.to_dict.return_value = {"target": "0.3", "data": "old", "sample": "bank"}
        fake.query_params.to_dict.return_value["junk"] = "<b>x</b>"  # a key no widget has: not in the link
        fake.session_state = {
            "_current_page": "batch-decisions",
            "_page_inputs": {"rated": rated, "audit": audit},
            "target": 0.3,
        }
        fake.context.url = "http://h:8501/studio/operating-point?x=1"  # the page the browser opened first
        link = nav.current_link({"beta": 2.0, "neg_only": True, "none": None})
        assert link.startswith("http://h:8501/studio/batch-decisions?target=0.3&beta=2&neg_only=true&data=")
        query = parse_qs(urlsplit(link).query)
        assert query["data"] == ["rated:" + "ab" * 32 + ":my rated.csv", "audit:" + "cd" * 32 + ":reviewed:plan.csv"]
        assert "sample" not in query  # the URL's own inputs are replaced by the page's, named by their SHA-256
        assert nav.parse_data_value(query["data"][1]) == nav.LinkedInput("audit", "cd" * 32, "reviewed:plan.csv")
        fake.context.url = None  # no browser (AppTest): the path alone
        fake.session_state = {"_current_page": "batch-decisions", "target": 0.3}
        assert nav.current_link() == "/batch-decisions?target=0.3"
        view = nav.current_view({"beta": 2.0})
        assert view == {"page": "batch-decisions", "settings": {"target": "0.3", "beta": "2"}, "inputs": []}


def test_reopen_links_start_with_the_public_address_when_one_is_set(monkeypatch):
    from unittest import mock

    import views.navigation as nav

    monkeypatch.setenv("OPSTUDIO_PUBLIC_URL", "https://opstudio.example.com/risk/")
    with mock.patch.object(nav, "st") as fake:
        fake.query_params.to_dict.return_value = {"target": "0.3"}
        fake.session_state = {"_current_page": "monitoring", "target": 0.3}
        fake.context.url = "http://localhost:8765/monitoring"  # what this browser used: not what colleagues use
        assert nav.current_link({"mon_threshold": 0.568}) == (
            "https://opstudio.example.com/risk/monitoring?target=0.3&mon_threshold=0.568"
        )


def test_the_page_says_when_links_point_at_this_computer(app, monkeypatch):
    from engine.record import new_item

    monkeypatch.delenv("OPSTUDIO_PUBLIC_URL", raising=False)
    at = app()
    at.session_state["_decision_record"] = [
        new_item("k", "T", "One. Two.", link="http://localhost:8765/operating-point?target=0.3")
    ]
    at.switch_page("pages/record.py").run()
    assert not at.exception
    captions = " ".join(c.value for c in at.caption)
    assert "OPSTUDIO_PUBLIC_URL" in captions and "Two" in captions, captions  # the details under the sentence
