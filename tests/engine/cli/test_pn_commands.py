"""The opstudio command line."""

import json
import shutil
import subprocess

import pytest

from engine.cli import main
from engine.io import load_rated, sample_path
from engine.pn import operating_point


def test_sweep_json_matches_engine(capsys):
    assert (
        main(["sweep", str(sample_path("synthetic")), "--target", "0.3", "--classifier", "score_text", "--json"]) == 0
    )
    out = json.loads(capsys.readouterr().out)
    d = load_rated(sample_path("synthetic"))
    op = operating_point(d.column("score_text"), d.labels, 0.3, d.weights)
    assert out["operating_points"][0]["threshold"] == op.threshold
    assert out["operating_points"][0]["tp"] == op.tp


def test_sweep_table_default_targets(capsys):
    assert main(["sweep", str(sample_path("bank"))]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 + 19 + 1  # header lines + targets 0.05 ... 0.95 + what 'none' means
    # the targets no rated document meets flag nothing: said in words, no inf or nan printed
    assert "none" in lines[-2] and "nan" not in " ".join(lines) and "inf" not in " ".join(lines)
    assert lines[-1].startswith("A threshold of 'none' flags nothing")


@pytest.mark.parametrize("source", ["synthetic", "synthetic_counts"])
def test_paths_json(capsys, source):
    assert (
        main(["paths", str(sample_path(source)), "--target", "0.3", "--method", "both", "--bins", "30", "--json"]) == 0
    )
    out = json.loads(capsys.readouterr().out)
    methods = [p["method"] for p in out["paths"]]
    assert methods == ["graph", "analytic-power"]
    assert len(out["paths"][0]["operating_point"]["threshold"]) == 2


def test_paths_and_rule(capsys):
    assert main(["paths", str(sample_path("synthetic")), "--target", "0.5", "--rule", "and", "--method", "graph"]) == 0
    assert "rule AND" in capsys.readouterr().out


def test_errors_exit_non_zero_with_the_message(capsys, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("score,label\n0.1,maybe\n")
    assert main(["sweep", str(bad), "--target", "0.3"]) == 2
    err = capsys.readouterr().err
    assert "unknown label values 'maybe' at row 1" in err
    assert main(["sweep", str(sample_path("synthetic")), "--target", "1.5"]) == 2
    assert "strictly between 0 and 1" in capsys.readouterr().err
    one = tmp_path / "one.csv"
    one.write_text("score,label\n0.1,1\n0.2,0\n")
    assert main(["paths", str(one), "--target", "0.3"]) == 2
    assert "at least two score columns" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("opstudio") is None, reason="console script not installed")
def test_console_script_installed():
    out = subprocess.run(["opstudio", "--help"], capture_output=True, text=True, check=True).stdout
    assert "sweep" in out and "paths" in out and "app" in out
