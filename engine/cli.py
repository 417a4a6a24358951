"""``opstudio``: the engine from the command line, and the dashboard launcher.

    opstudio app [--port 8501]
    opstudio sweep FILE --target 0.3 [--classifier NAME] [--json]
    opstudio paths FILE --target 0.3 [--method graph|analytic|both] [--rule or|and] [--bins N] [--json]

FILE is rated data (CSV, CSV.gz or Parquet) or, for ``paths``, the aggregated
``t1..tk, tp, fp`` format. Errors print the same messages as the dashboard and
exit with status 2.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Sequence

import numpy as np

from .data import RatedDataError, load_rated, read_table
from .grid import load_counts, threshold_grid
from .paths import analytic_path, compare_paths, graph_path, path_operating_point
from .pn import pn_curve, sweep, upper_hull

__all__ = ["main"]

APP_PATH = Path(__file__).resolve().parent.parent / "app.py"


def _json_default(o):
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, (np.floating, np.integer)):
        return o.item()
    raise TypeError(type(o).__name__)


def _clean(value):
    """JSON has no inf/NaN: write them as null (and say so in the field's documentation)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def _cmd_app(args) -> int:
    if not APP_PATH.exists():
        print(f"error: the dashboard (app.py) is not next to the engine ({APP_PATH}). "
              "Install from a checkout with 'pip install -e .'.", file=sys.stderr)
        return 2
    cmd = [sys.executable, "-m", "streamlit", "run", str(APP_PATH), "--server.port", str(args.port)]
    if args.headless:
        cmd += ["--server.headless", "true"]
    return subprocess.call(cmd, cwd=str(APP_PATH.parent))


def _cmd_sweep(args) -> int:
    data = load_rated(args.file)
    name = args.classifier or data.score_names[0]
    scores = data.column(name)
    hull = upper_hull(pn_curve(scores, data.labels, data.weights))
    targets = args.target or [round(t, 2) for t in np.arange(0.05, 0.951, 0.05)]
    points = sweep(targets=targets, hull=hull)
    if args.json:
        payload = {"file": str(args.file), "classifier": name, "rated": data.n_rated, "unrated": data.n_unrated,
                   "operating_points": [p.as_dict() for p in points]}
        print(json.dumps(_clean(payload), indent=2, default=_json_default))
        return 0
    print(f"{data.name}: {data.n_rated:,} rated, {data.n_unrated:,} unrated; classifier {name}")
    print(f"{'target m':>9} {'FP per TP':>10} {'threshold':>12} {'TP':>10} {'FP':>10} {'precision':>10} "
          f"{'m above':>8} {'m below':>8}")
    for p in points:
        print(f"{p.target:9.3f} {p.cost:10.3f} {p.threshold:12.6g} {p.tp:10.6g} {p.fp:10.6g} {p.precision:10.4f} "
              f"{p.mp_above:8.3f} {p.mp_below:8.3f}")
    return 0


def _looks_like_counts(path: str) -> bool:
    frame = read_table(path, header=False).frame
    first = {str(x).strip().lower() for x in frame.iloc[0]}
    if {"tp", "fp"} <= first:
        return True
    try:
        [float(x) for x in frame.iloc[0]]
    except ValueError:
        return False
    return frame.shape[1] >= 4


def _cmd_paths(args) -> int:
    if _looks_like_counts(args.file):
        grid = load_counts(args.file, bins=args.bins)
        source = "aggregated counts"
    else:
        data = load_rated(args.file)
        cols = args.classifiers or list(data.score_names)
        if len(cols) < 2:
            raise RatedDataError("paths needs at least two score columns (classifiers); this file has "
                                 f"{len(cols)}: {', '.join(cols)}.")
        scores = np.column_stack([data.column(c) for c in cols])
        grid = threshold_grid(scores, data.labels, data.weights, bins=args.bins, rule=args.rule,
                              score_names=cols)
        source = f"{data.n_rated:,} rated documents"
    paths = []
    if args.method in ("graph", "both"):
        paths.append(graph_path(grid))
    if args.method in ("analytic", "both"):
        paths.append(analytic_path(grid, args.family))
    table = compare_paths(grid, paths, args.target)
    if args.json:
        payload = {"file": str(args.file), "source": source, "rule": grid.rule, "grid_shape": list(grid.shape),
                   "target": args.target,
                   "paths": [{"method": p.method, "area": p.auc, "runtime_s": p.runtime_s,
                              "operating_point": path_operating_point(p, args.target).as_dict(),
                              "path_thresholds": p.thresholds.tolist() if args.full else None}
                             for p in paths],
                   "comparison": table.to_dict(orient="records")}
        print(json.dumps(_clean(payload), indent=2, default=_json_default))
        return 0
    print(f"{args.file}: {source}; rule {grid.rule.upper()}; grid {' x '.join(map(str, grid.shape))}; "
          f"target marginal precision {args.target}")
    _print_table(table)
    return 0


def _print_table(table) -> None:
    import pandas as pd

    with pd.option_context("display.width", 200, "display.max_columns", 40, "display.float_format", "{:.6g}".format):
        print(table.to_string(index=False))


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="opstudio", description="Operating Point Studio: choose and defend "
                                "classifier operating points on predicted-positive rated data.")
    sub = p.add_subparsers(dest="command", required=True)
    a = sub.add_parser("app", help="open the dashboard (shipped sample data loaded)")
    a.add_argument("--port", type=int, default=8501)
    a.add_argument("--headless", action="store_true", help="do not open a browser")
    a.set_defaults(func=_cmd_app)
    s = sub.add_parser("sweep", help="operating points of one classifier for target marginal precisions")
    s.add_argument("file")
    s.add_argument("--target", type=float, action="append",
                   help="target marginal precision in (0, 1); repeat for several (default 0.05 ... 0.95)")
    s.add_argument("--classifier", help="score column (default: the first)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_cmd_sweep)
    q = sub.add_parser("paths", help="joint thresholds of 2+ classifiers via graph and analytic paths")
    q.add_argument("file")
    q.add_argument("--target", type=float, required=True)
    q.add_argument("--method", choices=("graph", "analytic", "both"), default="both")
    q.add_argument("--family", choices=("power", "spline"), default="power")
    q.add_argument("--rule", choices=("or", "and"), default="or")
    q.add_argument("--bins", type=int, default=100)
    q.add_argument("--classifiers", nargs="+", help="score columns (default: all)")
    q.add_argument("--full", action="store_true", help="with --json: include every path's thresholds")
    q.add_argument("--json", action="store_true")
    q.set_defaults(func=_cmd_paths)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return args.func(args)
    except (RatedDataError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
