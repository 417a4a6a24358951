"""What the Batch decisions page and the record show of a batch decision: figures and the table of decided items."""

from ._batches import decided_items
from ._figures import baselines_figure, batch_items_figure, expected_loss_figure

__all__ = ["expected_loss_figure", "batch_items_figure", "baselines_figure", "decided_items"]
