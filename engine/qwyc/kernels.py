"""Compiled loops of QWYC (Wang, Gupta & You, *Quit When You Can*, arXiv:1806.11202, 2018).

QWYC*'s candidate scan is :mod:`engine.qwyc._scan`.

* :func:`sorted_exits`: the same count from already sorted sums (the formulation of
  :func:`~engine.qwyc._policy.step_thresholds`), an oracle for the tests.
* :func:`step_exit`: the exit rule of one step, for one running sum (the single source of
  :func:`run_policy` and of the compiled tree evaluator :mod:`engine.qwyc._evaluator`).
* :func:`run_policy`: a policy on a contribution matrix, row by row, stopping at the
  first exit (no (N,) temporaries per step).
* :func:`worker_pool` and :func:`in_parts`: a loop's independent parts (candidates, row
  blocks) in threads; the compiled loops release the GIL, so the parts run on separate cores.

Numba is a dependency; without it (an import error) :data:`AVAILABLE` is False and the
same functions run as plain Python (slow, only for environments that cannot install it).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import numpy as np

from ..errors import InputError

__all__ = [
    "AVAILABLE",
    "sorted_exits",
    "step_exit",
    "run_policy",
    "default_workers",
    "resolve_workers",
    "worker_pool",
    "in_parts",
]

try:  # Numba is a dependency; the fallback keeps the engine importable where it cannot be installed
    from numba import njit
except ImportError:  # pragma: no cover - exercised only without numba
    njit = None  # type: ignore[assignment]

AVAILABLE = njit is not None


def _no_prefetch(values: np.ndarray, i: int) -> None:
    """Plain Python's :func:`prefetch`: nothing."""


#: ``prefetch(values, i)`` asks the processor for the cache line of ``values[i]`` in compiled loops (LLVM's
#: prefetch: a hint, no effect on results)
prefetch = _no_prefetch

if AVAILABLE:
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic

    @intrinsic
    def prefetch(typingctx, values, i):  # noqa: F811 - the compiled form of the hint
        def codegen(context, builder, signature, args):
            array_type = signature.args[0]
            array = context.make_array(array_type)(context, builder, args[0])
            pointer = builder.bitcast(
                cgutils.get_item_pointer(context, builder, array_type, array, [args[1]]), ir.IntType(8).as_pointer()
            )
            int32 = ir.IntType(32)
            hint = cgutils.get_or_insert_function(
                builder.module,
                ir.FunctionType(ir.VoidType(), [ir.IntType(8).as_pointer(), int32, int32, int32]),
                "llvm.prefetch.p0i8",
            )
            builder.call(hint, [pointer, ir.Constant(int32, 0), ir.Constant(int32, 3), ir.Constant(int32, 1)])
            return context.get_dummy_value()

        return types.void(values, i), codegen


#: most threads one compiled loop is split over (beyond this the memory bus, not the cores, is the limit)
MAX_WORKERS = 8


def default_workers() -> int:
    """The cores this process may use (its CPU affinity), at most :data:`MAX_WORKERS`; 1 without Numba.

    Returns
    -------
    int
    """
    if not AVAILABLE:  # plain Python loops hold the GIL: threads would only add overhead
        return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - platforms without affinity (macOS, Windows)
        cores = os.cpu_count() or 1
    return max(1, min(MAX_WORKERS, cores))


def resolve_workers(workers: int | None) -> int:
    """``workers`` checked (an int >= 1), or :func:`default_workers` for None."""
    if workers is None:
        return default_workers()
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise InputError(f"workers must be a whole number of threads >= 1, not {workers!r}")
    return int(workers)


@contextmanager
def worker_pool(parts: int):
    """Threads for parts 1 to ``parts - 1`` of :func:`in_parts` (part 0 runs in the caller's); None for one part."""
    if parts <= 1:
        yield None
        return
    with ThreadPoolExecutor(max_workers=parts - 1, thread_name_prefix="qwyc") as pool:
        yield pool


def in_parts(pool, parts: int, work) -> None:
    """``work(part)`` for every part in ``range(parts)``: part 0 in the caller's thread, the others in ``pool``.

    The parts must write to disjoint outputs. Returns once all have finished; the first
    error of any part is raised after every part has stopped.
    """
    if pool is None or parts <= 1:
        for part in range(parts):
            work(part)
        return
    futures = [pool.submit(work, part) for part in range(1, parts)]
    try:
        work(0)
    finally:
        errors = [f.exception() for f in futures]
    for error in errors:
        if error is not None:
            raise error


def sorted_exits(pos: np.ndarray, neg: np.ndarray, budget: int, neg_only: bool) -> int:
    """Algorithm 2's best number of exits from ascending positive and negative sums.

    Parameters
    ----------
    pos, neg : numpy.ndarray of float64
        Running sums of the undecided positives / negatives, ascending.
    budget : int
        Mistakes allowed.
    neg_only : bool
        Only negative exits.

    Returns
    -------
    int
        The most examples that can exit.
    """
    n_pos, n_neg = pos.size, neg.size
    total = n_pos + n_neg
    best = 0
    for b in range(budget + 1):
        if b < n_pos:
            x = pos[b]
            ne = np.searchsorted(pos, x) + np.searchsorted(neg, x)
        else:
            ne = total
        if neg_only:
            pe = 0
        else:
            c = budget - b
            if c < n_neg:
                yv = neg[n_neg - 1 - c]
                pe = (n_neg - np.searchsorted(neg, yv, side="right")) + (n_pos - np.searchsorted(pos, yv, side="right"))
            else:
                pe = total
        if ne + pe > best:
            best = ne + pe
    return min(best, total)


def step_exit(g: float, last: bool, eps_minus: float, eps_plus: float, threshold: float) -> int:
    """Where a row goes after a step of a policy: 1 exits positive, 0 exits negative, -1 goes on.

    Before the last step a row exits positive when ``g > eps_plus``, else negative when
    ``g < eps_minus`` (strict; a NaN threshold never exits); the last step always decides,
    by the full rule ``g >= threshold``. Scalars only: a compiled loop passing arrays to it
    would count references on every step (3x slower).

    Parameters
    ----------
    g : float
        The row's running sum after the step.
    last : bool
        Whether the step is the policy's last.
    eps_minus, eps_plus : float
        The step's exit thresholds.
    threshold : float
        β of the full decision.

    Returns
    -------
    int
        1, 0 or -1.
    """
    if last:
        return 1 if g >= threshold else 0
    if g > eps_plus:
        return 1
    if g < eps_minus:
        return 0
    return -1


if AVAILABLE:  # LLVM inlines it into the compiled loops: not cached (a cached callee is object code, called on
    # every step), not Numba's inline="always" (either made the tree evaluator ~10 % slower). Numba's cache does not
    # follow calls across files: after editing it, touch evaluator.py so its cached loop is compiled again
    step_exit = njit(step_exit)


def run_policy(
    f: np.ndarray,
    order: np.ndarray,
    eps_minus: np.ndarray,
    eps_plus: np.ndarray,
    bias: float,
    threshold: float,
    pool=None,
    parts: int = 1,
):
    """A policy on a contribution matrix, row by row: (decisions, models evaluated).

    Parameters
    ----------
    f : numpy.ndarray of float64, shape (N, T)
        Contributions.
    order, eps_minus, eps_plus : numpy.ndarray, shape (T,)
        The policy's order and thresholds.
    bias, threshold : float
        Constant of the score and β.
    pool, parts : optional
        :func:`worker_pool` threads and the number of row ranges run at once (each row is independent).

    Returns
    -------
    (numpy.ndarray of bool, numpy.ndarray of int64)
        Decisions and models evaluated, shape (N,) each.
    """
    n = f.shape[0]
    decision = np.zeros(n, dtype=np.bool_)
    n_eval = np.full(n, order.size, dtype=np.int64)
    cuts = np.linspace(0, n, parts + 1).astype(np.int64)
    in_parts(
        pool,
        parts,
        lambda p: _policy_rows(f, order, eps_minus, eps_plus, bias, threshold, decision, n_eval, cuts[p], cuts[p + 1]),
    )
    return decision, n_eval


def _policy_rows(f, order, eps_minus, eps_plus, bias, threshold, decision, n_eval, first, stop):
    """:func:`run_policy` on the rows ``first <= i < stop``."""
    steps = order.size
    for i in range(first, stop):
        g = bias
        for r in range(steps):
            g += f[i, order[r]]
            out = step_exit(g, r == steps - 1, eps_minus[r], eps_plus[r], threshold)
            if out >= 0:
                decision[i] = out == 1
                n_eval[i] = r + 1
                break


if AVAILABLE:
    sorted_exits = njit(cache=True)(sorted_exits)
    _policy_rows = njit(cache=True, nogil=True)(_policy_rows)
