"""``opstudio constrain`` and ``opstudio predict``: a constrained linear model from a table, and its application.

Goh, Cotter, Gupta & Friedlander (NIPS 2016). Contract:

    opstudio constrain TABLE --label COL --group COL=VALUE [--reference VALUE]
        [--demographic-parity K] [--equal-opportunity K] [--max-churn R --deployed COL]
        [--min-recall R] [--max-coverage R] [--min-coverage R] [--exclude COL ...]
        [--test-fraction F] [--seed S] --model-out model.json --predictions-out pred.csv
    opstudio predict model.json TABLE --out pred.csv

Output CSVs have one row per input row, in input order, with ``score`` and ``decision`` (0/1).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from ..constraints import TableSpec, model_json, read_model_json, train_on_table
from ..errors import InputError
from ..io import read_table
from ..reporting import csv_bytes
from .common import confined, print_json, sample_or_file

__all__ = ["add_parser"]


def _group(text: str | None) -> tuple[str | None, str | None]:
    if text is None:
        return None, None
    column, sep, value = text.partition("=")
    if not sep or not column.strip():
        raise InputError(f"--group takes COL=VALUE (rows whose COL equals VALUE are the protected group); got {text!r}")
    return column.strip(), value.strip()


def _predictions(score, decision) -> bytes:
    return csv_bytes(pd.DataFrame({"score": score, "decision": decision}))


def run_constrain(args) -> int:
    group, value = _group(args.group)
    spec = TableSpec(
        label=args.label,
        group=group,
        group_value=value,
        reference_value=args.reference,
        deployed=args.deployed,
        exclude=tuple(args.exclude or ()),
        demographic_parity=args.demographic_parity,
        equal_opportunity=args.equal_opportunity,
        max_churn=args.max_churn,
        min_recall=args.min_recall,
        max_coverage=args.max_coverage,
        min_coverage=args.min_coverage,
        test_fraction=args.test_fraction,
        seed=args.seed,
    )
    frame = read_table(sample_or_file(args.table, args.sample, "TABLE")).frame
    model = train_on_table(frame, spec)
    Path(args.model_out).write_text(model_json(model))
    Path(args.predictions_out).write_bytes(_predictions(*model.decide(frame)))
    print_json(
        {
            "model_out": args.model_out,
            "predictions_out": args.predictions_out,
            "features": len(model.preprocessing.feature_names),
            "constraints": list(model.constraints),
            "flags_nobody": model.flags_nobody,
            **model.rates,
        }
    )
    return 0


def run_predict(args) -> int:
    model = read_model_json(Path(confined(args.model)).read_bytes(), name=f"model file '{Path(args.model).name}'")
    frame = read_table(sample_or_file(args.table, args.sample, "TABLE")).frame
    score, decision = model.decide(frame)
    Path(args.out).write_bytes(_predictions(score, decision))
    print_json({"rows": int(decision.size), "flagged": int(decision.sum()), "out": args.out})
    return 0


def add_parser(sub: argparse._SubParsersAction, name: str, help: str) -> None:
    """Add the command ``name`` to ``sub`` with its one-line ``help`` (from :data:`engine.cli.COMMANDS`)."""
    {"constrain": _constrain_arguments, "predict": _predict_arguments}[name](sub.add_parser(name, help=help))


def _constrain_arguments(c: argparse.ArgumentParser) -> None:
    c.add_argument(
        "table", nargs="?", help="CSV/Parquet: feature columns, a label column (empty = unlabelled); or --sample NAME"
    )
    c.add_argument(
        "--sample",
        metavar="NAME",
        help="use a shipped sample as TABLE (e.g. adult_table; `opstudio samples` lists them)",
    )
    c.add_argument("--label", required=True, metavar="COL", help="label column: 1/0, yes/no, >50K/<=50K ...")
    c.add_argument("--group", help="protected group as COL=VALUE")
    c.add_argument("--reference", help="reference group value (default: every other row)")
    c.add_argument(
        "--demographic-parity",
        type=float,
        metavar="K",
        help="positive rate(protected) >= K x positive rate(reference) on the training rows",
    )
    c.add_argument("--equal-opportunity", type=float, metavar="K", help="the same on true positive rates")
    c.add_argument("--max-churn", type=float, metavar="R", help="share of decisions differing from --deployed <= R")
    c.add_argument("--deployed", help="column of the deployed model's decisions (0/1)")
    c.add_argument(
        "--min-recall", type=float, metavar="R", help="recall (true positive rate) >= R on the training rows"
    )
    c.add_argument("--max-coverage", type=float, metavar="R", help="share of rows flagged <= R")
    c.add_argument("--min-coverage", type=float, metavar="R", help="share of rows flagged >= R")
    c.add_argument("--exclude", nargs="+", metavar="COL", help="columns that are not features")
    c.add_argument("--test-fraction", type=float, default=0.3, help="held-out share (0: train on every row)")
    c.add_argument("--seed", type=int, default=0, help="seed of the train/test split")
    c.add_argument("--model-out", required=True, metavar="PATH", help="model JSON to write (for 'opstudio predict')")
    c.add_argument(
        "--predictions-out",
        required=True,
        metavar="PATH",
        help="CSV to write: score and decision (0/1) for every row of TABLE, in order",
    )
    c.set_defaults(func=run_constrain)


def _predict_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", help="model JSON written by 'opstudio constrain --model-out'")
    p.add_argument("table", nargs="?", help="CSV/Parquet with the model's feature columns (or --sample NAME)")
    p.add_argument(
        "--sample",
        metavar="NAME",
        help="use a shipped sample as TABLE (e.g. adult_table; `opstudio samples` lists them)",
    )
    p.add_argument(
        "--out",
        required=True,
        metavar="PATH",
        help="CSV to write: score and decision (0/1) for every row of TABLE, in order",
    )
    p.set_defaults(func=run_predict)
