"""Which documents an audit reviews: the same ones for the same seed on every backend.

Each document gets the key ``md5(f"{seed}:{id}")[:16]`` — the first 16 hex digits (64 bits)
of the MD5 digest of the seed, a colon and the id's text (UTF-8) — and each stratum reviews
its ``n_h`` documents with the smallest keys, ties broken by the id's text. Python
(:mod:`hashlib`), DuckDB (``md5``) and Spark SQL (``md5``) compute the same lowercase hex
digits, and fixed-width lowercase hex strings sort like the numbers they spell, so the
backends need no 64-bit arithmetic: taking the smallest hashes of a uniform hash is a simple
random sample without replacement within each stratum (the "bottom-k" sample; Cohen & Kaplan,
"Summarizing data using bottom-k sketches", PODC 2007). MD5 is used for its portability and
uniformity, not for security. (splitmix64, :mod:`engine.pn._replicates`, needs 64-bit
wrap-around products that DuckDB and Spark only emulate with 128-bit or decimal arithmetic —
measured at ~50x slower than ``md5`` in DuckDB.)

**The id's text**: integers in decimal (``-7``, ``123``), text as it is. Decimal-number ids
are refused (their text differs between Python, DuckDB and Spark). CSV files are read with
every id as text on every backend, so ``007`` stays ``007``.

**Out of core**: a backend returns only *candidates* — the documents whose key is below a
per-stratum cutoff chosen so that about ``n_h + 4 sqrt(n_h) + 16`` are expected — and
:func:`select` takes the ``n_h`` smallest in Python; a stratum with too few candidates (odds
about 1 in 30,000) is read again with a wider cutoff.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from .._arguments import whole_number
from ..errors import InputError

__all__ = ["KEY_DIGITS", "selection_keys", "key_prefix", "id_texts", "cutoffs", "cutoff_limits", "select", "check_seed"]

#: hex digits of the MD5 digest kept as the selection key (64 bits)
KEY_DIGITS = 16


def check_seed(seed) -> int:
    """The seed as an int in [0, 2**32).

    Parameters
    ----------
    seed : int

    Returns
    -------
    int

    Raises
    ------
    InputError
        Not a whole number in [0, 2**32).
    """
    return whole_number(seed, "--seed", 0, 2**32 - 1)


def key_prefix(seed: int) -> str:
    """The text hashed before each id: ``f"{seed}:"``.

    Parameters
    ----------
    seed : int

    Returns
    -------
    str
    """
    return f"{check_seed(seed)}:"


def selection_keys(ids: Sequence[str] | np.ndarray, seed: int) -> np.ndarray:
    """The selection key of each id: ``md5(f"{seed}:{id}".encode("utf-8")).hexdigest()[:16]``.

    Parameters
    ----------
    ids : sequence of str
        The ids' texts (:func:`id_texts`).
    seed : int

    Returns
    -------
    numpy.ndarray of str
        16 lowercase hex digits per id.
    """
    prefix = key_prefix(seed)
    try:
        return np.array([hashlib.md5((prefix + i).encode("utf-8")).hexdigest()[:KEY_DIGITS] for i in ids], dtype=object)
    except TypeError:
        raise InputError("ids are hashed as text: give their texts (engine.audit._selection.id_texts)") from None


def id_texts(values, column: str = "id") -> np.ndarray:
    """Ids as the text every backend hashes: integers in decimal, text unchanged.

    Parameters
    ----------
    values : array_like or pandas.Series
        The id column.
    column : str
        Its name, for messages.

    Returns
    -------
    numpy.ndarray of str

    Raises
    ------
    InputError
        Missing ids, or ids that are decimal numbers or booleans.
    """
    s = pd.Series(values)
    if pd.api.types.is_bool_dtype(s) or pd.api.types.is_float_dtype(s):
        raise InputError(
            f"Id column '{column}' holds {'true/false' if pd.api.types.is_bool_dtype(s) else 'decimal'} "
            "values: ids must be whole numbers or text (their text is hashed to select documents)."
        )
    missing = s.isna().to_numpy()
    if missing.any():
        raise InputError(f"Id column '{column}': {int(missing.sum()):,} rows have no id. Every document needs an id.")
    if pd.api.types.is_integer_dtype(s):
        return s.astype(np.int64).astype(str).to_numpy(dtype=object)
    kinds = {type(v) for v in s.to_numpy()}
    if not kinds <= {str}:
        raise InputError(
            f"Id column '{column}' mixes text with {', '.join(sorted(k.__name__ for k in kinds - {str}))} "
            "values: ids must be whole numbers or text."
        )
    return s.to_numpy(dtype=object)


def cutoffs(documents, sample, widen: int = 1) -> list[str | None]:
    """Per stratum, the key below which its candidates lie (None: every document is a candidate).

    Parameters
    ----------
    documents, sample : array_like of int
        ``N_h`` and ``n_h`` per stratum.
    widen : int
        Multiplies the expected number of candidates (a stratum read again after falling short).

    Returns
    -------
    list of (str or None)
        16 hex digits: about ``widen * (n_h + 4 sqrt(n_h) + 16)`` candidates are expected.
    """
    out = []
    for big_n, n in zip(np.asarray(documents, dtype=np.int64), np.asarray(sample, dtype=np.int64)):
        want = widen * (n + 4 * math.sqrt(n) + 16)
        out.append(None if want >= big_n else format(min(int(want / big_n * 2.0**64), (1 << 64) - 1), "016x"))
    return out


def cutoff_limits(cuts) -> list[str]:
    """The cutoffs as strings a key is compared with: None (no cutoff) becomes ``"g"``, above every hex digit.

    Parameters
    ----------
    cuts : sequence of (str or None)
        :func:`cutoffs`' result.

    Returns
    -------
    list of str
    """
    return [c if c is not None else "g" for c in cuts]


def select(candidates: pd.DataFrame, sample) -> tuple[pd.DataFrame, list[int]]:
    """The ``n_h`` candidates with the smallest keys in each stratum (ties: the smaller id text).

    Parameters
    ----------
    candidates : pandas.DataFrame
        Columns ``id`` (text), ``score``, ``stratum`` (0-based) and ``key`` (16 hex digits): every
        document of the stratum whose key is below the stratum's cutoff.
    sample : array_like of int
        ``n_h`` per stratum.

    Returns
    -------
    (pandas.DataFrame, list of int)
        The selected rows (by stratum, then key) and the strata with fewer candidates than ``n_h``
        (read them again with a wider cutoff).

    Raises
    ------
    InputError
        Two candidates with one id (ids must be unique; two documents sharing an id share
        their key, so they are candidates together).
    """
    n = np.asarray(sample, dtype=np.int64)
    repeated = candidates["id"][candidates["id"].duplicated()]
    if len(repeated):  # two documents with one id share their key: both are candidates together
        raise InputError(
            f"Id {repeated.iloc[0]!r} belongs to more than one document of the population: ids must be "
            "unique (each selected document is looked up by its id)."
        )
    ordered = candidates.sort_values(["stratum", "key", "id"], kind="stable")
    strata = ordered["stratum"].to_numpy(dtype=np.int64)
    short = [h for h in range(n.size) if int(np.sum(strata == h)) < n[h]]
    rank = ordered.groupby("stratum").cumcount().to_numpy()
    return ordered[rank < n[strata]].reset_index(drop=True), short
