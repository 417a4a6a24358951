"""``opstudio sweep`` and ``opstudio paths``: operating points and joint thresholds (Robles et al., AAAI-MAKE 2020).

FILE is rated data (CSV, CSV.gz or Parquet) or, for ``paths``, the aggregated
``t1..tk, tp, fp`` format.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from ..backends import (
    BACKENDS,
    DuckSource,
    SparkSource,
    choose_backend,
    duckdb_bootstrap_points,
    duckdb_operating_points,
    duckdb_threshold_grid,
    sample_rows,
    spark_bootstrap_points,
    spark_operating_points,
    spark_sample_rows,
    spark_threshold_grid,
)
from ..errors import InputError, RatedDataError
from ..io import detect_columns, load_counts, load_rated, read_table
from ..pn import (
    DEFAULT_SWEEP_TARGETS,
    allocate_capacity,
    allocate_target,
    analytic_path,
    bootstrap,
    check_target,
    compare_paths,
    graph_path,
    max_flagged_point,
    path_operating_point,
    pn_curve,
    segment_curves,
    sweep,
    threshold_grid,
    upper_hull,
)
from .common import add_source_arguments, print_json, print_table, source_path

__all__ = ["add_parsers"]


def _check_budget_args(args) -> None:
    if args.capacity is not None and args.target and len(args.target) > 0:
        raise InputError("give either --capacity or --target, not both")
    if args.by is not None and args.capacity is None and not args.target:
        raise InputError("--by needs --capacity N (reviews) or --target M (marginal precision)")
    if args.by is not None and args.target and len(args.target) > 1:
        raise InputError("--by takes one --target")


def run_segments(args, data, name: str) -> int:
    """Per-segment thresholds for a capacity or a target (``--by COL``)."""
    curves = segment_curves(data.column(name), data.labels, data.groups, data.weights,
                            unrated_groups=data.unrated_groups)
    allocation = (allocate_capacity(curves, args.capacity) if args.capacity is not None
                  else allocate_target(curves, args.target[0]))
    if args.json:
        print_json(allocation.as_dict())
        return 0
    budget = f"capacity {args.capacity:,.0f} reviews" if args.capacity is not None else f"target {args.target[0]}"
    print(f"{data.name}: classifier {name}, segments by {args.by}, {budget}")
    print_table(allocation.table())
    print(allocation.sentence())
    return 0


def run_budget(args, data, name: str) -> int:
    """One classifier's threshold under a review budget (``--capacity N`` without ``--by``)."""
    point = max_flagged_point(data.column(name), data.labels, data.weights, capacity=args.capacity)
    if args.json:
        print_json({"file": str(args.file), "classifier": name, "rated": data.n_rated, "unrated": data.n_unrated,
                    **point.as_dict()})
        return 0
    print(f"{data.name}: classifier {name}; at most {point.capacity:,.6g} reviews: threshold {point.threshold:.6g}, "
          f"TP {point.tp:,.6g}, FP {point.fp:,.6g}, flagged {point.flagged:,.6g}")
    return 0


def _rated_ids(args, data) -> np.ndarray:
    """Row ids of the rated rows for hashed bootstrap replicates: the --id column, or positions in the file."""
    rated = np.setdiff1d(np.arange(data.n_read), data.unrated_rows)
    if args.id is None:
        return rated
    frame = read_table(args.file).frame
    if args.id not in frame.columns:
        raise InputError(f"No column '{args.id}' for --id; columns: {', '.join(map(str, frame.columns))}.")
    ids = pd.to_numeric(frame[args.id], errors="coerce").to_numpy(dtype=float)[rated]
    bad = ~np.isfinite(ids) | (ids < 0) | (ids != np.round(ids))
    if bad.any():
        raise InputError(f"Column '{args.id}': {int(bad.sum()):,} rated rows have a missing, negative or non-integer "
                         "id. Row ids must be integers >= 0.")
    return ids.astype(np.int64)


def _bootstrap_of(args, data=None, name=None, source=None, mapping=None) -> list:
    """Operating-point bootstrap distributions (hashed Poisson replicates: the same on either backend)."""
    targets = args.target or DEFAULT_SWEEP_TARGETS
    if args.bootstrap < 1:
        raise InputError(f"--bootstrap needs at least 1 replicate, got {args.bootstrap}")
    if source is not None:
        counted = spark_bootstrap_points if isinstance(source, SparkSource) else duckdb_bootstrap_points
        points, _ = counted(source, score=name, label=mapping.label_col, weight=mapping.weight_col,
                                            id_column=args.id, targets=targets, n_boot=args.bootstrap,
                                            level=args.level, seed=args.seed)
        return points
    boot = bootstrap(data.column(name), data.labels, data.weights, n_boot=args.bootstrap, level=args.level,
                     seed=args.seed, resample="poisson", ids=_rated_ids(args, data))
    return [boot.at(t) for t in check_target(targets)]


def _interval_json(args, boots: list) -> dict:
    if not boots:
        return {}
    return {"bootstrap": {"replicates": args.bootstrap, "seed": args.seed, "level": args.level,
                          "resample": "poisson (hashed row ids)", "id_column": args.id},
            "intervals": [{"target": b.target, "threshold_ci": list(b.threshold_ci), "tp_ci": list(b.tp_ci),
                           "fp_ci": list(b.fp_ci)} for b in boots]}


def _print_intervals(args, boots: list) -> None:
    if not boots:
        return
    print(f"bootstrap {args.bootstrap} hashed Poisson replicates (seed {args.seed}), {args.level:.0%} intervals:")
    print(f"{'target m':>9} {'threshold':>25} {'TP':>25} {'FP':>25}")
    for b in boots:
        cells = [f"[{lo:.6g}, {hi:.6g}]" for lo, hi in (b.threshold_ci, b.tp_ci, b.fp_ci)]
        print(f"{b.target:9.3f} {cells[0]:>25} {cells[1]:>25} {cells[2]:>25}")


def _counting_source(args, backend: str):
    """(source, first rows, operating-points kernel, grid kernel, display name) of an out-of-core backend."""
    if backend == "spark":
        if args.table is not None:
            raise InputError("--table is for a DuckDB database file; with --backend spark give the table name as FILE")
        source = SparkSource(args.file, remote=args.spark_remote)
        return source, spark_sample_rows(source), spark_operating_points, spark_threshold_grid, "Spark"
    source = DuckSource(args.file, table=args.table)
    return source, sample_rows(source), duckdb_operating_points, duckdb_threshold_grid, "DuckDB"


def run_sweep_counted(args, backend: str) -> int:
    """The sweep counted by DuckDB or Spark where the rows are (out of core); only counts come back."""
    source, sample, operating_points, _, shown = _counting_source(args, backend)
    mapping = detect_columns(sample, label_col=args.label, score_cols=[args.classifier] if args.classifier else None)
    name = args.classifier or mapping.score_cols[0]
    points, stats = operating_points(source, score=name, label=mapping.label_col, weight=mapping.weight_col,
                                     targets=args.target or DEFAULT_SWEEP_TARGETS)
    boots = _bootstrap_of(args, name=name, source=source, mapping=mapping) if args.bootstrap is not None else []
    if args.json:
        print_json({"file": str(args.file), "classifier": name, "rated": stats.rated, "unrated": stats.unrated,
                    "operating_points": [p.as_dict() for p in points], **stats.as_dict(),
                    **_interval_json(args, boots)})
        return 0
    print(f"{args.file}: {stats.rows_scanned:,} rows scanned by {shown} in {stats.seconds:.1f} s "
          f"({stats.rated:,} rated, {stats.unrated:,} unrated, {stats.distinct_scores:,} distinct scores); "
          f"classifier {name}")
    print(f"{'target m':>9} {'threshold':>12} {'TP':>12} {'FP':>12} {'precision':>10}")
    for p in points:
        print(f"{p.target:9.3f} {p.threshold:12.6g} {p.tp:12.6g} {p.fp:12.6g} {p.precision:10.4f}")
    _print_intervals(args, boots)
    return 0


def run_sweep(args) -> int:
    _check_budget_args(args)
    args.file = source_path(args)
    backend = _backend_of(args)
    if backend != "memory":
        if args.by is not None or args.capacity is not None:
            raise InputError("--by and --capacity run on the memory backend; use --backend memory")
        return run_sweep_counted(args, backend)
    data = load_rated(args.file, label_col=args.label, group_col=args.by,
                      score_cols=[args.classifier] if args.classifier else None)
    name = args.classifier or data.score_names[0]
    if args.by is not None:
        return run_segments(args, data, name)
    if args.capacity is not None:
        return run_budget(args, data, name)
    scores = data.column(name)
    hull = upper_hull(pn_curve(scores, data.labels, data.weights))
    points = sweep(targets=args.target or DEFAULT_SWEEP_TARGETS, hull=hull)
    boots = _bootstrap_of(args, data, name) if args.bootstrap is not None else []
    if args.json:
        print_json({"file": str(args.file), "classifier": name, "rated": data.n_rated, "unrated": data.n_unrated,
                    "operating_points": [p.as_dict() for p in points], "backend": "memory",
                    "rows_scanned": data.n_read, **_interval_json(args, boots)})
        return 0
    print(f"{data.name}: {data.n_rated:,} rated, {data.n_unrated:,} unrated; classifier {name}")
    print(f"{'target m':>9} {'FP per TP':>10} {'threshold':>12} {'TP':>10} {'FP':>10} {'precision':>10} "
          f"{'m above':>8} {'m below':>8}")
    for p in points:
        print(f"{p.target:9.3f} {p.cost:10.3f} {p.threshold:12.6g} {p.tp:10.6g} {p.fp:10.6g} {p.precision:10.4f} "
              f"{p.mp_above:8.3f} {p.mp_below:8.3f}")
    _print_intervals(args, boots)
    return 0


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


def _backend_of(args) -> str:
    """The backend that counts: ``--backend`` (auto: memory or DuckDB by size, never Spark), options checked."""
    backend = choose_backend(args.file, args.backend)
    if args.spark_remote is not None and backend != "spark":
        raise InputError("--spark-remote needs --backend spark")
    return backend


def _grid_of_counted(args, backend: str):
    """The rated rows' grid counted by DuckDB or Spark (out of core): (grid, description, scan facts)."""
    source, sample, _, threshold_grid_of, shown = _counting_source(args, backend)
    if {"tp", "fp"} <= {str(c).strip().lower() for c in sample.columns}:
        raise InputError(f"'{args.file}' holds aggregated counts (columns tp, fp): they are read in memory; use "
                         "--backend memory.")
    mapping = detect_columns(sample, label_col=args.label, score_cols=args.classifiers)
    cols = list(mapping.score_cols)
    if len(cols) < 2:
        raise RatedDataError("paths needs at least two score columns (classifiers); this file has "
                             f"{len(cols)}: {', '.join(cols)}.")
    grid, stats = threshold_grid_of(source, scores=cols, label=mapping.label_col, weight=mapping.weight_col,
                                    bins=args.bins, rule=args.rule)
    facts = {"backend": backend, "rows_scanned": stats.rows_scanned, "rated": stats.rated, "unrated": stats.unrated,
             "seconds": stats.seconds}
    return grid, f"{stats.rated:,} rated documents ({stats.unrated:,} unrated rows left out; {shown})", facts


def _grid_of(args):
    """The threshold grid of FILE, a description of where it came from, and what was scanned."""
    started = time.perf_counter()
    backend = _backend_of(args)
    if backend != "memory":
        return _grid_of_counted(args, backend)
    if _looks_like_counts(args.file):
        grid = load_counts(args.file, bins=args.bins)
        return grid, "aggregated counts", {"backend": "memory", "rows_scanned": None, "rated": None,
                                           "unrated": None, "seconds": time.perf_counter() - started}
    data = load_rated(args.file, label_col=args.label, score_cols=args.classifiers)
    cols = args.classifiers or list(data.score_names)
    if len(cols) < 2:
        raise RatedDataError("paths needs at least two score columns (classifiers); this file has "
                             f"{len(cols)}: {', '.join(cols)}.")
    scores = np.column_stack([data.column(c) for c in cols])
    grid = threshold_grid(scores, data.labels, data.weights, bins=args.bins, rule=args.rule, score_names=cols)
    facts = {"backend": "memory", "rows_scanned": data.n_read, "rated": data.n_rated, "unrated": data.n_unrated,
             "seconds": time.perf_counter() - started}
    return grid, f"{data.n_rated:,} rated documents", facts


def run_paths(args) -> int:
    args.file = source_path(args)
    grid, source, facts = _grid_of(args)
    paths = []
    if args.method in ("graph", "both"):
        paths.append(graph_path(grid))
    if args.method in ("analytic", "both"):
        paths.append(analytic_path(grid, args.family))
    table = compare_paths(grid, paths, args.target)
    if args.json:
        print_json({"file": str(args.file), "source": source, "rule": grid.rule, "grid_shape": list(grid.shape),
                    "target": args.target,
                    "paths": [{"method": p.method, "area": p.auc, "runtime_s": p.runtime_s,
                               "operating_point": path_operating_point(p, args.target).as_dict(),
                               "path_thresholds": p.thresholds.tolist() if args.full else None}
                              for p in paths],
                    "comparison": table.to_dict(orient="records"), **facts})
        return 0
    print(f"{args.file}: {source}; rule {grid.rule.upper()}; grid {' x '.join(map(str, grid.shape))}; "
          f"target marginal precision {args.target}; counted by {facts['backend']} in {facts['seconds']:.1f} s")
    print_table(table, transpose_on="method")
    return 0


def add_parsers(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("sweep", help="operating points of one classifier for target marginal precisions")
    add_source_arguments(s, "rated data (CSV, CSV.gz or Parquet)")
    s.add_argument("--target", type=float, action="append",
                   help="target marginal precision in (0, 1); repeat for several (default 0.05 ... 0.95)")
    s.add_argument("--classifier", help="score column (default: the first)")
    s.add_argument("--capacity", type=float, help="review budget: at most N rated documents flagged "
                                                   "(weighted TP + FP)")
    s.add_argument("--by", help="segment column: one threshold per segment at one marginal precision "
                                "(with --capacity N or one --target M)")
    s.add_argument("--backend", choices=BACKENDS, default="auto",
                   help="where the counting runs: memory, duckdb (out of core over Parquet/CSV paths and globs, or a "
                        "DuckDB file with --table), spark (Parquet/CSV paths and globs or a catalog table, on a local "
                        "session or --spark-remote), auto (duckdb for globs and files over 100 MB; never spark)")
    s.add_argument("--spark-remote", metavar="URL", help="with --backend spark: a Spark Connect URL (sc://host:15002); "
                                                         "only aggregated counts leave the cluster")
    s.add_argument("--table", help="with --backend duckdb and a .duckdb file: the table holding the rows")
    s.add_argument("--label", help="label column (default: detected)")
    s.add_argument("--bootstrap", type=int, metavar="N",
                   help="intervals from N hashed Poisson bootstrap replicates (the same replicates on every backend)")
    s.add_argument("--id", help="with --bootstrap: integer row-id column (default: the row's position in the file; "
                                "DuckDB needs it for CSV, globs and tables)")
    s.add_argument("--seed", type=int, default=0, help="with --bootstrap: replicate seed (default 0)")
    s.add_argument("--level", type=float, default=0.95, help="with --bootstrap: interval level (default 0.95)")
    s.add_argument("--json", action="store_true", help="print the operating points as JSON instead of a table")
    s.set_defaults(func=run_sweep)
    q = sub.add_parser("paths", help="joint thresholds of 2+ classifiers via graph and analytic paths")
    add_source_arguments(q, "rated data or aggregated counts")
    q.add_argument("--target", type=float, required=True, metavar="M",
                   help="target marginal precision in (0, 1): the operating point on each path")
    q.add_argument("--method", choices=("graph", "analytic", "both"), default="both",
                   help="path through the joint thresholds: the graph path (best trapezoid area), the analytic "
                        "(parametric) path, or both compared")
    q.add_argument("--family", choices=("power", "spline"), default="power",
                   help="with --method analytic or both: the analytic path's family")
    q.add_argument("--rule", choices=("or", "and"), default="or",
                   help="flag a document when any (or) / all (and) of its scores reach their thresholds")
    q.add_argument("--bins", type=int, default=100, metavar="N",
                   help="threshold levels per classifier (the grid is N x N for two classifiers)")
    q.add_argument("--classifiers", nargs="+", help="score columns (default: all)")
    q.add_argument("--backend", choices=BACKENDS, default="auto",
                   help="where the grid counts are made: memory, duckdb (out of core over Parquet/CSV paths and "
                        "globs, or a DuckDB file with --table), spark (paths, globs or a catalog table, local or "
                        "--spark-remote), auto (duckdb for globs and files over 100 MB; never spark)")
    q.add_argument("--spark-remote", metavar="URL", help="with --backend spark: a Spark Connect URL (sc://host:15002)")
    q.add_argument("--table", help="with --backend duckdb and a .duckdb file: the table holding the rows")
    q.add_argument("--label", help="label column (default: detected)")
    q.add_argument("--full", action="store_true", help="with --json: include every path's thresholds")
    q.add_argument("--json", action="store_true", help="print paths, operating points and the comparison as JSON")
    q.set_defaults(func=run_paths)
