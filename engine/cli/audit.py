"""``opstudio audit plan`` and ``opstudio audit estimate``: below-the-line audits.

``plan`` draws a stratified random sample of the documents below the review line (any
backend: memory, DuckDB, Spark) and writes the plan file for the reviewers (``--out plan.csv``)
and its design record beside it (``plan.json``); ``estimate`` reads the reviewed plan, its design
record (beside it, or ``--design``) and the rated data above the line, refuses them unless they
are what the plan was made for, and prints how many positives are missed below the line, with
intervals (Cochran 1977; :mod:`engine.audit`).
"""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path

from ..audit import (
    ALLOCATIONS,
    MAX_STRATA,
    METHODS,
    SPACINGS,
    audit_headlines,
    audit_sentence,
    audits_for_half_width,
    design_json,
    design_path,
    design_record,
    estimate,
    half_width_after,
    load_audit,
    plan,
)
from ..backends import BACKENDS, open_population
from ..errors import InputError
from ..io import SAMPLES, load_rated, sample_path
from .common import print_json

__all__ = ["add_parser"]


def _file_or_sample(value: str) -> str:
    """A path, or a shipped sample's path when ``value`` is a sample key and no such file exists."""
    if not os.path.exists(value) and value in SAMPLES:
        return str(sample_path(value))
    return value


def _design_out(out: str) -> Path:
    """The design record's path beside ``--out`` (plan.csv -> plan.json); a .json ``--out`` is refused."""
    if str(out).lower().endswith(".json"):
        raise InputError(
            f"--out {out!r} is a .json name: write the plan to a .csv file (its design record goes beside it, "
            "plan.csv -> plan.json)"
        )
    return design_path(out)


def run_plan(args) -> int:
    if (args.population is None) == (args.sample is None):
        raise InputError("give either POPULATION or --sample NAME (samples: " + ", ".join(SAMPLES) + ")")
    source = args.population if args.sample is None else _file_or_sample(args.sample)
    if args.sample is not None and args.sample not in SAMPLES:
        raise InputError(f"unknown sample {args.sample!r}; samples: {', '.join(SAMPLES)}")
    design_out = _design_out(args.out)
    pilot = load_audit(_file_or_sample(args.pilot)) if args.pilot else None
    scan = open_population(
        source,
        id=args.id,
        score=args.score,
        prior=args.prior,
        backend=args.backend,
        table=args.table,
        spark_remote=args.spark_remote,
    )
    result = plan(
        scan,
        below=args.below,
        budget=args.budget,
        half_width=args.half_width,
        strata=args.strata,
        allocation=args.allocation,
        spacing=args.spacing,
        pilot=pilot,
        prior_column=args.prior,
        seed=args.seed,
        level=args.level,
    )
    Path(args.out).write_bytes(result.csv())
    design_out.write_bytes(design_json(design_record(result)))
    if args.json:
        print_json({"out": str(args.out), "design": str(design_out), **result.as_dict()})
        return 0
    print(result.sentence())
    print(f"{'stratum':>7} {'scores':>27} {'documents':>12} {'sample':>8}")
    for s in reversed(result.strata):
        print(f"{s.stratum:7d} {f'[{s.lower:.6g}, {s.upper:.6g})':>27} {s.documents:12,d} {s.sample:8,d}")
    for warning in result.warnings:
        print(f"warning: {warning}")
    print(f"plan written to {args.out} ({result.budget:,} documents; fill in the 'label' column)")
    print(f"design record written to {design_out} (keep it with the plan: the estimate needs it)")
    return 0


def _count(x: float) -> str:
    return f"{x:,.1f}"


def _share(x: float) -> str:
    return "–" if math.isnan(x) else f"{x:.1%}"


def _interval(iv, fmt=_count, empty: str = "") -> str:
    """``estimate [lower, upper]``; a quantity that does not exist (nothing flagged) says so."""
    if math.isnan(iv.estimate) and math.isnan(iv.lower):
        return f"– ({empty})" if empty else "–"
    return f"{fmt(iv.estimate)} [{fmt(iv.lower)}, {fmt(iv.upper)}]"


def _reviewed(args):
    """The reviewed plan with its design record: --design, else the record beside it (reviewed.csv -> reviewed.json)."""
    path = _file_or_sample(args.audit)
    audit = load_audit(path, design=args.design)
    if audit.design is None:
        raise InputError(
            f"No design record beside the reviewed plan (looked for '{design_path(path)}'): 'opstudio audit plan "
            "--out plan.csv' writes plan.json beside plan.csv. Give it with --design FILE."
        )
    return audit


def run_estimate(args) -> int:
    rated = load_rated(_file_or_sample(args.rated))
    audit = _reviewed(args)
    result = estimate(
        rated,
        audit,
        classifier=args.classifier,
        level=args.level,
        thresholds=args.threshold or [],
        method=args.method,
    )
    # follow-ups are computed before anything is printed: a bad --more is one line on stderr, nothing else
    more = half_width_after(result, args.more) if args.more is not None else None
    want = audits_for_half_width(result, args.want_half_width) if args.want_half_width is not None else None
    if args.json:
        print_json(result.as_dict())
        return 0
    print(audit_sentence(result))
    print(f"above the line: TP {result.above.tp:,.6g}, FP {result.above.fp:,.6g} ({result.unrated:,} unrated rows)")
    found = result.positives_found
    print(
        f"below the line: {result.documents_below:,} documents, {result.audited:,} reviewed, {found:,} "
        f"positive{'' if found == 1 else 's'} found ({result.method} interval)"
    )
    for headline in audit_headlines(result)[:3]:
        print(f"{headline.label.lower()}: {headline.value} ({headline.caption})")
    for th in result.thresholds:
        print(
            f"threshold {th.threshold:.6g}: TP {_interval(th.tp)}, FP {_interval(th.fp)}, precision "
            f"{_interval(th.precision, _share, 'nothing flagged')}, recall {_interval(th.recall, _share, 'no positive')}"
        )
    for follow in (more, want):
        if follow is not None:
            print(follow.sentence())
    for warning in result.warnings:
        print(f"warning: {warning}")
    return 0


def _add_plan(sub) -> None:
    p = sub.add_parser("plan", help="draw a stratified random sample of the documents below the review line")
    p.add_argument(
        "population",
        nargs="?",
        help="every scored document (flagged or not): a Parquet / CSV path or "
        "glob, a DuckDB database file (with --table), or a Spark catalog "
        "table (with --backend spark)",
    )
    p.add_argument("--sample", help="use a shipped population sample instead (e.g. satimage_population)")
    p.add_argument("--score", required=True, help="score column (the review line is a threshold on it)")
    p.add_argument("--id", required=True, help="unique document id column (whole numbers or text)")
    p.add_argument(
        "--below",
        type=float,
        required=True,
        metavar="T",
        help="the review threshold: documents with score < T are audited",
    )
    size = p.add_mutually_exclusive_group(required=True)
    size.add_argument("--budget", type=int, metavar="N", help="documents to review")
    size.add_argument(
        "--half-width",
        type=float,
        metavar="W",
        help="instead of --budget: the smallest budget expected to give an interval of the missed "
        "positives of ±W (needs --prior or --pilot)",
    )
    p.add_argument("--strata", type=int, default=6, metavar="K", help=f"score strata, 1 to {MAX_STRATA} (default 6)")
    p.add_argument(
        "--allocation",
        choices=ALLOCATIONS,
        help="sample sizes per stratum (default: neyman with --prior or --pilot, else proportional)",
    )
    p.add_argument(
        "--spacing",
        choices=SPACINGS,
        default="geometric",
        help="geometric: strata halve towards the line; quantile: equal-count strata (default geometric)",
    )
    p.add_argument(
        "--prior",
        metavar="COL",
        help="prior probability column (anticipated prevalences for Neyman "
        "allocation and the expected half-width; default none)",
    )
    p.add_argument(
        "--pilot", metavar="AUDIT", help="an earlier reviewed audit (its prevalences, like --prior; default none)"
    )
    p.add_argument(
        "--seed",
        type=int,
        default=0,
        help="selection seed: the same seed selects the same documents on every backend (default 0)",
    )
    p.add_argument("--level", type=float, default=0.95, help="level of the planned interval (default 0.95)")
    p.add_argument(
        "--backend",
        choices=BACKENDS,
        default="auto",
        help="where the population is read: memory, duckdb (out of core; paths, globs or --table), spark "
        "(local or --spark-remote), auto (duckdb for globs, tables and files over 100 MB; default)",
    )
    p.add_argument(
        "--spark-remote", metavar="URL", help="with --backend spark: a Spark Connect URL (default: a local session)"
    )
    p.add_argument("--table", help="with a DuckDB database file: the table holding the population (default none)")
    p.add_argument(
        "--out",
        required=True,
        help="where to write the plan CSV (one row per document to review); its design record is written beside "
        "it (plan.csv -> plan.json)",
    )
    p.add_argument("--json", action="store_true", help="print the design as JSON (default: a summary)")
    p.set_defaults(func=run_plan)


def _add_estimate(sub) -> None:
    e = sub.add_parser("estimate", help="positives missed below the line, all positives and recall, with intervals")
    e.add_argument(
        "--rated", required=True, help="rated data above the line (CSV, CSV.gz or Parquet; or a shipped sample's name)"
    )
    e.add_argument("--audit", required=True, help="the plan file with 'label' filled in (or a shipped sample's name)")
    e.add_argument(
        "--design",
        metavar="PLAN_JSON",
        help="the plan's design record (default: beside the reviewed plan, reviewed.csv -> reviewed.json)",
    )
    e.add_argument("--classifier", help="score column of the rated data the audit was planned on (default: the first)")
    e.add_argument("--level", type=float, default=0.95, help="interval level (default 0.95)")
    e.add_argument(
        "--threshold",
        type=float,
        action="append",
        metavar="t",
        help="also estimate TP, FP, precision and recall at t (above or below the line); repeat for "
        "several (default none)",
    )
    e.add_argument(
        "--method",
        choices=METHODS,
        default=METHODS[0],
        help=f"interval of the positives below the line (default {METHODS[0]})",
    )
    e.add_argument(
        "--more",
        type=int,
        metavar="N",
        help="also say how far N more audited documents would shrink the interval (default none)",
    )
    e.add_argument(
        "--want-half-width",
        type=float,
        metavar="W",
        help="also say how many more audited documents would bring the interval to ±W (default none)",
    )
    e.add_argument("--json", action="store_true", help="print the estimate as JSON (default: sentences)")
    e.set_defaults(func=run_estimate)


def add_parser(sub: argparse._SubParsersAction, name: str, help: str) -> None:
    """Add the command ``name`` to ``sub`` with its one-line ``help`` (from :data:`engine.cli.COMMANDS`)."""
    a = sub.add_parser(name, help=help)
    commands = a.add_subparsers(dest="audit_command", required=True)
    _add_plan(commands)
    _add_estimate(commands)
