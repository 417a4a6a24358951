"""Data page: samples, uploads, column mapping and errors shown as st.error (never a traceback)."""

import gzip
import io

import pandas as pd
import pytest

from tests.app.conftest import shown

GOOD = b"""doc,score_a,score_b,verdict,weight
1,0.9,0.8,yes,1
2,0.7,0.2,no,2
3,0.5,0.6,,1
4,0.4,0.9,YES,1
5,0.3,0.1,no,1
"""


def score_select(at):
    return next(m for m in at.multiselect if m.label.startswith("Score columns"))


def upload(at, name, content):
    at.radio(key="data_source").set_value("Upload a file").run()
    at.file_uploader(key="upload").set_value((name, content, "application/octet-stream")).run()
    return at


def test_sample_report(app):
    at = app(page="pages/data.py")
    labels = {m.label: m.value for m in at.main.metric}
    assert labels["Rows read"] == "19,847" and labels["Unrated (excluded)"] == "77"
    assert "77 rows have no label" in shown(at.warning)
    assert len(at.get("plotly_chart")) == 2
    at.selectbox(key="sample_choice").set_value("bank").run()
    assert not at.exception
    assert {m.label: m.value for m in at.main.metric}["Rated rows"] == "6,635"
    assert {m.label: m.value for m in at.sidebar.metric}["Rated rows"] == "6,635"


def test_upload_size_limit_is_stated(app):
    at = app(page="pages/data.py")
    at.radio(key="data_source").set_value("Upload a file").run()
    assert any("up to 200 MB" in c.value for c in at.caption)


@pytest.mark.parametrize(
    "name,transform",
    [
        ("good.csv", lambda b: b),
        ("good.csv.gz", gzip.compress),
        ("good.tsv", lambda b: b.replace(b",", b"\t")),
    ],
)
def test_upload_good_file(app, name, transform):
    at = upload(app(page="pages/data.py"), name, transform(GOOD))
    assert not at.exception and not at.error
    labels = {m.label: m.value for m in at.main.metric}
    assert labels["Rows read"] == "5" and labels["Rated rows"] == "4" and labels["Unrated (excluded)"] == "1"
    assert score_select(at).value == ["score_a", "score_b"]
    assert name in shown(at.sidebar.markdown)


def test_upload_parquet(app):
    buf = io.BytesIO()
    pd.read_csv(io.BytesIO(GOOD)).to_parquet(buf)
    at = upload(app(page="pages/data.py"), "good.parquet", buf.getvalue())
    assert not at.exception and not at.error
    assert {m.label: m.value for m in at.main.metric}["Rated rows"] == "4"


def test_upload_parquet_with_a_categorical_formula_column(app):
    """A Parquet categorical column holding '=1+1' crashed the preview (a categorical refused the neutralised text)."""
    frame = pd.read_csv(io.BytesIO(GOOD)).assign(
        note=pd.Categorical(["=1+1", "a", "=1+1", "b", None]), region=pd.Categorical(["n", "s", "n", "w", "s"])
    )
    buf = io.BytesIO()
    frame.to_parquet(buf)
    at = upload(app(page="pages/data.py"), "cat.parquet", buf.getvalue())
    assert not at.exception and not at.error
    assert {m.label: m.value for m in at.main.metric}["Rated rows"] == "4"
    shown_preview = at.dataframe[-1].value
    assert shown_preview["note"].tolist()[:2] == ["'=1+1", "a"]  # neutralised in the preview as in a CSV


@pytest.mark.parametrize(
    "content,expected",
    [
        (b"", "is empty"),
        (b"score,label\n", "no data rows"),
        (b"a,b,a\n1,2,3\n", "duplicate column names"),
        (b"score,label\n0.1,1\n0.2,maybe\n", "unknown label values 'maybe' at row 2"),
        (b"score,label\n0.1,1\ninf,0\n", "infinite values at row 2"),
        (b"score,label,weight\n0.1,1,-3\n0.2,0,1\n", "negative, missing or non-finite weights at row 1"),
        (b"name,label\nx,1\n", "No numeric score column"),
        (b"\x1f\x8b\x08broken", "gzip"),
        (b"PAR1broken", "Parquet"),
        (b"score,label\n0.1,\n0.2,\n", "no rated rows"),
    ],
)
def test_malformed_uploads_show_an_error_not_an_exception(app, content, expected):
    at = app(page="pages/data.py")
    before = shown(at.sidebar.markdown)
    upload(at, "bad.csv", content)
    assert not at.exception
    errors = shown(at.error) + shown(at.warning)
    assert expected in errors, errors
    # the previous data set stays loaded
    assert shown(at.sidebar.markdown) == before


def test_remapping_columns(app):
    at = upload(app(page="pages/data.py"), "good.csv", GOOD)
    score_select(at).set_value(["score_b"]).run()
    assert not at.exception
    assert "score_b" in shown(at.sidebar.caption)
    score_select(at).set_value([]).run()
    assert "Choose at least one score column" in shown(at.error)


def test_user_strings_are_not_rendered_as_markdown(app):
    evil = "[click](http://example.invalid)![img](http://example.invalid/x.png).csv"
    content = b"score,label\n0.1,1\n0.2,![x](http://example.invalid/y.png)\n"
    at = upload(app(page="pages/data.py"), evil, content)
    assert not at.exception
    raw = " ".join(e.value for e in at.error)
    # every Markdown link/image bracket coming from the user is escaped
    assert "](http" not in raw.replace("\\]\\(", "")
    assert "\\[click\\]\\(http" in raw and "\\!\\[x\\]\\(http" in raw


def test_a_label_column_with_a_stray_value_is_mapped_and_the_error_names_value_and_row(app):
    from tests.app.conftest import shown, upload_input

    rows = [f"{i},{(i * 37 % 100) / 100:.2f},{'yes' if i % 9 == 0 else 'no'}" for i in range(1, 101)]
    rows[56] = "57,0.42,maybe"
    at = upload_input(app(), "stray.csv", ("doc_id,score,answer\n" + "\n".join(rows) + "\n").encode(), kind="rated")
    assert not at.exception
    assert next(s for s in at.selectbox if s.label == "Label column").value == "answer"
    assert "unknown label values 'maybe' at row 57" in shown(at.error)
    assert "score column" not in shown(at.error)


def kind_box(at):
    return next(s for s in at.selectbox if s.label == "Kind of input")


@pytest.mark.parametrize(
    "name,content,kind",
    [
        (
            "scored.csv",
            b"doc_id,fraud_score\n" + b"".join(b"%d,0.%03d\n" % (i, i * 7 % 1000) for i in range(200)),
            "population",
        ),
        (
            "dated.csv",
            b"doc_id,rated_on,fraud_score,verdict\n"
            + b"".join(
                b"%d,2025-01-%02d,0.%03d,%s\n" % (i, 1 + i % 28, i * 7 % 1000, b"yes" if i % 5 else b"no")
                for i in range(200)
            ),
            "dated",
        ),
    ],
)
def test_a_population_and_dated_ratings_are_guessed_and_validate(app, name, content, kind):
    at = upload(app(page="pages/data.py"), name, content)
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert kind_box(at).value == kind
    added = [i for i in at.session_state["_inputs"].values() if i.name == name]
    assert [i.kind for i in added] == [kind]


def test_changing_the_kind_of_an_upload_replaces_it(app):
    content = b"doc_id,rated_on,fraud_score,verdict\n1,2025-01-06,0.9,yes\n2,2025-01-07,0.4,no\n3,2025-01-08,0.7,yes\n"
    at = upload(app(page="pages/data.py"), "dated.csv", content)
    assert kind_box(at).value == "dated"
    kind_box(at).set_value("rated").run()
    assert not at.exception
    kind_box(at).set_value("dated").run()
    ours = [(i.name, i.kind) for i in at.session_state["_inputs"].values() if i.source == "upload"]
    assert ours == [("dated.csv", "dated")]  # one input: not "dated.csv" and "dated.csv (2)"
    assert "dated.csv (2)" not in shown(at.markdown)
