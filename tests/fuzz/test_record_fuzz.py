"""Decision records generated and mutated by hypothesis: imported, shown and exported, or refused in one message.

A valid record (written by :func:`engine.record.record_json`) is mutated field by field (a
field replaced by any JSON value, hostile text or a link, deleted, an unknown field added),
and whole records are drawn from a generator of record-shaped JSON. Reading one must end
either in an :class:`~engine.errors.InputError` that starts with the record's one message,
or in items whose HTML export holds no markup from the file (no tag, no link, no image
that was not written by the studio itself) and whose JSON export reads back the same.
"""

import copy
import json
import re

import pandas as pd
import plotly.graph_objects as go
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import InputError
from engine.record import RECORD_FORMAT, new_item, read_record_json, record_html, record_json

HOSTILE = [
    "![beacon](http://evil.example/b.png)",
    "<img src=http://evil.example/i.png>",
    "javascript:alert(1)",
    "[x](javascript:alert(1))",
    "<script>alert(1)</script>",
    "</script><script>alert(2)</script>",
    "=1+1",
    "@SUM(A1)",
    "'\"><svg onload=alert(3)>",
    "//evil.example/x",
    "http://evil.example/",
    "data:text/html,<b>x</b>",
    "\u202e\u0000\r\n",
    "a" * 300,
]
TEXT = st.sampled_from(HOSTILE) | st.text(max_size=12)
SCALARS = (
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False, allow_infinity=False) | TEXT
)
JSON_VALUES = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3), max_leaves=10
)
LINKS = st.sampled_from(
    [
        "http://localhost:8501/operating-point?target=0.3",
        "/batch-decisions?beta=2",
        "javascript:alert(1)",
        "//evil.example",
        "http://evil.example/x y",
        "data:,x",
        "",
        "https://studio.example/early-exit?alpha_pct=0.6",
    ]
)
TRACES = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            ["scatter", "bar", "heatmap", "histogram", "image", "scattermapbox", "scattergeo", "table", "unknown"]
        ),
        "name": TEXT,
    },
    optional={
        "x": st.lists(st.integers(0, 9), max_size=3),
        "source": st.just("http://evil.example/img.png"),
        "hovertemplate": TEXT,
    },
)
FIGURES = st.fixed_dictionaries(
    {
        "name": TEXT,
        "plotly": st.fixed_dictionaries(
            {"data": st.lists(TRACES, max_size=2)},
            optional={
                "layout": st.fixed_dictionaries(
                    {},
                    optional={
                        "title": st.fixed_dictionaries({"text": TEXT}),
                        "images": st.just([{"source": "http://evil.example/layout.png"}]),
                        "mapbox": st.just({"style": "http://evil.example/style.json"}),
                    },
                )
            },
        ),
    }
)


@st.composite
def tables(draw):
    columns = draw(st.lists(TEXT, min_size=0, max_size=4))
    rows = draw(st.lists(st.lists(SCALARS, min_size=len(columns), max_size=len(columns)), max_size=4))
    return {"name": draw(TEXT), "columns": columns, "rows": rows}


ITEMS = st.fixed_dictionaries(
    {"kind": TEXT, "title": TEXT, "sentence": TEXT},
    optional={
        "note": TEXT,
        "tables": st.lists(tables(), max_size=2),
        "figures": st.lists(FIGURES, max_size=2),
        "provenance": st.fixed_dictionaries(
            {},
            optional={
                "data_sha256": st.sampled_from(["f" * 64, "500", ""]) | TEXT,
                "settings": st.dictionaries(TEXT, JSON_VALUES, max_size=3),
                "engine_version": TEXT,
                "time": TEXT,
                "link": LINKS,
            },
        ),
    },
)
RECORDS = st.fixed_dictionaries(
    {"format": st.sampled_from([RECORD_FORMAT, RECORD_FORMAT, "x", None]), "items": st.lists(ITEMS, max_size=3)}
)

BASE = json.loads(
    record_json(
        [
            new_item(
                "operating point",
                "Operating point of score",
                "Flag documents with score ≥ 0.5.",
                tables=[("Sweep", pd.DataFrame({"threshold": [0.5, None], "name": ["a", "=1+1"]}))],
                figures=[("PN curve", go.Figure(go.Scatter(x=[0, 1], y=[1, 2])))],
                data_fingerprint="f" * 64,
                settings={"target": 0.3, "classifiers": ["a", "b"]},
                link="http://localhost:8501/operating-point?target=0.3",
            )
        ]
    )
)

# markup the studio writes itself: its own tags and the links of provenance it checked
OWN_LINK = re.compile(
    r"<a href='(https?://[^'\s<>\"]+|/[^/'][^'\s<>\"]*)'>|<a download='[^']*' "
    r"href='data:text/csv;base64,[A-Za-z0-9+/=]*'>"
)


def paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from paths(v, prefix + (i,))


def at(record, path):
    node = record
    for key in path[:-1]:
        node = node[key]
    return node


def check(text: str) -> None:
    try:
        items = read_record_json(text)
    except InputError as exc:
        message = str(exc)
        assert message.startswith("This is not a decision record written by the studio"), message
        assert message.endswith("Nothing was imported.") and "\n" not in message, message
        return
    if not items:
        return
    page = record_html(items)
    assert page.count("Plotly.newPlot(") == sum(len(i.figures) for i in items)
    assert "<script>alert" not in page  # not even inside a figure's JSON: it cannot close the script
    outside = re.sub(r"<script\b.*?</script>", "", page, flags=re.DOTALL)  # plotly.js holds its own <svg>
    assert "<svg" not in outside and "<img" not in outside  # text stays text
    # no tag carries a link or a source from the file: every href is the studio's own
    for tag in re.findall(r"<[a-z][^<>]*\b(?:href|src)\s*=[^<>]*>", outside, re.IGNORECASE):
        assert OWN_LINK.fullmatch(tag), tag
        assert "javascript:" not in tag.lower() and "evil" not in tag or tag.startswith("<a href='http")
    for item in items:  # figures that could fetch are dropped or refused
        for _, figure in item.figures:
            spec = figure.to_plotly_json()
            assert not spec["layout"].get("images") and "mapbox" not in spec["layout"]
            assert all(
                t.get("type", "scatter")
                in ("scatter", "scattergl", "bar", "heatmap", "histogram", "histogram2d", "contour", "box", "violin")
                for t in spec["data"]
            )
            assert "evil.example/img.png" not in figure.to_json()
    again = read_record_json(record_json(items))
    assert [(i.title, i.sentence, i.note) for i in again] == [(i.title, i.sentence, i.note) for i in items]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(RECORDS)
def test_generated_records_are_imported_as_text_or_refused_in_one_message(record):
    check(json.dumps(record))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_records_are_imported_as_text_or_refused_in_one_message(data):
    record = copy.deepcopy(BASE)
    for _ in range(data.draw(st.integers(1, 3))):
        live = [p for p in paths(record) if p]
        path = data.draw(st.sampled_from(live))
        parent = at(record, path)
        kind = data.draw(st.sampled_from(["replace", "text", "delete", "add"]))
        if kind == "delete":
            del parent[path[-1]]
        elif kind == "add" and isinstance(parent[path[-1]], dict):
            parent[path[-1]][data.draw(TEXT)] = data.draw(JSON_VALUES)
        else:
            parent[path[-1]] = data.draw(TEXT | LINKS if kind == "text" else JSON_VALUES)
    check(json.dumps(record))


@pytest.mark.parametrize(
    "text",
    [
        b"",
        b"[]",
        b"null",
        b"\xff\xfe",
        b'{"format": "opstudio-decision-record/1"}',
        b'{"format": "opstudio-decision-record/1", "items": [1]}',
        b'{"format": "opstudio-decision-record/1", "items": [[]]}',
        b'{"format": "opstudio-decision-record/1", "items": [{}]}',
        b'{"format": "opstudio-decision-record/1", "items": [{"kind": NaN}]}',
        b'{"format": "opstudio-decision-record/1", "items": [{"kind": "k", "title": "t", '
        b'"sentence": "s", "figures": [{"name": "f", "plotly": {"data": [{"type": []}]}}]}]}',
    ],
)
def test_corpus_of_broken_records(text):
    with pytest.raises(InputError, match="^This is not a decision record written by the studio"):
        read_record_json(text)
