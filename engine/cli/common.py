"""What every ``opstudio`` command shares: JSON output and table printing."""

from __future__ import annotations

import json

import pandas as pd

from ..reporting import json_safe

__all__ = ["print_json", "print_table"]


def print_json(payload: dict) -> None:
    """Print a JSON record (inf/NaN as null, numpy values as Python numbers)."""
    print(json.dumps(json_safe(payload), indent=2))


def print_table(table: pd.DataFrame) -> None:
    with pd.option_context("display.width", 200, "display.max_columns", 40, "display.float_format", "{:.6g}".format):
        print(table.to_string(index=False))
