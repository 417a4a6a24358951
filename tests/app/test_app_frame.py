"""App frame: navigation, sidebar status, first open loads the synthetic sample."""

from views.state import RATED_SAMPLES


def test_home_renders_with_sample_loaded(app):
    at = app()
    assert at.title[0].value == "Operating Point Studio"
    sidebar = " ".join(m.value for m in at.sidebar.markdown)
    assert "synthetic_rare_events.csv.gz" in sidebar
    labels = {m.label: m.value for m in at.sidebar.metric}
    assert labels["Rated rows"] == "19,770" and labels["Unrated rows"] == "77"
    captions = " ".join(c.value for c in at.sidebar.caption)
    assert "score_image, score_text" in captions and "Prevalence among rated: 8.45%" in captions
    assert len(at.get("page_link")) == 3


def test_sample_named_in_the_url_is_loaded(app):
    at = app(query={"sample": "bank"})
    assert "bank_marketing_rated.csv.gz" in " ".join(m.value for m in at.sidebar.markdown)


def test_unknown_sample_in_the_url_falls_back(app):
    at = app(query={"sample": "../../etc/passwd"})
    assert "synthetic_rare_events.csv.gz" in " ".join(m.value for m in at.sidebar.markdown)
    assert set(RATED_SAMPLES) == {"synthetic", "bank"}
