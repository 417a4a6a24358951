"""What results weigh, and one cache that holds them under a byte budget (least recently used evicted first).

A server shares results between its sessions (public samples, models, training tables, sweeps). Each result is
weighed when it is stored — NumPy arrays by their buffers (a view counts its base once), pandas objects by
``memory_usage(deep=True)``, containers, dataclasses and other objects by what they reach — and the cache evicts the
least recently used results until the total is within its budget again. The dashboard keeps one instance for the
whole server (``views.state``, budget ``OPSTUDIO_CACHE_MB``, default 512); see ``docs/performance.md``.
"""

from __future__ import annotations

import dataclasses
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from types import BuiltinFunctionType, FunctionType, MethodType, ModuleType
from typing import Any, TypeVar

__all__ = ["ByteBudgetCache", "CachedEntry", "deep_size"]

T = TypeVar("T")

#: objects never weighed (code and types: shared by everything, not part of a result)
_SKIPPED = (type, ModuleType, FunctionType, BuiltinFunctionType, MethodType, threading.Thread)


def _array_root(array):
    while _is_array(getattr(array, "base", None)):
        array = array.base
    return array


def _is_array(obj) -> bool:
    return type(obj).__name__ == "ndarray" and hasattr(obj, "nbytes") and hasattr(obj, "base")


#: what an object array's cells mostly are: weighed by ``sys.getsizeof`` alone, all at once
_LEAVES = (str, bytes, int, float, complex, type(None))


def _object_cells(array: Any, seen: set[int], todo: list) -> int:
    """Bytes of an object array's text and number cells not yet counted (each object once); its other cells are
    left on ``todo`` to be followed. A column of 10^6 texts: one pass of C-level maps instead of 10^6 turns of the
    traversal loop (a 10^6-row rated table with a segment column, two columns of 10^6 distinct texts:
    0.86 s -> 0.68 s, the same bytes)."""
    cells = {id(x): x for x in array.ravel().tolist()}
    leaves = [x for i, x in cells.items() if i not in seen and isinstance(x, _LEAVES)]
    seen.update(map(id, leaves))
    todo.extend(x for x in cells.values() if not isinstance(x, _LEAVES))
    return sum(map(sys.getsizeof, leaves))


def deep_size(obj: Any) -> int:
    """Bytes an object holds, following what it references (each object, and each array buffer, counted once).

    Parameters
    ----------
    obj : object
        A result: NumPy arrays, pandas objects, containers, dataclasses, objects with ``__dict__`` or
        ``__slots__``, and anything they reference. Classes, modules and functions are not followed.

    Returns
    -------
    int
        The bytes: an array's whole buffer (a view counts its base array's once), a pandas DataFrame, Series or
        Index by ``memory_usage(deep=True)``, anything else by ``sys.getsizeof`` plus what it references.
    """
    seen: set[int] = set()
    total = 0
    todo = [obj]
    while todo:
        o = todo.pop()
        if isinstance(o, _SKIPPED) or id(o) in seen:
            continue
        seen.add(id(o))
        if _is_array(o):
            root = _array_root(o)
            if id(root) not in seen or root is o:
                seen.add(id(root))
                total += int(root.nbytes) if _is_array(root) else int(o.nbytes)
            if o.dtype.hasobject:  # object arrays: their elements too
                total += _object_cells(o, seen, todo)
            continue
        usage = getattr(o, "memory_usage", None)
        if callable(usage) and type(o).__module__.startswith("pandas"):
            used = usage(deep=True)
            total += int(used.sum()) if hasattr(used, "sum") else int(used)
            continue
        total += sys.getsizeof(o, 64)
        if isinstance(o, (str, bytes, bytearray, int, float, complex, bool)) or o is None:
            continue
        if isinstance(o, dict):
            todo.extend(o.keys())
            todo.extend(o.values())
        elif isinstance(o, (list, tuple, set, frozenset)):
            todo.extend(o)
        else:
            if dataclasses.is_dataclass(o):
                todo.extend(getattr(o, f.name, None) for f in dataclasses.fields(o))
            if hasattr(o, "__dict__"):
                todo.append(vars(o))
            for slot in getattr(type(o), "__slots__", ()):
                todo.append(getattr(o, slot, None))
    return total


@dataclass(frozen=True)
class CachedEntry:
    """One result a :class:`ByteBudgetCache` holds.

    Attributes
    ----------
    key : tuple
        Its key.
    nbytes : int
        Its weight when stored.
    hits : int
        Times it was returned without being computed.
    idle_seconds : float
        Seconds since it was last used.
    """

    key: Hashable
    nbytes: int
    hits: int
    idle_seconds: float


class _Pending:
    """A result being computed: callers asking for its key meanwhile wait for it."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.failed = False
        self.value: Any = None


class _Held:
    __slots__ = ("value", "nbytes", "hits", "used")

    def __init__(self, value: Any, nbytes: int) -> None:
        self.value, self.nbytes, self.hits, self.used = value, nbytes, 0, time.monotonic()


class ByteBudgetCache:
    """Results computed once and held under a byte budget; the least recently used go first.

    Thread-safe: a key is computed by one caller at a time, the others asking for it meanwhile wait for that
    result; a computation that raises is not kept (the next caller computes again). A result heavier than the
    whole budget is returned but not held.

    Parameters
    ----------
    budget_bytes : int
        Most bytes held at once (0: nothing is held).
    """

    def __init__(self, budget_bytes: int) -> None:
        if budget_bytes < 0:
            raise ValueError(f"a byte budget is >= 0, not {budget_bytes}")
        self.budget_bytes = int(budget_bytes)
        self._held: OrderedDict[Hashable, _Held] = OrderedDict()
        self._pending: dict[Hashable, _Pending] = {}
        self._lock = threading.Lock()
        self._total = 0
        self.evictions = 0

    @property
    def nbytes(self) -> int:
        """Bytes held now (the sum of the held results' weights)."""
        return self._total

    def __len__(self) -> int:
        return len(self._held)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._held

    def get_or_compute(self, key: Hashable, compute: Callable[[], T], size: int | None = None) -> T:
        """The result held for ``key``, else ``compute()``, held for later calls while the budget allows.

        Parameters
        ----------
        key : hashable
            What identifies the result (data digests and settings).
        compute : callable
            Makes the result; called at most once at a time per key.
        size : int, optional
            The result's weight in bytes when the caller knows it; measured by :func:`deep_size` otherwise.

        Returns
        -------
        object
            The result.
        """
        while True:
            with self._lock:
                held = self._held.get(key)
                if held is not None:
                    self._held.move_to_end(key)
                    held.hits += 1
                    held.used = time.monotonic()
                    return held.value
                pending = self._pending.get(key)
                owner = pending is None
                if owner:
                    pending = self._pending[key] = _Pending()
            assert pending is not None  # found or made under the lock
            if owner:
                return self._compute(key, pending, compute, size)
            pending.done.wait()
            if not pending.failed:
                return pending.value
            # the computation failed: the next round computes it (or waits for whoever does)

    def lookup(self, key: Hashable, default: Any = None) -> Any:
        """The result held for ``key`` (counted as a use), else ``default``; computes nothing.

        Parameters
        ----------
        key : hashable
            What identifies the result.
        default : object, optional
            Returned when nothing is held for ``key``.

        Returns
        -------
        object
        """
        with self._lock:
            held = self._held.get(key)
            if held is None:
                return default
            self._held.move_to_end(key)
            held.hits += 1
            held.used = time.monotonic()
            return held.value

    def put(self, key: Hashable, value: Any, size: int | None = None) -> bool:
        """Hold ``value`` for ``key`` (replacing what was held) while the budget allows.

        Parameters
        ----------
        key : hashable
            What identifies the result.
        value : object
            The result.
        size : int, optional
            Its weight in bytes; measured by :func:`deep_size` otherwise.

        Returns
        -------
        bool
            Whether it is held: False when it alone weighs more than the budget (or was evicted at once).
        """
        nbytes = deep_size(value) if size is None else int(size)
        with self._lock:
            return self._hold(key, value, nbytes)

    def _hold(self, key: Hashable, value: Any, nbytes: int) -> bool:
        """Hold ``value`` in place of what ``key`` held, then evict; whether it is held (caller holds the lock)."""
        old = self._held.pop(key, None)
        if old is not None:
            self._total -= old.nbytes
        if nbytes > self.budget_bytes:
            return False
        self._held[key] = _Held(value, nbytes)
        self._total += nbytes
        self._evict()
        return key in self._held

    def _compute(self, key: Hashable, pending: _Pending, compute: Callable[[], T], size: int | None) -> T:
        try:
            value = compute()
            nbytes = deep_size(value) if size is None else int(size)
        except BaseException:
            with self._lock:
                del self._pending[key]
            pending.failed = True
            pending.done.set()
            raise
        with self._lock:
            del self._pending[key]
            self._hold(key, value, nbytes)
        pending.value = value
        pending.done.set()
        return value

    def _evict(self) -> None:
        """Drop the least recently used results until the total is within the budget (caller holds the lock)."""
        while self._total > self.budget_bytes and self._held:
            _, dropped = self._held.popitem(last=False)
            self._total -= dropped.nbytes
            self.evictions += 1

    def discard(self, key: Hashable) -> bool:
        """Drop the result held for ``key``.

        Parameters
        ----------
        key : hashable
            Its key.

        Returns
        -------
        bool
            Whether one was held.
        """
        with self._lock:
            held = self._held.pop(key, None)
            if held is not None:
                self._total -= held.nbytes
            return held is not None

    def discard_where(self, unwanted: Callable[[Hashable], bool]) -> int:
        """Drop every held result whose key ``unwanted(key)`` is true.

        Parameters
        ----------
        unwanted : callable
            Called with each held key, under the cache's lock (it must not use the cache).

        Returns
        -------
        int
            How many were dropped.
        """
        with self._lock:
            keys = [k for k in self._held if unwanted(k)]
            for k in keys:
                self._total -= self._held.pop(k).nbytes
            return len(keys)

    def clear(self) -> None:
        """Drop every held result (results being computed are held when they finish, as usual)."""
        with self._lock:
            self._held.clear()
            self._total = 0

    def held(self) -> list[CachedEntry]:
        """What is held, least recently used first.

        Returns
        -------
        list of CachedEntry
            Key, weight, hits and idle time of every held result.
        """
        now = time.monotonic()
        with self._lock:
            return [CachedEntry(k, h.nbytes, h.hits, now - h.used) for k, h in self._held.items()]

    def values(self) -> list:
        """The held results themselves, least recently used first (for diagnostics: what they reach).

        Returns
        -------
        list
        """
        with self._lock:
            return [h.value for h in self._held.values()]

    def report(self, top: int = 8) -> str:
        """One paragraph: bytes held against the budget, entries, evictions, and the heaviest entries.

        Parameters
        ----------
        top : int, optional
            Entries listed by weight.

        Returns
        -------
        str
        """
        entries = sorted(self.held(), key=lambda e: -e.nbytes)
        mb = 1024**2
        heaviest = "; ".join(f"{e.key!r:.80} {e.nbytes / mb:.1f} MB ({e.hits} hits)" for e in entries[:top])
        return (
            f"{self.nbytes / mb:.1f} MB of {self.budget_bytes / mb:.0f} MB held in {len(entries)} results, "
            f"{self.evictions} evicted so far" + (f"; heaviest: {heaviest}" if heaviest else "")
        )
