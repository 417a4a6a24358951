"""The audit functions' arguments checked before anything is computed: numbers of the right kind, or one message.

The engine's functions are called by the CLI (whose parser already made numbers), by the pages and by
users' own Python: a text where a number goes (``plan(budget="50")``), a boolean, a single number where a
list goes (``estimate(thresholds=0.5)``) or a negative count is an :class:`~engine.errors.InputError`
naming the argument (as its CLI flag), never a ``TypeError`` from deep inside numpy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..errors import InputError

__all__ = ["real_number", "whole_number", "real_numbers", "number_array"]


def _is_real(value) -> bool:
    return not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, float, np.integer, np.floating))


def real_number(value, flag: str, *, positive: bool = False, what: str = "a number") -> float:
    """A finite real number (a positive one with ``positive``).

    Parameters
    ----------
    value : object
        The argument.
    flag : str
        Its name as the CLI spells it (``--below``), for the message.
    positive : bool
        Require ``value > 0``.
    what : str
        What the number is, for the message.

    Returns
    -------
    float

    Raises
    ------
    InputError
        Not an int or float (text and booleans included), not finite, or not positive when asked.
    """
    if not _is_real(value) or not math.isfinite(float(value)) or (positive and not float(value) > 0):
        kind = "a positive finite number" if positive else "a finite number"
        raise InputError(f"{flag} must be {kind} ({what}), got {value!r}")
    return float(value)


def whole_number(value, flag: str, low: int, high: int | None = None, *, what: str = "") -> int:
    """A whole number in ``[low, high]``.

    Parameters
    ----------
    value : object
        The argument.
    flag : str
        Its name as the CLI spells it, for the message.
    low, high : int
        Bounds (``high`` None: no upper bound).
    what : str
        What the number is, for the message (e.g. "(documents to review)").

    Returns
    -------
    int

    Raises
    ------
    InputError
        Not an int (a float, text or boolean), or out of bounds.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < low:
        ok = False
    else:
        ok = high is None or value <= high
    if not ok:
        span = f"from {low:,} to {high:,}" if high is not None else f"of at least {low:,}"
        raise InputError(f"{flag} must be a whole number {span}{' ' + what if what else ''}, got {value!r}")
    return int(value)


def real_numbers(values, flag: str) -> tuple[float, ...]:
    """A sequence of finite numbers (a list, a tuple or an array; not a single number or a text).

    Parameters
    ----------
    values : sequence of float
        The argument.
    flag : str
        Its name as the CLI spells it, for the message.

    Returns
    -------
    tuple of float

    Raises
    ------
    InputError
        Not a sequence, or an element that is not a finite number.
    """
    if isinstance(values, np.ndarray):
        values = values.tolist()
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise InputError(f"{flag} must be a list of numbers (e.g. [0.5, 0.8]), got {values!r}")
    return tuple(real_number(v, flag) for v in values)


def number_array(values, flag: str, *, whole: bool = False) -> np.ndarray:
    """Per-stratum numbers as an array: finite, and whole (int64, at most 2**53) when asked.

    Parameters
    ----------
    values : array_like
        A number or a sequence of numbers.
    flag : str
        What they are, for the message.
    whole : bool
        Require whole numbers (returned as int64).

    Returns
    -------
    numpy.ndarray
        1-d float64, or int64 with ``whole``.

    Raises
    ------
    InputError
        Text, booleans, missing or infinite values, or (with ``whole``) fractions or numbers above 2**53.
    """
    try:
        x = np.atleast_1d(np.asarray(values, dtype=np.float64))
    except (TypeError, ValueError):
        raise InputError(f"{flag} must be numbers, one per stratum, got {values!r}") from None
    bad = x.ndim != 1 or not np.all(np.isfinite(x)) or np.asarray(values).dtype.kind == "b"
    if whole and not bad:
        bad = bool(np.any(x != np.round(x)) or np.any(np.abs(x) > 2**53))
    if bad:
        raise InputError(
            f"{flag} must be {'whole numbers up to 2**53' if whole else 'finite numbers'}, one per stratum"
        )
    return x.astype(np.int64) if whole else x
