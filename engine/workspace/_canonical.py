"""Canonical JSON and SHA-256: the one way the workspace writes settings, evidence and records, and hashes them.

A value is written with sorted keys, no spaces, ASCII escapes and Python's shortest round-trip
floats (non-finite floats as ``Infinity`` / ``NaN``, read back by :func:`json.loads`), so the same
value always gives the same text on every database, and the hash of the stored text is the hash
of the value.
"""

from __future__ import annotations

import hashlib
import json
import numbers
from collections.abc import Mapping
from typing import Any

from ..errors import InputError
from ..untrusted import MAX_JSON_DEPTH, parse_json

__all__ = ["canonical", "plain_canonical", "sha256_text", "read_canonical", "MAX_FIELD_BYTES"]

#: largest settings, evidence or record body stored (canonical JSON)
MAX_FIELD_BYTES = 4 * 2**20
# one encoder for every call (json.dumps with options builds a new one each time: 10x slower on small values)
_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=True)


def _plain(value: Any, where: str, depth: int) -> Any:
    """``value`` as JSON types (numpy scalars and arrays, tuples converted); anything else refused."""
    if depth > MAX_JSON_DEPTH:
        raise InputError(f"{where} is nested deeper than {MAX_JSON_DEPTH} levels; store a flatter value.")
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise InputError(f"{where} has a key {key!r} that is not text; JSON keys are text.")
            out[key] = _plain(item, f"{where}[{key!r}]", depth + 1)
        return out
    if isinstance(value, (list, tuple)) or hasattr(value, "tolist"):
        items = value.tolist() if hasattr(value, "tolist") else value
        if not isinstance(items, list):  # a numpy scalar's tolist() is the scalar
            return _plain(items, where, depth)
        return [_plain(item, f"{where}[{i}]", depth + 1) for i, item in enumerate(items)]
    raise InputError(f"{where} holds a {type(value).__name__}; store numbers, text, lists and dicts only.")


def canonical(value: Any, what: str = "value") -> str:
    """The canonical JSON text of ``value``.

    Parameters
    ----------
    value : Any
        Numbers (numpy's included), text, booleans, None, lists, tuples and dicts with text keys.
    what : str
        What the value is, for messages (``"the view's settings"``).

    Returns
    -------
    str
        Sorted keys, no spaces, ASCII only.

    Raises
    ------
    InputError
        A type JSON cannot hold, too deep, or over :data:`MAX_FIELD_BYTES`.
    """
    text = json.dumps(_plain(value, what, 0), sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=True)
    if len(text) > MAX_FIELD_BYTES:
        raise InputError(
            f"{what} is {len(text) / 2**20:,.1f} MB as JSON; at most {MAX_FIELD_BYTES / 2**20:,.0f} MB is stored. "
            "Store the data as a dataset and refer to its SHA-256 instead."
        )
    return text


def plain_canonical(value: Any) -> str:
    """:func:`canonical` of a value already made of Python's JSON types (str, int, float, None, list, dict),
    unchecked: the hashes of stored rows, recomputed by the hundred thousand.

    Parameters
    ----------
    value : Any
        Built-in JSON types only (what the database returns); anything else gives a different text.

    Returns
    -------
    str
    """
    return _ENCODER.encode(value)


def read_canonical(text: str, what: str) -> Any:
    """Read back a value written by :func:`canonical` (within the JSON limits of :mod:`engine.untrusted`).

    Parameters
    ----------
    text : str
        The stored text.
    what : str
        What it is, for messages.

    Returns
    -------
    Any
    """
    return parse_json(text, what=what, max_bytes=MAX_FIELD_BYTES, allow_nan=True)


def sha256_text(text: str) -> str:
    """Hex SHA-256 of a text's UTF-8 bytes.

    Parameters
    ----------
    text : str

    Returns
    -------
    str
        64 lowercase hex digits.
    """
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
