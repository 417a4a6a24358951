"""PN curves, marginal precision and operating points of one or several classifiers on predicted-positive data.

Robles, E., Zaidouni, F., Mavromoustaki, A. & Refael, P. (2020). *Threshold
Optimization in Multiple Binary Classifiers for Extreme Rare Events using
Predicted Positive Data.* AAAI Spring Symposium on Combining Machine Learning
with Knowledge Engineering (AAAI-MAKE 2020), CEUR-WS Vol-2600, paper 19.

One classifier: :func:`pn_curve`, :func:`upper_hull`, :func:`operating_point`,
:func:`sweep`, :func:`bootstrap`. Several classifiers: :func:`threshold_grid`
(eq. 1), :func:`graph_path` (Algorithm 3), :func:`analytic_path` (Algorithm 2),
:func:`path_operating_point` (Algorithm 1), and the checks in
:mod:`engine.pn.comparison`. Segments (:mod:`~engine.pn.segments`: one threshold per
segment at one marginal precision or a review capacity), reports
(:mod:`~engine.pn.report`) and figures (:mod:`~engine.pn.figures`). Pages and the
CLI import these names from here.
"""

from .analytic_path import FAMILIES, analytic_path
from .bootstrap import Bootstrap, BootstrapPoint, bootstrap
from .budget import max_flagged_point
from .comparison import (
    Frontier,
    GraphPathBootstrap,
    best_grid_point,
    bootstrap_graph_path,
    bootstrap_spread_table,
    compare_paths,
    evaluate_holdout,
    frontier,
    predict_joint,
)
from .curve import (
    TIE_RTOL,
    Hull,
    PNCurve,
    check_target,
    cost_per_true_positive,
    pn_curve,
    target_from_cost,
    target_slope,
    tie_tolerance,
    upper_hull,
)
from .economics import MAX_AMOUNT, Economics, MoneyStatement, money_statement, target_from_money, target_text
from .figures import (
    marginal_precision_figure,
    marginal_precision_parts,
    paths_pn_figure,
    pn_figure,
    pn_figure_parts,
    point_marks,
    score_histogram_figure,
    segments_figure,
    target_marks,
    threshold_space_figure,
)
from .graph_path import graph_path
from .grid import RULES, ThresholdGrid, make_axes, threshold_grid
from .operating_point import (
    DEFAULT_SWEEP_TARGETS,
    Card,
    OperatingPoint,
    operating_point,
    operating_point_cards,
    sweep,
    sweep_table,
    what_if_table,
)
from .paths import ThresholdPath, grid_index_of, interpolate_grid, path_operating_point
from .report import ensemble_report, joint_thresholds_sentence, operating_point_report, operating_point_sentence
from .segments import Allocation, SegmentedCurves, allocate_capacity, allocate_target, segment_curves, segment_intervals

__all__ = [
    "Card",
    "operating_point_cards",
    "PNCurve",
    "Hull",
    "pn_curve",
    "upper_hull",
    "check_target",
    "target_slope",
    "cost_per_true_positive",
    "target_from_cost",
    "tie_tolerance",
    "TIE_RTOL",
    "Economics",
    "target_from_money",
    "target_text",
    "MAX_AMOUNT",
    "MoneyStatement",
    "money_statement",
    "OperatingPoint",
    "operating_point",
    "sweep",
    "sweep_table",
    "what_if_table",
    "DEFAULT_SWEEP_TARGETS",
    "Bootstrap",
    "BootstrapPoint",
    "bootstrap",
    "ThresholdGrid",
    "threshold_grid",
    "make_axes",
    "RULES",
    "ThresholdPath",
    "path_operating_point",
    "grid_index_of",
    "interpolate_grid",
    "graph_path",
    "analytic_path",
    "FAMILIES",
    "Frontier",
    "frontier",
    "best_grid_point",
    "compare_paths",
    "GraphPathBootstrap",
    "bootstrap_graph_path",
    "bootstrap_spread_table",
    "predict_joint",
    "evaluate_holdout",
    "max_flagged_point",
    "SegmentedCurves",
    "segment_curves",
    "Allocation",
    "allocate_capacity",
    "allocate_target",
    "segment_intervals",
    "operating_point_sentence",
    "joint_thresholds_sentence",
    "operating_point_report",
    "ensemble_report",
    "pn_figure",
    "pn_figure_parts",
    "point_marks",
    "marginal_precision_figure",
    "marginal_precision_parts",
    "target_marks",
    "score_histogram_figure",
    "threshold_space_figure",
    "paths_pn_figure",
    "segments_figure",
]
