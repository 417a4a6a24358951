"""Arguments of the engine's public functions checked before use: a wrong type or value is an InputError naming it.

Two wordings share the same checks: :func:`number`, :func:`whole`, :func:`choice`, :func:`instance` and
:func:`column_name` name the argument and its range (monitoring, money, reviewers); :func:`real_number`,
:func:`whole_number`, :func:`real_numbers` and :func:`number_array` name it as its command-line flag with
what it is (the audit's functions).

The engine is called by the pages, the command line and scripts. A script may pass text where a
number goes (``monitor(counts, threshold="0.5", window="x")``), a boolean, an array, NaN: each is
refused here with the argument's name, what it must be and what was given, instead of a
``TypeError`` deep inside numpy. Text is refused even when it spells a number: the engine's
arguments are typed, and only files and command lines are parsed (by the loaders and argparse).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence

import numpy as np

from .errors import InputError

__all__ = [
    "number",
    "whole",
    "choice",
    "instance",
    "column_name",
    "real_number",
    "whole_number",
    "real_numbers",
    "number_array",
]


def _is_real(value) -> bool:
    return not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, float, np.integer, np.floating))


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _range(low, high, low_open: bool, high_open: bool) -> str:
    if low is not None and high is not None:
        return f" in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
    if low is not None:
        return f" {'>' if low_open else '>='} {low:g}"
    if high is not None:
        return f" {'<' if high_open else '<='} {high:g}"
    return ""


def number(
    value,
    name: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """``value`` as a finite float within the bounds.

    Parameters
    ----------
    value : object
        A real number: a Python or NumPy int or float (not a bool, not text, not an array).
    name : str
        The argument's name, for the message.
    low, high : float, optional
        Bounds (none by default).
    low_open, high_open : bool, optional
        Whether the bounds themselves are excluded.

    Returns
    -------
    float

    Raises
    ------
    InputError
        Not a real number, not finite, or outside the bounds.
    """
    bounds = _range(low, high, low_open, high_open)
    if not _is_real(value):
        raise InputError(f"{name} must be a number{bounds}, got {_shown(value)} ({type(value).__name__})")
    x = float(value)
    if (
        not math.isfinite(x)
        or (low is not None and (x < low or (low_open and x == low)))
        or (high is not None and (x > high or (high_open and x == high)))
    ):
        raise InputError(f"{name} must be a finite number{bounds}, got {_shown(value)}")
    return x


def whole(value, name: str, *, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an int within the bounds (a float is accepted when it is a whole number).

    Parameters
    ----------
    value : object
        A Python or NumPy integer, or a float holding a whole number.
    name : str
        The argument's name, for the message.
    low, high : int, optional
        Inclusive bounds.

    Returns
    -------
    int

    Raises
    ------
    InputError
        Not a whole number, or outside the bounds.
    """
    bounds = _range(low, high, False, False)
    if not _is_real(value):
        raise InputError(f"{name} must be a whole number{bounds}, got {_shown(value)} ({type(value).__name__})")
    integral = isinstance(value, (int, np.integer))
    if not integral and not (math.isfinite(float(value)) and float(value).is_integer()):
        raise InputError(f"{name} must be a whole number{bounds}, got {_shown(value)}")
    n = int(value) if integral else int(float(value))
    if (low is not None and n < low) or (high is not None and n > high):
        raise InputError(f"{name} must be a whole number{bounds}, got {_shown(value)}")
    return n


def choice(value, name: str, options: Collection[str]) -> str:
    """``value`` if it is one of ``options`` (text compared exactly).

    Parameters
    ----------
    value : object
    name : str
        The argument's name, for the message.
    options : collection of str

    Returns
    -------
    str

    Raises
    ------
    InputError
        Not one of the options.
    """
    if not isinstance(value, str) or value not in options:
        raise InputError(f"{name} must be one of {', '.join(options)}, got {_shown(value)}")
    return value


def instance(value, name: str, kind: type, what: str):
    """``value`` if it is a ``kind``, else an InputError saying what the argument must be.

    Parameters
    ----------
    value : object
    name : str
        The argument's name.
    kind : type
        The class expected.
    what : str
        How to obtain one, for the message (``"from period_counts(...)"``).

    Returns
    -------
    object
        ``value``.

    Raises
    ------
    InputError
        Not an instance of ``kind``.
    """
    if not isinstance(value, kind):
        raise InputError(f"{name} must be a {kind.__name__} ({what}), got {type(value).__name__}")
    return value


def column_name(value, name: str) -> str | None:
    """An optional column name: None or text.

    Parameters
    ----------
    value : object
    name : str
        The argument's name.

    Returns
    -------
    str or None

    Raises
    ------
    InputError
        Neither None nor text.
    """
    if value is not None and not isinstance(value, str):
        raise InputError(f"{name} must be a column name (text), got {_shown(value)} ({type(value).__name__})")
    return value


# --- the audit's wording: the argument named as its command-line flag, with what it is ------------------------------


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
        ok = bool(high is None or value <= high)
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
