"""The engine's input errors: one base class, messages that name the column, the rows and the fix."""

from __future__ import annotations

import numpy as np

__all__ = ["InputError", "RatedDataError", "BatchDataError", "describe_rows", "MAX_LISTED", "ROW_NOTE"]


class InputError(ValueError):
    """Invalid input (a file, a column, an argument). The message names what is wrong, where, and the fix.

    Every loader and validator of the engine raises this class or a subclass, so
    the dashboard and the command line catch one type and show its message.
    """


class RatedDataError(InputError):
    """Invalid rated data or aggregated counts."""


class BatchDataError(InputError):
    """Invalid probability batches."""


#: how many offending rows a message lists before "and N more"
MAX_LISTED = 5
ROW_NOTE = "(row 1 = first data row)"


def describe_rows(mask_or_index: np.ndarray) -> str:
    """'rows 3, 8, 9 and 12 more' for a boolean mask or 0-based index array.

    Parameters
    ----------
    mask_or_index : numpy.ndarray
        Boolean mask over the rows, or 0-based row indices.

    Returns
    -------
    str
        The first :data:`MAX_LISTED` rows, 1-based, how many more there are, and
        :data:`ROW_NOTE`.
    """
    idx = np.flatnonzero(mask_or_index) if mask_or_index.dtype == bool else np.asarray(mask_or_index)
    shown = ", ".join(str(i + 1) for i in idx[:MAX_LISTED])
    more = f" and {len(idx) - MAX_LISTED} more" if len(idx) > MAX_LISTED else ""
    word = "row" if len(idx) == 1 else "rows"
    return f"{word} {shown}{more} {ROW_NOTE}"
