"""``opstudio qwyc fit|apply``: an early-exit policy for a user's model, and its application (Wang, Gupta & You, 2018).

    opstudio qwyc fit MODEL DATA (--alpha A | --max-disagreement D) [--neg-only] [--label COL] --policy-out policy.json
    opstudio qwyc apply MODEL DATA --policy policy.json --out decisions.csv

MODEL is a model file of any format in ``engine.io.MODEL_FORMATS`` (LightGBM text, XGBoost
JSON/UBJSON, scikit-learn skops); DATA a CSV/Parquet table with the model's feature columns
(found by name, other columns ignored).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..io import model_formats_sentence, read_source, read_table
from ..qwyc import apply_policy, decisions_frame, fit_policy, load_model, policy_json, read_policy
from ..reporting import csv_bytes
from .common import confined, print_json, sample_or_file

__all__ = ["add_parser"]


def _model(path: str):
    raw, name = read_source(confined(path))
    return load_model(raw, name=name)


def run_fit(args) -> int:
    model = _model(args.model)
    frame = read_table(sample_or_file(args.data, args.sample, "DATA")).frame
    fitted = fit_policy(
        model, frame, alpha=args.alpha, neg_only=args.neg_only, label=args.label, max_disagreement=args.max_disagreement
    )
    Path(args.policy_out).write_text(policy_json(fitted, model))
    print_json(
        {
            "model": model.name,
            "format": model.file_format,
            "trees": model.n_trees,
            "policy_out": args.policy_out,
            **fitted.stats,
        }
    )
    return 0


def run_apply(args) -> int:
    model = _model(args.model)
    frame = read_table(sample_or_file(args.data, args.sample, "DATA")).frame
    policy = read_policy(Path(confined(args.policy)).read_bytes(), model, name=Path(args.policy).name)
    decision, n_evaluated = apply_policy(policy, model, frame)
    Path(args.out).write_bytes(csv_bytes(decisions_frame(decision, n_evaluated)))
    print_json(
        {
            "model": model.name,
            "rows": int(decision.size),
            "positives": int(decision.sum()),
            "mean_trees": float(n_evaluated.mean()),
            "trees": model.n_trees,
            "out": args.out,
        }
    )
    return 0


def add_parser(sub: argparse._SubParsersAction, name: str, help: str) -> None:
    """Add the command ``name`` to ``sub`` with its one-line ``help`` (from :data:`engine.cli.COMMANDS`)."""
    q = sub.add_parser(name, help=help)
    qsub = q.add_subparsers(dest="qwyc_command", required=True)
    f = qsub.add_parser("fit", help="fit a QWYC* policy on every row of DATA")
    f.add_argument("model", help=f"model file: {model_formats_sentence()}")
    f.add_argument("data", nargs="?", help="CSV/Parquet with the model's feature columns (or --sample NAME)")
    f.add_argument("--sample", metavar="NAME", help="use a shipped sample as DATA (`opstudio samples` lists them)")
    budget = f.add_mutually_exclusive_group(required=True)
    budget.add_argument(
        "--alpha",
        type=float,
        help="allowed share of DATA's rows whose early decision differs from the full model (0.005 = 0.5 %%)",
    )
    budget.add_argument(
        "--max-disagreement",
        type=float,
        metavar="D",
        help="allowed share of NEW rows deciding unlike the full model (0.001 = 0.1 %%), held with "
        "95 %% confidence: thresholds fitted on 60 %% of DATA, margins calibrated on the rest",
    )
    f.add_argument("--neg-only", action="store_true", help="exit early on negatives only")
    f.add_argument("--label", help="label column (optional): accuracy reported")
    f.add_argument("--policy-out", required=True, metavar="PATH", help="policy JSON to write")
    f.set_defaults(func=run_fit)
    a = qsub.add_parser("apply", help="apply a policy: decisions and trees evaluated per row")
    a.add_argument("model", help=f"the model file the policy was fitted for: {model_formats_sentence()}")
    a.add_argument(
        "data", nargs="?", help="CSV/Parquet with the model's feature columns, one decision per row (or --sample NAME)"
    )
    a.add_argument("--sample", metavar="NAME", help="use a shipped sample as DATA (`opstudio samples` lists them)")
    a.add_argument("--policy", required=True, help="policy JSON written by 'opstudio qwyc fit'")
    a.add_argument("--out", required=True, help="decisions CSV to write (decision, n_evaluated)")
    a.set_defaults(func=run_apply)
