"""Arguments of the engine's public functions checked before use: a wrong type or value is an InputError naming it.

The engine is called by the pages, the command line and scripts. A script may pass text where a
number goes (``monitor(counts, threshold="0.5", window="x")``), a boolean, an array, NaN: each is
refused here with the argument's name, what it must be and what was given, instead of a
``TypeError`` deep inside numpy. Text is refused even when it spells a number: the engine's
arguments are typed, and only files and command lines are parsed (by the loaders and argparse).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Collection

from .errors import InputError

__all__ = ["number", "whole", "choice", "instance", "column_name"]


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
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
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
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputError(f"{name} must be a whole number{bounds}, got {_shown(value)} ({type(value).__name__})")
    if not isinstance(value, numbers.Integral) and not (math.isfinite(value) and float(value).is_integer()):
        raise InputError(f"{name} must be a whole number{bounds}, got {_shown(value)}")
    n = int(float(value)) if not isinstance(value, numbers.Integral) else int(value)
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
