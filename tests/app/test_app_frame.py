"""App frame: navigation, sidebar status, first open loads the synthetic sample."""

from engine.io import load_rated, sample_path
from engine.pages import PAGES
from tests.app.conftest import shown


def test_home_renders_with_sample_loaded(app):
    at = app()
    assert at.title[0].value == "Operating Point Studio"
    sidebar = shown(at.sidebar.markdown)
    assert "synthetic_rare_events.csv.gz" in sidebar
    data = load_rated(sample_path("synthetic"))
    labels = {m.label: m.value for m in at.sidebar.metric}
    assert labels["Rated rows"] == f"{data.n_rated:,}" and labels["Unrated rows"] == f"{data.n_unrated:,}"
    captions = shown(at.sidebar.caption)
    assert "score_image, score_text" in captions
    assert f"Prevalence among rated: {data.prevalence_among_rated:.2%}" in captions
    links = [link.proto.page for link in at.get("page_link")]
    assert links == [p.url_path for p in PAGES if p.url_path != "home"]  # a card per other page, each with its link


def test_sample_named_in_the_url_is_loaded(app):
    at = app(query={"sample": "bank"})
    assert "bank_marketing_rated.csv.gz" in shown(at.sidebar.markdown)


def test_unknown_sample_in_the_url_falls_back(app):
    at = app(query={"sample": "../../etc/passwd"})
    assert "synthetic_rare_events.csv.gz" in shown(at.sidebar.markdown)
    assert not at.exception and not at.error
    shown_in_url = at.query_params["sample"]  # AppTest before Streamlit 1.65 keeps query values as lists
    assert (shown_in_url[-1] if isinstance(shown_in_url, list) else shown_in_url) == "synthetic"  # the sample shown
