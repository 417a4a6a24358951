"""App frame: navigation, the sidebar naming the data of the page shown, the URL's sample on a page's first visit."""

from engine.io import load_rated, sample_path
from engine.pages import PAGES
from tests.app.conftest import shown

OP = "pages/operating_point.py"


def test_home_renders_and_the_sidebar_shows_each_pages_own_data(app):
    at = app()
    assert at.title[0].value == "Operating Point Studio"
    assert "This page reads no data" in shown(at.sidebar.caption) and not at.sidebar.metric
    links = [link.proto.page for link in at.get("page_link")]
    assert links == [p.url_path for p in PAGES if p.url_path != "home"]  # a card per other page, each with its link
    at.switch_page(OP).run()
    assert "synthetic_rare_events.csv.gz" in shown(at.sidebar.markdown)
    data = load_rated(sample_path("synthetic"))
    labels = {m.label: m.value for m in at.sidebar.metric}
    assert labels["Rated rows"] == f"{data.n_rated:,}" and labels["Unrated rows"] == f"{data.n_unrated:,}"
    captions = shown(at.sidebar.caption)
    assert "score_image, score_text" in captions
    assert f"Prevalence among rated: {data.prevalence_among_rated:.2%}" in captions
    at.switch_page("pages/monitoring.py").run()  # another page, another input: the sidebar follows the page
    assert "monitoring_rated.csv.gz" in shown(at.sidebar.markdown) and not at.sidebar.metric


def test_sample_named_in_the_url_is_loaded(app):
    at = app(query={"sample": "bank"}, page=OP)
    assert "bank_marketing_rated.csv.gz" in shown(at.sidebar.markdown)
    assert at.selectbox(key="op_rated").value == "sample:bank"


def test_unknown_sample_in_the_url_falls_back_and_says_so(app):
    at = app(query={"sample": "../../etc/passwd"}, page=OP)
    assert "synthetic_rare_events.csv.gz" in shown(at.sidebar.markdown)
    assert not at.exception and not at.error
    assert "'../../etc/passwd' names no input; it is ignored" in shown(at.info)
    shown_in_url = at.query_params["sample"]  # AppTest before Streamlit 1.65 keeps query values as lists
    assert (shown_in_url[-1] if isinstance(shown_in_url, list) else shown_in_url) == "synthetic"  # the sample shown


def test_a_page_streamlit_opens_on_its_own_runs_through_the_navigation(app, monkeypatch):
    # Streamlit's legacy pages/ mode ran pages/monitoring.py without app.py (file-name navigation, no sidebar):
    # on a fresh server's first request to /monitoring, and after every AppTest switch_page to such a page
    from streamlit.runtime.pages_manager import PagesManager

    off = PagesManager.__init__  # tests/conftest.py switches the legacy mode off, as the server does

    def legacy(self, *args, **kwargs):  # as AppTest and a fresh server start every run: on
        off(self, *args, **kwargs)
        PagesManager.uses_pages_directory = True

    monkeypatch.setattr(PagesManager, "__init__", legacy)
    at = app(page="pages/monitoring.py")
    assert "Data on this page" in [h.value for h in at.sidebar.subheader]
    assert at.session_state["_current_page"] == "monitoring"
