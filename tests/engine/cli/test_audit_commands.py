"""``opstudio audit plan`` and ``opstudio audit estimate``: files, JSON, the shipped sample, and one-line errors."""

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from engine.audit import PLAN_COLUMNS, estimate, load_audit, plan
from engine.audit._population import PopulationColumns, memory_population
from engine.audit.designs import design_record
from engine.cli import main
from engine.io import load_rated, sample_path


def test_plan_writes_the_plan_file_and_prints_the_design(capsys, tmp_path):
    out = tmp_path / "plan.csv"
    assert (
        main(
            [
                "audit",
                "plan",
                "--sample",
                "satimage_population",
                "--score",
                "score",
                "--id",
                "doc_id",
                "--below",
                "0.9",
                "--budget",
                "200",
                "--prior",
                "score",
                "--seed",
                "4",
                "--out",
                str(out),
                "--json",
            ]
        )
        == 0
    )
    design = json.loads(capsys.readouterr().out)
    assert design["budget"] == 200 and design["allocation"] == "neyman" and design["expected_half_width"] > 0
    record = json.loads((tmp_path / "plan.json").read_text())  # the design record, beside the plan
    assert design["design"] == str(tmp_path / "plan.json") and record["seed"] == 4 and record["review_threshold"] == 0.9
    assert [s["sample"] for s in design["strata"]] and design["strata"][-1]["upper"] == 0.9
    written = pd.read_csv(out, keep_default_na=False)
    assert list(written.columns) == list(PLAN_COLUMNS) and (written["label"] == "").all()
    frame = pd.read_csv(sample_path("satimage_population"))
    engine_plan = plan(
        memory_population(frame, PopulationColumns("doc_id", "score", "score")),
        below=0.9,
        budget=200,
        seed=4,
        prior_column="score",
    )
    assert written["id"].tolist() == engine_plan.table()["id"].astype(int).tolist()
    assert record == design_record(engine_plan) | {"population": record["population"]}
    assert record["population"]["fingerprint"] == design_record(engine_plan)["population"]["fingerprint"]


def test_plan_on_duckdb_writes_the_same_file_as_memory(capsys, tmp_path):
    frame = pd.read_csv(sample_path("satimage_population"))
    frame.to_parquet(tmp_path / "pop.parquet")
    for backend in ("memory", "duckdb"):
        assert (
            main(
                [
                    "audit",
                    "plan",
                    str(tmp_path / "pop.parquet"),
                    "--backend",
                    backend,
                    "--score",
                    "score",
                    "--id",
                    "doc_id",
                    "--below",
                    "0.9",
                    "--half-width",
                    "40",
                    "--prior",
                    "score",
                    "--out",
                    str(tmp_path / f"{backend}.csv"),
                ]
            )
            == 0
        )
    text = capsys.readouterr().out
    assert "Review" in text and "plan written to" in text
    assert (tmp_path / "memory.csv").read_bytes() == (tmp_path / "duckdb.csv").read_bytes()
    memory, duck = (json.loads((tmp_path / f"{b}.json").read_text()) for b in ("memory", "duckdb"))
    assert memory["rows_sha256"] == duck["rows_sha256"] and memory["above"] == duck["above"]
    assert (memory["population"]["fingerprint"]["kind"], duck["population"]["fingerprint"]["kind"]) == (
        "columns",
        "connection",
    )


def test_estimate_json_on_the_shipped_sample_covers_the_true_number(capsys):
    assert (
        main(
            [
                "audit",
                "estimate",
                "--rated",
                "satimage_rated",
                "--audit",
                "satimage_audit",
                "--threshold",
                "0.5",
                "--threshold",
                "0.95",
                "--json",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert list(out) == ["review_threshold", "level", "above", "below", "total_positives", "recall", "thresholds"]
    population = pd.read_csv(sample_path("satimage_population"))
    truth = int(population.loc[population["score"] < out["review_threshold"], "known_label"].sum())
    assert out["below"]["positives"]["lower"] <= truth <= out["below"]["positives"]["upper"]
    recall = out["above"]["tp"] / (out["above"]["tp"] + truth)
    assert out["recall"]["lower"] <= recall <= out["recall"]["upper"]
    engine_result = estimate(load_rated(sample_path("satimage_rated")), load_audit(sample_path("satimage_audit")))
    assert out["below"]["positives"] == engine_result.positives.as_dict()
    assert [t["threshold"] for t in out["thresholds"]] == [0.5, 0.95]


def test_estimate_sentences(capsys):
    assert (
        main(
            [
                "audit",
                "estimate",
                "--rated",
                str(sample_path("satimage_rated")),
                "--audit",
                str(sample_path("satimage_audit")),
                "--more",
                "300",
                "--want-half-width",
                "20",
            ]
        )
        == 0
    )
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("An audit of 300 of the 5,747 unflagged documents found")
    assert any(line.startswith("300 more audited documents would shrink") for line in lines)


@pytest.mark.parametrize(
    "argv,message",
    [
        (
            [
                "audit",
                "plan",
                "missing.parquet",
                "--score",
                "s",
                "--id",
                "i",
                "--below",
                "0.5",
                "--budget",
                "10",
                "--out",
                "x.csv",
            ],
            "No file matches",
        ),
        (
            [
                "audit",
                "plan",
                "--sample",
                "satimage_population",
                "--score",
                "nope",
                "--id",
                "doc_id",
                "--below",
                "0.5",
                "--budget",
                "10",
                "--out",
                "{tmp}/x.csv",
            ],
            "Score column 'nope' (--score) is not in",
        ),
        (
            [
                "audit",
                "plan",
                "--sample",
                "satimage_population",
                "--score",
                "score",
                "--id",
                "doc_id",
                "--below",
                "0.5",
                "--budget",
                "10",
                "--half-width",
                "3",
                "--out",
                "{tmp}/x.csv",
            ],
            "not allowed with argument",
        ),
        (
            [
                "audit",
                "plan",
                "--sample",
                "satimage_population",
                "--score",
                "score",
                "--id",
                "doc_id",
                "--below",
                "0.5",
                "--budget",
                "ten",
                "--out",
                "{tmp}/x.csv",
            ],
            "invalid int value",
        ),
        (
            [
                "audit",
                "plan",
                "--sample",
                "satimage_population",
                "--score",
                "score",
                "--id",
                "doc_id",
                "--below",
                "0.5",
                "--half-width",
                "3",
                "--out",
                "{tmp}/x.csv",
            ],
            "--half-width needs",
        ),
        (["audit", "estimate", "--rated", "satimage_rated", "--audit", "satimage_rated"], "is not an audit plan"),
        (["audit", "estimate", "--rated", "satimage_rated", "--audit", "satimage_audit", "--level", "2"], "level"),
        (
            ["audit", "estimate", "--rated", "satimage_rated", "--audit", "satimage_audit", "--classifier", "x"],
            "No classifier named",
        ),
    ],
)
def test_bad_input_is_one_line_on_stderr_and_exit_status_2(tmp_path, argv, message):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    done = subprocess.run(
        [sys.executable, "-m", "engine.cli", *argv], capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert message in done.stderr


def test_every_argument_says_its_default(capsys):
    for command in ("plan", "estimate"):
        with pytest.raises(SystemExit) as exit_:
            main(["audit", command, "--help"])
        assert exit_.value.code == 0
        assert capsys.readouterr().out.count("default") >= 4


def test_estimate_reads_the_design_record_beside_the_plan_or_from_design(capsys, tmp_path):
    reviewed = tmp_path / "reviewed.csv"
    reviewed.write_bytes(sample_path("satimage_audit").read_bytes())
    argv = ["audit", "estimate", "--rated", "satimage_rated", "--audit", str(reviewed)]
    assert main(argv) == 2
    assert "No design record beside the reviewed plan" in capsys.readouterr().err
    design = str(sample_path("satimage_audit").with_suffix(".json"))
    assert main([*argv, "--design", design]) == 0
    assert capsys.readouterr().out.startswith("An audit of 300 of the 5,747 unflagged documents found 1 positive")
    (tmp_path / "reviewed.json").write_bytes(Path(design).read_bytes())
    assert main(argv) == 0
