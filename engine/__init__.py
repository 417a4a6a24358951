"""Operating Point Studio engine: headless, importable without Streamlit.

Public API (one concept per private-ish module, re-exported here):

* ``engine.data``    - reading and validating rated data (:func:`load_rated`).
* ``engine.pn``      - PN curves, hull marginal precision, operating points, bootstrap.
* ``engine.grid``    - joint threshold grids for 2+ classifiers, aggregated counts.
* ``engine.paths``   - graph / analytic threshold paths and their operating points.
* ``engine.setloss`` - expected-loss-optimal top-k batch decisions for set metrics.
* ``engine.batch_baselines`` - the batch-decision protocol on public data.
* ``engine.ensembles`` - additive tree ensembles as contribution matrices; lazy evaluation.
* ``engine.qwyc`` - Quit When You Can early exit (order + thresholds) and its baselines.
* ``engine.constraints`` - rate-constrained linear classifiers (fairness, churn, coverage).
* ``engine.samples`` - the shipped sample data sets.
* ``engine.figures`` - Plotly figure builders shared by the app, CLI and reports.
* ``engine.report`` - self-contained HTML reports and JSON records.
"""

from .data import ColumnMapping, RatedData, RatedDataError, Table, detect_columns, load_rated, read_table, rated_from_frame
from .grid import ThresholdGrid, counts_table, load_counts, make_axes, threshold_grid
from .paths import (
    Frontier,
    GraphPathBootstrap,
    ThresholdPath,
    analytic_path,
    best_grid_point,
    bootstrap_graph_path,
    compare_paths,
    evaluate_holdout,
    frontier,
    graph_path,
    path_operating_point,
)
from .pn import (
    Bootstrap,
    Hull,
    OperatingPoint,
    PNCurve,
    bootstrap,
    cost_per_true_positive,
    operating_point,
    pn_curve,
    sweep,
    target_from_cost,
    upper_hull,
)

__all__ = [
    "ColumnMapping", "RatedData", "RatedDataError", "Table", "detect_columns", "load_rated", "read_table",
    "rated_from_frame",
    "ThresholdGrid", "counts_table", "load_counts", "make_axes", "threshold_grid",
    "Frontier", "GraphPathBootstrap", "ThresholdPath", "analytic_path", "best_grid_point", "bootstrap_graph_path",
    "compare_paths", "evaluate_holdout", "frontier", "graph_path", "path_operating_point",
    "Bootstrap", "Hull", "OperatingPoint", "PNCurve", "bootstrap", "cost_per_true_positive", "operating_point",
    "pn_curve", "sweep", "target_from_cost", "upper_hull",
]
