"""A constrained linear model trained on a user's table, and its model file (``opstudio constrain`` / ``predict``).

Every column except the label, deployed-decision, egregious-flag and split columns is a feature:
numeric columns standardised, the others one-hot encoded on the training rows' values. The
preprocessing is part of the model JSON, which :func:`read_model_json` validates before use.
"""

from ._tabular import (
    TableModel,
    TableSpec,
    TrainingColumns,
    detect_training_columns,
    model_json,
    read_model_json,
    train_on_table,
)

__all__ = [
    "TrainingColumns",
    "detect_training_columns",
    "TableSpec",
    "TableModel",
    "train_on_table",
    "model_json",
    "read_model_json",
]
