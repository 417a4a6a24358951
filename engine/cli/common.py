"""What every ``opstudio`` command shares: JSON output and table printing."""

from __future__ import annotations

import json

import pandas as pd

from ..reporting import json_safe

__all__ = ["print_json", "print_table", "add_source_arguments", "source_path"]


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
