"""The dashboard server's settings read from the environment: one reader for every number it takes from there."""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Mapping

__all__ = ["env_number"]

_LOG = logging.getLogger(__name__)


def env_number(
    variable: str, default: float, *, unit: str, upper: float = math.inf, environ: Mapping[str, str] | None = None
) -> float:
    """The number an environment variable sets (``0 <= value <= upper``), else ``default``.

    A server setting that is not such a number (text, a negative number, NaN, too large) is not a reason to refuse
    to start: the default holds and the server's log says so, naming the variable, what it held and the ``unit``.

    Parameters
    ----------
    variable : str
        The variable, e.g. ``"OPSTUDIO_CACHE_MB"``; unset or blank: the default.
    default : float
        The value when the variable is unset, blank or not a valid number.
    unit : str
        What the number counts, for the warning ("seconds", "megabytes").
    upper : float
        The largest value taken (``inf``: infinity itself is allowed, e.g. "never").
    environ : mapping, optional
        The environment (default ``os.environ``).

    Returns
    -------
    float
    """
    raw = (os.environ if environ is None else environ).get(variable, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not 0 <= value <= upper:  # negative, NaN or too large
        _LOG.warning("%s=%r is not a number of %s >= 0: %g %s", variable, raw[:40], unit, default, unit)
        return default
    return value
