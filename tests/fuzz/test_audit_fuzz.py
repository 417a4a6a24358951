"""Every hostile audit input is refused with one line naming what and where, or gives the right answer.

The command-line cases (tests/fuzz/audit_corpus.py) run as the user runs them, each in a process of its own
(tests/cli_processes.py: forked with the imports done; three at a time): a refusal exits 2 with exactly one line on
stderr, no traceback and nothing on stdout; an accepted case exits 0 and its output is checked against an oracle (the
engine's own plan of the clean file, the known labels).
The engine's API cases call the functions with arguments of the wrong type or range: an InputError naming the
argument, never a TypeError from inside numpy.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pytest

from engine.audit import (
    PopulationColumns,
    audits_for_half_width,
    detect_population_columns,
    estimate,
    half_width_after,
    load_audit,
    plan,
)
from engine.audit._design import allocate, budget_for_half_width, expected_half_width, quantile_ranks
from engine.audit._intervals import total_interval
from engine.audit._population import memory_population
from engine.audit._report import recall_at
from engine.audit._selection import selection_keys
from engine.audit.designs import check_design, design_record, load_design, plan_rows_sha256
from engine.audit.display import extended_curve, recall_card, recall_sentence
from engine.backends import open_population
from engine.backends._duckdb import DuckSource
from engine.backends._duckdb_audit import DuckPopulation
from engine.errors import InputError
from engine.io import load_rated, sample_path
from tests.cli_processes import run_cli
from tests.fuzz.audit_corpus import OUTSIDE, build, one_line, population

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build(tmp_path_factory.mktemp("audits"))


def _run(folder, case) -> tuple[str, str | None]:
    env = {**os.environ, "PYTHONPATH": ROOT}
    env.pop("OPSTUDIO_DATA_ROOTS", None)
    if case.roots:
        env["OPSTUDIO_DATA_ROOTS"] = str(folder.parent / "lake")
    try:
        done = run_cli(case.argv, cwd=folder, env=env, timeout=120)
    except subprocess.TimeoutExpired:
        return case.name, "took more than 120 s"
    if case.refused is not None:
        if done.returncode != 2 or not one_line(done.stderr) or done.stdout:
            return case.name, f"exit {done.returncode}, stderr {done.stderr!r}, stdout {done.stdout[:300]!r}"
        if not re.search(case.refused, done.stderr):
            return case.name, f"message {done.stderr.strip()!r} does not match {case.refused!r}"
        said = done.stderr
        # what the user typed may be named, nothing else from outside; longest first, so a short argument
        # (a seed '1') cannot cut a typed path that contains it (pytest-178) and leave its rest behind
        for typed in sorted(case.argv, key=len, reverse=True):
            said = said.replace(typed, "")
        if OUTSIDE in said:
            return case.name, f"names what lies outside: {done.stderr!r}"
        return case.name, None
    if done.returncode != 0:
        return case.name, f"exit {done.returncode}: {done.stderr.strip()[:500]}"
    try:
        case.check(done.stdout, folder, case.argv)
    except AssertionError as exc:
        return case.name, f"wrong output: {exc}"
    return case.name, None


def test_the_corpus_covers_every_audit_defect_of_the_issue(built):
    _, cases = built
    assert len(cases) >= 60
    assert len([c for c in cases if c.refused]) >= 45 and len([c for c in cases if c.check]) >= 15
    assert sum(c.roots and c.refused is not None for c in cases) >= 16  # outside the roots, memory and DuckDB


#: command-line cases per test (each runs its cases three at a time, within the test timeout on a loaded machine)
CHUNK, CHUNKS = 10, 12


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_every_command_line_case_is_refused_in_one_line_or_answers_right(built, chunk):
    folder, cases = built
    assert (CHUNKS - 1) * CHUNK < len(cases) <= (CHUNKS + 1) * CHUNK  # the last chunk takes the rest
    mine = cases[chunk * CHUNK : (chunk + 1) * CHUNK if chunk < CHUNKS - 1 else None]
    with ThreadPoolExecutor(max_workers=3) as pool:
        outcomes = list(pool.map(lambda c: _run(folder, c), mine))
    failed = [f"{name}: {problem}" for name, problem in outcomes if problem]
    assert not failed, "\n".join(failed)


# --- the engine's API: arguments of the wrong type or range ------------------------------------------------------


@pytest.fixture(scope="module")
def shipped():
    rated = load_rated(sample_path("satimage_rated"))
    audit = load_audit(sample_path("satimage_audit"))
    return rated, audit, estimate(rated, audit)


@pytest.fixture(scope="module")
def small():
    frame = population(300).drop(columns="truth")
    return memory_population(frame, PopulationColumns("doc_id", "fraud_score"))


PLAN_ARGUMENTS = [
    ({"budget": "50"}, r"--budget must be a whole number of at least 1 \(documents to review\), got '50'"),
    ({"budget": 50.0}, r"--budget must be a whole number"),
    ({"budget": True}, r"--budget must be a whole number"),
    ({"budget": -5}, r"--budget must be a whole number of at least 1"),
    ({"below": "0.7"}, r"--below must be a finite number \(the review threshold\), got '0.7'"),
    ({"below": None}, r"--below must be a finite number"),
    ({"below": math.nan}, r"--below must be a finite number"),
    ({"strata": 6.0}, r"--strata must be a whole number from 1 to 40, got 6.0"),
    ({"strata": "6"}, r"--strata must be a whole number"),
    ({"strata": 45}, r"--strata must be a whole number from 1 to 40, got 45"),
    ({"seed": True}, r"--seed must be a whole number"),
    ({"seed": 1.5}, r"--seed must be a whole number"),
    ({"level": "0.95"}, r"--level must be a finite number"),
    ({"allocation": ["neyman"]}, r"unknown allocation"),
    ({"spacing": 3}, r"unknown strata spacing"),
    ({"budget": None, "half_width": "10"}, r"--half-width must be a positive finite number"),
    ({"budget": None, "half_width": -1.0}, r"--half-width must be a positive finite number"),
    ({"pilot": "audit.csv"}, r"--pilot must be a reviewed audit"),
    ({"prior_column": 3}, r"--prior must be a column name"),
]


@pytest.mark.parametrize("change,message", PLAN_ARGUMENTS)
def test_plan_arguments_of_the_wrong_type_are_input_errors(small, change, message):
    kwargs = {"below": 0.7, "budget": 40, "strata": 4, **change}
    with pytest.raises(InputError, match=message):
        plan(small, **kwargs)


def test_plan_of_something_that_is_not_a_population(small):
    with pytest.raises(InputError, match="plan\\(\\) takes a population opened by engine.backends.open_population"):
        plan(pd.DataFrame({"doc_id": ["a"], "fraud_score": [0.1]}), below=0.5, budget=1)
    with pytest.raises(InputError, match="--id must be a column name"):
        open_population(pd.DataFrame({"a": [1]}), id=3, score="a")


def test_the_same_arguments_are_refused_before_duckdb_reads_anything(tmp_path):
    population(200).to_parquet(tmp_path / "p.parquet")
    scan = DuckPopulation(DuckSource(str(tmp_path / "p.parquet")), PopulationColumns("doc_id", "fraud_score"))
    for change, message in PLAN_ARGUMENTS[:6]:
        with pytest.raises(InputError, match=message):
            plan(scan, **{"below": 0.7, "budget": 40, **change})


@pytest.mark.parametrize(
    "call,message",
    [
        (lambda r, a, e: estimate(r, a, thresholds=0.5), r"--threshold must be a list of numbers"),
        (lambda r, a, e: estimate(r, a, thresholds="0.5"), r"--threshold must be a list of numbers"),
        (lambda r, a, e: estimate(r, a, thresholds=[None]), r"--threshold must be a finite number"),
        (lambda r, a, e: estimate(r, a, level="x"), r"--level must be a finite number"),
        (lambda r, a, e: estimate(r, a, level=1), r"level must be in \(0, 1\)"),
        (lambda r, a, e: estimate(r, a, method=None), r"unknown interval method"),
        (lambda r, a, e: estimate(r, a, classifier=3), r"--classifier must be a column name"),
        (lambda r, a, e: estimate(r.scores, a), r"The rated data are a RatedData"),
        (lambda r, a, e: estimate(r, a.ids), r"A reviewed audit is an AuditSample"),
        (lambda r, a, e: estimate(r, a, design={"format": "x"}), r"field 'format' must be 'opstudio audit design'"),
        (lambda r, a, e: estimate(r, a, design=[]), r"is not a JSON object"),
        (lambda r, a, e: half_width_after(e, 1.5), r"--more must be a whole number from 0"),
        (lambda r, a, e: half_width_after(e, -1), r"--more must be a whole number from 0"),
        (lambda r, a, e: half_width_after(a, 10), r"A follow-up needs an audit's estimate"),
        (lambda r, a, e: audits_for_half_width(e, "5"), r"--want-half-width must be a positive finite number"),
        (lambda r, a, e: audits_for_half_width(e, math.inf), r"--want-half-width must be a positive finite number"),
        (lambda r, a, e: total_interval(["a"], [1], [0]), r"documents must be (whole )?numbers"),
        (lambda r, a, e: total_interval([10.5], [1], [0]), r"documents must be whole numbers up to 2\*\*53"),
        (lambda r, a, e: total_interval([10**19], [1], [0]), r"documents must be whole numbers up to 2\*\*53"),
        (lambda r, a, e: total_interval([10], [1], [0], method="exakt"), r"unknown interval method"),
        (lambda r, a, e: load_design(b"[]", name="p.json"), r"The design record 'p.json' is not a JSON object"),
        (lambda r, a, e: recall_at(e, "0.5"), r"the threshold must be a number"),
        (lambda r, a, e: recall_card(e, None), r"the threshold must be a number"),
        (lambda r, a, e: recall_sentence(e, "x"), r"the threshold must be a number"),
        (lambda r, a, e: extended_curve(e, points="10"), r"points must be a whole number"),
        (lambda r, a, e: allocate(5, ["a", 10]), r"documents must be numbers"),
        (lambda r, a, e: allocate("5", [10, 10]), r"--budget must be a whole number"),
        (lambda r, a, e: expected_half_width([100], [1], ["x"]), r"anticipated prevalences must be numbers"),
        (lambda r, a, e: budget_for_half_width(5, [100], "neyman", None), r"anticipated prevalences must be"),
        (lambda r, a, e: quantile_ranks("x", [0.5]), r"the number of values must be a whole number"),
        (lambda r, a, e: selection_keys([1, 2], 0), r"ids are hashed as text"),
        (lambda r, a, e: detect_population_columns("x"), r"A population is a DataFrame"),
        (lambda r, a, e: design_record(e), r"A design record is made from a plan"),
        (lambda r, a, e: plan_rows_sha256(None), r"A reviewed audit is an AuditSample"),
        (lambda r, a, e: check_design(a, None), r"has no design record: its plan.json"),
    ],
)
def test_estimate_arguments_of_the_wrong_type_are_input_errors(shipped, call, message):
    rated, audit, result = shipped
    with pytest.raises(InputError, match=message):
        call(rated, audit, result)


def test_the_exact_interval_of_a_huge_stratum_is_quick_and_brackets_the_binomial_limit():
    """9e15 documents (was a hang with 9e18): the binomial limit, rounded outwards; equal to the hypergeometric's
    bounds at the switch within a few documents per million."""
    iv = total_interval([9 * 10**15], [300], [3], method="exact")
    assert 0 < iv.lower < 9 * 10**15 * 3 / 300 < iv.upper
    near = total_interval([10**9], [300], [3], method="exact")
    above = total_interval([10**9 + 1], [300], [3], method="exact")
    assert near.lower == pytest.approx(above.lower, rel=1e-5) and near.upper == pytest.approx(above.upper, rel=1e-5)


def test_a_population_beyond_the_memory_limit_is_refused_before_it_is_read_whole(tmp_path, monkeypatch):
    import engine.audit._population as population_module

    monkeypatch.setattr(population_module, "MAX_TABLE_BYTES", 50_000)
    frame = population(5000).drop(columns="truth")
    frame.to_csv(tmp_path / "big.csv", index=False)
    frame.to_csv(tmp_path / "big.csv.gz", index=False)
    frame.to_parquet(tmp_path / "big.parquet", compression="gzip")
    for name in ("big.csv", "big.csv.gz", "big.parquet"):
        with pytest.raises(InputError, match=r"holds more than 0 MB of rows \(inflated\).*--backend duckdb"):
            open_population(str(tmp_path / name), id="doc_id", score="fraud_score", backend="memory")
    small = population(100).drop(columns="truth")
    small.to_csv(tmp_path / "small.csv.gz", index=False)
    assert open_population(str(tmp_path / "small.csv.gz"), id="doc_id", score="fraud_score").scores.size == 100


def test_an_upload_of_a_population_reads_its_ids_as_text(tmp_path):
    from engine.audit import read_population

    raw = b"doc_id;fraud_score\r\n00140;0.1\r\n140;0.2\r\nNA;0.3\r\n"
    pop = read_population(b"\xef\xbb\xbf" + raw, PopulationColumns("doc_id", "fraud_score"), name="up.csv")
    assert pop.ids.tolist() == ["00140", "140", "NA"] and pop.name == "'up.csv'"
    with pytest.raises(InputError, match=r"Id column 'id' \(--id\) is not in 'up.csv'; its columns are doc_id, fraud"):
        read_population(raw, PopulationColumns("id", "fraud_score"), name="up.csv")


def test_the_population_fingerprint_is_the_same_in_memory_from_a_frame_a_file_and_an_upload(tmp_path):
    frame = population(200).drop(columns="truth")
    frame.to_csv(tmp_path / "p.csv", index=False)
    cols = PopulationColumns("doc_id", "fraud_score")
    a = memory_population(frame, cols).identity()
    b = open_population(str(tmp_path / "p.csv"), id="doc_id", score="fraud_score", backend="memory").identity()
    from engine.audit import read_population

    c = read_population((tmp_path / "p.csv").read_bytes(), cols).identity()
    assert a == b == c and a["kind"] == "columns"
    changed = frame.assign(fraud_score=np.where(frame.index == 0, 0.5, frame["fraud_score"]))
    assert memory_population(changed, cols).identity() != a
