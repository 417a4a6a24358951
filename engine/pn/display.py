"""What the Operating point and Ensemble paths pages, the CLI and the reports show of a PN result.

Cards (:func:`operating_point_cards`), tables (:func:`sweep_table`, :func:`what_if_table`,
:func:`bootstrap_spread_table`), sentences and reports (:func:`operating_point_sentence`,
:func:`joint_thresholds_sentence`, :func:`operating_point_report`, :func:`ensemble_report`), the money
statement (:func:`money_statement`, :func:`target_text`) and the figures and their parts (:func:`pn_figure`,
:func:`marginal_precision_figure`, :func:`paths_pn_figure`, ...). The computations are :mod:`engine.pn`.
"""

from ._comparison import bootstrap_spread_table
from ._economics import MoneyStatement, money_statement, target_text
from ._figures import (
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
from ._operating_point import DEFAULT_SWEEP_TARGETS, Card, operating_point_cards, sweep_table, what_if_table
from ._report import ensemble_report, joint_thresholds_sentence, operating_point_report, operating_point_sentence

__all__ = [
    "Card",
    "operating_point_cards",
    "sweep_table",
    "DEFAULT_SWEEP_TARGETS",
    "what_if_table",
    "bootstrap_spread_table",
    "operating_point_sentence",
    "joint_thresholds_sentence",
    "operating_point_report",
    "ensemble_report",
    "MoneyStatement",
    "money_statement",
    "target_text",
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
