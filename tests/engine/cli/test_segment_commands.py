"""``opstudio sweep --by``: the per-segment JSON contract, capacity and target."""

import json

import pytest

from engine.cli import main
from engine.io import load_rated, sample_path
from engine.pn._budget import max_flagged_point
from engine.pn._segments import allocate_capacity, segment_curves

SAMPLE = str(sample_path("synthetic"))


def run(capsys, *args):
    assert main(["sweep", SAMPLE, "--classifier", "score_image", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_capacity_contract(capsys):
    out = run(capsys, "--by", "region", "--capacity", "2000")
    assert set(out) >= {"segments", "total", "global"}
    keys = {"segment", "threshold", "tp", "fp", "flagged", "marginal_precision_above", "marginal_precision_below"}
    assert all(keys <= set(s) for s in out["segments"])
    assert set(out["total"]) == {"tp", "fp", "flagged"} and set(out["global"]) == {"threshold", "tp", "fp", "flagged"}
    assert out["total"]["flagged"] <= 2000
    assert out["total"]["tp"] == sum(s["tp"] for s in out["segments"])
    d = load_rated(SAMPLE, group_col="region")
    best = max_flagged_point(d.column("score_image"), d.labels, d.weights, capacity=2000)
    assert out["global"]["tp"] == best.tp and out["global"]["flagged"] <= 2000
    assert out["total"]["tp"] >= out["global"]["tp"]
    expected = allocate_capacity(segment_curves(d.column("score_image"), d.labels, d.groups, d.weights), 2000)
    assert [s["threshold"] for s in out["segments"]] == [p.threshold for p in expected.segments]


def test_target_contract_and_plain_capacity(capsys):
    out = run(capsys, "--by", "region", "--target", "0.2")
    assert [s["segment"] for s in out["segments"]] == ["north", "south", "west"]
    for s in out["segments"]:
        assert s["marginal_precision_above"] >= 0.2 >= s["marginal_precision_below"]
    single = run(capsys, "--capacity", "500")
    assert single["flagged"] <= 500 and single["classifier"] == "score_image"


@pytest.mark.parametrize(
    "args, message",
    [
        (["--by", "region"], "--by needs --capacity"),
        (["--by", "region", "--capacity", "10", "--target", "0.3"], "either --capacity or --target"),
        (["--by", "nope", "--capacity", "10"], "group column 'nope'"),
        (["--capacity", "-5"], "capacity must be"),
    ],
)
def test_errors_exit_2_with_a_message(capsys, args, message):
    assert main(["sweep", SAMPLE, *args]) == 2
    assert message in capsys.readouterr().err


def test_a_capacity_above_the_rows_and_a_segment_with_only_unrated_documents(tmp_path, capsys):
    rows = [
        "score,label,region",
        "0.9,1,north",
        "0.8,0,north",
        "0.4,1,north",
        "0.2,0,north",
        "0.7,1,south",
        "0.6,0,south",
        "0.1,0,south",
        "0.5,,east",
        "0.3,,east",
        "0.95,,north",
    ]
    path = tmp_path / "segments.csv"
    path.write_text("\n".join(rows) + "\n")
    assert main(["sweep", str(path), "--by", "region", "--capacity", "1000000", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [s["segment"] for s in out["segments"]] == ["north", "south"]
    assert out["segments_without_threshold"] == [
        {
            "segment": "east",
            "rated_documents": 0,
            "unrated_documents": 2,
            "reason": out["segments_without_threshold"][0]["reason"],
        }
    ]
    assert "every document of this segment is unrated" in out["segments_without_threshold"][0]["reason"]
    assert "No threshold for 'east' (2 unrated)" in out["note"]
    # every positive found, at each segment's lowest positive score: 0.4 in north, 0.7 in south
    assert [s["threshold"] for s in out["segments"]] == [0.4, 0.7]
    assert out["total"] == {"tp": 3.0, "fp": 1.0, "flagged": 4.0}
    assert out["global"]["tp"] == 3.0 and out["global"]["flagged"] == 5.0  # one threshold (0.4) also takes 0.6
    assert main(["sweep", str(path), "--by", "region", "--capacity", "1000000"]) == 0
    text = capsys.readouterr().out
    assert "east" in text and "every document of this segment is unrated" in text


def test_a_one_line_file_over_the_csv_field_limit_exits_2(tmp_path, capsys):
    (tmp_path / "one.csv").write_bytes(b"s" * (1 << 20))
    assert main(["sweep", str(tmp_path / "one.csv"), "--by", "region", "--capacity", "10"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and "'one.csv': line 1" in err
