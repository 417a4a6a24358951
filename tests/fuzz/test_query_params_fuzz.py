"""Every page's query parameters are hostile input: a crafted link shows a clear message or the default, never a crash.

For every page of :data:`engine.pages.PAGES` the parameters it binds are read from the page itself: each page is run
with AppTest and the widgets bound to the URL (``bind="query-params"``) are collected, then the toggles, radios
and select boxes that show more widgets (money, reviewers, a second target, another source ...) are switched to
find those too. Each parameter then receives every hostile value (text where numbers go, out-of-range and
enormous numbers, NaN and infinities, negative counts, HTML and JavaScript, Markdown links, control characters),
every page the inputs' own ``data`` and ``sample`` parameters, repeated and unknown keys and a 10^6-character
query, each in a fresh session as a crafted link opens one. A run passes when it shows no exception box, every
bound widget holds a valid value (the default, or a value the widget accepts) and no payload is rendered as
HTML or Markdown. Values are rotated over the parameters (a Latin square: run j gives parameter i value
i + j), so that every (parameter, value) pair is exercised in as many runs as there are values.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from engine.pages import PAGES

APP = str(Path(__file__).resolve().parents[2] / "app.py")
#: the early-exit page on its quick setting (the shipped model's first 100 trees of depth 3)
BASE = {"early-exit": {"qwyc_trees": "100", "qwyc_depth": "3"}}
#: select boxes with at most this many options are switched to each option to find the widgets they show
MAX_EXPANDED = 10

SCRIPT = '<script>alert("x")</script>'
IMAGE = "<img src=x onerror=alert(1)>"
LINK = "[click](javascript:alert(1))![beacon](http://evil.example/b.png)"
HOSTILE = [
    "abc",
    "",
    "-1",
    "-1e308",
    "1e308",
    "1e400",
    "nan",
    "-inf",
    "9" * 400,
    str(2**64),
    "0x1F",
    " 5 ",
    "\x00\x1b[31m",
    "５",
    SCRIPT,
    IMAGE,
    LINK,
]
#: payloads that must never reach the page unescaped
PAYLOADS = ("<script", "<img", "](javascript:", "![beacon](")
#: the inputs' own parameters (views.navigation): a shipped sample by key, data by kind, SHA-256 and file name
INPUT_PARAMS = {
    "sample": ["../../etc/passwd", "synthetic", "monitoring", SCRIPT, LINK, "x" * 5000, ""],
    "data": [
        "rated:" + "0" * 64 + ":" + SCRIPT,
        "audit:" + "ab" * 32 + ":" + LINK,
        "0123456789abcdef",
        "rated:zz:name",
        "nope:" + "1" * 64,
        "rated:" + "1" * 15,
        "\x00" * 50,
        "rated:" + "2" * 64 + ":" + "n" * 100_000,
    ],
}


def run_page(url_path: str, query: dict) -> AppTest:
    from streamlit import config

    config.set_option("client.showErrorDetails", "full")  # an exception box names its error (the app hides it)
    at = AppTest.from_file(APP, default_timeout=240)
    at.run()
    at.query_params.update({**BASE.get(url_path, {}), **query})
    at.switch_page(next(p.script for p in PAGES if p.url_path == url_path)).run()
    return at


def bound_widgets(at: AppTest) -> dict:
    """Query parameter -> the widget bound to it, as this run drew them."""
    found = {}
    for node in at._tree:
        proto = getattr(node, "proto", None)
        key = getattr(proto, "query_param_key", "") if proto is not None else ""
        if key:
            found[key] = node
    return found


def revealers(widget) -> list[str]:
    """URL values of a widget that may show other widgets: a toggle on, each option of a radio or small select box."""
    kind = type(widget).__name__
    if kind in ("Toggle", "Checkbox"):
        return ["true"]
    options = list(getattr(widget, "options", []) or [])
    if kind in ("Radio", "Selectbox") and len(options) <= MAX_EXPANDED:
        return options
    return []


def discover(url_path: str) -> tuple[dict, list[dict]]:
    """Every parameter the page binds, and the URL states that show them (the default first)."""
    at = run_page(url_path, {})
    assert not at.exception, at.exception
    base = bound_widgets(at)
    params = {k: type(w).__name__ for k, w in base.items()}
    states, shows = [{}], {}
    for key, widget in base.items():
        for value in revealers(widget):
            found = bound_widgets(run_page(url_path, {key: value}))
            new = {k: type(w).__name__ for k, w in found.items() if k not in base}
            if new:
                shows[(key, value)] = set(new)
                params.update(new)
    merged = {}
    for key, value in shows:  # one value per revealer: the first that shows anything
        merged.setdefault(key, value)
    if merged:
        states.append(merged)
        shown = set(bound_widgets(run_page(url_path, merged)))
        for (key, value), new in shows.items():
            if not new <= shown:
                states.append({key: value})  # shown only alone (another revealer's value hides it)
    return params, states


def invalid(widget) -> str | None:
    """Why a bound widget's value is not one it may hold (None when it is valid)."""
    value, proto = widget.value, widget.proto
    kind = type(widget).__name__
    if kind in ("NumberInput", "Slider"):
        values = value if isinstance(value, (tuple, list)) else [value]
        for v in values:
            if v is None:
                continue
            if not isinstance(v, (int, float)) or not math.isfinite(v):
                return f"{v!r} is not a finite number"
            low = proto.min if getattr(proto, "has_min", True) else -math.inf
            high = proto.max if getattr(proto, "has_max", True) else math.inf
            if not low <= v <= high:
                return f"{v!r} is outside [{low}, {high}]"
    return None


def rendered_payloads(at: AppTest) -> list[str]:
    """Texts of this run rendered as Markdown that carry a payload unescaped (``views.state.md`` escapes '<' and
    '[' with a backslash, so an escaped link or image never holds "](" or "![" as such)."""
    bad = []
    for node in at._tree:
        proto = getattr(node, "proto", None)
        body = getattr(proto, "body", None)
        if not isinstance(body, str) or type(node).__name__ in ("Text", "Code"):  # shown as plain text
            continue
        for payload in PAYLOADS:
            for match in re.finditer(re.escape(payload), body):
                if payload.startswith("<") and match.start() > 0 and body[match.start() - 1] == "\\":
                    continue
                bad.append(f"{type(node).__name__}: {body[max(0, match.start() - 30) : match.start() + 40]!r}")
    return bad


def check(url_path: str, query: dict) -> list[str]:
    """What is wrong with the page opened with ``query`` (empty when nothing is)."""
    shown = {k: (v if len(str(v)) < 60 else f"{str(v)[:40]}…({len(str(v)):,} chars)") for k, v in query.items()}
    try:
        at = run_page(url_path, query)
    except Exception as exc:  # a run that does not finish (AppTest's timeout) or breaks the runner
        return [f"{url_path} {shown}: the run failed: {type(exc).__name__}: {str(exc)[:200]}"]
    problems = [f"exception box: {e.message[:300]}" for e in at.exception]
    for key, widget in bound_widgets(at).items():
        why = invalid(widget)
        if why:
            problems.append(f"{key}: {why}")
    problems += [f"rendered: {text}" for text in rendered_payloads(at)]
    return [f"{url_path} {shown}: {p}" for p in problems]


def latin_square(params: list[str], values: list, held: dict) -> list[dict]:
    """Run j gives parameter i value (i + j) mod len(values): every pair once, in len(values) runs."""
    return [{**held, **{p: values[(i + j) % len(values)] for i, p in enumerate(params)}} for j in range(len(values))]


READERS = [p.url_path for p in PAGES if p.input_kinds]


@pytest.mark.slow  # a page run per hostile query: 5-20 s a page
@pytest.mark.parametrize("url_path", [p.url_path for p in PAGES])
def test_every_bound_parameter_of_the_page_takes_every_hostile_value(url_path):
    params, states = discover(url_path)
    problems = []
    for state in states:
        free = [p for p in params if p not in state]
        runs = latin_square(free, HOSTILE, state) if free else []
        runs += [{**state, **{p: v for p in free}} for v in ("1e308", "-1e308", SCRIPT)] if free else []
        for query in runs:
            problems += check(url_path, query)
    assert not problems, "\n".join(problems[:40]) + f"\n({len(problems)} problems)"
    if url_path in ("operating-point", "audit", "monitoring", "ensemble-paths", "batch-decisions", "early-exit"):
        assert params, "the page binds parameters: none were found, so nothing was fuzzed"


@pytest.mark.slow  # 15 page runs a page (4-5 s)
@pytest.mark.parametrize("url_path", READERS)
def test_the_inputs_parameters_repeated_unknown_and_huge_queries(url_path):
    runs = [{k: v} for k, values in INPUT_PARAMS.items() for v in values]
    runs += [
        {"sample": ["synthetic", "bank", "monitoring", "../x"]},  # repeated: the page's kind only, the rest said
        {"data": ["rated:" + "3" * 64 + ":a.csv", "rated:" + "4" * 64 + ":b.csv"]},
        {"zz_unknown": SCRIPT, "another": "1"},
        {"target": "x" * 1_000_000},  # longer than Streamlit reads (524,288 characters): the query is ignored
    ]
    problems = [p for query in runs for p in check(url_path, query)]
    assert not problems, "\n".join(problems[:40]) + f"\n({len(problems)} problems)"


def test_a_reopened_link_without_its_data_names_the_file_and_computes_nothing():
    at = run_page("operating-point", {"data": "rated:" + "c2d7f484" * 8 + ":rated <b>2024</b>.csv"})
    assert not at.exception
    warning = " ".join(w.value for w in at.warning)
    assert "rated \\<b\\>2024\\</b\\>\\.csv" in warning and "c2d7f484…" in warning  # the file, as text
    assert not at.main.metric and not at.get("plotly_chart")  # nothing computed on other data


def test_the_checks_see_an_exception_box_and_a_payload_rendered(monkeypatch):
    """The checks fail where they should: with Streamlit's own reader of whole numbers (an infinite seed raised
    OverflowError) and with a page's Markdown escaping switched off."""
    from streamlit.elements.widgets.number_input import NumberInputSerde

    import views.inputs

    with monkeypatch.context() as m:
        m.setattr(NumberInputSerde, "deserialize", NumberInputSerde.deserialize.original)
        assert any("OverflowError" in p or "infinity" in p for p in check("operating-point", {"seed": "1e400"}))
    assert check("operating-point", {"seed": "1e400"}) == []
    link = {"data": "rated:" + "0" * 64 + ":" + IMAGE}
    assert check("operating-point", link) == []
    monkeypatch.setattr(views.inputs, "md", str)
    assert any("rendered" in p and "<img" in p for p in check("operating-point", link))
