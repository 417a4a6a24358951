"""What every ``opstudio`` command shares: JSON output, table printing, sources and help."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pandas is imported where a table is printed: `opstudio --help` must not import it
    import pandas as pd

__all__ = [
    "print_json",
    "print_table",
    "add_source_arguments",
    "source_path",
    "HelpFormatter",
    "OneLineParser",
    "explain",
    "sample_names",
    "sample_or_file",
    "confined",
    "add_money_arguments",
    "economics_of",
    "money_json",
]


def print_json(payload: dict | list) -> None:
    """Print a JSON record (inf/NaN as null, numpy values as Python numbers)."""
    from ..reporting import json_safe  # imported here: `opstudio --help` must not import pandas

    print(json.dumps(json_safe(payload), indent=2))


def print_table(table: pd.DataFrame, transpose_on: str | None = None) -> None:
    """Print an engine table as the dashboard shows it (:func:`engine.presentation.present_table`); ``--json``
    gives the full precision. A table wider than ``WIDE_COLUMNS`` with a ``transpose_on`` column is printed
    one quantity per row."""
    import pandas as pd

    from ..presentation import WIDE_COLUMNS, present_table

    if transpose_on is not None and table.shape[1] <= WIDE_COLUMNS:
        transpose_on = None
    table = present_table(table, transpose_on=transpose_on)

    with pd.option_context("display.width", 250, "display.max_columns", 40, "display.max_colwidth", 80):
        print(table.to_string(index=False))


def add_source_arguments(parser, what: str) -> None:
    """FILE, or ``--sample NAME`` for a shipped sample (found inside the installation)."""
    parser.add_argument("file", nargs="?", help=what + " (or --sample NAME)")
    parser.add_argument(
        "--sample", metavar="NAME", help="use a shipped sample instead of FILE (`opstudio samples` lists them)"
    )


def sample_names() -> str:
    """The shipped samples' names, comma-separated (for help texts and errors)."""
    from ..io import SAMPLES

    return ", ".join(SAMPLES)


def confined(path: str) -> str:
    """``path``, once every file it names (a path or a glob) is found inside ``OPSTUDIO_DATA_ROOTS`` when that is set.

    The command line reads only inside the folders a server's dashboard reads
    (:mod:`engine.backends._confine`): symbolic links resolved, one message for a path outside whether it
    exists or not. Checked before anything else touches the path (choosing a backend stats the file).

    Parameters
    ----------
    path : str
        A file or glob given on the command line.

    Returns
    -------
    str
        ``path`` unchanged.

    Raises
    ------
    InputError
        A file outside the folders (or linking out of them), or a missing file inside them.
    """
    from ..backends import confined_path

    return confined_path(path)


def sample_or_file(file: str | None, sample: str | None, what: str = "FILE") -> str:
    """The path of ``file`` (checked by :func:`confined`) or of the shipped sample ``sample`` (exactly one of them
    given)."""
    from ..errors import InputError
    from ..io import SAMPLES, sample_path

    if (file is None) == (sample is None):
        raise InputError(f"give either {what} or --sample NAME (samples: {sample_names()})")
    if sample is not None:
        if sample not in SAMPLES:
            raise InputError(
                f"unknown sample {sample!r}; samples: {sample_names()} (`opstudio samples` says what each is for)"
            )
        return str(sample_path(sample))
    return confined(file)  # type: ignore[arg-type]


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Help that keeps the examples' line breaks and states every option's default.

    An option's help gets ``(default: X)`` appended unless it already mentions its default or
    is required; ``none`` for an option without a value and ``off`` for a switch.
    """

    def _get_help_string(self, action):
        text = action.help or ""
        default = action.default
        if (
            default is argparse.SUPPRESS
            or action.required
            or "default" in text.lower()
            or not action.option_strings
            or isinstance(action, argparse._VersionAction)
        ):
            return text
        if default is None or default is False:
            return f"{text} (default: {'off' if default is False else 'none'})".strip()
        if isinstance(default, (list, tuple)):
            default = " ".join(map(str, default))
        return f"{text} (default: {str(default).replace('%', '%%')})".strip()


class OneLineParser(argparse.ArgumentParser):
    """Bad arguments as one line on stderr and exit status 2, like the engine's input errors.

    Sub-commands' parsers are of the same class (argparse's default), so every command answers alike.
    """

    def error(self, message: str):
        self.exit(2, f"error: {self.prog}: {message} (see {self.prog} --help)\n")


def explain(parser: argparse.ArgumentParser, examples: dict, path: tuple = ()) -> None:
    """Give ``parser`` and every sub-command the :class:`HelpFormatter` and their example.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The program's parser; its sub-commands are reached recursively.
    examples : dict of tuple of str to str
        Example command lines by command path (``("qwyc", "fit")``); shown under the help.
    path : tuple of str
        The command path of ``parser`` (empty for the program).
    """
    parser.formatter_class = HelpFormatter
    if path in examples:
        parser.epilog = "example:\n  " + examples[path].replace("\n", "\n  ")
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                explain(child, examples, (*path, name))


def source_path(args) -> str:
    """The file a command reads: FILE or the shipped sample's path."""
    return sample_or_file(args.file, args.sample)


def add_money_arguments(parser) -> None:
    """``--review-cost C --value-per-positive V [--cost-per-false-positive F] [--currency S]``: a target from money."""
    parser.add_argument(
        "--review-cost",
        type=float,
        help="C: cost of reviewing one document (with --value-per-positive instead of --target; no default)",
    )
    parser.add_argument("--value-per-positive", type=float, help="V: value of one caught positive (no default)")
    parser.add_argument(
        "--cost-per-false-positive", type=float, help="F: cost of a false positive beyond its review (default 0)"
    )
    parser.add_argument("--currency", default="", help="prefix of amounts in the text output, e.g. '$' (default none)")


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
        raise InputError(
            "give either --target M or --review-cost C --value-per-positive V (the target is then their "
            "break-even marginal precision (C + F) / (V + F)), not both"
        )
    if money[0] is None:
        return None
    return Economics(args.review_cost, args.value_per_positive, args.cost_per_false_positive or 0.0)


def money_json(economics, tp: float, fp: float, marginal_precision: float, days: float | None = None) -> dict:
    """The amounts, the break-even target and a point's money (value caught, costs, net, last document's value).

    The amount C is ``cost_per_review``; ``review_cost`` is what reviewing the flagged documents costs, C·(TP + FP).
    """
    from ..pn import money_statement

    return {
        "cost_per_review": economics.review_cost,
        "value_per_positive": economics.value_per_positive,
        "cost_per_false_positive": economics.cost_per_false_positive,
        "target": economics.target,
        **money_statement(tp, fp, economics, days=days, marginal_precision=marginal_precision).as_dict(),
    }
