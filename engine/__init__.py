"""Operating Point Studio engine: headless, importable without Streamlit.

Grouped by paper, each a subpackage that cites it:

* :mod:`engine.pn` - PN curves, operating points, joint thresholds (Robles et al., AAAI-MAKE 2020).
* :mod:`engine.setloss` - expected-loss-optimal batch decisions (Natarajan et al., ICML 2016).
* :mod:`engine.constraints` - training under dataset constraints (Goh et al., NIPS 2016).
* :mod:`engine.qwyc` - early exit for ensembles (Wang, Gupta & You, 2018).

Shared: :mod:`engine.io` (every input), :mod:`engine.errors` (one input-error
class), :mod:`engine.plotting` and :mod:`engine.reporting` (figure style, HTML
and JSON reports), :mod:`engine.cli` (``opstudio``).

This module re-exports each paper's entry points.
"""

from .constraints import ConstrainedModel, InfeasibleConstraintsError, fit_constrained
from .errors import InputError, RatedDataError
from .io import ColumnMapping, RatedData, load_counts, load_rated, read_table
from .pn import (
    OperatingPoint,
    ThresholdGrid,
    analytic_path,
    bootstrap,
    graph_path,
    operating_point,
    path_operating_point,
    pn_curve,
    sweep,
    threshold_grid,
    upper_hull,
)
from .qwyc import EarlyExitPolicy, fit_qwyc
from .reporting import ENGINE_VERSION as __version__
from .setloss import Decision, expected_losses, get_loss, optimal_decision

__all__ = [
    "InputError", "RatedDataError",
    "ColumnMapping", "RatedData", "load_rated", "load_counts", "read_table",
    "OperatingPoint", "pn_curve", "upper_hull", "operating_point", "sweep", "bootstrap",
    "ThresholdGrid", "threshold_grid", "graph_path", "analytic_path", "path_operating_point",
    "Decision", "get_loss", "expected_losses", "optimal_decision",
    "ConstrainedModel", "InfeasibleConstraintsError", "fit_constrained",
    "EarlyExitPolicy", "fit_qwyc",
    "__version__",
]
