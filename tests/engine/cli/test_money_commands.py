"""Money and reviewers on ``opstudio sweep`` and ``paths``: the same points as the equivalent target or capacity."""

import json

import pytest

from engine.cli import main
from engine.io import sample_path
from engine.monitor import load_dated
from engine.pn import Economics
from engine.pn.display import money_statement

SYNTHETIC, MONITORING = str(sample_path("synthetic")), str(sample_path("monitoring"))
MONEY = ["--review-cost", "2", "--value-per-positive", "9", "--cost-per-false-positive", "1"]  # m = 3 / 10


def run(capsys, *args):
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_sweep_money_is_the_sweep_at_its_break_even_target_and_states_the_money(capsys):
    money = run(capsys, "sweep", SYNTHETIC, *MONEY)
    target = run(capsys, "sweep", SYNTHETIC, "--target", "0.3")
    assert money["operating_points"] == target["operating_points"]
    p = target["operating_points"][0]
    statement = money_statement(p["tp"], p["fp"], Economics(2, 9, 1), marginal_precision=p["marginal_precision_above"])
    assert money["money"]["target"] == pytest.approx(0.3)
    assert money["money"]["net_value"] == pytest.approx(9 * p["tp"] - 2 * (p["tp"] + p["fp"]) - p["fp"])
    assert money["money"]["last_document_value"] == pytest.approx(statement.last_document_value)


def test_sweep_by_segment_with_money_is_the_allocation_at_the_target(capsys):
    money = run(capsys, "sweep", SYNTHETIC, "--by", "region", *MONEY)
    target = run(capsys, "sweep", SYNTHETIC, "--by", "region", "--target", "0.3")
    assert money["segments"] == target["segments"] and money["total"] == target["total"]
    assert money["money"]["value_caught"] == pytest.approx(9 * target["total"]["tp"])


def test_reviewers_are_the_capacity_of_their_days(capsys):
    days = load_dated(MONITORING).days
    assert days == 364
    reviewers = run(capsys, "sweep", MONITORING, "--reviewers", "2", "--reviews-per-day", "20")
    capacity = run(capsys, "sweep", MONITORING, "--capacity", str(2 * 20 * days))
    assert {k: reviewers[k] for k in ("threshold", "tp", "fp", "flagged")} == {
        k: capacity[k] for k in ("threshold", "tp", "fp", "flagged")
    }
    assert reviewers["reviewers"] == {
        "reviewers": 2,
        "reviews_per_day": 20,
        "capacity_per_day": 40,
        "days": 364,
        "capacity": 2 * 20 * 364,
    }
    by = run(capsys, "sweep", MONITORING, "--reviewers", "2", "--reviews-per-day", "20", "--by", "region")
    assert by["segments"] == run(capsys, "sweep", MONITORING, "--capacity", "14560", "--by", "region")["segments"]


def test_paths_money_is_the_paths_at_the_break_even_target(capsys):
    money = run(capsys, "paths", SYNTHETIC, "--bins", "30", *MONEY)
    target = run(capsys, "paths", SYNTHETIC, "--bins", "30", "--target", "0.3")
    assert money["target"] == pytest.approx(0.3)
    for m, t in zip(money["paths"], target["paths"]):
        assert m["operating_point"] == t["operating_point"]
        tp, fp = t["operating_point"]["tp"], t["operating_point"]["fp"]
        assert m["money"]["net_value"] == pytest.approx(9 * tp - 2 * (tp + fp) - fp)


def test_text_output_states_the_money_and_the_reviewers(capsys):
    assert main(["sweep", SYNTHETIC, *MONEY, "--currency", "$"]) == 0
    out = capsys.readouterr().out
    assert "m = (C + F) / (V + F) = (2 + 1) / (9 + 1) = 0.3" in out and "true positives caught are worth $" in out
    assert main(["sweep", MONITORING, "--reviewers", "2", "--reviews-per-day", "20"]) == 0
    assert "2 reviewers × 20 reviews a day × 364 days the ratings cover = 14,560 reviews" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args, message",
    [
        (["sweep", SYNTHETIC, "--target", "0.3", *MONEY], "not both"),
        (["sweep", SYNTHETIC, "--capacity", "100", *MONEY], "give one budget"),
        (["sweep", MONITORING, "--reviewers", "2"], "--reviews-per-day Q together"),
        (["sweep", MONITORING, "--date", "date"], "--date is for --reviewers"),
        (["sweep", SYNTHETIC, "--reviewers", "2", "--reviews-per-day", "5"], "No date column"),
        (["sweep", SYNTHETIC, "--review-cost", "5", "--value-per-positive", "4"], "must exceed the review cost"),
        (["paths", SYNTHETIC], "either --target M or --review-cost"),
        (["paths", SYNTHETIC, "--review-cost", "1"], "together"),
    ],
)
def test_bad_combinations_exit_2_with_one_line(capsys, args, message):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
