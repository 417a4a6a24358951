"""Bootstrap replicates any backend reproduces: Poisson(1) weights from a hash of (row id, replicate).

The Poisson bootstrap (Hanley & MacGibbon 2006; Chamandy et al. 2012) gives every
document an independent Poisson(1) count in each replicate instead of a multinomial
draw of n, so a replicate needs no global state: the count of a row depends only on
(its id, the replicate, the seed). Computed here in numpy (uint64 arithmetic) and in
SQL by :func:`engine.backends._duckdb.poisson_sql` (128-bit integers with explicit
``mod 2**64``), the counts are identical bit for bit.

**Hash** (splitmix64, Steele, Lea & Flood 2014): for replicate r the stream key is
``key_r = mix64(seed * 2**32 + r)``; the row with id ``i`` (a non-negative integer
below 2**63) gets ``h = mix64((i + 1) * GOLDEN + key_r  mod 2**64)``, i.e. the i-th
output of splitmix64 started at ``key_r``, where
``mix64(z)``: ``z = (z xor z>>30) * MIX1``; ``z = (z xor z>>27) * MIX2``; ``z xor z>>31`` (all mod 2**64).

**Poisson(1) by inverse CDF**: the count is the number of table entries
``POISSON1_THRESHOLDS[k] = floor(2**64 * P(X <= k))`` (k = 0..19, computed once with
80-digit decimals) that ``h`` reaches, so ``P(count = k)`` equals the Poisson(1)
probability to within 2**-64, and counts stop at 20.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError

__all__ = ["GOLDEN", "MIX1", "MIX2", "POISSON1_THRESHOLDS", "mix64", "replicate_key", "row_hash", "poisson_counts"]

GOLDEN = 0x9E3779B97F4A7C15
MIX1 = 0xBF58476D1CE4E5B9
MIX2 = 0x94D049BB133111EB
_MASK = (1 << 64) - 1

#: floor(2**64 * P(X <= k)) for X ~ Poisson(1), k = 0 .. 19
POISSON1_THRESHOLDS: tuple[int, ...] = (
    6786177901268885274,
    13572355802537770549,
    16965444753172213186,
    18096474403383694065,
    18379231815936564285,
    18435783298447138329,
    18445208545532234003,
    18446555009401533385,
    18446723317385195808,
    18446742018272269410,
    18446743888360976771,
    18446744058369041076,
    18446744072536379768,
    18446744073626175052,
    18446744073704017573,
    18446744073709207074,
    18446744073709531418,
    18446744073709550497,
    18446744073709551557,
    18446744073709551613,
)


def mix64(z):
    """splitmix64's finaliser on uint64 arrays (wrap-around multiplication), or on a Python int.

    Parameters
    ----------
    z : numpy.ndarray of uint64, or int in [0, 2**64)

    Returns
    -------
    numpy.ndarray of uint64, or int
        The mixed value(s).

    References
    ----------
    Steele, Lea & Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014.
    """
    if isinstance(z, (int, np.integer)) and not isinstance(z, np.ndarray):
        z = int(z) & _MASK
        z = ((z ^ (z >> 30)) * MIX1) & _MASK
        z = ((z ^ (z >> 27)) * MIX2) & _MASK
        return z ^ (z >> 31)
    z = np.asarray(z, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(MIX1)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(MIX2)
    return z ^ (z >> np.uint64(31))


def replicate_key(replicate: int, seed: int = 0) -> int:
    """The splitmix64 stream key of one replicate: ``mix64(seed * 2**32 + replicate)``.

    Parameters
    ----------
    replicate : int
        Replicate number (0-based, below 2**32).
    seed : int
        Seed (non-negative, below 2**32).

    Returns
    -------
    int
        A 64-bit key.
    """
    if not (0 <= int(replicate) < 1 << 32 and 0 <= int(seed) < 1 << 32):
        raise InputError("replicate and seed must be integers in [0, 2**32)")
    return mix64((int(seed) << 32) + int(replicate))


def row_hash(ids, replicate: int, seed: int = 0) -> np.ndarray:
    """64-bit hash of (row id, replicate): ``mix64((id + 1) * GOLDEN + key  mod 2**64)``.

    Parameters
    ----------
    ids : array_like of int
        Row ids, non-negative and below 2**63.
    replicate, seed : int

    Returns
    -------
    numpy.ndarray of uint64

    References
    ----------
    Steele, Lea & Flood (2014): the id-th output of splitmix64 started at the replicate's key.
    """
    i = np.asarray(ids)
    if i.size and (i.min() < 0 or not np.issubdtype(i.dtype, np.integer)):
        raise InputError("row ids must be non-negative integers")
    with np.errstate(over="ignore"):
        state = (i.astype(np.uint64) + np.uint64(1)) * np.uint64(GOLDEN) + np.uint64(replicate_key(replicate, seed))
    return mix64(state)


def poisson_counts(ids, replicates, seed: int = 0) -> np.ndarray:
    """Poisson(1) bootstrap counts of every row in every replicate (inverse CDF over a fixed table).

    Parameters
    ----------
    ids : array_like of int
        Row ids (non-negative, below 2**63): the same row gets the same counts on every backend.
    replicates : array_like of int
        Replicate numbers.
    seed : int

    Returns
    -------
    numpy.ndarray
        ``(len(replicates), len(ids))`` int64 counts in 0 .. 20.

    References
    ----------
    Hanley & MacGibbon, "Creating non-parametric bootstrap samples using Poisson frequencies",
    Computer Methods and Programs in Biomedicine 83 (2006); Chamandy, Muralidharan, Najmi & Naidu,
    "Estimating uncertainty for massive data streams", Google (2012).
    """
    thresholds = np.array(POISSON1_THRESHOLDS, dtype=np.uint64)
    reps = np.atleast_1d(np.asarray(replicates, dtype=np.int64))
    out = np.empty((reps.size, np.size(ids)), dtype=np.int64)
    for row, r in enumerate(reps):
        out[row] = np.searchsorted(thresholds, row_hash(ids, int(r), seed), side="right")
    return out
