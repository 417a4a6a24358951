"""What the Early exit page, the CLI and the record show of an early-exit policy: figures and tables for people."""

from ._deployment import decisions_frame
from ._figures import blank_figure, fidelity_figure, models_histogram_figure, thresholds_figure, tradeoff_figure
from ._timing import timing_table

__all__ = [
    "tradeoff_figure",
    "models_histogram_figure",
    "thresholds_figure",
    "fidelity_figure",
    "blank_figure",
    "timing_table",
    "decisions_frame",
]
