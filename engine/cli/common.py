"""What every ``opstudio`` command shares: JSON output, table printing, sources and help."""

from __future__ import annotations

import argparse
import json

import pandas as pd

from ..reporting import json_safe

__all__ = ["print_json", "print_table", "add_source_arguments", "source_path", "HelpFormatter", "explain",
           "sample_names", "sample_or_file"]


def print_json(payload: dict) -> None:
    """Print a JSON record (inf/NaN as null, numpy values as Python numbers)."""
    print(json.dumps(json_safe(payload), indent=2))


def print_table(table: pd.DataFrame, transpose_on: str | None = None) -> None:
    """Print an engine table as the dashboard shows it (:func:`engine.presentation.present_table`); ``--json``
    gives the full precision. A table wider than ``WIDE_COLUMNS`` with a ``transpose_on`` column is printed
    one quantity per row."""
    from ..presentation import WIDE_COLUMNS, present_table

    if transpose_on is not None and table.shape[1] <= WIDE_COLUMNS:
        transpose_on = None
    table = present_table(table, transpose_on=transpose_on)

    with pd.option_context("display.width", 250, "display.max_columns", 40, "display.max_colwidth", 80):
        print(table.to_string(index=False))


def add_source_arguments(parser, what: str) -> None:
    """FILE, or ``--sample NAME`` for a shipped sample (found inside the installation)."""
    parser.add_argument("file", nargs="?", help=what + " (or --sample NAME)")
    parser.add_argument("--sample", metavar="NAME",
                        help="use a shipped sample instead of FILE (`opstudio samples` lists them)")


def sample_names() -> str:
    """The shipped samples' names, comma-separated (for help texts and errors)."""
    from ..io import SAMPLES

    return ", ".join(SAMPLES)


def sample_or_file(file: str | None, sample: str | None, what: str = "FILE") -> str:
    """The path of ``file`` or of the shipped sample ``sample`` (exactly one of them given)."""
    from ..errors import InputError
    from ..io import SAMPLES, sample_path

    if (file is None) == (sample is None):
        raise InputError(f"give either {what} or --sample NAME (samples: {sample_names()})")
    if sample is not None:
        if sample not in SAMPLES:
            raise InputError(f"unknown sample {sample!r}; samples: {sample_names()} (`opstudio samples` says what "
                             "each is for)")
        return str(sample_path(sample))
    return file


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Help that keeps the examples' line breaks and states every option's default.

    An option's help gets ``(default: X)`` appended unless it already mentions its default or
    is required; ``none`` for an option without a value and ``off`` for a switch.
    """

    def _get_help_string(self, action):
        text = action.help or ""
        default = action.default
        if default is argparse.SUPPRESS or action.required or "default" in text.lower() \
                or not action.option_strings or isinstance(action, argparse._VersionAction):
            return text
        if default is None or default is False:
            return f"{text} (default: {'off' if default is False else 'none'})".strip()
        if isinstance(default, (list, tuple)):
            default = " ".join(map(str, default))
        return f"{text} (default: {str(default).replace('%', '%%')})".strip()


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
