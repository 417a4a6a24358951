"""Issue 33's hostile corpus: every command line ends in one line and exit 2, or in an answer an oracle checks.

The command lines (tests/fuzz/monitor_corpus.py) run as a user runs them, each in a process of its own
(tests/cli_processes.py: forked with the imports done), so nothing reaches stderr unseen (NumPy's warnings, a JVM's notices); the engine's functions are called
with arguments of the wrong type; imported records, the untrusted-JSON scan, the Monitoring
figure and the pages' crafted links are tried here too. Every case of the issue's list is one
entry (grep its words).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from engine.backends import open_rows, sweep_points
from engine.errors import InputError
from engine.intervals import clopper_pearson
from engine.io import sample_path
from engine.monitor import (
    baseline_threshold,
    capacity_per_day,
    flagged_per_day,
    load_dated,
    monitor,
    period_counts,
    reviewer_plan,
    simulate_alerts,
)
from engine.monitor._alerts import e_detector
from engine.monitor._periods import calendar
from engine.monitor.display import threshold_over_time_figure
from engine.pn import Economics, target_from_money
from engine.pn.display import money_statement
from engine.record import RECORD_FORMAT, read_record_json
from engine.untrusted import json_depth, parse_json
from tests.cli_processes import run_cli as opstudio_process
from tests.fuzz.monitor_corpus import CLI_CASES, Case, write

ROOT = Path(__file__).resolve().parents[2]
_MON = ("--threshold", "0.5", "--target", "0.3", "--json")
#: a guard against hangs, not a timing (the cases take 1-5 s each on a shared 2-core machine)
HANG_SECONDS = 60


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return write(tmp_path_factory.mktemp("monitor_corpus"))


def run_cli(argv, folder: Path, roots: bool = False) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "OPSTUDIO_DATA_ROOTS"}
    if roots:
        env["OPSTUDIO_DATA_ROOTS"] = str(folder / "allowed")
    args = [a.replace("{d}", str(folder)) for a in argv]
    return opstudio_process(args, cwd=ROOT, env=env, timeout=HANG_SECONDS)


def test_the_corpus_is_large_and_covers_the_issue():
    assert len(CLI_CASES) + len(API_CASES) >= 60
    assert len({c.name for c in CLI_CASES}) == len(CLI_CASES)


@pytest.mark.parametrize("case", CLI_CASES, ids=[c.name for c in CLI_CASES])
def test_every_command_line_ends_in_one_line_or_a_checked_answer(case: Case, folder: Path):
    result = run_cli(case.argv, folder, case.roots)
    if case.message:
        assert result.returncode == 2 and result.stdout == "", (result.returncode, result.stdout[-300:])
        assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
        assert case.message in result.stderr and "Traceback" not in result.stderr, result.stderr
    else:
        assert result.returncode == 0, result.stderr
        assert result.stderr == "", result.stderr  # no warning, no notice: nothing but the answer
        case.check(result.stdout, folder)


def test_a_path_outside_the_folders_is_refused_alike_whether_it_exists_or_not(folder: Path):
    said = []
    for name in ("rated.csv", "nothing.csv"):
        for backend in ("memory", "duckdb"):
            path = str(folder / "outside" / name)
            err = run_cli(("sweep", path, "--backend", backend, "--target", "0.3"), folder, roots=True).stderr
            said.append(err.replace(name, "FILE"))
    assert len(set(said)) == 1 and "outside the folders" in said[0]


def test_dates_with_offsets_and_year_2300_give_the_same_record_on_memory_and_duckdb(folder: Path):
    for name in ("offsets.csv", "y2300.csv", "edge2262.csv"):
        records = [
            run_cli(("monitor", f"{{d}}/{name}", "--period", "day", "--backend", b, *_MON), folder).stdout
            for b in ("memory", "duckdb")
        ]
        assert json.loads(records[0]) == json.loads(records[1]), name
    # the day written is the day: '2025-01-06T01:30:00+05:00' is 2025-01-06 (in UTC it would be the 5th)
    first = json.loads(records[0])["periods"][0]
    assert first["start"] == "2262-04-11"
    offsets = json.loads(run_cli(("monitor", "{d}/offsets.csv", "--period", "day", *_MON), folder).stdout)
    assert offsets["periods"][0]["start"] == "2025-01-06" and sum(p["rated"] for p in offsets["periods"]) == 300


# --- the engine's functions with arguments of the wrong type -------------------------------------------------------


def _counts():
    dated = load_dated(sample_path("monitoring"))
    return dated, dated.counts("week")


DATED, COUNTS = _counts()

#: (what, call, the message's start): each raises an InputError naming the argument
API_CASES = [
    (
        "monitor window text",
        lambda: monitor(COUNTS, 0.5, 0.3, window="x"),
        "window must be a whole number >= 1, got 'x'",
    ),
    (
        "monitor window 2.5",
        lambda: monitor(COUNTS, 0.5, 0.3, window=2.5),
        "window must be a whole number >= 1, got 2.5",
    ),
    (
        "monitor level 2",
        lambda: monitor(COUNTS, 0.5, 0.3, level=2),
        r"level must be a finite number in \(0, 1\), got 2",
    ),
    ("monitor level text", lambda: monitor(COUNTS, 0.5, 0.3, level="0.95"), "level must be a number in"),
    ("monitor threshold text", lambda: monitor(COUNTS, "0.5", 0.3), "threshold must be a number, got '0.5'"),
    ("monitor threshold array", lambda: monitor(COUNTS, np.array([0.5, 0.6]), 0.3), "threshold must be a number"),
    ("monitor target bool", lambda: monitor(COUNTS, 0.5, True), "target must be a number, got True"),
    ("monitor target text", lambda: monitor(COUNTS, 0.5, "x"), "target must be a number, got 'x'"),
    ("monitor counts text", lambda: monitor("x", 0.5, 0.3), "counts must be a PeriodCounts"),
    ("monitor economics text", lambda: monitor(COUNTS, 0.5, economics="x"), "economics must be a Economics"),
    ("period_counts period 3", lambda: DATED.counts(3), "period must be one of day, week, month, got 3"),
    ("period_counts text scores", lambda: period_counts(["a"], [1], ["2025-01-06"]), "scores must be numbers"),
    ("calendar text day", lambda: calendar("x", "2025-01-06", "week"), "first_day must be a calendar day"),
    ("baseline days text", lambda: baseline_threshold(DATED, 0.3, "x"), "days must be a whole number >= 1, got 'x'"),
    ("baseline target text", lambda: baseline_threshold(DATED, "0.3"), "target must be a number, got '0.3'"),
    ("reviewers text", lambda: capacity_per_day("2", 10), r"reviewers must be a number > 0, got '2' \(str\)"),
    ("reviewers bool", lambda: capacity_per_day(True, 10), "reviewers must be a number > 0, got True"),
    (
        "reviewer plan threshold",
        lambda: reviewer_plan(DATED.scores, DATED.data.labels, DATED.dates, "x", reviewers=2, reviews_per_day=5),
        "threshold must be a number",
    ),
    ("flagged per day text", lambda: flagged_per_day("x", DATED.dates), "scores must be numbers"),
    ("money text", lambda: Economics("3", 10), r"review cost must be a number in \[0, 1e\+15\], got '3'"),
    ("money 1e308", lambda: target_from_money(1e308, 1.7e308, 1e308), "review cost must be a finite number in"),
    (
        "money days text",
        lambda: money_statement(1, 1, Economics(3, 10), days="x"),
        "days must be a number > 0, got 'x'",
    ),
    ("money economics text", lambda: money_statement(1, 1, "x"), "economics must be an Economics"),
    ("simulation runs text", lambda: simulate_alerts(runs="x"), "runs must be a whole number >= 1, got 'x'"),
    (
        "detector target text",
        lambda: e_detector(np.zeros((2, 1)), np.ones((2, 1)), np.zeros((2, 1)), np.ones((2, 1)), "x", 0.05),
        "target must be a number",
    ),
    ("Clopper-Pearson level None", lambda: clopper_pearson(1, 2, None), "level must be a number"),
    ("Clopper-Pearson side", lambda: clopper_pearson(1, 2, 0.95, "sideways"), "side must be one of both, lower, upper"),
    (
        "load_dated classifier 3",
        lambda: load_dated(sample_path("monitoring"), classifier=3),
        "classifier must be a column name",
    ),
]


@pytest.mark.parametrize("what, call, message", API_CASES, ids=[c[0] for c in API_CASES])
def test_engine_arguments_of_the_wrong_type_are_named(what, call, message):
    with pytest.raises(InputError, match=message):
        call()


# --- one message for a bad label on every backend ------------------------------------------------------------------


def _spark_missing() -> str | None:
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "pyspark is not installed"
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return "no Java runtime"
    return None


def _message(path: str, backend: str, **columns) -> str:
    with pytest.raises(InputError) as caught:
        rows = open_rows(path, backend, **columns)
        sweep_points(rows, columns.get("scores", ["score"])[0], [0.3])
    return str(caught.value)


BACKENDS = ["memory", "duckdb", pytest.param("spark", marks=pytest.mark.spark)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "file, columns",
    [("maybe.csv", {}), ("maybe.parquet", {}), ("boolscore.csv", {"scores": ["flag"]})],
    ids=["maybe-csv", "maybe-parquet", "true-false-score"],
)
def test_a_bad_file_gets_the_same_message_on_every_backend(folder: Path, backend: str, file: str, columns: dict):
    if backend == "spark" and _spark_missing():
        if os.environ.get("CI"):
            pytest.fail(f"CI: the Spark backend's tests need pyspark and Java 17 ({_spark_missing()})")
        pytest.skip(_spark_missing())
    path = str(folder / file)
    expected = _message(path, "memory", **columns)
    assert _message(path, backend, **columns) == expected
    if file.startswith("maybe"):
        assert "unknown label values 'maybe' at row 124 (row 1 = first data row)" in expected


# --- untrusted JSON and imported records ---------------------------------------------------------------------------

ADVERSARIAL = {
    "escaped quotes, no closing quote": b'["' + b'\\"' * 500_000 + b"]",
    "escaped backslashes then quotes": b'["' + b'\\\\\\"' * 250_000 + b'"]',
    "brackets inside one string": b'["' + b"[{" * 500_000 + b'"]',
    "quotes only": b'"' * 1_000_000,
    "nested a thousand deep": b"[" * 1000 + b"]" * 1000,
}
DEPTHS = {
    "escaped quotes, no closing quote": 1,
    "escaped backslashes then quotes": 1,
    "brackets inside one string": 1,
    "quotes only": 0,
    "nested a thousand deep": 1000,
}


@pytest.mark.parametrize("name", list(ADVERSARIAL))
def test_the_nesting_scan_is_linear_on_1_mb_adversarial_json(name: str):
    raw = ADVERSARIAL[name]
    started = time.perf_counter()
    assert json_depth(raw) == DEPTHS[name]
    try:
        parse_json(raw, what="file")
    except InputError as exc:  # too deep, or not JSON: said in one message
        assert "The file" in str(exc)
    assert time.perf_counter() - started < HANG_SECONDS  # a guard: the regular expression took minutes at 140 kB


def _record(**item) -> str:
    base = {"kind": "k", "title": "t", "sentence": "s", "tables": [], "figures": [], "provenance": {}}
    return json.dumps({"format": RECORD_FORMAT, "items": [{**base, **item}]})


RECORDS = {
    "a time at the calendar's start": (
        _record(provenance={"time": "0001-01-01T00:00:00+14:00"}),
        "'time' is not a time",
    ),
    "a time at the calendar's end": (_record(provenance={"time": "9999-12-31T23:59:59-14:00"}), "'time' is not a time"),
    "1e400 in a table": (
        _record(tables=[{"name": "n", "columns": ["a"], "rows": [["INF"]]}]).replace('"INF"', "1e400"),
        "row 1 column 'a' holds a number beyond the range of a double",
    ),
    "1e400 in a setting": (
        _record(provenance={"settings": {"target": "INF"}}).replace('"INF"', "-1e400"),
        "setting 'target' holds a number beyond",
    ),
    "1e400 in a figure": (
        _record(figures=[{"name": "f", "plotly": {"data": [{"type": "bar", "y": ["INF"]}]}}]).replace('"INF"', "1e400"),
        "figure 1 holds a number beyond",
    ),
    "a 30-digit integer": (
        _record(tables=[{"name": "n", "columns": ["a"], "rows": [["BIG"]]}]).replace('"BIG"', "1" + "0" * 29),
        "holds an integer of 30 digits",
    ),
    "1 MB of escaped quotes": (
        json.dumps({"format": RECORD_FORMAT, "items": []})[:-1] + ', "x": "' + '\\"' * 500_000,
        "not valid JSON",
    ),
}


@pytest.mark.parametrize("name", list(RECORDS))
def test_an_imported_record_with_hostile_values_is_refused_naming_the_field(name: str):
    text, message = RECORDS[name]
    with pytest.raises(InputError, match="This is not a decision record") as caught:
        read_record_json(text)
    assert message in str(caught.value) and "Nothing was imported" in str(caught.value)


def test_a_figure_title_of_markup_is_stripped_in_one_pass():
    title = "<br " * 250_000 + "><b>ok</b><a href='x'>link</a>"  # one tag of 1 MB, then markup to keep and drop
    started = time.perf_counter()
    items = read_record_json(
        _record(figures=[{"name": "f", "plotly": {"data": [], "layout": {"title": {"text": title}}}}])
    )
    assert items[0].figures[0][1].layout.title.text == "<b>ok</b>link"
    assert time.perf_counter() - started < HANG_SECONDS


# --- the Monitoring figure: an unbounded confidence set is drawn open, never as a spike ----------------------------


def test_infinite_upper_bounds_are_drawn_as_not_bounded():
    result = monitor(COUNTS, 0.568, 0.9)  # a high target: "flag nothing" is in many periods' confidence sets
    open_periods = [p.start for p in result.periods if np.isposinf(p.operating_point.upper)]
    assert open_periods
    fig = threshold_over_time_figure(result)
    band = next(t for t in fig.data if t.fill == "toself")
    drawn = [y for y in band.y if y is not None]
    finite_uppers = [p.operating_point.upper for p in result.periods if np.isfinite(p.operating_point.upper)]
    # the filled band holds only the periods with both bounds, and never rises above their highest upper bound
    assert not set(band.x) & set(open_periods) and max(drawn) <= max(finite_uppers)
    unbounded = next(t for t in fig.data if (t.name or "").startswith("not bounded above"))
    assert sorted({x for x in unbounded.x if x is not None}) == sorted(open_periods)
    top = fig.layout.yaxis.range[1]
    assert max(y for y in unbounded.y if y is not None) == top  # up to the chart's top edge, with an arrow
    assert any(getattr(t.marker, "symbol", None) == "arrow-up" for t in fig.data)


# --- pages: crafted links for money and reviewers ------------------------------------------------------------------

PAGE_LINKS = [
    (
        "pages/operating_point.py",
        {"op_money": "true", "op_review_cost": "1e308", "op_value_per_positive": "1.7e308"},
        "The link's cost per review ('1e308') is not a number from 0 to 1e+15",
    ),
    (
        "pages/operating_point.py",
        {"op_money": "true", "op_review_cost": "3", "op_value_per_positive": "0"},
        "value per positive (0) must exceed the review cost (3)",
    ),
    ("pages/operating_point.py", {"op_money": "true", "op_review_cost": "-3"}, "The link's cost per review ('-3')"),
    ("pages/operating_point.py", {"op_money": "true", "op_review_cost": "inf"}, "The link's cost per review ('inf')"),
    (
        "pages/operating_point.py",
        {"segments_budget": "Reviewers", "op_reviewers": "1e308", "op_reviews_per_day": "1e308"},
        "No capacity from these reviewers.",
    ),
    (
        "pages/operating_point.py",
        {"segments_budget": "Reviewers", "op_rating_days": "1e400"},
        "The link's days the ratings cover ('1e400') is not a whole number",
    ),
    (
        "pages/ensemble_paths.py",
        {"paths_money": "true", "paths_review_cost": "1e-300", "paths_value_per_positive": "1e300"},
        "The link's value per caught positive ('1e300')",
    ),
    (
        "pages/monitoring.py",
        {"mon_reviewers_on": "true", "mon_reviewers": "nan"},
        "The link's number of reviewers ('nan')",
    ),
]


@pytest.mark.slow  # a page run each
@pytest.mark.parametrize(
    "page, query, message", PAGE_LINKS, ids=[f"{p[0][6:-3]}-{i}" for i, p in enumerate(PAGE_LINKS)]
)
def test_a_crafted_link_for_money_or_reviewers_is_said_never_an_exception(page, query, message):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    for k, v in query.items():
        at.query_params[k] = v
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    said = " ".join(str(e.value).replace("\\", "") for e in at.error)
    assert message in said, said


@pytest.mark.slow  # a page run
def test_a_record_with_a_time_at_the_calendars_end_is_refused_on_the_page():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.switch_page("pages/record.py").run()
    text = _record(provenance={"time": "9999-12-31T23:59:59-14:00"}).encode()
    at.get("file_uploader")[0].set_value(("record.json", text, "application/json")).run()
    at.button(key="record_import").click().run()
    assert not at.exception and "'time' is not a time" in " ".join(str(e.value).replace("\\", "") for e in at.error)


def test_the_corpus_files_hold_what_their_names_say(folder: Path):
    assert pd.read_csv(folder / "maybe.csv")["label"].iloc[123] == "maybe"
    assert pd.read_csv(folder / "year1.csv")["date"].iloc[0] == "0001-01-01"
    assert (folder / "allowed" / "link.csv").resolve() == (folder / "outside" / "rated.csv").resolve()
    assert len((folder / "quotes.json").read_bytes()) > 1_000_000
