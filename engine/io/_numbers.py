"""Text to numbers, exactly: every decimal string becomes the nearest double, on every supported pandas.

``pandas.to_numeric`` on text before pandas 3.1 uses a fast routine that can be one
unit in the last place off (``'0.028469230769230768'`` became ``0.0284692307692307``),
so two distinct thresholds of a file could become one; ``read_csv``'s default float
parser likewise. The engine finds *which* values are numbers with pandas and converts
those with Python's correctly rounded ``float``, and reads CSV with :data:`EXACT_READ_CSV`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["to_floats", "is_number", "EXACT_READ_CSV"]

_PANDAS_EXACT = tuple(int(p) for p in pd.__version__.split(".")[:2]) >= (3, 1)
#: ``pandas.read_csv`` arguments that parse floats exactly: its round-trip parser before pandas 3.1
#: (which parses exactly by default and deprecates the argument)
EXACT_READ_CSV: dict = {} if _PANDAS_EXACT else {"float_precision": "round_trip"}


def to_floats(values: pd.Series) -> np.ndarray:
    """The values as float64, NaN where a value is missing or not a number.

    Parameters
    ----------
    values : pandas.Series
        Numbers, or text holding numbers (surrounding spaces allowed).

    Returns
    -------
    numpy.ndarray of float64
        Each text value parsed to the nearest double (as Python's ``float`` does).
    """
    coerced = pd.to_numeric(values, errors="coerce")
    out = coerced.to_numpy(dtype=np.float64, na_value=np.nan)
    if _PANDAS_EXACT or pd.api.types.is_numeric_dtype(values.dtype):
        return out
    # only text is re-parsed: a number or a bool in an object column keeps what pandas made of it (str(False)
    # is no number)
    raw = values.to_numpy(dtype=object)
    text = ~np.isnan(out) & np.fromiter((isinstance(v, str) for v in raw), dtype=bool, count=raw.size)
    if text.any():
        out[text] = np.fromiter((float(v.strip()) for v in raw[text]), dtype=np.float64, count=int(text.sum()))
    return out


def is_number(text: object) -> bool:
    """Whether a value reads as a number (Python's ``float`` of its text).

    Parameters
    ----------
    text : object
        A field of a file (text, or anything whose ``str`` is read).

    Returns
    -------
    bool
    """
    try:
        float(str(text))
        return True
    except ValueError:
        return False
