"""``opstudio batch``: expected-loss-optimal decisions for every batch of a file (Natarajan et al., ICML 2016).

FILE holds one row per item with a calibrated probability, optionally a batch id
(none = one batch), an item id and a label. The decisions file has one row per
input row, in input order, with ``batch``, ``decision`` (0/1) and ``k``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..io import load_batches
from ..reporting import csv_bytes
from ..setloss import LOSS_SPELLINGS, decide_batches, get_loss
from .common import add_source_arguments, print_json, print_table, source_path

__all__ = ["add_parser"]


def run_batch(args) -> int:
    loss = get_loss(args.loss)
    args.file = source_path(args)
    batches = load_batches(
        args.file, probability_col=args.prob, batch_col=args.batch, item_col=args.item, label_col=args.label
    )
    result = decide_batches(batches, loss)
    Path(args.out).write_bytes(csv_bytes(result.decisions))
    if args.json:
        print_json(
            {
                "file": str(args.file),
                "loss": loss.name,
                "items": batches.n_items,
                "flagged": int(result.decisions["decision"].sum()),
                "out": str(args.out),
                "warnings": list(batches.warnings),
                "batches": result.summary.to_dict(orient="records"),
            }
        )
        return 0
    print(
        f"{batches.name}: {batches.n_items:,} items in {len(batches.batch_names):,} batches; loss {loss.name}; "
        f"{int(result.decisions['decision'].sum()):,} flagged; decisions written to {args.out}"
    )
    for warning in batches.warnings:
        print(f"note: {warning}")
    print_table(result.summary)
    return 0


def add_parser(sub: argparse._SubParsersAction, name: str, help: str) -> None:
    """Add the command ``name`` to ``sub`` with its one-line ``help`` (from :data:`engine.cli.COMMANDS`)."""
    b = sub.add_parser(name, help=help)
    add_source_arguments(b, "CSV, CSV.gz or Parquet: one row per item")
    b.add_argument("--prob", help="probability column (default: detected)")
    b.add_argument("--batch", help="batch id column (default: detected; none = one batch)")
    b.add_argument("--item", help="item id column (default: detected), copied to the output")
    b.add_argument("--label", help="label column (optional): realised losses in the summary")
    b.add_argument("--loss", default="f1", help=", ".join(LOSS_SPELLINGS) + " (default f1)")
    b.add_argument("--out", required=True, help="decisions CSV to write")
    b.add_argument("--json", action="store_true", help="print the per-batch summary as JSON")
    b.set_defaults(func=run_batch)
