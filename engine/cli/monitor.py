"""``opstudio monitor``: the deployed operating point period by period, in money and in reviewers.

opstudio monitor FILE --classifier COL --date COL [--period day|week|month] --threshold T
    (--target M | --review-cost C --value-per-positive V [--cost-per-false-positive F])
opstudio monitor FILE --date COL --decision ID [--as EMAIL] ...  (a deployed decision's threshold and target;
    the alerts are stored on it)
    [--level 0.95] [--window K] [--reviewers R --reviews-per-day Q [--by COL]] [--json]
"""

from __future__ import annotations

import argparse
import math

from ..backends import DATA_SOURCES, choose_backend, dated_counts, period_backends
from ..errors import InputError
from ..monitor import (
    DEFAULT_WINDOW,
    PERIODS,
    capacity_per_day,
    capacity_segments,
    monitor,
    monitoring_sentence,
    reviewer_plan,
)
from ..pn import Economics, target_text
from .acting import add_monitor_arguments, monitor_decision, store_monitoring
from .common import (
    add_money_arguments,
    add_source_arguments,
    economics_of,
    money_json,
    print_json,
    print_table,
    source_path,
)

__all__ = ["add_parser"]


def _economics(args) -> Economics | None:
    economics = economics_of(args, args.target is not None)
    if args.target is None and economics is None:
        raise InputError(
            "give either --target M or --review-cost C --value-per-positive V (the target is then "
            "their break-even marginal precision (C + F) / (V + F))"
        )
    return economics


def _check_reviewer_args(args, backend: str) -> None:
    if (args.reviewers is None) != (args.reviews_per_day is None):
        raise InputError("give --reviewers R and --reviews-per-day Q together (capacity R·Q reviews per day)")
    if args.reviewers is not None:
        capacity_per_day(args.reviewers, args.reviews_per_day)  # 0, negative, nan, inf refused before anything is read
    if args.by is not None and args.reviewers is None:
        raise InputError("--by needs --reviewers and --reviews-per-day (per-segment thresholds for that capacity)")
    if args.reviewers is not None and not DATA_SOURCES[backend].rows_in_memory:
        raise InputError(
            "--reviewers needs the rows in memory (daily backlog, capacity allocation); use --backend memory"
        )


def _reviewers(args, dated, threshold: float):
    """The team against the threshold, and with --by the per-segment allocation of its capacity (or None)."""
    scores, dates = dated.data.scores[:, 0], dated.dates
    team = reviewer_plan(
        scores, dated.data.labels, dates, threshold, reviewers=args.reviewers, reviews_per_day=args.reviews_per_day
    )
    allocation = None
    if args.by is not None:
        allocation = capacity_segments(
            scores,
            dated.data.labels,
            dates,
            dated.data.groups,
            reviewers=args.reviewers,
            reviews_per_day=args.reviews_per_day,
            unrated_groups=dated.data.unrated_groups,
        )
    return team, allocation


def _print_reviewers(args, team, allocation) -> None:
    print("\nReviewers: " + team.sentence())
    if allocation is not None:
        print(f"Per-segment thresholds by {args.by} for the same capacity:")
        print_table(allocation.table())
        print(allocation.sentence())
        if allocation.note:
            print(allocation.note)


def _money_json(result) -> dict:
    """The amounts, the target and the money of every period together (net per day over the days monitored)."""
    known = [p for p in result.periods if math.isfinite(p.marginal_precision.estimate)]
    return money_json(
        result.economics,
        sum(p.tp for p in result.periods),
        sum(p.fp for p in result.periods),
        known[-1].marginal_precision.estimate if known else math.nan,
        days=sum(p.days for p in result.periods),
    )


def _print_text(args, result, classifier: str) -> None:
    table = result.table()
    shown = [
        "period start",
        "rated",
        "true positives",
        "false positives",
        "flagged per day",
        "precision",
        "marginal precision at T",
        "marginal precision low",
        "marginal precision high",
        "re-solved threshold",
        "evidence (e-value)",
        "alert",
    ] + (["net value per day"] if result.economics is not None else [])
    print(
        f"{args.file}: classifier {classifier}, deployed threshold {result.threshold:.6g}, target marginal precision "
        f"{target_text(result.target)}, {len(result.periods)} {result.period}s, level {result.level:g}"
        + (" (scores binned)" if result.binned else "")
    )
    print_table(table[shown])
    for alert in result.alerts[:1]:
        print(f"\nFirst alert ({alert['period']}): {alert['reason']}")
    if len(result.alerts) > 1:
        print(f"{len(result.alerts) - 1} later {result.period}s are flagged too.")
    print("\n" + monitoring_sentence(result, classifier, args.currency))


def run_monitor(args) -> int:
    args.file = source_path(args)
    monitor_decision(args)  # --decision ID: threshold, target and classifier of a deployed decision
    economics = _economics(args)
    backend = choose_backend(args.file, args.backend, args.table)
    _check_reviewer_args(args, backend)
    counted = dated_counts(
        args.file,
        args.backend,
        table=args.table,
        classifier=args.classifier,
        date=args.date,
        label=args.label,
        period=args.period,
        threshold=args.threshold,
        group=args.by,
    )
    counts, classifier, dated = counted.counts, counted.classifier, counted.dated
    result = monitor(counts, args.threshold, args.target, economics=economics, level=args.level, window=args.window)
    store_monitoring(args, result)
    team, allocation = _reviewers(args, dated, result.threshold) if args.reviewers is not None else (None, None)
    if args.json:
        print_json(
            {
                **result.as_dict(),
                **({"money": _money_json(result)} if economics is not None else {}),
                **({"reviewers": team.as_dict()} if team is not None else {}),
                **({"segments": allocation.as_dict()} if allocation is not None else {}),
            }
        )
        return 0
    _print_text(args, result, classifier)
    if team is not None:
        _print_reviewers(args, team, allocation)
    return 0


def add_parser(sub: argparse._SubParsersAction, name: str, help: str) -> None:
    """Add the command ``name`` to ``sub`` with its one-line ``help`` (from :data:`engine.cli.COMMANDS`)."""
    m = sub.add_parser(name, help=help)
    add_source_arguments(m, "rated data with a date column (CSV, CSV.gz or Parquet; a path or glob for DuckDB)")
    m.add_argument("--classifier", help="score column (default: the first detected score column)")
    m.add_argument(
        "--date", help="date column, YYYY-MM-DD (default: a date-typed column or one named date, day, rated_at ...)"
    )
    m.add_argument("--label", help="label column (default: detected)")
    m.add_argument(
        "--period", choices=PERIODS, default="week", help="period length; weeks start on Monday (default week)"
    )
    m.add_argument(
        "--threshold",
        type=float,
        help="deployed threshold T: documents with score >= T are flagged (or --decision ID; no default)",
    )
    m.add_argument(
        "--target", type=float, help="target marginal precision M in (0, 1) (or give the money flags; no default)"
    )
    add_money_arguments(m)
    m.add_argument(
        "--level",
        type=float,
        default=0.95,
        help="interval level; 1 - level bounds the probability of any false alarm over all periods (default 0.95)",
    )
    m.add_argument(
        "--window",
        type=int,
        default=DEFAULT_WINDOW,
        help=f"rated documents on each side of T per period that estimate its marginal precision "
        f"(default {DEFAULT_WINDOW})",
    )
    m.add_argument(
        "--reviewers", type=float, help="R reviewers (with --reviews-per-day: capacity R·Q per day; no default)"
    )
    m.add_argument("--reviews-per-day", type=float, help="Q reviews per reviewer per day (no default)")
    m.add_argument(
        "--by", help="with --reviewers: segment column, one threshold per segment for the capacity (default none)"
    )
    m.add_argument(
        "--backend",
        choices=period_backends(),
        default="auto",
        help="where the counting runs: memory, duckdb (out of core over Parquet/CSV paths and globs, or a "
        "DuckDB file with --table), auto (duckdb for globs and files over 100 MB; default auto)",
    )
    m.add_argument(
        "--table", help="with --backend duckdb and a .duckdb file: the table holding the rows (default none)"
    )
    add_monitor_arguments(m)
    m.add_argument("--json", action="store_true", help="print the JSON record instead of the table (default off)")
    m.set_defaults(func=run_monitor)
