"""What a backend that counts where the rows live shares with the in-memory engine: the paper's arithmetic on counts.

Robles et al. (AAAI-MAKE 2020) need only aggregated counts. :mod:`engine.backends` counts them in DuckDB or Spark
and finishes with the very functions the in-memory engine uses, so both give the same numbers:

* the PN curve and its check of a target (:class:`PNCurve`, :func:`check_target`, :func:`tie_tolerance`);
* the joint threshold grid's axes and cumulative counts, by their definitions (:data:`RULES`,
  :func:`inverted_cdf_ranks`, :func:`axis_from_levels`, :func:`check_grid_size`, :func:`cumulative_counts`);
* the hashed Poisson bootstrap: the splitmix64 constants and the Poisson(1) table the backends evaluate in their
  own query language (:data:`GOLDEN`, :data:`MIX1`, :data:`MIX2`, :data:`POISSON1_THRESHOLDS`,
  :func:`replicate_key`), and each replicate's hull and operating points from its counts
  (:func:`replicate_hull`, :func:`points_at`, :class:`BootstrapPoint`).

Nothing is defined here: this module is the public route to those pieces (the modules defining them are private).
"""

from ._bootstrap import BootstrapPoint, points_at, replicate_hull
from ._curve import PNCurve, check_target, tie_tolerance
from ._grid import RULES, axis_from_levels, check_grid_size, cumulative_counts, inverted_cdf_ranks
from ._replicates import GOLDEN, MIX1, MIX2, POISSON1_THRESHOLDS, replicate_key

__all__ = [
    "PNCurve",
    "check_target",
    "tie_tolerance",
    "RULES",
    "inverted_cdf_ranks",
    "axis_from_levels",
    "check_grid_size",
    "cumulative_counts",
    "GOLDEN",
    "MIX1",
    "MIX2",
    "POISSON1_THRESHOLDS",
    "replicate_key",
    "replicate_hull",
    "points_at",
    "BootstrapPoint",
]
