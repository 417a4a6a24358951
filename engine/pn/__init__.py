"""PN curves, marginal precision and operating points of one or several classifiers on predicted-positive data.

Robles, E., Zaidouni, F., Mavromoustaki, A. & Refael, P. (2020). *Threshold
Optimization in Multiple Binary Classifiers for Extreme Rare Events using
Predicted Positive Data.* AAAI Spring Symposium on Combining Machine Learning
with Knowledge Engineering (AAAI-MAKE 2020), CEUR-WS Vol-2600, paper 19.

One classifier: :func:`pn_curve`, :func:`upper_hull`, :func:`operating_point`,
:func:`sweep`, :func:`bootstrap`. Several classifiers: :func:`threshold_grid`
(eq. 1), :func:`graph_path` (Algorithm 3), :func:`analytic_path` (Algorithm 2),
:func:`path_operating_point` (Algorithm 1), and the checks :func:`compare_paths`,
:func:`frontier`, :func:`best_grid_point`, :func:`bootstrap_graph_path`. Segments: one threshold
per segment at one marginal precision or a review capacity (:func:`segment_curves`,
:func:`allocate_target`, :func:`allocate_capacity`, :func:`segment_intervals`); the most flagged
rows a budget allows (:func:`max_flagged_point`); a target from money (:class:`Economics`,
:func:`target_from_money`). What is drawn or said for people (figures, cards, tables, sentences,
reports, the money statement) is :mod:`engine.pn.display`; the compiled kernels are
``engine.pn.kernels``. Every other module is private.
"""

from ._analytic_path import FAMILIES, analytic_path
from ._bootstrap import Bootstrap, bootstrap
from ._budget import max_flagged_point
from ._comparison import best_grid_point, bootstrap_graph_path, compare_paths, frontier
from ._curve import Hull, cost_per_true_positive, pn_curve, upper_hull
from ._economics import MAX_AMOUNT, Economics, target_from_money
from ._graph_path import graph_path
from ._grid import ThresholdGrid, threshold_grid
from ._operating_point import OperatingPoint, operating_point, sweep
from ._paths import path_operating_point
from ._segments import allocate_capacity, allocate_target, segment_curves, segment_intervals
from .display import (
    DEFAULT_SWEEP_TARGETS,
    bootstrap_spread_table,
    ensemble_report,
    joint_thresholds_sentence,
    marginal_precision_parts,
    money_statement,
    operating_point_cards,
    operating_point_report,
    operating_point_sentence,
    paths_pn_figure,
    pn_figure_parts,
    point_marks,
    score_histogram_figure,
    segments_figure,
    sweep_table,
    target_marks,
    target_text,
    threshold_space_figure,
    what_if_table,
)

#: the package's public modules beside this front (every other module is private)
__public_modules__ = ("display", "counting")

__all__ = [
    "pn_curve",
    "upper_hull",
    "Hull",
    "operating_point",
    "OperatingPoint",
    "sweep",
    "cost_per_true_positive",
    "bootstrap",
    "Bootstrap",
    "threshold_grid",
    "ThresholdGrid",
    "graph_path",
    "analytic_path",
    "FAMILIES",
    "path_operating_point",
    "compare_paths",
    "frontier",
    "best_grid_point",
    "bootstrap_graph_path",
    "segment_curves",
    "allocate_target",
    "allocate_capacity",
    "segment_intervals",
    "max_flagged_point",
    "Economics",
    "target_from_money",
    "MAX_AMOUNT",
    # what the pages, views and the CLI draw and say (defined in pn.display)
    "DEFAULT_SWEEP_TARGETS",
    "bootstrap_spread_table",
    "ensemble_report",
    "joint_thresholds_sentence",
    "marginal_precision_parts",
    "money_statement",
    "operating_point_cards",
    "operating_point_report",
    "operating_point_sentence",
    "paths_pn_figure",
    "pn_figure_parts",
    "point_marks",
    "score_histogram_figure",
    "segments_figure",
    "sweep_table",
    "target_marks",
    "target_text",
    "threshold_space_figure",
    "what_if_table",
]
