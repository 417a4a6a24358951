"""``opstudio sweep`` and ``opstudio paths``: operating points and joint thresholds (Robles et al., AAAI-MAKE 2020).

FILE is rated data (CSV, CSV.gz or Parquet) or, for ``paths``, the aggregated
``t1..tk, tp, fp`` format. A target marginal precision can instead be derived from money
(``--review-cost C --value-per-positive V [--cost-per-false-positive F]``: the break-even
m = (C + F) / (V + F), :class:`engine.pn.Economics`), and a capacity from reviewers
(``--reviewers R --reviews-per-day Q``: R·Q a day over the D days the dated ratings cover).
"""

from __future__ import annotations

import argparse
import math
import os
import time

from ..backends import (
    BACKENDS,
    DATA_SOURCES,
    bootstrap_points,
    choose_backend,
    joint_grid,
    open_rows,
    sweep_points,
)
from ..errors import InputError, RatedDataError
from ..io import load_counts, load_rated, read_table
from ..monitor import capacity_per_day, load_dated
from ..pn import (
    DEFAULT_SWEEP_TARGETS,
    allocate_capacity,
    allocate_target,
    analytic_path,
    compare_paths,
    graph_path,
    max_flagged_point,
    money_statement,
    path_operating_point,
    segment_curves,
    target_text,
)
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


def _check_budget_args(args):
    """The budget options checked; money turns into its break-even target. Returns the Economics or None."""
    economics = economics_of(args, bool(args.target))
    reviewers = args.reviewers is not None or args.reviews_per_day is not None
    if reviewers and (args.reviewers is None or args.reviews_per_day is None):
        raise InputError("give --reviewers R and --reviews-per-day Q together (capacity R·Q reviews per day)")
    if args.date is not None and not reviewers:
        raise InputError("--date is for --reviewers R --reviews-per-day Q (the days the ratings cover)")
    if args.capacity is not None and args.target:
        raise InputError("give either --capacity or --target, not both")
    budgets = [args.capacity is not None, bool(args.target) or economics is not None, reviewers]
    if sum(budgets) > 1:
        raise InputError(
            "give one budget: --capacity N, --reviewers R --reviews-per-day Q, or a target (--target M "
            "or --review-cost C --value-per-positive V), not several"
        )
    if economics is not None:
        args.target = [economics.target]
    _check_segment_args(args, reviewers)
    return economics


def _check_segment_args(args, reviewers: bool) -> None:
    if args.capacity is not None and args.target and len(args.target) > 0:
        raise InputError("give either --capacity or --target, not both")
    if args.by is not None and args.capacity is None and not args.target and not reviewers:
        raise InputError(
            "--by needs --capacity N (reviews), --reviewers R --reviews-per-day Q or --target M (marginal precision)"
        )
    if args.by is not None and args.target and len(args.target) > 1:
        raise InputError("--by takes one --target")


def run_segments(args, data, name: str) -> int:
    """Per-segment thresholds for a capacity or a target (``--by COL``)."""
    curves = segment_curves(
        data.column(name), data.labels, data.groups, data.weights, unrated_groups=data.unrated_groups
    )
    allocation = (
        allocate_capacity(curves, args.capacity)
        if args.capacity is not None
        else allocate_target(curves, args.target[0])
    )
    total = allocation.total
    mu = allocation.common_marginal_precision if args.capacity is not None else args.target[0]
    if args.json:
        print_json({**allocation.as_dict(), **_extras(args, total["tp"], total["fp"], mu)})
        return 0
    budget = f"capacity {args.capacity:,.0f} reviews" if args.capacity is not None else f"target {args.target[0]:.6g}"
    print(f"{data.name}: classifier {name}, segments by {args.by}, {budget}")
    print_table(allocation.table())
    print(allocation.sentence())
    _print_extras(args, total["tp"], total["fp"], mu)
    return 0


def _extras(args, tp: float, fp: float, marginal_precision: float) -> dict:
    """JSON keys of the money (``"money"``) and the reviewers (``"reviewers"``) behind a point, when given."""
    out = {}
    if args.economics is not None:
        out["money"] = money_json(args.economics, tp, fp, marginal_precision)
    if args.reviewers is not None:
        out["reviewers"] = {
            "reviewers": args.reviewers,
            "reviews_per_day": args.reviews_per_day,
            "capacity_per_day": capacity_per_day(args.reviewers, args.reviews_per_day),
            "days": args.days,
            "capacity": args.capacity,
        }
    return out


def _print_extras(args, tp: float, fp: float, marginal_precision: float) -> None:
    if args.economics is not None:
        statement = money_statement(tp, fp, args.economics, marginal_precision=marginal_precision)
        print(f"Target from money: {args.economics.formula()}. " + statement.sentence(args.currency))
    if args.reviewers is not None:
        print(
            f"Capacity: {args.reviewers:g} reviewers × {args.reviews_per_day:g} reviews a day × {args.days} days "
            f"the ratings cover = {args.capacity:,.0f} reviews."
        )


def run_budget(args, data, name: str) -> int:
    """One classifier's threshold under a review budget (``--capacity N`` without ``--by``)."""
    point = max_flagged_point(data.column(name), data.labels, data.weights, capacity=args.capacity)
    if args.json:
        print_json(
            {
                "file": str(args.file),
                "classifier": name,
                "rated": data.n_rated,
                "unrated": data.n_unrated,
                **point.as_dict(),
                **_extras(args, point.tp, point.fp, float("nan")),
            }
        )
        return 0
    print(
        f"{data.name}: classifier {name}; at most {point.capacity:,.6g} reviews: threshold {point.threshold:.6g}, "
        f"TP {point.tp:,.6g}, FP {point.fp:,.6g}, flagged {point.flagged:,.6g}"
    )
    _print_extras(args, point.tp, point.fp, float("nan"))
    return 0


def _interval_json(args, boots: list) -> dict:
    if not boots:
        return {}
    return {
        "bootstrap": {
            "replicates": args.bootstrap,
            "seed": args.seed,
            "level": args.level,
            "resample": "poisson (hashed row ids)",
            "id_column": args.id,
        },
        "intervals": [
            {"target": b.target, "threshold_ci": list(b.threshold_ci), "tp_ci": list(b.tp_ci), "fp_ci": list(b.fp_ci)}
            for b in boots
        ],
    }


def _print_intervals(args, boots: list) -> None:
    if not boots:
        return
    print(f"bootstrap {args.bootstrap} hashed Poisson replicates (seed {args.seed}), {args.level:.0%} intervals:")
    print(f"{'target m':>9} {'threshold':>25} {'TP':>25} {'FP':>25}")
    for b in boots:
        cells = [f"[{lo:.6g}, {hi:.6g}]" for lo, hi in (b.threshold_ci, b.tp_ci, b.fp_ci)]
        print(f"{target_text(b.target):>9} {cells[0]:>25} {cells[1]:>25} {cells[2]:>25}")


def _rows(args, *, scores=None, group=None, needs_rows=None):
    """FILE's rated rows on the source that counts them (``--backend``; auto: memory or DuckDB by size)."""
    return open_rows(
        args.file,
        args.backend,
        table=args.table,
        remote=args.spark_remote,
        label=args.label,
        scores=scores,
        group=group,
        needs_rows=needs_rows,
    )


def _rated_for_budget(args):
    """(rated data, classifier); with --reviewers, the dated ratings and the capacity R·Q·D they imply."""
    if args.reviewers is None:
        data = load_rated(args.file, group_col=args.by)
        return data, args.classifier or data.score_names[0]
    dated = load_dated(
        args.file, classifier=args.classifier, date_col=args.date, label_col=args.label, group_col=args.by
    )
    args.days = dated.days
    args.capacity = capacity_per_day(args.reviewers, args.reviews_per_day) * dated.days
    return dated.data, dated.classifier


def run_sweep(args) -> int:
    args.economics = _check_budget_args(args)
    args.file = source_path(args)
    budget = args.by is not None or args.capacity is not None or args.reviewers is not None
    if args.reviewers is not None:  # the capacity R·Q·D needs the dated rows in memory
        if args.backend not in (None, "auto", "memory"):
            raise InputError("--reviewers reads the dated ratings in memory; use --backend memory")
        data, name = _rated_for_budget(args)
    else:
        data = _rows(
            args,
            scores=[args.classifier] if args.classifier and not budget else None,
            group=args.by,
            needs_rows="--by and --capacity" if budget else None,
        )
        name = args.classifier or data.score_names[0]
    if budget:
        return run_segments(args, data, name) if args.by is not None else run_budget(args, data, name)
    targets = args.target or DEFAULT_SWEEP_TARGETS
    points, stats = sweep_points(data, name, targets)
    boots = (
        bootstrap_points(
            data,
            name,
            targets=targets,
            n_boot=args.bootstrap,
            level=args.level,
            seed=args.seed,
            id_column=args.id,
            path=args.file,
        )
        if args.bootstrap is not None
        else []
    )
    money = _extras(args, points[0].tp, points[0].fp, points[0].mp_above) if args.economics is not None else {}
    if args.json:
        print_json(
            {
                "file": str(args.file),
                "classifier": name,
                "rated": stats.rated,
                "unrated": stats.unrated,
                "operating_points": [p.as_dict() for p in points],
                **stats.as_dict(),
                **money,
                **_interval_json(args, boots),
            }
        )
        return 0
    print(
        f"{data.name}: {stats.rows_scanned:,} rows read by {DATA_SOURCES[stats.backend].title} in "
        f"{stats.seconds:.1f} s ({stats.rated:,} rated, {stats.unrated:,} unrated, {stats.distinct_scores:,} "
        f"distinct scores); classifier {name}"
    )
    print(
        f"{'target m':>9} {'FP per TP':>10} {'threshold':>12} {'TP':>10} {'FP':>10} {'precision':>10} "
        f"{'m above':>8} {'m below':>8}"
    )
    for p in points:
        print(
            f"{target_text(p.target):>9} {_cell(p.cost, '.3f'):>10} {_threshold_cell(p.threshold):>12} {p.tp:10.6g} "
            f"{p.fp:10.6g} {_cell(p.precision, '.4f'):>10} {_cell(p.mp_above, '.3f'):>8} {_cell(p.mp_below, '.3f'):>8}"
        )
    if any(math.isinf(p.threshold) for p in points):
        print(
            "A threshold of 'none' flags nothing: no rated document's marginal precision reaches that target "
            "(precision and marginal precision above are then undefined, shown as —)."
        )
    if args.economics is not None:
        _print_extras(args, points[0].tp, points[0].fp, points[0].mp_above)
    _print_intervals(args, boots)
    return 0


def _cell(x: float, spec: str) -> str:
    """A number of the sweep table; '—' where it is undefined (NaN: nothing flagged)."""
    return format(x, spec) if math.isfinite(x) else "—"


def _threshold_cell(t: float) -> str:
    return "none" if math.isinf(t) and t > 0 else format(t, ".6g")


def _looks_like_counts(path: str) -> bool:
    """Aggregated counts (columns tp and fp, or a headerless numeric table of 4+ columns) rather than rated data."""
    table = read_table(path, header=False)
    frame = table.frame
    if table.file_format.startswith("parquet"):  # Parquet names its columns
        return {"tp", "fp"} <= {str(c).strip().lower() for c in frame.columns}
    if len(frame) == 0:
        return False
    first = {str(x).strip().lower() for x in frame.iloc[0]}
    if {"tp", "fp"} <= first:
        return True
    try:
        [float(x) for x in frame.iloc[0]]
    except ValueError:
        return False
    return frame.shape[1] >= 4


def _counts_file(args) -> bool:
    """FILE is one file of aggregated counts: read in memory, when the chosen source keeps rows in memory."""
    return (
        DATA_SOURCES[choose_backend(args.file, args.backend, args.table)].rows_in_memory
        and os.path.isfile(args.file)
        and _looks_like_counts(args.file)
    )


def _grid_of(args):
    """The threshold grid of FILE, a description of where it came from, and what was scanned."""
    started = time.perf_counter()
    if _counts_file(args):
        grid = load_counts(args.file, bins=args.bins)
        return (
            grid,
            "aggregated counts",
            {
                "backend": "memory",
                "rows_scanned": None,
                "rated": None,
                "unrated": None,
                "seconds": time.perf_counter() - started,
            },
        )
    data = _rows(args, scores=args.classifiers)
    cols = list(args.classifiers or data.score_names)
    if len(cols) < 2:
        raise RatedDataError(
            f"paths needs at least two score columns (classifiers); this file has {len(cols)}: {', '.join(cols)}."
        )
    grid, stats = joint_grid(data, cols, bins=args.bins, rule=args.rule)
    facts = {
        "backend": stats.backend,
        "rows_scanned": stats.rows_scanned,
        "rated": stats.rated,
        "unrated": stats.unrated,
        "seconds": stats.seconds,
    }
    return grid, f"{stats.rated:,} rated documents ({stats.unrated:,} unrated rows left out)", facts


def run_paths(args) -> int:
    economics = economics_of(args, args.target is not None)
    if economics is None and args.target is None:
        raise InputError(
            "give either --target M or --review-cost C --value-per-positive V (the target is then their "
            "break-even marginal precision (C + F) / (V + F))"
        )
    if economics is not None:
        args.target = economics.target
    args.file = source_path(args)
    grid, source, facts = _grid_of(args)
    paths = []
    if args.method in ("graph", "both"):
        paths.append(graph_path(grid))
    if args.method in ("analytic", "both"):
        paths.append(analytic_path(grid, args.family))
    table = compare_paths(grid, paths, args.target)
    ops = {p.method: path_operating_point(p, args.target) for p in paths}
    if args.json:
        print_json(
            {
                "file": str(args.file),
                "source": source,
                "rule": grid.rule,
                "grid_shape": list(grid.shape),
                "target": args.target,
                "paths": [
                    {
                        "method": p.method,
                        "area": p.auc,
                        "runtime_s": p.runtime_s,
                        "operating_point": ops[p.method].as_dict(),
                        "path_thresholds": p.thresholds.tolist() if args.full else None,
                        **(
                            {}
                            if economics is None
                            else {
                                "money": money_json(
                                    economics, ops[p.method].tp, ops[p.method].fp, ops[p.method].mp_above
                                )
                            }
                        ),
                    }
                    for p in paths
                ],
                "comparison": table.to_dict(orient="records"),
                **facts,
            }
        )
        return 0
    print(
        f"{args.file}: {source}; rule {grid.rule.upper()}; grid {' x '.join(map(str, grid.shape))}; "
        f"target marginal precision {target_text(args.target)}; counted by {facts['backend']} in {facts['seconds']:.1f} s"
    )
    print_table(table, transpose_on="method")
    if economics is not None:
        print(f"Target from money: {economics.formula()}.")
        for method, op in ops.items():
            statement = money_statement(op.tp, op.fp, economics, marginal_precision=op.mp_above)
            print(f"{method}: {statement.sentence(args.currency)}")
    return 0


def add_parser(sub: argparse._SubParsersAction, name: str, help: str) -> None:
    """Add the command ``name`` to ``sub`` with its one-line ``help`` (from :data:`engine.cli.COMMANDS`)."""
    {"sweep": _sweep_arguments, "paths": _paths_arguments}[name](sub.add_parser(name, help=help))


def _sweep_arguments(s: argparse.ArgumentParser) -> None:
    add_source_arguments(s, "rated data (CSV, CSV.gz or Parquet)")
    s.add_argument(
        "--target",
        type=float,
        action="append",
        help="target marginal precision in (0, 1); repeat for several (default 0.05 ... 0.95)",
    )
    s.add_argument("--classifier", help="score column (default: the first)")
    s.add_argument("--capacity", type=float, help="review budget: at most N rated documents flagged (weighted TP + FP)")
    s.add_argument(
        "--by",
        help="segment column: one threshold per segment at one marginal precision "
        "(with --capacity N or one --target M)",
    )
    s.add_argument(
        "--backend",
        choices=BACKENDS,
        default="auto",
        help="where the counting runs: memory, duckdb (out of core over Parquet/CSV paths and globs, or a "
        "DuckDB file with --table), spark (Parquet/CSV paths and globs or a catalog table, on a local "
        "session or --spark-remote), auto (duckdb for globs and files over 100 MB; never spark)",
    )
    s.add_argument(
        "--spark-remote",
        metavar="URL",
        help="with --backend spark: a Spark Connect URL (sc://host:15002); only aggregated counts leave the cluster",
    )
    s.add_argument("--table", help="with --backend duckdb and a .duckdb file: the table holding the rows")
    s.add_argument("--label", help="label column (default: detected)")
    s.add_argument(
        "--bootstrap",
        type=int,
        metavar="N",
        help="intervals from N hashed Poisson bootstrap replicates (the same replicates on every backend)",
    )
    s.add_argument(
        "--id",
        help="with --bootstrap: integer row-id column (default: the row's position in the file; "
        "DuckDB needs it for CSV, globs and tables)",
    )
    s.add_argument("--seed", type=int, default=0, help="with --bootstrap: replicate seed (default 0)")
    s.add_argument("--level", type=float, default=0.95, help="with --bootstrap: interval level (default 0.95)")
    add_money_arguments(s)
    s.add_argument(
        "--reviewers",
        type=float,
        help="R reviewers (with --reviews-per-day Q: capacity R·Q per day over "
        "the days the ratings cover, read from --date; no default)",
    )
    s.add_argument("--reviews-per-day", type=float, help="Q reviews per reviewer per day (no default)")
    s.add_argument("--date", help="with --reviewers: date column, YYYY-MM-DD (default: detected)")
    s.add_argument("--json", action="store_true", help="print the operating points as JSON instead of a table")
    s.set_defaults(func=run_sweep, economics=None, days=None)


def _paths_arguments(q: argparse.ArgumentParser) -> None:
    add_source_arguments(q, "rated data or aggregated counts")
    q.add_argument(
        "--target",
        type=float,
        metavar="M",
        help="target marginal precision in (0, 1): the operating point on each path (or give the money "
        "flags; no default)",
    )
    add_money_arguments(q)
    q.add_argument(
        "--method",
        choices=("graph", "analytic", "both"),
        default="both",
        help="path through the joint thresholds: the graph path (best trapezoid area), the analytic "
        "(parametric) path, or both compared",
    )
    q.add_argument(
        "--family",
        choices=("power", "spline"),
        default="power",
        help="with --method analytic or both: the analytic path's family",
    )
    q.add_argument(
        "--rule",
        choices=("or", "and"),
        default="or",
        help="flag a document when any (or) / all (and) of its scores reach their thresholds",
    )
    q.add_argument(
        "--bins",
        type=int,
        default=100,
        metavar="N",
        help="threshold levels per classifier (the grid is N x N for two classifiers)",
    )
    q.add_argument("--classifiers", nargs="+", help="score columns (default: all)")
    q.add_argument(
        "--backend",
        choices=BACKENDS,
        default="auto",
        help="where the grid counts are made: memory, duckdb (out of core over Parquet/CSV paths and "
        "globs, or a DuckDB file with --table), spark (paths, globs or a catalog table, local or "
        "--spark-remote), auto (duckdb for globs and files over 100 MB; never spark)",
    )
    q.add_argument("--spark-remote", metavar="URL", help="with --backend spark: a Spark Connect URL (sc://host:15002)")
    q.add_argument("--table", help="with --backend duckdb and a .duckdb file: the table holding the rows")
    q.add_argument("--label", help="label column (default: detected)")
    q.add_argument("--full", action="store_true", help="with --json: include every path's thresholds")
    q.add_argument("--json", action="store_true", help="print paths, operating points and the comparison as JSON")
    q.set_defaults(func=run_paths)
