"""The command line explains itself: help with defaults and an example, --version, samples, --sample everywhere."""

import argparse
import json
import shlex

import pytest

from engine.cli import EXAMPLES, _parser, main
from engine.cli.samples import COMMANDS_OF_KIND
from engine.io import SAMPLES, load_rated, sample_path
from engine.pn import operating_point


def _commands(parser, path=()):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from _commands(child, (*path, name))


COMMANDS = dict(_commands(_parser()))
LEAVES = [
    path
    for path, p in COMMANDS.items()
    if path and not any(isinstance(a, argparse._SubParsersAction) for a in p._actions)
]


@pytest.mark.parametrize("path", list(COMMANDS), ids=lambda p: " ".join(p) or "opstudio")
def test_every_argument_has_help_and_every_option_its_default(path):
    parser = COMMANDS[path]
    text = parser.format_help()
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        assert action.help, f"{' '.join(path)} {action.option_strings or action.dest} has no help"
        if action.option_strings and not action.required and action.default is not argparse.SUPPRESS:
            shown = parser._get_formatter()._get_help_string(action)
            assert "default" in shown.lower(), f"{' '.join(path)} {action.option_strings} states no default"
    assert "example:" in text and "opstudio" in text.split("example:")[1]


@pytest.mark.parametrize("path", list(EXAMPLES), ids=lambda p: " ".join(p) or "opstudio")
def test_every_example_parses(path):
    for line in EXAMPLES[path].splitlines():
        words = shlex.split(line)
        assert words[0] == "opstudio"
        args = _parser().parse_args(words[1:])
        assert callable(args.func)


def test_every_command_has_an_example():
    assert set(LEAVES) <= set(EXAMPLES)


def test_defaults_are_shown_in_help(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["paths", "--help"])
    assert exit_.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "(default: 100)" in out and "(default: both)" in out and "(default: or)" in out


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("opstudio ") and out.split()[1][0].isdigit()


def test_samples_lists_every_sample_with_what_it_is_for(capsys):
    assert main(["samples"]) == 0
    lines = capsys.readouterr().out.splitlines()
    for key, sample in SAMPLES.items():
        line = next(x for x in lines if x.split() and x.split()[0] == key)
        said = line.split(f"{sample.title} — ", 1)[1]
        assert said == (f"for {COMMANDS_OF_KIND[sample.kind]}" if sample.kind else sample.description)
    assert main(["samples", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["samples"]
    assert [s["name"] for s in listed] == list(SAMPLES)


def test_unknown_sample_points_to_the_list(capsys):
    assert main(["sweep", "--sample", "nope", "--target", "0.3"]) == 2
    err = capsys.readouterr().err
    assert "unknown sample 'nope'" in err and "opstudio samples" in err and err.count("\n") == 1


def test_sample_is_accepted_by_constrain_and_predict(tmp_path, capsys):
    model, pred, again = tmp_path / "m.json", tmp_path / "p.csv", tmp_path / "q.csv"
    assert (
        main(
            [
                "constrain",
                "--sample",
                "adult_table",
                "--label",
                "income_over_50k",
                "--test-fraction",
                "0",
                "--model-out",
                str(model),
                "--predictions-out",
                str(pred),
            ]
        )
        == 0
    )
    assert main(["predict", str(model), "--sample", "adult_table", "--out", str(again)]) == 0
    assert pred.read_bytes() == again.read_bytes()
    capsys.readouterr()
    assert main(["predict", str(model), "--out", str(again)]) == 2
    assert "give either TABLE or --sample NAME" in capsys.readouterr().err


def test_qwyc_takes_a_sample_as_data():
    args = _parser().parse_args(
        ["qwyc", "fit", "model.txt", "--sample", "adult_table", "--alpha", "0.01", "--policy-out", "p.json"]
    )
    assert args.data is None and args.sample == "adult_table"


def test_label_is_honoured_and_the_message_names_value_and_row(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("doc,score,answer\n1,0.9,yes\n2,0.8,no\n3,0.7,maybe\n4,0.6,no\n")
    for command in (
        ["sweep", str(bad), "--target", "0.3"],
        ["sweep", str(bad), "--target", "0.3", "--by", "doc"],
        ["paths", str(bad), "--target", "0.3", "--backend", "memory"],
    ):
        assert (
            main(
                [*command, "--label", "answer", "--backend", "memory"]
                if command[0] == "sweep" and "--by" not in command
                else [*command, "--label", "answer"]
            )
            == 2
        )
        err = capsys.readouterr().err
        assert "Column 'answer': unknown label values 'maybe' at row 3" in err, err


def test_classifier_is_honoured(tmp_path, capsys):
    assert main(["sweep", "--sample", "synthetic", "--classifier", "score_text", "--target", "0.3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    d = load_rated(sample_path("synthetic"))
    assert (
        out["operating_points"][0]["threshold"]
        == operating_point(d.column("score_text"), d.labels, 0.3, d.weights).threshold
    )


#: the smallest call of each command the listing names, on a sample given as --sample NAME
CALLS = {
    "sweep": ["sweep"],
    "paths (two or more classifiers)": ["paths", "--target", "0.3"],
    "monitor": ["monitor", "--threshold", "0.5", "--target", "0.3"],
    "paths": ["paths", "--target", "0.3"],
    "batch": ["batch", "--loss", "fbeta:1", "--out", "decisions.csv"],
    "audit plan": [
        "audit",
        "plan",
        "--score",
        "score",
        "--id",
        "doc_id",
        "--below",
        "0.9",
        "--budget",
        "50",
        "--out",
        "plan.csv",
    ],
}


@pytest.mark.parametrize("kind", ["rated", "dated", "counts", "batches", "population"])
def test_every_command_the_list_names_for_a_kind_reads_every_sample_of_that_kind(kind, tmp_path, monkeypatch, capsys):
    """The list said 'monitor' for rated samples, which have no dates (exit 2), and nothing for the dated one."""
    monkeypatch.chdir(tmp_path)  # audit plan writes its plan here
    for name in (n for n, s in SAMPLES.items() if s.kind == kind):
        for command in COMMANDS_OF_KIND[kind].split(", "):
            if command.startswith(
                "audit estimate "
            ):  # read beside the other input: tests/engine/cli/test_audit_commands.py
                continue
            call = CALLS[command]  # a command the list names must be one this test runs
            if command.startswith("paths (") and load_rated(sample_path(name)).n_classifiers < 2:
                continue  # the list says it: paths compares two or more classifiers
            code = main([*call, "--sample", name])
            assert code == 0, (name, command, capsys.readouterr().err)
