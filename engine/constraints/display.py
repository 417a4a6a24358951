"""What the Constrained training page and the record show: the trade-off figures and a model's rates."""

from ._figures import churn_tradeoff_figure, fairness_tradeoff_figure
from ._tabular import rates_frame

__all__ = ["fairness_tradeoff_figure", "churn_tradeoff_figure", "rates_frame"]
