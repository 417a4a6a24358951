"""What every ``opstudio`` command shares: JSON output and table printing."""

from __future__ import annotations

import json

import pandas as pd

from ..reporting import json_safe

__all__ = ["print_json", "print_table", "add_source_arguments", "source_path", "add_money_arguments", "economics_of",
           "money_json"]


def print_json(payload: dict) -> None:
    """Print a JSON record (inf/NaN as null, numpy values as Python numbers)."""
    print(json.dumps(json_safe(payload), indent=2))


def print_table(table: pd.DataFrame) -> None:
    with pd.option_context("display.width", 200, "display.max_columns", 40, "display.float_format", "{:.6g}".format):
        print(table.to_string(index=False))


def add_source_arguments(parser, what: str) -> None:
    """FILE, or ``--sample NAME`` for a shipped sample (found inside the installation)."""
    parser.add_argument("file", nargs="?", help=what)
    parser.add_argument("--sample", help="use a shipped sample instead of FILE (e.g. synthetic, bank, bank_batches)")


def source_path(args) -> str:
    """The file a command reads: FILE or the shipped sample's path."""
    from ..errors import InputError
    from ..io import SAMPLES, sample_path

    if (args.file is None) == (args.sample is None):
        raise InputError("give either FILE or --sample NAME (samples: " + ", ".join(SAMPLES) + ")")
    if args.sample is not None:
        if args.sample not in SAMPLES:
            raise InputError(f"unknown sample {args.sample!r}; samples: {', '.join(SAMPLES)}")
        return str(sample_path(args.sample))
    return args.file


def add_money_arguments(parser) -> None:
    """``--review-cost C --value-per-positive V [--cost-per-false-positive F] [--currency S]``: a target from money."""
    parser.add_argument("--review-cost", type=float, help="C: cost of reviewing one document (with "
                                                          "--value-per-positive instead of --target; no default)")
    parser.add_argument("--value-per-positive", type=float, help="V: value of one caught positive (no default)")
    parser.add_argument("--cost-per-false-positive", type=float, help="F: cost of a false positive beyond its review "
                                                                      "(default 0)")
    parser.add_argument("--currency", default="", help="prefix of amounts in the text output, e.g. '$' "
                                                       "(default none)")


def economics_of(args, target_given: bool):
    """The :class:`engine.pn.Economics` of the money flags, or None; exactly one of a target and the money.

    Parameters
    ----------
    args : argparse.Namespace
        With ``review_cost``, ``value_per_positive``, ``cost_per_false_positive``.
    target_given : bool
        Whether ``--target`` was given.

    Returns
    -------
    Economics or None
    """
    from ..errors import InputError
    from ..pn import Economics

    money = (args.review_cost, args.value_per_positive)
    if args.cost_per_false_positive is not None and None in money:
        raise InputError("--cost-per-false-positive needs --review-cost and --value-per-positive")
    if (money[0] is None) != (money[1] is None):
        raise InputError("give --review-cost and --value-per-positive together")
    if target_given and money[0] is not None:
        raise InputError("give either --target M or --review-cost C --value-per-positive V (the target is then their "
                         "break-even marginal precision (C + F) / (V + F)), not both")
    if money[0] is None:
        return None
    return Economics(args.review_cost, args.value_per_positive, args.cost_per_false_positive or 0.0)


def money_json(economics, tp: float, fp: float, marginal_precision: float) -> dict:
    """The amounts, the break-even target and a point's money (value caught, costs, net, last document's value)."""
    from ..pn import money_statement

    return {"review_cost": economics.review_cost, "value_per_positive": economics.value_per_positive,
            "cost_per_false_positive": economics.cost_per_false_positive, "target": economics.target,
            **money_statement(tp, fp, economics, marginal_precision=marginal_precision).as_dict()}
