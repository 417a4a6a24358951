"""``opstudio monitor``: the JSON record, money and reviewer options, backends, errors as one line with exit 2."""

import json

import pytest

from engine.cli import _parser, main
from engine.io import sample_path
from engine.monitor import load_dated, monitor
from engine.reporting import json_safe


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_on_the_sample_alerts_after_the_documented_drift(capsys):
    code, out, err = _run(
        capsys, "monitor", "--sample", "monitoring", "--threshold", "0.568", "--target", "0.3", "--json"
    )
    assert code == 0 and err == ""
    record = json.loads(out)
    assert list(record) == ["threshold", "target", "level", "periods", "alerts"]
    assert len(record["periods"]) == 52 and record["level"] == 0.95
    first = record["alerts"][0]["period"]
    assert "2025-07-07" <= first <= "2025-08-11"  # the drift starts on 2025-07-07
    assert not any(p["alert"] for p in record["periods"] if p["start"] < "2025-07-07")
    dated = load_dated(sample_path("monitoring"))
    assert record == json.loads(json.dumps(json_safe(monitor(dated.counts("week"), 0.568, 0.3).as_dict())))


def test_money_flags_give_the_same_record_as_the_equivalent_target(capsys):
    base = ["monitor", "--sample", "monitoring", "--threshold", "0.568", "--period", "month", "--json"]
    _, by_target, _ = _run(capsys, *base, "--target", "0.3")
    _, by_money, _ = _run(
        capsys, *base, "--review-cost", "2", "--value-per-positive", "9", "--cost-per-false-positive", "1"
    )
    money = json.loads(by_money)
    assert {k: v for k, v in money.items() if k != "money"} == json.loads(by_target)  # (2 + 1) / (9 + 1) = 0.3
    # the JSON gains the money: amounts, target and the periods' value together
    periods = money["periods"]
    tp, fp = sum(p["tp"] for p in periods), sum(p["fp"] for p in periods)
    assert money["money"]["cost_per_review"] == 2 and money["money"]["target"] == pytest.approx(0.3)
    assert money["money"]["net_value"] == pytest.approx(9 * tp - 2 * (tp + fp) - 1 * fp)
    code, text, _ = _run(capsys, *base[:-1], "--review-cost", "3", "--value-per-positive", "10", "--currency", "$")
    assert code == 0 and "net value per day" in text.lower() and "Net value $" in text


def test_reviewers_drive_the_capacity_allocation(capsys):
    code, out, _ = _run(
        capsys,
        "monitor",
        "--sample",
        "monitoring",
        "--threshold",
        "0.568",
        "--target",
        "0.3",
        "--reviewers",
        "3",
        "--reviews-per-day",
        "14",
        "--by",
        "region",
    )
    assert code == 0
    dated = load_dated(sample_path("monitoring"))
    assert "3 reviewers × 14 reviews a day = 42 reviews per day over 364 days" in out
    assert "backlog" in out and "Per-segment thresholds by region" in out
    # the capacity point is the budget point at R·Q·D reviews
    from engine.pn._budget import max_flagged_point

    point = max_flagged_point(dated.data.scores[:, 0], dated.data.labels, capacity=42 * 364)
    assert f"is {point.threshold:.4g} (" in out


def test_duckdb_backend_gives_the_memory_record(capsys, tmp_path):
    import pandas as pd

    frame = pd.read_csv(sample_path("monitoring"), dtype={"label": str})
    frame.to_parquet(tmp_path / "m.parquet")
    args = ["monitor", str(tmp_path / "m.parquet"), "--threshold", "0.568", "--target", "0.3", "--json"]
    _, duck, _ = _run(capsys, *args, "--backend", "duckdb")
    _, memory, _ = _run(capsys, *args, "--backend", "memory")
    assert json.loads(duck) == json.loads(memory)


@pytest.mark.parametrize(
    "extra, message",
    [
        ([], "either --target M or --review-cost"),
        (["--target", "0.3", "--review-cost", "1", "--value-per-positive", "4"], "either --target M or"),
        (["--review-cost", "1"], "together"),
        (["--target", "0.3", "--reviewers", "2"], "--reviewers R and --reviews-per-day Q together"),
        (["--target", "0.3", "--by", "region"], "--by needs --reviewers"),
        (["--target", "0.3", "--date", "nope"], "date column 'nope' is not in the file"),
        (["--target", "0.3", "--window", "0"], "window must be"),
        (["--review-cost", "5", "--value-per-positive", "5"], "must exceed the review cost"),
    ],
)
def test_errors_are_one_line_and_exit_2(capsys, extra, message):
    code, out, err = _run(capsys, "monitor", "--sample", "monitoring", "--threshold", "0.568", *extra)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and message in err and err.count("\n") == 1 and "Traceback" not in err


def test_bad_dates_in_a_file_name_the_rows(capsys, tmp_path):
    (tmp_path / "r.csv").write_text("date,score,label\n2025-01-06,0.5,1\nyesterday,0.4,0\n")
    code, _, err = _run(capsys, "monitor", str(tmp_path / "r.csv"), "--threshold", "0.5", "--target", "0.3")
    assert code == 2 and "'yesterday' at row 2" in err


def test_every_argument_has_help_with_its_default():
    monitor_parser = _parser()._subparsers._group_actions[0].choices["monitor"]
    for action in monitor_parser._actions:
        if action.dest in ("help",):
            continue
        assert action.help, action.dest
        if action.option_strings and action.dest not in ("sample",):
            assert "default" in action.help or "required" in action.help, action.dest
