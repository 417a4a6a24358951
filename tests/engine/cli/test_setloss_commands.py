"""``opstudio batch``: the decisions file and the summary."""

import json

import pandas as pd
import pytest

from engine.cli import main
from engine.io import load_batches, sample_path
from engine.setloss import decide_batches


def test_batch_writes_one_row_per_input_row_in_order(tmp_path, capsys):
    out = tmp_path / "decisions.csv"
    assert main(["batch", str(sample_path("bank_batches")), "--loss", "fbeta:2", "--out", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    got = pd.read_csv(out)
    expected = decide_batches(load_batches(sample_path("bank_batches")), "fbeta:2")
    assert list(got.columns) == ["client_id", "batch", "probability", "decision", "k"]
    assert (got["decision"].to_numpy() == expected.decisions["decision"].to_numpy()).all()
    assert summary["flagged"] == int(got["decision"].sum())
    assert [b["k"] for b in summary["batches"]] == list(expected.summary["k"])


def test_batch_column_options_and_errors(tmp_path, capsys):
    src = tmp_path / "in.csv"
    src.write_text("score,grp\n0.9,x\n0.2,x\n0.7,y\n")
    out = tmp_path / "out.csv"
    assert main(["batch", str(src), "--prob", "score", "--batch", "grp", "--loss", "f1", "--out", str(out)]) == 0
    assert list(pd.read_csv(out)["batch"]) == ["x", "x", "y"]
    assert main(["batch", str(src), "--prob", "nope", "--out", str(out)]) == 2
    assert "No column named 'nope'" in capsys.readouterr().err
    assert main(["batch", str(src), "--loss", "f7", "--out", str(out)]) == 2


def test_fifty_thousand_one_item_batches(tmp_path, capsys):
    n = 50_000
    eta = (pd.Series(range(n)) * 7919 % 10_007) / 10_007  # probabilities spread over [0, 1)
    src = tmp_path / "many.csv"
    pd.DataFrame({"item_id": range(n), "batch": [f"b{i}" for i in range(n)], "probability": eta}).to_csv(
        src, index=False
    )
    out = tmp_path / "out.csv"
    assert main(["batch", str(src), "--loss", "f1", "--out", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    got = pd.read_csv(out)
    assert len(summary["batches"]) == n and (got["decision"] == (eta > 0.5).astype(int)).all()


def test_a_one_line_file_over_the_csv_field_limit_exits_2_with_one_line(tmp_path, capsys):
    src = tmp_path / "one_line.csv"
    src.write_bytes(b"p" * (1 << 20))
    assert main(["batch", str(src), "--out", str(tmp_path / "o.csv")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and "'one_line.csv': line 1" in err


def test_the_loss_help_lists_every_registered_loss(capsys):
    from engine.setloss import LOSS_SPELLINGS

    with pytest.raises(SystemExit):
        main(["batch", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert all(spelling in help_text for spelling in LOSS_SPELLINGS)
