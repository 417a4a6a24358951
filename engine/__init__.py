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

#: the one place the version is written: pyproject.toml reads it (``[tool.setuptools.dynamic]``), records and
#: policies carry it (``engine.reporting.ENGINE_VERSION``)
__version__ = "0.1.0"

# Re-exported lazily (PEP 562): ``import engine.cli`` (``opstudio --help``, the ``opstudio app`` launcher)
# must not import numpy, pandas or scikit-learn; ``from engine import X`` imports X's subpackage on first use.
_EXPORTS = {
    "ConstrainedModel": "constraints",
    "InfeasibleConstraintsError": "errors",
    "fit_constrained": "constraints",
    "InputError": "errors",
    "RatedDataError": "errors",
    "ColumnMapping": "io",
    "RatedData": "io",
    "load_counts": "io",
    "load_rated": "io",
    "read_table": "io",
    **dict.fromkeys(
        [
            "OperatingPoint",
            "ThresholdGrid",
            "analytic_path",
            "bootstrap",
            "graph_path",
            "operating_point",
            "path_operating_point",
            "pn_curve",
            "sweep",
            "threshold_grid",
            "upper_hull",
        ],
        "pn",
    ),
    "EarlyExitPolicy": "qwyc",
    "fit_qwyc": "qwyc",
    "Decision": "setloss",
    "expected_losses": "setloss",
    "get_loss": "setloss",
    "optimal_decision": "setloss",
}


def __getattr__(name: str):
    if name in _EXPORTS:
        import importlib

        value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "InputError",
    "RatedDataError",
    "ColumnMapping",
    "RatedData",
    "load_rated",
    "load_counts",
    "read_table",
    "OperatingPoint",
    "pn_curve",
    "upper_hull",
    "operating_point",
    "sweep",
    "bootstrap",
    "ThresholdGrid",
    "threshold_grid",
    "graph_path",
    "analytic_path",
    "path_operating_point",
    "Decision",
    "get_loss",
    "expected_losses",
    "optimal_decision",
    "ConstrainedModel",
    "InfeasibleConstraintsError",
    "fit_constrained",
    "EarlyExitPolicy",
    "fit_qwyc",
    "__version__",
]
